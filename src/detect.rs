//! Collision detection: the sweep of an agent's predicted motion against its neighbours'.

mod moving_sphere;
mod standing;
mod sweep;
mod trajectory;

pub(crate) use moving_sphere::{first_contact, Contact};
pub(crate) use standing::sweep_standing;
pub(crate) use sweep::{
    sample_agent, sample_step, sweep_pair, PairContact, SweepBound, SweepSample,
};
pub(crate) use trajectory::{MotionPlan, Trajectory};

use glam::DVec2;

use crate::world::AgentKey;

/// The first predicted collision on an agent's way (chapter 22.3, figure 22.1b).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collision {
    /// The agent it collides with.
    pub collider: AgentKey,
    /// Seconds from now until the discs (grown by the margin) first touch.
    pub time: f64,
    /// The agent's arclength at the contact, metres.
    pub s: f64,
    /// The agent's centre at the contact.
    pub agent_position: DVec2,
    /// The collider's centre at the contact.
    pub collider_position: DVec2,
    /// Whether the collider's centre is within the head-on angle of the agent's direction of
    /// travel at the contact.
    pub head_on: bool,
    /// How deep the discs would overlap over the step of contact: `(rA + rB − closest
    /// distance) / (rA + rB)`, in `[0, 1]`.
    pub overlap: f64,
    /// Unit vector orthogonal to the agent's direction of travel at the contact, pointing away
    /// from where the collider is heading (away from the collider itself when it stands or
    /// walks straight at the agent; to the right when that is undecided too).
    pub avoid_direction: DVec2,
}
