//! `sidestep bench` (DESIGN §6): the JSON it prints, bad input, and determinism of everything but
//! the measured times.

use std::process::{Command, Output};

fn sidestep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sidestep"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(args: &[&str]) -> serde_json::Map<String, serde_json::Value> {
    let out = sidestep(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    match serde_json::from_str(&text).expect("JSON") {
        serde_json::Value::Object(o) => o,
        other => panic!("not an object: {other}"),
    }
}

fn keys(o: &serde_json::Map<String, serde_json::Value>) -> Vec<&str> {
    o.keys().map(String::as_str).collect()
}

/// The report without its times.
fn untimed(o: &serde_json::Map<String, serde_json::Value>) -> (u64, u64, String) {
    (
        o["agents"].as_u64().expect("agents"),
        o["frames"].as_u64().expect("frames"),
        o["mode"].as_str().expect("mode").to_owned(),
    )
}

fn assert_times(o: &serde_json::Map<String, serde_json::Value>) {
    let ms = o["avoidance_ms_per_frame"].as_object().expect("object");
    assert_eq!(keys(ms), ["median", "p99"]);
    let median = ms["median"].as_f64().expect("median");
    let p99 = ms["p99"].as_f64().expect("p99");
    assert!(median > 0.0 && median.is_finite(), "median {median}");
    assert!(
        p99 >= median && p99.is_finite(),
        "p99 {p99} < median {median}"
    );
    let ns = o["ns_per_agent"].as_f64().expect("ns_per_agent");
    let agents = o["agents"].as_f64().expect("agents");
    assert!(
        (ns - median * 1e6 / agents).abs() <= 1e-6 * ns.max(1.0),
        "ns_per_agent {ns} is not the median per agent"
    );
}

#[test]
fn json_of_a_scenario_has_exactly_the_design_fields() {
    let args = [
        "bench",
        "fixtures/scenarios/mixed-crossing.json",
        "--frames",
        "20",
        "--json",
    ];
    let o = json(&args);
    let fields = [
        "agents",
        "avoidance_ms_per_frame",
        "frames",
        "mode",
        "ns_per_agent",
    ];
    assert_eq!(keys(&o), fields, "exactly these fields (sorted by the map)");
    // In the order of DESIGN §6.
    let text = String::from_utf8(sidestep(&args).stdout).expect("utf-8");
    let at = |key: &str| text.find(&format!("\"{key}\":")).expect(key);
    let order = [
        "agents",
        "frames",
        "mode",
        "avoidance_ms_per_frame",
        "median",
        "p99",
        "ns_per_agent",
    ];
    assert!(
        order.windows(2).all(|w| at(w[0]) < at(w[1])),
        "fields out of order: {text}"
    );
    assert_eq!(o["frames"], 20);
    assert_eq!(o["mode"], "mixed");
    assert_times(&o);
}

#[test]
fn placed_agents_in_each_mode() {
    for mode in ["rail", "orca", "ttc"] {
        let o = json(&[
            "bench",
            "--level",
            "fixtures/levels/plaza.json",
            "--agents",
            "40",
            "--mode",
            mode,
            "--seed",
            "3",
            "--frames",
            "10",
            "--json",
        ]);
        assert_eq!(untimed(&o), (40, 10, mode.to_owned()));
        assert_times(&o);
    }
}

#[test]
fn the_mode_defaults_to_rail_and_frames_to_300() {
    let o = json(&[
        "bench",
        "--level",
        "fixtures/levels/open-field.json",
        "--agents",
        "5",
        "--json",
    ]);
    assert_eq!(untimed(&o), (5, 300, "rail".to_owned()));
}

#[test]
fn everything_but_the_times_is_deterministic() {
    let args = [
        "bench",
        "--level",
        "fixtures/levels/plaza.json",
        "--agents",
        "30",
        "--mode",
        "orca",
        "--seed",
        "9",
        "--frames",
        "15",
        "--json",
    ];
    let a = json(&args);
    let b = json(&args);
    assert_eq!(untimed(&a), untimed(&b));
    // A scenario file too.
    let args = [
        "bench",
        "fixtures/scenarios/crossing.json",
        "--frames",
        "5",
        "--json",
    ];
    assert_eq!(untimed(&json(&args)), untimed(&json(&args)));
}

#[test]
fn text_output_names_the_figures() {
    let out = sidestep(&["bench", "fixtures/scenarios/head-on.json", "--frames", "5"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("head-on: 2 agents (rail), 5 frames timed"),
        "{text}"
    );
    assert!(text.contains("ns per agent"), "{text}");
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (&["bench"], "required"),
        (
            &["bench", "fixtures/scenarios/no-such.json"],
            "no-such.json",
        ),
        (
            &["bench", "fixtures/bad-scenarios/dt-zero.json"],
            "dt-zero.json",
        ),
        (&["bench", "--agents", "3"], "--level"),
        (
            &["bench", "--level", "fixtures/levels/plaza.json"],
            "--agents",
        ),
        (
            &[
                "bench",
                "fixtures/scenarios/crossing.json",
                "--level",
                "fixtures/levels/plaza.json",
            ],
            "cannot be used with",
        ),
        (
            &[
                "bench",
                "--level",
                "fixtures/levels/plaza.json",
                "--agents",
                "0",
            ],
            "--agents",
        ),
        (
            &["bench", "fixtures/scenarios/crossing.json", "--frames", "0"],
            "--frames",
        ),
        (
            &[
                "bench",
                "--level",
                "fixtures/levels/plaza.json",
                "--agents",
                "3",
                "--mode",
                "flying",
            ],
            "flying",
        ),
        (
            &[
                "bench",
                "--level",
                "fixtures/levels/no-such-level.json",
                "--agents",
                "3",
            ],
            "no-such-level.json",
        ),
        (
            &[
                "bench",
                "--level",
                "fixtures/levels/narrow-alcove.json",
                "--agents",
                "5000",
            ],
            "placed only",
        ),
    ];
    for (args, needle) in cases {
        let out = sidestep(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(needle),
            "{args:?}: `{needle}` not in {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: printed on stdout");
    }
}
