//! `sidestep run SCENARIO [--json] [--svg FILE] [--trace FILE]`: play a scenario and report the
//! metrics of DESIGN §6.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use sidestep::{AgentState, DVec2, Scenario, Simulation, SvgOptions, SvgPicture};

use super::CliError;

/// Runs with more agent-frames than this show a progress bar (when stderr is a terminal).
const PROGRESS_THRESHOLD: usize = 200_000;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Scenario file (JSON, DESIGN §5).
    scenario: PathBuf,
    /// Print exactly one JSON object, the metrics, on stdout.
    #[arg(long)]
    json: bool,
    /// Draw the level, rails, traces coloured by order and the collision points as SVG.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Write every agent's state every frame as CSV (see docs/FORMAT.md).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
}

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let scenario = Scenario::load(&args.scenario).map_err(|e| CliError::BadInput(e.to_string()))?;
    let mut sim = Simulation::new(&scenario)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scenario.display())))?;
    let frames = scenario.frames();
    let mut trace = match &args.trace {
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|e| {
                CliError::BadInput(format!("{}: cannot write: {e}", path.display()))
            })?;
            let mut w = std::io::BufWriter::new(file);
            writeln!(w, "frame,time,agent,x,y,s,speed,state,order").map_err(io_error)?;
            Some(w)
        }
        None => None,
    };
    let mut tracks: Vec<Vec<(DVec2, AgentState)>> = if args.svg.is_some() {
        sim.agents()
            .iter()
            .map(|a| vec![(a.position, a.state())])
            .collect()
    } else {
        Vec::new()
    };
    let progress = (std::io::stderr().is_terminal()
        && frames * sim.agents().len().max(1) > PROGRESS_THRESHOLD)
        .then(|| indicatif::ProgressBar::new(frames as u64));
    let mut line = String::new();
    while !sim.finished() {
        sim.step();
        if let Some(w) = trace.as_mut() {
            let frame = sim.frame() - 1;
            let time = sim.frame() as f64 * scenario.dt;
            line.clear();
            for (i, a) in sim.agents().iter().enumerate() {
                let order = a.order.as_ref().map_or(String::new(), order_text);
                let _ = writeln!(
                    line,
                    "{frame},{time:.4},{i},{:.4},{:.4},{:.4},{:.4},{},{order}",
                    a.position.x,
                    a.position.y,
                    a.s,
                    a.speed,
                    a.state().name()
                );
            }
            w.write_all(line.as_bytes()).map_err(io_error)?;
        }
        for (track, a) in tracks.iter_mut().zip(sim.agents()) {
            track.push((a.position, a.state()));
        }
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if let Some(mut w) = trace {
        w.flush().map_err(io_error)?;
    }
    if let Some(path) = &args.svg {
        std::fs::write(path, picture(&sim, &tracks))
            .map_err(|e| CliError::BadInput(format!("{}: cannot write: {e}", path.display())))?;
    }
    let metrics = sim.metrics();
    if args.json {
        let text =
            serde_json::to_string(&metrics).map_err(|e| CliError::Internal(e.to_string()))?;
        println!("{text}");
    } else {
        println!(
            "{}: {} agents, {} frames ({:.1} s simulated)\n  reached {}  collisions {}  max penetration {:.3}  off-mesh frames {}\n  travel time ratio {:.3}  orders: {} speed changes, {} stops, {} reroutes  flips {}\n  avoidance per frame: median {:.1} us, p99 {:.1} us",
            metrics.scenario,
            metrics.agents,
            metrics.frames,
            metrics.sim_seconds,
            metrics.reached,
            metrics.collisions,
            metrics.max_penetration,
            metrics.off_mesh_frames,
            metrics.travel_time_ratio,
            metrics.orders.speed_change,
            metrics.orders.stop,
            metrics.orders.reroute,
            metrics.order_flips,
            metrics.avoidance_us_per_frame.median,
            metrics.avoidance_us_per_frame.p99
        );
    }
    Ok(())
}

fn io_error(e: std::io::Error) -> CliError {
    CliError::BadInput(format!("cannot write the trace: {e}"))
}

/// An order as written in traces: `speed 0.8`, `stop`, `start 1.4`.
pub fn order_text(order: &sidestep::Order) -> String {
    match order {
        sidestep::Order::Continue => String::new(),
        sidestep::Order::ChangeSpeed { speed } => format!("speed {speed}"),
        sidestep::Order::Stop { .. } => "stop".into(),
        sidestep::Order::Start { speed } => format!("start {speed}"),
        sidestep::Order::Wait { .. } => "wait".into(),
        sidestep::Order::Reroute { reroute, .. } => reroute_text(reroute),
        sidestep::Order::Release { goal } => {
            format!("release to ({:.3}, {:.3})", goal.x, goal.y)
        }
        sidestep::Order::Rejoin { speed, .. } => format!("rejoin {speed}"),
    }
}

/// A reroute as written in traces and logs: `reroute avoid left via (3.25, 1.9)`.
pub fn reroute_text(reroute: &sidestep::Reroute) -> String {
    let reason = match reroute.reason {
        sidestep::RerouteReason::Avoid => "avoid",
        sidestep::RerouteReason::Destination => "destination",
        sidestep::RerouteReason::Yield => "yield",
        sidestep::RerouteReason::Resume => "resume",
        sidestep::RerouteReason::Detour => "detour",
    };
    let side = match reroute.side {
        Some(sidestep::Side::Left) => " left",
        Some(sidestep::Side::Right) => " right",
        None => "",
    };
    format!(
        "reroute {reason}{side} via ({:.3}, {:.3})",
        reroute.via.x, reroute.via.y
    )
}

/// The colour of a state in pictures.
fn colour(state: AgentState) -> &'static str {
    match state {
        AgentState::Idle => "#7f7f7f",
        AgentState::Waiting => "#d62728",
        AgentState::Starting => "#2ca02c",
        AgentState::Preferred => "#1f77b4",
        AgentState::Slower => "#ff7f0e",
        AgentState::Faster => "#9467bd",
        AgentState::Stopping => "#e377c2",
    }
}

fn picture(sim: &Simulation, tracks: &[Vec<(DVec2, AgentState)>]) -> String {
    let scenario = sim.scenario();
    let mut svg = SvgPicture::new(&scenario.level, &SvgOptions::default());
    // Planned rails: dashed when the world rewrote them, solid grey otherwise; each
    // rewritten rail solid (from its start to its end), with its avoidance point.
    let mut rewritten = vec![false; sim.agents().len()];
    for record in &sim.log {
        if let sidestep::Order::Reroute { .. } = record.order {
            rewritten[record.agent] = true;
        }
    }
    for (i, a) in scenario.agents.iter().enumerate() {
        if let Some(rail) = &a.rail {
            if rewritten[i] {
                svg.add_rail_dashed(rail, "#9f9f9f");
            } else {
                svg.add_rail(rail, "#c7c7c7", 0.0);
            }
        }
    }
    for record in &sim.log {
        if let sidestep::Order::Reroute { rail, reroute } = &record.order {
            svg.add_rail(rail, "#17becf", 0.0);
            svg.add_marker(reroute.via, "#17becf", "");
        }
    }
    for track in tracks {
        // One polyline per run of the same state, overlapping by one point.
        let mut start = 0;
        for i in 1..=track.len() {
            if i == track.len() || track[i].1 != track[start].1 {
                let points: Vec<DVec2> = track[start..(i + 1).min(track.len())]
                    .iter()
                    .map(|p| p.0)
                    .collect();
                svg.add_polyline(&points, colour(track[start].1), 3.0);
                start = i;
            }
        }
    }
    for (i, a) in sim.agents().iter().enumerate() {
        svg.add_disc(a.position, a.desc.radius, colour(a.state()));
        if let Some(goal) = a.goal {
            svg.add_marker(goal, "#444444", &format!("{i}"));
        }
    }
    for (_, event) in &sim.contact_events {
        svg.add_cross(event.at, "#d62728", 12.0);
    }
    svg.finish()
}
