//! Shortest-path search over the polygon graph: the corridor of polygons the shortest path crosses.
//!
//! The search is Polyanya (D. Harabor, A. Grastien, D. Öz, V. Aksakalli, "Optimal Any-Angle
//! Pathfinding In Practice", JAIR 56, 2016), run over the portals the funnel uses: the parts of each
//! portal that keep the agent's radius from every wall ([`NavMesh::clear_parts_at`]; a portal
//! along a wall with an opening in it has one part beside each opening, each a separate interval
//! whose ends are corners the path may turn at). A
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
//! through a sequence of clear portal parts, over all sequences. (Searching over portals shrunk
//! only at their ends, as before, let the search cross a long portal beside a wall where the
//! funnel's clear part did not reach, and the funnel then zig-zagged to the part it had: 155.6 m
//! for a 141.2 m path on `city`.) (A* over polygons with one entry point
//! per polygon, which this replaces, is not: it chose corridors up to 0.4 % longer on the fixture
//! levels and 7 m longer on Dragon Age maps.)

use std::cmp::Ordering;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};

use glam::DVec2;

use super::navmesh::{NavMesh, PolygonId, NONE};
use super::path::{ClearPart, PartScratch};
use crate::geometry::{closest_on_segment, cross, segment_distance};

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
    /// The wall point beyond each end of the passable part ([`ClearPart`]).
    left_wall: Option<DVec2>,
    right_wall: Option<DVec2>,
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

/// Slack of the pinch test, metres: a gap of exactly the diameter (less this at each side) passes,
/// as the clear parts allow `radius − 1e-6`.
const PINCH_TOLERANCE: f64 = 1e-6;

/// A root this close to its interval (metres, relative to the lengths involved) is on it.
const ON_INTERVAL: f64 = 1e-9;

/// A bound on search nodes per polygon, against floating-point pathologies only: Polyanya
/// terminates on its own (observable successors move away from their root, new roots are pruned
/// by distance).
const NODES_PER_CORNER: usize = 64;

/// The polygons the shortest path crosses, and where.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Corridor {
    /// The polygons from the start's to the goal's, inclusive.
    pub polygons: Vec<u32>,
    /// Where the search's path crosses the portal from `polygons[i]` into `polygons[i + 1]`
    /// (one fewer than the polygons): the funnel takes the clear part of each portal nearest to
    /// it, when walls leave a portal more than one.
    pub crossings: Vec<DVec2>,
}

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
    ) -> Option<Corridor> {
        if start == goal {
            return Some(Corridor {
                polygons: vec![start.0],
                crossings: Vec::new(),
            });
        }
        let mut search = Search {
            mesh: self,
            radius,
            goal: goal.0,
            to,
            nodes: Vec::new(),
            open: BinaryHeap::new(),
            best_root: HashMap::new(),
            parts: Vec::new(),
            scratch: PartScratch::default(),
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
    /// Scratch: the passable parts of one portal.
    parts: Vec<ClearPart>,
    /// Scratch of [`NavMesh::clear_parts_at`].
    scratch: PartScratch,
}

impl Search<'_> {
    /// The start's successors: every passable portal of the start polygon, all of it seen.
    fn start(&mut self, polygon: u32, from: DVec2) {
        let range = self.mesh.corner_range(polygon);
        let mut parts = std::mem::take(&mut self.parts);
        for k in range.clone() {
            self.passable(&range, k, &mut parts);
            for part in &parts {
                self.push(Node {
                    root: from,
                    g: 0.0,
                    left: part.portal.left,
                    right: part.portal.right,
                    left_wall: part.left_wall,
                    right_wall: part.right_wall,
                    left_is_corner: true,
                    right_is_corner: true,
                    polygon: self.mesh.neighbours[k],
                    entry_slot: self.mesh.twins[k],
                    parent: NONE,
                });
            }
        }
        self.parts = parts;
    }

    /// The passable parts of the portal at slot `k` of the polygon owning `range` (walking out
    /// of it: left end, right end), into `parts`: the parts of it that keep the radius from
    /// every wall ([`NavMesh::clear_parts_at`], the portals the funnel uses); none for a wall or a
    /// portal too narrow for the radius.
    fn passable(&mut self, range: &std::ops::Range<usize>, k: usize, parts: &mut Vec<ClearPart>) {
        self.mesh
            .clear_parts_at(range, k, self.radius, parts, &mut self.scratch);
    }

    /// The narrowest gap between walls that a path crossing the polygon owning the corner slots
    /// `range` from its edge `entry` to its edge `exit` (indices within the polygon) must pass:
    /// the least distance between a wall feature (wall vertex or wall edge) on one side of the
    /// way and one on the other, the two sides being the polygon's boundary from the end of
    /// `entry` to the start of `exit` and from the end of `exit` to the start of `entry`. The
    /// polygon is convex, so the segment between the two features lies in it and every path
    /// between the edges crosses it; a gap narrower than the agent's diameter blocks the way.
    /// Infinite when a side has no wall feature. The portals' clear parts alone miss such a pinch
    /// when it lies inside a polygon: a thin triangle between a booth's corner and a long wall
    /// 0.784 m from it (tradeshow) has clear parts on the two edges the path crossed, and rails
    /// for radius 0.4 squeezed through at 0.38 m from the walls. (The triangle width of Demyen
    /// and Buro, "Efficient Triangulation-Based Pathfinding", AAAI 2006, restricted to the walls
    /// of the polygon itself.) Quadratic in the polygon's corners, for each exit: cheap for the
    /// triangles and small convex polygons of the fixture meshes (at most 6 corners).
    fn passage_width(&self, range: &std::ops::Range<usize>, entry: usize, exit: usize) -> f64 {
        let mesh = self.mesh;
        let count = range.len();
        let corner = |j: usize| mesh.corners[range.start + j % count];
        let point = |j: usize| mesh.vertices[corner(j) as usize];
        let is_wall_vertex = |j: usize| mesh.wall_vertex[corner(j) as usize];
        let is_wall_edge = |j: usize| mesh.neighbours[range.start + j % count] == NONE;
        // One side: corners entry + 1 ..= exit (edges between them); the other: exit + 1 ..=
        // entry + count.
        let exit_after = if exit > entry { exit } else { exit + count };
        let (a_first, a_last) = (entry + 1, exit_after);
        let (b_first, b_last) = (exit_after + 1, entry + count);
        let mut width = f64::INFINITY;
        for a in a_first..=a_last {
            for b in b_first..=b_last {
                if is_wall_vertex(a) && is_wall_vertex(b) {
                    width = width.min(point(a).distance(point(b)));
                }
                // Wall edges a → a + 1 and b → b + 1 (within their sides).
                let a_edge = a < a_last && is_wall_edge(a);
                let b_edge = b < b_last && is_wall_edge(b);
                if a_edge && is_wall_vertex(b) {
                    let (q, _) = closest_on_segment(point(b), point(a), point(a + 1));
                    width = width.min(q.distance(point(b)));
                }
                if b_edge && is_wall_vertex(a) {
                    let (q, _) = closest_on_segment(point(a), point(b), point(b + 1));
                    width = width.min(q.distance(point(a)));
                }
                if a_edge && b_edge {
                    width = width.min(segment_distance(
                        point(a),
                        point(a + 1),
                        point(b),
                        point(b + 1),
                    ));
                }
            }
        }
        width
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
            // The goal polygon is convex: the rest is a straight line from the interval, or,
            // when the goal lies outside the cone from the root through the interval, through
            // the end on that side. At the end of a passable part the path turns only around
            // the wall that end keeps clear of (through the end of a clear part cut by a wall
            // on the other side of the way, the path wrapped that wall on the wrong side and
            // its rail left the mesh: `narrow-alcove`). An end that only bounds the cone is
            // kept as before: the path's real turn is at the corner the cone comes from, and
            // the exact radius-0 lengths (tests/import.rs) rely on this node.
            let to = self.to;
            let beyond_left = cross(n.left - r, to - r) > 0.0;
            let beyond_right = cross(n.right - r, to - r) < 0.0;
            let on_interval = closest_on_segment(r, n.left, n.right).0.distance(r)
                <= ON_INTERVAL * (1.0 + r.distance(n.left) + r.distance(n.right));
            let may_turn = on_interval
                || match (beyond_left, beyond_right) {
                    (true, false) => !n.left_is_corner || wraps(r, n.left, n.left_wall, 1.0),
                    (false, true) => !n.right_is_corner || wraps(r, n.right, n.right_wall, -1.0),
                    _ => true,
                };
            if may_turn {
                self.push(Node {
                    entry_slot: NONE,
                    g: n.g + through_interval(r, to, n.left, n.right),
                    parent: index,
                    ..n
                });
            }
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
        let mut parts = std::mem::take(&mut self.parts);
        for i in 1..count {
            let k = range.start + (entry + i) % count;
            if self.radius > 0.0
                && self.passage_width(&range, entry, (entry + i) % count)
                    < 2.0 * (self.radius - PINCH_TOLERANCE)
            {
                continue;
            }
            self.passable(&range, k, &mut parts);
            for part in &parts {
                self.expand_into(index, k, part, sees_all);
            }
        }
        self.parts = parts;
    }

    /// The successors of node `index` on the passable part `pl → pr` of the portal at slot `k`
    /// of its polygon: the part of it inside the cone from the root through the node's interval
    /// (same root), and the parts beyond the cone's edges seen from an interval end the path can
    /// turn at (new roots). `sees_all` when the root lies on the node's interval.
    fn expand_into(&mut self, index: u32, k: usize, part: &ClearPart, sees_all: bool) {
        let (pl, pr) = (part.portal.left, part.portal.right);
        let n = self.nodes[index as usize];
        let mesh = self.mesh;
        let r = n.root;
        let dl = n.left - r;
        let dr = n.right - r;
        let slot = mesh.twins[k];
        let next = mesh.neighbours[k];
        let successor = |root: DVec2, g: f64, t0: f64, t1: f64| Node {
            root,
            g,
            left: pl + (pr - pl) * t0,
            right: pl + (pr - pl) * t1,
            left_is_corner: t0 <= 0.0,
            right_is_corner: t1 >= 1.0,
            left_wall: part.left_wall,
            right_wall: part.right_wall,
            polygon: next,
            entry_slot: slot,
            parent: index,
        };
        if sees_all {
            self.push(successor(r, n.g, 0.0, 1.0));
            return;
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
        if n.left_is_corner && wraps(r, n.left, n.left_wall, 1.0) {
            if let Some((t0, t1)) = left_side.left_of().filter(|(a, b)| b > a) {
                let g = n.g + r.distance(n.left);
                self.push_turn(successor(n.left, g, t0, t1), index);
            }
        }
        if n.right_is_corner && wraps(r, n.right, n.right_wall, -1.0) {
            if let Some((t0, t1)) = right_side.right_of().filter(|(a, b)| b > a) {
                let g = n.g + r.distance(n.right);
                self.push_turn(successor(n.right, g, t0, t1), index);
            }
        }
    }

    /// The polygons from the start to the goal node `index`, and where the path crosses each
    /// portal between them.
    fn corridor(&self, index: u32, start: u32) -> Corridor {
        let mut chain = Vec::new();
        let mut at = self.nodes[index as usize].parent;
        while at != NONE {
            chain.push(at);
            at = self.nodes[at as usize].parent;
        }
        chain.reverse();
        let mut polygons = Vec::with_capacity(chain.len() + 1);
        polygons.push(start);
        polygons.extend(chain.iter().map(|&i| self.nodes[i as usize].polygon));
        // From each node's root the path goes straight to the next root that differs (the next
        // turn), or to the goal: it crosses the node's interval on that line.
        let mut crossings = Vec::with_capacity(chain.len());
        let mut target = self.to;
        let mut later_root: Option<DVec2> = None;
        for &i in chain.iter().rev() {
            let n = &self.nodes[i as usize];
            if let Some(root) = later_root.filter(|&root| root != n.root) {
                target = root;
            }
            crossings.push(crossing(n.root, target, n.left, n.right));
            later_root = Some(n.root);
        }
        crossings.reverse();
        Corridor {
            polygons,
            crossings,
        }
    }
}

/// Where the line from `root` to `target` crosses the segment `left → right` (the nearer end when
/// it passes beside it; the segment's middle when the two are parallel).
fn crossing(root: DVec2, target: DVec2, left: DVec2, right: DVec2) -> DVec2 {
    let (d, e) = (target - root, right - left);
    let denom = cross(e, d);
    if denom.abs() <= 1e-300 {
        return (left + right) * 0.5;
    }
    let t = (cross(root - left, d) / denom).clamp(0.0, 1.0);
    left + e * t
}

/// Whether a path coming from `root` may turn at the passable part's end `end` (to the left for
/// `side` 1, to the right for −1): only around the wall the end keeps its clearance from, so
/// that wall must lie on that side of the way in (or on it). An end cut back from a wall on the
/// other side of the path (the portal of a thin triangle along a wall, on the far side of the
/// corridor the path follows) is no corner to turn at: turning there led the path through the
/// thin triangle past the wall, and the rail off the mesh (`narrow-alcove`). An end with no wall
/// (a vertex inside the mesh) may be turned at either way.
fn wraps(root: DVec2, end: DVec2, wall: Option<DVec2>, side: f64) -> bool {
    // A wall vertex at the end itself (within rounding: an interval's end is computed from the
    // portal's, `pl + (pr − pl) · 1` is not always `pr`) is on every side.
    wall.is_none_or(|wall| {
        wall.distance(end) <= END_ON_WALL || side * cross(end - root, wall - end) >= 0.0
    })
}

/// An interval end this close to its wall point (metres) is that point.
const END_ON_WALL: f64 = 1e-9;

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
    fn a_path_turns_at_a_part_end_only_around_the_wall_on_the_turn_side() {
        let root = DVec2::new(0.0, 0.0);
        let end = DVec2::new(2.0, 0.0);
        // Heading +x: a wall point above the end is on the left, below it on the right.
        let above = Some(DVec2::new(2.1, 0.4));
        let below = Some(DVec2::new(2.1, -0.4));
        assert!(wraps(root, end, above, 1.0) && !wraps(root, end, above, -1.0));
        assert!(wraps(root, end, below, -1.0) && !wraps(root, end, below, 1.0));
        // A wall vertex at the end itself (to rounding) and an end without a wall: either way.
        let at_end = Some(end + DVec2::new(1e-12, -1e-12));
        assert!(wraps(root, end, at_end, 1.0) && wraps(root, end, at_end, -1.0));
        assert!(wraps(root, end, None, 1.0) && wraps(root, end, None, -1.0));
    }

    #[test]
    fn the_crossing_is_where_the_line_meets_the_interval_or_its_nearer_end() {
        let (left, right) = (DVec2::new(1.0, 1.0), DVec2::new(1.0, -1.0));
        let c = crossing(DVec2::new(0.0, 0.0), DVec2::new(2.0, 0.5), left, right);
        assert!((c - DVec2::new(1.0, 0.25)).length() < 1e-12);
        let c = crossing(DVec2::new(0.0, 0.0), DVec2::new(2.0, 6.0), left, right);
        assert_eq!(c, left);
        // Parallel: the middle.
        let c = crossing(DVec2::new(0.0, 0.0), DVec2::new(0.0, 1.0), left, right);
        assert_eq!(c, DVec2::new(1.0, 0.0));
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
