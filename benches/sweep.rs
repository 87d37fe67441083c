//! The sweep of one rail agent against k colliders: `World::query` of an agent walking a
//! straight rail at 1.4 m/s on `open-field`, with k agents walking the same way at the same
//! speed on parallel lanes ahead of it (1.2 m apart sideways, 1 m apart along a lane), all
//! inside its detection range and none on a collision course, so every one is swept over the
//! whole horizon (the worst case per collider). The query repeats on the same world (it orders
//! nothing, so the world does not change); criterion's throughput line counts colliders.
//!
//! `sweep/one_agent_past_standing`: the same agent with k agents standing beside its way, 2.5 to
//! 8.5 m off its line: inside the broad phase's square, none able to reach the swept path (the
//! common case in a crowd, and the one `SweepBound::may_touch` drops before the pair sweep).
//!
//! `sweep/one_agent_waiting`: the agent standing, wanting to go, with an agent standing 1 m
//! ahead on its way that wants to go the same way (a queue: it waits, and bends nothing), and
//! the k walkers of `one_agent_against` ahead. Its query runs the start check and the far-start
//! test; the agent it waits on is swept first, and its contact cuts the walkers' sweeps short
//! (`earliest_contact` in `resolve/trivial.rs`).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sidestep::{AgentDesc, AvoidanceConfig, DVec2, Level, Motion, Rail, World};

/// Colliders per case.
const COLLIDERS: [usize; 5] = [0, 1, 4, 16, 32];

/// Lateral offsets of the lanes from the agent's line, metres.
const LANES: [f64; 6] = [1.2, -1.2, 2.4, -2.4, 3.6, -3.6];

fn world_with(k: usize) -> (World, sidestep::AgentKey) {
    let level = Arc::new(
        Level::load(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/levels/open-field.json"
        ))
        .expect("open-field loads"),
    );
    let mut world = World::new(level, AvoidanceConfig::default()).expect("default config");
    let y = 15.0;
    let mut walkers = vec![(DVec2::new(3.0, y), DVec2::new(27.0, y))];
    for i in 0..k {
        let lane = LANES[i % LANES.len()];
        let ahead = 0.5 + (i / LANES.len()) as f64;
        let start = DVec2::new(3.0 + ahead, y + lane);
        walkers.push((start, DVec2::new(27.0, y + lane)));
    }
    let mut keys = Vec::new();
    for (start, goal) in walkers {
        let key = world
            .add_agent(AgentDesc {
                position: start,
                ..AgentDesc::default()
            })
            .expect("agents do not overlap");
        let rail = Rail::from_points(&[start, goal]).expect("straight rail");
        world.set_rail(key, rail).expect("on the mesh");
        keys.push(key);
    }
    world.begin_frame(1.0 / 30.0);
    for &key in &keys {
        world
            .set_motion(key, Motion::moving(0.0, 1.4))
            .expect("valid motion");
    }
    (world, keys[0])
}

/// The walker of [`world_with`] alone, and `k` agents standing (no rail) on a grid beside its
/// way: columns every 1.5 m along it, rows 2.5 to 8.5 m off its line on both sides.
fn world_past_standing(k: usize) -> (World, sidestep::AgentKey) {
    let (mut world, key) = world_with(0);
    let rows = [2.5, -2.5, 4.0, -4.0, 5.5, -5.5, 7.0, -7.0, 8.5, -8.5];
    for i in 0..k {
        let x = 2.0 + 1.5 * (i / rows.len()) as f64;
        let y = 15.0 + rows[i % rows.len()];
        world
            .add_agent(AgentDesc {
                position: DVec2::new(x, y),
                ..AgentDesc::default()
            })
            .expect("agents do not overlap");
    }
    world.begin_frame(1.0 / 30.0);
    world
        .set_motion(key, Motion::moving(0.0, 1.4))
        .expect("valid motion");
    (world, key)
}

/// The agent of [`world_with`] standing (wanting to go), `k` walkers on their lanes ahead, and
/// an agent standing 1 m ahead of it on its line with a rail the same way.
fn world_waiting(k: usize) -> (World, sidestep::AgentKey) {
    let (mut world, key) = world_with(k);
    let y = 15.0;
    let ahead = DVec2::new(4.0, y);
    let blocker = world
        .add_agent(AgentDesc {
            position: ahead,
            ..AgentDesc::default()
        })
        .expect("agents do not overlap");
    let rail = Rail::from_points(&[ahead, DVec2::new(27.0, y)]).expect("straight rail");
    world.set_rail(blocker, rail).expect("on the mesh");
    world.begin_frame(1.0 / 30.0);
    world
        .set_motion(key, Motion::standing(0.0))
        .expect("valid motion");
    (world, key)
}

fn bench_sweep(c: &mut Criterion) {
    let mut group = c.benchmark_group("sweep");
    for k in COLLIDERS {
        let (mut world, key) = world_with(k);
        let first = world.query(key).expect("known agent");
        assert!(
            matches!(first, sidestep::Order::Continue),
            "the agent must see no collision: {first:?}"
        );
        group.throughput(Throughput::Elements(k.max(1) as u64));
        group.bench_function(BenchmarkId::new("one_agent_against", k), |b| {
            b.iter(|| black_box(world.query(key).expect("known agent")))
        });
    }
    for k in [16, 64] {
        let (mut world, key) = world_past_standing(k);
        let first = world.query(key).expect("known agent");
        assert!(
            matches!(first, sidestep::Order::Continue),
            "the agent must see no collision: {first:?}"
        );
        group.throughput(Throughput::Elements(k as u64));
        group.bench_function(BenchmarkId::new("one_agent_past_standing", k), |b| {
            b.iter(|| black_box(world.query(key).expect("known agent")))
        });
    }
    for k in [4, 16, 32] {
        let (mut world, key) = world_waiting(k);
        // The first query records whom it waits on (the first sweep of the next ones).
        let first = world.query(key).expect("known agent");
        assert!(
            matches!(first, sidestep::Order::Wait { .. }),
            "the agent must wait in the queue: {first:?}"
        );
        group.throughput(Throughput::Elements(k as u64));
        group.bench_function(BenchmarkId::new("one_agent_waiting", k), |b| {
            b.iter(|| black_box(world.query(key).expect("known agent")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_sweep);
criterion_main!(benches);
