//! Menge `.nav` navigation meshes: vertices, edges, obstacles and groups of polygonal nodes,
//! whitespace-separated. Only the geometry is kept: the vertices and the nodes' polygons become an
//! explicit-form level (adjacency is recomputed from shared edges); the nodes' elevation planes,
//! the edge and obstacle lists are checked for bad indices and otherwise ignored.
//!
//! Layout (Menge `NavMesh::load`): `V`, then `V` lines `x y`; `E`, then `E` lines
//! `v0 v1 node0 node1`; `O`, then `O` lines `v0 v1 node next` (`next` −1 for none); then, until
//! the end, node groups: a name, a count, and that many nodes, each `cx cy`, `n v0 … vn−1`,
//! `A B C` (the plane `z = Ax + By + C`), `ne e…`, `no o…`.

use std::path::Path;

use glam::DVec2;

use super::error::{syntax, ImportError};
use super::tokens::Tokens;
use super::{import_mesh_file, mesh_level, MeshImportOptions, MeshPolygon};
use crate::level::Level;

/// Import a Menge `.nav` file as an explicit-form level.
///
/// Errors name the file and line: a count or index that is not a number, an index out of range,
/// a file that ends early, a polygon that is clockwise or self-intersecting. Non-convex polygons
/// are triangulated.
pub fn import_menge(path: &Path, options: &MeshImportOptions) -> Result<Level, ImportError> {
    import_mesh_file(path, options, menge_level_from_str)
}

/// [`import_menge`] on a text; `file` names it in errors. The level is named `options.name`, or
/// `navmesh`.
pub fn menge_level_from_str(
    text: &str,
    file: &str,
    options: &MeshImportOptions,
) -> Result<Level, ImportError> {
    let mut t = Tokens::new(text, file);
    let (vertex_count, _) = t.index("the vertex count")?;
    let mut vertices = Vec::with_capacity(vertex_count.min(1 << 20));
    for v in 0..vertex_count {
        let (x, _) = t.number(&format!("the x of vertex {v}"))?;
        let (y, _) = t.number(&format!("the y of vertex {v}"))?;
        vertices.push(DVec2::new(x, y));
    }
    let vertex = |t: &mut Tokens, what: &str| -> Result<usize, ImportError> {
        let (i, line) = t.index(what)?;
        if i >= vertex_count {
            return Err(syntax(
                t.file(),
                line,
                format!("{what} is {i}, but there are only {vertex_count} vertices"),
            ));
        }
        Ok(i)
    };
    // Node references are checked once the node count is known.
    let mut node_refs: Vec<(usize, usize, String)> = Vec::new();
    let (edge_count, _) = t.index("the edge count")?;
    for e in 0..edge_count {
        vertex(&mut t, &format!("the first vertex of edge {e}"))?;
        vertex(&mut t, &format!("the second vertex of edge {e}"))?;
        for side in 0..2 {
            let what = format!("node {side} of edge {e}");
            let (n, line) = t.index(&what)?;
            node_refs.push((n, line, what));
        }
    }
    let (obstacle_count, _) = t.index("the obstacle count")?;
    for o in 0..obstacle_count {
        vertex(&mut t, &format!("the first vertex of obstacle {o}"))?;
        vertex(&mut t, &format!("the second vertex of obstacle {o}"))?;
        let what = format!("the node of obstacle {o}");
        let (n, line) = t.index(&what)?;
        node_refs.push((n, line, what));
        let what = format!("the next obstacle of obstacle {o}");
        let (next, line) = t.optional_index(&what)?;
        if let Some(next) = next.filter(|&n| n >= obstacle_count) {
            return Err(syntax(
                file,
                line,
                format!("{what} is {next}, but there are only {obstacle_count} obstacles"),
            ));
        }
    }
    let mut polygons = Vec::new();
    while !t.is_done() {
        let (group, _) = t.word("a node group name")?;
        let (count, _) = t.index(&format!("the node count of group `{group}`"))?;
        for _ in 0..count {
            let node = polygons.len();
            t.number(&format!("the centre x of node {node}"))?;
            t.number(&format!("the centre y of node {node}"))?;
            let line = t.line();
            let (n, _) = t.index(&format!("the vertex count of node {node}"))?;
            let mut corners = Vec::with_capacity(n.min(1024));
            for k in 0..n {
                corners.push(vertex(&mut t, &format!("vertex {k} of node {node}"))?);
            }
            for c in ["A", "B", "C"] {
                t.number(&format!("the plane coefficient {c} of node {node}"))?;
            }
            let (edges, _) = t.index(&format!("the edge count of node {node}"))?;
            for k in 0..edges {
                let (e, line) = t.index(&format!("edge {k} of node {node}"))?;
                if e >= edge_count {
                    return Err(syntax(
                        file,
                        line,
                        format!(
                            "edge {k} of node {node} is {e}, but there are only {edge_count} edges"
                        ),
                    ));
                }
            }
            let (obstacles, _) = t.index(&format!("the obstacle count of node {node}"))?;
            for k in 0..obstacles {
                let (o, line) = t.index(&format!("obstacle {k} of node {node}"))?;
                if o >= obstacle_count {
                    return Err(syntax(
                        file,
                        line,
                        format!(
                            "obstacle {k} of node {node} is {o}, but there are only {obstacle_count} obstacles"
                        ),
                    ));
                }
            }
            polygons.push(MeshPolygon {
                line,
                vertices: corners,
            });
        }
    }
    if let Some((n, line, what)) = node_refs.into_iter().find(|r| r.0 >= polygons.len()) {
        return Err(syntax(
            file,
            line,
            format!("{what} is {n}, but there are only {} nodes", polygons.len()),
        ));
    }
    let name = options.name.clone().unwrap_or_else(|| "navmesh".to_owned());
    mesh_level(vertices, polygons, file, name, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_SQUARES: &str = "6\n0 0\n1 0\n2 0\n2 1\n1 1\n0 1\n\
        1\n1 4 0 1\n\
        0\n\
        rooms\n2\n\
        0.5 0.5\n4 0 1 4 5\n0 0 0\n1 0\n0\n\
        1.5 0.5\n4 1 2 3 4\n0 0 0\n1 0\n0\n";

    #[test]
    fn two_squares_are_neighbours() {
        let level =
            menge_level_from_str(TWO_SQUARES, "two.nav", &MeshImportOptions::default()).unwrap();
        let mesh = level.navmesh();
        assert_eq!(mesh.polygon_count(), 2);
        assert_eq!(mesh.island_count(), 1);
        assert_eq!(level.name(), "navmesh");
    }

    #[test]
    fn a_bad_vertex_index_names_its_line() {
        let text = TWO_SQUARES.replace("4 1 2 3 4", "4 1 2 3 9");
        let err =
            menge_level_from_str(&text, "two.nav", &MeshImportOptions::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "two.nav:19: vertex 3 of node 1 is 9, but there are only 6 vertices"
        );
    }
}
