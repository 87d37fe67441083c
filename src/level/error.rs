//! Errors raised while loading and validating a level: each names the file, the level, the item
//! and what is wrong with it.

use std::fmt;

/// The part of a level an error is about, as a person reading the file would point at it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelItem {
    /// The level as a whole.
    Level,
    /// The outline's boundary, or one of its vertices.
    Boundary { vertex: Option<usize> },
    /// Hole `hole` (0-based), or one of its vertices.
    Hole { hole: usize, vertex: Option<usize> },
    /// Entry `index` of the explicit form's `vertices`.
    Vertex { index: usize },
    /// Polygon `polygon` (0-based) of the explicit form, or one of its corners (position in the
    /// polygon's index list).
    Polygon {
        polygon: usize,
        corner: Option<usize>,
    },
}

impl fmt::Display for LevelItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LevelItem::Level => write!(f, "level"),
            LevelItem::Boundary { vertex: None } => write!(f, "boundary"),
            LevelItem::Boundary { vertex: Some(v) } => write!(f, "boundary vertex {v}"),
            LevelItem::Hole { hole, vertex: None } => write!(f, "hole {hole}"),
            LevelItem::Hole {
                hole,
                vertex: Some(v),
            } => write!(f, "hole {hole} vertex {v}"),
            LevelItem::Vertex { index } => write!(f, "vertex {index}"),
            LevelItem::Polygon {
                polygon,
                corner: None,
            } => write!(f, "polygon {polygon}"),
            LevelItem::Polygon {
                polygon,
                corner: Some(c),
            } => write!(f, "polygon {polygon} corner {c}"),
        }
    }
}

/// What is wrong with a [`LevelItem`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LevelProblem {
    #[error("has a coordinate that is not a finite number")]
    NonFinite,
    #[error("has {count} vertices, at least 3 are needed")]
    TooFewVertices { count: usize },
    #[error("encloses no area (its vertices are collinear or repeated)")]
    Degenerate,
    #[error("is clockwise, polygons must list their vertices counter-clockwise")]
    Clockwise,
    #[error("is not convex (reflex turn at this corner)")]
    NotConvex,
    #[error("edge {edge} crosses edge {other}")]
    SelfIntersecting { edge: usize, other: usize },
    #[error("refers to vertex {index}, but there are only {count} vertices")]
    IndexOutOfRange { index: usize, count: usize },
    #[error("uses vertex {index} twice")]
    RepeatedVertex { index: usize },
    #[error("lies entirely outside the boundary")]
    OutsideBoundary,
    #[error("edge ({a}, {b}) is shared by more than two polygons")]
    NonManifoldEdge { a: usize, b: usize },
    #[error(
        "overlaps polygon {other} (they traverse the shared edge ({a}, {b}) in the same direction)"
    )]
    Overlapping { other: usize, a: usize, b: usize },
    #[error("has no walkable area left once the holes are cut out")]
    NoWalkableArea,
    #[error("has no polygons (`polygons` is empty), so nothing is walkable")]
    NoPolygons,
    #[error("gives both an outline (`boundary`) and explicit polygons (`vertices`/`polygons`); use one form")]
    MixedForms,
    #[error("gives neither `boundary` nor `vertices` and `polygons`")]
    MissingShape,
    #[error("gives `{present}` without `{missing}`")]
    IncompleteShape {
        present: &'static str,
        missing: &'static str,
    },
    #[error("could not be triangulated: {reason}")]
    Triangulation { reason: String },
}

/// Why a level could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LevelError {
    /// The file could not be read.
    #[error("{origin}: cannot read the level file: {source}")]
    Io {
        origin: String,
        #[source]
        source: std::io::Error,
    },
    /// The text is not JSON of the level format.
    #[error("{origin}: not a valid level (line {line}, column {column}): {message}")]
    Parse {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The level parsed but does not validate.
    #[error("{origin}: level `{level}`: {item} {problem}")]
    Invalid {
        origin: String,
        level: String,
        item: LevelItem,
        problem: LevelProblem,
    },
}

impl LevelError {
    /// The item and problem of an [`LevelError::Invalid`], for matching in tests and tools.
    pub fn invalid(&self) -> Option<(&LevelItem, &LevelProblem)> {
        match self {
            LevelError::Invalid { item, problem, .. } => Some((item, problem)),
            _ => None,
        }
    }
}

/// A validation failure before the file name and level name are attached.
pub(crate) type Invalid = (LevelItem, LevelProblem);

/// serde_json's description of a parse error without the " at line L column C" it appends:
/// our errors give the location in their own fields.
pub(crate) fn json_error_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}
