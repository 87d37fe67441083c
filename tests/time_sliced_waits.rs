//! Time-sliced waits (`AvoidanceConfig::blocked_recheck`, docs/ALGORITHM.md): a queue standing
//! one behind another discharges exactly as when every wait is decided in full.

use sidestep::{AgentState, Scenario, Simulation};

/// Seven agents standing a metre apart on one line in a 40 m hall, each to its own goal ahead,
/// with `blocked_recheck` set to `recheck` seconds.
fn queue(recheck: f64) -> Scenario {
    let agents: Vec<serde_json::Value> = (0..7)
        .map(|k| {
            let x = -10.0 + f64::from(k);
            serde_json::json!({ "start": [x, 0.0], "goal": [12.0 + 2.0 * f64::from(k), 0.0] })
        })
        .collect();
    let json = serde_json::json!({
        "name": "queue",
        "level": {
            "name": "hall",
            "boundary": [[-15.0, -5.0], [30.0, -5.0], [30.0, 5.0], [-15.0, 5.0]]
        },
        "duration": 40.0,
        "avoidance": { "blocked_recheck": recheck },
        "agents": agents
    });
    Scenario::from_json(&json.to_string(), "queue.json", None).unwrap_or_else(|e| panic!("{e}"))
}

/// The frame at which each agent first starts, and the metrics' arrivals.
fn starts(recheck: f64) -> (Vec<Option<usize>>, usize) {
    let mut sim = Simulation::new(&queue(recheck)).expect("a valid scenario");
    let mut first = vec![None; sim.agents().len()];
    while !sim.finished() {
        sim.step();
        for (k, agent) in sim.agents().iter().enumerate() {
            if first[k].is_none() && agent.state() == AgentState::Starting {
                first[k] = Some(sim.frame());
            }
        }
    }
    (first, sim.metrics().reached)
}

#[test]
fn a_queue_discharges_as_it_does_with_every_wait_decided_in_full() {
    let (sliced, sliced_reached) = starts(0.1);
    let (full, full_reached) = starts(0.0);
    assert_eq!(sliced_reached, 7);
    assert_eq!(full_reached, 7);
    assert!(sliced.iter().all(Option::is_some));
    // The front one starts at once, each behind it about 25 frames after the one ahead (the
    // start wave of a queue: a temporary count found 267 repeated waits in the sliced run), and
    // each starts in the same frame as with the full decisions.
    assert_eq!(sliced, full);
}
