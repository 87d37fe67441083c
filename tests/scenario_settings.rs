//! The avoidance settings a scenario gets: the file's own, and for the ones it leaves out that
//! scale with the agents' size, those for its largest agent.

use sidestep::{AvoidanceConfig, Scenario, MARGIN_RADII};

/// A scenario on an inline 20 m square with two agents of the given radii and `avoidance`
/// (none when null).
fn scenario(radii: [f64; 2], avoidance: serde_json::Value) -> Scenario {
    let mut json = serde_json::json!({
        "name": "settings",
        "level": {
            "name": "square",
            "boundary": [[-10.0, -10.0], [10.0, -10.0], [10.0, 10.0], [-10.0, 10.0]]
        },
        "duration": 1.0,
        "avoidance": avoidance,
        "agents": [
            { "start": [-5.0, 0.0], "goal": [5.0, 0.0], "radius": radii[0] },
            { "start": [-5.0, 3.0], "goal": [5.0, 3.0], "radius": radii[1] }
        ]
    });
    if avoidance.is_null() {
        json.as_object_mut().unwrap().remove("avoidance");
    }
    Scenario::from_json(&json.to_string(), "settings.json", None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_defaults_are_those_for_the_default_radius() {
    assert_eq!(
        AvoidanceConfig::from_agent_radius(0.4),
        AvoidanceConfig::default()
    );
    assert_eq!(AvoidanceConfig::default().margin, 0.05);
}

#[test]
fn the_margin_scales_with_the_radius_up_to_its_range() {
    let small = AvoidanceConfig::from_agent_radius(0.19);
    assert_eq!(small.margin, MARGIN_RADII * 0.19);
    assert_eq!(small.orca.neighbour_distance, 1.9);
    assert_eq!(small.horizon, AvoidanceConfig::default().horizon);
    assert_eq!(AvoidanceConfig::from_agent_radius(20.0).margin, 1.0);
    assert!(AvoidanceConfig::from_agent_radius(20.0).validate().is_ok());
}

#[test]
fn a_scenario_leaving_the_margin_out_gets_the_one_for_its_largest_agent() {
    let s = scenario([0.19, 0.25], serde_json::json!({ "horizon": 3.0 }));
    assert_eq!(s.avoidance.margin, MARGIN_RADII * 0.25);
    assert_eq!(s.avoidance.orca.neighbour_distance, 2.5);
    assert_eq!(s.avoidance.horizon, 3.0);
    // No `avoidance` object at all.
    let s = scenario([0.19, 0.19], serde_json::Value::Null);
    assert_eq!(s.avoidance.margin, MARGIN_RADII * 0.19);
    // Agents of the default size get the defaults.
    let s = scenario([0.4, 0.4], serde_json::json!({}));
    assert_eq!(s.avoidance, AvoidanceConfig::default());
}

#[test]
fn a_margin_the_scenario_gives_is_kept_even_at_its_default_value() {
    let s = scenario(
        [0.19, 0.19],
        serde_json::json!({ "margin": 0.05, "orca": { "neighbour_distance": 4.0 } }),
    );
    assert_eq!(s.avoidance.margin, 0.05);
    assert_eq!(s.avoidance.orca.neighbour_distance, 4.0);
}
