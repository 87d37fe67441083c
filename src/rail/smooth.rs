//! Smoothing a corner path into a rail: G1-continuous lines and quadratic Béziers that keep the
//! agent radius from the wall vertices the path turns around.
//!
//! The shortest path for a disc of radius `r` around polygonal walls is the taut string around
//! circles of radius `r` centred on the corner vertices: straight tangent lines joined by circular
//! arcs. We compute exactly that: for each pair of consecutive circles the common tangent (outer
//! when both corners turn the same way, inner when they turn opposite ways), dropping corners the
//! tangents no longer touch, and replace each arc by quadratic Béziers of at most 60° whose control
//! point is where the arc's end tangents meet. Such a quadratic lies outside its circle, bulging at
//! most `r (1/cos 30° + cos 30°)/2 − r ≈ 0.0104 r` at mid-piece, so corner clearance is never
//! below `r`. Instead of cutting the corner inwards (which would bring the agent closer to the
//! wall), the rail bends around it: see `docs/ARCHITECTURE.md`. [`NavMesh::plan_rail`] wraps
//! the vertices of left turns wider where there is room ([`LEFT_TURN_KEEP`]), so that agents
//! going opposite ways round a corner pass on two lanes.

use glam::DVec2;

use super::{Rail, RailError, RailSegment};
use crate::geometry::{cross, left_normal};
use crate::level::{NavMesh, Path, PathCorner, PathError, PathOptions, Turn};

/// Most vertices [`NavMesh::plan_rail`] wraps after smoothing.
const MAX_REWRAPS: usize = 8;

/// How much wider than its radius a planned rail wraps the wall vertex of a left turn, in
/// multiples of [`PathOptions::keep_right`] (3 radii by default): agents going opposite ways
/// round a corner (a booth's, between two aisles) then pass on two lanes, the one turning
/// right hugging the vertex and the one turning left that much out, as in a two-way corridor
/// (`rail/lane.rs`). Round the corners of a 2.3 m aisle between two booths, two streams of 0.19 m
/// agents took the same diagonal from corner to corner both ways and stood face to face in it
/// (tradeshow-300 with its starts jittered: three agents late; docs/ROBUSTNESS.md, session 33).
/// Free agents keep right at left turns too (`steer/free.rs`).
const LEFT_TURN_KEEP: f64 = 2.0;

/// A left turn is kept wide by less than wanted where the mesh across it leaves less room
/// (the wider turn and a body beyond it), down to this fraction of the width: below it, the
/// turn is left plain (the two lanes would not part by both radii and margins; a turn out of a
/// 1.5 m passage between two rooms kept 0.7 m wide cost random crowds there 39 of 161 arrivals).
const MIN_LEFT_TURN_FRACTION: f64 = 0.75;

/// Largest arc one quadratic piece may span, radians.
const MAX_ARC_PIECE: f64 = std::f64::consts::FRAC_PI_3;

/// Why a rail could not be planned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// No path: off-mesh end, unreachable goal, passage too narrow.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The path could not be made into a rail (start and goal coincide, for instance).
    #[error("cannot build a rail from the path: {0}")]
    Rail(#[from] RailError),
    /// A straight piece of the smoothed rail leaves the mesh: the corner path was not taut
    /// (a fault of the path search), and the smoothing cut across a wall. Refused rather than
    /// handed out.
    #[error("the planned rail leaves the mesh between {from} and {to} (a path-search fault)")]
    LeavesMesh {
        /// Start of the straight piece, metres.
        from: DVec2,
        /// End of the straight piece, metres.
        to: DVec2,
    },
}

/// A circle the taut path wraps around: a corner vertex with the clearance radius, or a point.
#[derive(Clone, Copy, Debug)]
struct Wrap {
    centre: DVec2,
    radius: f64,
    /// +1 when the path turns counter-clockwise around the centre, −1 clockwise, 0 for a point.
    side: f64,
}

impl Wrap {
    fn point(p: DVec2) -> Wrap {
        Wrap {
            centre: p,
            radius: 0.0,
            side: 0.0,
        }
    }

    /// Where the path touches this circle while heading in unit direction `d`.
    fn touch(&self, d: DVec2) -> DVec2 {
        self.centre - left_normal(d) * (self.side * self.radius)
    }
}

/// Unit direction of the common tangent leaving circle `a` towards circle `b`, or `None` when the
/// circles overlap so that no such tangent exists.
fn tangent_direction(a: &Wrap, b: &Wrap) -> Option<DVec2> {
    let d = b.centre - a.centre;
    let len = d.length();
    let k = b.side * b.radius - a.side * a.radius;
    if len <= k.abs() || len <= 0.0 {
        return None;
    }
    let along = (len * len - k * k).sqrt();
    let (cos, sin) = (along / len, k / len);
    let u = d / len;
    // Rotate u clockwise by atan2(k, along): then d = along · dir + k · left_normal(dir).
    Some(DVec2::new(u.x * cos + u.y * sin, -u.x * sin + u.y * cos))
}

impl NavMesh {
    /// Plan a rail from `from` to `to`: [`NavMesh::find_path`] then [`smooth_path`], with the
    /// wall vertices of its left turns wrapped twice [`PathOptions::keep_right`] wider than the
    /// radius where the mesh leaves room for two lanes (else plain), then the straight parts
    /// along two-way corridors kept right by [`PathOptions::keep_right`] (`rail/lane.rs`;
    /// docs/ALGORITHM.md, "Lanes").
    pub fn plan_rail(
        &self,
        from: DVec2,
        to: DVec2,
        options: &PathOptions,
    ) -> Result<Rail, PlanError> {
        let path = self.find_path(from, to, options)?;
        // Left turns kept wide where the mesh leaves room (`LEFT_TURN_KEEP`); else plain.
        let wide = LEFT_TURN_KEEP * options.keep_right;
        if wide > 0.0 && path.radius > 0.0 {
            let extras = self.left_turn_extras(&path, wide);
            if !extras.is_empty() {
                if let Ok((rail, true)) = self.smooth_checked(path.clone(), &extras) {
                    if self.keeps_radius_near(&rail, path.radius, &extras, wide) {
                        return Ok(self.keep_right(rail, options));
                    }
                }
            }
        }
        let (rail, _) = self.smooth_checked(path, &[])?;
        // Two-way corridors: the straight parts keep right (`rail/lane.rs`).
        Ok(self.keep_right(rail, options))
    }

    /// Whether `rail`, with turns wrapped wider, keeps `radius` from the walls: every straight
    /// piece exactly (its distance to each wall edge near it), every curved piece near a widened
    /// turn (`extras`: within `wide` and three radii of its vertex) on the mesh and sampled
    /// every quarter radius. A turn wrapped wider sweeps ground the plain smoothing does not,
    /// and the re-wrapping passes over vertices it counts as wrapped already: checking the
    /// curves alone let a rail on tradeshow pass 0.27 m from a wall at radius 0.4 m.
    fn keeps_radius_near(
        &self,
        rail: &Rail,
        radius: f64,
        extras: &[(u32, f64)],
        wide: f64,
    ) -> bool {
        let near = wide + 3.0 * radius;
        let step = 0.25 * radius;
        let least = radius * (1.0 - 1e-6);
        let mut walls = Vec::new();
        rail.segments().iter().all(|segment| {
            if segment.is_line() {
                let (a, b) = (segment.start(), segment.end());
                let cell = self.wall_grid.cell_size().max(radius);
                let samples = (a.distance(b) / cell).ceil().max(1.0) as usize;
                walls.clear();
                for k in 0..=samples {
                    self.walls_near(
                        a.lerp(b, k as f64 / samples as f64),
                        0.5 * cell + radius,
                        &mut walls,
                    );
                }
                return walls.iter().all(|&w| {
                    let [u, v, _] = self.walls[w as usize];
                    let (p, q) = (self.vertices[u as usize], self.vertices[v as usize]);
                    crate::geometry::segment_distance(a, b, p, q) >= least
                });
            }
            let points = segment.control_points();
            let (lo, hi) = points.iter().fold(
                (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
                |(lo, hi), &p| (lo.min(p), hi.max(p)),
            );
            let close = extras.iter().any(|&(index, _)| {
                let v = self.vertices[index as usize];
                v.clamp(lo, hi).distance(v) <= near
            });
            if !close {
                return true;
            }
            let span: f64 = points.windows(2).map(|w| w[0].distance(w[1])).sum();
            let count = (span / step).ceil().max(1.0) as usize;
            (0..=count).all(|k| {
                let p = segment.point(k as f64 / count as f64);
                self.contains(p) && self.wall_distance(p) >= least
            })
        })
    }

    /// How much wider than the path's radius each left turn's wall vertex is wrapped: `wide`
    /// metres, or less where the mesh leaves less room for that and a body beyond, measured
    /// from the vertex square to the way before and after the turn (on the way's side) and to
    /// any other wall on that side within reach (a door's other jamb); none below
    /// [`MIN_LEFT_TURN_FRACTION`] of `wide`. `(vertex index, extra)` for each turn widened.
    fn left_turn_extras(&self, path: &Path, wide: f64) -> Vec<(u32, f64)> {
        let r = path.radius;
        let corners = &path.corners;
        let mut extras = Vec::new();
        let mut near = Vec::new();
        for k in 1..corners.len().saturating_sub(1) {
            let Some(vertex) = corners[k].around.filter(|v| v.turn == Turn::Left) else {
                continue;
            };
            // Across the way, square to it before and after the turn (to the right of the
            // path, where the vertex is not): the room for the wider turn and a body beyond.
            let mut free = f64::INFINITY;
            let mut sides = [DVec2::ZERO; 2];
            for (side, d) in sides.iter_mut().zip([
                corners[k].position - corners[k - 1].position,
                corners[k + 1].position - corners[k].position,
            ]) {
                let Some(d) = d.try_normalize() else {
                    continue;
                };
                let right = DVec2::new(d.y, -d.x);
                *side = right;
                let from = vertex.position + right * r;
                let reach = wide + r;
                free = free.min(r + self.raycast(from, from + right * reach).fraction * reach);
            }
            // Nor nearer any other wall on the way's side (a door's other jamb: a turn out of
            // a door is no place for two lanes).
            let reach = wide + 2.0 * r;
            near.clear();
            self.walls_near(vertex.position, reach, &mut near);
            for &w in &near {
                let [a, b, _] = self.walls[w as usize];
                if a == vertex.index || b == vertex.index {
                    continue;
                }
                let (q, _) = crate::geometry::closest_on_segment(
                    vertex.position,
                    self.vertices[a as usize],
                    self.vertices[b as usize],
                );
                let to = q - vertex.position;
                if sides.iter().any(|side| to.dot(*side) > 0.0) {
                    free = free.min(to.length());
                }
            }
            let extra = wide.min(free - 2.0 * r);
            if extra >= MIN_LEFT_TURN_FRACTION * wide {
                extras.push((vertex.index, extra));
            }
        }
        extras
    }

    /// [`smooth_path_with`] the `extras` wider round left turns, with the vertices the tangent
    /// lines pass too close wrapped too, and every straight piece checked on the mesh; with
    /// whether the wrapping ended with no vertex left too close (within [`MAX_REWRAPS`]).
    fn smooth_checked(
        &self,
        mut path: Path,
        extras: &[(u32, f64)],
    ) -> Result<(Rail, bool), PlanError> {
        let mut rail = smooth_path_with(&path, extras)?;
        // The tangent lines can pass a wall vertex the corner path kept clear of: wrap it too and
        // smooth again (each round wraps one more vertex).
        let lines_of = |rail: &Rail| -> Vec<(DVec2, DVec2)> {
            rail.segments()
                .iter()
                .filter(|s| matches!(s, RailSegment::Line(_)))
                .map(|s| (s.start(), s.end()))
                .collect()
        };
        let mut settled = false;
        for _ in 0..MAX_REWRAPS {
            let Some(corner) = self.vertex_too_close(&path, &lines_of(&rail)) else {
                settled = true;
                break;
            };
            NavMesh::insert_corner(&mut path, corner);
            rail = smooth_path_with(&path, extras)?;
        }
        let settled = settled || self.vertex_too_close(&path, &lines_of(&rail)).is_none();
        // Every straight piece must stay on the mesh. A corner path that is not taut (city,
        // from (159.345, 3.569) to (246.636, 101.237): a zig-zag east and back west along a
        // street) smooths into a line across a building; the search fault is open, and such a
        // rail is refused here rather than walked through the wall.
        for segment in rail.segments() {
            if let RailSegment::Line(_) = segment {
                let (from, to) = (segment.start(), segment.end());
                if !self.is_reachable(from, to) {
                    return Err(PlanError::LeavesMesh { from, to });
                }
            }
        }
        Ok((rail, settled))
    }
}

/// The circle the smoother wraps `corner` with, for a path of radius `r`: its wall vertex at the
/// radius, turning its way, for an `interior` corner that names one; otherwise the corner's
/// point (keeping its turn, so that `settle` drops it when the taut string around the other
/// corners no longer turns that way there).
fn corner_wrap(corner: &PathCorner, interior: bool, r: f64, extras: &[(u32, f64)]) -> Wrap {
    match corner.around {
        Some(v) if interior && r > 0.0 => Wrap {
            centre: v.position,
            radius: r + extras
                .iter()
                .find(|&&(index, _)| index == v.index && v.turn == Turn::Left)
                .map_or(0.0, |&(_, extra)| extra),
            side: if v.turn == Turn::Left { 1.0 } else { -1.0 },
        },
        _ => Wrap {
            side: match corner.turn {
                Some(Turn::Left) if interior => 1.0,
                Some(Turn::Right) if interior => -1.0,
                _ => 0.0,
            },
            ..Wrap::point(corner.position)
        },
    }
}

/// The straight piece the smoother lays from corner `a` to the next corner `b` of a path of
/// radius `r` (`*_interior`: not the path's start or goal): the common tangent of their wrap
/// circles, from where it leaves `a`'s to where it meets `b`'s; the two corner points when the
/// circles overlap so that no tangent exists. A corner placed `r` from its vertex along a portal
/// only approximates where the taut path touches the vertex's circle: checking the wall vertices
/// near the line between corner points instead wrapped a vertex the tangent clears, on the
/// wrong side (tradeshow: a pillar's corners wrapped in turn, a loop that left the mesh).
pub(crate) fn tangent_piece(
    a: &PathCorner,
    a_interior: bool,
    b: &PathCorner,
    b_interior: bool,
    r: f64,
) -> (DVec2, DVec2) {
    let (wa, wb) = (
        corner_wrap(a, a_interior, r, &[]),
        corner_wrap(b, b_interior, r, &[]),
    );
    match tangent_direction(&wa, &wb) {
        Some(d) => (wa.touch(d), wb.touch(d)),
        None => (a.position, b.position),
    }
}

/// Turn a corner path into a rail that wraps each corner vertex at the path's radius.
///
/// Each interior corner wraps its wall vertex at the path's radius, even where the portal
/// clearance moved the corner point further out (that point only approximates the taut path around
/// the vertex). Paths planned with radius 0 keep sharp corners (the rail is then only G0 there). Fails with [`RailError`] when the path has zero length.
pub fn smooth_path(path: &Path) -> Result<Rail, RailError> {
    smooth_path_with(path, &[])
}

/// [`smooth_path`] with the left turns' wall vertices listed in `extras` (vertex index, metres)
/// wrapped that much wider than the path's radius.
fn smooth_path_with(path: &Path, extras: &[(u32, f64)]) -> Result<Rail, RailError> {
    let r = path.radius;
    let mut wraps: Vec<Wrap> = Vec::with_capacity(path.corners.len());
    let n = path.corners.len();
    for (i, corner) in path.corners.iter().enumerate() {
        let wrap = corner_wrap(corner, i > 0 && i + 1 < n, r, extras);
        // Several portals can fan out of one vertex, giving consecutive corners around it: the
        // path wraps that vertex once.
        if wrap.radius > 0.0
            && wraps
                .last()
                .is_some_and(|w| w.centre == wrap.centre && w.side == wrap.side)
        {
            continue;
        }
        wraps.push(wrap);
    }
    let directions = settle(&mut wraps);

    let mut segments = Vec::with_capacity(wraps.len() * 3);
    let mut at = wraps[0].centre;
    for i in 1..wraps.len() {
        let w = wraps[i];
        let d_in = directions[i - 1];
        let touch_in = w.touch(d_in);
        if at.distance(touch_in) > 1e-9 {
            segments.push(RailSegment::line(at, touch_in));
        }
        at = touch_in;
        if i + 1 == wraps.len() || w.radius <= 0.0 {
            continue;
        }
        at = arc_pieces(&w, at, d_in, directions[i], &mut segments);
    }
    Rail::new(segments)
}

/// The arc of `w` from `at` (where the path touches it heading `d_in`) to where it leaves
/// heading `d_out`, as quadratic Béziers of at most [`MAX_ARC_PIECE`] pushed onto `segments`;
/// returns the arc's end (`at` when the directions agree).
fn arc_pieces(
    w: &Wrap,
    mut at: DVec2,
    d_in: DVec2,
    d_out: DVec2,
    segments: &mut Vec<RailSegment>,
) -> DVec2 {
    let sweep = cross(d_in, d_out).atan2(d_in.dot(d_out));
    if sweep.abs() < 1e-9 {
        return at;
    }
    let pieces = (sweep.abs() / MAX_ARC_PIECE).ceil().max(1.0) as usize;
    let step = sweep / pieces as f64;
    let start_angle = {
        let o = at - w.centre;
        o.y.atan2(o.x)
    };
    for k in 0..pieces {
        let a0 = start_angle + step * k as f64;
        let a1 = a0 + step;
        let p0 = if k == 0 {
            at
        } else {
            w.centre + DVec2::from_angle(a0) * w.radius
        };
        let p2 = if k + 1 == pieces {
            w.touch(d_out)
        } else {
            w.centre + DVec2::from_angle(a1) * w.radius
        };
        let control =
            w.centre + DVec2::from_angle(0.5 * (a0 + a1)) * (w.radius / (0.5 * step).cos());
        segments.push(RailSegment::quad(p0, control, p2));
        at = p2;
    }
    at
}

/// A circle for [`around_circles`] to keep out of: its centre, its radius (metres), and
/// whether the path passes it with the centre on its left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct KeepOut {
    pub centre: DVec2,
    pub radius: f64,
    pub left: bool,
}

/// The taut path of a disc from `from` to `to` that keeps out of `circles` (in the order it
/// passes them), each on its side: tangent lines and arcs of quadratic Béziers (each at most
/// 1.04 % of the radius outside its circle, never inside). A circle the taut path does not
/// touch (it would turn the other way round it) is left out. `None` when an end lies inside
/// a circle, two circles are too close for a tangent between them on their sides, or the
/// straight line from `from` to `to` touches none of them.
pub(crate) fn around_circles(
    from: DVec2,
    circles: &[KeepOut],
    to: DVec2,
) -> Option<Vec<RailSegment>> {
    let mut wraps: Vec<Wrap> = Vec::with_capacity(circles.len() + 2);
    wraps.push(Wrap::point(from));
    wraps.extend(circles.iter().map(|c| Wrap {
        centre: c.centre,
        radius: c.radius,
        side: if c.left { 1.0 } else { -1.0 },
    }));
    wraps.push(Wrap::point(to));
    // Each round leaves out one circle the path turns the wrong way round, or ends.
    let directions = loop {
        let directions = wraps
            .windows(2)
            .map(|pair| tangent_direction(&pair[0], &pair[1]))
            .collect::<Option<Vec<DVec2>>>()?;
        let wrong = (1..wraps.len() - 1)
            .find(|&i| wraps[i].side * cross(directions[i - 1], directions[i]) <= 0.0);
        match wrong {
            Some(i) => {
                wraps.remove(i);
            }
            None => break directions,
        }
    };
    if wraps.len() < 3 {
        return None;
    }
    let mut segments = Vec::with_capacity(4 * wraps.len());
    let mut at = from;
    for i in 1..wraps.len() {
        let w = wraps[i];
        let touch_in = w.touch(directions[i - 1]);
        if at.distance(touch_in) > 1e-9 {
            segments.push(RailSegment::line(at, touch_in));
        }
        at = touch_in;
        if i + 1 < wraps.len() {
            at = arc_pieces(&w, at, directions[i - 1], directions[i], &mut segments);
        }
    }
    Some(segments)
}

/// Compute the tangent directions between consecutive wraps, dropping corners the taut string no
/// longer touches (it turns the other way there) and shrinking circles that overlap their
/// neighbour, until stable. Returns `directions[i]`: from wrap `i` to wrap `i + 1`.
fn settle(wraps: &mut Vec<Wrap>) -> Vec<DVec2> {
    // Each pass removes a corner or shrinks a radius, or ends; the cap guards against rounding.
    for _ in 0..4 * wraps.len() + 8 {
        let mut directions = Vec::with_capacity(wraps.len());
        let mut changed = false;
        for i in 0..wraps.len() - 1 {
            match tangent_direction(&wraps[i], &wraps[i + 1]) {
                Some(d) => directions.push(d),
                None => {
                    // Overlapping circles (a start or goal inside a corner's circle, or a gap
                    // narrower than 2r): shrink them so a tangent exists.
                    let gap = wraps[i].centre.distance(wraps[i + 1].centre);
                    let (a, b) = (wraps[i].radius, wraps[i + 1].radius);
                    let limit = if wraps[i].side * wraps[i + 1].side < 0.0 {
                        gap * 0.5
                    } else {
                        gap
                    };
                    if a > 0.0 {
                        wraps[i].radius = a.min(limit * 0.999);
                    }
                    if b > 0.0 {
                        wraps[i + 1].radius = b.min(limit * 0.999);
                    }
                    changed = true;
                    break;
                }
            }
        }
        if changed {
            continue;
        }
        // Drop one corner the path does not actually wrap (wrong turn direction).
        let wrong = (1..wraps.len() - 1).find(|&i| {
            let w = wraps[i];
            w.side != 0.0 && w.side * cross(directions[i - 1], directions[i]) < -1e-12
                || w.side == 0.0
                    && cross(directions[i - 1], directions[i]).abs() < 1e-12
                    && directions[i - 1].dot(directions[i]) > 0.0
        });
        match wrong {
            Some(i) => {
                wraps.remove(i);
            }
            None => return directions,
        }
    }
    // Fallback after the cap: straight lines between the centres.
    wraps.iter_mut().for_each(|w| w.radius = 0.0);
    wraps
        .windows(2)
        .map(|p| (p[1].centre - p[0].centre).normalize_or_zero())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outer_and_inner_tangents() {
        let a = Wrap {
            centre: DVec2::new(0., 0.),
            radius: 1.0,
            side: 1.0,
        };
        let b = Wrap {
            centre: DVec2::new(10., 0.),
            radius: 1.0,
            side: 1.0,
        };
        let d = tangent_direction(&a, &b).unwrap();
        assert!((d - DVec2::new(1., 0.)).length() < 1e-12);
        assert!((a.touch(d) - DVec2::new(0., -1.)).length() < 1e-12);
        // Opposite sides: the inner tangent crosses between the circles.
        let c = Wrap { side: -1.0, ..b };
        let d = tangent_direction(&a, &c).unwrap();
        let (ta, tc) = (a.touch(d), c.touch(d));
        assert!(((tc - ta).normalize() - d).length() < 1e-12);
        assert!((ta.distance(a.centre) - 1.0).abs() < 1e-12);
        assert!((tc.distance(c.centre) - 1.0).abs() < 1e-12);
        assert!(ta.y < 0.0 && tc.y > 0.0);
        // Overlapping opposite circles have no inner tangent.
        let near = Wrap {
            centre: DVec2::new(1.5, 0.),
            ..c
        };
        assert!(tangent_direction(&a, &near).is_none());
    }

    /// Two 4 x 4 m booths leaving a 2.3 m aisle (x 4.2 to 6.5, y -2 to 2) in a 17 x 16 m hall
    /// (`tools/crowd_probes.py aisle`).
    fn aisle() -> crate::level::Level {
        crate::level::Level::from_json(
            r#"{"name": "aisle", "boundary": [[-3, -8], [14, -8], [14, 8], [-3, 8]],
                "holes": [[[0, -2], [4.2, -2], [4.2, 2], [0, 2]],
                          [[6.5, -2], [11, -2], [11, 2], [6.5, 2]]]}"#,
            "aisle",
        )
        .unwrap()
    }

    /// The least distance from the points of `a` inside the aisle (every 5 cm) to `b`.
    fn apart_in_the_aisle(a: &Rail, b: &Rail) -> f64 {
        let count = (a.length() / 0.05).ceil() as usize;
        (0..=count)
            .map(|k| a.position(a.length() * k as f64 / count as f64))
            .filter(|p| (4.2..=6.5).contains(&p.x) && (-2.0..=2.0).contains(&p.y))
            .map(|p| b.position(b.closest_s(p)).distance(p))
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn rails_through_an_aisle_from_corner_to_corner_pass_on_two_lanes() {
        // From the south-west to the north-east of the hall and back: the taut rails run the
        // same diagonal from one booth's corner to the other's both ways. Each keeps its left
        // turn 3 radii wide (0.57 m for 0.19 m agents) and hugs its right turn, so the two
        // part by more than both radii and the default margins (0.43 m) all through the aisle.
        let level = aisle();
        let mesh = level.navmesh();
        let radius = 0.19;
        let (south_west, north_east) = (DVec2::new(2.0, -6.0), DVec2::new(9.0, 6.0));
        let plan = |from, to, options: &PathOptions| mesh.plan_rail(from, to, options).unwrap();
        let options = PathOptions::from_agent_radius(radius);
        let there = plan(south_west, north_east, &options);
        let back = plan(north_east, south_west, &options);
        let apart = apart_in_the_aisle(&there, &back);
        assert!(apart > 2.0 * radius + 0.25 * radius, "{apart}");
        assert!(there.clearance(mesh, 0.01).distance >= radius - 1e-6);
        assert!(back.clearance(mesh, 0.01).distance >= radius - 1e-6);
        // Without keeping right, the same line both ways.
        let taut = PathOptions {
            keep_right: 0.0,
            ..options
        };
        let apart = apart_in_the_aisle(
            &plan(south_west, north_east, &taut),
            &plan(north_east, south_west, &taut),
        );
        assert!(apart < 0.01, "{apart}");
    }

    #[test]
    fn a_left_turn_out_of_a_door_is_left_plain() {
        // doorway: a 1.2 m door through a 1 m wall. Out of the door, the left turn round its
        // jamb has the other jamb 1.2 m across: no room for two lanes, and the rail is the taut
        // one (a door is one lane; turns kept wide out of doors cost random crowds there 45 of
        // 566 arrivals).
        let level = crate::level::fixture_level("doorway");
        let mesh = level.navmesh();
        let options = PathOptions::from_agent_radius(0.4);
        let (from, to) = (DVec2::new(12.2, 6.69), DVec2::new(5.61, 2.5));
        let rail = mesh.plan_rail(from, to, &options).unwrap();
        let taut = mesh
            .plan_rail(
                from,
                to,
                &PathOptions {
                    keep_right: 0.0,
                    ..options
                },
            )
            .unwrap();
        assert_eq!(rail.segments(), taut.segments());
    }
}
