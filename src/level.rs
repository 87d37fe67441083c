//! Levels: the walkable area loaded from a level file (DESIGN §5), validated once, and the
//! navigation mesh built from it with the queries avoidance needs (point location, paths,
//! straight-line reachability, rays, nearest walls).

mod error;
mod format;
mod funnel;
mod grid;
mod locate;
mod navmesh;
mod outline;
mod path;
mod polygons;
mod raycast;
mod search;
mod walls;

pub(crate) use error::json_error_message;
pub use error::{LevelError, LevelItem, LevelProblem};
pub use format::LevelFile;
pub use navmesh::{BoundaryEdge, NavMesh, PolygonId};
pub(crate) use outline::triangulate_outline;
pub use path::{CornerVertex, Path, PathCorner, PathError, PathOptions, Turn, KEEP_RIGHT_RADII};
pub use raycast::{FurthestPoint, RayHit};
pub use walls::WallHit;

/// The fixture level `name` (`fixtures/levels/NAME.json`), for unit tests.
#[cfg(test)]
pub(crate) fn fixture_level(name: &str) -> Level {
    Level::load(format!(
        "{}/fixtures/levels/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_else(|e| panic!("fixture level {name}: {e}"))
}

use std::path::Path as FilePath;

/// A validated level: its name, its source description and its navigation mesh.
#[derive(Clone, Debug)]
pub struct Level {
    name: String,
    source: LevelFile,
    navmesh: NavMesh,
}

impl Level {
    /// Read, parse and validate a level file. Errors name the file, the item and the problem.
    pub fn load(path: impl AsRef<FilePath>) -> Result<Level, LevelError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| LevelError::Io {
            origin: origin.clone(),
            source,
        })?;
        Level::from_json(&text, &origin)
    }

    /// Parse and validate a level from JSON text; `origin` names it in errors (a file path, or
    /// something like `scenario.json: level`).
    pub fn from_json(text: &str, origin: &str) -> Result<Level, LevelError> {
        let file: LevelFile = serde_json::from_str(text).map_err(|e| LevelError::Parse {
            origin: origin.to_owned(),
            line: e.line(),
            column: e.column(),
            message: error::json_error_message(&e),
        })?;
        Level::from_file(file, origin)
    }

    /// Validate a parsed level description and build its navmesh.
    pub fn from_file(file: LevelFile, origin: &str) -> Result<Level, LevelError> {
        let invalid = |(item, problem): error::Invalid| LevelError::Invalid {
            origin: origin.to_owned(),
            level: file.name.clone(),
            item,
            problem,
        };
        let navmesh = match (&file.boundary, &file.vertices, &file.polygons) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(invalid((LevelItem::Level, LevelProblem::MixedForms)));
            }
            (Some(boundary), None, None) => {
                let t = outline::triangulate_outline(boundary, &file.holes).map_err(invalid)?;
                let triangles = t.triangles.iter().map(|tri| tri.to_vec()).collect();
                NavMesh::build(t.vertices, triangles).map_err(invalid)?
            }
            (None, Some(vertices), Some(polygons)) => {
                if !file.holes.is_empty() {
                    return Err(invalid((LevelItem::Level, LevelProblem::MixedForms)));
                }
                let (vertices, polygons) =
                    polygons::validate_polygons(vertices, polygons).map_err(invalid)?;
                NavMesh::build(vertices, polygons).map_err(invalid)?
            }
            (None, Some(_), None) => {
                return Err(invalid((
                    LevelItem::Level,
                    LevelProblem::IncompleteShape {
                        present: "vertices",
                        missing: "polygons",
                    },
                )));
            }
            (None, None, Some(_)) => {
                return Err(invalid((
                    LevelItem::Level,
                    LevelProblem::IncompleteShape {
                        present: "polygons",
                        missing: "vertices",
                    },
                )));
            }
            (None, None, None) => {
                return Err(invalid((LevelItem::Level, LevelProblem::MissingShape)))
            }
        };
        Ok(Level {
            name: file.name.clone(),
            source: file,
            navmesh,
        })
    }

    /// The level's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description the level was loaded from.
    pub fn source(&self) -> &LevelFile {
        &self.source
    }

    /// The navigation mesh.
    pub fn navmesh(&self) -> &NavMesh {
        &self.navmesh
    }
}
