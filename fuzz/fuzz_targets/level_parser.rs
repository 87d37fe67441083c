//! Fuzz target: any bytes as a level file; loading either succeeds or gives an error, and a
//! level that loads answers point, path and rail queries without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sidestep::{DVec2, Level, PathOptions};

#[path = "../panics.rs"]
mod panics;

fuzz_target!(|data: &[u8]| {
    panics::tolerate_caught_triangulator_panics();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(level) = Level::from_json(text, "fuzz.json") else {
        return;
    };
    // A level that loads must be usable: locate, path and rail between two points of it.
    let mesh = level.navmesh();
    let (lo, hi) = mesh.bounds();
    assert!(lo.is_finite() && hi.is_finite(), "bounds {lo} {hi}");
    let a = lo + (hi - lo) * DVec2::new(0.31, 0.47);
    let b = lo + (hi - lo) * DVec2::new(0.73, 0.59);
    let _ = mesh.contains(a);
    let _ = mesh.plan_rail(a, b, &PathOptions::from_agent_radius(0.4));
});
