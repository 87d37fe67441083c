//! Helpers shared by the integration tests: fixture loading and seeded sampling of points where
//! an agent fits.
#![allow(dead_code)]

use sidestep::{AgentDesc, AgentKey, AvoidanceConfig, DVec2, Level, World};

pub const FIXTURE_LEVELS: &[&str] = &[
    "open-field",
    "corridor",
    "doorway",
    "crossroads",
    "pillar-hall",
    "l-corner",
    "narrow-alcove",
    "plaza",
    "mesh-rooms",
];

pub fn level(name: &str) -> Level {
    Level::load(format!(
        "{}/fixtures/levels/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_else(|e| panic!("{e}"))
}

/// SplitMix64: a tiny seeded generator so tests pick the same points on every machine.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A point on the level's mesh with at least `clearance` metres to every wall.
pub fn point_with_clearance(level: &Level, rng: &mut SplitMix, clearance: f64) -> DVec2 {
    let mesh = level.navmesh();
    let (lo, hi) = mesh.bounds();
    for _ in 0..100_000 {
        let p = lo + (hi - lo) * DVec2::new(rng.unit(), rng.unit());
        if mesh.contains(p) && mesh.wall_distance(p) >= clearance {
            return p;
        }
    }
    panic!("no point with clearance {clearance} on {}", level.name());
}

pub fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

/// A world on a fixture level with the default configuration.
pub fn world_on(level_name: &str) -> World {
    World::new(level(level_name), AvoidanceConfig::default()).unwrap()
}

/// The default agent (radius 0.4; speeds 0.8, 1.4, 2.6; preferred 1.4) standing at `at`.
pub fn stander(world: &mut World, at: DVec2) -> AgentKey {
    world
        .add_agent(AgentDesc {
            position: at,
            ..AgentDesc::default()
        })
        .unwrap()
}

/// The exact shortest-path oracle at radius 0: the shortest path bends only at wall vertices,
/// so Dijkstra over the visibility graph of the wall vertices (plus start and goal) gives its
/// length. The corners' mutual visibility is computed once per mesh.
pub struct VisibilityGraph {
    corners: Vec<DVec2>,
    sees: Vec<bool>,
}

impl VisibilityGraph {
    pub fn new(mesh: &sidestep::NavMesh) -> VisibilityGraph {
        let corners: Vec<DVec2> = (0..mesh.vertices().len() as u32)
            .filter(|&v| mesh.is_wall_vertex(v))
            .map(|v| mesh.vertices()[v as usize])
            .collect();
        let n = corners.len();
        let mut sees = vec![false; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let visible = mesh.is_reachable(corners[i], corners[j]);
                sees[i * n + j] = visible;
                sees[j * n + i] = visible;
            }
        }
        VisibilityGraph { corners, sees }
    }

    /// The length of the shortest path from `from` to `to` on `mesh` (the graph's mesh), or
    /// infinity when there is none.
    pub fn shortest(&self, mesh: &sidestep::NavMesh, from: DVec2, to: DVec2) -> f64 {
        let n = self.corners.len();
        // Nodes 0..n are the corners, n the start, n + 1 the goal.
        let at = |k: usize| match k {
            k if k < n => self.corners[k],
            k if k == n => from,
            _ => to,
        };
        let visible = |a: usize, b: usize| {
            if a < n && b < n {
                self.sees[a * n + b]
            } else {
                mesh.is_reachable(at(a), at(b))
            }
        };
        let mut dist = vec![f64::INFINITY; n + 2];
        let mut done = vec![false; n + 2];
        dist[n] = 0.0;
        loop {
            let Some(u) = (0..n + 2)
                .filter(|&k| !done[k] && dist[k].is_finite())
                .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
            else {
                return f64::INFINITY;
            };
            if u == n + 1 {
                return dist[u];
            }
            done[u] = true;
            for w in 0..n + 2 {
                let d = dist[u] + at(u).distance(at(w));
                if !done[w] && d < dist[w] && visible(u, w) {
                    dist[w] = d;
                }
            }
        }
    }
}
