//! Time-to-collision forces (to be written).
