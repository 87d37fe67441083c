//! Rails: the exact paths characters ride, as chains of line / quadratic / cubic Bézier
//! segments sampled by arclength `s` (metres from the start).

mod arclength;
mod cursor;
mod error;
mod lane;
mod segment;
mod smooth;
mod validate;

pub use cursor::RailCursor;
pub use error::RailError;
pub(crate) use lane::CORRIDOR_RADII;
pub use segment::RailSegment;
pub(crate) use smooth::{around_circles, tangent_piece, KeepOut};
pub use smooth::{smooth_path, PlanError};
pub use validate::{Clearance, OffMesh};

use glam::DVec2;

use crate::geometry::closest_on_segment;
use arclength::{ArcTable, Refinement, Span, MIN_SEGMENT_LENGTH};

/// Largest gap (metres) between consecutive segments that still counts as connected.
const CONNECT_TOLERANCE: f64 = 1e-6;

/// Largest distance (metres) between a splice replacement's ends and the rail points they
/// replace.
const SPLICE_TOLERANCE: f64 = 1e-4;

/// Cut points closer than this (metres of arclength) to a segment boundary snap onto it, so
/// editing never creates slivers of segments.
const SNAP: f64 = 1e-6;

/// Where a rail is at arclength `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RailSample {
    /// Arclength from the rail start, metres (after clamping to `[0, length]`).
    pub s: f64,
    /// Position, metres.
    pub position: DVec2,
    /// Unit tangent: the direction of travel.
    pub tangent: DVec2,
    /// Signed curvature, 1/m: positive when turning left (counter-clockwise), 0 on lines.
    pub curvature: f64,
}

/// A point of a rail named by segment and Bézier parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RailLocation {
    /// Index into [`Rail::segments`].
    pub segment: usize,
    /// Bézier parameter on that segment, in `[0, 1]`.
    pub t: f64,
}

/// A path of connected segments that a character rides exactly, sampled by arclength `s`.
///
/// Building a rail validates it (see [`Rail::new`]) and precomputes an arclength table per
/// curved segment, so that mapping `s` to a point costs two short binary searches, a cubic
/// polynomial and one Bézier evaluation (≈ 15 ns; `benches/rail.rs`), within 1.2e-4 m of the
/// exact arclength parameterisation (lines are exact). See [`RailCursor`] for O(1) sweeps with
/// increasing `s` (≈ 6 ns a sample).
///
/// All sampling methods take any `s`: values outside `[0, length]` are clamped, and NaN is
/// treated as 0, so per-frame code never panics.
#[derive(Clone, Debug)]
pub struct Rail {
    segments: Vec<RailSegment>,
    table: ArcTable,
}

/// Two rails are equal when their segments are (the arclength table follows from them).
impl PartialEq for Rail {
    fn eq(&self, other: &Rail) -> bool {
        self.segments == other.segments
    }
}

impl Rail {
    /// Builds a rail from its segments, in travel order.
    ///
    /// # Errors
    ///
    /// In this order of checks: [`RailError::Empty`] for no segments;
    /// [`RailError::NonFinite`] for a NaN or infinite control point;
    /// [`RailError::Disconnected`] when a segment starts more than 1e-6 m from where the
    /// previous one ends; [`RailError::ZeroLength`] for a segment shorter than 1e-9 m;
    /// [`RailError::Cusp`] for a curved segment that stops and reverses direction inside
    /// (a zero derivative at an end, as from a doubled end control point, is fine).
    pub fn new(segments: Vec<RailSegment>) -> Result<Rail, RailError> {
        validate(&segments)?;
        let table = ArcTable::build(&segments)?;
        Ok(Rail { segments, table })
    }

    /// Builds a polyline rail: straight lines through `points` in order.
    ///
    /// # Errors
    ///
    /// [`RailError::Empty`] for fewer than two points; otherwise as [`Rail::new`] (a repeated
    /// point gives [`RailError::ZeroLength`] naming the line that starts at it).
    pub fn from_points(points: &[DVec2]) -> Result<Rail, RailError> {
        if points.len() < 2 {
            return Err(RailError::Empty);
        }
        Rail::new(
            points
                .windows(2)
                .map(|w| RailSegment::line(w[0], w[1]))
                .collect(),
        )
    }

    /// The segments, in travel order.
    pub fn segments(&self) -> &[RailSegment] {
        &self.segments
    }

    /// The arclength (metres) at which segment `index` starts; [`Rail::length`] for an
    /// index past the last segment.
    pub fn segment_start(&self, index: usize) -> f64 {
        self.table
            .spans
            .get(index)
            .map_or(self.table.length, |sp| sp.start)
    }

    /// Whether the rail from arclength `s0` to `s1` (metres, `s0 <= s1`, both clamped) lies on
    /// one straight segment, so that the chord between its two points is the rail itself.
    pub(crate) fn is_line_between(&self, s0: f64, s1: f64) -> bool {
        let (s0, s1) = (self.clamp_s(s0), self.clamp_s(s1));
        let index = self.table.find_span(s0);
        let span = self.span(index);
        self.segments[index].is_line() && s0 <= s1 && s1 <= span.start + span.length
    }

    /// The total arclength, metres.
    pub fn length(&self) -> f64 {
        self.table.length
    }

    /// The first point of the rail.
    pub fn start(&self) -> DVec2 {
        self.segments[0].start()
    }

    /// The last point of the rail.
    pub fn end(&self) -> DVec2 {
        self.segments[self.segments.len() - 1].end()
    }

    /// Clamps `s` to `[0, length]`, NaN to 0.
    #[inline]
    pub(crate) fn clamp_s(&self, s: f64) -> f64 {
        if s.is_nan() {
            0.0
        } else {
            s.clamp(0.0, self.table.length)
        }
    }

    #[inline]
    fn span(&self, index: usize) -> &Span {
        &self.table.spans[index]
    }

    /// Segment and Bézier parameter at arclength `s` (clamped to `[0, length]`; NaN is
    /// treated as 0). At a boundary between segments, the later segment (at `t = 0`).
    ///
    /// Binary search over the segment starts, then over the segment's table intervals.
    #[inline]
    pub fn locate(&self, s: f64) -> RailLocation {
        let s = self.clamp_s(s);
        if s >= self.table.length {
            return self.end_location();
        }
        let segment = self.table.find_span(s);
        let span = self.span(segment);
        let ls = s - span.start;
        let piece = if span.first == span.end {
            0
        } else {
            self.table.find_piece(span, ls)
        };
        RailLocation {
            segment,
            t: self.table.t_at(span, piece, ls),
        }
    }

    /// The point at arclength `s`, metres (`s` clamped to `[0, length]`; NaN is treated as
    /// 0). Within 1.2e-4 m of the exact arclength parameterisation.
    #[inline]
    pub fn position(&self, s: f64) -> DVec2 {
        let loc = self.locate(s);
        self.segments[loc.segment].point(loc.t)
    }

    /// The unit tangent (direction of travel) at arclength `s` (clamped; NaN is treated as 0).
    /// At a segment end whose derivative vanishes, the limit from inside the segment.
    pub fn tangent(&self, s: f64) -> DVec2 {
        let loc = self.locate(s);
        self.segments[loc.segment].tangent(loc.t)
    }

    /// The signed curvature at arclength `s`, 1/m, positive when turning left, 0 on lines
    /// (`s` clamped; NaN is treated as 0). Always finite: at a segment end with a doubled
    /// control point, where the true curvature of a cubic may diverge, the value at `t`
    /// 1e-6 inside the segment is returned.
    pub fn curvature(&self, s: f64) -> f64 {
        let loc = self.locate(s);
        self.segments[loc.segment].curvature(loc.t)
    }

    /// Position, tangent and curvature at arclength `s` (clamped to `[0, length]`; NaN is
    /// treated as 0). The returned `s` is the clamped one.
    pub fn sample(&self, s: f64) -> RailSample {
        let s = self.clamp_s(s);
        let loc = self.locate(s);
        sample_at(&self.segments[loc.segment], s, loc.t)
    }

    /// The location of the rail's end: the last segment at `t = 1`.
    #[inline]
    pub(crate) fn end_location(&self) -> RailLocation {
        RailLocation {
            segment: self.segments.len() - 1,
            t: 1.0,
        }
    }

    /// A cursor for fast sweeps along this rail (see [`RailCursor`]).
    pub fn cursor(&self) -> RailCursor<'_> {
        RailCursor::new(self)
    }

    /// Splits the rail at arclength `s` into the part before and the part after.
    ///
    /// A cut within 1e-6 m of a segment boundary snaps onto it. Positions on either part
    /// match the original within the table accuracy (2 × 1.2e-4 m; exact on lines).
    ///
    /// # Errors
    ///
    /// [`RailError::OutOfRange`] if `s` is NaN or outside `[0, length]`;
    /// [`RailError::EmptySplit`] if `s` is within 1e-6 m of either end.
    pub fn split(&self, s: f64) -> Result<(Rail, Rail), RailError> {
        self.check_s(s)?;
        if s < SNAP || s > self.length() - SNAP {
            return Err(RailError::EmptySplit { s });
        }
        Ok((
            self.assemble(self.cut(0.0, s))?,
            self.assemble(self.cut(s, self.length()))?,
        ))
    }

    /// The part of the rail between arclengths `s0` and `s1`, as a new rail starting at
    /// `s = 0`. Cuts within 1e-6 m of a segment boundary snap onto it.
    ///
    /// # Errors
    ///
    /// [`RailError::OutOfRange`] if either is NaN or outside `[0, length]`;
    /// [`RailError::EmptyRange`] unless `s1 − s0 ≥ 1e-6` m.
    pub fn subrail(&self, s0: f64, s1: f64) -> Result<Rail, RailError> {
        self.check_s(s0)?;
        self.check_s(s1)?;
        if s1 - s0 < SNAP {
            return Err(RailError::EmptyRange { s0, s1 });
        }
        self.assemble(self.cut(s0, s1))
    }

    /// Replaces the part `[s0, s1]` with `replacement`, which must start at `position(s0)`
    /// and end at `position(s1)` within 1e-4 m; `s0` may be 0 and `s1` may be `length`, and
    /// `s0 == s1` inserts a detour (a loop). The replacement's end points are moved onto
    /// the kept parts of the rail (by at most 1e-4 m) so that the result is connected.
    ///
    /// # Errors
    ///
    /// [`RailError::OutOfRange`] if `s0` or `s1` is NaN or outside `[0, length]`;
    /// [`RailError::EmptyRange`] if `s1 < s0`; any [`Rail::new`] error of the replacement on
    /// its own (segment indices count within `replacement`), including
    /// [`RailError::Empty`]; [`RailError::SpliceMismatch`] if an end of the replacement is
    /// more than 1e-4 m from the rail.
    pub fn splice(
        &self,
        s0: f64,
        s1: f64,
        mut replacement: Vec<RailSegment>,
    ) -> Result<Rail, RailError> {
        self.check_s(s0)?;
        self.check_s(s1)?;
        if s1 < s0 {
            return Err(RailError::EmptyRange { s0, s1 });
        }
        validate(&replacement)?;
        let first = replacement[0].start();
        let last = replacement[replacement.len() - 1].end();
        let gap = first.distance(self.position(s0));
        if gap.is_nan() || gap > SPLICE_TOLERANCE {
            return Err(RailError::SpliceMismatch { end: "start", gap });
        }
        let gap = last.distance(self.position(s1));
        if gap.is_nan() || gap > SPLICE_TOLERANCE {
            return Err(RailError::SpliceMismatch { end: "end", gap });
        }
        let head = if s0 >= SNAP {
            self.cut(0.0, s0)
        } else {
            Vec::new()
        };
        let tail = if s1 <= self.length() - SNAP {
            self.cut(s1, self.length())
        } else {
            Vec::new()
        };
        if let Some(h) = head.last() {
            replacement[0] = replacement[0].with_start(h.segment.end());
        }
        if let Some(t) = tail.first() {
            let n = replacement.len() - 1;
            replacement[n] = replacement[n].with_end(t.segment.start());
        }
        let mut parts = head;
        parts.extend(replacement.into_iter().map(|segment| Part {
            segment,
            source: None,
        }));
        parts.extend(tail);
        self.assemble(parts)
    }

    /// This rail's part from `s0` to `s_leave` (none when `s_leave` is within 1e-6 m of `s0`),
    /// then the new segments `middle`, then this rail's part from `s_reconnect` to its end (none
    /// within 1e-6 m of the end) with its first segment moved to start where `middle` ends:
    /// exactly the rail `Rail::new` makes of those segments (the same segments and numbers),
    /// but segments kept whole keep their arclength tables, as in [`Rail::splice`]. A standing
    /// crowd's bends build a few hundred such rails a frame, and rebuilding the tables of the
    /// kept parts was 9 % of a frame on `plaza` (`perf`).
    ///
    /// # Errors
    ///
    /// As [`Rail::subrail`] for the two kept parts, and as [`Rail::new`] for the result. With
    /// the rail, the index of its first `middle` segment.
    pub(crate) fn rejoined(
        &self,
        s0: f64,
        s_leave: f64,
        middle: &[RailSegment],
        s_reconnect: f64,
        splice: Splice,
    ) -> Result<Rejoined, RailError> {
        let mut parts = Vec::new();
        if s_leave > s0 + SNAP {
            self.check_s(s0)?;
            self.check_s(s_leave)?;
            parts.extend(self.cut(s0, s_leave));
        }
        let first_middle = parts.len();
        parts.extend(middle.iter().map(|&segment| Part {
            segment,
            source: None,
        }));
        if s_reconnect < self.length() - SNAP {
            self.check_s(s_reconnect)?;
            let mut tail = self.cut(s_reconnect, self.length());
            if let (Some(first), Some(last)) = (tail.first_mut(), middle.last()) {
                first.segment = first.segment.with_start(last.end());
                first.source = None;
            }
            parts.extend(tail);
        }
        let (rail, bisected) = match splice {
            Splice::Checked => self.assemble_with(parts, Refinement::Checked)?,
            Splice::Repeated => self.assemble_repeated(parts)?,
        };
        Ok(Rejoined {
            rail,
            first_middle,
            bisected,
        })
    }

    /// A rail of `parts`: segments copied whole from this rail keep their arclength tables
    /// (copied, not rebuilt: the same numbers, since a table is a function of its segment)
    /// and skip the checks they passed here; the others are checked and tabled as in
    /// [`Rail::new`]. Bends and detours splice long rails many times a frame, and rebuilding
    /// the tables of the untouched tail was a fifth of a crowded frame (`perf`, city-small).
    fn assemble(&self, parts: Vec<Part>) -> Result<Rail, RailError> {
        self.assemble_with(parts, Refinement::Checked)
            .map(|(rail, _)| rail)
    }

    /// [`Rail::assemble`], the new segments' tables built with `refinement`; with whether any
    /// of their intervals was bisected.
    fn assemble_with(
        &self,
        parts: Vec<Part>,
        refinement: Refinement,
    ) -> Result<(Rail, bool), RailError> {
        let sources: Vec<Option<usize>> = parts.iter().map(|p| p.source).collect();
        let segments: Vec<RailSegment> = parts.into_iter().map(|p| p.segment).collect();
        validate_new(&segments, |i| sources[i].is_none())?;
        let built = ArcTable::build_with(
            &segments,
            |i| sources[i].map(|k| (&self.table, k)),
            refinement,
        )?;
        let rail = Rail {
            segments,
            table: built.table,
        };
        Ok((rail, built.bisected))
    }

    /// [`Rail::assemble`] of parts a checked assembly of the same numbers accepted, bisecting
    /// nothing ([`Splice::Repeated`]): the new segments are not checked again, and their
    /// tables are built unchecked, which gives the same tables.
    fn assemble_repeated(&self, parts: Vec<Part>) -> Result<(Rail, bool), RailError> {
        let sources: Vec<Option<usize>> = parts.iter().map(|p| p.source).collect();
        let segments: Vec<RailSegment> = parts.into_iter().map(|p| p.segment).collect();
        let built = ArcTable::build_with(
            &segments,
            |i| sources[i].map(|k| (&self.table, k)),
            Refinement::Unchecked,
        )?;
        let rail = Rail {
            segments,
            table: built.table,
        };
        Ok((rail, false))
    }

    /// The arclength of the rail point nearest `point`, metres (0 for a non-finite point).
    ///
    /// Lines are projected exactly. Curved segments are sampled at 33 uniform `t`, and the
    /// best sample is refined by safeguarded Newton iteration on `(B(t) − p)·B'(t) = 0`
    /// (bisection fallback) to 1e-12 in `t`; segments whose control-point bounding box is
    /// farther than the best distance so far are skipped (convex hull property). The answer
    /// is the true nearest point unless a curved segment's distance to `point` has two local
    /// minima within 1/32 of its `t` range of each other; its arclength is accurate to the
    /// table accuracy (≈ 1e-4 m).
    pub fn closest_s(&self, point: DVec2) -> f64 {
        if !point.is_finite() {
            return 0.0;
        }
        let mut best = (f64::INFINITY, 0usize, 0.0f64);
        for (i, seg) in self.segments.iter().enumerate() {
            if box_distance2(seg, point) >= best.0 {
                continue;
            }
            let (d2, t) = match seg {
                RailSegment::Line(_) => {
                    let (q, t) = closest_on_segment(point, seg.start(), seg.end());
                    (q.distance_squared(point), t)
                }
                _ => closest_on_curve(seg, point),
            };
            if d2 < best.0 {
                best = (d2, i, t);
            }
        }
        let span = self.span(best.1);
        (span.start + self.table.s_of_t(span, best.2)).clamp(0.0, self.length())
    }

    fn check_s(&self, s: f64) -> Result<(), RailError> {
        if s >= 0.0 && s <= self.length() {
            Ok(())
        } else {
            Err(RailError::OutOfRange {
                s,
                length: self.length(),
            })
        }
    }

    /// Location of a cut at `s`, snapped to segment boundaries within [`SNAP`]. `at_end`
    /// chooses the earlier segment (at `t = 1`) when the cut lies on a boundary.
    fn cut_location(&self, s: f64, at_end: bool) -> (usize, f64) {
        let loc = self.locate(s);
        let span = self.span(loc.segment);
        let (mut i, mut t) = (loc.segment, loc.t);
        if s - span.start < SNAP {
            t = 0.0;
        } else if span.start + span.length - s < SNAP {
            t = 1.0;
        }
        if at_end && t == 0.0 && i > 0 {
            i -= 1;
            t = 1.0;
        } else if !at_end && t == 1.0 && i + 1 < self.segments.len() {
            i += 1;
            t = 0.0;
        }
        (i, t)
    }

    /// The segments covering `[s0, s1]` (`0 ≤ s0 < s1 ≤ length`), ends cut by subsegment.
    fn cut(&self, s0: f64, s1: f64) -> Vec<Part> {
        let (i0, t0) = self.cut_location(s0, false);
        let (i1, t1) = self.cut_location(s1, true);
        let mut out = Vec::with_capacity(i1.saturating_sub(i0) + 1);
        for i in i0..=i1 {
            let a = if i == i0 { t0 } else { 0.0 };
            let b = if i == i1 { t1 } else { 1.0 };
            if a == 0.0 && b == 1.0 {
                out.push(Part {
                    segment: self.segments[i],
                    source: Some(i),
                });
            } else if a < b {
                out.push(Part {
                    segment: self.segments[i].subsegment(a, b),
                    source: None,
                });
            }
        }
        out
    }
}

/// How [`Rail::rejoined`] treats the segments it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Splice {
    /// Checked as [`Rail::new`] checks them, their tables refined to the table's tolerance.
    Checked,
    /// The same numbers as an earlier `Checked` splice that succeeded and reported nothing
    /// bisected ([`Rejoined::bisected`]): neither checked nor refined again, which gives the
    /// same rail bit for bit at a quarter of the arclength measures (a standing agent's bend
    /// tries, rebuilt from its memo).
    Repeated,
}

/// A rail from [`Rail::rejoined`].
#[derive(Clone, Debug)]
pub(crate) struct Rejoined {
    /// The new rail.
    pub rail: Rail,
    /// The index of its first new (`middle`) segment.
    pub first_middle: usize,
    /// Whether the arclength table of a new segment needed an interval bisected (never for
    /// [`Splice::Repeated`]).
    pub bisected: bool,
}

/// A segment of a rail being assembled from another: `source` is its index there when it is
/// copied whole.
struct Part {
    segment: RailSegment,
    source: Option<usize>,
}

/// The checks of [`Rail::new`] that need no arclength table.
fn validate(segments: &[RailSegment]) -> Result<(), RailError> {
    validate_new(segments, |_| true)
}

/// [`validate`], with the per-segment checks (length, cusp) only for the segments `is_new`
/// picks: the others come whole from a rail that passed them.
fn validate_new(segments: &[RailSegment], is_new: impl Fn(usize) -> bool) -> Result<(), RailError> {
    if segments.is_empty() {
        return Err(RailError::Empty);
    }
    for (i, seg) in segments.iter().enumerate() {
        if !seg.is_finite() {
            return Err(RailError::NonFinite { segment: i });
        }
    }
    for i in 1..segments.len() {
        let gap = segments[i - 1].end().distance(segments[i].start());
        if gap > CONNECT_TOLERANCE {
            return Err(RailError::Disconnected { segment: i, gap });
        }
    }
    for (i, seg) in segments.iter().enumerate().filter(|&(i, _)| is_new(i)) {
        let length = seg.arclength();
        if length.is_nan() || length < MIN_SEGMENT_LENGTH {
            return Err(RailError::ZeroLength { segment: i });
        }
        if let Some(t) = seg.find_cusp() {
            return Err(RailError::Cusp { segment: i, t });
        }
    }
    Ok(())
}

/// Position, tangent and curvature of `seg` at `t`, labelled with rail arclength `s`.
#[inline]
pub(crate) fn sample_at(seg: &RailSegment, s: f64, t: f64) -> RailSample {
    RailSample {
        s,
        position: seg.point(t),
        tangent: seg.tangent(t),
        curvature: seg.curvature(t),
    }
}

/// Squared distance from `p` to the bounding box of the segment's control points (a lower
/// bound of the squared distance to the segment).
fn box_distance2(seg: &RailSegment, p: DVec2) -> f64 {
    let (lo, hi) = seg.bounds();
    (lo - p).max(p - hi).max(DVec2::ZERO).length_squared()
}

/// Nearest point of a curved segment to `p`: (squared distance, `t`). See [`Rail::closest_s`].
fn closest_on_curve(seg: &RailSegment, p: DVec2) -> (f64, f64) {
    const N: usize = 32;
    let d2 = |t: f64| seg.point(t).distance_squared(p);
    let (mut k_best, mut d_best) = (0, f64::INFINITY);
    for k in 0..=N {
        let d = d2(k as f64 / N as f64);
        if d < d_best {
            (k_best, d_best) = (k, d);
        }
    }
    let mut t_best = k_best as f64 / N as f64;
    // g(t) = (B(t) − p)·B'(t), the half-derivative of the squared distance.
    let g = |t: f64| (seg.point(t) - p).dot(seg.derivative(t));
    for (lo, hi) in [
        (k_best.saturating_sub(1), k_best),
        (k_best, (k_best + 1).min(N)),
    ] {
        let (mut a, mut b) = (lo as f64 / N as f64, hi as f64 / N as f64);
        if !(a < b && g(a) <= 0.0 && g(b) >= 0.0) {
            continue;
        }
        let mut t = 0.5 * (a + b);
        for _ in 0..60 {
            let gt = g(t);
            if gt == 0.0 {
                break;
            }
            if gt < 0.0 {
                a = t;
            } else {
                b = t;
            }
            let slope = seg.derivative(t).length_squared()
                + (seg.point(t) - p).dot(seg.second_derivative(t));
            let newton = t - gt / slope;
            let next = if slope > 0.0 && newton >= a && newton <= b {
                newton
            } else {
                0.5 * (a + b)
            };
            let step = (next - t).abs();
            t = next;
            if step < 1e-13 || b - a < 1e-12 {
                break;
            }
        }
        let d = d2(t);
        if d < d_best {
            (t_best, d_best) = (t, d);
        }
    }
    (d_best, t_best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kurbo::ParamCurveArclen;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    /// A rail mixing lines, a quadratic corner, cubics (one with a doubled start control
    /// point) and a U-turn; about 40 m.
    fn mixed_rail() -> Rail {
        Rail::new(vec![
            RailSegment::line(v(0.0, 0.0), v(8.0, 0.0)),
            RailSegment::quad(v(8.0, 0.0), v(10.0, 0.0), v(10.0, 2.0)),
            RailSegment::line(v(10.0, 2.0), v(10.0, 6.0)),
            RailSegment::cubic(v(10.0, 6.0), v(10.0, 6.0), v(10.0, 10.0), v(6.0, 10.0)),
            RailSegment::cubic(v(6.0, 10.0), v(2.0, 10.0), v(2.0, 12.0), v(6.0, 12.0)),
            RailSegment::line(v(6.0, 12.0), v(14.0, 12.0)),
        ])
        .expect("valid rail")
    }

    /// Exact point at rail arclength `s` (kurbo `inv_arclen`, 1e-9).
    fn exact_position(rail: &Rail, s: f64) -> DVec2 {
        let loc = rail.locate(s);
        let seg = rail.segments()[loc.segment];
        let ls = s - rail.segment_start(loc.segment);
        let t = match seg {
            RailSegment::Line(l) => l.inv_arclen(ls, 1e-9),
            RailSegment::Quad(q) => q.inv_arclen(ls, 1e-9),
            RailSegment::Cubic(c) => c.inv_arclen(ls, 1e-9),
        };
        seg.point(t)
    }

    #[test]
    fn positions_match_exact_arclength() {
        let rail = mixed_rail();
        let n = 4000;
        let mut worst: f64 = 0.0;
        for k in 0..=n {
            let s = rail.length() * k as f64 / n as f64;
            worst = worst.max(rail.position(s).distance(exact_position(&rail, s)));
        }
        assert!(worst <= 1.2e-4, "max error {worst} m");
    }

    #[test]
    fn lines_are_exact() {
        let rail = Rail::from_points(&[v(0.0, 0.0), v(3.0, 4.0), v(3.0, 10.0)]).unwrap();
        assert_eq!(rail.length(), 11.0);
        assert_eq!(rail.position(2.5), v(1.5, 2.0));
        assert_eq!(rail.position(8.0), v(3.0, 7.0));
        assert_eq!(rail.segment_start(1), 5.0);
        assert_eq!(rail.segment_start(7), 11.0);
        assert!((rail.tangent(1.0) - v(0.6, 0.8)).length() < 1e-15);
        assert_eq!(rail.curvature(1.0), 0.0);
        assert_eq!(rail.start(), v(0.0, 0.0));
        assert_eq!(rail.end(), v(3.0, 10.0));
    }

    #[test]
    fn a_stretch_is_straight_only_within_one_line() {
        let rail = mixed_rail();
        // The first line is 8 m long, the quadratic corner ~3.2 m, then a 4 m line.
        let corner_end = rail.segment_start(2);
        assert!(rail.is_line_between(0.0, 8.0));
        assert!(rail.is_line_between(2.0, 2.0));
        assert!(!rail.is_line_between(7.5, 8.1), "into the corner");
        assert!(!rail.is_line_between(8.5, 9.0), "on the corner");
        assert!(rail.is_line_between(corner_end, corner_end + 4.0));
        assert!(!rail.is_line_between(corner_end + 3.0, corner_end + 4.5));
        assert!(!rail.is_line_between(3.0, 2.0), "reversed");
        // Clamped: past the end of the last line it is still that line.
        let last = rail.segment_start(5);
        assert!(rail.is_line_between(last + 1.0, rail.length() + 5.0));
    }

    #[test]
    fn length_is_sum_of_kurbo_arclengths() {
        let rail = mixed_rail();
        let sum: f64 = rail.segments().iter().map(|s| s.arclength()).sum();
        assert!(
            (rail.length() - sum).abs() < 1e-7,
            "{} vs {sum}",
            rail.length()
        );
        for i in 0..rail.segments().len() {
            let expected: f64 = rail.segments()[..i].iter().map(|s| s.arclength()).sum();
            assert!((rail.segment_start(i) - expected).abs() < 1e-7);
        }
    }

    #[test]
    fn tangents_are_unit_and_curvature_signed() {
        let rail = mixed_rail();
        for k in 0..=1000 {
            let s = rail.length() * k as f64 / 1000.0;
            let sample = rail.sample(s);
            assert!((sample.tangent.length() - 1.0).abs() < 1e-12, "s {s}");
            assert!(sample.curvature.is_finite(), "s {s}");
            assert_eq!(sample.position, rail.position(s));
            assert_eq!(sample.tangent, rail.tangent(s));
            assert_eq!(sample.curvature, rail.curvature(s));
        }
        // The quadratic corner turns left, the U-turn (segment 4) turns left too, then the
        // cubic with the doubled start (segment 3) also turns left.
        assert!(rail.curvature(rail.segment_start(1) + 0.5) > 0.0);
        // Tangent at the doubled control point points towards p2.
        let t = rail.tangent(rail.segment_start(3));
        assert!((t - v(0.0, 1.0)).length() < 1e-9, "{t}");
    }

    #[test]
    fn curvature_of_circular_arc() {
        // Quarter circle of radius R as a cubic, k = 4/3 (√2 − 1): radius within 2.7e-4 R,
        // curvature within about 2 % of 1/R (lowest at the ends).
        let r = 5.0;
        let k = 4.0 / 3.0 * (2f64.sqrt() - 1.0) * r;
        let rail = Rail::new(vec![RailSegment::cubic(
            v(r, 0.0),
            v(r, k),
            v(k, r),
            v(0.0, r),
        )])
        .unwrap();
        for i in 0..=20 {
            let s = rail.length() * i as f64 / 20.0;
            let c = rail.curvature(s);
            assert!((c - 1.0 / r).abs() < 0.025 / r, "curvature {c} at {s}");
        }
        // Clockwise: negative.
        let cw = Rail::new(vec![RailSegment::cubic(
            v(0.0, r),
            v(k, r),
            v(r, k),
            v(r, 0.0),
        )])
        .unwrap();
        assert!((cw.curvature(1.0) + 1.0 / r).abs() < 0.025 / r);
        assert!((rail.length() / (std::f64::consts::FRAC_PI_2 * r) - 1.0).abs() < 1e-3);
    }

    #[test]
    fn out_of_range_and_nan_s_are_clamped() {
        let rail = mixed_rail();
        let l = rail.length();
        for s in [
            f64::NAN,
            -1.0,
            f64::NEG_INFINITY,
            l + 3.0,
            f64::INFINITY,
            0.0,
            l,
        ] {
            let p = rail.position(s);
            assert!(p.is_finite(), "{s}");
            let sample = rail.sample(s);
            assert!(sample.s >= 0.0 && sample.s <= l);
            assert!(sample.tangent.is_finite() && sample.curvature.is_finite());
            let mut cursor = rail.cursor();
            assert_eq!(cursor.position(s), p);
        }
        assert_eq!(rail.position(f64::NAN), rail.start());
        assert_eq!(rail.position(-5.0), rail.start());
        assert_eq!(rail.position(l + 5.0), rail.end());
        assert_eq!(rail.sample(f64::NAN).s, 0.0);
        assert_eq!(rail.locate(l), RailLocation { segment: 5, t: 1.0 });
        assert!(rail.closest_s(v(f64::NAN, 0.0)) == 0.0);
    }

    #[test]
    fn split_lengths_add_and_positions_match() {
        let rail = mixed_rail();
        for s in [
            0.5,
            8.0,
            9.3,
            15.0,
            rail.segment_start(4),
            rail.length() - 0.1,
        ] {
            let (a, b) = rail.split(s).unwrap();
            assert!(
                (a.length() + b.length() - rail.length()).abs() < 1e-6,
                "s {s}"
            );
            assert!((a.length() - s).abs() < 1e-6, "s {s}: {}", a.length());
            assert_eq!(a.end(), b.start());
            for k in 0..=50 {
                let x = a.length() * k as f64 / 50.0;
                assert!(a.position(x).distance(rail.position(x)) < 2.5e-4, "{s} {x}");
                let y = b.length() * k as f64 / 50.0;
                let d = b.position(y).distance(rail.position(s + y));
                assert!(d < 2.5e-4, "{s} {y}: {d}");
            }
        }
        assert_eq!(
            rail.split(0.0).unwrap_err(),
            RailError::EmptySplit { s: 0.0 }
        );
        assert!(matches!(
            rail.split(rail.length()),
            Err(RailError::EmptySplit { .. })
        ));
        assert!(matches!(
            rail.split(f64::NAN),
            Err(RailError::OutOfRange { .. })
        ));
        assert!(matches!(
            rail.split(-1.0),
            Err(RailError::OutOfRange { .. })
        ));
    }

    #[test]
    fn split_on_a_boundary_keeps_segments_whole() {
        let rail = mixed_rail();
        let (a, b) = rail.split(rail.segment_start(2)).unwrap();
        assert_eq!(a.segments(), &rail.segments()[..2]);
        assert_eq!(b.segments(), &rail.segments()[2..]);
    }

    #[test]
    fn subrail_matches_original() {
        let rail = mixed_rail();
        let (s0, s1) = (5.0, 27.0);
        let sub = rail.subrail(s0, s1).unwrap();
        assert!((sub.length() - (s1 - s0)).abs() < 1e-6);
        for k in 0..=100 {
            let x = sub.length() * k as f64 / 100.0;
            assert!(sub.position(x).distance(rail.position(s0 + x)) < 2.5e-4);
        }
        let within = rail.subrail(rail.segment_start(3) + 0.5, rail.segment_start(3) + 1.5);
        assert_eq!(within.unwrap().segments().len(), 1);
        assert!(matches!(
            rail.subrail(3.0, 3.0),
            Err(RailError::EmptyRange { .. })
        ));
        assert!(matches!(
            rail.subrail(4.0, 3.0),
            Err(RailError::EmptyRange { .. })
        ));
        assert!(matches!(
            rail.subrail(0.0, rail.length() + 1.0),
            Err(RailError::OutOfRange { .. })
        ));
        let whole = rail.subrail(0.0, rail.length()).unwrap();
        assert_eq!(whole.segments(), rail.segments());
    }

    #[test]
    fn splice_replaces_a_part() {
        let rail = Rail::from_points(&[v(0.0, 0.0), v(10.0, 0.0), v(10.0, 10.0)]).unwrap();
        // Detour around (5, 0) between s = 3 and s = 7.
        let detour = vec![
            RailSegment::quad(v(3.0, 0.0), v(3.0, 2.0), v(5.0, 2.0)),
            RailSegment::quad(v(5.0, 2.0), v(7.0, 2.0), v(7.0, 0.0)),
        ];
        let detour_len: f64 = detour.iter().map(|s| s.arclength()).sum();
        let out = rail.splice(3.0, 7.0, detour).unwrap();
        assert!((out.length() - (rail.length() - 4.0 + detour_len)).abs() < 1e-6);
        assert_eq!(out.segments().len(), 5);
        assert_eq!(out.position(1.0), v(1.0, 0.0));
        let back = out.length() - 12.0;
        assert!(out.position(back).distance(rail.position(8.0)) < 1e-9);
        assert_eq!(out.end(), rail.end());

        // At s = 0 and at s = length.
        let head = vec![RailSegment::quad(v(0.0, 0.0), v(0.0, 2.0), v(2.0, 0.0))];
        let out = rail.splice(0.0, 2.0, head).unwrap();
        assert_eq!(out.start(), v(0.0, 0.0));
        assert_eq!(out.segments().len(), 3);
        let tail = vec![RailSegment::line(v(10.0, 5.0), v(10.00005, 10.0))];
        let out = rail.splice(15.0, rail.length(), tail).unwrap();
        assert_eq!(out.segments().len(), 3);
        assert!((out.end() - v(10.00005, 10.0)).length() < 1e-12);
        // Whole rail replaced.
        let all = vec![RailSegment::line(v(0.0, 0.0), v(10.0, 10.0))];
        assert_eq!(
            rail.splice(0.0, rail.length(), all)
                .unwrap()
                .segments()
                .len(),
            1
        );
        // Insert a loop at a point.
        let lp = vec![
            RailSegment::quad(v(4.0, 0.0), v(5.0, 1.0), v(4.0, 2.0)),
            RailSegment::quad(v(4.0, 2.0), v(3.0, 1.0), v(4.0, 0.0)),
        ];
        let out = rail.splice(4.0, 4.0, lp).unwrap();
        assert_eq!(out.segments().len(), 5);
        assert!(out.length() > rail.length() + 4.0);
    }

    #[test]
    fn splice_tolerates_small_mismatch_and_reconnects() {
        let rail = Rail::from_points(&[v(0.0, 0.0), v(10.0, 0.0)]).unwrap();
        let rep = vec![RailSegment::quad(
            v(3.0, 5e-5),
            v(5.0, 2.0),
            v(7.0 + 5e-5, 0.0),
        )];
        let out = rail.splice(3.0, 7.0, rep).unwrap();
        assert_eq!(out.segments()[0].end(), out.segments()[1].start());
        assert_eq!(out.segments()[1].end(), out.segments()[2].start());
    }

    #[test]
    fn splice_mismatch_errors() {
        let rail = Rail::from_points(&[v(0.0, 0.0), v(10.0, 0.0)]).unwrap();
        let bad_start = vec![RailSegment::line(v(3.0, 0.5), v(7.0, 0.0))];
        let err = rail.splice(3.0, 7.0, bad_start).unwrap_err();
        assert!(
            matches!(err, RailError::SpliceMismatch { end: "start", gap } if (gap - 0.5).abs() < 1e-12)
        );
        assert!(err.to_string().contains("start"), "{err}");
        let bad_end = vec![RailSegment::line(v(3.0, 0.0), v(7.0, 1.0))];
        let err = rail.splice(3.0, 7.0, bad_end).unwrap_err();
        assert!(matches!(err, RailError::SpliceMismatch { end: "end", .. }));
        assert!(err.to_string().contains("end"), "{err}");
        assert_eq!(rail.splice(3.0, 7.0, vec![]).unwrap_err(), RailError::Empty);
        assert!(matches!(
            rail.splice(7.0, 3.0, vec![RailSegment::line(v(7.0, 0.0), v(3.0, 0.0))]),
            Err(RailError::EmptyRange { .. })
        ));
        let broken = vec![
            RailSegment::line(v(3.0, 0.0), v(5.0, 1.0)),
            RailSegment::line(v(5.0, 2.0), v(7.0, 0.0)),
        ];
        assert!(matches!(
            rail.splice(3.0, 7.0, broken),
            Err(RailError::Disconnected { segment: 1, .. })
        ));
    }

    #[test]
    fn error_empty() {
        let err = Rail::new(vec![]).unwrap_err();
        assert_eq!(err, RailError::Empty);
        assert!(err.to_string().contains("at least one segment"));
        assert_eq!(
            Rail::from_points(&[v(1.0, 1.0)]).unwrap_err(),
            RailError::Empty
        );
    }

    #[test]
    fn error_non_finite() {
        let err = Rail::new(vec![
            RailSegment::line(v(0.0, 0.0), v(1.0, 0.0)),
            RailSegment::quad(v(1.0, 0.0), v(f64::NAN, 1.0), v(2.0, 0.0)),
        ])
        .unwrap_err();
        assert_eq!(err, RailError::NonFinite { segment: 1 });
        assert!(err.to_string().contains("segment 1"), "{err}");
        let err = Rail::from_points(&[v(0.0, 0.0), v(f64::INFINITY, 0.0)]).unwrap_err();
        assert_eq!(err, RailError::NonFinite { segment: 0 });
    }

    #[test]
    fn error_zero_length() {
        let err =
            Rail::from_points(&[v(0.0, 0.0), v(1.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)]).unwrap_err();
        assert_eq!(err, RailError::ZeroLength { segment: 1 });
        assert!(err.to_string().contains("segment 1"), "{err}");
        assert!(err.to_string().contains("zero length"), "{err}");
        let p = v(1.0, 1.0);
        let err = Rail::new(vec![RailSegment::cubic(p, p, p, p)]).unwrap_err();
        assert_eq!(err, RailError::ZeroLength { segment: 0 });
    }

    #[test]
    fn error_disconnected() {
        let err = Rail::new(vec![
            RailSegment::line(v(0.0, 0.0), v(1.0, 0.0)),
            RailSegment::line(v(1.0, 0.0), v(2.0, 0.0)),
            RailSegment::line(v(2.0, 0.001), v(3.0, 0.0)),
        ])
        .unwrap_err();
        assert!(
            matches!(err, RailError::Disconnected { segment: 2, gap } if (gap - 0.001).abs() < 1e-12)
        );
        assert!(err.to_string().contains("segment 2"), "{err}");
        // Within 1e-6 m is connected.
        assert!(Rail::new(vec![
            RailSegment::line(v(0.0, 0.0), v(1.0, 0.0)),
            RailSegment::line(v(1.0, 5e-7), v(2.0, 0.0)),
        ])
        .is_ok());
    }

    #[test]
    fn error_cusp() {
        let err = Rail::new(vec![
            RailSegment::line(v(-1.0, 0.0), v(0.0, 0.0)),
            RailSegment::cubic(v(0.0, 0.0), v(3.0, 0.0), v(-1.0, 0.0), v(2.0, 0.0)),
        ])
        .unwrap_err();
        let RailError::Cusp { segment, t } = err else {
            panic!("expected a cusp, got {err:?}");
        };
        assert_eq!(segment, 1);
        assert!(t > 0.0 && t < 1.0);
        assert!(err.to_string().contains("segment 1"), "{err}");
        assert!(err.to_string().contains("cusp"), "{err}");
        // The classic cusp cubic (control polygon crossing itself symmetrically).
        let err = Rail::new(vec![RailSegment::cubic(
            v(0.0, 0.0),
            v(10.0, 10.0),
            v(0.0, 10.0),
            v(10.0, 0.0),
        )])
        .unwrap_err();
        assert!(matches!(err, RailError::Cusp { segment: 0, t } if (t - 0.5).abs() < 1e-6));
        // A doubled end control point is not a cusp.
        assert!(Rail::new(vec![RailSegment::cubic(
            v(0.0, 0.0),
            v(0.0, 0.0),
            v(2.0, 1.0),
            v(3.0, 0.0)
        )])
        .is_ok());
    }

    #[test]
    fn closest_s_finds_the_nearest_point() {
        let rail = mixed_rail();
        for k in 0..=200 {
            let s = rail.length() * k as f64 / 200.0;
            let sample = rail.sample(s);
            // A point 0.3 m to the side of the rail (inside any turn radius here).
            let side = DVec2::new(-sample.tangent.y, sample.tangent.x);
            let offset = if sample.curvature > 0.0 { -0.3 } else { 0.3 };
            let p = sample.position + side * offset;
            let found = rail.closest_s(p);
            let d_found = rail.position(found).distance(p);
            assert!(
                d_found <= 0.3 + 2e-4,
                "s {s}: found {found}, distance {d_found}"
            );
            assert!((found - s).abs() < 1e-3, "s {s}: found {found}");
        }
        assert_eq!(rail.closest_s(v(-5.0, -5.0)), 0.0);
        assert!((rail.closest_s(v(20.0, 12.0)) - rail.length()).abs() < 1e-9);
    }
}
