//! Random crowds on a level: `Scenario::random` (rail agents of radius 0.4 m, seeded start and
//! goal pairs, 90 s), played to the end, one line of metrics per seed. A robustness check for
//! levels and crowds that are not fixtures (docs/ROBUSTNESS.md, "Random crowds").
//!
//! `cargo run --release --example random_crowds -- LEVEL.json AGENTS SEED [SEED ...]`

use std::sync::Arc;

use sidestep::{Level, PlacementOptions, Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: random_crowds LEVEL.json AGENTS SEED [SEED ...]";
    let (Some(path), Some(agents)) = (args.first(), args.get(1)) else {
        return Err(usage.into());
    };
    let agents: usize = agents.parse()?;
    if args.len() < 3 {
        return Err(usage.into());
    }
    let level = Arc::new(Level::load(path)?);
    for seed in &args[2..] {
        let options = PlacementOptions {
            agents,
            seed: seed.parse()?,
            duration: 90.0,
            ..Default::default()
        };
        let scenario = Scenario::random("random", level.clone(), &options)?;
        let mut sim = Simulation::new(&scenario)?;
        while !sim.finished() {
            sim.step();
        }
        let m = sim.metrics();
        println!(
            "{} agents={agents} seed={seed} reached={} collisions={} off_mesh_frames={} \
             order_flips={} max_penetration={:.3}",
            level.name(),
            m.reached,
            m.collisions,
            m.off_mesh_frames,
            m.order_flips,
            m.max_penetration
        );
    }
    Ok(())
}
