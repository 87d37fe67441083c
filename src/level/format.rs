//! The level file format (DESIGN §5): an outline triangulated on load, or explicit convex polygons.

use serde::{Deserialize, Serialize};

/// A level as written in a JSON file, before validation.
///
/// Exactly one of the two forms must be present:
/// - the outline form: `boundary` (a simple polygon, either winding) and optional `holes`
///   (simple polygons; they may touch, cross or overlap the boundary and each other: the walkable
///   area is the boundary minus the union of the holes);
/// - the explicit form: `vertices` and `polygons`, convex polygons listing vertex indices
///   counter-clockwise.
///
/// Unknown fields are an error, so a misspelt key is not silently ignored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelFile {
    /// The level's name, used in messages and pictures.
    pub name: String,
    /// Outline form: the outer boundary, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Vec<[f64; 2]>>,
    /// Outline form: obstacles cut out of the boundary, metres.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holes: Vec<Vec<[f64; 2]>>,
    /// Explicit form: vertex positions, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertices: Option<Vec<[f64; 2]>>,
    /// Explicit form: convex polygons as counter-clockwise lists of indices into `vertices`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polygons: Option<Vec<Vec<usize>>>,
}
