//! Whom a few agents wait on, over time: plays a scenario file in the built-in host and, every
//! `STEP` seconds between two times, prints for each listed agent (by its index in the
//! scenario) its position, its state and the agent it waits on (by index) with the time it
//! began waiting on it; the orders they are given in between are printed as they come. The
//! trace behind docs/ROBUSTNESS.md, "Session 23" (doorway-crowd's door).
//!
//! `cargo run --release --example wait_trace -- SCENARIO.json AGENTS FROM TO STEP`, e.g.
//! `… -- fixtures/scenarios/doorway-crowd.json 2,6,7,8,12,17 60 70 1` (AGENTS: indices
//! separated by commas; FROM, TO, STEP in seconds).

use std::io::Write;

use sidestep::{Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: wait_trace SCENARIO.json AGENTS FROM TO STEP";
    if args.len() != 5 {
        return Err(usage.into());
    }
    let scenario = Scenario::load(&args[0])?;
    let listed = args[1]
        .split(',')
        .map(str::parse::<usize>)
        .collect::<Result<Vec<_>, _>>()?;
    let from: f64 = args[2].parse()?;
    let to: f64 = args[3].parse()?;
    let step: f64 = args[4].parse()?;
    if step.is_nan() || step <= 0.0 {
        return Err(usage.into());
    }
    let mut sim = Simulation::new(&scenario)?;
    let keys: Vec<_> = sim.agents().iter().map(|a| a.key).collect();
    if let Some(&bad) = listed.iter().find(|&&i| i >= keys.len()) {
        return Err(format!("no agent {bad}: the scenario has {}", keys.len()).into());
    }
    let index_of = |key| keys.iter().position(|&k| k == key);
    let mut out = std::io::stdout().lock();
    let mut next = from;
    while !sim.finished() {
        sim.step();
        let time = sim.world().time();
        if time > to {
            break;
        }
        if time < from {
            continue;
        }
        let agents = sim.agents();
        for &i in &listed {
            if let Some(order) = &agents[i].order {
                let text = format!("{order:?}");
                let short: String = text.chars().take(70).collect();
                writeln!(out, "{time:.2} #{i} order {short}")?;
            }
        }
        if time + 1e-9 < next {
            continue;
        }
        next += step;
        for &i in &listed {
            let agent = sim.world().agent(agents[i].key)?;
            let waits = agent
                .waiting_on()
                .map(|(key, since)| (index_of(key), since));
            let waits = match waits {
                Some((Some(other), since)) => format!("waits on #{other} since {since:.2}"),
                Some((None, since)) => {
                    format!("waits on an agent not in the host since {since:.2}")
                }
                None => "waits on no one".to_string(),
            };
            writeln!(
                out,
                "{time:.2} #{i} at ({:.2}, {:.2}) {} {waits}",
                agents[i].position.x,
                agents[i].position.y,
                agents[i].state().name()
            )?;
        }
    }
    Ok(())
}
