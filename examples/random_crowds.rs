//! Random crowds on a level: `Scenario::random` (rail agents of radius 0.4 m, seeded start and
//! goal pairs), played for `--seconds` (default 90), one line per seed: the metrics, and how many
//! agents walk, stand wanting to go, or have nothing left to do at the end. A robustness check
//! for levels and crowds that are not fixtures (docs/ROBUSTNESS.md, "Random crowds"), and the
//! census behind docs/PERFORMANCE.md's counts of walking agents.
//!
//! `cargo run --release --example random_crowds -- LEVEL.json AGENTS SEED [SEED ...] [--seconds S]
//! [--late] [--write DIR [--write-only]]` (`--late`: also one line per agent that has not arrived: its state,
//! its planned length and the time that takes at its preferred speed, how far along its rail it
//! is; `--write DIR`: each seed's scenario as a file `DIR/LEVEL-AGENTS-SEED.json`, which
//! `sidestep run` plays the same way, and with `--write-only` without playing it here:
//! `tools/compare_fixtures.py --scenarios DIR OLD NEW` then compares two builds on them).

use std::sync::Arc;

use sidestep::{Level, Phase, PlacementOptions, Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: random_crowds LEVEL.json AGENTS SEED [SEED ...] [--seconds S] [--late] \
                 [--write DIR [--write-only]]";
    let mut seconds = 90.0;
    if let Some(at) = args.iter().position(|a| a == "--seconds") {
        seconds = args.get(at + 1).ok_or(usage)?.parse()?;
        args.drain(at..at + 2);
    }
    let late = args.iter().any(|a| a == "--late");
    args.retain(|a| a != "--late");
    let write_only = args.iter().any(|a| a == "--write-only");
    args.retain(|a| a != "--write-only");
    let mut write = None;
    if let Some(at) = args.iter().position(|a| a == "--write") {
        write = Some(args.get(at + 1).ok_or(usage)?.clone());
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
        if let Some(dir) = &write {
            write_scenario(dir, &args[0], level.name(), seed, seconds, &scenario)?;
            if write_only {
                continue;
            }
        }
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
        if late {
            // Agents not arrived: how far along, and whether their trip fits the time at all.
            for a in sim.agents() {
                if a.arrived_at.is_some() || a.goal.is_none() {
                    continue;
                }
                let length = a.rail.as_ref().map_or(0.0, |r| r.length());
                println!(
                    "  late {:?} {:?} planned {:.1} m ({:.0} s at {}) s {:.1} / {:.1} at ({:.1}, {:.1})",
                    a.key,
                    a.state(),
                    a.planned_length,
                    a.planned_length / a.desc.preferred_speed,
                    a.desc.preferred_speed,
                    a.s,
                    length,
                    a.position.x,
                    a.position.y
                );
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

/// Write `scenario` as a scenario file in `dir` (the level by its absolute path).
fn write_scenario(
    dir: &str,
    level_path: &str,
    level_name: &str,
    seed: &str,
    seconds: f64,
    scenario: &Scenario,
) -> Result<(), Box<dyn std::error::Error>> {
    let level = std::fs::canonicalize(level_path)?;
    let agents: Vec<String> = scenario
        .agents
        .iter()
        .map(|a| {
            let goal = a.goal.unwrap_or(a.desc.position);
            let speeds: Vec<String> = a
                .desc
                .gaits
                .iter()
                .map(|g| format!("{:?}", g.speed))
                .collect();
            format!(
                "{{\"start\": [{:?}, {:?}], \"goal\": [{:?}, {:?}], \"radius\": {:?}, \
                 \"speeds\": [{}], \"speed\": {:?}, \"depart\": {:?}, \"mode\": \"rail\"}}",
                a.desc.position.x,
                a.desc.position.y,
                goal.x,
                goal.y,
                a.desc.radius,
                speeds.join(", "),
                a.desc.preferred_speed,
                a.depart
            )
        })
        .collect();
    let name = format!("{level_name}-{}-{seed}", scenario.agents.len());
    let text = format!(
        "{{ \"name\": {},\n  \"level\": {},\n  \"dt\": {:?}, \"duration\": {seconds:?}, \
         \"seed\": {seed},\n  \"agents\": [\n    {}\n  ] }}\n",
        // JSON strings, escaped as JSON escapes them (not as Rust's `{:?}` does).
        serde_json::Value::from(name.as_str()),
        serde_json::Value::from(level.display().to_string()),
        scenario.dt,
        agents.join(",\n    ")
    );
    std::fs::create_dir_all(dir)?;
    std::fs::write(format!("{dir}/{name}.json"), text)?;
    Ok(())
}
