//! Determinism (DESIGN §4): `sidestep run --trace` on a fixture scenario gives the same bytes
//! every time. Played through the command-line binary, twice per scenario, on every fixture
//! scenario of at most `MAX_AGENTS` agents: all but tradeshow-1000, which takes minutes (the
//! test suite does not play it at all). With `--all-features` the binary has `parallel` on,
//! so this covers it too (it engages from 256 agents; `tests/parallel.rs` compares its orders
//! with the sequential ones on 300 and 1,000).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Largest fixture scenario played here, agents.
const MAX_AGENTS: usize = 250;

/// A trace file of this test process, removed when dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `sidestep run SCENARIO --trace FILE`: the trace's bytes.
fn trace_of(scenario: &Path, run: &str) -> Vec<u8> {
    let name = scenario.file_stem().unwrap().to_string_lossy();
    let file = TempFile(std::env::temp_dir().join(format!(
        "sidestep-determinism-{}-{name}-{run}.csv",
        std::process::id()
    )));
    let out = Command::new(env!("CARGO_BIN_EXE_sidestep"))
        .arg("run")
        .arg(scenario)
        .arg("--trace")
        .arg(&file.0)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the sidestep binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}: {}",
        scenario.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&file.0).unwrap_or_else(|e| panic!("{}: {e}", file.0.display()))
}

/// The fixture scenarios of at most `MAX_AGENTS` agents, by name, with their agent counts.
fn small_fixture_scenarios() -> Vec<(PathBuf, usize)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
    let mut found: Vec<(PathBuf, usize)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).ok()?;
            let json: serde_json::Value = serde_json::from_str(&text).ok()?;
            let agents = json["agents"].as_array()?.len();
            (agents <= MAX_AGENTS).then_some((path, agents))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn fixture_scenarios_give_byte_identical_traces() {
    let scenarios = small_fixture_scenarios();
    assert!(
        scenarios.len() >= 15,
        "expected the small fixture scenarios, found {}",
        scenarios.len()
    );
    for (path, agents) in scenarios {
        let first = trace_of(&path, "a");
        let second = trace_of(&path, "b");
        let text = String::from_utf8(first.clone()).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("frame,time,agent,x,y,s,speed,state,order")
        );
        let rows = lines.count();
        assert!(
            rows > 0 && rows % agents == 0,
            "{}: {rows} rows for {agents} agents",
            path.display()
        );
        assert!(
            first == second,
            "{}: the two traces differ (first at byte {})",
            path.display(),
            first
                .iter()
                .zip(&second)
                .position(|(a, b)| a != b)
                .unwrap_or(first.len().min(second.len()))
        );
    }
}
