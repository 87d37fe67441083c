//! Interop with the `navmesh` crate (cargo feature `navmesh`): convert its `NavMesh` into a level
//! and a level into its `NavMesh`.
//!
//! The `navmesh` crate is 3D; we map our plane to its `(x, y, 0)`, and back by dropping `z`. Its
//! scalar is `f32` unless its `scalar64` feature is on, so coordinates round-trip to `f32` precision.

use crate::level::{Level, LevelError, LevelFile};

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
pub enum InteropError {
    /// The `navmesh` crate refused the mesh.
    #[error("the navmesh crate refused the mesh of level `{level}`: {message}")]
    Refused { level: String, message: String },
    /// The converted mesh is not a valid level.
    #[error(transparent)]
    Level(#[from] LevelError),
}

/// Build a `navmesh::NavMesh` from a level: our convex polygons fanned into triangles over the same
/// vertices, in the plane `z = 0`.
pub fn to_navmesh_crate(level: &Level) -> Result<::navmesh::NavMesh, InteropError> {
    let mesh = level.navmesh();
    let vertices: Vec<::navmesh::NavVec3> = mesh
        .vertices()
        .iter()
        .map(|v| ::navmesh::NavVec3::new(v.x as ::navmesh::Scalar, v.y as ::navmesh::Scalar, 0.0))
        .collect();
    let mut triangles = Vec::new();
    for id in mesh.polygon_ids() {
        let corners = mesh.polygon(id);
        for k in 1..corners.len() - 1 {
            triangles.push(::navmesh::NavTriangle::from((
                corners[0],
                corners[k],
                corners[k + 1],
            )));
        }
    }
    ::navmesh::NavMesh::new(vertices, triangles).map_err(|e| InteropError::Refused {
        level: level.name().to_owned(),
        message: format!("{e:?}"),
    })
}

/// Describe a `navmesh::NavMesh` as a level in the explicit polygon form (its triangles, projected
/// to the xy plane and turned counter-clockwise). Validate it with [`Level::from_file`], or use
/// [`level_from_navmesh_crate`].
pub fn level_file_from_navmesh_crate(mesh: &::navmesh::NavMesh, name: &str) -> LevelFile {
    let vertices: Vec<[f64; 2]> = mesh
        .vertices()
        .iter()
        .map(|v| [v.x as f64, v.y as f64])
        .collect();
    let polygons = mesh
        .triangles()
        .iter()
        .map(|t| {
            let (a, b, c) = (t.first as usize, t.second as usize, t.third as usize);
            let p = |i: usize| vertices.get(i).copied().unwrap_or([0.0, 0.0]);
            let (pa, pb, pc) = (p(a), p(b), p(c));
            let area2 = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pb[1] - pa[1]) * (pc[0] - pa[0]);
            if area2 < 0.0 {
                vec![a, c, b]
            } else {
                vec![a, b, c]
            }
        })
        .collect();
    LevelFile {
        name: name.to_owned(),
        vertices: Some(vertices),
        polygons: Some(polygons),
        ..LevelFile::default()
    }
}

/// Convert a `navmesh::NavMesh` into a validated level.
pub fn level_from_navmesh_crate(
    mesh: &::navmesh::NavMesh,
    name: &str,
) -> Result<Level, InteropError> {
    Ok(Level::from_file(
        level_file_from_navmesh_crate(mesh, name),
        &format!("navmesh crate mesh `{name}`"),
    )?)
}
