//! Random crowds on a level: `Scenario::random` (rail agents of radius 0.4 m, seeded start and
//! goal pairs), played for `--seconds` (default 90), one line per seed: the metrics, and how many
//! agents walk, stand wanting to go, or have nothing left to do at the end. A robustness check
//! for levels and crowds that are not fixtures (docs/ROBUSTNESS.md, "Random crowds"), and the
//! census behind docs/PERFORMANCE.md's counts of walking agents.
//!
//! `cargo run --release --example random_crowds -- LEVEL.json AGENTS SEED [SEED ...] [--seconds S]`

use std::sync::Arc;

use sidestep::{Level, Phase, PlacementOptions, Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: random_crowds LEVEL.json AGENTS SEED [SEED ...] [--seconds S]";
    let mut seconds = 90.0;
    if let Some(at) = args.iter().position(|a| a == "--seconds") {
        seconds = args.get(at + 1).ok_or(usage)?.parse()?;
        args.drain(at..at + 2);
    }
    if args.len() < 3 {
        return Err(usage.into());
    }
    let agents: usize = args[1].parse()?;
    let level = Arc::new(Level::load(&args[0])?);
    for seed in &args[2..] {
        let options = PlacementOptions {
            agents,
            seed: seed.parse()?,
            duration: seconds,
            ..Default::default()
        };
        let scenario = Scenario::random("random", level.clone(), &options)?;
        let mut sim = Simulation::new(&scenario)?;
        while !sim.finished() {
            sim.step();
        }
        let (mut walking, mut waiting, mut done) = (0, 0, 0);
        for (_, agent) in sim.world().agents() {
            if !agent.wants_to_move() {
                done += 1;
            } else if agent.motion().phase == Phase::Standing {
                waiting += 1;
            } else {
                walking += 1;
            }
        }
        let m = sim.metrics();
        println!(
            "{} agents={agents} seed={seed} seconds={seconds} reached={} collisions={} \
             off_mesh_frames={} order_flips={} max_penetration={:.3} walking={walking} \
             standing={waiting} idle={done}",
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
