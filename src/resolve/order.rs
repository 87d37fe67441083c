//! What the world tells the host to do with an agent this frame.

use std::sync::Arc;

use glam::DVec2;

use crate::detect::Collision;
use crate::rail::Rail;
use crate::world::AgentKey;

/// The answer to [`World::query`](crate::World::query): what the locomotion system should do
/// with the agent now. The world applies it to its own copy of the agent at once, so queries
/// later in the same frame see the new speed or phase (chapter 22.3).
#[derive(Clone, Debug, PartialEq)]
pub enum Order {
    /// Keep going at the current speed (or keep standing, for an agent with nowhere to go).
    Continue,
    /// Switch to another of the agent's speeds, m/s.
    ChangeSpeed {
        /// The new speed, one of the agent's gaits.
        speed: f64,
    },
    /// Play the stop transition now and stand until told to start. An agent still turning on
    /// the spot at the start of its start transition ([`StartTransition::turn_time`]) has not
    /// moved: it stands where it is, with no stop transition to play.
    ///
    /// [`StartTransition::turn_time`]: crate::StartTransition::turn_time
    Stop {
        /// Why.
        cause: StopCause,
    },
    /// A standing agent whose way is clear: play the start transition toward `speed`.
    Start {
        /// The speed to start toward, m/s.
        speed: f64,
    },
    /// A standing agent that wants to go but must not start yet.
    Wait {
        /// Seconds until the blocking agent is predicted to clear the way, when known.
        clear_in: Option<f64>,
    },
    /// Follow a new rail from where the agent is now (arclength 0 of `rail`), keeping the
    /// current speed and phase (chapter 22.4). The world has already replaced its copy.
    Reroute {
        /// The new rail: starts at the agent's position with its direction of travel.
        rail: Arc<Rail>,
        /// Why, and the point the new rail was bent through.
        reroute: Reroute,
    },
    /// Leave the rail and steer freely toward `goal`: the agent has stood in a jam for
    /// [`AvoidanceConfig::jam_release`](crate::AvoidanceConfig::jam_release) seconds (only when
    /// that is set). From now on the host moves it by the velocities of
    /// [`World::steer_all`](crate::World::steer_all) and reports it with
    /// [`World::set_free_motion`](crate::World::set_free_motion), not
    /// [`World::set_motion`](crate::World::set_motion), until an [`Order::Rejoin`]. The world
    /// has dropped its rail; it stands until its first velocity.
    Release {
        /// Where it steers to, metres: its rail's end (on its way to a yield spot, the goal it
        /// was to go on to from there).
        goal: DVec2,
    },
    /// Back on a rail after an [`Order::Release`]: the agent walks clear of the others. Follow
    /// `rail` from arclength 0 (where the agent is, in its direction of travel within 45°)
    /// moving at `speed`, with no start transition. The world has given it the rail.
    Rejoin {
        /// The new rail, to the goal of the release.
        rail: Arc<Rail>,
        /// One of the agent's gaits, m/s: the one nearest its free speed, at most its preferred
        /// speed.
        speed: f64,
    },
}

/// What a rewritten rail is for, and the point it was bent through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reroute {
    /// Why the rail was rewritten.
    pub reason: RerouteReason,
    /// The avoidance point the new rail passes through (for a moved destination or a yield
    /// spot, the new end of the rail), metres.
    pub via: DVec2,
    /// Which side of the old rail the avoidance point lies on, looking along it (`None` when
    /// the rail was not bent around a collision).
    pub side: Option<Side>,
}

/// Why a rail was rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RerouteReason {
    /// Around a predicted collision that speeds cannot solve (chapter 22.4).
    Avoid,
    /// The end moved to a free spot: another agent stands at or is bound for the same point
    /// (chapter 22.5). The new end is the agent's goal, unless the agent is on its way to a
    /// yield spot ([`crate::Agent::yielding_to_goal`] is `Some`): then the spot moved, and the
    /// goal it goes on to afterwards is unchanged.
    Destination,
    /// Out of a deadlock: to a spot off the other agent's rail, to wait there.
    Yield,
    /// From the yield spot on to the goal, once the way is clear.
    Resume,
    /// Around agents standing with nowhere to go that no bend gets past: a path planned
    /// around them, back to the rail or to the goal.
    Detour,
}

/// A side of a rail, looking along it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// To the left of the direction of travel.
    Left,
    /// To the right.
    Right,
}

impl Side {
    /// The other side.
    pub fn mirrored(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

impl Order {
    /// The order's kind, without its data.
    pub fn kind(&self) -> OrderKind {
        match self {
            Order::Continue => OrderKind::Continue,
            Order::ChangeSpeed { .. } => OrderKind::ChangeSpeed,
            Order::Stop { .. } => OrderKind::Stop,
            Order::Start { .. } => OrderKind::Start,
            Order::Wait { .. } => OrderKind::Wait,
            Order::Reroute { .. } => OrderKind::Reroute,
            Order::Release { .. } => OrderKind::Release,
            Order::Rejoin { .. } => OrderKind::Rejoin,
        }
    }
}

/// The kinds of [`Order`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OrderKind {
    /// [`Order::Continue`].
    Continue,
    /// [`Order::ChangeSpeed`].
    ChangeSpeed,
    /// [`Order::Stop`].
    Stop,
    /// [`Order::Start`].
    Start,
    /// [`Order::Wait`].
    Wait,
    /// [`Order::Reroute`].
    Reroute,
    /// [`Order::Release`].
    Release,
    /// [`Order::Rejoin`].
    Rejoin,
}

/// Why an agent was told to stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StopCause {
    /// A predicted collision that no speed avoids; stopping within the stopping distance is
    /// collision-free.
    Collision(Collision),
    /// A predicted collision that neither a speed change, nor a bent rail, nor a clean stop
    /// avoids; stopping is the least bad answer.
    Unavoidable(Collision),
    /// An agent coming the other way goes first through the single-lane stretch (a door, a
    /// corridor one agent wide) the rail enters next: the agent stops short of it, cleanly
    /// (docs/ALGORITHM.md, "Single-lane stretches").
    Passage {
        /// The agent that goes first.
        after: AgentKey,
    },
    /// The host's last motion report was invalid (see
    /// [`WorldError::InvalidMotion`](crate::WorldError::InvalidMotion)).
    InvalidMotion,
}

/// The answer to [`World::collision_free_start`](crate::World::collision_free_start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StartVerdict {
    /// Starting now, with the start transition, is collision-free over the horizon.
    Go,
    /// An agent will be in the way; it is predicted to clear it in `clear_in` seconds.
    Wait {
        /// The agent in the way (the first collision of a start now).
        blocker: AgentKey,
        /// Seconds until a start no longer collides with the blocker, in steps of 0.25 s. Others
        /// may still be in the way then: ask again.
        clear_in: f64,
    },
    /// An agent is in the way and does not clear it within the horizon (it stands there,
    /// for instance).
    Blocked {
        /// The agent in the way.
        blocker: AgentKey,
    },
}

/// The answer to [`World::is_position_free`](crate::World::is_position_free) and
/// [`World::is_path_free`](crate::World::is_path_free).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Occupancy {
    /// Nobody's predicted motion comes through it in the time asked.
    Free,
    /// Another agent's disc comes through it.
    Taken {
        /// The first agent found in the way.
        by: AgentKey,
        /// Seconds from now when it does.
        at: f64,
    },
}

impl Occupancy {
    /// Whether nobody is in the way.
    pub fn is_free(&self) -> bool {
        matches!(self, Occupancy::Free)
    }
}
