//! The detour of a standing agent around agents with nowhere to go (`src/resolve/detour.rs`):
//! `World::query` of an agent standing on `open-field` with a straight rail through a row of
//! idle agents 1.5 m ahead (too close together to pass, too long to bend around), with k more
//! idle agents scattered in the detour's window, as in a crowd where many have arrived. Every
//! query plans the detour (the grid of cells kept off walls and off the idle agents, then A*);
//! each iteration queries a fresh copy of the world, as the detour changes it.
//!
//! `detour/around_a_row`: the cost grew with the idle agents in the window (each cell was
//! tested against each of them: most of a tradeshow-1000 frame once agents had arrived); the
//! cells are now stamped disc by disc.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use sidestep::{
    AgentDesc, AgentKey, AvoidanceConfig, DVec2, Level, Motion, Order, Rail, RerouteReason, World,
};

/// Idle agents scattered in the window, per case.
const SCATTERED: [usize; 3] = [0, 100, 300];

fn world_with(k: usize) -> (World, AgentKey) {
    let level = Arc::new(
        Level::load(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/levels/open-field.json"
        ))
        .expect("open-field loads"),
    );
    let mut world = World::new(level, AvoidanceConfig::default()).expect("default config");
    let idle = |world: &mut World, p: DVec2| {
        world
            .add_agent(AgentDesc {
                position: p,
                ..AgentDesc::default()
            })
            .expect("idle agents do not overlap");
    };
    // The row across the rail: 0.85 m apart, radius 0.4, from y = 8 to y = 22 at x = 5.
    for j in 0..17 {
        idle(&mut world, DVec2::new(5.0, 8.0 + 0.85 * j as f64));
    }
    // The others on a loose lattice behind the row, off the rail's line.
    let mut placed = 0;
    'lattice: for j in 0..40 {
        for i in 0..40 {
            if placed == k {
                break 'lattice;
            }
            let p = DVec2::new(6.5 + 1.1 * i as f64, 3.0 + 1.1 * j as f64);
            if (p.y - 15.0).abs() < 1.0 || p.x > 28.0 || p.y > 28.0 {
                continue;
            }
            idle(&mut world, p);
            placed += 1;
        }
    }
    let start = DVec2::new(3.5, 15.0);
    let key = world
        .add_agent(AgentDesc {
            position: start,
            ..AgentDesc::default()
        })
        .expect("the agent does not overlap");
    let rail = Rail::from_points(&[start, DVec2::new(27.0, 15.0)]).expect("straight rail");
    world.set_rail(key, rail).expect("on the mesh");
    world.begin_frame(1.0 / 30.0);
    world
        .set_motion(key, Motion::standing(0.0))
        .expect("valid motion");
    (world, key)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("detour");
    for k in SCATTERED {
        let (world, key) = world_with(k);
        // What is measured is a detour.
        match world.clone().query(key).expect("agent exists") {
            Order::Reroute { reroute, .. } => assert_eq!(reroute.reason, RerouteReason::Detour),
            other => panic!("expected a detour, got {other:?}"),
        }
        group.bench_with_input(BenchmarkId::new("around_a_row", k), &k, |b, _| {
            b.iter_batched(
                || world.clone(),
                |mut world| black_box(world.query(key)),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
