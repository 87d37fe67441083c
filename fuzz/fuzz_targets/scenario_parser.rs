//! Fuzz target: any bytes as a scenario file (levels inline; a level path resolves against the
//! repository's `fixtures/scenarios/`); a scenario that loads plays a few frames without
//! panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sidestep::{Scenario, Simulation};

#[path = "../panics.rs"]
mod panics;

fuzz_target!(|data: &[u8]| {
    panics::tolerate_caught_triangulator_panics();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let base = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/scenarios"
    ));
    let Ok(scenario) = Scenario::from_json(text, "fuzz.json", Some(base)) else {
        return;
    };
    if scenario.agents.len() > 64 {
        return;
    }
    if let Ok(mut sim) = Simulation::new(&scenario) {
        for _ in 0..scenario.frames().min(30) {
            sim.step();
        }
    }
});
