//! Where a scenario's order flips come from: plays a scenario file in the built-in host and,
//! for every flip (an order that reverses the agent's previous one within `FLIP_WINDOW`, the
//! rule of the `order_flips` metric, DESIGN §6), prints the two orders, the collision the later
//! one answered (seconds ahead, collider, overlap) and the collider's own orders over the second
//! before, then a count by kind and how many of the later orders followed a fresh order of their
//! collider (new information). The census behind docs/ROBUSTNESS.md, "Session 15".
//!
//! `cargo run --release --example flip_census -- fixtures/scenarios/tradeshow-300.json [--quiet]`
//! (`--quiet`: the counts only).

use std::collections::BTreeMap;
use std::io::Write;

use sidestep::{Order, OrderRecord, Scenario, Side, Simulation, FLIP_WINDOW};

/// How far back the collider's own orders are listed, seconds.
const COLLIDER_HISTORY: f64 = 1.0;

/// The change an order made, as the host's flip rule sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    Faster,
    Slower,
    Stop,
    Start,
    Reroute(Option<Side>),
}

impl Change {
    fn reverses(self, earlier: Change) -> bool {
        matches!(
            (earlier, self),
            (Change::Faster, Change::Slower)
                | (Change::Slower, Change::Faster)
                | (Change::Stop, Change::Start)
                | (Change::Start, Change::Stop)
        ) || matches!((earlier, self), (Change::Reroute(Some(a)), Change::Reroute(Some(b))) if a != b)
    }
}

/// One flip: the agent, the two changes, and what the later order answered.
struct Flip {
    time: f64,
    agent: usize,
    earlier: Change,
    later: Change,
    since: f64,
    /// Seconds ahead, collider index, overlap fraction.
    collision: Option<(f64, usize, f64)>,
    /// The collider had an order of its own within `FLIP_WINDOW` before.
    collider_fresh: bool,
    collider_orders: Vec<String>,
}

fn describe(order: &Order) -> String {
    match order {
        Order::ChangeSpeed { speed } => format!("speed {speed}"),
        Order::Stop { .. } => "stop".into(),
        Order::Start { speed } => format!("start {speed}"),
        Order::Reroute { reroute, .. } => format!("reroute {:?}", reroute.reason).to_lowercase(),
        Order::Continue => "continue".into(),
        Order::Wait { .. } => "wait".into(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: flip_census SCENARIO.json [--quiet]";
    let path = args.iter().find(|a| !a.starts_with("--")).ok_or(usage)?;
    let quiet = args.iter().any(|a| a == "--quiet");
    let scenario = Scenario::load(path)?;
    let mut sim = Simulation::new(&scenario)?;
    let index_of: BTreeMap<_, usize> = sim
        .agents()
        .iter()
        .enumerate()
        .map(|(i, a)| (a.key, i))
        .collect();
    // Each agent's speed (for faster or slower), last change, and orders so far.
    let mut speed: Vec<f64> = sim.agents().iter().map(|a| a.speed).collect();
    let mut last: Vec<Option<(f64, Change)>> = vec![None; speed.len()];
    let mut history: Vec<Vec<OrderRecord>> = vec![Vec::new(); speed.len()];
    let mut flips = Vec::new();
    let mut seen = 0;
    while !sim.finished() {
        sim.step();
        let new: Vec<OrderRecord> = sim.log[seen..].to_vec();
        seen = sim.log.len();
        for record in new {
            let i = record.agent;
            let change = match record.order {
                Order::ChangeSpeed { speed: v } if v > speed[i] => Change::Faster,
                Order::ChangeSpeed { .. } => Change::Slower,
                Order::Stop { .. } => Change::Stop,
                Order::Start { .. } => Change::Start,
                Order::Reroute { reroute, .. } => Change::Reroute(reroute.side),
                Order::Continue | Order::Wait { .. } => continue,
            };
            if let Order::ChangeSpeed { speed: v } | Order::Start { speed: v } = record.order {
                speed[i] = v;
            }
            if let Some((t, earlier)) = last[i] {
                if record.time - t < FLIP_WINDOW && change.reverses(earlier) {
                    let key = sim.agents()[i].key;
                    let collision = sim
                        .world()
                        .agent(key)
                        .ok()
                        .and_then(|a| a.last_collision().copied())
                        .and_then(|c| Some((c.time, *index_of.get(&c.collider)?, c.overlap)));
                    let (collider_fresh, collider_orders) = match collision {
                        Some((_, j, _)) => {
                            let recent: Vec<&OrderRecord> = history[j]
                                .iter()
                                .filter(|r| record.time - r.time <= COLLIDER_HISTORY)
                                .collect();
                            (
                                recent.iter().any(|r| record.time - r.time <= FLIP_WINDOW),
                                recent
                                    .iter()
                                    .map(|r| format!("{:.2} {}", r.time, describe(&r.order)))
                                    .collect(),
                            )
                        }
                        None => (false, Vec::new()),
                    };
                    flips.push(Flip {
                        time: record.time,
                        agent: i,
                        earlier,
                        later: change,
                        since: record.time - t,
                        collision,
                        collider_fresh,
                        collider_orders,
                    });
                }
            }
            last[i] = Some((record.time, change));
            history[i].push(record);
        }
    }
    // Written, not printed: a closed pipe (`| head`) ends the run with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for flip in &flips {
        let kind = format!("{:?} -> {:?}", flip.earlier, flip.later);
        let entry = kinds.entry(kind.clone()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(flip.collider_fresh);
        if quiet {
            continue;
        }
        let answered = match flip.collision {
            Some((t, j, overlap)) => {
                format!("collision in {t:.2} s with agent {j}, overlap {overlap:.2}")
            }
            None => "no collision (follow distance or hold)".into(),
        };
        writeln!(
            out,
            "{:7.2} s agent {:4}: {kind} after {:.2} s; {answered}",
            flip.time, flip.agent, flip.since
        )?;
        if !flip.collider_orders.is_empty() {
            writeln!(
                out,
                "           its collider: {}",
                flip.collider_orders.join(", ")
            )?;
        }
    }
    let metric = sim.metrics().order_flips;
    writeln!(
        out,
        "{}: {} flips (metric order_flips {metric})",
        scenario.name,
        flips.len()
    )?;
    for (kind, (count, fresh)) in kinds {
        writeln!(
            out,
            "  {kind}: {count} ({fresh} after an order of the collider within {FLIP_WINDOW} s)"
        )?;
    }
    Ok(())
}
