//! Seeded random scenarios: `N` agents (on rails, or free-steering with ORCA or time-to-collision
//! forces) with start and goal points sampled over a level's navmesh so that no two starts (and no
//! two goals) overlap (DESIGN §6, `sidestep bench`).
//!
//! Points are drawn area-weighted over the mesh's polygons (fan-triangulated, in polygon id
//! order) from a SplitMix64 generator, so the same level, options and seed give the same
//! scenario on every machine. A point is kept when it is at least `radius + 0.05` m from every
//! wall and, for a start, at least `2 × radius × 1.05` from every other start (a uniform hash
//! grid makes that test constant-time); a goal must in addition be on the start's island, at
//! least `min_trip` from it, apart from every other goal in the same way, and a rail (a corner path
//! for free-steering agents) must be planned to it, otherwise the pair is drawn again.

use std::collections::HashMap;
use std::sync::Arc;

use glam::DVec2;

use super::scenario::{Mode, Scenario, ScenarioAgent};
use crate::geometry::cross;
use crate::level::{Level, NavMesh};
use crate::world::{validate_desc, AgentDesc, AvoidanceConfig, Locomotion};

/// Starts (and goals) are kept at least this factor × the sum of radii apart, so that no two
/// agents touch at the start, even with the sweep's margin.
pub const PLACEMENT_SPACING: f64 = 1.05;

/// Starts and goals are kept at least `radius` + this many metres from every wall.
pub const PLACEMENT_WALL_MARGIN: f64 = 0.05;

/// Attempts (point draws) allowed per requested agent before [`Scenario::random`] gives up.
pub const PLACEMENT_ATTEMPTS_PER_AGENT: usize = 200;

/// Goal draws tried for one start before the start is drawn again.
const GOAL_TRIES: usize = 16;

/// How [`Scenario::random`] populates a level.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementOptions {
    /// Number of agents to place, ≥ 0. Default 100.
    pub agents: usize,
    /// Seed of the generator; the same seed gives the same scenario. Default 0.
    pub seed: u64,
    /// Collision radius of every agent, metres, finite and > 0. Default 0.4.
    pub radius: f64,
    /// Speeds the agents' animations support, m/s, each finite and > 0, at least one.
    /// Default `[0.8, 1.4, 2.6]`.
    pub speeds: Vec<f64>,
    /// The speed agents walk at when nothing is in the way, m/s; one of `speeds`. Default 1.4.
    pub preferred_speed: f64,
    /// Smallest straight-line distance between an agent's start and goal, metres, finite and
    /// ≥ 0. Default 5.
    pub min_trip: f64,
    /// Frame time step of the scenario, seconds, in (0, 1]. Default 1/30.
    pub dt: f64,
    /// Simulated time of the scenario, seconds, finite and > 0 (at most ten million frames).
    /// Default 60.
    pub duration: f64,
    /// How every agent moves: [`Mode::Rail`], [`Mode::Orca`] or [`Mode::Ttc`]
    /// ([`Mode::Stationary`] agents have no goal and are refused). Default [`Mode::Rail`].
    pub mode: Mode,
}

impl Default for PlacementOptions {
    fn default() -> Self {
        PlacementOptions {
            agents: 100,
            seed: 0,
            radius: 0.4,
            speeds: vec![0.8, 1.4, 2.6],
            preferred_speed: 1.4,
            min_trip: 5.0,
            dt: 1.0 / 30.0,
            duration: 60.0,
            mode: Mode::Rail,
        }
    }
}

/// A random scenario could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlacementError {
    /// An option is out of its documented range.
    #[error("placement option `{option}`: {problem}")]
    InvalidOptions {
        /// The field of [`PlacementOptions`].
        option: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// Not every agent could be placed within the attempt budget.
    #[error(
        "placed only {placed} of {requested} agents of radius {radius} m on level `{level}` \
         after {attempts} attempts; ask for fewer agents, a smaller radius or a shorter min_trip"
    )]
    Crowded {
        /// The level's name.
        level: String,
        /// Agents placed before giving up.
        placed: usize,
        /// Agents asked for.
        requested: usize,
        /// Point draws made (the budget: [`PLACEMENT_ATTEMPTS_PER_AGENT`] × requested).
        attempts: usize,
        /// The agents' radius, metres.
        radius: f64,
    },
}

impl Scenario {
    /// A scenario of `options.agents` agents of `options.mode` on `level`, all departing at
    /// time 0, with random (seeded) start and goal points: on the mesh, at least
    /// `radius + 0.05` m from walls, starts pairwise and goals pairwise at least
    /// `2 × radius × 1.05` apart, each goal at least `min_trip` from its start and reachable from
    /// it by a rail (free agents: a corner path) planned for the radius. The avoidance settings
    /// for the radius ([`AvoidanceConfig::from_agent_radius`]: the margin and the ORCA
    /// neighbour distance scale with it). Deterministic for a level, options and seed.
    ///
    /// Fails when an option is out of range, or with [`PlacementError::Crowded`] when the
    /// agents do not fit within [`PLACEMENT_ATTEMPTS_PER_AGENT`] × `agents` point draws.
    pub fn random(
        name: &str,
        level: Arc<Level>,
        options: &PlacementOptions,
    ) -> Result<Scenario, PlacementError> {
        let template = check_options(options)?;
        let avoidance = AvoidanceConfig::from_agent_radius(options.radius);
        let mesh = level.navmesh();
        let sampler = MeshSampler::new(mesh);
        let radius = options.radius;
        let clearance = radius + PLACEMENT_WALL_MARGIN;
        let spacing = 2.0 * radius * PLACEMENT_SPACING;
        let path_options = avoidance.path_options(radius);
        let mut rng = SplitMix64::new(options.seed);
        let mut starts = SpacingGrid::new(spacing);
        let mut goals = SpacingGrid::new(spacing);
        let mut agents: Vec<ScenarioAgent> = Vec::with_capacity(options.agents);
        let budget = PLACEMENT_ATTEMPTS_PER_AGENT.saturating_mul(options.agents);
        let mut attempts = 0usize;
        let fits = |p: DVec2| mesh.contains(p) && mesh.wall_distance(p) >= clearance;
        while agents.len() < options.agents {
            if attempts >= budget || sampler.is_empty() {
                return Err(PlacementError::Crowded {
                    level: level.name().to_owned(),
                    placed: agents.len(),
                    requested: options.agents,
                    attempts,
                    radius,
                });
            }
            attempts += 1;
            let (start, island) = sampler.sample(&mut rng, None);
            if starts.crowded(start) || !fits(start) {
                continue;
            }
            for _ in 0..GOAL_TRIES {
                if attempts >= budget {
                    break;
                }
                attempts += 1;
                let (goal, _) = sampler.sample(&mut rng, Some(island));
                if start.distance(goal) < options.min_trip || goals.crowded(goal) || !fits(goal) {
                    continue;
                }
                // A failed plan (a pocket too narrow for the radius) draws a new pair.
                let rail = match options.mode {
                    Mode::Rail => match mesh.plan_rail(start, goal, &path_options) {
                        Ok(rail) => Some(Arc::new(rail)),
                        Err(_) => break,
                    },
                    _ => match mesh.find_path(start, goal, &path_options) {
                        Ok(_) => None,
                        Err(_) => break,
                    },
                };
                starts.insert(start);
                goals.insert(goal);
                let mut desc = template.clone();
                desc.position = start;
                agents.push(ScenarioAgent {
                    desc,
                    mode: options.mode,
                    goal: Some(goal),
                    depart: 0.0,
                    rail,
                    group: None,
                });
                break;
            }
        }
        Ok(Scenario {
            name: name.to_owned(),
            origin: format!(
                "random placement of {} agents on `{}` (seed {})",
                options.agents,
                level.name(),
                options.seed
            ),
            level,
            dt: options.dt,
            duration: options.duration,
            seed: options.seed,
            avoidance,
            agents,
        })
    }
}

/// Check the options; the agents' description (without position) when they are valid.
fn check_options(options: &PlacementOptions) -> Result<AgentDesc, PlacementError> {
    let invalid =
        |option: &'static str, problem: String| PlacementError::InvalidOptions { option, problem };
    let radius = options.radius;
    if !(radius.is_finite() && radius > 0.0) {
        return Err(invalid(
            "radius",
            format!("{radius} must be a finite number of metres > 0"),
        ));
    }
    if options.speeds.is_empty() {
        return Err(invalid("speeds", "the speed set is empty".into()));
    }
    for v in &options.speeds {
        if !(v.is_finite() && *v > 0.0) {
            return Err(invalid(
                "speeds",
                format!("speed {v} must be a finite number of m/s > 0"),
            ));
        }
    }
    let preferred = options.preferred_speed;
    if options.speeds.iter().all(|v| (v - preferred).abs() > 1e-9) {
        return Err(invalid(
            "preferred_speed",
            format!("{preferred} is not one of the speeds {:?}", options.speeds),
        ));
    }
    if !(options.min_trip.is_finite() && options.min_trip >= 0.0) {
        return Err(invalid(
            "min_trip",
            format!(
                "{} must be a finite number of metres >= 0",
                options.min_trip
            ),
        ));
    }
    if !(options.dt.is_finite() && options.dt > 0.0 && options.dt <= 1.0) {
        return Err(invalid(
            "dt",
            format!("{} must be in (0, 1] seconds", options.dt),
        ));
    }
    if !(options.duration.is_finite() && options.duration > 0.0) {
        return Err(invalid(
            "duration",
            format!(
                "{} must be a finite number of seconds > 0",
                options.duration
            ),
        ));
    }
    if options.duration / options.dt > 10_000_000.0 {
        return Err(invalid("duration", "more than ten million frames".into()));
    }
    let mut desc = AgentDesc::with_speeds(radius, &options.speeds, preferred);
    desc.locomotion = match options.mode {
        Mode::Rail => Locomotion::Rail,
        Mode::Orca => Locomotion::Orca,
        Mode::Ttc => Locomotion::Ttc,
        Mode::Stationary => {
            return Err(invalid(
                "mode",
                "stationary agents have no goal; use rail, orca or ttc".into(),
            ))
        }
    };
    validate_desc(&desc).map_err(|problem| invalid("speeds", problem))?;
    Ok(desc)
}

/// SplitMix64 (Steele, Lea and Flood): a tiny generator that is the same on every platform.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The mesh's polygons fan-triangulated in id order, with cumulative areas for area-weighted
/// sampling over the whole mesh and over each island.
struct MeshSampler {
    triangles: Vec<[DVec2; 3]>,
    /// Island of each triangle.
    island_of: Vec<u32>,
    /// Cumulative area over all triangles (`cumulative[i]` = area of triangles `0..=i`).
    cumulative: Vec<f64>,
    /// Per island: its triangles (indices into `triangles`) and their cumulative areas.
    islands: Vec<(Vec<u32>, Vec<f64>)>,
}

impl MeshSampler {
    fn new(mesh: &NavMesh) -> Self {
        let mut triangles = Vec::new();
        let mut island_of = Vec::new();
        let mut cumulative = Vec::new();
        let mut islands = vec![(Vec::new(), Vec::new()); mesh.island_count() as usize];
        let mut total = 0.0;
        for id in mesh.polygon_ids() {
            let island = mesh.island(id);
            let points: Vec<DVec2> = mesh.polygon_points(id).collect();
            for k in 1..points.len().saturating_sub(1) {
                let t = [points[0], points[k], points[k + 1]];
                let area = 0.5 * cross(t[1] - t[0], t[2] - t[0]);
                if area.is_nan() || area <= 0.0 {
                    continue;
                }
                let index = triangles.len() as u32;
                triangles.push(t);
                island_of.push(island);
                total += area;
                cumulative.push(total);
                let (members, sums) = &mut islands[island as usize];
                let before = sums.last().copied().unwrap_or(0.0);
                members.push(index);
                sums.push(before + area);
            }
        }
        MeshSampler {
            triangles,
            island_of,
            cumulative,
            islands,
        }
    }

    fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// A uniformly distributed point of the mesh (or of `island`) and its island. Three draws.
    fn sample(&self, rng: &mut SplitMix64, island: Option<u32>) -> (DVec2, u32) {
        let pick = |sums: &[f64], u: f64| {
            let target = u * sums.last().copied().unwrap_or(0.0);
            sums.partition_point(|&s| s <= target).min(sums.len() - 1)
        };
        let u = rng.unit();
        let index = match island {
            None => pick(&self.cumulative, u),
            Some(i) => {
                let (members, sums) = &self.islands[i as usize];
                members[pick(sums, u)] as usize
            }
        };
        let [a, b, c] = self.triangles[index];
        let (mut s, mut t) = (rng.unit(), rng.unit());
        if s + t > 1.0 {
            (s, t) = (1.0 - s, 1.0 - t);
        }
        (a + (b - a) * s + (c - a) * t, self.island_of[index])
    }
}

/// Placed points bucketed in a uniform hash grid of cells as wide as the spacing, so that
/// "is any point closer than the spacing" looks at 3 × 3 cells.
struct SpacingGrid {
    spacing: f64,
    cells: HashMap<(i64, i64), Vec<DVec2>>,
}

impl SpacingGrid {
    fn new(spacing: f64) -> Self {
        SpacingGrid {
            spacing,
            cells: HashMap::new(),
        }
    }

    fn cell(&self, p: DVec2) -> (i64, i64) {
        (
            (p.x / self.spacing).floor() as i64,
            (p.y / self.spacing).floor() as i64,
        )
    }

    /// Whether a placed point is closer than the spacing to `p`.
    fn crowded(&self, p: DVec2) -> bool {
        let (cx, cy) = self.cell(p);
        for y in cy - 1..=cy + 1 {
            for x in cx - 1..=cx + 1 {
                if let Some(points) = self.cells.get(&(x, y)) {
                    if points.iter().any(|q| q.distance(p) < self.spacing) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn insert(&mut self, p: DVec2) {
        let cell = self.cell(p);
        self.cells.entry(cell).or_default().push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plaza() -> Arc<Level> {
        Arc::new(
            Level::load(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/fixtures/levels/plaza.json"
            ))
            .expect("plaza loads"),
        )
    }

    fn options(agents: usize, seed: u64) -> PlacementOptions {
        PlacementOptions {
            agents,
            seed,
            ..PlacementOptions::default()
        }
    }

    fn ends(s: &Scenario) -> Vec<(DVec2, DVec2)> {
        s.agents
            .iter()
            .map(|a| (a.desc.position, a.goal.expect("rail agents have goals")))
            .collect()
    }

    #[test]
    fn same_seed_same_scenario() {
        let level = plaza();
        let a = Scenario::random("a", level.clone(), &options(120, 7)).unwrap();
        let b = Scenario::random("b", level, &options(120, 7)).unwrap();
        assert_eq!(ends(&a), ends(&b));
        for (x, y) in a.agents.iter().zip(&b.agents) {
            let (x, y) = (x.rail.as_ref().unwrap(), y.rail.as_ref().unwrap());
            assert_eq!(x.length(), y.length());
        }
    }

    #[test]
    fn different_seeds_differ() {
        let level = plaza();
        let a = Scenario::random("a", level.clone(), &options(50, 1)).unwrap();
        let b = Scenario::random("b", level, &options(50, 2)).unwrap();
        let (a, b) = (ends(&a), ends(&b));
        assert!(a.iter().zip(&b).all(|(x, y)| x != y));
    }

    #[test]
    fn three_hundred_on_plaza_apart_on_mesh_and_reachable() {
        let level = plaza();
        let opts = options(300, 42);
        let s = Scenario::random("plaza-300", level.clone(), &opts).unwrap();
        assert_eq!(s.agents.len(), 300);
        assert_eq!(s.seed, 42);
        assert_eq!(s.dt, opts.dt);
        assert_eq!(s.duration, opts.duration);
        let mesh = level.navmesh();
        let spacing = 2.0 * opts.radius * PLACEMENT_SPACING;
        let clearance = opts.radius + PLACEMENT_WALL_MARGIN;
        let points = ends(&s);
        for (i, &(start, goal)) in points.iter().enumerate() {
            let a = &s.agents[i];
            assert_eq!(a.mode, Mode::Rail);
            assert_eq!(a.desc.radius, opts.radius);
            assert_eq!(a.desc.preferred_speed, opts.preferred_speed);
            assert_eq!(a.desc.gaits.len(), opts.speeds.len());
            for p in [start, goal] {
                assert!(mesh.contains(p), "agent {i}: {p} is off the mesh");
                assert!(
                    mesh.wall_distance(p) >= clearance,
                    "agent {i}: {p} too near a wall"
                );
            }
            assert!(start.distance(goal) >= opts.min_trip);
            let (from, to) = (mesh.locate(start).unwrap(), mesh.locate(goal).unwrap());
            assert_eq!(mesh.island(from), mesh.island(to));
            let rail = a.rail.as_ref().unwrap();
            assert!(rail.start().distance(start) < 1e-9);
            assert!(rail.end().distance(goal) < 1e-9);
            for (j, &(other_start, other_goal)) in points.iter().enumerate().take(i) {
                assert!(
                    start.distance(other_start) >= spacing,
                    "starts {i} and {j} overlap"
                );
                assert!(
                    goal.distance(other_goal) >= spacing,
                    "goals {i} and {j} overlap"
                );
            }
        }
        // The world accepts the agents (its own overlap check).
        crate::sim::Simulation::new(&s).expect("the world takes every agent");
    }

    #[test]
    fn free_modes_place_free_agents_with_goals_and_no_rails() {
        let level = plaza();
        let rail = Scenario::random("rail", level.clone(), &options(40, 5)).unwrap();
        for (mode, locomotion) in [
            (Mode::Orca, crate::world::Locomotion::Orca),
            (Mode::Ttc, crate::world::Locomotion::Ttc),
        ] {
            let opts = PlacementOptions {
                mode,
                ..options(40, 5)
            };
            let s = Scenario::random("free", level.clone(), &opts).unwrap();
            assert_eq!(s.agents.len(), 40);
            for a in &s.agents {
                assert_eq!(a.mode, mode);
                assert_eq!(a.desc.locomotion, locomotion);
                assert!(a.rail.is_none());
                assert!(a.goal.is_some());
            }
            // The same draws as rail agents (every pair has a rail and a corner path here).
            assert_eq!(ends(&s), ends(&rail));
            crate::sim::Simulation::new(&s).expect("the world takes every agent");
        }
    }

    #[test]
    fn zero_agents_is_an_empty_scenario() {
        let s = Scenario::random("empty", plaza(), &options(0, 3)).unwrap();
        assert!(s.agents.is_empty());
    }

    #[test]
    fn crowded_level_names_how_many_were_placed() {
        let level = Arc::new(
            Level::from_json(
                r#"{ "name": "box", "boundary": [[0, 0], [6, 0], [6, 6], [0, 6]] }"#,
                "box",
            )
            .unwrap(),
        );
        let opts = PlacementOptions {
            min_trip: 1.0,
            ..options(60, 5)
        };
        match Scenario::random("box", level, &opts) {
            Err(PlacementError::Crowded {
                placed,
                requested,
                attempts,
                ..
            }) => {
                assert!(placed > 0 && placed < 60, "placed {placed}");
                assert_eq!(requested, 60);
                assert_eq!(attempts, 60 * PLACEMENT_ATTEMPTS_PER_AGENT);
            }
            other => panic!("expected Crowded, got {other:?}"),
        }
    }

    #[test]
    fn invalid_options_are_named() {
        let level = plaza();
        let cases: [(&str, PlacementOptions); 6] = [
            (
                "radius",
                PlacementOptions {
                    radius: 0.0,
                    ..options(1, 0)
                },
            ),
            (
                "speeds",
                PlacementOptions {
                    speeds: vec![],
                    ..options(1, 0)
                },
            ),
            (
                "preferred_speed",
                PlacementOptions {
                    preferred_speed: 1.0,
                    ..options(1, 0)
                },
            ),
            (
                "min_trip",
                PlacementOptions {
                    min_trip: f64::NAN,
                    ..options(1, 0)
                },
            ),
            (
                "dt",
                PlacementOptions {
                    dt: 0.0,
                    ..options(1, 0)
                },
            ),
            (
                "mode",
                PlacementOptions {
                    mode: Mode::Stationary,
                    ..options(1, 0)
                },
            ),
        ];
        for (name, opts) in cases {
            match Scenario::random("bad", level.clone(), &opts) {
                Err(PlacementError::InvalidOptions { option, .. }) => assert_eq!(option, name),
                other => panic!("{name}: expected InvalidOptions, got {other:?}"),
            }
        }
    }

    #[test]
    fn samples_cover_the_mesh_uniformly() {
        // The 6 m box's two halves get about the same number of points.
        let level = Level::from_json(
            r#"{ "name": "box", "boundary": [[0, 0], [6, 0], [6, 6], [0, 6]] }"#,
            "box",
        )
        .unwrap();
        let sampler = MeshSampler::new(level.navmesh());
        let mut rng = SplitMix64::new(9);
        let n = 20_000;
        let left = (0..n)
            .filter(|_| sampler.sample(&mut rng, None).0.x < 3.0)
            .count();
        assert!((left as f64 / n as f64 - 0.5).abs() < 0.02, "{left} of {n}");
    }
}
