//! Point location: which polygon holds a point, through the polygon grid.

use glam::DVec2;

use super::navmesh::{NavMesh, PolygonId};
use crate::geometry::orient;

/// Points within this distance (metres) outside a polygon's edge still count as inside it, so
/// points on shared edges and on walls are on the mesh.
pub(crate) const ON_MESH_TOLERANCE: f64 = 1e-7;

impl NavMesh {
    /// The polygon containing `point` (edges and walls included), or `None` when the point is off
    /// the mesh or not finite. Where polygons share an edge, the lowest-numbered one is returned.
    pub fn locate(&self, point: DVec2) -> Option<PolygonId> {
        if !point.is_finite() {
            return None;
        }
        let (c, r) = self.polygon_grid.cell(point)?;
        let mut best: Option<u32> = None;
        for &p in self.polygon_grid.items(c, r) {
            if best.is_some_and(|b| b < p) {
                continue;
            }
            if self.polygon_contains(p, point, ON_MESH_TOLERANCE) {
                best = Some(p);
            }
        }
        best.map(PolygonId)
    }

    /// Whether `point` is on the walkable area (edges included).
    pub fn contains(&self, point: DVec2) -> bool {
        self.locate(point).is_some()
    }

    /// Whether convex polygon `p` contains `point`, allowing `tolerance` metres (≥ 0) outside
    /// its edges.
    pub(crate) fn polygon_contains(&self, p: u32, point: DVec2, tolerance: f64) -> bool {
        debug_assert!(tolerance >= 0.0);
        let range = self.corner_range(p);
        let corners = &self.corners[range];
        let n = corners.len();
        for i in 0..n {
            let a = self.vertices[corners[i] as usize];
            let b = self.vertices[corners[(i + 1) % n] as usize];
            let side = orient(a, b, point);
            // The edge's length (a square root) only for a point on its outer side: the test
            // against `-tolerance × length ≤ 0` cannot fail otherwise. Exact, and most of the
            // tests are of points inside (`locate` over a grid cell's polygons, 4 % of a plaza
            // bench's run with the root taken at every edge; docs/PERFORMANCE.md, session 40).
            if side < 0.0 && side < -tolerance * (b - a).length() {
                return false;
            }
        }
        true
    }
}
