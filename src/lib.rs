//! `sidestep`: collision avoidance for preplanned, animation-driven locomotion.
//!
//! Characters ride exactly on smoothed Bézier [`Rail`]s over a navmesh ([`NavMesh`], loaded as a
//! [`Level`]); the avoidance layers built on this foundation answer, each frame, whether an agent
//! may keep going, must change speed, stop, or take a rewritten rail. See `docs/ARCHITECTURE.md`.

mod geometry;
#[cfg(feature = "navmesh")]
mod interop;
mod level;
mod rail;
mod render;

#[cfg(feature = "navmesh")]
pub use interop::*;
pub use level::*;
pub use rail::*;
pub use render::*;

/// The 2D vector type of the public API: metres, x right, y up.
pub use glam::DVec2;

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
