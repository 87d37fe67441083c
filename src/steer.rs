//! The velocity-space fallback for agents that are not on rails (players, physics-driven and
//! free-steering characters): ORCA half-planes solved as a 2D linear program, and
//! time-to-collision forces.

mod linear_program;
mod orca;
mod ttc;
