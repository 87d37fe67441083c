//! Shortest-path search over the polygon graph: the corridor of polygons the shortest path crosses.
//!
//! The search is Polyanya (D. Harabor, A. Grastien, D. Öz, V. Aksakalli, "Optimal Any-Angle
//! Pathfinding In Practice", JAIR 56, 2016), run over the radius-shrunk portals the funnel uses. A
//! search node is a *root* (the start, or a portal end the path turns around) with its exact
//! distance from the start, and an *interval* of a portal every point of which the root sees in a
//! straight line. Expanding a node projects the cone from the root through the interval across the
//! polygon behind it: the parts of that polygon's portals inside the cone keep the root
//! (observable successors); where the interval ends at a portal end, the parts beyond the cone's
//! edge are seen from that end, which becomes the new root (the path turns there). The heuristic
//! is the length of the shortest root → interval → goal polyline (the goal mirrored across the
//! interval's line when it lies on the root's side), a lower bound, so the first goal node popped
//! closes an optimal path. Roots are pruned by their best distance, as in the paper.
//!
//! Exact, up to floating-point rounding, for the model the funnel uses: the shortest polyline
//! through a sequence of shrunk portals, over all sequences. (A* over polygons with one entry point
//! per polygon, which this replaces, is not: it chose corridors up to 0.4 % longer on the fixture
//! levels and 7 m longer on Dragon Age maps.)

use std::cmp::Ordering;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};

use glam::DVec2;

use super::navmesh::{NavMesh, PolygonId, NONE};
use crate::geometry::{closest_on_segment, cross};

/// One search node: a root, and the interval of the portal into `polygon` that it sees.
#[derive(Clone, Copy, Debug)]
struct Node {
    root: DVec2,
    /// Distance from the start to the root along the path, metres.
    g: f64,
    /// The interval's ends, left and right as seen walking from the root into `polygon`.
    left: DVec2,
    right: DVec2,
    /// Whether each end is the end of the portal's passable part: only there can a path turn.
    left_is_corner: bool,
    right_is_corner: bool,
    /// The polygon behind the interval.
    polygon: u32,
    /// Index into `corners` of the edge of `polygon` the interval lies on; `NONE` for a goal node.
    entry_slot: u32,
    /// The node this one was generated from (`NONE` for the start's successors).
    parent: u32,
}

#[derive(Clone, Copy, PartialEq)]
struct Open {
    f: f64,
    node: u32,
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // Min-heap on f; ties broken by node index (creation order) for a deterministic search.
        other
            .f
            .total_cmp(&self.f)
            .then_with(|| other.node.cmp(&self.node))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A root this close to its interval (metres, relative to the lengths involved) is on it.
const ON_INTERVAL: f64 = 1e-9;

/// A bound on search nodes per polygon, against floating-point pathologies only: Polyanya
/// terminates on its own (observable successors move away from their root, new roots are pruned
/// by distance).
const NODES_PER_CORNER: usize = 64;

impl NavMesh {
    /// The polygons from `start` to `goal` (inclusive) that the shortest path for an agent of
    /// `radius` crosses, or `None` when no corridor passes with portals whose best wall clearance
    /// is at least `radius`.
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
        let mut search = Search {
            mesh: self,
            radius,
            goal: goal.0,
            to,
            nodes: Vec::new(),
            open: BinaryHeap::new(),
            best_root: HashMap::new(),
        };
        search.start(start.0, from);
        let limit = NODES_PER_CORNER * self.corners.len() + 1024;
        while let Some(Open { node, .. }) = search.open.pop() {
            let n = search.nodes[node as usize];
            if n.entry_slot == NONE {
                return Some(search.corridor(node, start.0));
            }
            // A node whose root has since been reached by a shorter path is stale.
            if n.parent != NONE && search.is_stale(&n) {
                continue;
            }
            if search.nodes.len() > limit {
                break;
            }
            search.expand(node);
        }
        None
    }
}

struct Search<'a> {
    mesh: &'a NavMesh,
    radius: f64,
    goal: u32,
    to: DVec2,
    nodes: Vec<Node>,
    open: BinaryHeap<Open>,
    /// Best distance found to each root (by its exact coordinates) and the expansion that found
    /// it.
    best_root: HashMap<(u64, u64), (f64, u32)>,
}

impl Search<'_> {
    /// The start's successors: every passable portal of the start polygon, all of it seen.
    fn start(&mut self, polygon: u32, from: DVec2) {
        let range = self.mesh.corner_range(polygon);
        for k in range.clone() {
            if let Some((left, right)) = self.passable(&range, k) {
                self.push(Node {
                    root: from,
                    g: 0.0,
                    left,
                    right,
                    left_is_corner: true,
                    right_is_corner: true,
                    polygon: self.mesh.neighbours[k],
                    entry_slot: self.mesh.twins[k],
                    parent: NONE,
                });
            }
        }
    }

    /// The passable part of the portal at slot `k` of the polygon owning `range` (walking out of
    /// it: left end, right end), or `None` for a wall or a portal too narrow for the radius.
    fn passable(&self, range: &std::ops::Range<usize>, k: usize) -> Option<(DVec2, DVec2)> {
        let mesh = self.mesh;
        if mesh.neighbours[k] == NONE {
            return None;
        }
        let next = if k + 1 == range.end {
            range.start
        } else {
            k + 1
        };
        let (a, b) = (mesh.corners[k], mesh.corners[next]);
        // Leaving a counter-clockwise polygon through edge a → b, b is on the left.
        let (left, right) = (mesh.vertices[b as usize], mesh.vertices[a as usize]);
        if self.radius > 0.0
            && (mesh.portal_clearance[k].0 < self.radius
                || mesh.portal_width(left, right, b, a, self.radius) < 0.0)
        {
            return None;
        }
        let portal = mesh.shrunk_portal(left, right, b, a, self.radius);
        Some((portal.left, portal.right))
    }

    /// Whether a shorter path to `n`'s root was found after `n` was generated.
    fn is_stale(&self, n: &Node) -> bool {
        self.best_root
            .get(&key(n.root))
            .is_some_and(|&(g, _)| n.g > g + 1e-9)
    }

    fn push(&mut self, node: Node) {
        let f = node.g + self.heuristic(&node);
        let index = self.nodes.len() as u32;
        self.nodes.push(node);
        self.open.push(Open { f, node: index });
    }

    /// Push a successor whose root is new (a turn at `root`), unless that root was already reached
    /// by a path as short from another expansion.
    fn push_turn(&mut self, node: Node, expansion: u32) {
        match self.best_root.entry(key(node.root)) {
            Entry::Occupied(mut best) => {
                let (g, by) = *best.get();
                if node.g < g - 1e-9 {
                    best.insert((node.g, expansion));
                } else if node.g > g + 1e-9 || by != expansion {
                    return;
                }
            }
            Entry::Vacant(slot) => {
                slot.insert((node.g, expansion));
            }
        }
        self.push(node);
    }

    /// Lower bound of the remaining distance from `n`'s root through its interval to the goal.
    fn heuristic(&self, n: &Node) -> f64 {
        if n.entry_slot == NONE {
            return 0.0;
        }
        let (r, l, rt) = (n.root, n.left, n.right);
        let line = rt - l;
        let mut t = self.to;
        let side_goal = cross(line, t - l);
        let side_root = cross(line, r - l);
        if side_goal * side_root > 0.0 {
            // The goal is on the root's side: the path must cross the interval and come back.
            if let Some(u) = line.try_normalize() {
                let foot = l + u * (t - l).dot(u);
                t = 2.0 * foot - t;
            }
        }
        through_interval(r, t, l, rt)
    }

    /// Expand node `index` into the polygon behind its interval.
    fn expand(&mut self, index: u32) {
        let n = self.nodes[index as usize];
        let mesh = self.mesh;
        let r = n.root;
        if n.polygon == self.goal {
            // The goal polygon is convex: the rest is a straight line from the interval.
            self.push(Node {
                entry_slot: NONE,
                g: n.g + through_interval(r, self.to, n.left, n.right),
                parent: index,
                ..n
            });
            return;
        }
        let dl = n.left - r;
        let dr = n.right - r;
        // A root on the interval itself (the start on a portal, or a turn at a vertex the next
        // polygon shares) sees the whole polygon behind it.
        let sees_all = {
            let (closest, _) = closest_on_segment(r, n.left, n.right);
            closest.distance(r) <= ON_INTERVAL * (1.0 + dl.length() + dr.length())
        };
        let range = mesh.corner_range(n.polygon);
        let count = range.len();
        let entry = n.entry_slot as usize - range.start;
        for i in 1..count {
            let k = range.start + (entry + i) % count;
            let Some((pl, pr)) = self.passable(&range, k) else {
                continue;
            };
            let slot = mesh.twins[k];
            let next = mesh.neighbours[k];
            let successor = |root: DVec2, g: f64, t0: f64, t1: f64| Node {
                root,
                g,
                left: pl + (pr - pl) * t0,
                right: pl + (pr - pl) * t1,
                left_is_corner: t0 <= 0.0,
                right_is_corner: t1 >= 1.0,
                polygon: next,
                entry_slot: slot,
                parent: index,
            };
            if sees_all {
                self.push(successor(r, n.g, 0.0, 1.0));
                continue;
            }
            // Side of each point of pl → pr against the cone's edges, as linear functions of t.
            let left_side = Side::new(r, dl, pl, pr);
            let right_side = Side::new(r, dr, pl, pr);
            // Inside the cone: right of (or on) the ray through the left end, left of (or on) the
            // ray through the right end.
            if let Some((t0, t1)) = right_side
                .left_of()
                .and_then(|a| left_side.right_of().and_then(|b| overlap(a, b)))
            {
                self.push(successor(r, n.g, t0, t1));
            }
            // Beyond the left ray, seen from the left end, if the path can turn there.
            if n.left_is_corner {
                if let Some((t0, t1)) = left_side.left_of().filter(|(a, b)| b > a) {
                    let g = n.g + r.distance(n.left);
                    self.push_turn(successor(n.left, g, t0, t1), index);
                }
            }
            if n.right_is_corner {
                if let Some((t0, t1)) = right_side.right_of().filter(|(a, b)| b > a) {
                    let g = n.g + r.distance(n.right);
                    self.push_turn(successor(n.right, g, t0, t1), index);
                }
            }
        }
    }

    /// The polygons from the start to the goal node `index`.
    fn corridor(&self, index: u32, start: u32) -> Vec<u32> {
        let mut corridor = Vec::new();
        let mut at = self.nodes[index as usize].parent;
        while at != NONE {
            let n = &self.nodes[at as usize];
            corridor.push(n.polygon);
            at = n.parent;
        }
        corridor.push(start);
        corridor.reverse();
        corridor
    }
}

/// The exact bits of a point, to recognise a root reached again.
fn key(p: DVec2) -> (u64, u64) {
    (p.x.to_bits(), p.y.to_bits())
}

/// `cross(d, x(t) − root)` for `x(t) = a + (b − a) t`: which side of the ray `root + d` each point
/// of segment `a → b` lies on (positive: left).
struct Side {
    c0: f64,
    c1: f64,
}

impl Side {
    fn new(root: DVec2, d: DVec2, a: DVec2, b: DVec2) -> Side {
        Side {
            c0: cross(d, a - root),
            c1: cross(d, b - root),
        }
    }

    /// The part of `[0, 1]` left of or on the ray.
    fn left_of(&self) -> Option<(f64, f64)> {
        clip(self.c0, self.c1)
    }

    /// The part of `[0, 1]` right of or on the ray.
    fn right_of(&self) -> Option<(f64, f64)> {
        clip(-self.c0, -self.c1)
    }
}

/// The part of `[0, 1]` where the linear function with value `v0` at 0 and `v1` at 1 is `>= 0`.
/// A zero within [`END_SNAP`] of an end is moved onto it, so that rounding leaves no slivers.
fn clip(v0: f64, v1: f64) -> Option<(f64, f64)> {
    let zero = || {
        let t = v0 / (v0 - v1);
        if t < END_SNAP {
            0.0
        } else if t > 1.0 - END_SNAP {
            1.0
        } else {
            t
        }
    };
    match (v0 >= 0.0, v1 >= 0.0) {
        (true, true) => Some((0.0, 1.0)),
        (false, false) => None,
        (true, false) => Some((0.0, zero())),
        (false, true) => Some((zero(), 1.0)),
    }
}

/// Interval parameters this close to a portal end are snapped onto it.
const END_SNAP: f64 = 1e-9;

/// Intersection of two parameter ranges.
fn overlap(a: (f64, f64), b: (f64, f64)) -> Option<(f64, f64)> {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    (lo <= hi).then_some((lo, hi))
}

/// The length of the shortest polyline `from → p → to` with `p` on segment `left → right`: the
/// straight line where it crosses the segment, else through the nearer end.
fn through_interval(from: DVec2, to: DVec2, left: DVec2, right: DVec2) -> f64 {
    let d = to - from;
    let e = right - left;
    let denom = cross(d, e);
    if denom.abs() > 1e-300 {
        let t = cross(left - from, d) / denom;
        let s = cross(left - from, e) / denom;
        if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&s) {
            return from.distance(to);
        }
    }
    let via = |p: DVec2| from.distance(p) + p.distance(to);
    via(left).min(via(right))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn through_interval_is_straight_when_the_line_crosses() {
        let d = through_interval(
            DVec2::new(0., 0.),
            DVec2::new(2., 0.),
            DVec2::new(1., 1.),
            DVec2::new(1., -1.),
        );
        assert!((d - 2.0).abs() < 1e-12);
        let d = through_interval(
            DVec2::new(0., 0.),
            DVec2::new(2., 0.),
            DVec2::new(1., 3.),
            DVec2::new(1., 1.),
        );
        assert!((d - 2.0 * 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn clip_keeps_the_non_negative_part() {
        assert_eq!(clip(1.0, 2.0), Some((0.0, 1.0)));
        assert_eq!(clip(-1.0, -2.0), None);
        assert_eq!(clip(1.0, -1.0), Some((0.0, 0.5)));
        assert_eq!(clip(-1.0, 3.0), Some((0.25, 1.0)));
        assert_eq!(
            clip(-1e-15, 1.0),
            Some((0.0, 1.0)),
            "a zero at an end leaves no sliver"
        );
    }
}
