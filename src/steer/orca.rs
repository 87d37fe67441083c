//! ORCA half-planes for neighbours and navmesh walls (to be written).
