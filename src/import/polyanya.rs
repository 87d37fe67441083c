//! Polyanya `.mesh` files (format version 2): vertices with their neighbouring polygons, then
//! convex counter-clockwise polygons with their neighbours across each edge, whitespace-separated.
//! The vertices and polygons become an explicit-form level; the neighbour lists are checked for
//! bad indices and otherwise ignored (adjacency is recomputed from shared edges).
//!
//! Layout (`v2_format.txt`): `mesh`, `2`, `V P`; `V` lines `x y n p0 … pn−1`; `P` lines
//! `n v0 … vn−1 p0 … pn−1`, where −1 stands for no polygon (outside or an obstacle).

use std::path::Path;

use glam::DVec2;

use super::error::{syntax, ImportError};
use super::tokens::Tokens;
use super::{import_mesh_file, mesh_level, MeshImportOptions, MeshPolygon};
use crate::level::Level;

/// Import a Polyanya `.mesh` (version 2) file as an explicit-form level.
///
/// Errors name the file and line: a wrong header or version, a count or index that is not a
/// number, an index out of range, a file that ends early or goes on after the last polygon, a
/// polygon that is clockwise or self-intersecting. Non-convex polygons are triangulated.
pub fn import_polyanya(path: &Path, options: &MeshImportOptions) -> Result<Level, ImportError> {
    import_mesh_file(path, options, polyanya_level_from_str)
}

/// [`import_polyanya`] on a text; `file` names it in errors. The level is named
/// `options.name`, or `mesh`.
pub fn polyanya_level_from_str(
    text: &str,
    file: &str,
    options: &MeshImportOptions,
) -> Result<Level, ImportError> {
    let mut t = Tokens::new(text, file);
    let (header, line) = t.word("the header `mesh`")?;
    if header != "mesh" {
        return Err(syntax(
            file,
            line,
            format!("the file starts with `{header}`, not the header `mesh`"),
        ));
    }
    let (version, line) = t.word("the format version")?;
    if version != "2" {
        return Err(syntax(
            file,
            line,
            format!("format version `{version}` is not supported, only version 2"),
        ));
    }
    let (vertex_count, _) = t.index("the vertex count")?;
    let (polygon_count, _) = t.index("the polygon count")?;
    let polygon_ref = |t: &mut Tokens, what: &str| -> Result<(), ImportError> {
        let (p, line) = t.optional_index(what)?;
        match p {
            Some(p) if p >= polygon_count => Err(syntax(
                t.file(),
                line,
                format!("{what} is {p}, but there are only {polygon_count} polygons"),
            )),
            _ => Ok(()),
        }
    };
    let mut vertices = Vec::with_capacity(vertex_count.min(1 << 20));
    for v in 0..vertex_count {
        let (x, _) = t.number(&format!("the x of vertex {v}"))?;
        let (y, _) = t.number(&format!("the y of vertex {v}"))?;
        let (n, _) = t.index(&format!("the neighbour count of vertex {v}"))?;
        for k in 0..n {
            polygon_ref(&mut t, &format!("neighbour {k} of vertex {v}"))?;
        }
        vertices.push(DVec2::new(x, y));
    }
    let mut polygons = Vec::with_capacity(polygon_count.min(1 << 20));
    for p in 0..polygon_count {
        let line = t.line();
        let (n, _) = t.index(&format!("the vertex count of polygon {p}"))?;
        let mut corners = Vec::with_capacity(n.min(1024));
        for k in 0..n {
            let what = format!("vertex {k} of polygon {p}");
            let (i, line) = t.index(&what)?;
            if i >= vertex_count {
                return Err(syntax(
                    file,
                    line,
                    format!("{what} is {i}, but there are only {vertex_count} vertices"),
                ));
            }
            corners.push(i);
        }
        for k in 0..n {
            polygon_ref(&mut t, &format!("neighbour {k} of polygon {p}"))?;
        }
        polygons.push(MeshPolygon {
            line,
            vertices: corners,
        });
    }
    if !t.is_done() {
        let line = t.line();
        return Err(syntax(
            file,
            line,
            format!("unexpected text after the last of the {polygon_count} polygons"),
        ));
    }
    let name = options.name.clone().unwrap_or_else(|| "mesh".to_owned());
    mesh_level(vertices, polygons, file, name, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of `v2_format.txt`.
    const EXAMPLE: &str = "mesh\n2\n4 2\n0.0 0.0 2 0 -1\n1.5 0.0 3 0 1 -1\n1.5 1.5 2 1 -1\n\
        0.0 1.5 3 -1 1 0\n3 0 1 3 -1 -1 1\n3 1 2 3 0 -1 -1\n";

    #[test]
    fn the_format_example_imports() {
        let level =
            polyanya_level_from_str(EXAMPLE, "ex.mesh", &MeshImportOptions::default()).unwrap();
        assert_eq!(level.navmesh().polygon_count(), 2);
        assert!((level.navmesh().area() - 2.25).abs() < 1e-12);
    }

    #[test]
    fn flipping_keeps_polygons_counter_clockwise() {
        let options = MeshImportOptions {
            flip_y: Some(10.0),
            ..MeshImportOptions::default()
        };
        let level = polyanya_level_from_str(EXAMPLE, "ex.mesh", &options).unwrap();
        assert!(level.navmesh().contains(DVec2::new(0.5, 9.0)));
        assert!(!level.navmesh().contains(DVec2::new(0.5, 1.0)));
    }

    #[test]
    fn errors_name_the_line() {
        let text = EXAMPLE.replace("3 1 2 3 0 -1 -1", "3 1 2 3 0 -1 7");
        let err =
            polyanya_level_from_str(&text, "ex.mesh", &MeshImportOptions::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ex.mesh:9: neighbour 2 of polygon 1 is 7, but there are only 2 polygons"
        );
        let err = polyanya_level_from_str("mesh\n3\n", "ex.mesh", &MeshImportOptions::default())
            .unwrap_err();
        assert_eq!(err.line(), Some(2));
    }
}
