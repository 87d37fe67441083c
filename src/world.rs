//! The avoidance world: the level, the agents the host reports on, and the broad-phase grid.

mod agent;
mod config;
mod error;
mod grid;
mod memory;
mod narrows;
mod spots;

pub use agent::{
    AgentDesc, AgentKey, Gait, Locomotion, Motion, Phase, StartTransition, DEFAULT_DECELERATION,
    MIN_STOP_TIME, SPEED_TOLERANCE,
};
pub use config::{AvoidanceConfig, MARGIN_RADII};
pub use error::WorldError;
pub use memory::WorldMemory;

use std::sync::Arc;

use glam::DVec2;
use slotmap::SlotMap;

use crate::detect::{Collision, MotionPlan, SweepSample, Trajectory};
use crate::level::Level;
use crate::rail::Rail;
use crate::resolve::{OrderKind, Side};
pub(crate) use grid::AgentGrid;
pub(crate) use narrows::Narrow;
pub(crate) use spots::SpotIndex;

/// Slack (metres of arclength) allowed when the host reports a distance just past either end
/// of the rail; it is clamped.
const RAIL_SLACK: f64 = 1e-3;

/// An agent as the world sees it: its description, rail, last reported motion and what the
/// world last told it.
#[derive(Clone, Debug)]
pub struct Agent {
    pub(crate) desc: AgentDesc,
    pub(crate) rail: Option<Arc<Rail>>,
    pub(crate) motion: Motion,
    position: DVec2,
    direction: DVec2,
    pub(crate) plan: MotionPlan,
    /// Detection range at the current motion, metres: how far it may travel before the sweep
    /// stops looking (stopping distance + horizon × speed).
    pub(crate) range: f64,
    pub(crate) last_order: OrderKind,
    pub(crate) last_order_time: f64,
    /// Which way its last order changed its speed, when it was a speed change: a fresh change
    /// is not reversed by another while the collision leaves time (`resolve/trivial.rs`).
    pub(crate) last_speed_step: Option<SpeedStep>,
    pub(crate) collision: Option<Collision>,
    pub(crate) invalid_motion: bool,
    /// When it was last told to stop (world clock, seconds).
    pub(crate) last_stop_time: f64,
    /// Since when it has been standing, as reported (world clock, seconds; infinite while it
    /// moves).
    pub(crate) stood_since: f64,
    /// When it last began to want to go while at the end of its rail (a new rail given to an
    /// agent with nowhere left to go: by the host, or a yield or make-way order; world clock,
    /// seconds): the jam release's clock runs from the later of this and `stood_since`
    /// (`resolve/jam.rs`), so that an agent standing at its goal is not released the moment it
    /// is asked to step aside.
    pub(crate) wanting_since: f64,
    /// When and to which side its rail was last bent around a collision.
    pub(crate) last_reroute: Option<(f64, Side)>,
    /// Progress of its bends: the least straight-line distance to its rail's end seen at a bend
    /// (metres)…
    pub(crate) bend_closest: f64,
    /// … and how many bends since that came without getting a metre closer. (Two fields,
    /// not a tuple: the count packs with the other small fields, 8 B an agent.)
    pub(crate) bends_without_progress: u32,
    /// A standing agent does not try to bend its rail again before this time (after a try
    /// that failed), seconds.
    pub(crate) next_bend_time: f64,
    /// The agent it has been waiting on, standing, and since when (world clock, seconds).
    pub(crate) waiting_on: Option<(AgentKey, f64)>,
    /// Whether its way to the agent it waits on passes a single-lane place, measured while
    /// both stand (a waiting cycle through such a place is broken at once).
    pub(crate) lane_link: Option<crate::resolve::LaneLink>,
    /// It found no yield spot out of a deadlock; the others pass it over until then, seconds.
    pub(crate) cannot_yield_until: f64,
    /// Set when it yields out of a deadlock: the goal it goes on to from the yield spot.
    pub(crate) resume_goal: Option<DVec2>,
    /// Asked to make way (it has nowhere to go, or is stuck in a jam): the agent waiting on it
    /// that no bend or detour gets past.
    pub(crate) make_way_for: Option<AgentKey>,
    /// It stepped aside for this agent, at this time (world clock, seconds): it goes back once
    /// that agent's way no longer passes its spot.
    pub(crate) made_way_for: Option<(AgentKey, f64)>,
    /// It yielded to a spot beside this agent's way, at this time (world clock, seconds): it
    /// goes on from the spot once that agent has passed it.
    pub(crate) letting_pass: Option<(AgentKey, f64)>,
    /// The bends it tried standing where it stands, on this rail, blocked at the same point
    /// (`BendMemo`): dropped with the rail and when it starts.
    pub(crate) bend_memo: Option<Box<crate::resolve::BendMemo>>,
    /// Order in which rails were given (the later of two agents sent to the same point moves).
    pub(crate) rail_serial: u64,
    /// Its rail's end against the other agents' destinations: checked yet, and moved?
    pub(crate) destination: DestinationCheck,
    /// The steering state of a free agent ([`Locomotion::Orca`] or [`Locomotion::Ttc`]),
    /// boxed: inline, its ~100 bytes were in every rail agent's record too (session 32).
    pub(crate) free: Option<Box<crate::steer::FreeState>>,
    /// Its index in the world's dense arrays (`World::dense`, `World::hot`) since the last
    /// rebuild of the broad phase.
    pub(crate) slot: u32,
    /// The single-lane stretches of its rail (`None`: none), found when the rail is given.
    pub(crate) narrows: Option<Box<[Narrow]>>,
    /// Standing, its last decision was a wait on an agent standing still that may be repeated
    /// for a while without the sweeps (`resolve/recheck.rs`).
    pub(crate) blocked_wait: Option<crate::resolve::BlockedWait>,
}

/// An agent's rail end against the other agents' destinations (docs/ALGORITHM.md, "Shared
/// destinations"). One byte where two flags took the record 8 B over its padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DestinationCheck {
    /// A new rail: its end is checked at the next query.
    Unchecked,
    /// Checked: its end was free, or it has none to check.
    Checked,
    /// Its end was moved off its goal, taken by another agent (a point several agents were
    /// sent to): if agents standing for good then seal that spot off, it moves again, to the
    /// nearest spot it can reach (`World::sealed_goal_detour`).
    Moved,
}

/// The direction of a speed change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpeedStep {
    /// To a faster speed.
    Faster,
    /// To a slower speed.
    Slower,
}

/// What a sweep's broad phase reads of each candidate, kept in a flat array in key order
/// beside the grid: the candidate loop of a sweep looks at ~200 agents (city, 10,000 agents)
/// and keeps a handful, and reading these from the slot map's large `Agent` records was a
/// third of the frame (`perf`, docs/PERFORMANCE.md). Written by `World::refresh`, so it always
/// equals the agent's own fields.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HotAgent {
    /// Where it is, metres.
    pub position: DVec2,
    /// Its collision radius, metres.
    pub radius: f64,
    /// Its detection range, metres (`Agent::range`).
    pub range: f64,
    /// The fastest speed of its plan, m/s (`MotionPlan::max_speed`).
    pub max_speed: f64,
    /// It moves or wants to: its prediction may change (the hysteresis inflates against it).
    pub may_move: bool,
}

impl HotAgent {
    fn of(agent: &Agent) -> HotAgent {
        HotAgent {
            position: agent.position,
            radius: agent.desc.radius,
            range: agent.range,
            max_speed: agent.plan.max_speed(),
            may_move: agent.plan.moves() || agent.wants_to_move(),
        }
    }
}

impl Agent {
    /// Its predicted motion as other agents' sweeps see it: along its rail by its plan, in a
    /// straight line at its velocity (a free agent), or standing.
    pub(crate) fn trajectory(&self) -> Trajectory<'_> {
        match (&self.rail, &self.free) {
            // Its position is `rail.sample(plan.s).position` (see `World::refresh`), which is
            // `rail.position(plan.s)` bit for bit.
            (Some(rail), _) => Trajectory::on_rail_at(rail, self.plan, self.position),
            (None, Some(free)) => Trajectory::linear(self.position, free.velocity),
            (None, None) => Trajectory::fixed(self.position),
        }
    }

    /// Forget the resolution state of an old rail (a new rail from the host, or none).
    pub(crate) fn reset_resolution(&mut self) {
        self.last_reroute = None;
        self.bend_closest = f64::INFINITY;
        self.bends_without_progress = 0;
        self.next_bend_time = f64::NEG_INFINITY;
        self.waiting_on = None;
        self.cannot_yield_until = f64::NEG_INFINITY;
        self.resume_goal = None;
        self.make_way_for = None;
        self.made_way_for = None;
        self.letting_pass = None;
        self.bend_memo = None;
        self.blocked_wait = None;
        self.destination = DestinationCheck::Checked;
    }

    /// Its description.
    pub fn desc(&self) -> &AgentDesc {
        &self.desc
    }
    /// Its rail, if it has one.
    pub fn rail(&self) -> Option<&Rail> {
        self.rail.as_deref()
    }
    /// Its rail as a shared pointer, if it has one.
    pub fn rail_shared(&self) -> Option<&Arc<Rail>> {
        self.rail.as_ref()
    }
    /// The last motion reported (with the world's own orders applied since).
    pub fn motion(&self) -> Motion {
        self.motion
    }
    /// Its centre, metres.
    pub fn position(&self) -> DVec2 {
        self.position
    }
    /// Unit direction of travel along its rail (zero without a rail).
    pub fn direction(&self) -> DVec2 {
        self.direction
    }
    /// The collision the last query found, if any.
    pub fn last_collision(&self) -> Option<&Collision> {
        self.collision.as_ref()
    }
    /// The kind of the last order other than continue and wait, and when it was given (world
    /// clock, seconds).
    pub fn last_order(&self) -> (OrderKind, f64) {
        (self.last_order, self.last_order_time)
    }
    /// Whether the last motion report was invalid (the agent is told to stop until a valid one
    /// arrives).
    pub fn has_invalid_motion(&self) -> bool {
        self.invalid_motion
    }
    /// The agent it is standing and waiting on, and since when (world clock, seconds).
    pub fn waiting_on(&self) -> Option<(AgentKey, f64)> {
        self.waiting_on
    }
    /// Whether it is on its way to, or waiting at, a yield spot out of a deadlock; the goal it
    /// will go on to.
    pub fn yielding_to_goal(&self) -> Option<DVec2> {
        self.resume_goal
    }
    /// The next single-lane stretch of its rail, ahead of where it is.
    pub(crate) fn next_narrow(&self) -> Option<Narrow> {
        self.narrows
            .as_deref()?
            .iter()
            .find(|n| n.s_in > self.motion.s)
            .copied()
    }
    /// Whether it steers freely since a jam release ([`crate::Order::Release`]) and has not
    /// rejoined a rail yet ([`crate::Order::Rejoin`]): the host reports it with
    /// [`World::set_free_motion`] and moves it by [`World::steer_all`]'s velocities.
    pub fn is_released(&self) -> bool {
        self.free.as_ref().is_some_and(|f| f.released_at.is_some())
    }
    /// Whether it has a rail with distance left to travel.
    pub fn wants_to_move(&self) -> bool {
        match &self.rail {
            Some(rail) => self.motion.s < rail.length() - RAIL_SLACK,
            None => false,
        }
    }

    /// Before its rail is replaced at `now` (world clock, seconds): an agent that had nowhere
    /// left to go begins to want to go now (`wanting_since`, the jam release's clock).
    pub(crate) fn before_new_rail(&mut self, now: f64) {
        if !self.wants_to_move() {
            self.wanting_since = now;
        }
    }

    /// Whether it stands with nowhere to go (no rail left to travel, not moving): no speed of
    /// another agent gets past it, only a way around it.
    pub(crate) fn stands_for_good(&self) -> bool {
        !self.wants_to_move() && !self.plan.moves()
    }

    /// Whether asking it to make way for `head` now would free nothing: it already stands
    /// aside for `head`, or its last search for a spot found none (until `now`, world clock,
    /// seconds, reaches `cannot_yield_until`). `World::opening_detour` looks past such agents.
    pub(crate) fn cannot_make_way_for(&self, head: AgentKey, now: f64) -> bool {
        self.made_way_for.is_some_and(|(k, _)| k == head) || self.cannot_yield_until > now
    }
}

/// The avoidance world: a level, its agents, and the per-frame queries.
///
/// A frame, as the host drives it:
/// 1. [`World::begin_frame`] with the frame's time step;
/// 2. [`World::set_motion`] for every agent on a rail (distance, speed, phase);
/// 3. [`World::query`] for every agent, in a fixed order (or [`World::query_all`]), applying
///    the orders.
///
/// Iteration order is the agents' key order (slot order), so the same sequence of calls gives
/// the same orders, bit for bit.
#[derive(Clone, Debug)]
pub struct World {
    level: Arc<Level>,
    config: AvoidanceConfig,
    pub(crate) agents: SlotMap<AgentKey, Agent>,
    /// Agents in key order; grid indices point into it. Rebuilt with the grid.
    pub(crate) dense: Vec<AgentKey>,
    /// The broad phase's view of the agents of `dense`, index for index.
    pub(crate) hot: Vec<HotAgent>,
    pub(crate) grid: AgentGrid,
    pub(crate) grid_dirty: bool,
    /// Rebuilds of the broad phase so far (what `spots` was built for, if current).
    pub(crate) grid_generation: u64,
    /// The agents' rail ends on a grid, for the shared-destination check (built lazily).
    pub(crate) spots: SpotIndex,
    /// Largest `range + radius` of any agent this frame (grows when orders speed agents up).
    pub(crate) max_reach: f64,
    /// Fastest planned speed of any agent this frame, m/s (grows with orders).
    pub(crate) max_speed: f64,
    /// Fastest preferred speed of any agent this frame, m/s: how fast one standing would come.
    pub(crate) max_preferred_speed: f64,
    /// Largest agent radius, metres.
    pub(crate) max_radius: f64,
    pub(crate) time: f64,
    /// The time step of the frame begun last, seconds (0 before the first): how late an agent
    /// queried before another may see that one's order, which takes effect in the world at once
    /// but in the agent's own decision only at the next frame.
    pub(crate) frame_time: f64,
    pub(crate) scratch_candidates: Vec<u32>,
    pub(crate) scratch_samples: Vec<SweepSample>,
    /// Agents (dense index) whose return to speed `query_all` decides after the others.
    pub(crate) scratch_deferred: Vec<u32>,
    /// Rails given so far (each agent keeps the number of its own).
    pub(crate) rail_serial: u64,
    /// Yield-spot searches made this frame (they have a per-frame budget).
    pub(crate) yield_searches: u32,
    /// Detour searches made this frame (they have a per-frame budget).
    pub(crate) detour_searches: u32,
    /// Bends tried by standing agents this frame (they have a per-frame budget).
    pub(crate) standing_bends: u32,
    /// `standing_bends` at the end of the frame before: the `parallel` build's pass ahead
    /// guesses from it whether this frame's budget will be spent.
    pub(crate) standing_bends_before: u32,
    /// Wall obstacles for the free agents' solvers, built with the first free agent.
    pub(crate) obstacles: Option<Arc<crate::steer::ObstacleMap>>,
    pub(crate) steer_scratch: crate::steer::SteerScratch,
    /// Detection computed ahead, in parallel, for the frame's `query_all` (feature `parallel`).
    #[cfg(feature = "parallel")]
    pub(crate) speculation: crate::resolve::Speculation,
}

impl World {
    /// A world on `level` with the given configuration (validated: the error names the field).
    pub fn new(level: impl Into<Arc<Level>>, config: AvoidanceConfig) -> Result<World, WorldError> {
        config.validate().map_err(WorldError::InvalidConfig)?;
        Ok(World {
            level: level.into(),
            config,
            agents: SlotMap::with_key(),
            dense: Vec::new(),
            hot: Vec::new(),
            grid: AgentGrid::default(),
            grid_dirty: true,
            grid_generation: 0,
            spots: SpotIndex::default(),
            max_reach: 0.0,
            max_speed: 0.0,
            max_preferred_speed: 0.0,
            max_radius: 0.0,
            time: 0.0,
            frame_time: 0.0,
            scratch_candidates: Vec::new(),
            scratch_samples: Vec::new(),
            scratch_deferred: Vec::new(),
            rail_serial: 0,
            yield_searches: 0,
            detour_searches: 0,
            standing_bends: 0,
            standing_bends_before: 0,
            obstacles: None,
            steer_scratch: Default::default(),
            #[cfg(feature = "parallel")]
            speculation: Default::default(),
        })
    }

    /// The level.
    pub fn level(&self) -> &Level {
        &self.level
    }

    /// The configuration.
    pub fn config(&self) -> &AvoidanceConfig {
        &self.config
    }

    /// The world clock: the sum of the time steps given to [`World::begin_frame`], seconds.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.agents.len()
    }

    /// Whether there are no agents.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// Make room for `additional` more agents at once, so that adding them does not grow the
    /// agent storage by doubling (whose slack [`World::memory`] counts: about 900 B per agent
    /// at 10,000 agents without it, 560 B with it). Call it before adding a crowd.
    pub fn reserve(&mut self, additional: usize) {
        self.agents.reserve(additional);
        self.dense.reserve_exact(additional);
        self.hot.reserve_exact(additional);
    }

    /// Add an agent standing at `desc.position` (which must be on the navmesh), without a rail.
    /// Fails on an invalid description, or when its disc overlaps another agent's (by more than
    /// 1% of their radii) unless [`AvoidanceConfig::allow_overlap`] is set.
    pub fn add_agent(&mut self, desc: AgentDesc) -> Result<AgentKey, WorldError> {
        validate_desc(&desc).map_err(WorldError::InvalidAgent)?;
        if !self.level.navmesh().contains(desc.position) {
            return Err(WorldError::OffMesh {
                what: "position",
                at: desc.position,
            });
        }
        for (key, other) in self.agents.iter().filter(|_| !self.config.allow_overlap) {
            let radii = desc.radius + other.desc.radius;
            if other.position.distance(desc.position) < 0.99 * radii {
                return Err(WorldError::InvalidAgent(format!(
                    "at ({}, {}) it overlaps agent {key:?} at ({}, {})",
                    desc.position.x, desc.position.y, other.position.x, other.position.y
                )));
            }
        }
        let position = desc.position;
        let locomotion = desc.locomotion;
        let key = self.agents.insert(Agent {
            desc,
            rail: None,
            motion: Motion::standing(0.0),
            position,
            direction: DVec2::ZERO,
            plan: MotionPlan::standing(0.0),
            range: 0.0,
            last_order: OrderKind::Continue,
            last_order_time: f64::NEG_INFINITY,
            last_speed_step: None,
            collision: None,
            invalid_motion: false,
            last_stop_time: f64::NEG_INFINITY,
            stood_since: f64::INFINITY,
            wanting_since: f64::NEG_INFINITY,
            last_reroute: None,
            bend_closest: f64::INFINITY,
            bends_without_progress: 0,
            next_bend_time: f64::NEG_INFINITY,
            waiting_on: None,
            lane_link: None,
            cannot_yield_until: f64::NEG_INFINITY,
            resume_goal: None,
            make_way_for: None,
            made_way_for: None,
            letting_pass: None,
            bend_memo: None,
            rail_serial: 0,
            destination: DestinationCheck::Checked,
            free: locomotion.is_free().then(Box::default),
            slot: u32::MAX,
            narrows: None,
            blocked_wait: None,
        });
        if locomotion.is_free() {
            self.ensure_obstacles();
        }
        self.grid_dirty = true;
        Ok(key)
    }

    /// Remove an agent.
    pub fn remove_agent(&mut self, key: AgentKey) -> Result<Agent, WorldError> {
        let agent = self
            .agents
            .remove(key)
            .ok_or(WorldError::UnknownAgent(key))?;
        self.grid_dirty = true;
        Ok(agent)
    }

    /// An agent.
    pub fn agent(&self, key: AgentKey) -> Result<&Agent, WorldError> {
        self.agents.get(key).ok_or(WorldError::UnknownAgent(key))
    }

    /// All agents, in key order.
    pub fn agents(&self) -> impl Iterator<Item = (AgentKey, &Agent)> + '_ {
        self.agents.iter()
    }

    /// Give an agent a rail to follow; it stands at the rail's start until a query starts it.
    /// Both ends of the rail must be on the navmesh ([`WorldError::OffMesh`]), and the agent a
    /// rail agent ([`WorldError::NotRail`] for a free-steering one).
    ///
    /// A new rail replaces the old one at once, whenever it comes: its motion is reset to
    /// standing at arclength 0 of the new rail, any invalid-motion mark and the resolution
    /// state of the old rail (waiting, yielding, last bend) are forgotten, and a motion report
    /// made before the call (for the old rail) is not carried over. The next query answers for
    /// the new rail (a start or a wait); the host reports the new rail's arclength from then on.
    /// This is also how a host moves an agent that has drifted from its rail: a rail agent's
    /// position is always its rail at the reported arclength (there is no way to report it
    /// elsewhere; [`World::set_position`] refuses rail agents), so give it a new rail from where
    /// it is. A rail agent steering freely since a jam release ([`Agent::is_released`]) is back
    /// on a rail: its release ends.
    pub fn set_rail(
        &mut self,
        key: AgentKey,
        rail: impl Into<Arc<Rail>>,
    ) -> Result<(), WorldError> {
        let rail = rail.into();
        let mesh = self.level.navmesh();
        for (what, at) in [("start", rail.start()), ("goal", rail.end())] {
            if !mesh.contains(at) {
                return Err(WorldError::OffMesh { what, at });
            }
        }
        let agent = self
            .agents
            .get_mut(key)
            .ok_or(WorldError::UnknownAgent(key))?;
        if agent.desc.locomotion.is_free() {
            return Err(WorldError::NotRail(key));
        }
        if agent.is_released() {
            // The host takes it back onto a rail: the release ends, and its standing clock (the
            // jam release's) starts again with its next report.
            agent.free = None;
            agent.stood_since = f64::INFINITY;
        }
        agent.before_new_rail(self.time);
        agent.rail = Some(rail);
        agent.motion = Motion::standing(0.0);
        agent.invalid_motion = false;
        agent.reset_resolution();
        self.rail_serial += 1;
        agent.rail_serial = self.rail_serial;
        agent.destination = DestinationCheck::Unchecked;
        self.find_narrows(key);
        self.refresh(key);
        self.grid_dirty = true;
        Ok(())
    }

    /// Find the stretches of the agent's rail taken in turns with agents coming the other way:
    /// its single-lane stretches (narrower than two agents of its radius and the margins, a
    /// wider part shorter than its diameter not counting as a passing place) and, without the
    /// jam release, its short passages (`narrows::turn_stretches_of`).
    pub(crate) fn find_narrows(&mut self, key: AgentKey) {
        let margin = self.config.margin;
        let passages = self.config.jam_release <= 0.0;
        let Some(agent) = self.agents.get_mut(key) else {
            return;
        };
        let radius = agent.desc.radius;
        agent.narrows = agent.rail.as_ref().and_then(|rail| {
            narrows::turn_stretches_of(self.level.navmesh(), rail, radius, margin, passages)
        });
    }

    /// Plan a rail from the agent's position to `goal` on the navmesh (keeping the agent's
    /// radius from walls, and right of two-way corridors' middle lines by
    /// [`AvoidanceConfig::keep_right_radii`]) and give it to the agent, as [`World::set_rail`].
    pub fn plan_rail(&mut self, key: AgentKey, goal: DVec2) -> Result<Arc<Rail>, WorldError> {
        let agent = self.agent(key)?;
        if agent.desc.locomotion.is_free() {
            return Err(WorldError::NotRail(key));
        }
        let (from, radius) = (agent.position, agent.desc.radius);
        if !self.level.navmesh().contains(goal) {
            return Err(WorldError::OffMesh {
                what: "goal",
                at: goal,
            });
        }
        let rail = Arc::new(self.level.navmesh().plan_rail(
            from,
            goal,
            &self.config.path_options(radius),
        )?);
        self.set_rail(key, rail.clone())?;
        Ok(rail)
    }

    /// Take the agent's rail away: it stands where it is, as a stationary agent (a released
    /// agent too: its release ends).
    pub fn clear_rail(&mut self, key: AgentKey) -> Result<(), WorldError> {
        let agent = self
            .agents
            .get_mut(key)
            .ok_or(WorldError::UnknownAgent(key))?;
        if agent.is_released() {
            agent.free = None;
        }
        agent.desc.position = agent.position;
        agent.rail = None;
        agent.narrows = None;
        agent.motion = Motion::standing(0.0);
        agent.invalid_motion = false;
        agent.reset_resolution();
        self.refresh(key);
        self.grid_dirty = true;
        Ok(())
    }

    /// Move an agent without a rail (an idle act elsewhere, a teleport). The position must be
    /// on the navmesh.
    pub fn set_position(&mut self, key: AgentKey, position: DVec2) -> Result<(), WorldError> {
        if !self.level.navmesh().contains(position) {
            return Err(WorldError::OffMesh {
                what: "position",
                at: position,
            });
        }
        let agent = self
            .agents
            .get_mut(key)
            .ok_or(WorldError::UnknownAgent(key))?;
        if agent.rail.is_some() {
            return Err(WorldError::InvalidAgent(format!(
                "agent {key:?} is on a rail; report its motion instead of a position"
            )));
        }
        agent.desc.position = position;
        self.refresh(key);
        self.grid_dirty = true;
        Ok(())
    }

    /// Start a frame `dt` seconds after the last one: advances the world clock (used for the
    /// commitment time of orders) and marks the broad phase for rebuilding.
    pub fn begin_frame(&mut self, dt: f64) {
        if dt.is_finite() && dt > 0.0 {
            self.time += dt;
            self.frame_time = dt;
        }
        self.yield_searches = 0;
        self.detour_searches = 0;
        self.standing_bends_before = self.standing_bends;
        self.standing_bends = 0;
        self.grid_dirty = true;
    }

    /// The host's report of where an agent on a rail is and how it moves. An invalid report
    /// is refused with [`WorldError::InvalidMotion`]: NaN or infinite numbers, a negative
    /// speed, an arclength off either end of the rail, moving or starting at speed 0, a
    /// negative transition time, or an arclength behind the last accepted one on the same rail
    /// by more than a millimetre (agents only move forward along their rails; to send one back,
    /// give it a new rail). The agent keeps its last valid motion, is marked (see
    /// [`Agent::has_invalid_motion`]) and is told to stop by its next query
    /// ([`StopCause::InvalidMotion`](crate::StopCause::InvalidMotion); a wait if it stands)
    /// until a valid report arrives. An agent without a rail gives [`WorldError::NoRail`].
    pub fn set_motion(&mut self, key: AgentKey, motion: Motion) -> Result<(), WorldError> {
        let agent = self
            .agents
            .get_mut(key)
            .ok_or(WorldError::UnknownAgent(key))?;
        let Some(rail) = &agent.rail else {
            return Err(WorldError::NoRail(key));
        };
        match check_motion(&motion, rail.length(), agent.motion.s) {
            Ok(s) => {
                agent.stood_since = match motion.phase {
                    Phase::Standing => agent.stood_since.min(self.time),
                    _ => f64::INFINITY,
                };
                agent.motion = Motion { s, ..motion };
                agent.invalid_motion = false;
                self.refresh(key);
                self.grid_dirty = true;
                Ok(())
            }
            Err(problem) => {
                agent.invalid_motion = true;
                Err(WorldError::InvalidMotion { key, problem })
            }
        }
    }

    /// Recompute an agent's position, direction, predicted motion and range from its motion.
    pub(crate) fn refresh(&mut self, key: AgentKey) {
        let horizon = self.config.horizon;
        let Some(agent) = self.agents.get_mut(key) else {
            return;
        };
        match agent.rail.as_ref().map(|rail| rail.sample(agent.motion.s)) {
            None => {
                agent.position = agent.desc.position;
                // A free agent moves on in a straight line at its velocity, as far as the
                // rail agents' sweeps are concerned.
                let velocity = agent.free.as_ref().map_or(DVec2::ZERO, |f| f.velocity);
                let speed = velocity.length();
                agent.direction = velocity.normalize_or_zero();
                agent.plan = MotionPlan::cruising(0.0, speed);
                agent.range = horizon * speed;
            }
            Some(sample) => {
                agent.position = sample.position;
                agent.direction = sample.tangent;
                agent.plan = plan_of(&agent.desc, &agent.motion);
                agent.range = match agent.motion.phase {
                    Phase::Moving | Phase::Starting { .. } => {
                        agent.desc.stop_distance(agent.motion.speed) + horizon * agent.motion.speed
                    }
                    Phase::Stopping { .. } => agent.plan.transition_distance(),
                    Phase::Standing => 0.0,
                };
            }
        }
        let reach = agent.range + agent.desc.radius;
        if !self.grid_dirty {
            self.hot[agent.slot as usize] = HotAgent::of(agent);
        }
        self.max_reach = self.max_reach.max(reach);
        self.max_speed = self.max_speed.max(agent.plan.max_speed());
        self.max_preferred_speed = self.max_preferred_speed.max(agent.desc.preferred_speed);
        self.max_radius = self.max_radius.max(agent.desc.radius);
    }

    /// Build the wall obstacles of the free agents' solvers, once.
    pub(crate) fn ensure_obstacles(&mut self) {
        if self.obstacles.is_none() {
            let map = crate::steer::ObstacleMap::from_navmesh(self.level.navmesh());
            self.obstacles = Some(Arc::new(map));
        }
    }

    /// Rebuild the broad phase if anything moved since the last build.
    pub(crate) fn ensure_grid(&mut self) {
        if !self.grid_dirty {
            return;
        }
        self.dense.clear();
        self.hot.clear();
        // Exactly the agents (not the doubling growth's slack): these are rebuilt every frame
        // and counted in `World::memory`.
        let count = self.agents.len();
        self.dense.reserve_exact(count);
        self.hot.reserve_exact(count);
        for (slot, (key, agent)) in self.agents.iter_mut().enumerate() {
            agent.slot = slot as u32;
            self.dense.push(key);
            self.hot.push(HotAgent::of(agent));
        }
        self.max_reach = self
            .agents
            .values()
            .map(|a| a.range + a.desc.radius)
            .fold(0.0, f64::max);
        self.max_speed = self
            .agents
            .values()
            .map(|a| a.plan.max_speed())
            .fold(0.0, f64::max);
        self.max_preferred_speed = self
            .agents
            .values()
            .map(|a| a.desc.preferred_speed)
            .fold(0.0, f64::max);
        self.max_radius = self
            .agents
            .values()
            .map(|a| a.desc.radius)
            .fold(0.0, f64::max);
        let cell = if self.config.cell_size > 0.0 {
            self.config.cell_size
        } else {
            self.max_reach.clamp(2.0, 50.0)
        };
        let (lo, hi) = self.level.navmesh().bounds();
        let positions = self.hot.iter().map(|h| h.position);
        self.grid.rebuild(lo, hi, cell, positions);
        self.grid_generation += 1;
        self.grid_dirty = false;
    }

    /// Build the index of rail ends for this broad phase if it is not built yet (a frame with
    /// destination checks to make).
    pub(crate) fn ensure_spots(&mut self) {
        self.ensure_grid();
        if self.spots.is_current(self.grid_generation) {
            return;
        }
        let (lo, hi) = self.level.navmesh().bounds();
        let cell = 2.0 * (self.max_radius + self.config.margin).max(0.5);
        let agents = &self.agents;
        let ends = self.dense.iter().map(move |&key| {
            let agent = &agents[key];
            agent
                .rail
                .as_ref()
                .map_or(agent.position, |rail| rail.end())
        });
        self.spots.rebuild(self.grid_generation, lo, hi, cell, ends);
    }
}

/// The predicted motion of an agent from its reported motion (chapter 22.3, the turn-on-spot
/// part standing; a start at even acceleration and a stop at even deceleration, as they are
/// played, docs/ALGORITHM.md "Prediction").
pub(crate) fn plan_of(desc: &AgentDesc, motion: &Motion) -> MotionPlan {
    let s = motion.s;
    let speed = motion.speed;
    match motion.phase {
        Phase::Moving => MotionPlan::cruising(s, speed),
        Phase::Standing => MotionPlan::standing(s),
        Phase::Starting { elapsed } => start_plan(desc, s, speed, elapsed),
        Phase::Stopping { elapsed } => {
            let time = desc.gait(speed).stop_time;
            let stop_distance = desc.stop_distance(speed);
            let left = (time - elapsed).max(0.0);
            // At even deceleration, as the gait describes a stop and the built-in host plays
            // it (`stop_plan_even`): the rest of it from where the agent is.
            let deceleration = if time > 0.0 {
                2.0 * stop_distance / (time * time)
            } else {
                0.0
            };
            MotionPlan {
                s,
                still: 0.0,
                transition_time: left,
                transition_speed: deceleration * left,
                transition_acceleration: -deceleration,
                speed: 0.0,
            }
        }
    }
}

/// Whether the agent is in the turn-on-the-spot part of its start ([`StartTransition::turn_time`]):
/// it has not moved, so a stop leaves it where it stands ([`Order::Stop`]). Stopped from its
/// target speed instead, a start 0.13 s in slid 0.39 m from a standstill into a walker
/// (tradeshow-1000, docs/ROBUSTNESS.md, session 29).
///
/// [`StartTransition::turn_time`]: crate::StartTransition::turn_time
/// [`Order::Stop`]: crate::Order::Stop
pub(crate) fn turning_on_the_spot(desc: &AgentDesc, phase: Phase) -> bool {
    matches!(phase, Phase::Starting { elapsed } if elapsed < desc.start.turn_time)
}

/// The stop an agent reporting `motion` would play if told to stop now: none while it stands or
/// still turns on the spot ([`turning_on_the_spot`]), the rest of a stop under way, else a stop
/// from its speed at even deceleration, as the built-in host plays it ([`stop_plan_even`]).
pub(crate) fn stop_as_played(desc: &AgentDesc, motion: &Motion) -> MotionPlan {
    match motion.phase {
        Phase::Standing => MotionPlan::standing(motion.s),
        Phase::Stopping { .. } => plan_of(desc, motion),
        phase if turning_on_the_spot(desc, phase) => MotionPlan::standing(motion.s),
        Phase::Moving | Phase::Starting { .. } => stop_plan_even(desc, motion.s, motion.speed),
    }
}

/// The predicted motion of a start toward `speed`, `elapsed` seconds into the transition: still
/// for the rest of the turn on the spot, then the rest of the moving part at constant
/// acceleration from rest, as the default transition describes it and the built-in host plays it
/// (`distance × u²`, `u` the fraction of the moving part gone), then `speed`.
///
/// The chapter (22.3) predicts the moving part at its average velocity, and so did this until
/// session 41. Predicted again each frame from where the agent got to, that average put the end
/// of the transition behind where the start check had put it (by a quarter of its distance
/// halfway, 0.07 m from 1.4 m/s): tradeshow-1000's agent 265 started clear of a walker crossing
/// its way and stopped 0.4 s later for a graze with it, a flip. At constant acceleration every
/// frame's prediction is the motion predicted at the order (unit test below), as a stop's is
/// (`plan_of`). Measured with the room-to-stop change that came with it (`room_lost_within_hold`):
/// docs/ROBUSTNESS.md, session 41.
pub(crate) fn start_plan(desc: &AgentDesc, s: f64, speed: f64, elapsed: f64) -> MotionPlan {
    let st = &desc.start;
    let scale = if desc.preferred_speed > 0.0 {
        speed / desc.preferred_speed
    } else {
        1.0
    };
    let moving_total = st.duration - st.turn_time;
    let still = (st.turn_time - elapsed).max(0.0);
    let moving_done = (elapsed - st.turn_time).clamp(0.0, moving_total.max(0.0));
    let left = (moving_total - moving_done).max(0.0);
    // Covered as D·u² over the moving part's time T: from rest at 2D/T².
    let acceleration = if moving_total > 0.0 {
        2.0 * st.distance * scale / (moving_total * moving_total)
    } else {
        0.0
    };
    MotionPlan {
        s,
        still,
        transition_time: left,
        transition_speed: acceleration * moving_done,
        transition_acceleration: acceleration,
        speed,
    }
}

/// A stop from `speed` beginning now, as the gait describes it (constant deceleration,
/// [`Gait::from_speed`](crate::Gait::from_speed)) and the built-in host plays it: the same
/// distance and time as [`stop_plan`], but front-loaded, up to a quarter of the stopping
/// distance ahead of that average-velocity prediction halfway through. What an agent checks
/// its own stop with (`resolve/trivial.rs`, rule 5): a stop judged clean by the average
/// velocity touched the agent ahead (tradeshow-1000, 0.19 m agents, whose margins are
/// 2 × 0.024 m against a lag of 0.098 m from 1.4 m/s; docs/ROBUSTNESS.md, session 28).
pub(crate) fn stop_plan_even(desc: &AgentDesc, s: f64, speed: f64) -> MotionPlan {
    let time = desc.gait(speed).stop_time;
    let distance = desc.stop_distance(speed);
    if time <= 0.0 {
        return MotionPlan::standing(s + distance);
    }
    // Covered as D(2u − u²), u the fraction of the time T gone: from 2D/T down to rest at
    // −2D/T².
    let deceleration = 2.0 * distance / (time * time);
    MotionPlan {
        s,
        still: 0.0,
        transition_time: time,
        transition_speed: deceleration * time,
        transition_acceleration: -deceleration,
        speed: 0.0,
    }
}

/// The predicted motion of a stop from `speed` beginning now.
pub(crate) fn stop_plan(desc: &AgentDesc, s: f64, speed: f64) -> MotionPlan {
    plan_of(
        desc,
        &Motion {
            s,
            speed,
            phase: Phase::Stopping { elapsed: 0.0 },
        },
    )
}

pub(crate) fn validate_desc(desc: &AgentDesc) -> Result<(), String> {
    let finite_pos = |name: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(format!("{name} = {v} must be a finite number > 0"))
        }
    };
    let finite_nonneg = |name: &str, v: f64| {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(format!("{name} = {v} must be a finite number >= 0"))
        }
    };
    finite_pos("radius", desc.radius)?;
    if desc.gaits.is_empty() {
        return Err("the speed set is empty; give at least one speed".into());
    }
    for (i, g) in desc.gaits.iter().enumerate() {
        finite_pos(&format!("speed {i}"), g.speed)?;
        finite_nonneg(&format!("stop distance of speed {i}"), g.stop_distance)?;
        finite_nonneg(&format!("stop time of speed {i}"), g.stop_time)?;
    }
    finite_pos("preferred speed", desc.preferred_speed)?;
    if !desc
        .gaits
        .iter()
        .any(|g| (g.speed - desc.preferred_speed).abs() <= 1e-9)
    {
        return Err(format!(
            "preferred speed {} is not one of the speeds {:?}",
            desc.preferred_speed,
            desc.gaits.iter().map(|g| g.speed).collect::<Vec<_>>()
        ));
    }
    finite_pos("start duration", desc.start.duration)?;
    finite_nonneg("start distance", desc.start.distance)?;
    finite_nonneg("start turn time", desc.start.turn_time)?;
    if desc.start.turn_time >= desc.start.duration {
        return Err(format!(
            "start turn time {} must be shorter than the start duration {}",
            desc.start.turn_time, desc.start.duration
        ));
    }
    finite_nonneg("follow gap", desc.follow_gap)?;
    if !(desc.position.is_finite()) {
        return Err(format!("position {:?} is not finite", desc.position));
    }
    Ok(())
}

/// Validate a motion report against a rail of the given length, on which the last accepted
/// arclength was `last_s`; the clamped arclength.
fn check_motion(motion: &Motion, length: f64, last_s: f64) -> Result<f64, String> {
    if !motion.s.is_finite() {
        return Err(format!(
            "distance along the rail s = {} is not finite",
            motion.s
        ));
    }
    if motion.s < -RAIL_SLACK || motion.s > length + RAIL_SLACK {
        return Err(format!(
            "distance along the rail s = {} is outside the rail [0, {length}]",
            motion.s
        ));
    }
    if motion.s < last_s - RAIL_SLACK {
        return Err(format!(
            "distance along the rail s = {} is behind the last report s = {last_s}; agents only \
             move forward along their rails (give it a new rail to send it back)",
            motion.s
        ));
    }
    if !motion.speed.is_finite() || motion.speed < 0.0 {
        return Err(format!(
            "speed {} is not a finite number >= 0",
            motion.speed
        ));
    }
    match motion.phase {
        Phase::Moving | Phase::Starting { .. } if motion.speed <= 0.0 => {
            return Err("moving or starting at speed 0; report Standing instead".into());
        }
        Phase::Starting { elapsed } | Phase::Stopping { elapsed }
            if !(elapsed.is_finite() && elapsed >= 0.0) =>
        {
            return Err(format!(
                "transition time elapsed {elapsed} is not a finite number >= 0"
            ));
        }
        _ => {}
    }
    Ok(motion.s.clamp(0.0, length))
}

/// A test world's agent of radius 0.4 m with `speeds` (the first above 1 m/s preferred, else the
/// last), on a straight rail from `from` to `to`, reporting `motion`.
#[cfg(test)]
pub(crate) fn line_agent(
    world: &mut World,
    from: DVec2,
    to: DVec2,
    speeds: &[f64],
    motion: Motion,
) -> AgentKey {
    let preferred = speeds
        .iter()
        .copied()
        .find(|&v| v > 1.0)
        .unwrap_or(speeds[speeds.len() - 1]);
    let key = world
        .add_agent(AgentDesc {
            position: from,
            ..AgentDesc::with_speeds(0.4, speeds, preferred)
        })
        .unwrap();
    world
        .set_rail(key, Rail::from_points(&[from, to]).unwrap())
        .unwrap();
    world.set_motion(key, motion).unwrap();
    key
}

#[cfg(test)]
mod start_plan_tests {
    use super::*;

    #[test]
    fn a_start_is_predicted_as_the_host_plays_it_and_the_same_from_any_frame() {
        // The default transition for 1.4 m/s (0.6 s, 0.2 s turning on the spot, 0.28 m), and
        // one at 0.8 m/s of the same agent (distance scaled). The built-in host covers
        // `distance × u²` of the moving part (`sim/host.rs`); predicted again from where it got
        // to, at any time into the start, the motion is the one predicted at the order, for
        // every later time (within rounding).
        let desc = AgentDesc::with_speeds(0.4, &[0.8, 1.4, 2.6], 1.4);
        let st = desc.start;
        let moving = st.duration - st.turn_time;
        for speed in [1.4, 0.8] {
            let distance = st.distance * speed / desc.preferred_speed;
            let played = |t: f64| {
                let u = ((t - st.turn_time) / moving).clamp(0.0, 1.0);
                if t < st.duration {
                    distance * u * u
                } else {
                    distance + speed * (t - st.duration)
                }
            };
            let at_order = start_plan(&desc, 0.0, speed, 0.0);
            for k in 0..=12 {
                let elapsed = k as f64 * 0.05;
                let again = start_plan(&desc, played(elapsed), speed, elapsed);
                for j in 0..=40 {
                    let t = j as f64 * 0.05;
                    let expected = played(elapsed + t);
                    assert!(
                        (at_order.s_at(elapsed + t) - expected).abs() < 1e-12,
                        "at the order, {speed} m/s, t {}",
                        elapsed + t
                    );
                    assert!(
                        (again.s_at(t) - expected).abs() < 1e-12,
                        "from {elapsed} s in, {speed} m/s, {t} s on"
                    );
                }
            }
        }
    }
}
