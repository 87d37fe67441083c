//! `sidestep path LEVEL --from X,Y --to X,Y [--radius R] [--json]`: plan a rail and print it.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use sidestep::{DVec2, PathOptions, Rail, RailSegment};

use super::{load_level, parse_point, parse_radius, CliError};

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Level file (JSON, DESIGN §5).
    level: PathBuf,
    /// Start point, metres.
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    from: DVec2,
    /// Goal point, metres.
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    to: DVec2,
    /// Agent radius, metres: the rail keeps this far from walls.
    #[arg(long, default_value = "0.4", value_parser = parse_radius)]
    radius: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Output<'a> {
    level: &'a str,
    from: [f64; 2],
    to: [f64; 2],
    radius: f64,
    corners: Vec<[f64; 2]>,
    path_length: f64,
    rail_length: f64,
    segments: Vec<SegmentOut>,
}

#[derive(Serialize)]
struct SegmentOut {
    kind: &'static str,
    points: Vec<[f64; 2]>,
    length: f64,
}

fn round(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

fn xy(p: DVec2) -> [f64; 2] {
    [round(p.x), round(p.y)]
}

fn segments_out(rail: &Rail) -> Vec<SegmentOut> {
    rail.segments()
        .iter()
        .map(|s| SegmentOut {
            kind: match s {
                RailSegment::Line(_) => "line",
                RailSegment::Quad(_) => "quad",
                RailSegment::Cubic(_) => "cubic",
            },
            points: s.control_points().iter().map(|&p| xy(p)).collect(),
            length: round(s.arclength()),
        })
        .collect()
}

pub fn run(args: PathArgs) -> Result<(), CliError> {
    let level = load_level(&args.level)?;
    let mesh = level.navmesh();
    let bad = |e: &dyn std::fmt::Display| {
        CliError::BadInput(format!(
            "{}: no rail from ({}, {}) to ({}, {}): {e}",
            args.level.display(),
            args.from.x,
            args.from.y,
            args.to.x,
            args.to.y
        ))
    };
    let options = PathOptions::from_agent_radius(args.radius);
    let path = mesh
        .find_path(args.from, args.to, &options)
        .map_err(|e| bad(&e))?;
    // The rail agents get: the smoothed path with its tangent lines re-wrapped round any wall
    // vertex they pass too close, refused if it would leave the mesh.
    let rail = mesh
        .plan_rail(args.from, args.to, &options)
        .map_err(|e| bad(&e))?;
    let out = Output {
        level: level.name(),
        from: xy(args.from),
        to: xy(args.to),
        radius: args.radius,
        corners: path.points().into_iter().map(xy).collect(),
        path_length: round(path.length()),
        rail_length: round(rail.length()),
        segments: segments_out(&rail),
    };
    if args.json {
        let text = serde_json::to_string(&out).map_err(|e| CliError::Internal(e.to_string()))?;
        println!("{text}");
    } else {
        println!(
            "level {}: rail from ({}, {}) to ({}, {}) for radius {} m",
            out.level, args.from.x, args.from.y, args.to.x, args.to.y, args.radius
        );
        println!(
            "corner path {:.3} m through {} corners; rail {:.3} m in {} segments",
            out.path_length,
            out.corners.len().saturating_sub(2),
            out.rail_length,
            out.segments.len()
        );
        for (i, s) in out.segments.iter().enumerate() {
            let points: Vec<String> = s
                .points
                .iter()
                .map(|p| format!("({:.3}, {:.3})", p[0], p[1]))
                .collect();
            println!(
                "  {i:>3} {:<5} {:>8.3} m  {}",
                s.kind,
                s.length,
                points.join(" ")
            );
        }
    }
    Ok(())
}
