//! Importers of other tools' level files into [`Level`]s: MovingAI grid maps (with their `.scen`
//! start/goal queries), Menge `.nav` navigation meshes and Polyanya `.mesh` files.
//!
//! Every importer reads the whole file, reports the first problem as an [`ImportError`] naming
//! the file, the 1-based line and what is wrong, and builds the level through the same validation
//! as a level file ([`Level::from_file`]), so an imported level is as trustworthy as a written one.
//! The level formats and the coordinate conventions are documented in `docs/FORMAT.md`
//! ("Importers").

mod convex;
mod error;
mod menge;
mod movingai;
mod polyanya;
mod tokens;
mod trace;
mod trips;

pub use error::ImportError;
pub use menge::{import_menge, menge_level_from_str};
pub use movingai::{
    import_movingai, movingai_from_str, MovingAiImport, MovingAiMap, MovingAiOptions, MovingAiQuery,
};
pub use polyanya::{import_polyanya, polyanya_level_from_str};
pub use trips::{MovingAiTrip, TripOptions};

use std::path::Path;

use glam::DVec2;

use crate::level::{Level, LevelFile};

/// How a navigation mesh file (Menge `.nav`, Polyanya `.mesh`) is imported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshImportOptions {
    /// The level's name. Default (`None`): the file's name before its first dot.
    pub name: Option<String>,
    /// Mirror the mesh top to bottom, `y → flip_y − y` (and reverse every polygon so it stays
    /// counter-clockwise): for a mesh made from a y-down grid map of this height, so it lands on
    /// the same coordinates as the map imported with [`import_movingai`] (cell 1). Units of the
    /// file; finite. Default `None`: coordinates as written.
    pub flip_y: Option<f64>,
}

/// A polygon of an imported mesh: its vertex indices (counter-clockwise) and the 1-based line
/// that defines it, for errors.
struct MeshPolygon {
    line: usize,
    vertices: Vec<usize>,
}

/// Read a file to a string, naming it in the error.
fn read_text(path: &Path) -> Result<String, ImportError> {
    std::fs::read_to_string(path).map_err(|source| ImportError::Io {
        file: path.display().to_string(),
        source,
    })
}

/// The level name an importer gives by default: the file name without its extension(s) after
/// the first dot (`arena.map` → `arena`, `v2_arena.mesh` → `v2_arena`).
fn default_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match file.split_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_owned(),
        _ => file,
    }
}

/// Read a mesh file and parse it with `parse`, naming the level after the file unless the
/// options name it.
fn import_mesh_file(
    path: &Path,
    options: &MeshImportOptions,
    parse: fn(&str, &str, &MeshImportOptions) -> Result<Level, ImportError>,
) -> Result<Level, ImportError> {
    let text = read_text(path)?;
    let options = MeshImportOptions {
        name: Some(options.name.clone().unwrap_or_else(|| default_name(path))),
        ..options.clone()
    };
    parse(&text, &path.display().to_string(), &options)
}

/// The explicit-form level of an imported mesh: vertices (flipped if asked) and convex polygons
/// (non-convex ones triangulated). A polygon that is clockwise, degenerate or self-intersecting is
/// an error naming its line.
fn mesh_level(
    mut vertices: Vec<DVec2>,
    mut polygons: Vec<MeshPolygon>,
    file: &str,
    name: String,
    options: &MeshImportOptions,
) -> Result<Level, ImportError> {
    if let Some(h) = options.flip_y {
        if !h.is_finite() {
            return Err(ImportError::InvalidOptions {
                option: "flip_y",
                problem: format!("{h} is not a finite number"),
            });
        }
        for v in &mut vertices {
            v.y = h - v.y;
        }
        for p in &mut polygons {
            p.vertices.reverse();
        }
    }
    let mut pieces = Vec::with_capacity(polygons.len());
    for (k, p) in polygons.iter().enumerate() {
        let split = convex::convex_pieces(&vertices, &p.vertices)
            .map_err(|problem| error::syntax(file, p.line, format!("polygon {k} {problem}")))?;
        pieces.extend(split);
    }
    let level = LevelFile {
        name,
        vertices: Some(vertices.iter().map(|v| [v.x, v.y]).collect()),
        polygons: Some(pieces),
        ..LevelFile::default()
    };
    build_level(level, file)
}

/// Validate an imported level description, naming the source file in the error.
fn build_level(file: crate::level::LevelFile, origin: &str) -> Result<Level, ImportError> {
    Level::from_file(file, origin).map_err(|source| ImportError::Level {
        file: origin.to_owned(),
        source: Box::new(source),
    })
}
