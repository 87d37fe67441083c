//! The explicit form of a level: validate convex counter-clockwise polygons over shared vertices.

use std::collections::HashMap;

use glam::DVec2;

use super::error::{Invalid, LevelItem, LevelProblem};
use crate::geometry::{orient, signed_area2};

/// Validate the explicit form and return welded vertices and polygons.
///
/// Vertices with bit-identical coordinates are welded into one, so polygons that list separate
/// copies of a shared corner are still found to be neighbours. Collinear corners (a vertex lying on
/// the straight edge between its neighbours, as T-junction-free meshes often have) are allowed;
/// reflex corners are not.
pub(crate) fn validate_polygons(
    vertices: &[[f64; 2]],
    polygons: &[Vec<usize>],
) -> Result<(Vec<DVec2>, Vec<Vec<u32>>), Invalid> {
    let mut welded: Vec<DVec2> = Vec::with_capacity(vertices.len());
    let mut canonical: Vec<u32> = Vec::with_capacity(vertices.len());
    let mut seen: HashMap<(u64, u64), u32> = HashMap::with_capacity(vertices.len());
    for (index, v) in vertices.iter().enumerate() {
        if !v[0].is_finite() || !v[1].is_finite() {
            return Err((LevelItem::Vertex { index }, LevelProblem::NonFinite));
        }
        // +0.0 and -0.0 are the same point.
        let key = ((v[0] + 0.0).to_bits(), (v[1] + 0.0).to_bits());
        let id = *seen.entry(key).or_insert_with(|| {
            welded.push(DVec2::new(v[0], v[1]));
            (welded.len() - 1) as u32
        });
        canonical.push(id);
    }
    if polygons.is_empty() {
        return Err((LevelItem::Level, LevelProblem::NoPolygons));
    }

    let mut out = Vec::with_capacity(polygons.len());
    for (p, poly) in polygons.iter().enumerate() {
        let item = |corner: Option<usize>| LevelItem::Polygon { polygon: p, corner };
        if poly.len() < 3 {
            return Err((
                item(None),
                LevelProblem::TooFewVertices { count: poly.len() },
            ));
        }
        let mut ids = Vec::with_capacity(poly.len());
        for (c, &index) in poly.iter().enumerate() {
            if index >= vertices.len() {
                return Err((
                    item(Some(c)),
                    LevelProblem::IndexOutOfRange {
                        index,
                        count: vertices.len(),
                    },
                ));
            }
            let id = canonical[index];
            if ids.contains(&id) {
                return Err((item(Some(c)), LevelProblem::RepeatedVertex { index }));
            }
            ids.push(id);
        }
        let points: Vec<DVec2> = ids.iter().map(|&i| welded[i as usize]).collect();
        let scale = points
            .iter()
            .fold(0.0f64, |m, q| m.max((*q - points[0]).abs().max_element()));
        let area2 = signed_area2(&points);
        let tolerance = 1e-12 * scale * scale;
        if area2.abs() <= tolerance {
            return Err((item(None), LevelProblem::Degenerate));
        }
        if area2 < 0.0 {
            return Err((item(None), LevelProblem::Clockwise));
        }
        let n = points.len();
        for c in 0..n {
            let (a, b, d) = (points[(c + n - 1) % n], points[c], points[(c + 1) % n]);
            if orient(a, b, d) < -1e-9 * (b - a).length() * (d - b).length() {
                return Err((item(Some(c)), LevelProblem::NotConvex));
            }
        }
        out.push(ids);
    }
    Ok((welded, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welds_duplicate_vertices() {
        let (v, p) = validate_polygons(
            &[[0., 0.], [1., 0.], [1., 1.], [0., 0.], [1., 1.], [0., 1.]],
            &[vec![0, 1, 2], vec![3, 4, 5]],
        )
        .unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(p[1], vec![0, 2, 3]);
    }

    #[test]
    fn reports_reflex_corner() {
        let err = validate_polygons(
            &[[0., 0.], [4., 0.], [2., 1.], [4., 4.], [0., 4.]],
            &[vec![0, 1, 2, 3, 4]],
        )
        .unwrap_err();
        assert_eq!(
            err,
            (
                LevelItem::Polygon {
                    polygon: 0,
                    corner: Some(2)
                },
                LevelProblem::NotConvex
            )
        );
    }
}
