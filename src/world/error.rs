//! Errors of the world API: bad descriptions, unknown keys, bad motion reports.

use glam::DVec2;

use super::AgentKey;
use crate::rail::PlanError;

/// What went wrong in a call to the [`World`](crate::World).
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum WorldError {
    /// The key names no live agent (removed, or from another world whose slot this world never
    /// used; see [`AgentKey`]).
    #[error("unknown agent key {0:?} (removed, or from another world)")]
    UnknownAgent(AgentKey),
    /// An agent description is invalid.
    #[error("invalid agent description: {0}")]
    InvalidAgent(String),
    /// The avoidance configuration is invalid.
    #[error("invalid avoidance configuration: {0}")]
    InvalidConfig(String),
    /// A motion report is invalid (NaN, negative speed, ...); the agent is told to stop until a
    /// valid report arrives.
    #[error("invalid motion for agent {key:?}: {problem}")]
    InvalidMotion {
        /// The agent.
        key: AgentKey,
        /// What is wrong.
        problem: String,
    },
    /// A point is not on the navmesh.
    #[error("{what} ({x}, {y}) is not on the navmesh", x = at.x, y = at.y)]
    OffMesh {
        /// Which point ("start", "goal", "position").
        what: &'static str,
        /// The point.
        at: DVec2,
    },
    /// No rail could be planned.
    #[error("cannot plan a rail: {0}")]
    Plan(#[from] PlanError),
    /// The agent has no rail (stationary) where one is needed.
    #[error("agent {0:?} has no rail")]
    NoRail(AgentKey),
    /// The agent is on rails ([`crate::Locomotion::Rail`]) where a free-steering one is needed.
    #[error("agent {0:?} is not a free-steering agent (its locomotion is Rail)")]
    NotFree(AgentKey),
    /// The agent steers freely ([`crate::Locomotion::Orca`] or [`crate::Locomotion::Ttc`])
    /// where a rail agent is needed: give it a goal ([`crate::World::set_goal`]), not a rail.
    #[error(
        "agent {0:?} is free-steering (its locomotion is Orca or Ttc); give it a goal, not a rail"
    )]
    NotRail(AgentKey),
}
