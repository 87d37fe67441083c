//! A byte-driven script of `World` API calls with invariant checks, shared by the property test
//! (`tests/world_robustness.rs`) and the fuzz target (`fuzz/fuzz_targets/world_api.rs`).
//!
//! Every byte string is a valid script: [`run_script`] reads an operation code and its arguments
//! from the bytes (running out of bytes ends the script) and makes the call, including misuse:
//! removed and foreign keys, NaN, infinite, negative and off-mesh numbers, rails replaced between
//! a motion report and a query, motion reports that go backwards or past the rail's end. A small
//! built-in host (`Advance`) plays frames so the avoidance logic gets real work. After every call
//! the invariants are checked, and a violation panics with a description (a fuzzing crash, a
//! failed property):
//! - orders, verdicts, occupancies and steering name only live agents (and not the asker);
//! - `query_all` answers every live agent exactly once;
//! - every number the world returns, and every agent position, is finite;
//! - a rail the world rewrites stays on the navmesh when the rail it replaces did.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use sidestep::{
    AgentDesc, AgentKey, AvoidanceConfig, DVec2, Level, Locomotion, Motion, Occupancy, Order,
    Phase, Rail, StartVerdict, Steer, StopCause, World,
};

/// The levels a script may run on (the first byte picks one): small fixtures, outline and
/// explicit forms, with holes, doorways and corners.
const LEVELS: [(&str, &str); 4] = [
    (
        "open-field",
        include_str!("../../fixtures/levels/open-field.json"),
    ),
    (
        "doorway",
        include_str!("../../fixtures/levels/doorway.json"),
    ),
    (
        "pillar-hall",
        include_str!("../../fixtures/levels/pillar-hall.json"),
    ),
    (
        "mesh-rooms",
        include_str!("../../fixtures/levels/mesh-rooms.json"),
    ),
];

/// Most agents a script adds (further adds are skipped), so one script stays fast.
const MAX_AGENTS: usize = 24;
/// Most frames one `Advance` plays.
const MAX_ADVANCE: u8 = 40;
/// Chord length of the on-mesh check of rails, metres.
const MESH_STEP: f64 = 0.05;

/// The bytes of a script, read front to back; `None` when they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes([self.u8()?, self.u8()?]))
    }

    /// A number in `[lo, hi]`, or (for the top few values) NaN, ±infinity, a huge value or a
    /// value just outside the range.
    fn real(&mut self, lo: f64, hi: f64) -> Option<f64> {
        Some(match self.u16()? {
            0xFFFF => f64::NAN,
            0xFFFE => f64::INFINITY,
            0xFFFD => f64::NEG_INFINITY,
            0xFFFC => 1e300,
            0xFFFB => lo - 1.0,
            0xFFFA => hi + 1.0,
            v => lo + (hi - lo) * f64::from(v) / f64::from(0xFFF9_u16),
        })
    }

    /// A point in (or, rarely, just outside or not even finite around) the box `[lo, hi]`.
    fn point(&mut self, lo: DVec2, hi: DVec2) -> Option<DVec2> {
        Some(DVec2::new(self.real(lo.x, hi.x)?, self.real(lo.y, hi.y)?))
    }
}

/// The state of a script: the world under test, the keys it has handed out, and what the checks
/// need to remember.
pub struct Script {
    pub world: World,
    /// Keys of agents added and not removed, in the order they were added.
    live: Vec<AgentKey>,
    /// Keys of removed agents.
    removed: Vec<AgentKey>,
    /// Keys of another world (some of them name slots this world uses too).
    foreign: Vec<AgentKey>,
    /// Rails made so far (for the one-off queries).
    rails: Vec<Arc<Rail>>,
    /// Whether each live rail agent's current rail stays on the mesh.
    rail_on_mesh: BTreeMap<AgentKey, bool>,
    /// The free agents' velocities from the last steering update.
    velocities: BTreeMap<AgentKey, DVec2>,
    orders: Vec<(AgentKey, Order)>,
    steers: Vec<Steer>,
    /// Calls made (for messages).
    pub calls: usize,
    /// Jam releases ordered so far.
    pub releases: usize,
}

/// Run the script in `bytes` to its end, checking the invariants after every call; panics on a
/// violation. Returns the final state.
pub fn run_script(bytes: &[u8]) -> Script {
    let mut input = Bytes(bytes);
    let level_choice = input.u8().unwrap_or(0);
    let allow_overlap = level_choice & 0x80 != 0;
    // Half the scripts release agents stuck half a second (the shortest release time).
    let jam_release = if level_choice & 0x40 != 0 { 0.5 } else { 0.0 };
    let level = levels()[usize::from(level_choice & 0x7F) % LEVELS.len()].clone();
    let config = AvoidanceConfig {
        allow_overlap,
        jam_release,
        ..Default::default()
    };
    let world = World::new(level.clone(), config).expect("default config is valid");
    let mut script = Script {
        world,
        live: Vec::new(),
        removed: Vec::new(),
        foreign: foreign_keys(level),
        rails: Vec::new(),
        rail_on_mesh: BTreeMap::new(),
        velocities: BTreeMap::new(),
        orders: Vec::new(),
        steers: Vec::new(),
        calls: 0,
        releases: 0,
    };
    while script.step(&mut input).is_some() {
        script.calls += 1;
        script.check_agents();
    }
    script
}

/// The fixture levels, loaded once (scripts are many and short).
fn levels() -> &'static [Arc<Level>] {
    static LOADED: std::sync::OnceLock<Vec<Arc<Level>>> = std::sync::OnceLock::new();
    LOADED.get_or_init(|| {
        LEVELS
            .iter()
            .map(|(name, json)| {
                Arc::new(Level::from_json(json, name).expect("fixture level loads"))
            })
            .collect()
    })
}

/// Keys of another world on the same level: agents added, some removed and added again, so
/// that the keys share slot indices (not versions) with this world's.
fn foreign_keys(level: Arc<Level>) -> Vec<AgentKey> {
    let mut other = World::new(
        level.clone(),
        AvoidanceConfig {
            allow_overlap: true,
            ..Default::default()
        },
    )
    .expect("default config is valid");
    let (lo, hi) = level.navmesh().bounds();
    let at = (0..200)
        .map(|i| lo + (hi - lo) * DVec2::new(0.05 + 0.0045 * i as f64, 0.5))
        .find(|&p| level.navmesh().contains(p))
        .expect("a point on the level");
    let mut keys = Vec::new();
    for round in 0..3 {
        for _ in 0..3 {
            let key = other
                .add_agent(AgentDesc {
                    position: at,
                    ..AgentDesc::default()
                })
                .expect("an agent fits");
            keys.push(key);
        }
        if round < 2 {
            for key in keys.drain(keys.len() - 2..) {
                other.remove_agent(key).expect("live key");
            }
        }
    }
    keys
}

impl Script {
    /// The bounds of the level, widened by a metre (so some points fall off the mesh).
    fn bounds(&self) -> (DVec2, DVec2) {
        let (lo, hi) = self.world.level().navmesh().bounds();
        (lo - DVec2::ONE, hi + DVec2::ONE)
    }

    /// A key: mostly a live one, sometimes a removed or foreign one.
    fn key(&self, input: &mut Bytes) -> Option<AgentKey> {
        let choice = usize::from(input.u8()?);
        let all = self.live.len() + self.removed.len() + self.foreign.len();
        let i = choice % all.max(1);
        Some(if i < self.live.len() {
            self.live[i]
        } else if i < self.live.len() + self.removed.len() {
            self.removed[i - self.live.len()]
        } else if !self.foreign.is_empty() {
            self.foreign[(i - self.live.len() - self.removed.len()) % self.foreign.len()]
        } else {
            AgentKey::default()
        })
    }

    fn is_live(&self, key: AgentKey) -> bool {
        self.world.agent(key).is_ok()
    }

    /// A rail: one made earlier, or a new straight one between two points.
    fn rail(&mut self, input: &mut Bytes) -> Option<Arc<Rail>> {
        let choice = usize::from(input.u8()?);
        if choice < 128 && !self.rails.is_empty() {
            return Some(self.rails[choice % self.rails.len()].clone());
        }
        let (lo, hi) = self.bounds();
        let (a, b) = (input.point(lo, hi)?, input.point(lo, hi)?);
        match Rail::from_points(&[a, b]) {
            Ok(rail) => {
                let rail = Arc::new(rail);
                self.rails.push(rail.clone());
                Some(rail)
            }
            Err(_) => Some(
                self.rails
                    .first()
                    .cloned()
                    .unwrap_or_else(|| Arc::new(Rail::from_points(&[lo, hi]).expect("a rail"))),
            ),
        }
    }

    /// One call, read from the bytes; `None` when they run out.
    fn step(&mut self, input: &mut Bytes) -> Option<()> {
        let (lo, hi) = self.bounds();
        match input.u8()? % 18 {
            0 => {
                let position = input.point(lo, hi)?;
                let radius = match input.u8()? {
                    0 => 0.0,
                    1 => -0.4,
                    2 => f64::NAN,
                    r => 0.2 + 0.6 * f64::from(r) / 255.0,
                };
                let locomotion = match input.u8()? % 4 {
                    0 => Locomotion::Orca,
                    1 => Locomotion::Ttc,
                    _ => Locomotion::Rail,
                };
                if self.live.len() >= MAX_AGENTS {
                    return Some(());
                }
                let desc = AgentDesc {
                    position,
                    locomotion,
                    ..AgentDesc::from_radius(radius)
                };
                if let Ok(key) = self.world.add_agent(desc) {
                    assert!(!self.live.contains(&key), "a new agent got a live key");
                    assert!(
                        !self.removed.contains(&key),
                        "a new agent got a removed key"
                    );
                    self.live.push(key);
                }
            }
            1 => {
                let key = self.key(input)?;
                let live = self.is_live(key);
                assert_eq!(self.world.remove_agent(key).is_ok(), live, "remove {key:?}");
                if live {
                    self.live.retain(|&k| k != key);
                    self.removed.push(key);
                    self.rail_on_mesh.remove(&key);
                    self.velocities.remove(&key);
                }
            }
            2 => {
                let key = self.key(input)?;
                let goal = input.point(lo, hi)?;
                if self.world.plan_rail(key, goal).is_ok() {
                    self.rail_on_mesh.insert(key, true);
                }
            }
            3 => {
                let key = self.key(input)?;
                let rail = self.rail(input)?;
                let on_mesh = rail
                    .off_mesh(self.world.level().navmesh(), MESH_STEP)
                    .is_none();
                if self.world.set_rail(key, rail).is_ok() {
                    self.rail_on_mesh.insert(key, on_mesh);
                }
            }
            4 => {
                let key = self.key(input)?;
                if self.world.clear_rail(key).is_ok() {
                    self.rail_on_mesh.remove(&key);
                }
            }
            5 => {
                let key = self.key(input)?;
                let length = self
                    .world
                    .agent(key)
                    .ok()
                    .and_then(|a| a.rail().map(Rail::length))
                    .unwrap_or(10.0);
                // Fractions past 1 and below 0 report positions beyond either end.
                let s = input.real(-0.1 * length, 1.1 * length)?;
                let speed = input.real(-1.0, 3.0)?;
                let elapsed = input.real(-0.1, 1.0)?;
                let phase = match input.u8()? % 4 {
                    0 => Phase::Standing,
                    1 => Phase::Starting { elapsed },
                    2 => Phase::Stopping { elapsed },
                    _ => Phase::Moving,
                };
                let _ = self.world.set_motion(key, Motion { s, speed, phase });
            }
            6 => {
                let key = self.key(input)?;
                let position = input.point(lo, hi)?;
                let velocity = input.point(DVec2::splat(-3.0), DVec2::splat(3.0))?;
                let _ = self.world.set_free_motion(key, position, velocity);
            }
            7 => {
                let key = self.key(input)?;
                let goal = input.point(lo, hi)?;
                let _ = self.world.set_goal(key, goal);
            }
            8 => {
                let key = self.key(input)?;
                let _ = self.world.clear_goal(key);
            }
            9 => {
                let key = self.key(input)?;
                let position = input.point(lo, hi)?;
                let _ = self.world.set_position(key, position);
            }
            10 => {
                let dt = input.real(-0.1, 0.5)?;
                self.world.begin_frame(dt);
            }
            11 => {
                let key = self.key(input)?;
                let on_mesh = self.rail_on_mesh.get(&key).copied();
                match self.world.query(key) {
                    Ok(order) => self.check_order(key, &order, on_mesh),
                    Err(_) => assert!(!self.is_live(key), "query refused live {key:?}"),
                }
            }
            12 => self.query_all(),
            13 => {
                let dt = input.real(0.0, 0.5)?;
                self.steer_all(dt);
            }
            14 => {
                let key = self.key(input)?;
                let rail = self.rail(input)?;
                if let Ok(verdict) = self.world.collision_free_start(key, &rail) {
                    match verdict {
                        StartVerdict::Go => {}
                        StartVerdict::Wait { blocker, clear_in } => {
                            self.check_other(key, blocker, "collision_free_start");
                            assert!(clear_in.is_finite() && clear_in >= 0.0, "{verdict:?}");
                        }
                        StartVerdict::Blocked { blocker } => {
                            self.check_other(key, blocker, "collision_free_start")
                        }
                    }
                }
            }
            15 => {
                let key = self.key(input)?;
                let position = input.point(lo, hi)?;
                let within = input.real(-1.0, 5.0)?;
                if let Ok(occupancy) = self.world.is_position_free(key, position, within) {
                    self.check_occupancy(key, occupancy, "is_position_free");
                }
            }
            16 => {
                let key = self.key(input)?;
                let rail = self.rail(input)?;
                if let Ok(occupancy) = self.world.is_path_free(key, &rail) {
                    self.check_occupancy(key, occupancy, "is_path_free");
                }
            }
            _ => {
                let frames = input.u8()? % MAX_ADVANCE + 1;
                let dt = match input.u8()? {
                    0 => 0.0,
                    1 => f64::NAN,
                    d => 0.01 + 0.1 * f64::from(d) / 255.0,
                };
                for _ in 0..frames {
                    self.advance(dt);
                }
            }
        }
        Some(())
    }

    /// One frame of a simple host: report every agent's motion (advanced from the world's copy
    /// by `dt`, orders applied), query everyone, steer the free agents.
    fn advance(&mut self, dt: f64) {
        self.world.begin_frame(dt);
        let step = if dt.is_finite() && dt > 0.0 { dt } else { 0.0 };
        let mut reports = Vec::new();
        for (key, agent) in self.world.agents() {
            if let Some(rail) = agent.rail() {
                reports.push((key, next_motion(agent.desc(), agent.motion(), rail, step)));
            }
        }
        for (key, motion) in reports {
            let _ = self.world.set_motion(key, motion);
        }
        let free: Vec<(AgentKey, DVec2)> = self
            .velocities
            .iter()
            .filter_map(|(&key, &velocity)| {
                let agent = self.world.agent(key).ok()?;
                Some((key, agent.position() + velocity * step))
            })
            .collect();
        for (key, position) in free {
            let velocity = self.velocities[&key];
            let _ = self.world.set_free_motion(key, position, velocity);
        }
        self.query_all();
        self.steer_all(step);
    }

    fn query_all(&mut self) {
        let before = self.rail_on_mesh.clone();
        let mut orders = std::mem::take(&mut self.orders);
        self.world.query_all(&mut orders);
        assert_eq!(
            orders.len(),
            self.world.len(),
            "query_all must answer every live agent once"
        );
        for (i, (key, order)) in orders.iter().enumerate() {
            assert!(
                orders[..i].iter().all(|(k, _)| k != key),
                "query_all answered {key:?} twice"
            );
            self.check_order(*key, order, before.get(key).copied());
        }
        self.orders = orders;
    }

    fn steer_all(&mut self, dt: f64) {
        let mut steers = std::mem::take(&mut self.steers);
        self.world.steer_all(dt, &mut steers);
        for steer in &steers {
            let agent = self.world.agent(steer.key);
            assert!(agent.is_ok(), "steer_all named {:?}, not live", steer.key);
            assert_eq!(
                agent.map(|a| a.desc().locomotion.is_free() || a.is_released()),
                Ok(true),
                "steer_all steered a rail agent"
            );
            assert!(
                steer.velocity.is_finite() && steer.preferred.is_finite(),
                "steer_all gave {steer:?}"
            );
            self.velocities.insert(steer.key, steer.velocity);
        }
        self.steers = steers;
    }

    /// An order given to `key`, whose rail before the query stayed on the mesh (`Some(true)`).
    fn check_order(&mut self, key: AgentKey, order: &Order, rail_on_mesh: Option<bool>) {
        assert!(self.is_live(key), "an order for {key:?}, not live");
        match order {
            Order::Continue => {}
            Order::ChangeSpeed { speed } | Order::Start { speed } => {
                assert!(speed.is_finite() && *speed > 0.0, "{order:?}")
            }
            Order::Wait { clear_in } => {
                assert!(
                    clear_in.is_none_or(|t| t.is_finite() && t >= 0.0),
                    "{order:?}"
                )
            }
            Order::Stop { cause } => match cause {
                StopCause::Collision(c) | StopCause::Unavoidable(c) => {
                    self.check_other(key, c.collider, "a stop's collision");
                    assert!(
                        c.time.is_finite()
                            && c.s.is_finite()
                            && c.agent_position.is_finite()
                            && c.collider_position.is_finite()
                            && c.overlap.is_finite()
                            && c.avoid_direction.is_finite(),
                        "{order:?}"
                    );
                }
                StopCause::Passage { after } => {
                    self.check_other(key, *after, "a stop's agent going first");
                }
                StopCause::InvalidMotion => {}
            },
            Order::Reroute { rail, reroute } => {
                assert!(reroute.via.is_finite(), "{order:?}");
                let on_mesh = rail
                    .off_mesh(self.world.level().navmesh(), MESH_STEP)
                    .is_none();
                if rail_on_mesh == Some(true) {
                    assert!(
                        on_mesh,
                        "a rewritten rail of {key:?} leaves the mesh: {reroute:?}, rail {:?}",
                        rail.segments()
                    );
                }
                self.rail_on_mesh.insert(key, on_mesh);
            }
            Order::Release { goal } => {
                assert!(
                    goal.is_finite() && self.world.level().navmesh().contains(*goal),
                    "{order:?}"
                );
                let agent = self.world.agent(key).expect("live");
                assert!(agent.is_released() && agent.rail().is_none(), "{order:?}");
                self.rail_on_mesh.remove(&key);
                self.releases += 1;
            }
            Order::Rejoin { rail, speed } => {
                assert!(speed.is_finite() && *speed > 0.0, "{order:?}");
                assert!(
                    rail.off_mesh(self.world.level().navmesh(), MESH_STEP)
                        .is_none(),
                    "a rejoining rail of {key:?} leaves the mesh: {:?}",
                    rail.segments()
                );
                let agent = self.world.agent(key).expect("live");
                assert!(!agent.is_released() && agent.rail().is_some());
                self.velocities.remove(&key);
                self.rail_on_mesh.insert(key, true);
            }
        }
        if let Some(collision) = self.world.agent(key).ok().and_then(|a| a.last_collision()) {
            assert!(
                collision.time.is_finite() && collision.agent_position.is_finite(),
                "{collision:?}"
            );
        }
    }

    fn check_occupancy(&self, key: AgentKey, occupancy: Occupancy, what: &str) {
        if let Occupancy::Taken { by, at } = occupancy {
            self.check_other(key, by, what);
            assert!(at.is_finite() && at >= 0.0, "{what}: {occupancy:?}");
        }
    }

    /// `other`, named in an answer about `key`, is another live agent.
    fn check_other(&self, key: AgentKey, other: AgentKey, what: &str) {
        assert!(self.is_live(other), "{what} named {other:?}, not live");
        assert_ne!(key, other, "{what} named the agent itself");
    }

    fn check_agents(&self) {
        for (key, agent) in self.world.agents() {
            assert!(
                agent.position().is_finite() && agent.direction().is_finite(),
                "{key:?} at {} heading {}",
                agent.position(),
                agent.direction()
            );
            let motion = agent.motion();
            assert!(
                motion.s.is_finite() && motion.speed.is_finite(),
                "{key:?}: {motion:?}"
            );
        }
    }
}

/// The motion a simple host reports `dt` seconds after `motion` on `rail`.
fn next_motion(desc: &AgentDesc, motion: Motion, rail: &Rail, dt: f64) -> Motion {
    let Motion {
        mut s,
        speed,
        mut phase,
    } = motion;
    match phase {
        Phase::Standing => {}
        Phase::Moving => s += speed * dt,
        Phase::Starting { elapsed } => {
            s += 0.5 * speed * dt;
            let elapsed = elapsed + dt;
            phase = if elapsed >= desc.start.duration {
                Phase::Moving
            } else {
                Phase::Starting { elapsed }
            };
        }
        Phase::Stopping { elapsed } => {
            s += 0.5 * speed * dt;
            let elapsed = elapsed + dt;
            phase = if elapsed >= desc.gait(speed).stop_time {
                Phase::Standing
            } else {
                Phase::Stopping { elapsed }
            };
        }
    }
    if s >= rail.length() {
        s = rail.length();
        phase = Phase::Standing;
    }
    Motion { s, speed, phase }
}

/// Encoders of script calls, for scripts written by hand (or by a seeded generator) rather than
/// by a fuzzer: each returns the bytes [`run_script`] reads as that call.
pub mod encode {
    /// The first byte: the level (index into the fixture list) and whether overlap is allowed.
    pub fn header(level: u8, allow_overlap: bool, jam_release: bool) -> Vec<u8> {
        vec![level | if allow_overlap { 0x80 } else { 0 } | if jam_release { 0x40 } else { 0 }]
    }

    /// A fraction of the (widened) level bounds as the script's two-byte number.
    fn fraction(f: f64) -> [u8; 2] {
        ((f.clamp(0.0, 1.0) * f64::from(0xFFF9_u16)).round() as u16).to_le_bytes()
    }

    /// Add an agent at fractions (`fx`, `fy`) of the bounds; `radius` byte ≥ 3 is 0.2 +
    /// 0.6 × radius / 255 m; `free` 0 ORCA, 1 TTC, 2 rail.
    pub fn add(out: &mut Vec<u8>, fx: f64, fy: f64, radius: u8, free: u8) {
        out.push(0);
        out.extend(fraction(fx));
        out.extend(fraction(fy));
        out.extend([radius, free]);
    }

    /// Plan a rail for the agent at `key` (index into the live keys) to (`fx`, `fy`).
    pub fn plan_rail(out: &mut Vec<u8>, key: u8, fx: f64, fy: f64) {
        out.extend([2, key]);
        out.extend(fraction(fx));
        out.extend(fraction(fy));
    }

    /// Send the free agent at `key` to (`fx`, `fy`).
    pub fn set_goal(out: &mut Vec<u8>, key: u8, fx: f64, fy: f64) {
        out.extend([7, key]);
        out.extend(fraction(fx));
        out.extend(fraction(fy));
    }

    /// Play `frames` frames (at most 40) of the built-in host at `dt` byte (≥ 2: 0.01 + 0.1 ×
    /// dt / 255 s).
    pub fn advance(out: &mut Vec<u8>, frames: u8, dt: u8) {
        out.extend([17, frames.saturating_sub(1), dt]);
    }
}
