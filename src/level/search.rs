//! A* over the polygon graph: the corridor of polygons a path crosses.
//!
//! Nodes are polygons; a node's position is the point where it was entered, chosen on the
//! radius-shrunk portal as the point minimising `|parent − p| + |p − goal|` (where the straight
//! line from the parent's entry point to the goal crosses the portal, or the nearer end). Costs are
//! Euclidean distances between entry points and the heuristic is the straight-line distance to the
//! goal, so corridors follow the geometry rather than polygon centroids.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::DVec2;

use super::navmesh::{NavMesh, PolygonId, NONE};
use crate::geometry::cross;

#[derive(Clone, Copy, PartialEq)]
struct Open {
    f: f64,
    polygon: u32,
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // Min-heap on f; ties broken by polygon index for a deterministic order.
        other
            .f
            .total_cmp(&self.f)
            .then_with(|| other.polygon.cmp(&self.polygon))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl NavMesh {
    /// The polygons from `start` to `goal` (inclusive), or `None` when no corridor passes with
    /// portals whose best wall clearance is at least `radius`.
    pub(crate) fn corridor(
        &self,
        start: PolygonId,
        from: DVec2,
        goal: PolygonId,
        to: DVec2,
        radius: f64,
    ) -> Option<Vec<u32>> {
        if start == goal {
            return Some(vec![start.0]);
        }
        let n = self.polygon_count();
        let mut g = vec![f64::INFINITY; n];
        let mut parent = vec![NONE; n];
        let mut entry = vec![DVec2::ZERO; n];
        let mut open = BinaryHeap::new();
        g[start.0 as usize] = 0.0;
        entry[start.0 as usize] = from;
        open.push(Open {
            f: from.distance(to),
            polygon: start.0,
        });
        while let Some(Open { f, polygon: p }) = open.pop() {
            let pu = p as usize;
            // Entry points make costs path-dependent, so a polygon may be improved after it was
            // expanded: it is then reopened (stale heap entries are skipped by their f).
            if f > g[pu]
                + if p == goal.0 {
                    0.0
                } else {
                    entry[pu].distance(to)
                }
                + 1e-9
            {
                continue;
            }
            if p == goal.0 {
                let mut corridor = vec![p];
                let mut at = p;
                while parent[at as usize] != NONE {
                    at = parent[at as usize];
                    corridor.push(at);
                }
                corridor.reverse();
                return Some(corridor);
            }
            let here = entry[pu];
            let range = self.corner_range(p);
            let count = range.len();
            for i in 0..count {
                let q = self.neighbours[range.start + i];
                if q == NONE || q == parent[pu] {
                    continue;
                }
                let a = self.corners[range.start + i];
                let b = self.corners[range.start + (i + 1) % count];
                let (left, right) = (self.vertices[b as usize], self.vertices[a as usize]);
                if radius > 0.0
                    && (self.portal_clearance[range.start + i].0 < radius
                        || self.portal_width(left, right, b, a, radius) < 0.0)
                {
                    continue;
                }
                let portal = self.shrunk_portal(left, right, b, a, radius);
                let point = crossing_point(here, to, portal.left, portal.right);
                let mut cost = g[pu] + here.distance(point);
                let h = if q == goal.0 {
                    // Entering the goal polygon: the rest is a straight line.
                    cost += point.distance(to);
                    0.0
                } else {
                    point.distance(to)
                };
                if cost < g[q as usize] {
                    g[q as usize] = cost;
                    parent[q as usize] = p;
                    entry[q as usize] = if q == goal.0 { to } else { point };
                    open.push(Open {
                        f: cost + h,
                        polygon: q,
                    });
                }
            }
        }
        None
    }
}

/// The point of segment `left → right` minimising `|from − p| + |p − to|`: where segment
/// `from → to` crosses it, or else the end that gives the shorter detour.
fn crossing_point(from: DVec2, to: DVec2, left: DVec2, right: DVec2) -> DVec2 {
    let d = to - from;
    let e = right - left;
    let denom = cross(d, e);
    if denom.abs() > 1e-300 {
        let t = cross(left - from, d) / denom;
        let s = cross(left - from, e) / denom;
        if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&s) {
            return left + e * t;
        }
    }
    let cost = |p: DVec2| from.distance(p) + p.distance(to);
    if cost(left) <= cost(right) {
        left
    } else {
        right
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_point_picks_intersection_or_end() {
        let p = crossing_point(
            DVec2::new(0., 0.),
            DVec2::new(2., 0.),
            DVec2::new(1., 1.),
            DVec2::new(1., -1.),
        );
        assert!((p - DVec2::new(1., 0.)).length() < 1e-12);
        let p = crossing_point(
            DVec2::new(0., 0.),
            DVec2::new(2., 0.),
            DVec2::new(1., 3.),
            DVec2::new(1., 1.),
        );
        assert_eq!(p, DVec2::new(1., 1.));
    }
}
