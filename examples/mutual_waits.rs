//! How long pairs of rail agents stand waiting on each other: plays a scenario file and, every
//! frame, finds the pairs of standing agents (wanting to go) each recorded as waiting on the
//! other (`Agent::waiting_on`), the two-cycles that deadlock breaking must end. Prints how many
//! such pairs there were, a histogram of how long each lasted, and the longest, with where the
//! two agents stood at the end of the run. The check behind docs/ROBUSTNESS.md, "Session 16".
//!
//! `cargo run --release --example mutual_waits -- SCENARIO.json [SECONDS]` (default: the whole
//! scenario).

use std::collections::BTreeMap;
use std::io::Write;

use sidestep::{AgentKey, Phase, Scenario, Simulation, World};

/// Upper ends of the histogram's bins, seconds (the last bin is open).
const BINS: [f64; 5] = [0.5, 2.0, 5.0, 10.0, 30.0];

/// Pairs listed at the end, longest first.
const LONGEST_SHOWN: usize = 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: mutual_waits SCENARIO.json [SECONDS]";
    let file = args.first().ok_or(usage)?;
    let scenario = Scenario::load(file)?;
    let until = match args.get(1) {
        Some(seconds) => seconds.parse::<f64>()?,
        None => f64::INFINITY,
    };
    let mut sim = Simulation::new(&scenario)?;
    // Each pair (lower key first) waiting on each other now: when it was first seen, and last.
    let mut open: BTreeMap<(AgentKey, AgentKey), (f64, f64)> = BTreeMap::new();
    let mut ended: Vec<((AgentKey, AgentKey), f64, f64)> = Vec::new();
    while sim.world().time() < until && !sim.finished() {
        sim.step();
        let world = sim.world();
        let now = world.time();
        for pair in mutual_pairs(world) {
            open.entry(pair).or_insert((now, now)).1 = now;
        }
        let over: Vec<_> = open
            .iter()
            .filter(|(_, &(_, last))| last < now)
            .map(|(&pair, &(first, last))| (pair, first, last))
            .collect();
        for (pair, first, last) in over {
            open.remove(&pair);
            ended.push((pair, first, last));
        }
    }
    ended.extend(
        open.into_iter()
            .map(|(pair, (first, last))| (pair, first, last)),
    );
    // Longest first; ties by when they began, then by key (deterministic).
    ended.sort_by(|a, b| {
        (b.2 - b.1)
            .total_cmp(&(a.2 - a.1))
            .then(a.1.total_cmp(&b.1))
            .then(a.0.cmp(&b.0))
    });
    let mut counts = [0usize; BINS.len() + 1];
    for (_, first, last) in &ended {
        let bin = BINS
            .iter()
            .position(|&end| last - first < end)
            .unwrap_or(BINS.len());
        counts[bin] += 1;
    }
    let world = sim.world();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} t={:.1} reached={} pairs waiting on each other: {}",
        scenario.name,
        world.time(),
        sim.metrics().reached,
        ended.len()
    )?;
    let mut low = 0.0;
    for (bin, count) in counts.iter().enumerate() {
        match BINS.get(bin) {
            Some(high) => writeln!(out, "  {low:>4} to {high:>4} s: {count}")?,
            None => writeln!(out, "  {low:>4} s or more: {count}")?,
        }
        low = BINS.get(bin).copied().unwrap_or(low);
    }
    for ((a, b), first, last) in ended.iter().take(LONGEST_SHOWN) {
        let (pa, pb) = (world.agent(*a)?.position(), world.agent(*b)?.position());
        writeln!(
            out,
            "  {a:?} and {b:?}: {first:.2} s to {last:.2} s ({:.2} s); at the end ({:.2}, {:.2}) \
             and ({:.2}, {:.2})",
            last - first,
            pa.x,
            pa.y,
            pb.x,
            pb.y
        )?;
    }
    Ok(())
}

/// The pairs of standing agents, wanting to go, each waiting on the other; lower key first.
fn mutual_pairs(world: &World) -> Vec<(AgentKey, AgentKey)> {
    let standing = |key: AgentKey| {
        world
            .agent(key)
            .is_ok_and(|a| a.wants_to_move() && a.motion().phase == Phase::Standing)
    };
    let mut pairs = Vec::new();
    for (key, agent) in world.agents() {
        let Some((other, _)) = agent.waiting_on() else {
            continue;
        };
        if key < other
            && standing(key)
            && standing(other)
            && world
                .agent(other)
                .is_ok_and(|o| o.waiting_on().map(|(k, _)| k) == Some(key))
        {
            pairs.push((key, other));
        }
    }
    pairs
}
