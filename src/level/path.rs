//! Path queries: from one on-mesh point to another, a corridor of polygons (Polyanya over the
//! portals' clear parts) and its shortest corner path (the funnel), keeping the agent radius
//! from walls at the corners.

use glam::DVec2;

use super::funnel::{string_pull, Portal};
use super::locate::ON_MESH_TOLERANCE;
use super::navmesh::{NavMesh, PolygonId, NONE};
use super::search::Corridor;
use crate::geometry::{capsule_chord, closest_on_segment, cross};
use crate::rail::tangent_piece;

/// Options of a path query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathOptions {
    /// Agent radius, metres, `>= 0`; default 0. Portals are shrunk by it at wall vertices, so the
    /// corner path keeps this clearance at the corners it turns around, and gaps narrower than
    /// twice the radius are not passable.
    pub radius: f64,
    /// How far right of a two-way corridor's middle line a planned rail keeps along its straight
    /// parts, metres, `>= 0` (0: the taut line); default 0, and [`KEEP_RIGHT_RADII`] radii from
    /// [`PathOptions::from_agent_radius`]. Only [`NavMesh::plan_rail`] applies it, where the
    /// mesh across the part is narrower than nine radii all along it and the moved part keeps
    /// the radius from walls; and it keeps the rail's left turns twice this much wider than the
    /// radius round their wall vertices, where the mesh leaves room (docs/ALGORITHM.md,
    /// "Lanes").
    ///
    /// [`NavMesh::plan_rail`]: crate::level::NavMesh::plan_rail
    pub keep_right: f64,
}

/// The default [`PathOptions::keep_right`] of [`PathOptions::from_agent_radius`], in agent
/// radii: two agents keeping right pass 3 radii apart, clear of both radii and the default
/// margins (2.25 radii).
pub const KEEP_RIGHT_RADII: f64 = 1.5;

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions {
            radius: 0.0,
            keep_right: 0.0,
        }
    }
}

impl PathOptions {
    /// Options for an agent of the given collision radius (metres), keeping right in two-way
    /// corridors by [`KEEP_RIGHT_RADII`] radii.
    pub fn from_agent_radius(radius: f64) -> Self {
        PathOptions {
            radius,
            keep_right: KEEP_RIGHT_RADII * radius,
        }
    }
}

/// Which way a path turns at a corner, and so on which side of the path the wall vertex lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Turn {
    /// Counter-clockwise around a vertex on the path's left.
    Left,
    /// Clockwise around a vertex on the path's right.
    Right,
}

/// A mesh vertex a path turns around.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CornerVertex {
    /// Index into [`NavMesh::vertices`].
    pub index: u32,
    /// Its position, metres.
    pub position: DVec2,
    /// Which way the path turns around it.
    pub turn: Turn,
}

/// One point of a corner path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathCorner {
    /// Where the path bends, metres (for interior corners: `radius` from the wall vertex along the
    /// portal, so the agent clears it).
    pub position: DVec2,
    /// The mesh vertex the path turns around; `None` for the start and the goal, and for an
    /// interior corner with no wall vertex within twice the radius (a portal end moved by the
    /// clearance bisection, on the band a wall edge leaves free).
    pub around: Option<CornerVertex>,
    /// Which way the path turns here; `None` for the start and the goal.
    pub turn: Option<Turn>,
}

/// A corner path across the mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// Start, interior corners, goal; at least two entries (start and goal may coincide).
    pub corners: Vec<PathCorner>,
    /// The polygons crossed, start to goal.
    pub corridor: Vec<PolygonId>,
    /// The radius the path was planned for, metres.
    pub radius: f64,
}

impl Path {
    /// Length of the corner polyline, metres.
    pub fn length(&self) -> f64 {
        self.corners
            .windows(2)
            .map(|w| w[0].position.distance(w[1].position))
            .sum()
    }

    /// The corner positions.
    pub fn points(&self) -> Vec<DVec2> {
        self.corners.iter().map(|c| c.position).collect()
    }
}

/// Why a path query failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PathError {
    #[error("the start ({}, {}) is not on the navmesh", .0.x, .0.y)]
    StartOffMesh(DVec2),
    #[error("the goal ({}, {}) is not on the navmesh", .0.x, .0.y)]
    GoalOffMesh(DVec2),
    #[error("the goal ({}, {}) is on another island of the navmesh than the start ({}, {})", .to.x, .to.y, .from.x, .from.y)]
    Unreachable { from: DVec2, to: DVec2 },
    #[error("no passage from ({}, {}) to ({}, {}) is wide enough for radius {radius} m", .from.x, .from.y, .to.x, .to.y)]
    TooNarrow { from: DVec2, to: DVec2, radius: f64 },
    #[error("the radius {0} is not a finite number >= 0")]
    BadRadius(f64),
}

/// Scratch buffers of [`NavMesh::clear_parts_at`], kept by a caller that asks for many portals
/// (the path search) so that it allocates nothing per portal.
#[derive(Clone, Debug, Default)]
pub(crate) struct PartScratch {
    /// Walls near the portal.
    near: Vec<u32>,
    /// Parameter ranges of the portal too close to a wall, with that wall's ends.
    blocked: Vec<(f64, f64, DVec2, DVec2)>,
}

/// A part of a portal whose points keep the agent radius from every wall, with the wall point
/// beyond each end that the end keeps the radius from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ClearPart {
    /// The part, left and right as seen walking through the portal.
    pub portal: Portal,
    /// Beyond the left end: the wall vertex it was pulled in from, or the nearest point of the
    /// wall that cut the portal there; `None` at a mesh vertex inside the mesh.
    pub left_wall: Option<DVec2>,
    /// The same beyond the right end.
    pub right_wall: Option<DVec2>,
}

impl NavMesh {
    /// The shortest corner path from `from` to `to` for an agent of `options.radius`: Polyanya
    /// over the parts of the portals that keep the radius from walls (`search.rs`), then the
    /// funnel algorithm through the part of each corridor portal the search's path crossed.
    ///
    /// Off-mesh points are an error, never silently snapped (use [`NavMesh::clamp`] first if that
    /// is wanted).
    pub fn find_path(
        &self,
        from: DVec2,
        to: DVec2,
        options: &PathOptions,
    ) -> Result<Path, PathError> {
        let radius = options.radius;
        if radius.is_nan() || radius < 0.0 || !radius.is_finite() {
            return Err(PathError::BadRadius(radius));
        }
        let start = self.locate(from).ok_or(PathError::StartOffMesh(from))?;
        let goal = self.locate(to).ok_or(PathError::GoalOffMesh(to))?;
        if self.island(start) != self.island(goal) {
            return Err(PathError::Unreachable { from, to });
        }
        let Corridor {
            polygons: mut corridor,
            mut crossings,
        } = self
            .corridor(start, from, goal, to, radius)
            .ok_or(PathError::TooNarrow { from, to, radius })?;
        // A start on a portal of the corridor (on an edge or a vertex the next polygons share)
        // begins in the last of them, and a goal on one ends in the first: the funnel's first
        // and last portals would otherwise pass through its apex, which it cannot pull taut.
        while corridor.len() > 1 && self.polygon_contains(corridor[1], from, ON_MESH_TOLERANCE) {
            corridor.remove(0);
            crossings.remove(0);
        }
        while corridor.len() > 1
            && self.polygon_contains(corridor[corridor.len() - 2], to, ON_MESH_TOLERANCE)
        {
            corridor.pop();
            crossings.pop();
        }
        let mut portals = Vec::with_capacity(corridor.len() + 1);
        portals.push(Portal::point(from));
        let (mut parts, mut scratch) = (Vec::new(), PartScratch::default());
        for (pair, &crossing) in corridor.windows(2).zip(&crossings) {
            // Of a portal's clear parts, the one nearest where the search's path crosses it.
            self.clear_portal_parts(pair[0], pair[1], radius, &mut parts, &mut scratch);
            let distance = |part: &ClearPart| {
                closest_on_segment(crossing, part.portal.left, part.portal.right)
                    .0
                    .distance(crossing)
            };
            let Some(part) = parts
                .iter()
                .min_by(|a, b| distance(a).total_cmp(&distance(b)))
            else {
                return Err(PathError::TooNarrow { from, to, radius });
            };
            portals.push(part.portal);
        }
        portals.push(Portal::point(to));
        let mut corners = string_pull(&portals, &self.vertices);
        if radius > 0.0 {
            self.attribute_corners(&mut corners, radius);
            self.wrap_close_vertices(&mut corners, &corridor, radius);
            self.drop_plain_corners(&mut corners, radius);
        }
        Ok(Path {
            corners,
            corridor: corridor.into_iter().map(PolygonId).collect(),
            radius,
        })
    }

    /// Make each interior corner name the wall vertex it actually turns around. A portal end moved
    /// by the clearance bisection can land next to another wall vertex than the portal's own; the
    /// corner then belongs to the wall vertex nearest to it (within `2 × radius`), and a corner
    /// with no wall vertex that close is a plain point (no vertex to wrap). Either vertex must lie
    /// on the inside of the turn (left of the corner path both into and out of the corner for a
    /// left turn, right of it for a right turn), or the smoother would wrap it the wrong way
    /// round, across the wall: a corner at the end of a clear part cut by a wall's capsule can
    /// turn away from that wall (narrow-alcove: a right turn next to the alcove's corner, which
    /// lay on the left, so the rail went round it through the wall and was refused). Such a
    /// corner is a plain point; the wrapping of vertices too close (`wrap_close_vertices`) then
    /// wraps the vertex the right way.
    fn attribute_corners(&self, corners: &mut [PathCorner], radius: f64) {
        let n = corners.len();
        for i in 1..n.saturating_sub(1) {
            let Some(around) = corners[i].around else {
                continue;
            };
            let (before, at, after) = (
                corners[i - 1].position,
                corners[i].position,
                corners[i + 1].position,
            );
            let inside = |p: DVec2| {
                let side = if around.turn == Turn::Left { 1.0 } else { -1.0 };
                cross(at - before, p - before) * side > 0.0
                    && cross(after - at, p - at) * side > 0.0
            };
            let reach = 2.0 * radius;
            let nearest_vertex = self.nearest_wall(at, reach).and_then(|w| {
                [w.start, w.end]
                    .into_iter()
                    .filter(|e| e.distance(at) <= reach)
                    .min_by(|a, b| a.distance(at).total_cmp(&b.distance(at)))
            });
            let own = around.position.distance(at) <= reach && inside(around.position);
            corners[i].around = match nearest_vertex {
                Some(p)
                    if p != around.position
                        && inside(p)
                        && (!own || p.distance(at) < around.position.distance(at)) =>
                {
                    self.vertex_index(p).map(|index| CornerVertex {
                        index,
                        position: p,
                        turn: around.turn,
                    })
                }
                _ if own => Some(around),
                _ => None,
            };
        }
    }

    /// The index of the wall vertex at exactly `p`, through the wall grid.
    fn vertex_index(&self, p: DVec2) -> Option<u32> {
        let (c, r) = self.wall_grid.clamped_cell(p);
        self.wall_grid
            .items(c, r)
            .iter()
            .flat_map(|&w| [self.walls[w as usize][0], self.walls[w as usize][1]])
            .find(|&v| self.vertices[v as usize] == p)
    }

    /// Insert, as corners, the corridor's wall vertices that a straight piece of the path passes
    /// closer than `radius` to, each piece taken as the smoother will lay it: the tangent between
    /// the wrap circles of its two corners ([`tangent_piece`]). Shrinking portals along their own
    /// direction does not keep a straight piece `radius` away from a portal's end vertex (or from
    /// a vertex of the polygon holding the goal); such a vertex is one the path must wrap. Each
    /// inserted corner sits `radius` from its vertex towards the piece; the smoother then wraps
    /// the vertex with an arc and drops corners the taut path does not touch. A vertex is wrapped
    /// at most once.
    fn wrap_close_vertices(&self, corners: &mut Vec<PathCorner>, corridor: &[u32], radius: f64) {
        let mut candidates: Vec<u32> = corridor
            .iter()
            .flat_map(|&p| self.corners[self.corner_range(p)].iter().copied())
            .filter(|&v| self.wall_vertex[v as usize])
            .collect();
        // A segment can also pass close to a wall vertex of a polygon it does not cross (a vertex
        // whose fan of polygons is small): gather the wall ends near each segment from the wall
        // grid, in steps of a cell.
        let step = self.wall_grid.cell_size().max(radius);
        let mut near = Vec::new();
        for pair in corners.windows(2) {
            let (a, b) = (pair[0].position, pair[1].position);
            let samples = (a.distance(b) / step).ceil().max(1.0) as usize;
            for k in 0..=samples {
                let at = a.lerp(b, k as f64 / samples as f64);
                self.walls_near(at, 0.5 * step + 2.0 * radius, &mut near);
            }
        }
        near.sort_unstable();
        near.dedup();
        candidates.extend(
            near.iter()
                .flat_map(|&w| [self.walls[w as usize][0], self.walls[w as usize][1]]),
        );
        candidates.sort_unstable();
        candidates.dedup();
        // Each pass inserts at most one corner; a path cannot wrap a vertex twice in a row.
        for _ in 0..2 * candidates.len() + 2 {
            let mut worst: Option<(f64, usize, u32, DVec2)> = None;
            let last = corners.len() - 1;
            for i in 0..last {
                // The piece the smoother will lay between the two corners.
                let (a, b) =
                    tangent_piece(&corners[i], i > 0, &corners[i + 1], i + 1 < last, radius);
                for &v in &candidates {
                    let vp = self.vertices[v as usize];
                    let (q, t) = closest_on_segment(vp, a, b);
                    let d = q.distance(vp);
                    let at_end = (t <= 0.0 && i == 0) || (t >= 1.0 && i + 2 == corners.len());
                    // A taut path wraps a vertex once: wrapping it again (two vertices closer
                    // than twice the radius, each too close to the piece beside the other's
                    // corner) only alternated between the two until the pass limit
                    // (tradeshow: 149 corners for a 22 m path).
                    let wrapped = corners
                        .iter()
                        .any(|c| c.around.is_some_and(|w| w.index == v));
                    if d >= radius - 1e-9 || at_end || wrapped {
                        continue;
                    }
                    if worst.is_none_or(|w| d < w.0) {
                        worst = Some((d, i, v, q));
                    }
                }
            }
            let Some((_, i, v, q)) = worst else { return };
            let (a, b) = tangent_piece(&corners[i], i > 0, &corners[i + 1], i + 1 < last, radius);
            corners.insert(i + 1, self.wrapping_corner(v, q, a, b, radius));
        }
    }

    /// Drop the interior corners that name no wall vertex where the piece the smoother would lay
    /// between the corners either side of one keeps `radius` from every wall (less 1e-6 m, as the
    /// clear parts) and is a straight line on the mesh. Such a corner is the end of a portal's
    /// clear part against the side of a wall (where that wall's capsule cuts the portal), and a
    /// taut path for a disc bends only round wall vertices, the ends of the walls grown by the
    /// radius, never at a point of a wall's side: the funnel bent there only because the search
    /// took the other clear part of a portal that a wall cuts in two, or the part beside an
    /// opening. The smoother keeps such a corner as a point it cannot round, so the rail turned
    /// there on the spot (narrow-alcove, a start 0.017 m past the end of the near part of the
    /// long portal along the corridor: a 0.094 m line back to that end, then a 100° turn along
    /// the corridor; `tests/rail_properties.rs`, `a_rail_does_not_turn_on_the_spot_at_a_clear_parts_end`).
    /// Where the straight piece does not keep the radius (the corner holds the path off a wall),
    /// the corner stays. Corners are dropped from the start on, each against its neighbours of
    /// the moment.
    fn drop_plain_corners(&self, corners: &mut Vec<PathCorner>, radius: f64) {
        let mut i = 1;
        while i + 1 < corners.len() {
            if corners[i].around.is_none() {
                let last = corners.len() - 1;
                let (a, b) = tangent_piece(
                    &corners[i - 1],
                    i > 1,
                    &corners[i + 1],
                    i + 1 < last,
                    radius,
                );
                if self.segment_keeps_clearance(a, b, radius - 1e-6) && self.is_reachable(a, b) {
                    corners.remove(i);
                    // The corner before may now be droppable too.
                    i = (i - 1).max(1);
                    continue;
                }
            }
            i += 1;
        }
    }

    /// After smoothing: the wall vertex that a straight piece `a → b` of the rail passes closest
    /// to, when closer than `radius` (less 0.1 mm), as a corner wrapping it; vertices already
    /// wrapped by `path` are skipped. The smoother's tangent lines to the wrap circles are not the
    /// corner path's segments (they touch the circles elsewhere than the corners), so they can pass
    /// a vertex the corner path kept clear of.
    pub(crate) fn vertex_too_close(
        &self,
        path: &Path,
        lines: &[(DVec2, DVec2)],
    ) -> Option<PathCorner> {
        let radius = path.radius;
        if radius <= 0.0 {
            return None;
        }
        let wrapped = |v: u32| {
            path.corners
                .iter()
                .any(|c| c.around.is_some_and(|w| w.index == v))
        };
        let step = self.wall_grid.cell_size().max(radius);
        let mut near = Vec::new();
        let mut worst: Option<(f64, u32, DVec2, DVec2, DVec2)> = None;
        for (i, &(a, b)) in lines.iter().enumerate() {
            near.clear();
            let samples = (a.distance(b) / step).ceil().max(1.0) as usize;
            for k in 0..=samples {
                let at = a.lerp(b, k as f64 / samples as f64);
                self.walls_near(at, 0.5 * step + radius, &mut near);
            }
            near.sort_unstable();
            near.dedup();
            for &w in &near {
                for v in [self.walls[w as usize][0], self.walls[w as usize][1]] {
                    let vp = self.vertices[v as usize];
                    let (q, t) = closest_on_segment(vp, a, b);
                    let d = q.distance(vp);
                    let at_end = (t <= 0.0 && i == 0) || (t >= 1.0 && i + 1 == lines.len());
                    if d >= radius - 1e-4 || at_end || wrapped(v) {
                        continue;
                    }
                    if worst.is_none_or(|x| d < x.0 || (d == x.0 && v < x.1)) {
                        worst = Some((d, v, q, a, b));
                    }
                }
            }
        }
        let (_, v, q, a, b) = worst?;
        Some(self.wrapping_corner(v, q, a, b, radius))
    }

    /// The corner wrapping wall vertex `v`, which segment `a → b` passes too close at `q`: placed
    /// `radius` from the vertex towards the segment, turning the way the vertex lies.
    fn wrapping_corner(&self, v: u32, q: DVec2, a: DVec2, b: DVec2, radius: f64) -> PathCorner {
        let vp = self.vertices[v as usize];
        let turn = if cross(b - a, vp - a) > 0.0 {
            Turn::Left
        } else {
            Turn::Right
        };
        let away = (q - vp).try_normalize().unwrap_or_else(|| {
            let n = (b - a).normalize_or_zero();
            if turn == Turn::Left {
                DVec2::new(n.y, -n.x)
            } else {
                DVec2::new(-n.y, n.x)
            }
        });
        PathCorner {
            position: vp + away * radius,
            around: Some(CornerVertex {
                index: v,
                position: vp,
                turn,
            }),
            turn: Some(turn),
        }
    }

    /// Insert `corner` into `path` between the two corners whose segment passes nearest to it.
    pub(crate) fn insert_corner(path: &mut Path, corner: PathCorner) {
        let at = (0..path.corners.len() - 1)
            .min_by(|&i, &j| {
                let d = |k: usize| {
                    let (a, b) = (path.corners[k].position, path.corners[k + 1].position);
                    closest_on_segment(corner.position, a, b)
                        .0
                        .distance(corner.position)
                };
                d(i).total_cmp(&d(j))
            })
            .unwrap_or(0);
        path.corners.insert(at + 1, corner);
    }

    /// The parts of the portal from `p` into `q` whose points keep `radius` from every wall
    /// (less 1e-6 m), in order from its left end to its right end, into `parts`
    /// ([`NavMesh::clear_parts_at`]). Empty when `q` is not a neighbour of `p`.
    pub(crate) fn clear_portal_parts(
        &self,
        p: u32,
        q: u32,
        radius: f64,
        parts: &mut Vec<ClearPart>,
        scratch: &mut PartScratch,
    ) {
        parts.clear();
        let range = self.corner_range(p);
        if let Some(k) = range.clone().find(|&k| self.neighbours[k] == q) {
            self.clear_parts_at(&range, k, radius, parts, scratch);
        }
    }

    /// The parts of the portal on edge slot `k` of the polygon owning the corner slots `range`
    /// (walking out of it) whose points keep `radius` from every wall (less 1e-6 m), in order
    /// from its left end to its right end, into `parts`: the portal with its ends pulled in by `radius` at wall vertices, less the chord of
    /// each nearby wall's capsule of radius `radius` ([`capsule_chord`], exact). Usually one part;
    /// a long portal of a thin triangle running along a wall with an opening in it (a street
    /// with an alley off it) keeps one part beside each opening. Empty for a wall edge and when
    /// nothing of the portal keeps `radius`.
    pub(crate) fn clear_parts_at(
        &self,
        range: &std::ops::Range<usize>,
        k: usize,
        radius: f64,
        parts: &mut Vec<ClearPart>,
        scratch: &mut PartScratch,
    ) {
        parts.clear();
        if self.neighbours[k] == NONE {
            return;
        }
        let next = if k + 1 == range.end {
            range.start
        } else {
            k + 1
        };
        let (a, b) = (self.corners[k], self.corners[next]);
        // Leaving a counter-clockwise polygon through edge a → b, b is on the left.
        let (left, right, lv, rv) = (self.vertices[b as usize], self.vertices[a as usize], b, a);
        if self.portal_width(left, right, lv, rv, radius) < 0.0 {
            return;
        }
        let portal = self.shrunk_portal(left, right, lv, rv, radius);
        if radius <= 0.0 {
            parts.push(ClearPart {
                portal,
                left_wall: self.wall_vertex[lv as usize].then_some(left),
                right_wall: self.wall_vertex[rv as usize].then_some(right),
            });
            return;
        }
        let tolerance = 1e-6;
        if self.portal_clearance[k].0 < radius - tolerance {
            return;
        }
        // Every wall that can come within `radius` of a point of the portal: one grid query (a
        // search of the grid per point was 90 % of a path query on plaza).
        let PartScratch { near, blocked } = scratch;
        near.clear();
        let centre = (left + right) * 0.5;
        self.walls_near(centre, 0.5 * left.distance(right) + radius, near);
        near.sort_unstable();
        near.dedup();
        // The parameters along the shrunk portal (0 at its left end, 1 at its right) closer than
        // `radius` to some wall, as sorted ranges, with that wall.
        blocked.clear();
        blocked.extend(
            near.iter()
                .filter_map(|&w| {
                    let [a, b] = [self.walls[w as usize][0], self.walls[w as usize][1]];
                    let (wa, wb) = (self.vertices[a as usize], self.vertices[b as usize]);
                    capsule_chord(portal.left, portal.right, wa, wb, radius - tolerance)
                        .map(|(lo, hi)| (lo, hi, wa, wb))
                })
                .filter(|&(lo, hi, _, _)| hi > 0.0 && lo < 1.0),
        );
        blocked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let at = |u: f64| portal.left + (portal.right - portal.left) * u;
        let vertex_wall = |v: u32| self.wall_vertex[v as usize].then(|| self.vertices[v as usize]);
        let mut free_from = 0.0;
        let mut from_wall = vertex_wall(lv);
        let end = (f64::INFINITY, f64::INFINITY, DVec2::ZERO, DVec2::ZERO);
        for &(lo, hi, wa, wb) in blocked.iter().chain([&end]) {
            let free_to = lo.min(1.0);
            if free_to > free_from || (free_to == free_from && lo.is_infinite()) {
                let to_wall = if lo <= 1.0 {
                    Some(closest_on_segment(at(lo), wa, wb).0)
                } else {
                    vertex_wall(rv)
                };
                parts.push(ClearPart {
                    portal: Portal {
                        left: at(free_from),
                        right: at(free_to),
                        ..portal
                    },
                    left_wall: from_wall,
                    right_wall: to_wall,
                });
            }
            if hi > free_from {
                free_from = hi;
                from_wall = Some(closest_on_segment(at(hi), wa, wb).0);
            }
            if free_from > 1.0 {
                break;
            }
        }
    }

    /// A portal with each wall-vertex end pulled inwards by `radius`; `None`-width portals collapse
    /// to their midpoint (callers check [`NavMesh::portal_width`] first).
    pub(crate) fn shrunk_portal(
        &self,
        left: DVec2,
        right: DVec2,
        lv: u32,
        rv: u32,
        radius: f64,
    ) -> Portal {
        let along = right - left;
        let len = along.length();
        let (shrink_left, shrink_right) =
            (self.wall_shrink(lv, radius), self.wall_shrink(rv, radius));
        if len <= 0.0 || shrink_left + shrink_right >= len {
            let mid = left
                + along * (shrink_left / (shrink_left + shrink_right).max(1e-300)).clamp(0.0, 1.0);
            let mid = if len <= 0.0 { left } else { mid };
            return Portal {
                left: mid,
                right: mid,
                left_vertex: lv,
                right_vertex: rv,
            };
        }
        let u = along / len;
        Portal {
            left: left + u * shrink_left,
            right: right - u * shrink_right,
            left_vertex: lv,
            right_vertex: rv,
        }
    }

    /// How far a portal end at vertex `v` is pulled in: `radius` at wall vertices, 0 inside.
    fn wall_shrink(&self, v: u32, radius: f64) -> f64 {
        if self.wall_vertex[v as usize] {
            radius
        } else {
            0.0
        }
    }

    /// Usable width of a portal for an agent of `radius`: its length minus `radius` at each
    /// wall-vertex end.
    pub(crate) fn portal_width(
        &self,
        left: DVec2,
        right: DVec2,
        lv: u32,
        rv: u32,
        radius: f64,
    ) -> f64 {
        left.distance(right) - self.wall_shrink(lv, radius) - self.wall_shrink(rv, radius)
    }
}
