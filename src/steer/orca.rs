//! ORCA (optimal reciprocal collision avoidance): each agent's new velocity is the one closest to
//! its preferred velocity inside the half-planes that keep it clear of its neighbours (sharing the
//! avoidance by a responsibility factor) and of the navmesh walls for a time horizon.
//!
//! Source: J. van den Berg, S. J. Guy, M. Lin, D. Manocha, "Reciprocal n-body collision
//! avoidance", ISRR 2009 / Springer 2011, and the RVO2 library's `Agent::computeNewVelocity`
//! (Apache-2.0), which [`orca_velocity`] follows step by step in `f64`, with three changes: the
//! reciprocal share of an agent pair is a per-neighbour `responsibility` instead of a fixed 0.5
//! (a non-reciprocating neighbour takes 1.0, as the original VO), coincident agents separate in a
//! fixed direction derived from their ids instead of dividing by zero, and obstacles come from
//! the navmesh walls through [`ObstacleMap`] (a uniform grid instead of RVO2's obstacle k-d tree).
//! Accuracy: exact up to floating-point rounding (see [`super::linear_program`]).

use std::cmp::Ordering;
use std::f64::consts::{PI, TAU};

use glam::DVec2;

use super::linear_program::{solve, solve_feasible, HalfPlane};
use crate::geometry::{cross, orient, segment_distance};
use crate::level::NavMesh;

/// Two agents closer than this, metres, are coincident: the direction between them is not
/// usable, and they separate along the fixed id-derived direction of [`orca_velocity`].
pub const COINCIDENT_DISTANCE: f64 = 1e-6;

/// The golden angle π(3 − √5), radians: successive multiples spread directions evenly around the
/// circle, so coincident pairs with different ids separate in different directions.
const GOLDEN_ANGLE: f64 = PI * (3.0 - 2.236_067_977_499_79);

/// Slack of RVO2's "obstacle already covered" test, metres per second (RVO2's `RVO_EPSILON`).
const COVERED_EPSILON: f64 = 1e-5;

/// Time horizons below this (seconds) are raised to it inside [`orca_velocity`], so an invalid
/// configuration cannot divide by zero.
const MIN_HORIZON: f64 = 1e-3;

/// Default agent radius for [`OrcaConfig::default`], metres (a typical character).
const DEFAULT_RADIUS: f64 = 0.4;

/// Target side of the [`ObstacleMap`] grid cells, metres: about the obstacle search range of a
/// walking agent (1 s × 1.5 m/s + radius), so a query touches 2–3 cells a side. Grown for large
/// sparse levels so the grid stays at most `4 × edges + 64` cells.
const OBSTACLE_CELL: f64 = 2.0;

/// Tunables of ORCA steering. A scenario's `avoidance.orca` object overrides them by field
/// name.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OrcaConfig {
    /// How far ahead agent–agent avoidance looks, seconds: velocities that bring two agents into
    /// contact within this time are forbidden. Longer reacts earlier and more smoothly but
    /// over-constrains crowds. Range (0, 60]; default 2.
    pub time_horizon: f64,
    /// The same for walls, seconds; shorter than `time_horizon` so that agents may walk towards
    /// and along walls without slowing far away. Walls are searched within
    /// `obstacle_time_horizon × max_speed + radius`. Range (0, 60]; default 1.
    pub obstacle_time_horizon: f64,
    /// Neighbours farther than this (centre to centre) are ignored, metres; used by the caller
    /// when it picks the neighbour list. Range [0, 1000]; default 10 × radius (4 m for the default
    /// 0.4 m radius).
    pub neighbour_distance: f64,
    /// At most this many nearest neighbours are avoided, count; used by the caller. Range
    /// [0, 1000]; default 10.
    pub max_neighbours: usize,
    /// ORCA solves per movement step, count: the velocities of one solve become the inputs of the
    /// next before anyone moves, letting the agents settle on consistent passing sides
    /// (Sunshine-Hill, "RVO and ORCA: how they really work", §19.7.2). Stored only; the caller
    /// loops. Range [1, 64]; default 1.
    pub substeps: u32,
    /// Pass on the right, degrees: a free agent whose preferred velocity would bring it into
    /// contact with a neighbour within `time_horizon` (the neighbour at its current velocity;
    /// not one crossing its way from the left within 15° of square) gets a preferred velocity
    /// turned right by this angle. Used by the caller (the world's ORCA agents,
    /// [`crate::Locomotion::Orca`]; not rail agents released from a jam), not by
    /// [`orca_velocity`]. Two agents meeting head-on both turn right and pass left side to left
    /// side; the same side for everyone breaks ORCA's symmetric stalls (a ring of agents
    /// meeting at a circle's centre, two crowds at one door), which mirror images of one another
    /// cannot leave. 0 turns it off. Range [0, 90]; default 20, from jittered runs of crowds
    /// (docs/ALGORITHM.md, "The velocity-space fallback").
    pub pass_right_degrees: f64,
    /// Room kept between agents, as a fraction of the sum of their radii: the solver keeps
    /// centres `(1 + radius_margin) × (r_a + r_b)` apart where some velocity does so for every
    /// neighbour, and falls back to the plain sum in a squeeze where none does (walls keep the
    /// plain radius). ORCA's answer grazes the discs it is given, and the next frames' changes
    /// of velocity carry agents a little inside them: with exact discs, dense crowds touched by
    /// 1–3 % of their radii (RVO2's own run of its Blocks example included). Range [0, 0.5];
    /// default 0.01 (docs/ALGORITHM.md, "The velocity-space fallback"); 0 is RVO2's rule.
    pub radius_margin: f64,
}

impl Default for OrcaConfig {
    fn default() -> Self {
        OrcaConfig::from_agent_radius(DEFAULT_RADIUS)
    }
}

/// An [`OrcaConfig`] field outside its documented range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("orca.{field} = {value} is out of range {range}")]
pub struct OrcaConfigError {
    /// The field's name.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
    /// The permitted range, as written in the field's documentation.
    pub range: &'static str,
}

impl OrcaConfig {
    /// The defaults for agents of the given collision radius (metres): the neighbour distance is
    /// 10 radii, the rest as [`Default`].
    pub fn from_agent_radius(radius: f64) -> Self {
        OrcaConfig {
            time_horizon: 2.0,
            obstacle_time_horizon: 1.0,
            neighbour_distance: 10.0 * radius,
            max_neighbours: 10,
            substeps: 1,
            pass_right_degrees: 20.0,
            radius_margin: 0.01,
        }
    }

    /// Check every field against its documented range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), OrcaConfigError> {
        let check = |field, value: f64, ok: bool, range| {
            if ok && value.is_finite() {
                Ok(())
            } else {
                Err(OrcaConfigError {
                    field,
                    value,
                    range,
                })
            }
        };
        let t = self.time_horizon;
        check("time_horizon", t, t > 0.0 && t <= 60.0, "(0, 60]")?;
        let t = self.obstacle_time_horizon;
        check("obstacle_time_horizon", t, t > 0.0 && t <= 60.0, "(0, 60]")?;
        let d = self.neighbour_distance;
        check(
            "neighbour_distance",
            d,
            (0.0..=1000.0).contains(&d),
            "[0, 1000]",
        )?;
        let n = self.max_neighbours;
        check("max_neighbours", n as f64, n <= 1000, "[0, 1000]")?;
        let s = self.substeps;
        check("substeps", f64::from(s), (1..=64).contains(&s), "[1, 64]")?;
        let a = self.pass_right_degrees;
        check(
            "pass_right_degrees",
            a,
            (0.0..=90.0).contains(&a),
            "[0, 90]",
        )?;
        let m = self.radius_margin;
        check("radius_margin", m, (0.0..=0.5).contains(&m), "[0, 0.5]")?;
        Ok(())
    }
}

/// The agent whose velocity is being chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrcaAgent {
    /// Centre, metres.
    pub position: DVec2,
    /// Current velocity, metres per second.
    pub velocity: DVec2,
    /// The velocity it would like (towards its goal), metres per second.
    pub preferred_velocity: DVec2,
    /// Collision radius, metres, `>= 0`.
    pub radius: f64,
    /// Largest speed it may be given, metres per second, `> 0` (otherwise it is given zero).
    pub max_speed: f64,
    /// Identifier, unique among the agents; orders coincident pairs.
    pub id: u32,
}

/// A neighbour to avoid, as the agent sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrcaNeighbour {
    /// Centre, metres.
    pub position: DVec2,
    /// Current velocity, metres per second.
    pub velocity: DVec2,
    /// Collision radius, metres, `>= 0`.
    pub radius: f64,
    /// The agent's share of the avoidance of this pair, range [0, 1]: 0.5 when the neighbour runs
    /// ORCA too (RVO2's fixed value), 1.0 when it does not react (rail agents, stationary ones),
    /// other values for priorities (the two shares of a reciprocating pair should sum to 1).
    pub responsibility: f64,
    /// The neighbour's identifier (see [`OrcaAgent::id`]).
    pub id: u32,
}

/// One vertex of an obstacle outline, and the edge from it to the next vertex (RVO2's
/// `Obstacle`). Outlines run with the solid on the LEFT: counter-clockwise around a pillar,
/// clockwise around a room.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObstacleVertex {
    /// Position, metres.
    pub point: DVec2,
    /// Unit direction of the edge to the next vertex.
    pub direction: DVec2,
    /// Whether the solid's corner here is convex (or straight): the turn from the previous edge
    /// to this one is to the left or none. Pillar corners are convex, room corners are not.
    pub convex: bool,
    /// Index of the next vertex of the outline.
    pub next: u32,
    /// Index of the previous vertex of the outline.
    pub prev: u32,
}

/// The navmesh walls as RVO2 obstacle outlines, with a uniform grid over their edges for range
/// queries. Built once per level; immutable, so it can be shared between threads.
///
/// The walls (walkable side on the left) are reversed to put the solid on the left and chained
/// into closed outlines by shared end points. Where several outlines touch at one vertex (a hole
/// touching the outline or another hole), an edge arriving there continues with the free edge
/// leaving it that turns most to the left (smallest clockwise angle from the way back), ties to
/// the lower edge index: each outline then wraps one solid sector of the vertex, so convexity is
/// judged on the right corner. The same rule on a valid mesh never leaves an edge unmatched;
/// an edge that still finds no successor (impossible for a mesh from [`crate::Level`]) is kept as
/// its own successor and ignored by the queries.
#[derive(Clone, Debug)]
pub struct ObstacleMap {
    vertices: Vec<ObstacleVertex>,
    origin: DVec2,
    inv_cell: f64,
    columns: u32,
    rows: u32,
    /// Cell `c` lists `items[cell_start[c]..cell_start[c + 1]]`.
    cell_start: Vec<u32>,
    items: Vec<u32>,
    /// Lowest (column, row) cell of every edge's bounding box: an edge is reported from the first
    /// queried cell it is listed in only, so no duplicates.
    edge_cell: Vec<[u32; 2]>,
}

impl Default for ObstacleMap {
    /// A map without obstacles. Allocates nothing (the world makes one every frame): no cell of
    /// a map without vertices is ever looked up, since [`ObstacleMap::edges_near`] returns first.
    fn default() -> Self {
        ObstacleMap {
            vertices: Vec::new(),
            origin: DVec2::ZERO,
            inv_cell: 1.0 / OBSTACLE_CELL,
            columns: 1,
            rows: 1,
            cell_start: Vec::new(),
            items: Vec::new(),
            edge_cell: Vec::new(),
        }
    }
}

impl ObstacleMap {
    /// The obstacle outlines of a navmesh's walls (see the type's documentation).
    pub fn from_navmesh(mesh: &NavMesh) -> ObstacleMap {
        let edges: Vec<(DVec2, DVec2)> = mesh
            .boundary_edges()
            .map(|w| (w.end, w.start))
            .filter(|(a, b)| a != b && a.is_finite() && b.is_finite())
            .collect();
        ObstacleMap::from_edges(&edges)
    }

    /// Build from directed edges with the solid on their left.
    fn from_edges(edges: &[(DVec2, DVec2)]) -> ObstacleMap {
        let n = edges.len();
        if n == 0 {
            return ObstacleMap::default();
        }
        const NONE: u32 = u32::MAX;
        let key = |a: DVec2, b: DVec2| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y));
        let mut by_start: Vec<u32> = (0..n as u32).collect();
        by_start.sort_by(|&i, &j| key(edges[i as usize].0, edges[j as usize].0).then(i.cmp(&j)));
        let mut next = vec![NONE; n];
        let mut prev = vec![NONE; n];
        for i in 0..n {
            let (start, end) = edges[i];
            let lo = by_start.partition_point(|&j| key(edges[j as usize].0, end) == Ordering::Less);
            let hi =
                by_start.partition_point(|&j| key(edges[j as usize].0, end) != Ordering::Greater);
            let back = start - end;
            let mut best: Option<(f64, u32)> = None;
            for &j in &by_start[lo..hi] {
                if prev[j as usize] != NONE {
                    continue;
                }
                let d = edges[j as usize].1 - edges[j as usize].0;
                // Clockwise angle from the way back to the candidate, in [0, 2π).
                let mut angle = cross(d, back).atan2(d.dot(back));
                if angle < 0.0 {
                    angle += TAU;
                }
                if best.is_none_or(|(a, _)| angle < a) {
                    best = Some((angle, j));
                }
            }
            if let Some((_, j)) = best {
                next[i] = j;
                prev[j as usize] = i as u32;
            }
        }
        let vertices: Vec<ObstacleVertex> = (0..n)
            .map(|i| {
                let (start, end) = edges[i];
                let next = if next[i] == NONE { i as u32 } else { next[i] };
                let prev = if prev[i] == NONE { i as u32 } else { prev[i] };
                let before = edges[prev as usize].0;
                let after = edges[next as usize].0;
                ObstacleVertex {
                    point: start,
                    direction: (end - start).normalize(),
                    // RVO2: convex when the previous, this and the next vertex turn left or go
                    // straight.
                    convex: orient(before, start, after) >= 0.0,
                    next,
                    prev,
                }
            })
            .collect();

        // Uniform grid over the edges' bounding boxes (counting pass, then fill).
        let mut min = DVec2::splat(f64::INFINITY);
        let mut max = DVec2::splat(f64::NEG_INFINITY);
        for &(a, b) in edges {
            min = min.min(a).min(b);
            max = max.max(a).max(b);
        }
        let extent = (max - min).max(DVec2::splat(1e-6));
        let max_cells = (4 * n + 64) as f64;
        let cells_for = |c: f64| (extent.x / c).ceil().max(1.0) * (extent.y / c).ceil().max(1.0);
        let mut cell = OBSTACLE_CELL;
        while cells_for(cell) > max_cells {
            cell *= 1.25;
        }
        let mut map = ObstacleMap {
            vertices,
            origin: min,
            inv_cell: 1.0 / cell,
            columns: (extent.x / cell).ceil().max(1.0) as u32,
            rows: (extent.y / cell).ceil().max(1.0) as u32,
            cell_start: Vec::new(),
            items: Vec::new(),
            edge_cell: Vec::with_capacity(n),
        };
        let columns = map.columns as usize;
        map.cell_start = vec![0; columns * map.rows as usize + 1];
        let ranges: Vec<[u32; 4]> = edges
            .iter()
            .map(|&(a, b)| {
                let (c0, r0) = map.cell_of(a.min(b));
                let (c1, r1) = map.cell_of(a.max(b));
                [c0, r0, c1, r1]
            })
            .collect();
        for &[c0, r0, c1, r1] in &ranges {
            for r in r0..=r1 {
                for c in c0..=c1 {
                    map.cell_start[r as usize * columns + c as usize + 1] += 1;
                }
            }
        }
        for i in 1..map.cell_start.len() {
            map.cell_start[i] += map.cell_start[i - 1];
        }
        map.items = vec![0; *map.cell_start.last().unwrap_or(&0) as usize];
        let mut fill = map.cell_start.clone();
        for (i, &[c0, r0, c1, r1]) in ranges.iter().enumerate() {
            for r in r0..=r1 {
                for c in c0..=c1 {
                    let slot = &mut fill[r as usize * columns + c as usize];
                    map.items[*slot as usize] = i as u32;
                    *slot += 1;
                }
            }
            map.edge_cell.push([c0, r0]);
        }
        map
    }

    /// Every obstacle vertex (and the edge from it to its `next`).
    pub fn vertices(&self) -> &[ObstacleVertex] {
        &self.vertices
    }

    /// The grid cell holding `p`, clamped onto the grid (NaN goes to 0).
    #[inline]
    fn cell_of(&self, p: DVec2) -> (u32, u32) {
        let q = (p - self.origin) * self.inv_cell;
        // `as` saturates (NaN to 0), and `min` keeps the index on the grid.
        let c = (q.x.floor().max(0.0) as u32).min(self.columns - 1);
        let r = (q.y.floor().max(0.0) as u32).min(self.rows - 1);
        (c, r)
    }

    /// The obstacle edges within `range` metres of `point` that face it, as RVO2's obstacle
    /// neighbours: `(squared distance, vertex index)` for every edge (from a vertex to its
    /// `next`) closer than `range` with `point` strictly on its walkable (right) side, sorted by
    /// distance then index. `out` is cleared first; nothing is allocated once it has grown.
    pub fn edges_near(&self, point: DVec2, range: f64, out: &mut Vec<(f64, u32)>) {
        out.clear();
        if self.vertices.is_empty() || !point.is_finite() || range.is_nan() || range <= 0.0 {
            return;
        }
        let range_sq = range * range;
        let (c0, r0) = self.cell_of(point - DVec2::splat(range));
        let (c1, r1) = self.cell_of(point + DVec2::splat(range));
        let columns = self.columns as usize;
        for r in r0..=r1 {
            for c in c0..=c1 {
                let cell = r as usize * columns + c as usize;
                let items =
                    &self.items[self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize];
                for &e in items {
                    let [ec, er] = self.edge_cell[e as usize];
                    if ec.max(c0) != c || er.max(r0) != r {
                        continue;
                    }
                    let v1 = &self.vertices[e as usize];
                    let b = self.vertices[v1.next as usize].point;
                    // Only edges the point can see (RVO2's back-face culling).
                    if orient(v1.point, b, point) >= 0.0 {
                        continue;
                    }
                    let d = distance_sq_to_segment(v1.point, b, point);
                    if d < range_sq {
                        out.push((d, e));
                    }
                }
            }
        }
        out.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }
}

impl ObstacleMap {
    /// Whether no obstacle edge (facing `point` or not) comes within `range` metres of `point`
    /// (`range` finite and >= 0; a non-finite point or range is never clear). A straight move of
    /// at most `range` from a point on the navmesh then stays on it: the mesh guard of free
    /// agents skips its raycast.
    pub(crate) fn is_clear_within(&self, point: DVec2, range: f64) -> bool {
        if !point.is_finite() || !range.is_finite() || range < 0.0 {
            return false;
        }
        if self.vertices.is_empty() {
            return true;
        }
        let range_sq = range * range;
        let (c0, r0) = self.cell_of(point - DVec2::splat(range));
        let (c1, r1) = self.cell_of(point + DVec2::splat(range));
        let columns = self.columns as usize;
        for r in r0..=r1 {
            for c in c0..=c1 {
                let cell = r as usize * columns + c as usize;
                let items =
                    &self.items[self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize];
                for &e in items {
                    let v = &self.vertices[e as usize];
                    let b = self.vertices[v.next as usize].point;
                    if distance_sq_to_segment(v.point, b, point) <= range_sq {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Whether the straight segment `from → to` keeps more than `clearance` metres from every
    /// obstacle edge (facing it or not): a disc of radius `clearance` can slide along it without
    /// touching a wall, and, from a point on the navmesh, without leaving the mesh (a segment
    /// crossing or touching a wall is never clear). Non-finite input or a negative clearance is
    /// never clear. Free agents use it to skip a path corner
    /// once the corner after it is in plain sight.
    pub(crate) fn is_segment_clear(&self, from: DVec2, to: DVec2, clearance: f64) -> bool {
        if !from.is_finite() || !to.is_finite() || !clearance.is_finite() || clearance < 0.0 {
            return false;
        }
        if self.vertices.is_empty() {
            return true;
        }
        let (c0, r0) = self.cell_of(from.min(to) - DVec2::splat(clearance));
        let (c1, r1) = self.cell_of(from.max(to) + DVec2::splat(clearance));
        let columns = self.columns as usize;
        for r in r0..=r1 {
            for c in c0..=c1 {
                let cell = r as usize * columns + c as usize;
                let items =
                    &self.items[self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize];
                for &e in items {
                    let v = &self.vertices[e as usize];
                    let b = self.vertices[v.next as usize].point;
                    if segment_distance(from, to, v.point, b) <= clearance {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// Squared distance from `p` to segment `a b` (RVO2's `distSqPointLineSegment`).
#[inline]
fn distance_sq_to_segment(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let ab = b - a;
    let r = (p - a).dot(ab) / ab.length_squared();
    if r < 0.0 {
        (p - a).length_squared()
    } else if r > 1.0 {
        (p - b).length_squared()
    } else {
        (p - (a + r * ab)).length_squared()
    }
}

/// Reusable storage for [`orca_velocity`]: keep one per thread and pass it to every call, so the
/// hot path allocates nothing once the buffers have grown.
#[derive(Clone, Debug, Default)]
pub struct OrcaScratch {
    lines: Vec<HalfPlane>,
    obstacle_lines: usize,
    /// The neighbours of the last call, for a second set of half-planes without the margin.
    neighbours: Vec<OrcaNeighbour>,
    projected: Vec<HalfPlane>,
    obstacle_neighbours: Vec<(f64, u32)>,
}

impl OrcaScratch {
    /// Empty scratch.
    pub fn new() -> Self {
        OrcaScratch::default()
    }

    /// The half-planes of the last [`orca_velocity`] call: the wall ones first, then one per
    /// neighbour in the order given.
    pub fn lines(&self) -> &[HalfPlane] {
        &self.lines
    }

    /// How many of [`OrcaScratch::lines`] come from walls.
    pub fn obstacle_line_count(&self) -> usize {
        self.obstacle_lines
    }
}

/// Unit vector; callers guarantee `v` is not zero.
#[inline]
fn unit(v: DVec2) -> DVec2 {
    v / v.length()
}

/// The velocity half-planes of the walls near `agent` (RVO2's obstacle ORCA lines), pushed onto
/// `lines`: `inv_tau` is 1 / obstacle time horizon, `near` the obstacle neighbours by distance.
fn push_obstacle_lines(
    agent: &OrcaAgent,
    obstacles: &ObstacleMap,
    near: &[(f64, u32)],
    inv_tau: f64,
    lines: &mut Vec<HalfPlane>,
) {
    let vertices = &obstacles.vertices;
    let (position, velocity, radius) = (agent.position, agent.velocity, agent.radius);
    let radius_sq = radius * radius;
    let radius_tau = radius * inv_tau;
    for &(_, index) in near {
        let mut o1 = &vertices[index as usize];
        let mut o2 = &vertices[o1.next as usize];
        let rel1 = o1.point - position;
        let rel2 = o2.point - position;

        // Skip the edge if the lines so far already exclude its whole velocity obstacle.
        let (scaled1, scaled2) = (rel1 * inv_tau, rel2 * inv_tau);
        let covered = lines.iter().any(|l| {
            cross(scaled1 - l.point, l.direction) - radius_tau >= -COVERED_EPSILON
                && cross(scaled2 - l.point, l.direction) - radius_tau >= -COVERED_EPSILON
        });
        if covered {
            continue;
        }

        let dist_sq1 = rel1.length_squared();
        let dist_sq2 = rel2.length_squared();
        let edge = o2.point - o1.point;
        let edge_len_sq = edge.length_squared();
        if edge_len_sq <= 0.0 {
            continue;
        }
        let s = (-rel1).dot(edge) / edge_len_sq;
        let dist_sq_line = (-rel1 - s * edge).length_squared();

        // Already in contact: forbid moving further in (the agent's centre is off the vertex
        // when s < 0 or s > 1, so the normalisations are safe).
        if s < 0.0 && dist_sq1 <= radius_sq {
            if o1.convex {
                lines.push(HalfPlane {
                    point: DVec2::ZERO,
                    direction: unit(DVec2::new(-rel1.y, rel1.x)),
                });
            }
            continue;
        }
        if s > 1.0 && dist_sq2 <= radius_sq {
            // The next edge handles it unless the right vertex is convex and faces the agent.
            if o2.convex && cross(rel2, o2.direction) >= 0.0 {
                lines.push(HalfPlane {
                    point: DVec2::ZERO,
                    direction: unit(DVec2::new(-rel2.y, rel2.x)),
                });
            }
            continue;
        }
        if (0.0..=1.0).contains(&s) && dist_sq_line <= radius_sq {
            lines.push(HalfPlane {
                point: DVec2::ZERO,
                direction: -o1.direction,
            });
            continue;
        }

        // No contact: the legs of the truncated cone. Seen obliquely, both legs come from one
        // vertex; at a non-convex vertex the leg extends the cut-off line.
        let left_leg_of = |rel: DVec2, dist_sq: f64| {
            let leg = (dist_sq - radius_sq).sqrt();
            DVec2::new(rel.x * leg - rel.y * radius, rel.x * radius + rel.y * leg) / dist_sq
        };
        let right_leg_of = |rel: DVec2, dist_sq: f64| {
            let leg = (dist_sq - radius_sq).sqrt();
            DVec2::new(rel.x * leg + rel.y * radius, -rel.x * radius + rel.y * leg) / dist_sq
        };
        let mut left_leg;
        let mut right_leg;
        let single;
        if s < 0.0 && dist_sq_line <= radius_sq {
            // Oblique view: the left vertex defines the obstacle.
            if !o1.convex {
                continue;
            }
            o2 = o1;
            single = true;
            left_leg = left_leg_of(rel1, dist_sq1);
            right_leg = right_leg_of(rel1, dist_sq1);
        } else if s > 1.0 && dist_sq_line <= radius_sq {
            // Oblique view: the right vertex defines the obstacle.
            if !o2.convex {
                continue;
            }
            o1 = o2;
            single = true;
            left_leg = left_leg_of(rel2, dist_sq2);
            right_leg = right_leg_of(rel2, dist_sq2);
        } else {
            single = false;
            left_leg = if o1.convex {
                left_leg_of(rel1, dist_sq1)
            } else {
                -o1.direction
            };
            right_leg = if o2.convex {
                right_leg_of(rel2, dist_sq2)
            } else {
                o1.direction
            };
        }

        // A leg at a convex vertex may not point into the neighbouring edge: take that edge's
        // cut-off line instead ("foreign" leg; a velocity projected on it adds no line).
        let left_neighbour = &vertices[o1.prev as usize];
        let mut left_foreign = false;
        let mut right_foreign = false;
        if o1.convex && cross(left_leg, -left_neighbour.direction) >= 0.0 {
            left_leg = -left_neighbour.direction;
            left_foreign = true;
        }
        if o2.convex && cross(right_leg, o2.direction) <= 0.0 {
            right_leg = o2.direction;
            right_foreign = true;
        }

        // Project the current velocity on the velocity obstacle: cut-off circles, cut-off
        // line or legs, whichever is nearest.
        let left_cutoff = inv_tau * (o1.point - position);
        let right_cutoff = inv_tau * (o2.point - position);
        let cutoff = right_cutoff - left_cutoff;
        let t = if single {
            0.5
        } else {
            (velocity - left_cutoff).dot(cutoff) / cutoff.length_squared()
        };
        let t_left = (velocity - left_cutoff).dot(left_leg);
        let t_right = (velocity - right_cutoff).dot(right_leg);

        if (t < 0.0 && t_left < 0.0) || (single && t_left < 0.0 && t_right < 0.0) {
            let w = unit(velocity - left_cutoff);
            lines.push(HalfPlane {
                point: left_cutoff + radius_tau * w,
                direction: DVec2::new(w.y, -w.x),
            });
            continue;
        }
        if t > 1.0 && t_right < 0.0 {
            let w = unit(velocity - right_cutoff);
            lines.push(HalfPlane {
                point: right_cutoff + radius_tau * w,
                direction: DVec2::new(w.y, -w.x),
            });
            continue;
        }
        let dist_sq_cutoff = if !(0.0..=1.0).contains(&t) || single {
            f64::INFINITY
        } else {
            (velocity - (left_cutoff + t * cutoff)).length_squared()
        };
        let dist_sq_left = if t_left < 0.0 {
            f64::INFINITY
        } else {
            (velocity - (left_cutoff + t_left * left_leg)).length_squared()
        };
        let dist_sq_right = if t_right < 0.0 {
            f64::INFINITY
        } else {
            (velocity - (right_cutoff + t_right * right_leg)).length_squared()
        };
        // The boundary point sits `radius / τ` to the left of the line (RVO2).
        let shifted = |anchor: DVec2, direction: DVec2| HalfPlane {
            point: anchor + radius_tau * DVec2::new(-direction.y, direction.x),
            direction,
        };
        if dist_sq_cutoff <= dist_sq_left && dist_sq_cutoff <= dist_sq_right {
            lines.push(shifted(left_cutoff, -o1.direction));
        } else if dist_sq_left <= dist_sq_right {
            if !left_foreign {
                lines.push(shifted(left_cutoff, left_leg));
            }
        } else if !right_foreign {
            lines.push(shifted(right_cutoff, -right_leg));
        }
    }
}

/// The ORCA half-plane of one neighbour: `inv_tau` is 1 / time horizon, `inv_dt` 1 / time step.
#[inline]
fn neighbour_line(
    agent: &OrcaAgent,
    other: &OrcaNeighbour,
    inv_tau: f64,
    inv_dt: f64,
    grow: f64,
) -> HalfPlane {
    let rel_pos = other.position - agent.position;
    let rel_vel = agent.velocity - other.velocity;
    let dist_sq = rel_pos.length_squared();
    let combined = (agent.radius + other.radius) * grow;
    let combined_sq = combined * combined;
    let (direction, u);
    if dist_sq > combined_sq {
        // Apart: project the relative velocity on the truncated cone.
        let w = rel_vel - inv_tau * rel_pos;
        let w_len_sq = w.length_squared();
        let dot = w.dot(rel_pos);
        if dot < 0.0 && dot * dot > combined_sq * w_len_sq {
            // On the cut-off circle (w is not zero here, since dot < 0).
            let w_len = w_len_sq.sqrt();
            let unit_w = w / w_len;
            direction = DVec2::new(unit_w.y, -unit_w.x);
            u = (combined * inv_tau - w_len) * unit_w;
        } else {
            // On a leg.
            let leg = (dist_sq - combined_sq).sqrt();
            direction = if cross(rel_pos, w) > 0.0 {
                DVec2::new(
                    rel_pos.x * leg - rel_pos.y * combined,
                    rel_pos.x * combined + rel_pos.y * leg,
                ) / dist_sq
            } else {
                -DVec2::new(
                    rel_pos.x * leg + rel_pos.y * combined,
                    -rel_pos.x * combined + rel_pos.y * leg,
                ) / dist_sq
            };
            u = rel_vel.dot(direction) * direction - rel_vel;
        }
    } else {
        // Overlapping: get apart within one time step (the cut-off circle of time dt).
        let w = rel_vel - inv_dt * rel_pos;
        let unit_w = if dist_sq < COINCIDENT_DISTANCE * COINCIDENT_DISTANCE {
            coincident_direction(agent.id, other.id)
        } else {
            // RVO2 divides by |w| even when it is zero; then move straight apart.
            w.try_normalize().unwrap_or_else(|| -unit(rel_pos))
        };
        // The half-plane tangent to the circle of radius combined / dt, at its point along unit_w
        // (for unit_w = w / |w|, w · unit_w = |w|, as RVO2).
        direction = DVec2::new(unit_w.y, -unit_w.x);
        u = (combined * inv_dt - w.dot(unit_w)) * unit_w;
    }
    HalfPlane {
        point: agent.velocity + other.responsibility * u,
        direction,
    }
}

/// The direction in which an agent moves away from a coincident neighbour: the lower of the two
/// ids takes `from_angle(GOLDEN_ANGLE × lower id)`, the higher one the opposite, so the pair
/// always splits the same way. Equal ids (not allowed) give both the same direction.
#[inline]
fn coincident_direction(own: u32, other: u32) -> DVec2 {
    let base = DVec2::from_angle(GOLDEN_ANGLE * f64::from(own.min(other)));
    if own <= other {
        base
    } else {
        -base
    }
}

/// The ORCA velocity of `agent` for the next `dt` seconds: the velocity within
/// `agent.max_speed` closest to `agent.preferred_velocity` that keeps it clear of `neighbours`
/// (for `config.time_horizon`, their discs and its own grown by `config.radius_margin`) and of
/// the walls in `obstacles` (for `config.obstacle_time_horizon`); when no velocity keeps the
/// grown discs, the same with the plain ones; when none keeps those, the one that least
/// violates the neighbour constraints while keeping the wall ones.
///
/// All `neighbours` are used: the caller picks them (RVO2: the `max_neighbours` nearest within
/// `neighbour_distance`). Each neighbour's half-plane is shifted by its `responsibility` share of
/// the avoidance. Overlapping pairs ask to be apart after `dt` (a non-positive or non-finite `dt`
/// uses the time horizon instead); coincident pairs (closer than [`COINCIDENT_DISTANCE`]) separate
/// along a fixed direction from their ids: the agent with the lower id goes along
/// `DVec2::from_angle(GOLDEN_ANGLE × lower id)` with the golden angle π(3 − √5), the other the
/// opposite way. Deterministic; allocates nothing once `scratch` has grown; never NaN for finite
/// input (a non-positive max speed gives zero).
pub fn orca_velocity(
    agent: &OrcaAgent,
    neighbours: &[OrcaNeighbour],
    obstacles: &ObstacleMap,
    config: &OrcaConfig,
    dt: f64,
    scratch: &mut OrcaScratch,
) -> DVec2 {
    orca_velocity_of(
        agent,
        neighbours.iter().copied(),
        obstacles,
        config,
        dt,
        scratch,
    )
}

/// [`orca_velocity`] with the neighbours from an iterator (in order), so a caller holding them
/// in its own arrays need not copy them into a slice first.
pub(crate) fn orca_velocity_of(
    agent: &OrcaAgent,
    neighbours: impl Iterator<Item = OrcaNeighbour>,
    obstacles: &ObstacleMap,
    config: &OrcaConfig,
    dt: f64,
    scratch: &mut OrcaScratch,
) -> DVec2 {
    scratch.lines.clear();
    let inv_tau_obstacle = 1.0 / config.obstacle_time_horizon.max(MIN_HORIZON);
    if !obstacles.vertices.is_empty() {
        let range = config.obstacle_time_horizon * agent.max_speed + agent.radius;
        obstacles.edges_near(agent.position, range, &mut scratch.obstacle_neighbours);
        push_obstacle_lines(
            agent,
            obstacles,
            &scratch.obstacle_neighbours,
            inv_tau_obstacle,
            &mut scratch.lines,
        );
    }
    scratch.obstacle_lines = scratch.lines.len();

    let inv_tau = 1.0 / config.time_horizon.max(MIN_HORIZON);
    let inv_dt = if dt > 0.0 && dt.is_finite() {
        1.0 / dt
    } else {
        inv_tau
    };
    // The discs the agents keep apart (`OrcaConfig::radius_margin`), where some velocity keeps
    // every one of them; in a squeeze where none does, the plain discs, so that the crowd's
    // answer is RVO2's (with the grown ones, agents in one-agent corridors stood where they
    // squeezed through before: den312d-500 under ORCA, docs/ALGORITHM.md).
    if config.radius_margin > 0.0 {
        let grow = 1.0 + config.radius_margin;
        scratch.neighbours.clear();
        scratch.neighbours.extend(neighbours);
        let held = &scratch.neighbours;
        scratch.lines.extend(
            held.iter()
                .map(|other| neighbour_line(agent, other, inv_tau, inv_dt, grow)),
        );
        if let Some(velocity) =
            solve_feasible(&scratch.lines, agent.max_speed, agent.preferred_velocity)
        {
            return velocity;
        }
        scratch.lines.truncate(scratch.obstacle_lines);
        scratch.lines.extend(
            held.iter()
                .map(|other| neighbour_line(agent, other, inv_tau, inv_dt, 1.0)),
        );
    } else {
        scratch
            .lines
            .extend(neighbours.map(|other| neighbour_line(agent, &other, inv_tau, inv_dt, 1.0)));
    }
    solve(
        &scratch.lines,
        scratch.obstacle_lines,
        agent.max_speed,
        agent.preferred_velocity,
        &mut scratch.projected,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Level;

    fn level(json: &str) -> Level {
        Level::from_json(json, "test").expect("valid test level")
    }

    fn room_with_pillar() -> Level {
        level(
            r#"{"name": "pillar", "boundary": [[0, 0], [10, 0], [10, 10], [0, 10]],
                "holes": [[[4, 4], [6, 4], [6, 6], [4, 6]]]}"#,
        )
    }

    /// Step agents with ORCA (each sees all the others, responsibility 0.5), `steps` times.
    /// Returns the positions after every step.
    fn simulate(
        agents: &mut [OrcaAgent],
        goals: &[DVec2],
        obstacles: &ObstacleMap,
        dt: f64,
        steps: usize,
        mut check: impl FnMut(&[OrcaAgent]),
    ) {
        let config = OrcaConfig::default();
        let mut scratch = OrcaScratch::new();
        let mut new_velocities = vec![DVec2::ZERO; agents.len()];
        for _ in 0..steps {
            for (a, goal) in agents.iter_mut().zip(goals) {
                a.preferred_velocity = (*goal - a.position).clamp_length_max(a.max_speed);
            }
            for (i, a) in agents.iter().enumerate() {
                let neighbours: Vec<OrcaNeighbour> = agents
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, b)| OrcaNeighbour {
                        position: b.position,
                        velocity: b.velocity,
                        radius: b.radius,
                        responsibility: 0.5,
                        id: b.id,
                    })
                    .collect();
                new_velocities[i] =
                    orca_velocity(a, &neighbours, obstacles, &config, dt, &mut scratch);
            }
            for (a, v) in agents.iter_mut().zip(&new_velocities) {
                assert!(v.is_finite());
                a.velocity = *v;
                a.position += *v * dt;
            }
            check(agents);
        }
    }

    fn walker(id: u32, position: DVec2) -> OrcaAgent {
        OrcaAgent {
            position,
            velocity: DVec2::ZERO,
            preferred_velocity: DVec2::ZERO,
            radius: 0.4,
            max_speed: 1.5,
            id,
        }
    }

    #[test]
    fn head_on_agents_pass_without_overlap() {
        let start = [DVec2::new(-5.0, 0.05), DVec2::new(5.0, -0.05)];
        let goals = [start[1], start[0]];
        let mut agents = [walker(0, start[0]), walker(1, start[1])];
        let mut closest = f64::INFINITY;
        simulate(
            &mut agents,
            &goals,
            &ObstacleMap::default(),
            0.25,
            200,
            |a| {
                let d = a[0].position.distance(a[1].position);
                closest = closest.min(d);
                assert!(d >= 0.8 - 1e-6, "overlap: centres {d} apart");
            },
        );
        assert!(closest < 2.0, "they never came near each other");
        assert!(agents[0].position.distance(goals[0]) < 0.1, "{agents:?}");
        assert!(agents[1].position.distance(goals[1]) < 0.1, "{agents:?}");
    }

    #[test]
    fn coincident_agents_separate_deterministically() {
        let run = || {
            let p = DVec2::new(1.0, 1.0);
            let mut agents = [walker(7, p), walker(3, p)];
            let goals = [p, p];
            let mut trace = Vec::new();
            simulate(
                &mut agents,
                &goals,
                &ObstacleMap::default(),
                0.25,
                20,
                |a| {
                    trace.push((a[0].position, a[1].position));
                },
            );
            trace
        };
        let first = run();
        assert_eq!(first, run());
        // The lower id (3, the second agent) leaves along the golden-angle direction of 3.
        let away = first[0].1 - DVec2::new(1.0, 1.0);
        let expected = DVec2::from_angle(GOLDEN_ANGLE * 3.0);
        assert!(away.normalize().distance(expected) < 1e-9, "{away}");
        let (a, b) = *first.last().unwrap();
        assert!(a.is_finite() && b.is_finite());
        assert!(a.distance(b) >= 0.8 - 1e-6, "still overlapping: {a} {b}");
    }

    #[test]
    fn agent_driven_into_walls_stays_on_the_mesh() {
        let corridor =
            level(r#"{"name": "corridor", "boundary": [[0, 0], [30, 0], [30, 2.4], [0, 2.4]]}"#);
        let room = room_with_pillar();
        let cases = [
            // Down into the corridor's wall at a slant.
            (&corridor, DVec2::new(5.0, 1.2), DVec2::new(25.0, -10.0)),
            // Into a room corner (reflex obstacle vertex).
            (&room, DVec2::new(2.0, 2.5), DVec2::new(-5.0, -5.0)),
            // Onto a pillar corner (convex obstacle vertex) and round it.
            (&room, DVec2::new(2.0, 2.0), DVec2::new(8.0, 8.0)),
            // Straight onto a pillar face.
            (&room, DVec2::new(5.0, 1.0), DVec2::new(5.0, 9.0)),
        ];
        for (level, start, goal) in cases {
            let mesh = level.navmesh();
            let obstacles = ObstacleMap::from_navmesh(mesh);
            let mut agents = [walker(0, start)];
            let mut closest = f64::INFINITY;
            simulate(&mut agents, &[goal], &obstacles, 0.1, 150, |a| {
                let p = a[0].position;
                assert!(mesh.contains(p), "left the mesh at {p}");
                let clearance = mesh.wall_distance(p);
                closest = closest.min(clearance);
                assert!(clearance >= 0.4 - 1e-6, "{p} only {clearance} from a wall");
            });
            // It did press against the wall.
            assert!(
                closest < 0.41,
                "{start} → {goal}: kept {closest} from the walls"
            );
        }
    }

    fn vertex_at(map: &ObstacleMap, p: DVec2) -> Vec<&ObstacleVertex> {
        map.vertices().iter().filter(|v| v.point == p).collect()
    }

    #[test]
    fn room_corners_are_reflex_and_pillar_corners_convex() {
        let map = ObstacleMap::from_navmesh(room_with_pillar().navmesh());
        let v = DVec2::new;
        for corner in [v(0., 0.), v(10., 0.), v(10., 10.), v(0., 10.)] {
            let found = vertex_at(&map, corner);
            assert_eq!(found.len(), 1, "{corner}");
            assert!(!found[0].convex, "room corner {corner} marked convex");
        }
        for corner in [v(4., 4.), v(6., 4.), v(6., 6.), v(4., 6.)] {
            let found = vertex_at(&map, corner);
            assert_eq!(found.len(), 1, "{corner}");
            assert!(found[0].convex, "pillar corner {corner} not convex");
        }
        // Outlines are closed and consistent, and the solid is on the left: the pillar runs
        // counter-clockwise (positive area), the room clockwise.
        let vs = map.vertices();
        for (i, x) in vs.iter().enumerate() {
            assert_eq!(vs[x.next as usize].prev as usize, i);
            assert_eq!(vs[x.prev as usize].next as usize, i);
        }
        let area = |start: &ObstacleVertex| {
            let mut sum = 0.0;
            let mut x = start;
            loop {
                let y = &vs[x.next as usize];
                sum += cross(x.point, y.point);
                x = y;
                if std::ptr::eq(x, start) {
                    return sum / 2.0;
                }
            }
        };
        assert_eq!(area(vertex_at(&map, v(4., 4.))[0]), 4.0);
        assert_eq!(area(vertex_at(&map, v(0., 0.))[0]), -100.0);
    }

    #[test]
    fn outlines_touching_at_a_vertex_split_into_separate_loops() {
        // A triangular hole touching the bottom wall at (5, 0).
        let lvl = level(
            r#"{"name": "pinch", "boundary": [[0, 0], [10, 0], [10, 10], [0, 10]],
                "holes": [[[5, 0], [6, 2], [4, 2]]]}"#,
        );
        let map = ObstacleMap::from_navmesh(lvl.navmesh());
        let vs = map.vertices();
        for (i, x) in vs.iter().enumerate() {
            assert_eq!(vs[x.next as usize].prev as usize, i);
        }
        let pinch = vertex_at(&map, DVec2::new(5.0, 0.0));
        assert_eq!(pinch.len(), 2);
        // One outline is the triangle (3 vertices, all convex), the other the room.
        let loop_len = |start: &ObstacleVertex| {
            let (mut n, mut x) = (1, &vs[start.next as usize]);
            while !std::ptr::eq(x, start) {
                n += 1;
                x = &vs[x.next as usize];
            }
            n
        };
        let mut lens: Vec<usize> = pinch.iter().map(|p| loop_len(p)).collect();
        lens.sort();
        assert_eq!(lens[0], 3, "{vs:?}");
        for p in &pinch {
            if loop_len(p) == 3 {
                assert!(p.convex);
                assert!(vs[p.next as usize].convex && vs[p.prev as usize].convex);
            }
        }
    }

    #[test]
    fn edges_near_is_sorted_and_faces_the_point() {
        let map = ObstacleMap::from_navmesh(room_with_pillar().navmesh());
        let mut out = Vec::new();
        map.edges_near(DVec2::new(5.0, 2.0), 2.5, &mut out);
        // The bottom wall and the pillar's bottom face, both 2 m away; the pillar's other faces
        // are within range but face away.
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!([out[0].0, out[1].0], [4.0, 4.0]);
        assert!(out[0].1 < out[1].1);
        for &(_, e) in &out {
            let v = &map.vertices()[e as usize];
            let next = map.vertices()[v.next as usize].point;
            assert!(v.point.y == next.y, "only horizontal edges: {v:?}");
        }
        // Diagonally off a pillar corner: its two near faces, equally far, by index.
        map.edges_near(DVec2::new(3.0, 3.0), 1.5, &mut out);
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!([out[0].0, out[1].0], [2.0, 2.0]);
        assert!(out[0].1 < out[1].1);
        map.edges_near(DVec2::new(5.0, 2.0), 0.5, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn segment_clearance_counts_every_wall_within_reach() {
        let map = ObstacleMap::from_navmesh(room_with_pillar().navmesh());
        let v = DVec2::new;
        // Along the bottom of the room, 1 m above the wall and 3 m below the pillar.
        assert!(map.is_segment_clear(v(1.5, 1.0), v(8.5, 1.0), 0.9));
        assert!(!map.is_segment_clear(v(1.5, 1.0), v(8.5, 1.0), 1.1));
        // Across the pillar: blocked whatever the clearance; past its side by 0.5 m.
        assert!(!map.is_segment_clear(v(2.0, 5.0), v(8.0, 5.0), 0.0));
        assert!(map.is_segment_clear(v(3.5, 2.0), v(3.5, 8.0), 0.4));
        assert!(!map.is_segment_clear(v(3.5, 2.0), v(3.5, 8.0), 0.6));
        // A long segment whose end points are far from the walls, over the pillar's corner.
        assert!(!map.is_segment_clear(v(2.0, 2.0), v(8.0, 8.0), 0.1));
        // Degenerate input.
        assert!(!map.is_segment_clear(v(f64::NAN, 1.0), v(5.0, 1.0), 0.1));
        assert!(!map.is_segment_clear(v(5.0, 1.0), v(5.0, 1.0), -1.0));
        assert!(map.is_segment_clear(v(5.0, 2.0), v(5.0, 2.0), 1.9));
        assert!(ObstacleMap::default().is_segment_clear(v(0.0, 0.0), v(100.0, 0.0), 5.0));
    }

    #[test]
    fn non_reciprocal_responsibility_shifts_the_half_plane_twice_as_far() {
        let agent = OrcaAgent {
            position: DVec2::ZERO,
            velocity: DVec2::new(1.0, 0.0),
            preferred_velocity: DVec2::new(1.0, 0.0),
            radius: 0.4,
            max_speed: 1.5,
            id: 0,
        };
        let mut neighbour = OrcaNeighbour {
            position: DVec2::new(1.5, 0.3),
            velocity: DVec2::new(-1.0, 0.0),
            radius: 0.4,
            responsibility: 0.5,
            id: 1,
        };
        let (config, empty) = (OrcaConfig::default(), ObstacleMap::default());
        let mut scratch = OrcaScratch::new();
        orca_velocity(&agent, &[neighbour], &empty, &config, 0.1, &mut scratch);
        let half = scratch.lines()[0];
        neighbour.responsibility = 1.0;
        orca_velocity(&agent, &[neighbour], &empty, &config, 0.1, &mut scratch);
        let full = scratch.lines()[0];
        assert_eq!(half.direction, full.direction);
        let shift = |l: HalfPlane| l.point - agent.velocity;
        assert!(
            shift(half).length() > 0.01,
            "the pair is on a collision course"
        );
        assert!((shift(full) - 2.0 * shift(half)).length() < 1e-12);
        assert!(
            (full.violation(agent.velocity) - 2.0 * half.violation(agent.velocity)).abs() < 1e-12
        );
    }

    #[test]
    fn config_defaults_validate_and_errors_name_the_field() {
        assert_eq!(OrcaConfig::default().validate(), Ok(()));
        assert_eq!(OrcaConfig::from_agent_radius(0.3).neighbour_distance, 3.0);
        let bad = OrcaConfig {
            substeps: 0,
            ..OrcaConfig::default()
        };
        let err = bad.validate().unwrap_err();
        assert_eq!(err.field, "substeps");
        assert!(err.to_string().contains("orca.substeps = 0"), "{err}");
        let bad = OrcaConfig {
            time_horizon: f64::NAN,
            ..OrcaConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "time_horizon");
        for degrees in [-1.0, 91.0, f64::INFINITY] {
            let bad = OrcaConfig {
                pass_right_degrees: degrees,
                ..OrcaConfig::default()
            };
            assert_eq!(bad.validate().unwrap_err().field, "pass_right_degrees");
        }
        for margin in [-0.01, 0.51, f64::NAN] {
            let bad = OrcaConfig {
                radius_margin: margin,
                ..OrcaConfig::default()
            };
            assert_eq!(bad.validate().unwrap_err().field, "radius_margin");
        }
    }

    /// A 0.4 m agent at the origin walking east at 1 m/s, and wanting to.
    fn walker_east() -> OrcaAgent {
        OrcaAgent {
            position: DVec2::ZERO,
            velocity: DVec2::new(1.0, 0.0),
            preferred_velocity: DVec2::new(1.0, 0.0),
            radius: 0.4,
            max_speed: 2.0,
            id: 0,
        }
    }

    /// An agent walking at one standing ahead of it, a little off its line: with a margin, the
    /// solver's answer keeps the grown disc's distance for the whole horizon; with none, it
    /// grazes the plain one.
    #[test]
    fn the_radius_margin_keeps_agents_that_much_further_apart() {
        let obstacles = ObstacleMap::default();
        let agent = walker_east();
        let standing = OrcaNeighbour {
            position: DVec2::new(1.5, 0.3),
            velocity: DVec2::ZERO,
            radius: 0.4,
            responsibility: 1.0,
            id: 1,
        };
        let closest = |margin: f64| {
            let config = OrcaConfig {
                radius_margin: margin,
                ..OrcaConfig::default()
            };
            let mut scratch = OrcaScratch::default();
            let v = orca_velocity(&agent, &[standing], &obstacles, &config, 0.1, &mut scratch);
            // Closest approach over the horizon at that velocity.
            (0..=200)
                .map(|i| (v * (i as f64 * 0.01) - standing.position).length())
                .fold(f64::INFINITY, f64::min)
        };
        let plain = closest(0.0);
        let kept = closest(0.05);
        assert!((plain - 0.8).abs() < 1e-3, "{plain}");
        assert!((kept - 0.84).abs() < 1e-3, "{kept}");
    }

    /// Between two standing agents 0.81 m off on either side, discs grown by 5 % overlap both and
    /// no velocity leaves both: the solver answers as with the plain discs (walking on between
    /// them), not with the least violation of the grown ones.
    #[test]
    fn in_a_squeeze_the_radius_margin_gives_way_to_the_plain_discs() {
        let obstacles = ObstacleMap::default();
        let agent = walker_east();
        let beside = |y: f64, id: u32| OrcaNeighbour {
            position: DVec2::new(0.0, y),
            velocity: DVec2::ZERO,
            radius: 0.4,
            responsibility: 1.0,
            id,
        };
        let neighbours = [beside(0.81, 1), beside(-0.81, 2)];
        let answer = |margin: f64| {
            let config = OrcaConfig {
                radius_margin: margin,
                ..OrcaConfig::default()
            };
            let mut scratch = OrcaScratch::default();
            orca_velocity(&agent, &neighbours, &obstacles, &config, 0.1, &mut scratch)
        };
        let plain = answer(0.0);
        assert!(plain.x > 0.5, "{plain}");
        assert_eq!(answer(0.05), plain);
    }
}
