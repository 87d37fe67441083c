//! The incremental 2D linear program of ORCA and its 3D fallback (to be written).
