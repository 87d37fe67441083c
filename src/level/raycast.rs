//! Walking a straight segment across the mesh: straight-line reachability and the furthest
//! on-mesh point along a ray.

use glam::DVec2;

use super::locate::ON_MESH_TOLERANCE;
use super::navmesh::{NavMesh, PolygonId, NONE};
use crate::geometry::cross;

/// Where a straight walk across the mesh ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Fraction of the segment walked before leaving the mesh, in `[0, 1]`; `1` when the whole
    /// segment is on the mesh.
    pub fraction: f64,
    /// The last on-mesh point: the segment's end when nothing was hit.
    pub point: DVec2,
    /// The wall that stopped the walk, if any, as (start, end); `None` when the segment's end was
    /// reached or when the start itself is off the mesh.
    pub wall: Option<(DVec2, DVec2)>,
    /// The polygon holding `point`, `None` when the start is off the mesh.
    pub polygon: Option<PolygonId>,
}

impl RayHit {
    /// Whether the whole segment lies on the mesh.
    pub fn reached(&self) -> bool {
        self.fraction >= 1.0 && self.polygon.is_some()
    }
}

/// The furthest point reachable in a straight line along a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FurthestPoint {
    /// The point, metres.
    pub point: DVec2,
    /// Its distance from the ray's origin, metres.
    pub distance: f64,
    /// Whether a wall stopped the ray before `max_distance`.
    pub blocked: bool,
    /// The wall that stopped it, as (start, end).
    pub wall: Option<(DVec2, DVec2)>,
}

impl NavMesh {
    /// Walk the segment `from → to` polygon by polygon (a Cyrus–Beck exit test in each convex
    /// polygon) and report where it leaves the mesh. Grazing a wall corner or running along a wall
    /// stays on the mesh (walls belong to it). Never panics: a non-finite or off-mesh start
    /// gives `fraction` 0 and no polygon.
    pub fn raycast(&self, from: DVec2, to: DVec2) -> RayHit {
        let off = RayHit {
            fraction: 0.0,
            point: from,
            wall: None,
            polygon: None,
        };
        if !to.is_finite() {
            return off;
        }
        let Some(start) = self.locate(from) else {
            return off;
        };
        let hit = self.walk(from, to, start.0);
        if hit.fraction > 0.0 || hit.wall.is_none() {
            return hit;
        }
        // Stopped at once: the start is on the boundary of its polygon (a vertex or an edge) and
        // the segment leaves into another polygon holding the start. Walk from each of those.
        let Some((c, r)) = self.polygon_grid.cell(from) else {
            return hit;
        };
        let mut best = hit;
        for &p in self.polygon_grid.items(c, r) {
            if p == start.0 || !self.polygon_contains(p, from, ON_MESH_TOLERANCE) {
                continue;
            }
            let other = self.walk(from, to, p);
            if other.fraction > best.fraction || (other.reached() && !best.reached()) {
                best = other;
            }
        }
        best
    }

    /// [`NavMesh::raycast`] from polygon `poly`, which holds `from`.
    fn walk(&self, from: DVec2, to: DVec2, mut poly: u32) -> RayHit {
        let d = to - from;
        let mut previous = NONE;
        let mut t = 0.0f64;
        // A walk crosses each polygon at most once; the cap only guards against numerical cycles.
        let cap = self.polygon_count() * 2 + 8;
        for _ in 0..cap {
            let range = self.corner_range(poly);
            let n = range.len();
            // The exit: the edge whose half-plane bound on t is smallest. Ties (passing through a
            // vertex) prefer an edge with a neighbour other than the one we came from.
            let mut exit_t = f64::INFINITY;
            let mut exit: Option<usize> = None;
            for i in 0..n {
                let a = self.vertices[self.corners[range.start + i] as usize];
                let b = self.vertices[self.corners[range.start + (i + 1) % n] as usize];
                let edge = b - a;
                // Outward normal of a counter-clockwise polygon's edge is its right normal.
                let leaving = -cross(edge, d); // = d · right_normal(edge)
                if leaving <= 0.0 {
                    continue;
                }
                let inside = cross(edge, from - a); // ≥ 0 when `from` is inside this edge
                let te = inside / leaving;
                let neighbour = self.neighbours[range.start + i];
                let better = match exit {
                    None => true,
                    Some(j) => {
                        let tie = (te - exit_t).abs() <= 1e-12 * (1.0 + exit_t.abs());
                        if tie {
                            // Collinear edges of one polygon tie everywhere along their line:
                            // the exit is the edge that holds the exit point.
                            let holds = |k: usize| {
                                let a = self.vertices[self.corners[range.start + k] as usize];
                                let b =
                                    self.vertices[self.corners[range.start + (k + 1) % n] as usize];
                                let e = b - a;
                                let u = (from + d * te - a).dot(e) / e.length_squared();
                                (-1e-9..=1.0 + 1e-9).contains(&u)
                            };
                            let current = self.neighbours[range.start + j];
                            let rank = |q: u32| {
                                if q == NONE {
                                    0
                                } else if q == previous {
                                    1
                                } else {
                                    2
                                }
                            };
                            (holds(i), rank(neighbour)) > (holds(j), rank(current))
                        } else {
                            te < exit_t
                        }
                    }
                };
                if better {
                    exit_t = te;
                    exit = Some(i);
                }
            }
            let Some(i) = exit else {
                // Zero-length segment: it stays where it is.
                return RayHit {
                    fraction: 1.0,
                    point: to,
                    wall: None,
                    polygon: Some(PolygonId(poly)),
                };
            };
            // An end on a wall (a vertex, say) is on the mesh: rounding may put the exit a hair
            // before it.
            if exit_t >= 1.0 - 1e-12 {
                return RayHit {
                    fraction: 1.0,
                    point: to,
                    wall: None,
                    polygon: Some(PolygonId(poly)),
                };
            }
            t = t.max(exit_t);
            let neighbour = self.neighbours[range.start + i];
            if neighbour == NONE {
                let a = self.vertices[self.corners[range.start + i] as usize];
                let b = self.vertices[self.corners[range.start + (i + 1) % n] as usize];
                return RayHit {
                    fraction: t,
                    point: from + d * t,
                    wall: Some((a, b)),
                    polygon: Some(PolygonId(poly)),
                };
            }
            previous = poly;
            poly = neighbour;
        }
        RayHit {
            fraction: t,
            point: from + d * t,
            wall: None,
            polygon: Some(PolygonId(poly)),
        }
    }

    /// Whether the straight segment `from → to` lies on the mesh (walls included).
    pub fn is_reachable(&self, from: DVec2, to: DVec2) -> bool {
        self.raycast(from, to).reached()
    }

    /// The width of the mesh across `direction` (need not be unit) at `point`: the on-mesh
    /// length of the line through `point` square to `direction`, each side counted up to
    /// `up_to` metres (so at most `2 × up_to`). Exact up to the raycast's tolerance
    /// ([`NavMesh::raycast`]). An off-mesh point, or a zero or non-finite direction, gives 0.
    pub(crate) fn width_across(&self, point: DVec2, direction: DVec2, up_to: f64) -> f64 {
        let Some(unit) = direction.try_normalize() else {
            return 0.0;
        };
        let across = DVec2::new(-unit.y, unit.x) * up_to;
        let left = self.raycast(point, point + across).fraction;
        let right = self.raycast(point, point - across).fraction;
        (left + right) * up_to
    }

    /// The furthest on-mesh point from `origin` along `direction` (need not be unit), up to
    /// `max_distance` metres. An off-mesh origin, a zero or non-finite direction, or a negative or
    /// NaN distance gives the origin itself with distance 0.
    pub fn furthest_along(
        &self,
        origin: DVec2,
        direction: DVec2,
        max_distance: f64,
    ) -> FurthestPoint {
        let stay = FurthestPoint {
            point: origin,
            distance: 0.0,
            blocked: true,
            wall: None,
        };
        let Some(unit) = direction.try_normalize() else {
            return stay;
        };
        if max_distance.is_nan()
            || max_distance < 0.0
            || !max_distance.is_finite()
            || !self.contains(origin)
        {
            return stay;
        }
        let hit = self.raycast(origin, origin + unit * max_distance);
        FurthestPoint {
            point: hit.point,
            distance: hit.fraction * max_distance,
            blocked: !hit.reached(),
            wall: hit.wall,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Level;

    fn level(json: serde_json::Value) -> Level {
        Level::from_json(&json.to_string(), "test").unwrap()
    }

    #[test]
    fn the_width_across_a_corridor_and_a_door_is_their_width() {
        let corridor = level(serde_json::json!({
            "name": "corridor",
            "boundary": [[0, 0], [30, 0], [30, 2.4], [0, 2.4]],
        }));
        let mesh = corridor.navmesh();
        let along = DVec2::X;
        let width = mesh.width_across(DVec2::new(12.0, 0.9), along, 5.0);
        assert!((width - 2.4).abs() < 1e-9, "{width}");
        // Each side is counted up to the limit.
        let width = mesh.width_across(DVec2::new(12.0, 0.9), along, 1.0);
        assert!((width - 1.9).abs() < 1e-9, "{width}");
        // Square to the walls, the width is the corridor's length, up to the limit.
        let width = mesh.width_across(DVec2::new(12.0, 0.9), DVec2::Y, 5.0);
        assert!((width - 10.0).abs() < 1e-9, "{width}");
        assert_eq!(
            mesh.width_across(DVec2::new(12.0, 0.9), DVec2::ZERO, 5.0),
            0.0
        );
        assert_eq!(mesh.width_across(DVec2::new(-1.0, 0.9), along, 5.0), 0.0);

        // The doorway fixture: a 1 m wall at x 9.5..10.5 with a door from y 4.4 to 5.6.
        let doorway = level(serde_json::json!({
            "name": "doorway",
            "boundary": [[0, 0], [20, 0], [20, 10], [0, 10]],
            "holes": [
                [[9.5, 0], [10.5, 0], [10.5, 4.4], [9.5, 4.4]],
                [[9.5, 5.6], [10.5, 5.6], [10.5, 10], [9.5, 10]],
            ],
        }));
        let mesh = doorway.navmesh();
        let width = mesh.width_across(DVec2::new(10.0, 5.3), along, 3.0);
        assert!((width - 1.2).abs() < 1e-9, "{width}");
        let width = mesh.width_across(DVec2::new(8.0, 5.3), along, 3.0);
        assert!((width - 6.0).abs() < 1e-9, "{width}");
    }
}
