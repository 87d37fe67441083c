//! What the host tells the world about an agent: its description and its motion each frame.

use glam::DVec2;

slotmap::new_key_type! {
    /// A handle to an agent of a [`World`](crate::World). Keys of removed agents are never
    /// reused (slot versions), so a stale key is reported as unknown instead of naming another
    /// agent. Keys do not record their world: a key from another world is unknown only if this
    /// world never had an agent in that slot with that version; keep keys with their world.
    pub struct AgentKey;
}

/// How an agent stops from one of its speeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gait {
    /// The speed, metres per second (> 0).
    pub speed: f64,
    /// Distance travelled from the stop order until standing, metres (≥ 0).
    pub stop_distance: f64,
    /// Time from the stop order until standing, seconds (≥ 0).
    pub stop_time: f64,
}

impl Gait {
    /// A gait with the default stopping behaviour: constant deceleration at
    /// [`DEFAULT_DECELERATION`] (m/s²), but never shorter than [`MIN_STOP_TIME`] seconds.
    /// At 1.4 m/s that is 0.56 s over 0.39 m.
    pub fn from_speed(speed: f64) -> Gait {
        let stop_time = (speed / DEFAULT_DECELERATION).max(MIN_STOP_TIME);
        Gait {
            speed,
            stop_distance: 0.5 * speed * stop_time,
            stop_time,
        }
    }
}

/// Speeds closer than this (m/s) are the same speed: a host may report 1.4 for a gait
/// computed as 1.4000000000000001.
pub const SPEED_TOLERANCE: f64 = 1e-6;

/// Default deceleration of a stop, m/s².
pub const DEFAULT_DECELERATION: f64 = 2.5;
/// Shortest default stop transition, seconds.
pub const MIN_STOP_TIME: f64 = 0.3;

/// The start transition from standing to the preferred speed, as the animation plays it.
///
/// During the first `turn_time` seconds the agent turns on the spot and does not move; it then
/// covers `distance` metres in the remaining `duration - turn_time` seconds and leaves the
/// transition at its speed. The world predicts the moving part at constant acceleration from
/// rest (`distance × u²`, `u` the fraction of its time gone), as the default transition
/// describes it and the built-in host plays it; the chapter (22.3) predicts it at its average
/// velocity. Starting at another speed scales `distance` in proportion to the speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartTransition {
    /// Whole transition, seconds (> 0).
    pub duration: f64,
    /// Distance covered during the transition at the preferred speed, metres (≥ 0).
    pub distance: f64,
    /// Leading part that turns on the spot without moving, seconds, in `[0, duration)`.
    pub turn_time: f64,
}

impl StartTransition {
    /// The default: 0.6 s, of which 0.2 s turning on the spot, then constant acceleration to
    /// `speed` (so `distance = speed × 0.4 / 2`).
    pub fn for_speed(speed: f64) -> StartTransition {
        let duration = 0.6;
        let turn_time = 0.2;
        StartTransition {
            duration,
            distance: 0.5 * speed * (duration - turn_time),
            turn_time,
        }
    }
}

/// How an agent moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Locomotion {
    /// On a rail at one of its speeds, told what to do by [`crate::World::query`] (default).
    #[default]
    Rail,
    /// Free-steering: its velocity comes from ORCA ([`crate::World::steer_all`]).
    Orca,
    /// Free-steering: its velocity comes from time-to-collision forces
    /// ([`crate::World::steer_all`]).
    Ttc,
}

impl Locomotion {
    /// Whether the agent steers freely (ORCA or time-to-collision forces).
    pub fn is_free(self) -> bool {
        self != Locomotion::Rail
    }
}

/// Everything the world needs to know about an agent that does not change per frame.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentDesc {
    /// Collision radius, metres (> 0). Default 0.4.
    pub radius: f64,
    /// The speeds its animations support, each with its stopping distance and time; at least
    /// one, all > 0. Default: [`AgentDesc::from_radius`].
    pub gaits: Vec<Gait>,
    /// The speed it walks at when nothing is in the way, m/s; one of `gaits`.
    pub preferred_speed: f64,
    /// Start transition to the preferred speed.
    pub start: StartTransition,
    /// Gap between discs (surface to surface, metres) it keeps behind an agent walking the same
    /// way (chapter 22.5). Default 3 × radius.
    pub follow_gap: f64,
    /// In a deadlock, the agent with the lowest priority yields first (ties: the agent added
    /// last); default 0.
    pub priority: i32,
    /// Start position of an agent without a rail, metres. Rail agents are wherever their
    /// rail and reported arclength put them.
    pub position: DVec2,
    /// On a rail (default) or free-steering. A free agent walks at `preferred_speed` when
    /// nothing is in the way and at most at its fastest gait's speed.
    pub locomotion: Locomotion,
}

impl AgentDesc {
    /// A human-like agent of the given radius: speeds scale with body size (2, 3.5 and
    /// 6.5 radii per second: 0.8, 1.4 and 2.6 m/s at the default radius 0.4 m), the middle one
    /// preferred, stopping and start transitions as [`Gait::from_speed`] and
    /// [`StartTransition::for_speed`], follow gap 3 × radius.
    pub fn from_radius(radius: f64) -> AgentDesc {
        // Written as (k × radius) / 10 so that the default radius gives exactly 0.8, 1.4, 2.6.
        let speeds = [
            20.0 * radius / 10.0,
            35.0 * radius / 10.0,
            65.0 * radius / 10.0,
        ];
        AgentDesc {
            radius,
            gaits: speeds.iter().map(|&v| Gait::from_speed(v)).collect(),
            preferred_speed: speeds[1],
            start: StartTransition::for_speed(speeds[1]),
            follow_gap: 3.0 * radius,
            priority: 0,
            position: DVec2::ZERO,
            locomotion: Locomotion::Rail,
        }
    }

    /// A description with the given speeds (default stopping per speed, start transition for
    /// the preferred speed); other fields as [`AgentDesc::from_radius`].
    pub fn with_speeds(radius: f64, speeds: &[f64], preferred_speed: f64) -> AgentDesc {
        AgentDesc {
            gaits: speeds.iter().map(|&v| Gait::from_speed(v)).collect(),
            preferred_speed,
            start: StartTransition::for_speed(preferred_speed),
            ..AgentDesc::from_radius(radius)
        }
    }

    /// The slowest of its gaits' speeds, m/s (infinite when it has none; a checked description
    /// has at least one).
    pub(crate) fn slowest_speed(&self) -> f64 {
        self.gaits
            .iter()
            .map(|g| g.speed)
            .fold(f64::INFINITY, f64::min)
    }

    /// The gait for `speed` (the nearest one if `speed` is not exactly one of them).
    pub fn gait(&self, speed: f64) -> Gait {
        let mut best = self.gaits[0];
        for g in &self.gaits {
            if (g.speed - speed).abs() < (best.speed - speed).abs() {
                best = *g;
            }
        }
        best
    }

    /// Stopping distance at `speed`, metres, interpolated linearly between gaits (0 at rest).
    pub fn stop_distance(&self, speed: f64) -> f64 {
        if speed <= 0.0 {
            return 0.0;
        }
        let g = self.gait(speed);
        if g.speed > 0.0 {
            g.stop_distance * speed / g.speed
        } else {
            0.0
        }
    }
}

impl Default for AgentDesc {
    fn default() -> Self {
        AgentDesc::from_radius(0.4)
    }
}

/// Where in its locomotion cycle an agent is, as the host reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// Riding the rail at the reported speed.
    Moving,
    /// In the start transition toward the reported speed, `elapsed` seconds into it.
    Starting {
        /// Seconds since the transition began.
        elapsed: f64,
    },
    /// In the stop transition from the reported speed, `elapsed` seconds into it.
    Stopping {
        /// Seconds since the transition began.
        elapsed: f64,
    },
    /// Not moving.
    Standing,
}

/// The host's report of an agent's motion this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// Arclength along the agent's rail, metres (ignored without a rail).
    pub s: f64,
    /// Current speed, m/s: the cruise speed when moving, the target speed when starting, the
    /// speed it is stopping from when stopping; ignored when standing.
    pub speed: f64,
    /// Locomotion phase.
    pub phase: Phase,
}

impl Motion {
    /// Standing at arclength `s`.
    pub fn standing(s: f64) -> Motion {
        Motion {
            s,
            speed: 0.0,
            phase: Phase::Standing,
        }
    }

    /// Moving at `speed` at arclength `s`.
    pub fn moving(s: f64, speed: f64) -> Motion {
        Motion {
            s,
            speed,
            phase: Phase::Moving,
        }
    }
}
