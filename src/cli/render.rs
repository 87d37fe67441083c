//! `sidestep render (LEVEL|SCENARIO) [--path X,Y X,Y]... [--radius R] -o FILE.svg`: draw a level
//! and rails, or a scenario's level with its agents, their rails and goals.

use std::path::PathBuf;

use clap::Args;
use sidestep::{DVec2, PathOptions, Scenario, SvgOptions, SvgPicture};

use super::{load_level, parse_point, parse_radius, CliError};

const COLOURS: [&str; 6] = [
    "#d1495b", "#00798c", "#edae49", "#66a182", "#2e4057", "#8d5a97",
];

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Level or scenario file (JSON, DESIGN §5); a file with an `agents` field is a scenario.
    level: PathBuf,
    /// Plan and draw a rail from the first point to the second (repeatable).
    #[arg(long, num_args = 2, value_names = ["FROM", "TO"], value_parser = parse_point, allow_hyphen_values = true)]
    path: Vec<DVec2>,
    /// Agent radius for the drawn rails, metres.
    #[arg(long, default_value = "0.4", value_parser = parse_radius)]
    radius: f64,
    /// Pixels per metre.
    #[arg(long, default_value = "20")]
    scale: f64,
    /// Output SVG file.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
}

pub fn run(args: RenderArgs) -> Result<(), CliError> {
    let options = SvgOptions {
        scale: args.scale,
        ..SvgOptions::default()
    };
    let scenario = is_scenario(&args.level)
        .then(|| Scenario::load(&args.level).map_err(|e| CliError::BadInput(e.to_string())))
        .transpose()?;
    let level = match &scenario {
        Some(scenario) => (*scenario.level).clone(),
        None => load_level(&args.level)?,
    };
    let mut picture = SvgPicture::new(&level, &options);
    if let Some(scenario) = &scenario {
        for (i, agent) in scenario.agents.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            if let Some(rail) = &agent.rail {
                picture.add_rail(rail, colour, agent.desc.radius);
            }
            picture.add_disc(agent.desc.position, agent.desc.radius, colour);
            picture.add_marker(agent.desc.position, colour, &format!("{i}"));
            if let Some(goal) = agent.goal {
                picture.add_marker(goal, colour, "");
            }
        }
    }
    for (i, pair) in args.path.chunks(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        let colour = COLOURS[i % COLOURS.len()];
        let path = level
            .navmesh()
            .find_path(from, to, &PathOptions::from_agent_radius(args.radius))
            .map_err(|e| CliError::BadInput(format!("{}: path {i}: {e}", args.level.display())))?;
        let rail = level
            .navmesh()
            .plan_rail(from, to, &PathOptions::from_agent_radius(args.radius))
            .map_err(|e| CliError::BadInput(format!("{}: path {i}: {e}", args.level.display())))?;
        picture.add_rail(&rail, colour, args.radius);
        picture.add_path(&path, colour);
        picture.add_marker(from, colour, &format!("{i}"));
        picture.add_marker(to, colour, "");
    }
    std::fs::write(&args.output, picture.finish())
        .map_err(|e| CliError::BadInput(format!("{}: cannot write: {e}", args.output.display())))?;
    Ok(())
}

/// Whether a JSON file is a scenario (an object with an `agents` field) rather than a level.
fn is_scenario(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|v| v.get("agents").is_some())
}
