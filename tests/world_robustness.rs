//! Property test of the `World` API under random call sequences (including misuse): no panic,
//! orders only name live agents, rewritten rails stay on the mesh, no NaN in any output. The
//! scripts and checks are `tests/support/world_ops.rs`, shared with the `world_api` fuzz target;
//! an input the fuzzer finds crashing becomes a test here running its bytes.

#[path = "support/world_ops.rs"]
mod world_ops;

use proptest::prelude::*;

use world_ops::{encode, run_script};

/// A script that first sets up a busy world (`agents` agents spread over the level, rail agents
/// given rails across it, free agents goals) and then runs `tail`, random calls.
fn busy_script(
    level: u8,
    allow_overlap: bool,
    jam_release: bool,
    agents: u8,
    tail: &[u8],
) -> Vec<u8> {
    let mut bytes = encode::header(level, allow_overlap, jam_release);
    for i in 0..agents {
        let f = f64::from(i);
        let (fx, fy) = (
            0.15 + 0.7 * ((f * 0.37) % 1.0),
            0.15 + 0.7 * ((f * 0.61) % 1.0),
        );
        encode::add(&mut bytes, fx, fy, 100, if i % 5 == 0 { i % 2 } else { 2 });
    }
    for i in 0..agents {
        let f = f64::from(i);
        let (gx, gy) = (
            0.85 - 0.7 * ((f * 0.37) % 1.0),
            0.85 - 0.7 * ((f * 0.61) % 1.0),
        );
        encode::plan_rail(&mut bytes, i, gx, gy);
        encode::set_goal(&mut bytes, i, gx, gy);
    }
    encode::advance(&mut bytes, 20, 120);
    bytes.extend_from_slice(tail);
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    })]

    /// Random calls from the first call on (most of them misuse of an almost empty world).
    #[test]
    fn random_calls_keep_the_invariants(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        run_script(&bytes);
    }

    /// Random calls on a busy world: agents on rails meeting each other, free agents among them;
    /// with `jam_release`, agents stuck half a second released to free steering and rejoining.
    #[test]
    fn random_calls_on_a_busy_world_keep_the_invariants(
        level in 0u8..4,
        allow_overlap in any::<bool>(),
        jam_release in any::<bool>(),
        agents in 2u8..14,
        tail in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        run_script(&busy_script(level, allow_overlap, jam_release, agents, &tail));
    }
}

#[test]
fn a_busy_script_gives_agents_rails_and_plays_frames() {
    // The property above is only as good as its setup: check it makes a busy world.
    let script = run_script(&busy_script(0, false, false, 12, &[]));
    let world = &script.world;
    assert!(world.len() >= 8, "{} agents", world.len());
    let with_rails = world.agents().filter(|(_, a)| a.rail().is_some()).count();
    assert!(with_rails >= 5, "{with_rails} agents with rails");
    assert!(world.time() > 0.5, "time {}", world.time());
}

#[test]
fn a_busy_script_with_jam_release_releases_agents() {
    // The same for the release path: some agent of a busy world is released within the setup's
    // frames (or has rejoined since: then it walks a rail that does not start at its start).
    for level in 0..4 {
        let script = run_script(&busy_script(level, false, true, 13, &[]));
        let released = script.releases;
        if released > 0 {
            return;
        }
    }
    panic!("no release on any level");
}
