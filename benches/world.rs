//! The per-frame avoidance update on the `plaza` fixture (60 m × 60 m, 28 obstacles) with 30,
//! 300 and 3,000 rail agents placed by [`Scenario::random`] (seed 1): after 60 simulated frames
//! (2 s), one frame of `World::begin_frame` + `World::set_motion` for every agent +
//! `World::query_all`, on a clone of the simulation's world (the clone is not timed). Criterion
//! reports the time per frame; its throughput line gives agents per second.
//!
//! 30 and 300 agents have radius 0.4 m. 3,000 agents of radius 0.4 m do not fit on plaza with
//! the placement's spacing (2 × radius × 1.05 between starts, radius + 0.05 m from walls) within
//! its attempt budget (about 2,870 do), so that case uses radius 0.3 m (speeds and everything
//! else unchanged). At that density no agent finds a collision-free start (there is no
//! rerouting yet), so the 3,000 frame is every agent standing and checking its start, not
//! agents walking; the bench prints the agents' states after the warm-up for each case.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use sidestep::{
    HostAgent, HostPhase, Level, Motion, Phase, PlacementOptions, Scenario, Simulation,
};

/// Frames played before measuring, so that agents are moving.
const WARM_UP_FRAMES: usize = 60;

/// (agents, radius in metres).
const CASES: [(usize, f64); 3] = [(30, 0.4), (300, 0.4), (3_000, 0.3)];

fn plaza() -> Arc<Level> {
    Arc::new(
        Level::load(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/levels/plaza.json"
        ))
        .expect("plaza loads"),
    )
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

fn bench_world_update(c: &mut Criterion) {
    let level = plaza();
    let mut group = c.benchmark_group("world_update");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (agents, radius) in CASES {
        let options = PlacementOptions {
            agents,
            radius,
            seed: 1,
            ..PlacementOptions::default()
        };
        let scenario = Scenario::random(&format!("plaza-{agents}"), level.clone(), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(&scenario).expect("the world takes every agent");
        for _ in 0..WARM_UP_FRAMES {
            sim.step();
        }
        // What the measured frame is made of (moving agents sweep; waiting ones check a start).
        let mut states = std::collections::BTreeMap::new();
        for a in sim.agents() {
            *states.entry(a.state().name()).or_insert(0usize) += 1;
        }
        eprintln!("plaza/{agents} (radius {radius} m) after {WARM_UP_FRAMES} frames: {states:?}");
        let dt = scenario.dt;
        let reports: Vec<_> = sim
            .agents()
            .iter()
            .filter(|a| a.departed)
            .map(|a| (a.key, motion_of(a)))
            .collect();
        let world = sim.world().clone();
        let mut orders = Vec::with_capacity(agents);
        group.throughput(Throughput::Elements(agents as u64));
        group.bench_with_input(BenchmarkId::new("plaza", agents), &reports, |b, reports| {
            b.iter_batched(
                || world.clone(),
                |mut world| {
                    world.begin_frame(dt);
                    for &(key, motion) in reports {
                        let _ = world.set_motion(key, motion);
                    }
                    world.query_all(&mut orders);
                    black_box(orders.len());
                    world
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench_world_update);
criterion_main!(benches);
