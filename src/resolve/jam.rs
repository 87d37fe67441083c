//! Jam release: a rail agent that has stood in a jam for
//! [`AvoidanceConfig::jam_release`](crate::AvoidanceConfig::jam_release) seconds leaves its
//! rail and steers freely (ORCA) toward its goal, and takes a rail again once it walks clear of
//! the others (docs/ALGORITHM.md, "Jam release").
//!
//! Rail agents only stop, wait, bend and yield; in a dense crowd their clusters come apart one
//! agent at a time, and most of the crowd stands (docs/ROBUSTNESS.md, session 42: three
//! quarters of tradeshow-1000's agent-seconds). Free steering moves the whole cluster a little
//! at once, discs allowed to touch slightly, which is what a game's dense crowd does. Off by
//! default: the rail agents' contract is no contact at all.

use std::sync::Arc;

use glam::DVec2;

use super::order::Order;
use super::trivial::Decision;
use crate::rail::Rail;
use crate::world::{AgentKey, DestinationCheck, Motion, Phase, World};

/// A released agent takes a rail again no sooner than this after its release, seconds: the
/// cluster it left has to loosen first.
pub(crate) const REJOIN_AFTER: f64 = 1.0;

/// After a rejoin found no rail (none planned, or its start more than 45° off the agent's
/// way), the next try waits this long, seconds.
pub(crate) const REJOIN_RETRY: f64 = 0.25;

/// A released agent rejoins only when no other agent's disc is within its first sweep's reach
/// at the rejoining speed (its stopping distance and the horizon, plus both radii and the
/// margins) and this many seconds of its walk more, seconds: out of the crowd, not between
/// two of its clusters. On tradeshow-1000 with the release at 2 s (docs/ROBUSTNESS.md,
/// session 45), a room of 1 s of walk in all let 906 of 1,000 arrive, 2 s 963, 3 s 974, and
/// never rejoining 975: agents back on rails too soon were caught in the next cluster.
pub(crate) const REJOIN_CLEAR_EXTRA: f64 = 1.0;

/// The rejoining rail's first direction is within this angle of the agent's free velocity,
/// degrees: the host blends the walk, it does not turn on the spot.
pub(crate) const REJOIN_DEGREES: f64 = 45.0;

/// A free agent's speed below this fraction of its slowest gait counts as standing: it does
/// not rejoin (it would need a start transition).
const REJOIN_MIN_SPEED_FRACTION: f64 = 0.5;

/// With the jam release on, a rail agent standing at its goal steps aside as a free agent when
/// a free agent's disc comes within this distance of its own plus its radius, metres. At its
/// goal a rail agent is a wall to free agents (they take all the avoidance), where an ORCA agent
/// gives way and comes back: den312d-500 with the release (docs/ROBUSTNESS.md, session 46)
/// stayed below ORCA alone. With this, 59 → 71 % of its agents arrived over sixteen jittered
/// runs, and tradeshow-1000 1,953 → 1,973 of 2,000 over two.
const ARRIVED_YIELD_GAP: f64 = 1.0;

/// The release of a standing rail agent, when `jam_release` is set: an [`Order::Release`]
/// toward its rail's end (or the goal it was to resume to from a yield spot) once it has stood
/// `jam_release` seconds wanting to go (counted from when it last stood or, if later, when it
/// got a rail again at the end of its old one: `Agent::wanting_since`); and, at its goal (its
/// rail travelled, no goal to resume to), toward that goal as soon as a free agent comes near
/// (see [`ARRIVED_YIELD_GAP`]), so that it gives way as free agents do. `None` otherwise.
pub(super) fn release(world: &World, key: AgentKey) -> Option<Decision> {
    let config = world.config();
    if config.jam_release <= 0.0 {
        return None;
    }
    let agent = &world.agents[key];
    let rail = agent.rail()?;
    if agent.motion().phase == Phase::Standing
        && !agent.wants_to_move()
        && agent.resume_goal.is_none()
    {
        let position = agent.position();
        let reach = 2.0 * agent.desc().radius + ARRIVED_YIELD_GAP;
        let free_near = world
            .grid
            .any_near(position, reach + world.max_radius, |i| {
                let other = world.dense[i];
                other != key
                    && world.agents[other].free.is_some()
                    && world.hot[i].position.distance(position) < reach + world.hot[i].radius
            });
        return free_near.then(|| Decision::new(Order::Release { goal: rail.end() }));
    }
    if agent.motion().phase != Phase::Standing
        || !agent.wants_to_move()
        || world.time() - agent.stood_since.max(agent.wanting_since) < config.jam_release
    {
        return None;
    }
    let goal = agent.resume_goal.unwrap_or_else(|| rail.end());
    Some(Decision::new(Order::Release { goal }))
}

/// The decision for an agent steering freely since a release: an [`Order::Rejoin`] when it
/// has walked clear of the others, else [`Order::Continue`] (its velocity comes from
/// [`World::steer_all`]).
pub(super) fn rejoin(world: &World, key: AgentKey) -> Decision {
    let keep = Decision::new(Order::Continue);
    let agent = &world.agents[key];
    let Some(free) = agent.free.as_deref() else {
        return keep;
    };
    let (Some(released_at), Some(goal)) = (free.released_at, free.goal) else {
        return keep;
    };
    let now = world.time();
    if now - released_at < REJOIN_AFTER || now < free.next_rejoin {
        return keep;
    }
    let desc = agent.desc();
    let velocity = free.velocity;
    let free_speed = velocity.length();
    if free_speed < REJOIN_MIN_SPEED_FRACTION * desc.slowest_speed() {
        return keep;
    }
    let speed = desc.gait(free_speed.min(desc.preferred_speed)).speed;
    // Clear: no disc within its first sweep's reach on the rail and a second more.
    let position = agent.position();
    let config = world.config();
    let room = desc.radius
        + 2.0 * config.margin
        + desc.stop_distance(speed)
        + speed * (config.horizon + REJOIN_CLEAR_EXTRA);
    let crowded = world.grid.any_near(position, room + world.max_radius, |i| {
        let other = &world.hot[i];
        world.dense[i] != key && other.position.distance(position) < room + other.radius
    });
    if crowded {
        return keep;
    }
    // A rail from here to the goal, leaving in the agent's direction of travel.
    let mesh = world.level().navmesh();
    let options = world.config().path_options(desc.radius);
    let Ok(rail) = mesh.plan_rail(position, goal, &options) else {
        return Decision {
            rejoin_failed: true,
            ..keep
        };
    };
    let leaves = rail.sample(0.0).tangent;
    let heading = velocity / free_speed;
    if leaves.dot(heading) < REJOIN_DEGREES.to_radians().cos() {
        return Decision {
            rejoin_failed: true,
            ..keep
        };
    }
    Decision::new(Order::Rejoin {
        rail: Arc::new(rail),
        speed,
    })
}

impl World {
    /// Apply an [`Order::Release`] or an [`Order::Rejoin`] to the world's copy of the agent
    /// (the last step of [`World::apply`]'s decision): its rail and free state, its last order,
    /// its flat copy and its place in the index of rail ends. A release that finds no corner
    /// path becomes a wait (see [`World::apply_release`]).
    pub(super) fn apply_mode_change(&mut self, key: AgentKey, order: &mut Order) {
        let Some(slot) = self.agents.get(key).map(|a| a.slot as usize) else {
            return;
        };
        match order {
            Order::Release { goal } => {
                let goal = *goal;
                self.apply_release(key, goal, order);
            }
            Order::Rejoin { rail, speed } => {
                let (rail, speed) = (rail.clone(), *speed);
                self.apply_rejoin(key, &rail, speed);
            }
            _ => return,
        }
        let now = self.time();
        let agent = &mut self.agents[key];
        agent.last_order = order.kind();
        agent.last_order_time = now;
        self.refresh(key);
        self.spots.mark_moved(slot);
    }

    /// Apply an [`Order::Release`]: the agent drops its rail and becomes a free agent bound for
    /// `goal`, standing where it is. When no corner path to `goal` is found for its radius, it
    /// keeps its rail, the order becomes a wait and the jam clock starts again.
    fn apply_release(&mut self, key: AgentKey, goal: DVec2, order: &mut Order) {
        let now = self.time();
        let Ok(path) = self.free_path(key, goal) else {
            self.agents[key].stood_since = now;
            *order = Order::Wait { clear_in: None };
            return;
        };
        let agent = &mut self.agents[key];
        agent.desc.position = agent.position();
        agent.rail = None;
        agent.narrows = None;
        agent.motion = Motion::standing(0.0);
        agent.reset_resolution();
        agent.free = Some(Box::new(crate::steer::FreeState {
            released_at: Some(now),
            ..Default::default()
        }));
        self.ensure_obstacles();
        self.take_free_path(key, goal, &path);
    }

    /// Apply an [`Order::Rejoin`]: the free agent takes `rail`, moving at `speed` from its
    /// start, as a rail agent again.
    fn apply_rejoin(&mut self, key: AgentKey, rail: &Arc<Rail>, speed: f64) {
        self.rail_serial += 1;
        let serial = self.rail_serial;
        let Some(agent) = self.agents.get_mut(key) else {
            return;
        };
        agent.free = None;
        agent.rail = Some(rail.clone());
        agent.motion = Motion::moving(0.0, speed);
        agent.stood_since = f64::INFINITY;
        agent.invalid_motion = false;
        agent.reset_resolution();
        agent.rail_serial = serial;
        agent.destination = DestinationCheck::Unchecked;
        self.find_narrows(key);
    }

    /// After a failed rejoin: no try before [`REJOIN_RETRY`] has passed.
    pub(super) fn delay_rejoin(&mut self, key: AgentKey) {
        let now = self.time();
        if let Some(free) = self.agents.get_mut(key).and_then(|a| a.free.as_deref_mut()) {
            free.next_rejoin = now + REJOIN_RETRY;
        }
    }
}
