//! The built-in host's motion reports are valid: the world never refuses one (a refused report
//! would stop the agent, and the simulation would measure the host's bug, not the avoidance).
//! And its agents are found by their world keys (`Simulation::agent_index`, what the census
//! examples name colliders by).

use sidestep::{Scenario, Simulation};

/// Play `frames` frames of a fixture scenario; the first frame and agent whose report the world
/// refused, if any.
fn first_refused_report(name: &str, frames: usize) -> Option<(usize, usize)> {
    let scenario =
        Scenario::load(format!("fixtures/scenarios/{name}.json")).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&scenario).unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..frames.min(scenario.frames()) {
        sim.step();
        for (i, a) in sim.agents().iter().enumerate() {
            if sim.world().agent(a.key).unwrap().has_invalid_motion() {
                return Some((sim.frame(), i));
            }
        }
    }
    None
}

#[test]
fn a_speed_change_during_the_start_does_not_step_the_agent_back() {
    // arena-200: agent 154 slows down during its start transition at frame 18; the host used to
    // end the transition at the slower speed's distance, behind where the agent already was,
    // and the world refused that report (backwards motion).
    assert_eq!(first_refused_report("arena-200", 60), None);
}

#[test]
fn the_host_makes_no_report_the_world_refuses() {
    for name in [
        "crossroads-4-way",
        "doorway-two-way",
        "mixed-crossing",
        "shared-destination",
    ] {
        assert_eq!(first_refused_report(name, usize::MAX), None, "{name}");
    }
}

#[test]
fn each_agent_is_found_by_its_key_at_its_place_in_the_scenario() {
    let scenario = Scenario::load("fixtures/scenarios/crossroads-4-way.json").unwrap();
    let sim = Simulation::new(&scenario).unwrap();
    for (i, a) in sim.agents().iter().enumerate() {
        assert_eq!(sim.agent_index(a.key), Some(i));
    }
    // A key of another world's agent, from a slot this one never had.
    let mut other =
        sidestep::World::new(scenario.level.clone(), sidestep::AvoidanceConfig::default()).unwrap();
    let mut last = None;
    let starts = sim.agents().iter().map(|a| a.desc.position);
    for position in starts.chain(sim.agents()[0].goal) {
        let desc = sidestep::AgentDesc {
            position,
            ..sidestep::AgentDesc::from_radius(0.4)
        };
        last = Some(other.add_agent(desc).unwrap());
    }
    assert_eq!(sim.agent_index(last.unwrap()), None);
}
