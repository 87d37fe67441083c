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
