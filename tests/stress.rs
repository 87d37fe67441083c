//! Stress: agents spawned densely in a small room, many of them overlapping at the start (a
//! scenario with `avoidance.allow_overlap`), played for 600 frames through the built-in host. No
//! panic, no NaN, nothing leaves the mesh, and the overlaps shrink or stay. The worst frame time
//! is printed (not asserted: the machine may be busy); see docs/ROBUSTNESS.md. The suite plays
//! 200 agents and the 2,000 (about 80 s in release on the 2-core machine; with the
//! figures: `cargo test --release --test stress -- --nocapture`).

use serde_json::json;
use sidestep::{DVec2, Scenario, Simulation};

/// Agents per square metre of the room (2,000 in 40 m × 40 m).
const DENSITY: f64 = 1.25;
/// Frames played.
const FRAMES: usize = 600;
/// Agent radius, metres.
const RADIUS: f64 = 0.4;

/// SplitMix64, for seeded spawn points in a square room of side `.1`.
struct SplitMix(u64, f64);

impl SplitMix {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A point of the room at least a radius from its walls.
    fn point(&mut self) -> [f64; 2] {
        let span = self.1 - 2.0 * RADIUS;
        [RADIUS + span * self.unit(), RADIUS + span * self.unit()]
    }
}

/// Side of the square room that holds `agents` at [`DENSITY`], metres.
fn room_side(agents: usize) -> f64 {
    (agents as f64 / DENSITY).sqrt()
}

/// The scenario: `agents` placed at random in a square room (with two square pillars, at a
/// quarter and three quarters of its diagonal) at 1.25 agents per m² (about 60% of the floor
/// under a disc, so most touch a neighbour), every tenth one free-steering (ORCA and TTC in
/// turn), the rest on rails to random goals.
fn dense_room(agents: usize, allow_overlap: bool) -> String {
    let side = room_side(agents);
    let mut rng = SplitMix(8, side);
    let pillars = [0.25 * side, 0.75 * side];
    let half = 0.04 * side;
    let agents: Vec<_> = (0..agents)
        .map(|i| {
            let mode = match i % 20 {
                0 => "orca",
                10 => "ttc",
                _ => "rail",
            };
            let (start, goal) = loop {
                let (start, goal) = (rng.point(), rng.point());
                // Keep out of the pillars.
                let clear = |p: [f64; 2]| {
                    pillars.iter().all(|&c| {
                        (p[0] - c).abs() > half + RADIUS || (p[1] - c).abs() > half + RADIUS
                    })
                };
                if clear(start) && clear(goal) {
                    break (start, goal);
                }
            };
            json!({ "start": start, "goal": goal, "radius": RADIUS, "mode": mode })
        })
        .collect();
    let pillar = |c: f64| {
        json!([
            [c - half, c - half],
            [c + half, c - half],
            [c + half, c + half],
            [c - half, c + half]
        ])
    };
    json!({
        "name": "dense-room",
        "level": {
            "name": "small-room",
            "boundary": [[0, 0], [side, 0], [side, side], [0, side]],
            "holes": [pillar(pillars[0]), pillar(pillars[1])]
        },
        "dt": 1.0 / 30.0,
        "duration": FRAMES as f64 / 30.0,
        "avoidance": { "allow_overlap": allow_overlap },
        "agents": agents
    })
    .to_string()
}

/// Sum over pairs of agents of how deep their discs overlap, metres, and the number of pairs
/// that overlap by more than 1% of their radii (a uniform grid of cells one diameter wide).
fn overlaps(positions: &[DVec2], side: f64) -> (f64, usize) {
    let cell = 2.0 * RADIUS;
    let n = (side / cell).ceil() as usize + 1;
    let mut cells: Vec<Vec<usize>> = vec![Vec::new(); n * n];
    let index = |p: DVec2| {
        let x = ((p.x / cell).floor().max(0.0) as usize).min(n - 1);
        let y = ((p.y / cell).floor().max(0.0) as usize).min(n - 1);
        (x, y)
    };
    for (i, &p) in positions.iter().enumerate() {
        let (x, y) = index(p);
        cells[y * n + x].push(i);
    }
    let (mut depth, mut pairs) = (0.0, 0);
    for (i, &p) in positions.iter().enumerate() {
        let (x, y) = index(p);
        for cy in y.saturating_sub(1)..=(y + 1).min(n - 1) {
            for cx in x.saturating_sub(1)..=(x + 1).min(n - 1) {
                for &j in &cells[cy * n + cx] {
                    if j > i {
                        let d = (2.0 * RADIUS - p.distance(positions[j])).max(0.0);
                        depth += d;
                        if d > 0.01 * 2.0 * RADIUS {
                            pairs += 1;
                        }
                    }
                }
            }
        }
    }
    (depth, pairs)
}

#[test]
fn a_dense_overlapping_spawn_is_refused_without_allow_overlap() {
    let e = Scenario::from_json(&dense_room(200, false), "dense-room.json", None).unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("starts overlapping agent")
            && message.ends_with("set avoidance.allow_overlap to allow it"),
        "{message}"
    );
}

#[test]
fn two_hundred_overlapping_agents_in_a_small_room_for_600_frames() {
    play_dense_room(200);
}

#[test]
fn two_thousand_overlapping_agents_in_a_small_room_for_600_frames() {
    play_dense_room(2000);
}

/// Play the dense room of `agents` for [`FRAMES`] frames, checking every frame; print the
/// overlap and frame time figures.
fn play_dense_room(agents: usize) {
    let side = room_side(agents);
    let scenario = Scenario::from_json(&dense_room(agents, true), "dense-room.json", None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scenario.agents.len(), agents);
    assert_eq!(scenario.frames(), FRAMES);
    let level = scenario.level.clone();
    let mesh = level.navmesh();
    let mut sim = Simulation::new(&scenario).unwrap_or_else(|e| panic!("{e}"));
    let positions = |sim: &Simulation| sim.agents().iter().map(|a| a.position).collect::<Vec<_>>();
    let (depth_at_start, pairs_at_start) = overlaps(&positions(&sim), side);
    assert!(
        pairs_at_start > agents / 4,
        "a dense spawn: only {pairs_at_start} overlapping pairs"
    );
    let mut worst_depth = depth_at_start;
    let mut worst_pairs = pairs_at_start;
    while !sim.finished() {
        sim.step();
        let frame = sim.frame();
        for (i, a) in sim.agents().iter().enumerate() {
            assert!(
                a.position.is_finite() && a.s.is_finite() && a.speed.is_finite(),
                "frame {frame}: agent {i} at {} s {} speed {}",
                a.position,
                a.s,
                a.speed
            );
            assert!(
                a.velocity.is_finite(),
                "frame {frame}: agent {i} velocity {}",
                a.velocity
            );
            assert!(
                mesh.contains(a.position),
                "frame {frame}: agent {i} left the mesh at {}",
                a.position
            );
        }
        let (depth, pairs) = overlaps(&positions(&sim), side);
        worst_depth = f64::max(worst_depth, depth);
        worst_pairs = worst_pairs.max(pairs);
    }
    let (depth_at_end, pairs_at_end) = overlaps(&positions(&sim), side);
    let metrics = sim.metrics();
    let timings = sim.avoidance_timings_us();
    let worst_ms = timings.iter().copied().fold(0.0, f64::max) / 1000.0;
    let mean_ms = timings.iter().sum::<f64>() / timings.len() as f64 / 1000.0;
    eprintln!(
        "dense room: {agents} agents in {side:.1} m x {side:.1} m, {FRAMES} frames; overlapping \
         pairs {pairs_at_start} at the start, {pairs_at_end} at the end, {worst_pairs} at most; \
         overlap depth sum {depth_at_start:.1} m at the start, {depth_at_end:.1} m at the end, \
         {worst_depth:.1} m at most; reached {}; avoidance per frame: mean {mean_ms:.1} ms, \
         worst {worst_ms:.1} ms",
        metrics.reached
    );
    assert_eq!(metrics.off_mesh_frames, 0);
    assert!(
        depth_at_end <= depth_at_start,
        "overlap grew: {depth_at_start} m at the start, {depth_at_end} m at the end"
    );
    assert!(
        pairs_at_end <= pairs_at_start,
        "overlapping pairs grew: {pairs_at_start} at the start, {pairs_at_end} at the end"
    );
}
