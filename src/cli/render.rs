//! `sidestep render LEVEL [--path X,Y X,Y]... [--radius R] -o FILE.svg`: draw a level and rails.

use std::path::PathBuf;

use clap::Args;
use sidestep::{DVec2, PathOptions, SvgOptions, SvgPicture};

use super::{load_level, parse_point, parse_radius, CliError};

const COLOURS: [&str; 6] = [
    "#d1495b", "#00798c", "#edae49", "#66a182", "#2e4057", "#8d5a97",
];

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Level file (JSON, DESIGN §5).
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
    let level = load_level(&args.level)?;
    let options = SvgOptions {
        scale: args.scale,
        ..SvgOptions::default()
    };
    let mut picture = SvgPicture::new(&level, &options);
    for (i, pair) in args.path.chunks(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        let colour = COLOURS[i % COLOURS.len()];
        let path = level
            .navmesh()
            .find_path(from, to, &PathOptions::from_agent_radius(args.radius))
            .map_err(|e| CliError::BadInput(format!("{}: path {i}: {e}", args.level.display())))?;
        let rail = sidestep::smooth_path(&path)
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
