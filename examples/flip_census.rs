//! Where a scenario's order flips come from: plays a scenario file in the built-in host and,
//! for every flip (an order that reverses the agent's previous one within `FLIP_WINDOW`, as the
//! host counts them for the `order_flips` metric, DESIGN §6: `Simulation::flip_log`), prints
//! the two orders, the collision the later
//! one answered (seconds ahead, collider, overlap) and the collider's own orders over the second
//! before, then a count by kind and how many of the later orders followed a fresh order of their
//! collider (new information). The census behind docs/ROBUSTNESS.md, "Session 15".
//!
//! `cargo run --release --example flip_census -- fixtures/scenarios/tradeshow-300.json [--quiet]`
//! (`--quiet`: the counts only).

use std::collections::BTreeMap;
use std::io::Write;

use sidestep::{Order, OrderRecord, Scenario, Simulation, FLIP_WINDOW};

/// How far back the collider's own orders are listed, seconds.
const COLLIDER_HISTORY: f64 = 1.0;

fn describe(order: &Order) -> String {
    match order {
        Order::ChangeSpeed { speed } => format!("speed {speed}"),
        Order::Stop { .. } => "stop".into(),
        Order::Start { speed } => format!("start {speed}"),
        Order::Reroute { reroute, .. } => format!("reroute {:?}", reroute.reason).to_lowercase(),
        Order::Continue => "continue".into(),
        Order::Wait { .. } => "wait".into(),
        Order::Release { .. } => "release".into(),
        Order::Rejoin { speed, .. } => format!("rejoin {speed}"),
    }
}

/// The kind of a flip, from its two orders.
fn kind(earlier: &Order, later: &Order) -> &'static str {
    match (earlier, later) {
        (Order::ChangeSpeed { speed: a }, Order::ChangeSpeed { speed: b }) if b < a => {
            "faster -> slower"
        }
        (Order::ChangeSpeed { .. }, Order::ChangeSpeed { .. }) => "slower -> faster",
        (Order::Start { .. }, Order::Stop { .. }) => "start -> stop",
        (Order::Stop { .. }, Order::Start { .. }) => "stop -> start",
        (Order::Reroute { .. }, Order::Reroute { .. }) => "reroute -> reroute to the other side",
        _ => "other",
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: flip_census SCENARIO.json [--quiet]";
    let path = args.iter().find(|a| !a.starts_with("--")).ok_or(usage)?;
    let quiet = args.iter().any(|a| a == "--quiet");
    let scenario = Scenario::load(path)?;
    let mut sim = Simulation::new(&scenario)?;
    // Written, not printed: a closed pipe (`| head`) ends the run with an error, not a panic.
    let mut out = std::io::stdout().lock();
    // Per kind: flips, and how many followed an order of their collider within the window.
    let mut kinds: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut seen = 0;
    while !sim.finished() {
        sim.step();
        // The collision each agent answered this frame is still its last one.
        for &k in &sim.flip_log[seen..] {
            let later: &OrderRecord = &sim.log[k];
            let Some(earlier) = sim.log[..k].iter().rev().find(|r| r.agent == later.agent) else {
                continue;
            };
            let key = sim.agents()[later.agent].key;
            let collision = sim
                .world()
                .agent(key)
                .ok()
                .and_then(|a| a.last_collision().copied())
                .and_then(|c| Some((c.time, sim.agent_index(c.collider)?, c.overlap)));
            let collider_orders: Vec<&OrderRecord> = match collision {
                Some((_, j, _)) => sim.log[..k]
                    .iter()
                    .filter(|r| r.agent == j && later.time - r.time <= COLLIDER_HISTORY)
                    .collect(),
                None => Vec::new(),
            };
            let fresh = collider_orders
                .iter()
                .any(|r| later.time - r.time <= FLIP_WINDOW);
            let kind = kind(&earlier.order, &later.order);
            let entry = kinds.entry(kind).or_default();
            entry.0 += 1;
            entry.1 += usize::from(fresh);
            if quiet {
                continue;
            }
            let answered = match collision {
                Some((t, j, overlap)) => {
                    format!("collision in {t:.2} s with agent {j}, overlap {overlap:.2}")
                }
                None => "no collision (follow distance or hold)".into(),
            };
            writeln!(
                out,
                "{:7.2} s agent {:4}: {} -> {} after {:.2} s; {answered}",
                later.time,
                later.agent,
                describe(&earlier.order),
                describe(&later.order),
                later.time - earlier.time
            )?;
            if !collider_orders.is_empty() {
                let orders: Vec<String> = collider_orders
                    .iter()
                    .map(|r| format!("{:.2} {}", r.time, describe(&r.order)))
                    .collect();
                writeln!(out, "           its collider: {}", orders.join(", "))?;
            }
        }
        seen = sim.flip_log.len();
    }
    let total: usize = kinds.values().map(|&(n, _)| n).sum();
    writeln!(
        out,
        "{}: {total} flips (metric order_flips {})",
        scenario.name,
        sim.metrics().order_flips
    )?;
    for (kind, (count, fresh)) in kinds {
        writeln!(
            out,
            "  {kind}: {count} ({fresh} after an order of the collider within {FLIP_WINDOW} s)"
        )?;
    }
    Ok(())
}
