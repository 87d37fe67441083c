//! Command-line arguments and dispatch.

mod bench;
mod import;
mod path;
mod render;
mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sidestep::DVec2;

/// Collision avoidance for preplanned locomotion: plan rails on levels and draw them.
#[derive(Debug, Parser)]
#[command(name = "sidestep", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play a scenario and print its metrics (DESIGN §6).
    Run(run::RunArgs),
    /// Time the avoidance update alone, per frame (DESIGN §6).
    Bench(bench::BenchArgs),
    /// Plan a rail across a level and print its segments and length.
    Path(path::PathArgs),
    /// Draw a level (and optionally planned rails) as SVG.
    Render(render::RenderArgs),
    /// Convert a MovingAI map, a Menge or a Polyanya navmesh into a level (or a scenario).
    Import(import::ImportArgs),
}

/// A failure, with the exit status it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The input was bad: exit 2.
    #[error("{0}")]
    BadInput(String),
    /// Something failed that should not have: exit 1.
    #[error("internal error: {0}")]
    Internal(String),
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::BadInput(_) => ExitCode::from(2),
            CliError::Internal(_) => ExitCode::from(1),
        }
    }
}

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Path(args) => path::run(args),
        Command::Render(args) => render::run(args),
        Command::Import(args) => import::run(args),
    }
}

/// Parse `X,Y` (metres) into a point; both numbers must be finite.
pub fn parse_point(text: &str) -> Result<DVec2, String> {
    let (x, y) = text
        .split_once(',')
        .ok_or_else(|| format!("`{text}` is not a point; write X,Y (for example 2.5,4)"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("`{s}` in `{text}` is not a finite number"))
    };
    Ok(DVec2::new(number(x)?, number(y)?))
}

/// Parse a radius in metres: finite and non-negative.
pub fn parse_radius(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r >= 0.0)
        .ok_or_else(|| format!("`{text}` is not a radius (a finite number of metres >= 0)"))
}

/// Load a level, mapping errors to bad input.
pub fn load_level(path: &std::path::Path) -> Result<sidestep::Level, CliError> {
    sidestep::Level::load(path).map_err(|e| CliError::BadInput(e.to_string()))
}
