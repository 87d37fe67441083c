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
//! wall), the rail bends around it: see `docs/ARCHITECTURE.md`.

use glam::DVec2;

use super::{Rail, RailError, RailSegment};
use crate::geometry::{cross, left_normal};
use crate::level::{NavMesh, Path, PathCorner, PathError, PathOptions, Turn};

/// Most vertices [`NavMesh::plan_rail`] wraps after smoothing.
const MAX_REWRAPS: usize = 8;

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
    /// Plan a rail from `from` to `to`: [`NavMesh::find_path`] then [`smooth_path`], then the
    /// straight parts along two-way corridors kept right by [`PathOptions::keep_right`]
    /// (`rail/lane.rs`).
    pub fn plan_rail(
        &self,
        from: DVec2,
        to: DVec2,
        options: &PathOptions,
    ) -> Result<Rail, PlanError> {
        let mut path = self.find_path(from, to, options)?;
        let mut rail = smooth_path(&path)?;
        // The tangent lines can pass a wall vertex the corner path kept clear of: wrap it too and
        // smooth again (each round wraps one more vertex).
        for _ in 0..MAX_REWRAPS {
            let lines: Vec<(DVec2, DVec2)> = rail
                .segments()
                .iter()
                .filter(|s| matches!(s, RailSegment::Line(_)))
                .map(|s| (s.start(), s.end()))
                .collect();
            let Some(corner) = self.vertex_too_close(&path, &lines) else {
                break;
            };
            NavMesh::insert_corner(&mut path, corner);
            rail = smooth_path(&path)?;
        }
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
        // Two-way corridors: the straight parts keep right (`rail/lane.rs`).
        Ok(self.keep_right(rail, options))
    }
}

/// The circle the smoother wraps `corner` with, for a path of radius `r`: its wall vertex at the
/// radius, turning its way, for an `interior` corner that names one; otherwise the corner's
/// point (keeping its turn, so that `settle` drops it when the taut string around the other
/// corners no longer turns that way there).
fn corner_wrap(corner: &PathCorner, interior: bool, r: f64) -> Wrap {
    match corner.around {
        Some(v) if interior && r > 0.0 => Wrap {
            centre: v.position,
            radius: r,
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
    let (wa, wb) = (corner_wrap(a, a_interior, r), corner_wrap(b, b_interior, r));
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
    let r = path.radius;
    let mut wraps: Vec<Wrap> = Vec::with_capacity(path.corners.len());
    let n = path.corners.len();
    for (i, corner) in path.corners.iter().enumerate() {
        let wrap = corner_wrap(corner, i > 0 && i + 1 < n, r);
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
}
