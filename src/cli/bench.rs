//! `sidestep bench (SCENARIO | --level LEVEL --agents N [--mode rail|orca|ttc] [--seed S])
//! [--frames F] [--json]`: time the avoidance update alone, frame by frame (DESIGN §6).
//!
//! The scenario (a file, or `N` agents placed at random on a level by [`Scenario::random`]) is
//! played in the built-in simulation; only the avoidance update of each frame is timed (every
//! rail agent's query and the orders it produces, then the free agents' steering), not the
//! host's bookkeeping. The first [`WARM_UP_FRAMES`] frames are played untimed (caches, buffers
//! and the agents' first orders), then `F` frames are timed, whatever the scenario's duration.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use serde::Serialize;
use sidestep::{Mode, Percentiles, PlacementOptions, Scenario, Simulation};

use super::CliError;

/// Frames played before timing starts, count.
pub const WARM_UP_FRAMES: usize = 30;

/// Frames timed when `--frames` is not given, count: enough for a stable median and a p99
/// that is not the single slowest frame (3 frames above it).
pub const DEFAULT_FRAMES: u64 = 300;

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["scenario", "level"])))]
pub struct BenchArgs {
    /// Scenario file (JSON, DESIGN §5). Or give --level and --agents.
    #[arg(conflicts_with_all = ["level", "agents", "mode", "seed"])]
    scenario: Option<PathBuf>,
    /// Level file (JSON, DESIGN §5) to place --agents agents on at random (seeded).
    #[arg(long, value_name = "LEVEL", requires = "agents")]
    level: Option<PathBuf>,
    /// Number of agents to place on --level, 1 to 1,000,000.
    #[arg(long, value_name = "N", requires = "level",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    agents: Option<u64>,
    /// How the placed agents move (default rail).
    #[arg(long, value_enum, requires = "level")]
    mode: Option<BenchMode>,
    /// Seed of the random placement (default 0): the same seed places the same agents.
    #[arg(long, value_name = "S", requires = "level")]
    seed: Option<u64>,
    /// Frames to time after the warm-up, 1 to 1,000,000.
    #[arg(long, value_name = "F", default_value_t = DEFAULT_FRAMES,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    frames: u64,
    /// Print exactly one JSON object on stdout (DESIGN §6).
    #[arg(long)]
    json: bool,
}

/// How placed agents move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BenchMode {
    /// On rails, told what to do by the world's queries.
    Rail,
    /// Free-steering with ORCA.
    Orca,
    /// Free-steering with time-to-collision forces.
    Ttc,
}

impl From<BenchMode> for Mode {
    fn from(mode: BenchMode) -> Mode {
        match mode {
            BenchMode::Rail => Mode::Rail,
            BenchMode::Orca => Mode::Orca,
            BenchMode::Ttc => Mode::Ttc,
        }
    }
}

/// What `bench --json` prints (DESIGN §6), in this order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchReport {
    /// Agents in the scenario.
    pub agents: usize,
    /// Frames timed (after the warm-up).
    pub frames: usize,
    /// `rail`, `orca`, `ttc`, `stationary` when every moving agent (or, with none, every agent)
    /// has that mode, `mixed` otherwise.
    pub mode: String,
    /// Median and 99th percentile (nearest rank) of the avoidance update's time per frame,
    /// milliseconds.
    pub avoidance_ms_per_frame: Percentiles,
    /// Median frame time divided by the number of agents, nanoseconds per agent.
    pub ns_per_agent: f64,
}

pub fn run(args: BenchArgs) -> Result<(), CliError> {
    let (scenario, source) = match (&args.scenario, &args.level) {
        (Some(path), _) => (
            Scenario::load(path).map_err(|e| CliError::BadInput(e.to_string()))?,
            path.clone(),
        ),
        (None, Some(path)) => (placed(&args, path)?, path.clone()),
        (None, None) => {
            return Err(CliError::BadInput(
                "give a SCENARIO file, or --level LEVEL --agents N".into(),
            ))
        }
    };
    let frames = args.frames as usize;
    let report = bench(&scenario, frames)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", source.display())))?;
    if args.json {
        let text = serde_json::to_string(&report).map_err(|e| CliError::Internal(e.to_string()))?;
        println!("{text}");
    } else {
        println!(
            "{}: {} agents ({}), {} frames timed after {} of warm-up\n  avoidance per frame: median {:.3} ms, p99 {:.3} ms\n  median {:.0} ns per agent",
            scenario.name,
            report.agents,
            report.mode,
            report.frames,
            WARM_UP_FRAMES,
            report.avoidance_ms_per_frame.median,
            report.avoidance_ms_per_frame.p99,
            report.ns_per_agent
        );
    }
    Ok(())
}

/// The scenario of `--level LEVEL --agents N`: agents placed at random, with a duration that
/// covers the warm-up and the timed frames.
fn placed(args: &BenchArgs, path: &std::path::Path) -> Result<Scenario, CliError> {
    let level = super::load_level(path)?;
    let defaults = PlacementOptions::default();
    let frames = WARM_UP_FRAMES as f64 + args.frames as f64;
    let options = PlacementOptions {
        agents: args.agents.unwrap_or(0) as usize,
        seed: args.seed.unwrap_or(0),
        mode: args.mode.map_or(Mode::Rail, Mode::from),
        duration: frames * defaults.dt,
        ..defaults
    };
    let name = format!("{}-{}", level.name(), options.agents);
    Scenario::random(&name, Arc::new(level), &options)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))
}

/// Play [`WARM_UP_FRAMES`] untimed frames, then `frames` timed ones.
fn bench(scenario: &Scenario, frames: usize) -> Result<BenchReport, sidestep::WorldError> {
    let mut sim = Simulation::new(scenario)?;
    for _ in 0..WARM_UP_FRAMES + frames {
        sim.step();
    }
    let mut timings: Vec<f64> = sim.avoidance_timings_us()[WARM_UP_FRAMES..]
        .iter()
        .map(|us| us / 1e3)
        .collect();
    let ms = Percentiles::of(&mut timings);
    let agents = scenario.agents.len();
    Ok(BenchReport {
        agents,
        frames,
        mode: mode_name(scenario),
        avoidance_ms_per_frame: ms,
        ns_per_agent: if agents == 0 {
            0.0
        } else {
            ms.median * 1e6 / agents as f64
        },
    })
}

/// The scenario's mode as [`BenchReport::mode`] names it.
fn mode_name(scenario: &Scenario) -> String {
    let name = |mode: Mode| match mode {
        Mode::Rail => "rail",
        Mode::Orca => "orca",
        Mode::Ttc => "ttc",
        Mode::Stationary => "stationary",
    };
    let mut moving = scenario
        .agents
        .iter()
        .map(|a| a.mode)
        .filter(|&m| m != Mode::Stationary);
    let first = match moving.next() {
        Some(mode) => mode,
        None if scenario.agents.is_empty() => return "none".into(),
        None => return "stationary".into(),
    };
    if moving.all(|m| m == first) {
        name(first).into()
    } else {
        "mixed".into()
    }
}
