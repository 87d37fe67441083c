//! Convex pieces of an imported polygon: a convex polygon is kept whole, a non-convex simple one
//! is triangulated (constrained Delaunay, through the outline triangulator), so a navmesh format
//! that allows non-convex polygons still yields a valid explicit-form level.

use std::collections::HashMap;

use glam::DVec2;

use crate::geometry::{orient, signed_area2};
use crate::level::triangulate_outline;

/// Split polygon `polygon` (counter-clockwise indices into `vertices`) into convex
/// counter-clockwise pieces over the same indices. Collinear corners are allowed, as in the
/// explicit form. Errors say what is wrong with the polygon ("is clockwise", ...).
pub(crate) fn convex_pieces(
    vertices: &[DVec2],
    polygon: &[usize],
) -> Result<Vec<Vec<usize>>, String> {
    if polygon.len() < 3 {
        return Err(format!(
            "has {} vertices, at least 3 are needed",
            polygon.len()
        ));
    }
    let points: Vec<DVec2> = polygon.iter().map(|&i| vertices[i]).collect();
    let scale = points
        .iter()
        .fold(0.0f64, |m, q| m.max((*q - points[0]).abs().max_element()));
    let area2 = signed_area2(&points);
    if area2.abs() <= 1e-12 * scale * scale {
        return Err("encloses no area".to_owned());
    }
    if area2 < 0.0 {
        return Err("is clockwise; polygons must list their vertices counter-clockwise".to_owned());
    }
    let n = points.len();
    let convex = (0..n).all(|c| {
        let (a, b, d) = (points[(c + n - 1) % n], points[c], points[(c + 1) % n]);
        orient(a, b, d) >= -1e-9 * (b - a).length() * (d - b).length()
    });
    if convex {
        return Ok(vec![polygon.to_vec()]);
    }
    let ring: Vec<[f64; 2]> = points.iter().map(|p| [p.x, p.y]).collect();
    let triangulated = triangulate_outline(&ring, &[])
        .map_err(|(_, problem)| format!("is not convex and {problem}"))?;
    let by_position: HashMap<(u64, u64), usize> = polygon
        .iter()
        .map(|&i| {
            (
                (
                    (vertices[i].x + 0.0).to_bits(),
                    (vertices[i].y + 0.0).to_bits(),
                ),
                i,
            )
        })
        .collect();
    let mut pieces = Vec::with_capacity(triangulated.triangles.len());
    for tri in &triangulated.triangles {
        let mut piece = Vec::with_capacity(3);
        for &v in tri {
            let p = triangulated.vertices[v as usize];
            let index = by_position
                .get(&((p.x + 0.0).to_bits(), (p.y + 0.0).to_bits()))
                .ok_or("is not convex and not simple (its edges cross)")?;
            piece.push(*index);
        }
        pieces.push(piece);
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(points: &[[f64; 2]]) -> Vec<DVec2> {
        points.iter().map(|p| DVec2::new(p[0], p[1])).collect()
    }

    #[test]
    fn convex_polygons_stay_whole() {
        let vertices = v(&[[0., 0.], [2., 0.], [4., 0.], [4., 4.], [0., 4.]]);
        let pieces = convex_pieces(&vertices, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(pieces, vec![vec![0, 1, 2, 3, 4]]);
    }

    #[test]
    fn an_l_is_triangulated_over_its_own_vertices() {
        let vertices = v(&[[0., 0.], [4., 0.], [4., 1.], [1., 1.], [1., 4.], [0., 4.]]);
        let pieces = convex_pieces(&vertices, &[0, 1, 2, 3, 4, 5]).unwrap();
        assert_eq!(pieces.len(), 4);
        let area: f64 = pieces
            .iter()
            .map(|p| orient(vertices[p[0]], vertices[p[1]], vertices[p[2]]) / 2.0)
            .sum();
        assert!((area - 7.0).abs() < 1e-12);
    }

    #[test]
    fn clockwise_is_refused() {
        let vertices = v(&[[0., 0.], [0., 1.], [1., 0.]]);
        assert!(convex_pieces(&vertices, &[0, 1, 2])
            .unwrap_err()
            .contains("clockwise"));
    }
}
