//! Who waits on whom in a random crowd: plays `Scenario::random` on a level (rail agents of
//! radius 0.4 m, seeded start and goal pairs) and, at each of the given times, sorts the agents
//! standing and wanting to go by what they wait on (an agent walking, one standing and wanting
//! to go, one with nowhere to go; ahead of it or not; going its way within 45° or not; waited on
//! for over 2 s; waiting back on it), and follows each chain of waits to its end: a walker, an
//! agent with nowhere to go, or a cycle (by length). The census behind docs/ROBUSTNESS.md,
//! "Session 14: why random crowds stand".
//!
//! `cargo run --release --example wait_census -- LEVEL.json AGENTS SEED TIME [TIME ...]
//! [--horizon SECONDS]` (the sweep's horizon, `AvoidanceConfig::horizon`, default 2), or
//! `… -- --scenario SCENARIO.json TIME [TIME ...]` for a scenario file (its own agents and
//! settings; docs/ROBUSTNESS.md, "Session 16", on tradeshow-1000).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use sidestep::{AgentKey, Level, Phase, PlacementOptions, Scenario, Simulation, World};

/// Two directions count as "the same way" within this angle, degrees (the queue test of the
/// standing agents' bends).
const SAME_WAY_DEGREES: f64 = 45.0;

/// Chains longer than this are reported as long cycles.
const LONGEST_CYCLE_SHOWN: usize = 4;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: wait_census (LEVEL.json AGENTS SEED | --scenario FILE) TIME [TIME ...] \
                 [--horizon SECONDS]";
    let mut horizon = None;
    if let Some(at) = args.iter().position(|a| a == "--horizon") {
        horizon = Some(args.get(at + 1).ok_or(usage)?.parse::<f64>()?);
        args.drain(at..at + 2);
    }
    // A scenario file instead of a level and a random crowd: `--scenario FILE TIME [TIME ...]`.
    let scenario_file = match args.iter().position(|a| a == "--scenario") {
        Some(at) => {
            let file = args.get(at + 1).ok_or(usage)?.clone();
            args.drain(at..at + 2);
            Some(file)
        }
        None => None,
    };
    let fixed = if scenario_file.is_some() { 0 } else { 3 };
    if args.len() < fixed + 1 {
        return Err(usage.into());
    }
    let mut times = Vec::new();
    for time in &args[fixed..] {
        times.push(time.parse::<f64>()?);
    }
    let last = times.iter().copied().fold(0.0, f64::max);
    let (mut scenario, seed) = match scenario_file {
        Some(file) => {
            let scenario = Scenario::load(&file)?;
            let seed = scenario.seed;
            (scenario, seed)
        }
        None => {
            let level = Arc::new(Level::load(&args[0])?);
            let agents: usize = args[1].parse()?;
            let seed: u64 = args[2].parse()?;
            let options = PlacementOptions {
                agents,
                seed,
                duration: last + 1.0,
                ..Default::default()
            };
            (Scenario::random("random", level, &options)?, seed)
        }
    };
    let level = scenario.level.clone();
    let agents = scenario.agents.len();
    if let Some(horizon) = horizon {
        scenario.avoidance.horizon = horizon;
    }
    let mut sim = Simulation::new(&scenario)?;
    // Written, not printed: a closed pipe (`| head`) ends the run with an error, not a panic.
    let mut out = std::io::stdout().lock();
    for &time in &times {
        while sim.world().time() < time && !sim.finished() {
            sim.step();
        }
        let world = sim.world();
        let metrics = sim.metrics();
        writeln!(
            out,
            "{} agents={agents} seed={seed} t={:.1} reached={} collisions={} order_flips={}",
            level.name(),
            world.time(),
            metrics.reached,
            metrics.collisions,
            metrics.order_flips
        )?;
        let (links, ends) = census(world);
        writeln!(out, "  waiting on:")?;
        for (what, count) in links {
            writeln!(out, "    {count:5} {what}")?;
        }
        writeln!(out, "  chains of waits end in:")?;
        for (what, count) in ends {
            writeln!(out, "    {count:5} {what}")?;
        }
    }
    Ok(())
}

/// Whether an agent stands and wants to go.
fn waits(world: &World, key: AgentKey) -> bool {
    world
        .agent(key)
        .is_ok_and(|a| a.wants_to_move() && a.motion().phase == Phase::Standing)
}

/// What an agent is, as a blocker.
fn kind(world: &World, key: AgentKey) -> &'static str {
    match world.agent(key) {
        Err(_) => "gone",
        Ok(a) if !a.wants_to_move() => "nowhere to go",
        Ok(a) if a.motion().phase == Phase::Standing => "standing",
        Ok(_) => "walking",
    }
}

/// The waiting agents counted by the kind of their link, and by the end of their chain.
fn census(world: &World) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let mut links = BTreeMap::new();
    let mut ends = BTreeMap::new();
    let same_way = SAME_WAY_DEGREES.to_radians().cos();
    for (key, agent) in world.agents() {
        if !waits(world, key) {
            continue;
        }
        let link = match agent.waiting_on() {
            None => "nothing recorded".to_string(),
            Some((blocker, since)) => {
                let other = world.agent(blocker).ok();
                let ahead = other.is_some_and(|o| {
                    (o.position() - agent.position()).dot(agent.direction()) > 0.0
                });
                let along = other.is_some_and(|o| o.direction().dot(agent.direction()) >= same_way);
                let back = other
                    .and_then(|o| o.waiting_on())
                    .is_some_and(|(k, _)| k == key);
                format!(
                    "{}, {}{}{}{}",
                    kind(world, blocker),
                    if ahead { "ahead" } else { "not ahead" },
                    if along { ", same way" } else { "" },
                    if back { ", waiting back" } else { "" },
                    if world.time() - since > 2.0 {
                        ", over 2 s"
                    } else {
                        ""
                    }
                )
            }
        };
        *links.entry(link).or_insert(0) += 1;
        *ends.entry(chain_end(world, key)).or_insert(0) += 1;
    }
    (links, ends)
}

/// Where the chain of waits from `key` ends.
fn chain_end(world: &World, key: AgentKey) -> String {
    let mut seen = vec![key];
    let mut current = key;
    loop {
        let Some((next, _)) = world.agent(current).ok().and_then(|a| a.waiting_on()) else {
            return if waits(world, current) {
                "an agent waiting on nothing recorded".to_string()
            } else {
                kind(world, current).to_string()
            };
        };
        if let Some(at) = seen.iter().position(|&k| k == next) {
            let length = seen.len() - at;
            return if length > LONGEST_CYCLE_SHOWN {
                format!("a cycle of more than {LONGEST_CYCLE_SHOWN}")
            } else {
                format!("a cycle of {length}")
            };
        }
        if !waits(world, next) {
            return format!("{} agent", kind(world, next));
        }
        seen.push(next);
        current = next;
    }
}
