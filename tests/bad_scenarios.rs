//! Every class of bad scenario input is refused with a message naming the file, the scenario, the
//! item and the problem (DESIGN §5); `sidestep run` turns it into exit status 2, and prints its
//! metrics as exactly one JSON object with `--json`.

use std::path::Path;
use std::process::Command;

use sidestep::{Scenario, ScenarioError, Simulation};

/// How a fixture's message is checked.
enum Expect {
    /// The whole message.
    Exact(&'static str),
    /// The beginning of the message (the rest comes from the operating system).
    Prefix(&'static str),
}
use Expect::{Exact, Prefix};

/// Which [`ScenarioError`] variant a fixture gives.
#[derive(Debug, PartialEq)]
enum Kind {
    Parse,
    Invalid,
    Level,
}

fn kind(e: &ScenarioError) -> Option<Kind> {
    match e {
        ScenarioError::Parse { .. } => Some(Kind::Parse),
        ScenarioError::Invalid { .. } => Some(Kind::Invalid),
        ScenarioError::Level { .. } | ScenarioError::InlineLevel { .. } => Some(Kind::Level),
        _ => None,
    }
}

/// (fixture in `fixtures/bad-scenarios/`, the variant, the message expected).
const CASES: &[(&str, Kind, Expect)] = &[
    ("not-json", Kind::Parse, Exact("fixtures/bad-scenarios/not-json.json: not a valid scenario (line 3, column 0): EOF while parsing a list")),
    ("unknown-field", Kind::Parse, Exact("fixtures/bad-scenarios/unknown-field.json: not a valid scenario (line 1, column 80): unknown field `agnets`, expected one of `name`, `level`, `dt`, `duration`, `seed`, `avoidance`, `agents`")),
    ("unknown-agent-field", Kind::Parse, Exact("fixtures/bad-scenarios/unknown-agent-field.json: not a valid scenario (line 2, column 48): unknown field `raduis`, expected one of `start`, `goal`, `radius`, `speeds`, `speed`, `depart`, `mode`, `stopping`, `start_transition`, `follow_gap`, `priority`, `group`")),
    ("unknown-avoidance-field", Kind::Parse, Exact("fixtures/bad-scenarios/unknown-avoidance-field.json: not a valid scenario (line 1, column 105): unknown field `horizn`, expected one of `horizon`, `margin`, `head_on_degrees`, `commitment`, `reversal_hold`, `avoidance_radii`, `min_avoidance_radii`, `reconnect_degrees`, `reroute_side_hold`, `deadlock_time`, `blocked_recheck`, `resume_inflation`, `follow_degrees`, `cell_size`, `allow_overlap`, `single_lane_turns`, `keep_right_radii`, `jam_release`, `release_turn_degrees`, `exit_right_of_way`, `orca`, `ttc`")),
    ("wrong-type", Kind::Parse, Exact("fixtures/bad-scenarios/wrong-type.json: not a valid scenario (line 1, column 82): invalid type: string \"ten\", expected f64")),
    ("missing-duration", Kind::Parse, Exact("fixtures/bad-scenarios/missing-duration.json: not a valid scenario (line 1, column 77): missing field `duration`")),
    ("dt-zero", Kind::Invalid, Exact("fixtures/bad-scenarios/dt-zero.json: scenario `frozen`: dt: 0 must be in (0, 1] seconds")),
    ("radius-zero", Kind::Invalid, Exact("fixtures/bad-scenarios/radius-zero.json: scenario `point-agent`: agent 1: radius 0 must be a finite number of metres > 0")),
    ("radius-negative", Kind::Invalid, Exact("fixtures/bad-scenarios/radius-negative.json: scenario `inside-out`: agent 0: radius -0.4 must be a finite number of metres > 0")),
    ("empty-speeds", Kind::Invalid, Exact("fixtures/bad-scenarios/empty-speeds.json: scenario `no-speeds`: agent 0: the speed set `speeds` is empty")),
    ("speed-not-in-speeds", Kind::Invalid, Exact("fixtures/bad-scenarios/speed-not-in-speeds.json: scenario `odd-speed`: agent 0: speed 1 is not one of `speeds` [0.8, 1.4, 2.6]")),
    ("start-off-mesh", Kind::Invalid, Exact("fixtures/bad-scenarios/start-off-mesh.json: scenario `start-outside`: agent 1: start (-3, 15) is not on the navmesh")),
    ("goal-off-mesh", Kind::Invalid, Exact("fixtures/bad-scenarios/goal-off-mesh.json: scenario `goal-outside`: agent 0: goal (35, 15) is not on the navmesh")),
    ("overlapping-agents", Kind::Invalid, Exact("fixtures/bad-scenarios/overlapping-agents.json: scenario `crowded`: agent 1: starts overlapping agent 0 (centres 0.500 m apart, radii sum 0.800 m); set avoidance.allow_overlap to allow it")),
    ("unreachable-goal", Kind::Invalid, Exact("fixtures/bad-scenarios/unreachable-goal.json: scenario `islands`: agent 0: no rail from start to goal: the goal (12, 2) is on another island of the navmesh than the start (2, 2)")),
    ("rail-without-goal", Kind::Invalid, Exact("fixtures/bad-scenarios/rail-without-goal.json: scenario `aimless`: agent 0: a rail agent needs a `goal`")),
    ("orca-without-goal", Kind::Invalid, Exact("fixtures/bad-scenarios/orca-without-goal.json: scenario `free-steering`: agent 0: a free-steering agent needs a `goal`")),
    ("orca-substeps-zero", Kind::Invalid, Exact("fixtures/bad-scenarios/orca-substeps-zero.json: scenario `no-substeps`: avoidance: avoidance.orca.substeps = 0 is out of range [1, 64]")),
    ("zero-length-rail", Kind::Invalid, Exact("fixtures/bad-scenarios/zero-length-rail.json: scenario `going-nowhere`: agent 0: goal (5, 15) is its start, and a rail cannot have zero length; give a goal elsewhere, or mode `stationary` for an agent that stays")),
    ("number-out-of-range", Kind::Parse, Exact("fixtures/bad-scenarios/number-out-of-range.json: not a valid scenario (line 2, column 22): number out of range")),
    ("unknown-mode", Kind::Parse, Exact("fixtures/bad-scenarios/unknown-mode.json: not a valid scenario (line 2, column 53): unknown variant `fly`, expected one of `rail`, `orca`, `ttc`, `stationary`")),
    ("missing-agent-start", Kind::Parse, Exact("fixtures/bad-scenarios/missing-agent-start.json: not a valid scenario (line 2, column 22): missing field `start`")),
    ("speed-negative", Kind::Invalid, Exact("fixtures/bad-scenarios/speed-negative.json: scenario `backwards`: agent 0: speed -0.8 in `speeds` must be a finite number > 0")),
    ("empty-inline-level", Kind::Level, Exact("fixtures/bad-scenarios/empty-inline-level.json: level: level `no-polygons`: level has no polygons (`polygons` is empty), so nothing is walkable")),
    ("missing-level", Kind::Level, Prefix("fixtures/bad-scenarios/missing-level.json: level: fixtures/bad-scenarios/../levels/no-such-level.json: cannot read the level file: ")),
    // The level error names the scenario file (its origin is `FILE: level`).
    ("invalid-inline-level", Kind::Level, Exact("fixtures/bad-scenarios/invalid-inline-level.json: level: level `bow-tie`: boundary edge 0 crosses edge 2")),
];

#[test]
fn every_bad_scenario_fixture_gives_its_message() {
    let mut failures = Vec::new();
    for (name, want_kind, expected) in CASES {
        let path = format!("fixtures/bad-scenarios/{name}.json");
        let e = match Scenario::load(&path) {
            Ok(_) => {
                failures.push(format!("{name}: loaded, expected an error"));
                continue;
            }
            Err(e) => e,
        };
        let got = e.to_string();
        let ok = match expected {
            Exact(text) => got == *text,
            Prefix(text) => got.starts_with(text),
        };
        if !ok {
            let text = match expected {
                Exact(t) | Prefix(t) => t,
            };
            failures.push(format!("{name}:\n  got      {got}\n  expected {text}"));
        }
        if kind(&e).as_ref() != Some(want_kind) {
            failures.push(format!("{name}: expected a {want_kind:?} error, got {e:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn cli_exits_2_with_the_message_for_every_bad_scenario_fixture() {
    let mut failures = Vec::new();
    for (name, _, expected) in CASES {
        let out = sidestep(&[
            "run",
            &format!("fixtures/bad-scenarios/{name}.json"),
            "--json",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr.trim_end().strip_prefix("sidestep: ").unwrap_or("");
        let ok = match expected {
            Exact(text) => message == *text,
            Prefix(text) => message.starts_with(text),
        };
        if out.status.code() != Some(2) || !ok || !out.stdout.is_empty() {
            failures.push(format!("{name}: exit {:?}, stderr {stderr}", out.status));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// JSON cannot spell NaN or infinity (a number too large is a parse error, see the
/// `number-out-of-range` fixture), but a scenario file built in code can hold them.
#[test]
fn non_finite_numbers_from_code_are_named() {
    let text = r#"{ "name": "nan", "level": "../levels/open-field.json", "duration": 10,
        "agents": [ { "start": [5, 15], "goal": [25, 15] } ] }"#;
    let base = Path::new("fixtures/bad-scenarios");
    let parsed = || -> sidestep::ScenarioFile { serde_json::from_str(text).unwrap() };
    let mut cases: Vec<(sidestep::ScenarioFile, &str)> = Vec::new();
    let mut file = parsed();
    file.agents[0].radius = f64::NAN;
    cases.push((
        file,
        "agent 0: radius NaN must be a finite number of metres > 0",
    ));
    let mut file = parsed();
    file.agents[0].start = [f64::NAN, 15.0];
    cases.push((file, "agent 0: start [NaN, 15.0] is not finite"));
    let mut file = parsed();
    file.agents[0].goal = Some([25.0, f64::INFINITY]);
    cases.push((file, "agent 0: goal [25.0, inf] is not finite"));
    let mut file = parsed();
    file.agents[0].speeds = Some(vec![1.4, f64::NAN]);
    cases.push((
        file,
        "agent 0: speed NaN in `speeds` must be a finite number > 0",
    ));
    let mut file = parsed();
    file.dt = f64::NAN;
    cases.push((file, "dt: NaN must be in (0, 1] seconds"));
    let mut file = parsed();
    file.duration = f64::INFINITY;
    cases.push((file, "duration: inf must be a finite number of seconds > 0"));
    let mut file = parsed();
    file.avoidance.horizon = f64::NAN;
    cases.push((
        file,
        "avoidance: avoidance.horizon = NaN is out of range (0, 10]",
    ));
    for (file, expected) in cases {
        let e = Scenario::from_file(file, "<code>", Some(base)).unwrap_err();
        assert_eq!(e.to_string(), format!("<code>: scenario `nan`: {expected}"));
    }
}

#[test]
fn every_bad_scenario_fixture_is_covered() {
    let mut files: Vec<String> = std::fs::read_dir("fixtures/bad-scenarios")
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".json")
                .to_owned()
        })
        .collect();
    files.sort();
    let mut named: Vec<String> = CASES.iter().map(|c| c.0.to_owned()).collect();
    named.sort();
    assert_eq!(files, named);
}

#[test]
fn an_invalid_inline_level_names_the_level_and_the_problem() {
    let e = Scenario::load("fixtures/bad-scenarios/invalid-inline-level.json").unwrap_err();
    let ScenarioError::InlineLevel { source } = &e else {
        panic!("expected an inline level error, got {e:?}");
    };
    assert!(source
        .to_string()
        .ends_with("level `bow-tie`: boundary edge 0 crosses edge 2"));
}

#[test]
fn an_inline_level_error_names_the_file_once() {
    let e = Scenario::load("fixtures/bad-scenarios/invalid-inline-level.json").unwrap_err();
    assert_eq!(
        e.to_string(),
        "fixtures/bad-scenarios/invalid-inline-level.json: level: level `bow-tie`: boundary edge 0 crosses edge 2"
    );
}

#[test]
fn a_missing_scenario_file_names_the_file() {
    let e = Scenario::load("fixtures/bad-scenarios/no-such-scenario.json").unwrap_err();
    assert!(matches!(e, ScenarioError::Io { .. }));
    assert!(e.to_string().starts_with(
        "fixtures/bad-scenarios/no-such-scenario.json: cannot read the scenario file"
    ));
}

#[test]
fn overlapping_agents_load_when_overlap_is_allowed() {
    let path = Path::new("fixtures/bad-scenarios/overlapping-agents.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["avoidance"] = serde_json::json!({ "allow_overlap": true });
    let scenario = Scenario::from_json(&json.to_string(), "allowed.json", path.parent())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(scenario.avoidance.allow_overlap);
    assert_eq!(scenario.agents.len(), 2);
    // And it plays.
    let mut sim = Simulation::new(&scenario).unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..10 {
        sim.step();
    }
    assert_eq!(sim.frame(), 10);
}

fn keys(o: &serde_json::Map<String, serde_json::Value>) -> Vec<&str> {
    let mut k: Vec<&str> = o.keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

fn sidestep(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sidestep"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the sidestep binary runs")
}

#[test]
fn cli_run_on_a_bad_scenario_exits_2_naming_the_file() {
    let out = sidestep(&["run", "fixtures/bad-scenarios/overlapping-agents.json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("fixtures/bad-scenarios/overlapping-agents.json"),
        "{stderr}"
    );
    assert!(stderr.contains("agent 1"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn cli_run_json_prints_exactly_one_metrics_object() {
    let out = sidestep(&["run", "fixtures/scenarios/crossing.json", "--json"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let values: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&stdout)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("not JSON: {e}\n{stdout}"));
    assert_eq!(values.len(), 1, "{stdout}");
    let metrics = values[0].as_object().expect("an object");
    let mut expected = vec![
        "scenario",
        "agents",
        "frames",
        "sim_seconds",
        "reached",
        "collisions",
        "max_penetration",
        "off_mesh_frames",
        "travel_time_ratio",
        "orders",
        "order_flips",
        "avoidance_us_per_frame",
    ];
    // Printed in the order of DESIGN §6.
    let positions: Vec<usize> = expected
        .iter()
        .map(|k| stdout.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{stdout}");
    expected.sort_unstable();
    assert_eq!(keys(metrics), expected);
    assert_eq!(
        keys(metrics["orders"].as_object().unwrap()),
        ["reroute", "speed_change", "stop"]
    );
    assert_eq!(
        keys(metrics["avoidance_us_per_frame"].as_object().unwrap()),
        ["median", "p99"]
    );
    assert_eq!(metrics["scenario"], "crossing");
    assert_eq!(metrics["agents"], 2);
}
