//! The fixture scenarios end to end: quality bars (DESIGN §7, issue 3), insta snapshots of their
//! metrics and order logs, and determinism.

use serde_json::{json, Value};
use sidestep::{Order, Scenario, Simulation, StopCause};

/// Scenarios in which every agent must reach its goal (the others need path rewriting).
const MUST_FINISH: [&str; 6] = [
    "crossing",
    "overtake",
    "follow",
    "crossroads-4-way",
    "l-corner",
    "start-query",
];

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
        Order::Stop { cause } => match cause {
            StopCause::Collision(_) => "stop".to_string(),
            StopCause::Unavoidable(_) => "stop (unavoidable)".to_string(),
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
        let sim = play(path);
        let m = sim.metrics();
        let name = m.scenario.clone();
        assert_eq!(m.collisions, 0, "{name}: collisions");
        assert_eq!(m.off_mesh_frames, 0, "{name}: off-mesh frames");
        assert_eq!(m.order_flips, 0, "{name}: order flips");
        if MUST_FINISH.contains(&name.as_str()) {
            assert_eq!(
                m.reached, m.agents,
                "{name}: every agent must reach its goal"
            );
        }
        insta::assert_json_snapshot!(summary(&sim));
        seen += 1;
    });
    assert!(
        seen >= 9,
        "expected the nine fixture scenarios, found {seen}"
    );
}

#[test]
fn runs_are_deterministic() {
    for name in ["crossroads-4-way", "doorway-two-way"] {
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
fn the_stopped_agents_of_the_blocked_scenarios_wait_instead_of_colliding() {
    // head-on, stationary-blocker, doorway-two-way cannot finish without a path rewrite:
    // their agents must have stopped (and not have walked through each other).
    for name in ["head-on", "stationary-blocker", "doorway-two-way"] {
        let sim = play(std::path::Path::new(&format!(
            "fixtures/scenarios/{name}.json"
        )));
        let m = sim.metrics();
        assert!(
            m.orders.stop >= 1,
            "{name}: expected stops, got {:?}",
            m.orders
        );
        assert_eq!(m.collisions, 0, "{name}");
    }
}
