//! The velocity-space fallback for agents that are not on rails (players, physics-driven and
//! free-steering characters): ORCA half-planes solved as a 2D linear program, and
//! time-to-collision forces.

mod exits;
mod free;
mod linear_program;
mod neighbours;
mod orca;
mod ttc;

pub use free::Steer;
pub(crate) use free::{FreeState, SteerScratch};
pub use linear_program::HalfPlane;
pub use orca::{
    orca_velocity, ObstacleMap, ObstacleVertex, OrcaAgent, OrcaConfig, OrcaConfigError,
    OrcaNeighbour, OrcaScratch, COINCIDENT_DISTANCE,
};
pub use ttc::{
    time_to_collision, time_to_collision_with_segment, ttc_acceleration, ttc_velocity, TtcAgent,
    TtcConfig, TtcConfigError, TtcModel, TtcNeighbour, TTC_MAX_NEIGHBOURS_LIMIT,
};
