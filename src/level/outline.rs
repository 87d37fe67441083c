//! The outline form of a level: validate a boundary with holes and triangulate it with a
//! constrained Delaunay triangulation (spade).
//!
//! Holes may touch, cross or overlap the boundary and each other. Rather than computing polygon
//! unions first, every boundary and hole edge is inserted as a constraint with
//! `add_constraint_and_split` (spade splits crossing constraints at their intersection), so every
//! triangle lies wholly inside or outside each ring; a triangle is walkable when its centroid is
//! inside the boundary and outside every hole. The walkable area is therefore exactly the boundary
//! minus the union of the holes.

use glam::DVec2;
use spade::{ConstrainedDelaunayTriangulation, Point2, Triangulation};

use super::error::{Invalid, LevelItem, LevelProblem};
use crate::geometry::{orient, point_in_polygon, segments_intersect, signed_area2};

/// The triangles of a walkable outline: vertex positions and counter-clockwise triangles.
#[derive(Debug)]
pub(crate) struct Triangulated {
    pub vertices: Vec<DVec2>,
    pub triangles: Vec<[u32; 3]>,
}

/// Validate the outline and triangulate its walkable area.
pub(crate) fn triangulate_outline(
    boundary: &[[f64; 2]],
    holes: &[Vec<[f64; 2]>],
) -> Result<Triangulated, Invalid> {
    let boundary = validate_ring(boundary, |vertex| LevelItem::Boundary { vertex })?;
    let mut hole_rings = Vec::with_capacity(holes.len());
    for (h, hole) in holes.iter().enumerate() {
        let ring = validate_ring(hole, |vertex| LevelItem::Hole { hole: h, vertex })?;
        if lies_outside(&ring, &boundary) {
            return Err((
                LevelItem::Hole {
                    hole: h,
                    vertex: None,
                },
                LevelProblem::OutsideBoundary,
            ));
        }
        hole_rings.push(ring);
    }

    // spade may panic on inputs its predicates cannot resolve; turn that into an error.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        triangulate(&boundary, &hole_rings)
    }));
    let triangulated = match result {
        Ok(Ok(t)) => t,
        Ok(Err(reason)) => {
            return Err((LevelItem::Level, LevelProblem::Triangulation { reason }));
        }
        Err(_) => {
            return Err((
                LevelItem::Level,
                LevelProblem::Triangulation {
                    reason: "the triangulator failed on this outline".to_owned(),
                },
            ));
        }
    };
    if triangulated.triangles.is_empty() {
        return Err((LevelItem::Level, LevelProblem::NoWalkableArea));
    }
    Ok(triangulated)
}

/// Check one ring: finite, at least three distinct vertices, some area, no self-intersection.
/// Consecutive repeated vertices are dropped (they add nothing). Returns the cleaned ring.
fn validate_ring(
    points: &[[f64; 2]],
    item: impl Fn(Option<usize>) -> LevelItem,
) -> Result<Vec<DVec2>, Invalid> {
    let mut ring: Vec<DVec2> = Vec::with_capacity(points.len());
    let mut original_index: Vec<usize> = Vec::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        if !p[0].is_finite() || !p[1].is_finite() {
            return Err((item(Some(i)), LevelProblem::NonFinite));
        }
        let v = DVec2::new(p[0], p[1]);
        if ring.last() != Some(&v) {
            ring.push(v);
            original_index.push(i);
        }
    }
    while ring.len() > 1 && ring.first() == ring.last() {
        ring.pop();
        original_index.pop();
    }
    if ring.len() < 3 {
        return Err((
            item(None),
            LevelProblem::TooFewVertices { count: ring.len() },
        ));
    }
    // All vertices on one line: degenerate rather than "self-intersecting".
    let far = ring.iter().copied().max_by(|a, b| {
        a.distance_squared(ring[0])
            .total_cmp(&b.distance_squared(ring[0]))
    });
    let far = far.unwrap_or(ring[0]);
    let span = far.distance(ring[0]);
    if ring
        .iter()
        .all(|&p| orient(ring[0], far, p).abs() <= 1e-12 * span * span)
    {
        return Err((item(None), LevelProblem::Degenerate));
    }
    if let Some((edge, other)) = self_intersection(&ring) {
        return Err((
            item(None),
            LevelProblem::SelfIntersecting {
                edge: original_index[edge],
                other: original_index[other],
            },
        ));
    }
    let scale = ring
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    if signed_area2(&ring).abs() <= 1e-12 * scale.max(1.0).powi(2) {
        return Err((item(None), LevelProblem::Degenerate));
    }
    Ok(ring)
}

/// The first pair of edges (by index) of a closed ring that intersect other than at their shared
/// vertex. Edge `i` runs from vertex `i` to vertex `i + 1`. A sweep over edges sorted by their
/// leftmost x keeps this near `O(n log n)` on real outlines.
pub(crate) fn self_intersection(ring: &[DVec2]) -> Option<(usize, usize)> {
    let n = ring.len();
    let edge = |i: usize| (ring[i], ring[(i + 1) % n]);
    let mut order: Vec<usize> = (0..n).collect();
    let min_x = |i: usize| ring[i].x.min(ring[(i + 1) % n].x);
    order.sort_by(|&a, &b| min_x(a).total_cmp(&min_x(b)).then(a.cmp(&b)));
    let mut found: Option<(usize, usize)> = None;
    for (k, &i) in order.iter().enumerate() {
        let (a, b) = edge(i);
        let max_x = a.x.max(b.x);
        for &j in &order[k + 1..] {
            if min_x(j) > max_x {
                break;
            }
            let (c, d) = edge(j);
            let adjacent_next = (i + 1) % n == j;
            let adjacent_prev = (j + 1) % n == i;
            let hit = if adjacent_next || adjacent_prev {
                // Adjacent edges share a vertex; they are bad only if they fold back onto each
                // other (collinear and pointing apart from the shared vertex's point of view).
                let (shared, p, q) = if adjacent_next { (b, a, d) } else { (a, b, c) };
                orient(p, shared, q) == 0.0 && (p - shared).dot(q - shared) > 0.0
            } else {
                segments_intersect(a, b, c, d)
            };
            if hit {
                let pair = (i.min(j), i.max(j));
                if found.is_none_or(|f| pair < f) {
                    found = Some(pair);
                }
            }
        }
    }
    found
}

/// Whether `hole` lies entirely outside `boundary` (no vertex inside, no edge crossing, and the
/// boundary not inside the hole).
fn lies_outside(hole: &[DVec2], boundary: &[DVec2]) -> bool {
    if hole.iter().any(|&p| point_in_polygon(p, boundary)) {
        return false;
    }
    if boundary.iter().any(|&p| point_in_polygon(p, hole)) {
        return false;
    }
    let (hn, bn) = (hole.len(), boundary.len());
    for i in 0..hn {
        for j in 0..bn {
            if segments_intersect(
                hole[i],
                hole[(i + 1) % hn],
                boundary[j],
                boundary[(j + 1) % bn],
            ) {
                return false;
            }
        }
    }
    true
}

fn triangulate(boundary: &[DVec2], holes: &[Vec<DVec2>]) -> Result<Triangulated, String> {
    let mut cdt: ConstrainedDelaunayTriangulation<Point2<f64>> =
        ConstrainedDelaunayTriangulation::new();
    for ring in std::iter::once(boundary).chain(holes.iter().map(Vec::as_slice)) {
        let mut handles = Vec::with_capacity(ring.len());
        for p in ring {
            let h = cdt
                .insert(Point2::new(p.x, p.y))
                .map_err(|e| format!("vertex ({}, {}): {e:?}", p.x, p.y))?;
            handles.push(h);
        }
        for i in 0..handles.len() {
            let (a, b) = (handles[i], handles[(i + 1) % handles.len()]);
            if a != b {
                cdt.add_constraint_and_split(a, b, |p| p);
            }
        }
    }

    let mut remap = vec![u32::MAX; cdt.num_vertices()];
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for face in cdt.inner_faces() {
        let vs = face.vertices();
        let p = vs.map(|v| {
            let q = v.position();
            DVec2::new(q.x, q.y)
        });
        let area2 = orient(p[0], p[1], p[2]);
        if area2.abs() <= 0.0 {
            continue;
        }
        let centroid = (p[0] + p[1] + p[2]) / 3.0;
        if !point_in_polygon(centroid, boundary)
            || holes.iter().any(|h| point_in_polygon(centroid, h))
        {
            continue;
        }
        let mut tri = [0u32; 3];
        for (k, v) in vs.iter().enumerate() {
            let index = v.fix().index();
            if remap[index] == u32::MAX {
                remap[index] = vertices.len() as u32;
                vertices.push(p[k]);
            }
            tri[k] = remap[index];
        }
        if area2 < 0.0 {
            tri.swap(1, 2);
        }
        triangles.push(tri);
    }
    Ok(Triangulated {
        vertices,
        triangles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(t: &Triangulated) -> f64 {
        t.triangles
            .iter()
            .map(|tri| {
                orient(
                    t.vertices[tri[0] as usize],
                    t.vertices[tri[1] as usize],
                    t.vertices[tri[2] as usize],
                ) / 2.0
            })
            .sum()
    }

    #[test]
    fn square_with_hole_has_the_right_area() {
        let t = triangulate_outline(
            &[[0., 0.], [10., 0.], [10., 10.], [0., 10.]],
            &[vec![[4., 4.], [6., 4.], [6., 6.], [4., 6.]]],
        )
        .unwrap();
        assert!((area(&t) - 96.0).abs() < 1e-9);
        assert!(t.triangles.iter().all(|tri| orient(
            t.vertices[tri[0] as usize],
            t.vertices[tri[1] as usize],
            t.vertices[tri[2] as usize]
        ) > 0.0));
    }

    #[test]
    fn holes_touching_and_crossing_the_boundary_are_cut_out() {
        // The doorway of DESIGN §5: two wall holes touching the boundary, plus one hole crossing
        // the right edge and two overlapping holes.
        let t = triangulate_outline(
            &[[0., 0.], [20., 0.], [20., 10.], [0., 10.]],
            &[
                vec![[9.5, 0.], [10.5, 0.], [10.5, 4.4], [9.5, 4.4]],
                vec![[9.5, 5.6], [10.5, 5.6], [10.5, 10.], [9.5, 10.]],
                vec![[19., 1.], [21., 1.], [21., 2.], [19., 2.]],
                vec![[2., 2.], [4., 2.], [4., 4.], [2., 4.]],
                vec![[3., 3.], [5., 3.], [5., 5.], [3., 5.]],
            ],
        )
        .unwrap();
        let expected = 200.0 - 4.4 - 4.4 - 1.0 - (4.0 + 4.0 - 1.0);
        assert!((area(&t) - expected).abs() < 1e-9, "{}", area(&t));
    }

    #[test]
    fn clockwise_boundary_is_accepted() {
        let t = triangulate_outline(&[[0., 0.], [0., 4.], [4., 4.], [4., 0.]], &[]).unwrap();
        assert!((area(&t) - 16.0).abs() < 1e-9);
    }

    #[test]
    fn bow_tie_is_self_intersecting() {
        let err = triangulate_outline(&[[0., 0.], [4., 4.], [4., 0.], [0., 4.]], &[]).unwrap_err();
        assert_eq!(err.1, LevelProblem::SelfIntersecting { edge: 0, other: 2 });
    }

    #[test]
    fn hole_covering_everything_leaves_no_area() {
        let err = triangulate_outline(
            &[[0., 0.], [4., 0.], [4., 4.], [0., 4.]],
            &[vec![[-1., -1.], [5., -1.], [5., 5.], [-1., 5.]]],
        )
        .unwrap_err();
        assert_eq!(err.1, LevelProblem::NoWalkableArea);
    }
}
