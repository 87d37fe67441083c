//! `sidestep import (movingai MAP [--scen SCEN] [--cell C] | menge NAV | polyanya MESH)
//! [--agents N] -o FILE.json`: convert another tool's level into a level file, or, with
//! `--agents` (or `--scen`), into a scenario of rail agents on it (DESIGN §5, §6).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde::Serialize;
use sidestep::{
    import_menge, import_movingai, import_polyanya, DVec2, Level, LevelFile, MeshImportOptions,
    MovingAiOptions, PlacementOptions, Scenario, TripOptions,
};

use super::CliError;

/// Speeds of imported agents, m/s (the default gait set of `AgentDesc::from_radius`).
const SPEEDS: [f64; 3] = [0.8, 1.4, 2.6];
/// Preferred speed of imported agents, m/s.
const PREFERRED_SPEED: f64 = 1.4;
/// Frame time step of written scenarios, seconds.
const DT: f64 = 1.0 / 30.0;

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    source: Source,
}

#[derive(Debug, Subcommand)]
enum Source {
    /// A MovingAI grid map (`.map`), optionally with its `.scen` queries as agents.
    Movingai(MovingAiArgs),
    /// A Menge navigation mesh (`.nav`).
    Menge(MeshArgs),
    /// A Polyanya navigation mesh (`.mesh`, format version 2).
    Polyanya(MeshArgs),
}

#[derive(Debug, Args)]
struct MovingAiArgs {
    /// The map file.
    map: PathBuf,
    /// A scenario file of the map: its queries (start/goal cells) become the agents.
    #[arg(long, value_name = "SCEN")]
    scen: Option<PathBuf>,
    /// Side of one grid cell, metres (> 0).
    #[arg(long, default_value = "1", value_parser = parse_positive)]
    cell: f64,
    /// Smallest distance between any two agents' starts and goals, metres (at least
    /// 2 × radius × 1.05): queries whose cells are taken move to the nearest free cell this far
    /// from the others.
    #[arg(long, default_value = "0", value_parser = parse_finite)]
    spacing: f64,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Args)]
struct MeshArgs {
    /// The mesh file.
    mesh: PathBuf,
    /// Mirror the mesh top to bottom, y → H − y (for a mesh made from a y-down grid map of
    /// height H, to match `import movingai`).
    #[arg(long, value_name = "H", allow_hyphen_values = true, value_parser = parse_finite)]
    flip_y: Option<f64>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Args)]
struct CommonArgs {
    /// Where to write: the level, or with --agents/--scen the scenario.
    #[arg(short = 'o', long = "output", value_name = "FILE.json")]
    output: PathBuf,
    /// The level's name (default: the input file's name before its first dot).
    #[arg(long)]
    name: Option<String>,
    /// Write a scenario of N rail agents: the first N usable queries of --scen, or N random
    /// seeded start/goal pairs without it. Default with --scen: every usable query.
    #[arg(long, value_name = "N")]
    agents: Option<usize>,
    /// Seed of the random start/goal pairs (without --scen).
    #[arg(long, default_value = "0")]
    seed: u64,
    /// Collision radius of the agents, metres (> 0).
    #[arg(long, default_value = "0.4", value_parser = parse_positive)]
    radius: f64,
    /// With a scenario: where to write the level it refers to (default: beside the scenario,
    /// `<scenario name>.level.json`).
    #[arg(long, value_name = "FILE.json")]
    level_out: Option<PathBuf>,
    /// With a scenario: its `avoidance` object (DESIGN §5; overrides of `AvoidanceConfig` by
    /// field name), e.g. '{"jam_release": 2}'. Checked as a scenario's is. Default: none, but
    /// for a MovingAI scenario (--scen) the jam release of `movingai_avoidance`; '{}' for none.
    #[arg(long, value_name = "JSON", value_parser = parse_avoidance)]
    avoidance: Option<serde_json::Value>,
}

/// The `avoidance` a MovingAI scenario gets unless `--avoidance` says otherwise: rail agents
/// stuck 2 s in a jam steer freely (ORCA, 4 substeps) until they are clear of it
/// (docs/ALGORITHM.md, "Jam release"). The benchmark's crowds are hundreds of agents sent
/// across maps whose corridors are one agent wide, where the rail rules alone come apart one
/// agent at a time: den312d's first 500 queries, 83 of 500 arrived in the 200 s the importer
/// writes; with this, 449 (docs/PERFORMANCE.md, "Real levels", session 49). A released agent
/// halted in those corridors turns 60° right rather than the default 30°
/// (`AvoidanceConfig::release_turn_degrees`): over 16 jittered runs of den312d-500, 83.7 →
/// 87.4 % arrived (session 50).
fn movingai_avoidance() -> serde_json::Value {
    serde_json::json!({
        "jam_release": 2,
        "release_turn_degrees": 60,
        "orca": { "substeps": 4 }
    })
}

/// An `avoidance` object: JSON naming fields of `AvoidanceConfig`, each in its range.
fn parse_avoidance(text: &str) -> Result<serde_json::Value, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("`{text}` is not JSON: {e}"))?;
    if !value.is_object() {
        return Err(format!("`{text}` is not a JSON object"));
    }
    let config: sidestep::AvoidanceConfig =
        serde_json::from_value(value.clone()).map_err(|e| format!("avoidance: {e}"))?;
    config.validate()?;
    Ok(value)
}

fn parse_positive(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| format!("`{text}` is not a finite number > 0"))
}

fn parse_finite(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("`{text}` is not a finite number"))
}

pub fn run(args: ImportArgs) -> Result<(), CliError> {
    let bad = |e: sidestep::ImportError| CliError::BadInput(e.to_string());
    match args.source {
        Source::Movingai(a) => {
            let options = MovingAiOptions {
                cell: a.cell,
                name: a.common.name.clone(),
            };
            let import = import_movingai(&a.map, a.scen.as_deref(), &options).map_err(bad)?;
            let level = Arc::new(import.level.clone());
            match (&a.scen, a.common.agents) {
                (Some(scen), agents) => {
                    let count = agents.unwrap_or(import.queries.len());
                    let trips: Vec<Trip> = import
                        .trips(&TripOptions {
                            count,
                            radius: a.common.radius,
                            spacing: a.spacing,
                        })
                        .into_iter()
                        .map(|t| Trip {
                            start: t.start,
                            goal: t.goal,
                            rail_length: t.rail_length,
                        })
                        .collect();
                    if trips.len() < count {
                        return Err(CliError::BadInput(format!(
                            "{}: only {} of the {count} agents asked for fit on the map with \
                             radius {} m",
                            scen.display(),
                            trips.len(),
                            a.common.radius
                        )));
                    }
                    let mut common = a.common;
                    common.avoidance.get_or_insert_with(movingai_avoidance);
                    write_scenario(&common, &level, &trips)
                }
                (None, Some(agents)) => write_random(&a.common, level, agents),
                (None, None) => write_level(&a.common.output, level.source()),
            }
        }
        Source::Menge(a) => {
            let level = import_menge(&a.mesh, &a.options()).map_err(bad)?;
            write_mesh_level(&a.common, level)
        }
        Source::Polyanya(a) => {
            let level = import_polyanya(&a.mesh, &a.options()).map_err(bad)?;
            write_mesh_level(&a.common, level)
        }
    }
}

impl MeshArgs {
    fn options(&self) -> MeshImportOptions {
        MeshImportOptions {
            name: self.common.name.clone(),
            flip_y: self.flip_y,
        }
    }
}

/// A navmesh import: the level, or a random scenario on it with --agents.
fn write_mesh_level(common: &CommonArgs, level: Level) -> Result<(), CliError> {
    match common.agents {
        Some(agents) => write_random(common, Arc::new(level), agents),
        None => write_level(&common.output, level.source()),
    }
}

/// One agent's trip.
struct Trip {
    start: DVec2,
    goal: DVec2,
    /// Length of its planned rail, metres.
    rail_length: f64,
}

/// A scenario of `agents` random seeded trips (`Scenario::random`).
fn write_random(common: &CommonArgs, level: Arc<Level>, agents: usize) -> Result<(), CliError> {
    let options = PlacementOptions {
        agents,
        seed: common.seed,
        radius: common.radius,
        speeds: SPEEDS.to_vec(),
        preferred_speed: PREFERRED_SPEED,
        dt: DT,
        ..PlacementOptions::default()
    };
    let scenario = Scenario::random(&scenario_name(&common.output), level.clone(), &options)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let trips: Vec<Trip> = scenario
        .agents
        .iter()
        .filter_map(|a| {
            Some(Trip {
                start: a.desc.position,
                goal: a.goal?,
                rail_length: a.rail.as_ref()?.length(),
            })
        })
        .collect();
    write_scenario(common, &level, &trips)
}

fn scenario_name(output: &Path) -> String {
    output.file_stem().map_or_else(
        || "imported".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    )
}

#[derive(Serialize)]
struct AgentOut {
    start: [f64; 2],
    goal: [f64; 2],
    radius: f64,
    speeds: [f64; 3],
    speed: f64,
    mode: &'static str,
}

/// Write the level to `--level-out` and the scenario referring to it to `-o`. The duration is
/// twice the longest rail at the preferred speed plus 30 s, rounded up to 10 s.
fn write_scenario(common: &CommonArgs, level: &Level, trips: &[Trip]) -> Result<(), CliError> {
    let output = &common.output;
    let name = scenario_name(output);
    let level_path = common
        .level_out
        .clone()
        .unwrap_or_else(|| output.with_file_name(format!("{name}.level.json")));
    write_level(&level_path, level.source())?;
    let longest = trips.iter().map(|t| t.rail_length).fold(0.0, f64::max);
    let duration = ((2.0 * longest / PREFERRED_SPEED + 30.0) / 10.0).ceil() * 10.0;
    let reference = relative_path(&level_path, output);
    let agents: Vec<String> = trips
        .iter()
        .map(|t| {
            serde_json::to_string(&AgentOut {
                start: [t.start.x, t.start.y],
                goal: [t.goal.x, t.goal.y],
                radius: common.radius,
                speeds: SPEEDS,
                speed: PREFERRED_SPEED,
                mode: "rail",
            })
        })
        .collect::<Result<_, _>>()
        .map_err(|e| CliError::Internal(e.to_string()))?;
    let json = |v: &str| serde_json::Value::from(v).to_string();
    let avoidance = common
        .avoidance
        .as_ref()
        .map_or_else(String::new, |a| format!("  \"avoidance\": {a},\n"));
    let text = format!(
        "{{ \"name\": {},\n  \"level\": {},\n  \"dt\": {}, \"duration\": {}, \"seed\": {},\n{}  \"agents\": [\n    {}\n  ] }}\n",
        json(&name),
        json(&reference),
        DT,
        duration,
        common.seed,
        avoidance,
        agents.join(",\n    ")
    );
    write_text(output, &text)
}

/// Write a level file: one field per line, one hole, vertex or polygon per line.
fn write_level(path: &Path, level: &LevelFile) -> Result<(), CliError> {
    let internal = |e: serde_json::Error| CliError::Internal(e.to_string());
    let lines = |items: &[String]| format!("[\n    {}\n  ]", items.join(",\n    "));
    let each = |items: Vec<Result<String, serde_json::Error>>| -> Result<Vec<String>, CliError> {
        items.into_iter().map(|r| r.map_err(internal)).collect()
    };
    let mut fields = vec![format!(
        "\"name\": {}",
        serde_json::to_string(&level.name).map_err(internal)?
    )];
    if let Some(boundary) = &level.boundary {
        fields.push(format!(
            "\"boundary\": {}",
            serde_json::to_string(boundary).map_err(internal)?
        ));
    }
    if !level.holes.is_empty() {
        let holes = each(level.holes.iter().map(serde_json::to_string).collect())?;
        fields.push(format!("\"holes\": {}", lines(&holes)));
    }
    if let Some(vertices) = &level.vertices {
        let vertices = each(vertices.iter().map(serde_json::to_string).collect())?;
        fields.push(format!("\"vertices\": {}", lines(&vertices)));
    }
    if let Some(polygons) = &level.polygons {
        let polygons = each(polygons.iter().map(serde_json::to_string).collect())?;
        fields.push(format!("\"polygons\": {}", lines(&polygons)));
    }
    write_text(path, &format!("{{ {} }}\n", fields.join(",\n  ")))
}

fn write_text(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text)
        .map_err(|e| CliError::BadInput(format!("{}: cannot write: {e}", path.display())))
}

/// `target` as a path relative to the directory of `from` (a file), with `/` separators; the
/// absolute path when there is no relative one.
fn relative_path(target: &Path, from: &Path) -> String {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (target, from) = (absolute(target), absolute(from));
    let base = from.parent().unwrap_or(Path::new("/"));
    let Some(relative) = pathdiff::diff_paths(&target, base) else {
        return target.display().to_string();
    };
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
