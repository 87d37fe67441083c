//! The largest memory a world holds per agent over a run: `N` agents placed at random on a
//! level (`Scenario::random`, seed 0, as `sidestep bench --level`), played `F` frames in the
//! built-in host, `World::memory` read after every frame (docs/PERFORMANCE.md, "Bytes per
//! agent"; the bend memos of standing agents come and go, so the figure moves).
//!
//! `cargo run --release --example memory_peak -- LEVEL.json AGENTS FRAMES`, e.g.
//! `cargo run --release --example memory_peak -- fixtures/levels/plaza.json 1000 330`
//! (add `--features parallel` for the parallel build's figure).

use std::sync::Arc;

use sidestep::{Level, PlacementOptions, Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: memory_peak LEVEL.json AGENTS FRAMES";
    let [level, agents, frames] = args.as_slice() else {
        return Err(usage.into());
    };
    let frames: usize = frames.parse()?;
    let options = PlacementOptions {
        agents: agents.parse()?,
        seed: 0,
        duration: frames as f64,
        ..PlacementOptions::default()
    };
    let level = Arc::new(Level::load(level)?);
    let scenario = Scenario::random("memory-peak", level, &options)?;
    let mut sim = Simulation::new(&scenario)?;
    let (mut largest, mut at) = (0.0f64, 0);
    for frame in 0..frames {
        sim.step();
        let bytes = sim.world().memory().bytes_per_agent();
        if bytes > largest {
            (largest, at) = (bytes, frame);
        }
    }
    println!("largest {largest:.0} B per agent, at frame {at} of {frames}");
    Ok(())
}
