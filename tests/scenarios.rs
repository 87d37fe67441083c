//! The fixture scenarios end to end: quality bars (DESIGN §7, issue 3), insta snapshots of their
//! metrics and order logs, and determinism.

mod common;

use serde_json::{json, Value};
use sidestep::{Order, RerouteReason, Scenario, Simulation, StopCause};

/// Crowd scenarios of issue 4 where not every agent arrives yet. They must still have no
/// collisions and no off-mesh frames.
///
/// `tradeshow-300` left this list in session 15 (300 of 300, 292 before), when fresh speed
/// changes began to hold while the collision leaves time and a bend or detour taken standing
/// stopped resetting the deadlock clock (docs/ALGORITHM.md, "Trivial resolution"); over 24
/// runs with the starts jittered by a centimetre, 7,166 of 7,200 (7,133 before). It had joined
/// in session 11 (297 of 300), and fell to 283 with session 12's start and door rules.
/// `doorway-crowd` left this list in session 12: 20 of 20 (18 before; jittered, 426 of 480,
/// 383 before). `tradeshow-300-jittered` joined in session 30 (293 of 300 by the end, 300 by
/// 150 s before: a slow crowd, its waits broken, seven agents late; 290 with the room to stop
/// that came after), when a slow-down began to
/// leave a follower room to stop and the sweep against a standing agent began to follow fixed
/// chords; over the crowds with jittered starts the arrivals did not fall: tradeshow-300 3,591
/// → 3,599 of 3,600 (12 runs) and 7,135 → 7,152 of 7,200 (seeds 12–35), random crowds of 20,
/// 3,144 → 3,147 of 3,960 (docs/ROBUSTNESS.md, session 30). Session 31: 299 with the lane
/// bends, then 286 without the inflation against agents standing and with stops predicted as
/// played (a jam in an aisle holds the rest), while the jittered measures rose (seeds 12–35
/// 7,157 → 7,184, random crowds 3,155 → 3,343; docs/ROBUSTNESS.md, session 31). Session 33:
/// left turns kept wide (docs/ALGORITHM.md, "Lanes") freed the aisle: 300 of 300 (the list is
/// empty, kept for the crowds to come). Session 34: no change that can wait a frame across a
/// fresh speed-up behind (docs/ALGORITHM.md, "Trivial resolution") left doorway-crowd's last
/// agent at the door at 120 s (19 of 20); the turns through a single-lane stretch given to a
/// side, not to one agent (docs/ALGORITHM.md, "Single-lane stretches"), brought it back to 20.
const NOT_YET_FINISHING: [&str; 0] = [];

/// Crowds where every agent arrives, but some orders still flip (see their snapshots).
/// `arena-200` is issue 7's: 200 agents from the MovingAI arena queries (docs/PERFORMANCE.md,
/// "Real levels"). `tradeshow-300` joined in session 9: 300 agents of radius 0.19 m at random on
/// the tradeshow mesh (docs/ALGORITHM.md, "Making way"). `arena-200-jittered` (session 11):
/// arena-200 with its starts moved by up to a centimetre, the run that had a contact
/// (fixtures/README.md). `corridor-two-way` (session 7) and `bottleneck` left this list in
/// session 11, when returns to speed were decided after the rest of the frame
/// (docs/ALGORITHM.md, "The frame"): each had one flip, a return to speed taken back.
/// `doorway-crowd` joined in session 12, when all its agents arrived. Session 15's holds of
/// fresh speed changes and starts (docs/ALGORITHM.md, "Trivial resolution", rule 5) took
/// arena-200 (10 flips before), circle-rail (1) and doorway-crowd (3) to none, and out of this
/// list; arena-200-jittered 22 → 3, tradeshow-300 35 → 6. Session 19's bends of fresh speed-ups
/// and starts that cannot hold took tradeshow-300 (5 flips) out of this list, arena-200-jittered
/// 3 → 1; `tradeshow-300-jittered` (session 19): tradeshow-300 with its starts moved by up to a
/// centimetre (seed 45), the run that had a contact (fixtures/README.md). Session 26's bends
/// instead of waits against a walker coming through the spot of the stop took
/// tradeshow-300-jittered (4 flips) out of this list, and brought in circle-rail (1: a start
/// taken back 0.23 s in, for a graze of the margins) and tradeshow-300 (2); over 12 jittered
/// runs of each crowd fixture the flips summed 28 before and 33 after (docs/ROBUSTNESS.md,
/// session 26). Session 27's taut detours around a stander brought tradeshow-300-jittered back
/// (1: a start taken back 0.20 s in, when a walker beside it stopped for a third agent; no
/// agent of that flip took such a detour); over 12 jittered runs of each crowd fixture the
/// flips summed 33 before and 35 after (docs/ROBUSTNESS.md, session 27). Session 28's stop
/// check at even deceleration took tradeshow-300-jittered out again; over 12 jittered runs the
/// flips summed 35 before and 38 after (docs/ROBUSTNESS.md, session 28). Session 30's room for
/// a follower's stop and the sweep's fixed chords took circle-rail out (1 → 0) and brought
/// tradeshow-300-jittered back (3); over 12 jittered runs of each crowd fixture the flips summed
/// 33 before and 36 after (docs/ROBUSTNESS.md, session 30).
/// Session 32: no speed-up behind an agent's fresh start or speed-up took tradeshow-300 out
/// (1 → 0), tradeshow-300-jittered 2 → 1 (docs/ROBUSTNESS.md, session 32). Session 33's left
/// turns kept wide brought arena-200 (1: a speed-up answered by the collider's slow-down a
/// frame earlier) and tradeshow-300 (1: a speed-up to 2.6 m/s slowed by the follow rule 0.4 s
/// later) back, and tradeshow-300-jittered 1 → 3; over 12 jittered runs of the crowd fixtures
/// the flips summed 34 before and 32 after (docs/ROBUSTNESS.md, session 33). Session 34: no
/// slow-down, stop or bend that can wait a frame across the way of a walker with a fresh
/// start or speed-up, and the walkers whose rails turn toward an agent counted as behind it,
/// took all four out (the list is empty, kept for the crowds to come); over 12 jittered runs
/// of the crowd fixtures the flips summed 32 before and 6 after (docs/ROBUSTNESS.md,
/// session 34).
const FLIPPING: [&str; 0] = [];

/// Crowds where every agent arrives, but the mean travel time ratio is above 1.5 (see their
/// snapshots): a door or a corridor lets them through a few at a time. `corridor-two-way`: with
/// starts toward agents standing far ahead (session 7) its streams no longer end in a standoff
/// in jittered runs (16 → 246 of 256 arrivals, docs/ROBUSTNESS.md), but take a long time
/// (ratio 2.23, 1.78 since session 31's lanes beside a wall, docs/ALGORITHM.md step 6b); it
/// left this list in session 32, when planned rails began to keep right in two-way corridors
/// (1.04; docs/ALGORITHM.md, "Lanes"). `doorway-crowd` (session 12): twenty agents through one
/// door both ways, 6.9 (3.3 since session 34's turns by side and waits further back from a
/// file; 2.9 since session 35). `tradeshow-300` and `tradeshow-300-jittered` left it in
/// session 33, when planned rails began to keep their left turns wide (1.65 → 1.47 and 1.98 →
/// 1.49; docs/ALGORITHM.md, "Lanes"); they stayed under 1.5 in sessions 34 (1.44, 1.48) and 35
/// (1.42, 1.42). `circle-rail-24` (session 36): twenty-four 0.3 m agents to the antipodes, 2.04,
/// in for its flip (a speed-up the room-to-stop rule took back; docs/ALGORITHM.md, "Trivial
/// resolution", step 1). `shared-destination-block` (session 37): fourteen agents sent at once
/// from a block to one point, 1.86, in for its last agent, which bent round the crowd at the
/// point for 27 s and did not arrive (docs/ALGORITHM.md, "Shared destinations"); it left the
/// list in session 39 (1.40), when moved spots began to keep out of the way of the agents
/// arriving later. `shared-destination-circle-coarse` (session 39): twenty agents sent 0.2 s apart from a
/// circle to its centre at a 0.1 s step, 1.65, in for its contact before the sealed goal's way
/// was swept (docs/ROBUSTNESS.md, session 39). `corridor-3m-random` (session 39): ten agents
/// placed at random in the 3 m corridor, 1.62, in for the three that did not arrive before the
/// lanes beside a make-way spot were kept clear of agents with nowhere to go.
/// `passage-two-way` (session 48): ten agents in each of two rooms crossing to the other through
/// a 3 m passage, 2.67; the two streams take the passage in turns, as at a door (before, 17 of
/// 20 arrived in 120 s, ratio 6.41: docs/ALGORITHM.md, "Single-lane stretches").
const SLOW: [&str; 9] = [
    "arena-200",
    "arena-200-jittered",
    "bottleneck",
    "circle-rail",
    "circle-rail-24",
    "corridor-3m-random",
    "doorway-crowd",
    "passage-two-way",
    "shared-destination-circle-coarse",
];

/// Two-way streams through room for one lane and a half: every agent arrives, without flips,
/// but the streams take turns, so the mean travel time ratio is above the 1.5 of the other
/// fixtures (3.3 in doorway-two-way; see its snapshot). In `long-corridor-head-on` (session
/// 17) the agent that yields backs out of a 20 m one-lane corridor and comes back through it:
/// 1.64. In `narrow-alcove-1m-head-on` (session 27) the one that yields walks 2.5 m back into
/// a 1 m alcove and waits there for the other to pass: 1.75. Session 32's turns through
/// single-lane stretches (docs/ALGORITHM.md) took those two out (1.48 and 1.36: the second agent
/// waits outside, or in the alcove, before the other comes) and doorway-two-way to 1.64
/// (1.53 at session 34's end: an agent waiting its turn no longer steps aside for one of its
/// own side waiting on it for the same turn). doorway-two-way left it in session 35 (1.45): a
/// walker in the door no longer slows for an agent waiting at the far end for its side to come
/// through, but bends round it (docs/ALGORITHM.md, "Trivial resolution", step 1).
const TAKING_TURNS: [&str; 0] = [];

/// Fixture scenarios too large to play in the test suite (minutes on a slow machine); their
/// figures are in docs/PERFORMANCE.md, "Real levels".
const NOT_IN_TESTS: [&str; 1] = ["tradeshow-1000"];

/// Scenarios of free-steering agents only (issue 5): the reference ORCA library's examples.
/// Their bar is the issue's: nothing off the mesh, penetration at most 5% of the radii sum,
/// every agent arrives (contacts under 5% are allowed, as ORCA in discrete steps makes them).
const VELOCITY_SPACE: [&str; 2] = ["rvo2-circle", "rvo2-blocks"];

/// Of those, the ones that do not meet that bar yet (not every agent arrives): none since free
/// agents skip corners they were pushed past and keep right at corners (`rvo2-blocks`: 73, then
/// 96, now 100 of 100 in the 1,200 s; docs/PERFORMANCE.md, "Free-steering agents").
const VELOCITY_SPACE_NOT_YET: [&str; 0] = [];

fn round(v: f64, places: i32) -> f64 {
    let k = 10f64.powi(places);
    (v * k).round() / k
}

fn play(path: &std::path::Path) -> Simulation {
    let scenario = Scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&scenario).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    while !sim.finished() {
        sim.step();
    }
    sim
}

fn order_line(frame: usize, agent: usize, order: &Order) -> String {
    let what = match order {
        Order::Continue => "continue".to_string(),
        Order::ChangeSpeed { speed } => format!("speed {speed}"),
        Order::Start { speed } => format!("start {speed}"),
        Order::Wait { .. } => "wait".to_string(),
        Order::Reroute { reroute, .. } => format!(
            "reroute {:?} {:?} via ({:.3}, {:.3})",
            reroute.reason, reroute.side, reroute.via.x, reroute.via.y
        ),
        Order::Release { goal } => format!("release to ({:.3}, {:.3})", goal.x, goal.y),
        Order::Rejoin { speed, .. } => format!("rejoin {speed}"),
        Order::Stop { cause } => match cause {
            StopCause::Collision(_) => "stop".to_string(),
            StopCause::Unavoidable(_) => "stop (unavoidable)".to_string(),
            StopCause::Passage { .. } => "stop (passage)".to_string(),
            StopCause::InvalidMotion => "stop (invalid motion)".to_string(),
        },
    };
    format!("frame {frame} agent {agent}: {what}")
}

fn summary(sim: &Simulation) -> Value {
    let m = sim.metrics();
    let positions: Vec<Value> = sim
        .agents()
        .iter()
        .map(|a| json!([round(a.position.x, 3), round(a.position.y, 3)]))
        .collect();
    json!({
        "scenario": m.scenario,
        "agents": m.agents,
        "frames": m.frames,
        "reached": m.reached,
        "collisions": m.collisions,
        "max_penetration": round(m.max_penetration, 3),
        "off_mesh_frames": m.off_mesh_frames,
        "travel_time_ratio": round(m.travel_time_ratio, 3),
        "orders": m.orders,
        "order_flips": m.order_flips,
        "final_positions": positions,
        "order_log": sim.log.iter().map(|r| order_line(r.frame, r.agent, &r.order)).collect::<Vec<_>>(),
    })
}

#[test]
fn fixture_scenarios_meet_the_quality_bars() {
    let mut seen = 0;
    insta::glob!("../fixtures/scenarios", "*.json", |path| {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if NOT_IN_TESTS.contains(&stem) {
            return;
        }
        let sim = play(path);
        let m = sim.metrics();
        let name = m.scenario.clone();
        assert_eq!(m.off_mesh_frames, 0, "{name}: off-mesh frames");
        // The flip log names exactly the orders the metric counted.
        assert_eq!(sim.flip_log.len() as u64, m.order_flips, "{name}: flip log");
        assert!(sim.flip_log.iter().all(|&k| k < sim.log.len()), "{name}");
        let with_goals = sim.agents().iter().filter(|a| a.goal.is_some()).count();
        if VELOCITY_SPACE.contains(&name.as_str()) {
            assert!(
                m.max_penetration <= 0.05,
                "{name}: penetration {}",
                m.max_penetration
            );
            if !VELOCITY_SPACE_NOT_YET.contains(&name.as_str()) {
                assert_eq!(m.reached, with_goals, "{name}: every agent must arrive");
            }
            insta::assert_json_snapshot!(summary(&sim));
            seen += 1;
            return;
        }
        assert_eq!(m.collisions, 0, "{name}: collisions");
        if !NOT_YET_FINISHING.contains(&name.as_str()) {
            assert_eq!(
                m.reached, with_goals,
                "{name}: every agent with a goal must reach it"
            );
            let flipping = FLIPPING.contains(&name.as_str());
            if !flipping {
                assert_eq!(m.order_flips, 0, "{name}: order flips");
            }
            if !SLOW.contains(&name.as_str()) && !TAKING_TURNS.contains(&name.as_str()) {
                assert!(
                    m.travel_time_ratio <= 1.5,
                    "{name}: mean travel time ratio {}",
                    m.travel_time_ratio
                );
            }
        }
        no_detour_again_at_once(&sim, &name);
        insta::assert_json_snapshot!(summary(&sim));
        seen += 1;
    });
    assert!(
        seen >= 20,
        "expected the twenty fixture scenarios played in tests, found {seen}"
    );
}

/// A detour waits the bend retry time (0.5 s) before the agent looks for another: in arena-200
/// an agent whose detour's start waited on agents moving on found the same detour again every
/// frame, for 4 s.
fn no_detour_again_at_once(sim: &Simulation, name: &str) {
    let mut last = std::collections::HashMap::new();
    for record in &sim.log {
        if let Order::Reroute { reroute, .. } = &record.order {
            if reroute.reason == RerouteReason::Detour {
                if let Some(&t) = last.get(&record.agent) {
                    assert!(
                        record.time - t >= 0.5 - 1e-9,
                        "{name}: agent {} detoured at {t:.3} s and again at {:.3} s",
                        record.agent,
                        record.time
                    );
                }
                last.insert(record.agent, record.time);
            }
        }
    }
}

#[test]
fn runs_are_deterministic() {
    for name in [
        "crossroads-4-way",
        "doorway-two-way",
        "mixed-crossing",
        "ttc-crossing",
    ] {
        let path = std::path::PathBuf::from(format!("fixtures/scenarios/{name}.json"));
        let a = play(&path);
        let b = play(&path);
        assert_eq!(a.log, b.log, "{name}: order logs differ");
        let pa: Vec<_> = a
            .agents()
            .iter()
            .map(|x| (x.position.x.to_bits(), x.position.y.to_bits()))
            .collect();
        let pb: Vec<_> = b
            .agents()
            .iter()
            .map(|x| (x.position.x.to_bits(), x.position.y.to_bits()))
            .collect();
        assert_eq!(pa, pb, "{name}: final positions differ");
    }
}

#[test]
fn head_on_and_standing_blockers_are_passed_by_bending_the_rail() {
    // Speeds cannot solve these (chapter 22.4): the rail must be rewritten, and the agents
    // must arrive without touching. The rails are planned on the taut line (no lanes: in
    // head-on's 2.4 m corridor, rails keeping right pass each other, `rails_keeping_right_pass_
    // head_on_in_a_corridor`).
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
    for name in ["head-on", "stationary-blocker"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let mut file: Value = serde_json::from_str(&text).unwrap();
        file["avoidance"] = json!({ "keep_right_radii": 0.0 });
        let scenario = Scenario::from_json(&file.to_string(), name, Some(&dir)).unwrap();
        let mut sim = Simulation::new(&scenario).unwrap();
        while !sim.finished() {
            sim.step();
        }
        let m = sim.metrics();
        assert!(
            m.orders.reroute >= 1,
            "{name}: expected a reroute, got {:?}",
            m.orders
        );
        assert_eq!(m.collisions, 0, "{name}");
        let with_goals = sim.agents().iter().filter(|a| a.goal.is_some()).count();
        assert_eq!(m.reached, with_goals, "{name}");
    }
}

#[test]
fn rails_keeping_right_pass_head_on_in_a_corridor() {
    // head-on: two agents on the middle line of a 2.4 m corridor, going opposite ways. Their
    // rails keep right (docs/ALGORITHM.md, "Lanes"): 0.6 m right of the middle, 1.2 m apart,
    // clear of both radii and margins (0.9 m); no order is needed.
    let sim = play(std::path::Path::new("fixtures/scenarios/head-on.json"));
    let m = sim.metrics();
    assert_eq!(
        (m.orders.reroute, m.orders.stop, m.orders.speed_change),
        (0, 0, 0)
    );
    assert_eq!((m.reached, m.collisions), (2, 0));
    for agent in sim.agents() {
        let rail = agent.rail.as_ref().unwrap();
        let middle = rail.position(0.5 * rail.length());
        assert!((middle.y - 1.2).abs() > 0.59, "{middle}");
    }
}

/// The crowds with every start moved by up to a centimetre (seeded): the outcome of a crowd is
/// chaotic, so the fixtures alone can hide a rule that lets agents touch in a neighbouring run
/// (it did: arena-200 had contacts in two of six jittered runs before the sweep's front test
/// looked round curves). Safety must hold in every run: no collisions, nothing off the mesh.
#[test]
fn jittered_crowds_never_collide() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
    for name in ["bottleneck", "circle-rail", "doorway-crowd", "arena-200"] {
        let path = dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        for seed in 1..=3u64 {
            let mut file: Value = serde_json::from_str(&text).unwrap();
            let mut rng = common::SplitMix(seed);
            // Up to a centimetre either way.
            let mut jitter = || 0.02 * rng.unit() - 0.01;
            for agent in file["agents"].as_array_mut().unwrap() {
                let start = agent["start"].as_array_mut().unwrap();
                for c in start.iter_mut() {
                    *c = json!(c.as_f64().unwrap() + jitter());
                }
            }
            let scenario =
                Scenario::from_json(&file.to_string(), name, Some(&dir)).unwrap_or_else(|e| {
                    panic!("{name} seed {seed}: {e}");
                });
            let mut sim = Simulation::new(&scenario).unwrap();
            while !sim.finished() {
                sim.step();
            }
            let m = sim.metrics();
            assert_eq!(m.collisions, 0, "{name} seed {seed}: collisions");
            assert_eq!(m.off_mesh_frames, 0, "{name} seed {seed}: off-mesh frames");
        }
    }
}

/// Two agents head-on in a corridor too narrow for either to keep out of the other's way
/// alone (0.4 m agents: 1.8 and 2 m wide), their lines a little apart. The collision is not
/// head-on by the chapter's 10° (the collider's centre is 13° and more off the direction of
/// travel at the contact), so each took waiting for the other as the cure: both stopped, face
/// to face, each standing in the middle of the other's way, and neither arrived (session 26;
/// `python3 tools/variant_scenarios.py BIN --only headon_W`). Waiting does not help against a
/// walker coming the other way whose rail runs through where the agent would stand: they bend.
#[test]
fn offset_head_on_walkers_in_a_narrow_corridor_bend_instead_of_waiting_for_each_other() {
    // (corridor width, first agent's line, second agent's line, first speed, second speed)
    let cases = [
        (1.8, 1.0, 0.8, 1.4, 1.4),
        (1.8, 0.7, 1.1, 1.4, 1.4),
        (1.8, 1.0, 0.8, 2.6, 0.8),
        (2.0, 1.1, 0.9, 2.6, 0.8),
    ];
    for (width, y0, y1, v0, v1) in cases {
        let name = format!("head-on W{width} y {y0} / {y1} at {v0} / {v1} m/s");
        let agent = |from: f64, to: f64, y: f64, speed: f64| {
            json!({
                "start": [from, y], "goal": [to, y], "radius": 0.4,
                "speeds": [0.8, 1.4, 2.6], "speed": speed, "mode": "rail"
            })
        };
        let file = json!({
            "name": name,
            "level": {"name": "corridor", "boundary": [[0, 0], [30, 0], [30, width], [0, width]]},
            "dt": 1.0 / 30.0,
            "duration": 60.0,
            "agents": [agent(2.0, 28.0, y0, v0), agent(28.0, 2.0, y1, v1)],
        });
        assert_pair_arrives_cleanly(&file, &name);
    }
}

/// A slow walker arrives at its goal in the middle of a 2.4 m corridor, a metre short of the
/// goal of the faster 0.4 m agent following it, which cannot pass a 0.8 m body there. No spot
/// in the corridor keeps out of the follower's way, so the arrived agent, asked to make way,
/// found none and the follower stood behind it to the end (session 26; `python3
/// tools/variant_scenarios.py BIN --only overtake`). It now steps to the wall, where the
/// follower passes it on a lane beside it, and goes back.
#[test]
fn an_arrived_agent_in_a_corridor_steps_to_the_wall_for_an_agent_going_past_it() {
    for (name, y) in [("centred", 1.2), ("off-centre", 1.0)] {
        let agent = |from: f64, to: f64, speeds: Value, speed: f64| {
            json!({
                "start": [from, y], "goal": [to, y], "radius": 0.4,
                "speeds": speeds, "speed": speed, "mode": "rail"
            })
        };
        let file = json!({
            "name": name,
            "level": {"name": "corridor", "boundary": [[0, 0], [30, 0], [30, 2.4], [0, 2.4]]},
            "dt": 1.0 / 30.0,
            "duration": 60.0,
            "agents": [
                agent(5.0, 28.0, json!([0.8]), 0.8),
                agent(1.0, 29.0, json!([0.8, 1.4, 2.6]), 2.6),
            ],
        });
        assert_pair_arrives_cleanly(&file, name);
    }
}

/// Play the scenario `file` (two agents) and check the bars of issue 4: both arrive, no
/// collision, nothing off the mesh, no flip.
fn assert_pair_arrives_cleanly(file: &Value, name: &str) {
    let scenario = Scenario::from_json(&file.to_string(), name, None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut sim = Simulation::new(&scenario).unwrap_or_else(|e| panic!("{name}: {e}"));
    while !sim.finished() {
        sim.step();
    }
    let m = sim.metrics();
    assert_eq!(m.reached, 2, "{name}: arrivals ({:?})", m.orders);
    assert_eq!(m.collisions, 0, "{name}: collisions");
    assert_eq!(m.off_mesh_frames, 0, "{name}: off-mesh frames");
    assert_eq!(m.order_flips, 0, "{name}: flips");
}
