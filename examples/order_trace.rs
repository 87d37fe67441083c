//! Every order a few agents are given, with the collision each answered: plays a scenario file
//! in the built-in host and prints, between two times, each order (other than continue and
//! wait) given to a listed agent (by its index in the scenario), with the collision the world
//! recorded for it that frame (seconds ahead, collider by index, overlap) and where both agents
//! are. The trace behind docs/ROBUSTNESS.md, "Session 34".
//!
//! `cargo run --release --example order_trace -- SCENARIO.json AGENTS FROM TO`, e.g.
//! `… -- fixtures/scenarios/arena-200.json 103,120 30 32` (AGENTS: indices separated by commas,
//! or `all`; FROM, TO in seconds).

use std::io::Write;

use sidestep::{Order, Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: order_trace SCENARIO.json AGENTS FROM TO";
    if args.len() != 4 {
        return Err(usage.into());
    }
    let scenario = Scenario::load(&args[0])?;
    let listed: Option<Vec<usize>> = if args[1] == "all" {
        None
    } else {
        Some(
            args[1]
                .split(',')
                .map(str::parse::<usize>)
                .collect::<Result<Vec<_>, _>>()?,
        )
    };
    let from: f64 = args[2].parse()?;
    let to: f64 = args[3].parse()?;
    let mut sim = Simulation::new(&scenario)?;
    // Written, not printed: a closed pipe (`| head`) ends the run with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let mut seen = 0;
    while !sim.finished() {
        sim.step();
        for record in &sim.log[seen..] {
            if record.time < from || record.time > to {
                continue;
            }
            if listed.as_ref().is_some_and(|l| !l.contains(&record.agent)) {
                continue;
            }
            let agent = &sim.agents()[record.agent];
            let collision = sim
                .world()
                .agent(agent.key)
                .ok()
                .and_then(|a| a.last_collision().copied());
            let answered = match collision {
                Some(c) => {
                    let at = sim.agent_index(c.collider).map(|j| (j, &sim.agents()[j]));
                    match at {
                        Some((j, other)) => format!(
                            "collision in {:.2} s with {j} at ({:.2}, {:.2}), overlap {:.2}",
                            c.time, other.position.x, other.position.y, c.overlap
                        ),
                        None => format!("collision in {:.2} s, overlap {:.2}", c.time, c.overlap),
                    }
                }
                None => "no collision".into(),
            };
            let order = match &record.order {
                Order::Reroute { reroute, .. } => format!(
                    "Reroute {:?} via ({:.2}, {:.2}) side {:?}",
                    reroute.reason, reroute.via.x, reroute.via.y, reroute.side
                ),
                other => format!("{other:?}"),
            };
            writeln!(
                out,
                "{:7.2} #{:<4} at ({:.2}, {:.2}) {order}; {answered}",
                record.time, record.agent, agent.position.x, agent.position.y
            )?;
        }
        seen = sim.log.len();
        if sim.log.last().is_some_and(|r| r.time > to) {
            break;
        }
    }
    Ok(())
}
