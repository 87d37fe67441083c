//! The per-frame avoidance update of rail agents placed by [`Scenario::random`] (seed 1, radius
//! 0.4 m, speeds 0.8 / 1.4 / 2.6 m/s, all departing at once): after 60 simulated frames (2 s),
//! one frame of `World::begin_frame` + `World::set_motion` for every agent + `World::query_all`,
//! on a clone of the simulation's world (the clone is not timed). Criterion reports the time per
//! frame; its throughput line gives agents per second.
//!
//! Cases (`world_update/<level>/<agents>`):
//! - `plaza/300`, `plaza/1000`: the 60 m × 60 m plaza (3,459 m² walkable), 0.09 and 0.29 agents
//!   per walkable m²;
//! - `city-small/1000`, `city/10000`: the street grids of `tools/make_city_levels.py`, 4,000 and
//!   40,000 m² walkable, both at 0.25 agents per walkable m² (the scaling check: ns per agent at
//!   10,000 against 1,000 at the same density).
//!
//! And `world_rails_given/<level>/<agents>` (`plaza/1000`, `city/10000`): the first frame, every
//! agent standing at its start with its rail just given, so that every query checks its rail's
//! end against the spots the others take (the shared-destination check).
//!
//! A case is set up (placement, warm-up) only when criterion's filter selects it, e.g.
//! `cargo bench --bench world -- world_update/city/` runs the 10,000-agent case alone. The bench
//! prints the agents' states after the warm-up and the world's memory per agent for each case.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use sidestep::{
    AgentKey, HostAgent, HostPhase, Level, Motion, Phase, PlacementOptions, Scenario, Simulation,
    World,
};

/// Frames played before measuring, so that agents are moving.
const WARM_UP_FRAMES: usize = 60;

/// (level, agents).
const CASES: [(&str, usize); 4] = [
    ("plaza", 300),
    ("plaza", 1_000),
    ("city-small", 1_000),
    ("city", 10_000),
];

fn level(name: &str) -> Arc<Level> {
    let path = format!("{}/fixtures/levels/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Arc::new(Level::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

/// The motion report the built-in host would give for this agent next frame.
fn motion_of(a: &HostAgent) -> Motion {
    match a.phase {
        HostPhase::Standing => Motion::standing(a.s),
        HostPhase::Moving => Motion::moving(a.s, a.speed),
        HostPhase::Starting { elapsed, .. } => Motion {
            s: a.s,
            speed: a.speed,
            phase: Phase::Starting { elapsed },
        },
        HostPhase::Stopping {
            elapsed,
            from_speed,
            ..
        } => Motion {
            s: a.s,
            speed: from_speed,
            phase: Phase::Stopping { elapsed },
        },
    }
}

/// A world after the warm-up and the motion reports of its next frame.
struct Setup {
    world: World,
    reports: Vec<(AgentKey, Motion)>,
    dt: f64,
}

/// `agents` rail agents placed on the level by [`Scenario::random`], seed 1.
fn placed(level_name: &str, agents: usize) -> Scenario {
    let options = PlacementOptions {
        agents,
        seed: 1,
        ..PlacementOptions::default()
    };
    Scenario::random(
        &format!("{level_name}-{agents}"),
        level(level_name),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn setup(level_name: &str, agents: usize) -> Setup {
    let scenario = placed(level_name, agents);
    let mut sim = Simulation::new(&scenario).expect("the world takes every agent");
    for _ in 0..WARM_UP_FRAMES {
        sim.step();
    }
    // What the measured frame is made of (moving agents sweep; waiting ones check a start).
    let mut states = std::collections::BTreeMap::new();
    for a in sim.agents() {
        *states.entry(a.state().name()).or_insert(0usize) += 1;
    }
    let memory = sim.world().memory();
    eprintln!(
        "{level_name}/{agents} after {WARM_UP_FRAMES} frames: {states:?}; world memory {} B \
         = {:.0} B per agent (rails excluded)",
        memory.bytes,
        memory.bytes_per_agent()
    );
    let reports = sim
        .agents()
        .iter()
        .filter(|a| a.departed)
        .map(|a| (a.key, motion_of(a)))
        .collect();
    Setup {
        world: sim.world().clone(),
        reports,
        dt: scenario.dt,
    }
}

fn bench_world_update(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_update");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (level_name, agents) in CASES {
        let mut state: Option<Setup> = None;
        let mut orders = Vec::with_capacity(agents);
        group.throughput(Throughput::Elements(agents as u64));
        group.bench_function(BenchmarkId::new(level_name, agents), |b| {
            let s = state.get_or_insert_with(|| setup(level_name, agents));
            b.iter_batched(
                || s.world.clone(),
                |mut world| {
                    world.begin_frame(s.dt);
                    for &(key, motion) in &s.reports {
                        let _ = world.set_motion(key, motion);
                    }
                    world.query_all(&mut orders);
                    black_box(orders.len());
                    world
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// The first frame of a crowd: every agent has just been given its rail, so every query checks
/// its rail's end against the spots the others take (`world_rails_given/<level>/<agents>`).
/// A world with the agents placed, standing, and their rails given (not timed).
fn rails_given(level_name: &str, agents: usize) -> World {
    let sim = Simulation::new(&placed(level_name, agents)).expect("the world takes every agent");
    let mut world = sim.world().clone();
    for a in sim.agents() {
        if let Some(rail) = &a.rail {
            world.set_rail(a.key, rail.clone()).expect("a planned rail");
            world
                .set_motion(a.key, Motion::standing(0.0))
                .expect("at its start");
        }
    }
    world
}

fn bench_rails_given(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_rails_given");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (level_name, agents) in [("plaza", 1_000), ("city", 10_000)] {
        let mut state: Option<World> = None;
        let mut orders = Vec::with_capacity(agents);
        group.throughput(Throughput::Elements(agents as u64));
        group.bench_function(BenchmarkId::new(level_name, agents), |b| {
            let world = state.get_or_insert_with(|| rails_given(level_name, agents));
            b.iter_batched(
                || world.clone(),
                |mut world| {
                    world.begin_frame(1.0 / 30.0);
                    world.query_all(&mut orders);
                    black_box(orders.len());
                    world
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench_world_update, bench_rails_given);
criterion_main!(benches);
