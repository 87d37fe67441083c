//! Where a crowd's time goes: plays a scenario file in the built-in host and, every frame, adds
//! up the agent-seconds of the agents that want to go by locomotion phase (standing, starting,
//! walking, stopping); files each agent standing and wanting to go under what it waits on (an
//! agent walking across its way, coming the other way or going its way, one standing likewise,
//! one with nowhere to go, nothing recorded) and under what its chain of waits ends in (the kind
//! of the last link, or a cycle by length); and measures the streaks an agent spends waiting on
//! walkers going across its way, one after another. The census behind docs/ROBUSTNESS.md,
//! "Session 42".
//!
//! `cargo run --release --example wait_time_census -- SCENARIO.json`

use std::collections::BTreeMap;
use std::io::Write;

use sidestep::{AgentKey, Phase, Scenario, Simulation, World};

/// Two directions count as "the same way" within this angle, and as "coming the other way"
/// within this angle of the opposite direction, degrees.
const SAME_WAY_DEGREES: f64 = 30.0;

/// Cycles at least this long are counted together.
const LONGEST_CYCLE_SHOWN: usize = 5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args()
        .nth(1)
        .ok_or("usage: wait_time_census SCENARIO.json")?;
    let scenario = Scenario::load(&file)?;
    let mut sim = Simulation::new(&scenario)?;
    let dt = scenario.dt;
    let mut phases: BTreeMap<&'static str, f64> = BTreeMap::new();
    let mut links: BTreeMap<&'static str, f64> = BTreeMap::new();
    let mut ends: BTreeMap<String, f64> = BTreeMap::new();
    // The streak each agent is in of waiting on walkers going across (any walker, one after
    // another), seconds, and the lengths of the streaks ended.
    let mut streaks: BTreeMap<AgentKey, f64> = BTreeMap::new();
    let mut lengths: Vec<f64> = Vec::new();
    while !sim.finished() {
        sim.step();
        let world = sim.world();
        for (key, agent) in world.agents() {
            if !agent.wants_to_move() {
                continue;
            }
            let phase = match agent.motion().phase {
                Phase::Standing => "standing",
                Phase::Starting { .. } => "starting",
                Phase::Moving => "walking",
                Phase::Stopping { .. } => "stopping",
            };
            *phases.entry(phase).or_insert(0.0) += dt;
            let link = waits(world, key).then(|| link(world, key));
            if link == Some("walking, across") {
                *streaks.entry(key).or_insert(0.0) += dt;
            } else if let Some(length) = streaks.remove(&key) {
                lengths.push(length);
            }
            if let Some(link) = link {
                *links.entry(link).or_insert(0.0) += dt;
                *ends.entry(chain_end(world, key)).or_insert(0.0) += dt;
            }
        }
    }
    lengths.extend(streaks.values());
    lengths.sort_by(f64::total_cmp);
    let metrics = sim.metrics();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: reached {} of {} in {} s",
        scenario.name,
        metrics.reached,
        scenario.agents.len(),
        scenario.duration
    )?;
    writeln!(out, "  agents wanting to go, by phase (agent-seconds):")?;
    for (phase, seconds) in &phases {
        writeln!(out, "    {seconds:9.0} {phase}")?;
    }
    writeln!(out, "  standing, waiting on (agent-seconds):")?;
    for (what, seconds) in &links {
        writeln!(out, "    {seconds:9.0} {what}")?;
    }
    writeln!(
        out,
        "  standing, the chain of waits ending in (agent-seconds):"
    )?;
    for (what, seconds) in &ends {
        writeln!(out, "    {seconds:9.0} {what}")?;
    }
    let total: f64 = lengths.iter().sum();
    let over = |t: f64| lengths.iter().filter(|&&l| l > t).sum::<f64>();
    let quantile = |q: f64| {
        let at = ((lengths.len() as f64 * q) as usize).min(lengths.len().saturating_sub(1));
        lengths.get(at).copied().unwrap_or(0.0)
    };
    writeln!(
        out,
        "  streaks waiting on walkers across: {} ({total:.0} s), median {:.2} s, 90th percentile \
         {:.2} s; seconds in streaks over 1 s {:.0}, over 2 s {:.0}, over 4 s {:.0}",
        lengths.len(),
        quantile(0.5),
        quantile(0.9),
        over(1.0),
        over(2.0),
        over(4.0)
    )?;
    Ok(())
}

/// Whether an agent stands and wants to go.
fn waits(world: &World, key: AgentKey) -> bool {
    world
        .agent(key)
        .is_ok_and(|a| a.wants_to_move() && a.motion().phase == Phase::Standing)
}

/// What a waiting agent waits on, by kind and direction.
fn link(world: &World, key: AgentKey) -> &'static str {
    let Ok(agent) = world.agent(key) else {
        return "gone";
    };
    let Some((blocker, _)) = agent.waiting_on() else {
        return "nothing recorded";
    };
    let Ok(other) = world.agent(blocker) else {
        return "gone";
    };
    if !other.wants_to_move() {
        return "nowhere to go";
    }
    let cos = other.direction().dot(agent.direction());
    let limit = SAME_WAY_DEGREES.to_radians().cos();
    let standing = other.motion().phase == Phase::Standing;
    match (standing, cos >= limit, cos <= -limit) {
        (true, true, _) => "standing, same way",
        (true, false, true) => "standing, coming the other way",
        (true, false, false) => "standing, across",
        (false, true, _) => "walking, same way",
        (false, false, true) => "walking, coming the other way",
        (false, false, false) => "walking, across",
    }
}

/// Where the chain of waits from `key` ends: the kind of its last link (to an agent that does
/// not stand waiting), or a cycle.
fn chain_end(world: &World, key: AgentKey) -> String {
    let mut seen = vec![key];
    let mut current = key;
    loop {
        let Some((next, _)) = world.agent(current).ok().and_then(|a| a.waiting_on()) else {
            return "an agent waiting on nothing recorded".to_string();
        };
        if let Some(at) = seen.iter().position(|&k| k == next) {
            let length = seen.len() - at;
            return if length >= LONGEST_CYCLE_SHOWN {
                format!("a cycle of {LONGEST_CYCLE_SHOWN} or more")
            } else {
                format!("a cycle of {length}")
            };
        }
        if !waits(world, next) {
            return link(world, current).to_string();
        }
        seen.push(next);
        current = next;
    }
}
