//! `sidestep`: collision avoidance for preplanned, animation-driven locomotion.
//!
//! Characters ride exactly on smoothed Bézier [`Rail`]s over a navmesh ([`NavMesh`], loaded as a
//! [`Level`]); the avoidance layers built on this foundation answer, each frame, whether an agent
//! may keep going, must change speed, stop, or take a rewritten rail. See `docs/ARCHITECTURE.md`.

mod debug;
mod detect;
mod geometry;
mod import;
#[cfg(feature = "navmesh")]
mod interop;
mod level;
mod queries;
mod rail;
mod render;
mod resolve;
mod sim;
mod steer;
mod world;

pub use debug::{DebugLog, DebugSink, NoDebug};
pub use detect::Collision;
pub use import::*;
#[cfg(feature = "navmesh")]
pub use interop::*;
pub use level::*;
pub use rail::*;
pub use render::*;
pub use resolve::*;
pub use sim::*;
pub use steer::*;
pub use world::*;

/// The 2D vector type of the public API: metres, x right, y up.
pub use glam::DVec2;

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
