//! One piece of a rail: a line, quadratic or cubic Bézier segment, with evaluation and cusp
//! detection.

use glam::DVec2;
use kurbo::{CubicBez, Line, ParamCurve, ParamCurveArclen, ParamCurveDeriv, Point, QuadBez};

use crate::geometry::cross;

/// Accuracy (metres) passed to kurbo's arclength routines.
pub(crate) const ARCLEN_ACCURACY: f64 = 1e-9;

/// Below this fraction of the longest control-polygon leg, `|B'(t)|` counts as zero: the
/// tangent falls back to the second derivative (see [`RailSegment::tangent`]).
const TINY_DERIVATIVE: f64 = 1e-9;

/// An interior minimum of `|B'(t)|` below this fraction of the control-polygon length, across
/// which the direction reverses, is a cusp.
const CUSP_DERIVATIVE: f64 = 1e-4;

/// A cusp closer than this (metres of arclength) to a segment end is rounding noise of a
/// doubled end control point, not a cusp.
const CUSP_END_MARGIN: f64 = 1e-6;

/// One piece of a rail: a straight line, a quadratic or a cubic Bézier curve, in metres.
///
/// Construct with [`RailSegment::line`], [`RailSegment::quad`], [`RailSegment::cubic`] (from
/// [`DVec2`]s) or directly from the kurbo types. The Bézier parameter `t` runs over `[0, 1]`
/// from [`start`](Self::start) to [`end`](Self::end); the evaluation methods accept any `t`
/// and extrapolate the polynomial outside that range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RailSegment {
    /// A straight line from `p0` to `p1`.
    Line(Line),
    /// A quadratic Bézier curve.
    Quad(QuadBez),
    /// A cubic Bézier curve.
    Cubic(CubicBez),
}

#[inline]
fn pt(v: DVec2) -> Point {
    Point::new(v.x, v.y)
}

#[inline]
fn dv(p: Point) -> DVec2 {
    DVec2::new(p.x, p.y)
}

/// A point of a segment with its parameter and (for a cubic) kurbo's derivative there: one end
/// of the subsegments [`RailSegment::arclength_between_places`] measures.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CurvePlace {
    /// Bézier parameter.
    pub t: f64,
    /// The segment's point at `t`, as kurbo's `eval` gives it.
    pub point: Point,
    /// kurbo's derivative at `t` (`deriv().eval(t)`) for a cubic; zero otherwise (unused).
    velocity: kurbo::Vec2,
}

impl CurvePlace {
    /// The point, as [`RailSegment::point`] gives it.
    #[inline]
    pub fn position(&self) -> DVec2 {
        dv(self.point)
    }
}

impl RailSegment {
    /// A straight line from `a` to `b` (metres).
    pub fn line(a: DVec2, b: DVec2) -> Self {
        Self::Line(Line::new(pt(a), pt(b)))
    }

    /// A quadratic Bézier curve with control points `p0`, `p1`, `p2` (metres).
    pub fn quad(p0: DVec2, p1: DVec2, p2: DVec2) -> Self {
        Self::Quad(QuadBez::new(pt(p0), pt(p1), pt(p2)))
    }

    /// A cubic Bézier curve with control points `p0` … `p3` (metres).
    pub fn cubic(p0: DVec2, p1: DVec2, p2: DVec2, p3: DVec2) -> Self {
        Self::Cubic(CubicBez::new(pt(p0), pt(p1), pt(p2), pt(p3)))
    }

    /// The point at `t = 0`.
    #[inline]
    pub fn start(&self) -> DVec2 {
        match self {
            Self::Line(l) => dv(l.p0),
            Self::Quad(q) => dv(q.p0),
            Self::Cubic(c) => dv(c.p0),
        }
    }

    /// The point at `t = 1`.
    #[inline]
    pub fn end(&self) -> DVec2 {
        match self {
            Self::Line(l) => dv(l.p1),
            Self::Quad(q) => dv(q.p2),
            Self::Cubic(c) => dv(c.p3),
        }
    }

    /// The point at Bézier parameter `t`, metres.
    #[inline]
    pub fn point(&self, t: f64) -> DVec2 {
        match self {
            Self::Line(l) => dv(l.eval(t)),
            Self::Quad(q) => dv(q.eval(t)),
            Self::Cubic(c) => dv(c.eval(t)),
        }
    }

    /// The derivative `dB/dt` at Bézier parameter `t`, metres per unit `t`.
    #[inline]
    pub fn derivative(&self, t: f64) -> DVec2 {
        match self {
            Self::Line(l) => dv(l.p1) - dv(l.p0),
            Self::Quad(q) => {
                let (p0, p1, p2) = (dv(q.p0), dv(q.p1), dv(q.p2));
                2.0 * ((p1 - p0) * (1.0 - t) + (p2 - p1) * t)
            }
            Self::Cubic(c) => {
                let (d0, d1, d2) = (
                    dv(c.p1) - dv(c.p0),
                    dv(c.p2) - dv(c.p1),
                    dv(c.p3) - dv(c.p2),
                );
                let mt = 1.0 - t;
                3.0 * (d0 * (mt * mt) + (d1 * (2.0 * mt) + d2 * t) * t)
            }
        }
    }

    /// The second derivative `d²B/dt²` at Bézier parameter `t`, metres per unit `t²`.
    #[inline]
    pub fn second_derivative(&self, t: f64) -> DVec2 {
        match self {
            Self::Line(_) => DVec2::ZERO,
            Self::Quad(q) => 2.0 * (dv(q.p0) - 2.0 * dv(q.p1) + dv(q.p2)),
            Self::Cubic(c) => {
                let (p0, p1, p2, p3) = (dv(c.p0), dv(c.p1), dv(c.p2), dv(c.p3));
                6.0 * ((p2 - 2.0 * p1 + p0) * (1.0 - t) + (p3 - 2.0 * p2 + p1) * t)
            }
        }
    }

    /// The part of this segment between Bézier parameters `t0` and `t1`, reparameterised to
    /// `[0, 1]` (reversed if `t0 > t1`). Same kind of segment.
    pub fn subsegment(&self, t0: f64, t1: f64) -> Self {
        match self {
            Self::Line(l) => Self::Line(l.subsegment(t0..t1)),
            Self::Quad(q) => Self::Quad(q.subsegment(t0..t1)),
            Self::Cubic(c) => Self::Cubic(c.subsegment(t0..t1)),
        }
    }

    /// The arclength of the segment, metres: exact for lines and quadratics (closed form),
    /// within 1e-9 m for cubics (kurbo's adaptive Gauss–Legendre quadrature).
    pub fn arclength(&self) -> f64 {
        match self {
            Self::Line(l) => (dv(l.p1) - dv(l.p0)).length(),
            Self::Quad(q) => q.arclen(ARCLEN_ACCURACY),
            Self::Cubic(c) => c.arclen(ARCLEN_ACCURACY),
        }
    }

    /// The control points, start first: 2 for a line, 3 for a quadratic, 4 for a cubic.
    pub fn control_points(&self) -> Vec<DVec2> {
        match self {
            Self::Line(l) => vec![dv(l.p0), dv(l.p1)],
            Self::Quad(q) => vec![dv(q.p0), dv(q.p1), dv(q.p2)],
            Self::Cubic(c) => vec![dv(c.p0), dv(c.p1), dv(c.p2), dv(c.p3)],
        }
    }

    /// The same segment with its start point moved to `p` (other control points kept).
    pub(crate) fn with_start(&self, p: DVec2) -> Self {
        let mut seg = *self;
        match &mut seg {
            Self::Line(l) => l.p0 = pt(p),
            Self::Quad(q) => q.p0 = pt(p),
            Self::Cubic(c) => c.p0 = pt(p),
        }
        seg
    }

    /// The same segment with its end point moved to `p` (other control points kept).
    pub(crate) fn with_end(&self, p: DVec2) -> Self {
        let mut seg = *self;
        match &mut seg {
            Self::Line(l) => l.p1 = pt(p),
            Self::Quad(q) => q.p2 = pt(p),
            Self::Cubic(c) => c.p3 = pt(p),
        }
        seg
    }

    /// The bounding box `(min, max)` of the control points, which contains the segment
    /// (convex hull property).
    pub(crate) fn bounds(&self) -> (DVec2, DVec2) {
        let (lo, hi) = (self.start().min(self.end()), self.start().max(self.end()));
        match self {
            Self::Line(_) => (lo, hi),
            Self::Quad(q) => (lo.min(dv(q.p1)), hi.max(dv(q.p1))),
            Self::Cubic(c) => (
                lo.min(dv(c.p1)).min(dv(c.p2)),
                hi.max(dv(c.p1)).max(dv(c.p2)),
            ),
        }
    }

    /// Whether every control point is finite.
    pub(crate) fn is_finite(&self) -> bool {
        self.control_points().iter().all(|p| p.is_finite())
    }

    /// Whether this is a straight line.
    #[inline]
    pub(crate) fn is_line(&self) -> bool {
        matches!(self, Self::Line(_))
    }

    /// The length of the control polygon, metres: an upper bound of the arclength and the
    /// scale of `|B'(t)|`.
    fn polygon_length(&self) -> f64 {
        self.control_points()
            .windows(2)
            .map(|w| w[0].distance(w[1]))
            .sum()
    }

    /// The squared length of the longest control-polygon leg, m²: the scale of `|B'(t)|²`.
    #[inline]
    fn longest_leg2(&self) -> f64 {
        match self {
            Self::Line(l) => (dv(l.p1) - dv(l.p0)).length_squared(),
            Self::Quad(q) => (dv(q.p1) - dv(q.p0))
                .length_squared()
                .max((dv(q.p2) - dv(q.p1)).length_squared()),
            Self::Cubic(c) => (dv(c.p1) - dv(c.p0))
                .length_squared()
                .max((dv(c.p2) - dv(c.p1)).length_squared())
                .max((dv(c.p3) - dv(c.p2)).length_squared()),
        }
    }

    /// Whether `|d|` is below 1e-9 of the longest control-polygon leg (treated as zero).
    #[inline]
    fn is_tiny_derivative(&self, d: DVec2) -> bool {
        d.length_squared() <= TINY_DERIVATIVE * TINY_DERIVATIVE * self.longest_leg2()
    }

    /// The arclength between Bézier parameters `t0 < t1`, metres (kurbo, 1e-9 m).
    pub(crate) fn arclength_between(&self, t0: f64, t1: f64) -> f64 {
        match self {
            Self::Line(l) => (dv(l.p1) - dv(l.p0)).length() * (t1 - t0),
            Self::Quad(q) => q.subsegment(t0..t1).arclen(ARCLEN_ACCURACY),
            Self::Cubic(c) => c.subsegment(t0..t1).arclen(ARCLEN_ACCURACY),
        }
    }

    /// The point and derivative at `t` that [`RailSegment::arclength_between_places`] measures
    /// from or to.
    #[inline]
    pub(crate) fn place(&self, t: f64) -> CurvePlace {
        let (point, velocity) = match self {
            Self::Line(l) => (l.eval(t), kurbo::Vec2::ZERO),
            Self::Quad(q) => (q.eval(t), kurbo::Vec2::ZERO),
            Self::Cubic(c) => (c.eval(t), c.deriv().eval(t).to_vec2()),
        };
        CurvePlace { t, point, velocity }
    }

    /// [`RailSegment::arclength_between`]`(a.t, b.t)`, bit for bit, from places computed once:
    /// the subsegment is built as kurbo's `subsegment` builds it, with the same operations on
    /// the same numbers, then measured by the same `arclen`. The arclength table measures many
    /// subsegments sharing an end (an interval's knot and its three check points), and
    /// evaluating the ends again was a third of the table's cost (`perf`, bends on `plaza`).
    #[inline]
    pub(crate) fn arclength_between_places(&self, a: &CurvePlace, b: &CurvePlace) -> f64 {
        let (t0, t1) = (a.t, b.t);
        match self {
            Self::Line(l) => (dv(l.p1) - dv(l.p0)).length() * (t1 - t0),
            Self::Quad(q) => {
                // kurbo 0.13 `QuadBez::subsegment`.
                let p1 = a.point + (q.p1 - q.p0).lerp(q.p2 - q.p1, t0) * (t1 - t0);
                QuadBez::new(a.point, p1, b.point).arclen(ARCLEN_ACCURACY)
            }
            Self::Cubic(_) => {
                // kurbo 0.13 `CubicBez::subsegment`.
                let scale = (t1 - t0) * (1.0 / 3.0);
                let p1 = a.point + scale * a.velocity;
                let p2 = b.point - scale * b.velocity;
                CubicBez::new(a.point, p1, p2, b.point).arclen(ARCLEN_ACCURACY)
            }
        }
    }

    /// The unit tangent at `t`: `B'(t) / |B'(t)|`.
    ///
    /// Where `|B'(t)|` is below 1e-9 of the longest control-polygon leg (only possible at an end
    /// whose neighbouring control point coincides with it, since interior cusps are rejected
    /// when a rail is built), the direction of motion is the limit from inside the segment:
    /// `±B''(t)` (sign pointing along the travel), or failing that the direction from the
    /// first to the last distinct control point. Always finite; `DVec2::X` for a segment
    /// whose control points all coincide.
    #[inline]
    pub(crate) fn tangent(&self, t: f64) -> DVec2 {
        let d = self.derivative(t);
        if let Self::Line(_) = self {
            return d.try_normalize().unwrap_or(DVec2::X);
        }
        if !self.is_tiny_derivative(d) {
            return d / d.length();
        }
        self.degenerate_tangent(t)
    }

    #[cold]
    fn degenerate_tangent(&self, t: f64) -> DVec2 {
        let sign = if t < 0.5 { 1.0 } else { -1.0 };
        if let Some(d) = (sign * self.second_derivative(t)).try_normalize() {
            return d;
        }
        let pts = self.control_points();
        let first = pts[0];
        let last = pts[pts.len() - 1];
        let a = pts.iter().copied().find(|p| *p != first).unwrap_or(first);
        let b = pts
            .iter()
            .rev()
            .copied()
            .find(|p| *p != last)
            .unwrap_or(last);
        let dir = if t < 0.5 { a - first } else { last - b };
        dir.try_normalize().unwrap_or(DVec2::X)
    }

    /// Signed curvature at `t`, 1/m, positive when turning left (counter-clockwise):
    /// `(x'y'' − y'x'') / |B'|³`. Zero for lines.
    ///
    /// Where `|B'(t)|` is below 1e-9 of the longest control-polygon leg (a doubled end control
    /// point) the true curvature may diverge; the value at `t` moved 1e-6 into the segment
    /// is returned instead, so the result is always finite.
    #[inline]
    pub(crate) fn curvature(&self, t: f64) -> f64 {
        if let Self::Line(_) = self {
            return 0.0;
        }
        let d = self.derivative(t);
        if !self.is_tiny_derivative(d) {
            let len2 = d.length_squared();
            return cross(d, self.second_derivative(t)) / (len2 * len2.sqrt());
        }
        self.degenerate_curvature(t)
    }

    #[cold]
    fn degenerate_curvature(&self, t: f64) -> f64 {
        let t = if t < 0.5 { t + 1e-6 } else { t - 1e-6 };
        let d = self.derivative(t);
        let len2 = d.length_squared();
        if len2 > 0.0 {
            let k = cross(d, self.second_derivative(t)) / (len2 * len2.sqrt());
            if k.is_finite() {
                return k;
            }
        }
        0.0
    }

    /// Looks for an interior cusp: a local minimum of `|B'(t)|` below 1e-4 of the control
    /// polygon length across which the direction of travel reverses (turns by more than a
    /// quarter turn between the bracketing samples), at least 1e-6 m of arclength from either
    /// end. Returns its `t`.
    ///
    /// Method: `|B'|²` sampled at 65 uniform `t`; each discrete local minimum is refined by
    /// golden-section search on its two neighbouring intervals to about 1e-12 in `t`.
    pub(crate) fn find_cusp(&self) -> Option<f64> {
        if self.is_line() {
            return None;
        }
        const N: usize = 64;
        let scale = self.polygon_length();
        let f = |t: f64| self.derivative(t).length_squared();
        let mut samples = [0.0; N + 1];
        for (k, sample) in samples.iter_mut().enumerate() {
            *sample = f(k as f64 / N as f64);
        }
        for k in 0..=N {
            let left = if k > 0 { samples[k - 1] } else { f64::INFINITY };
            let right = if k < N { samples[k + 1] } else { f64::INFINITY };
            if !(samples[k] <= left && samples[k] <= right) {
                continue;
            }
            let a = (k.saturating_sub(1)) as f64 / N as f64;
            let b = (k + 1).min(N) as f64 / N as f64;
            // The direction must reverse across the minimum; tested first, since it is cheap
            // and a gentle curve's minimum (every bend's) fails it: no search then.
            if self.derivative(a).dot(self.derivative(b)) >= 0.0 {
                continue;
            }
            let t = golden_min(f, a, b);
            if f(t).sqrt() > CUSP_DERIVATIVE * scale {
                continue;
            }
            let before = self.arclength_between(0.0, t);
            let after = self.arclength_between(t, 1.0);
            if before > CUSP_END_MARGIN && after > CUSP_END_MARGIN {
                return Some(t);
            }
        }
        None
    }
}

/// Golden-section search for the minimum of a unimodal `f` on `[a, b]`, to about 1e-12 in `t`
/// (Kiefer 1953; see Press et al., *Numerical Recipes*, 3rd ed., §10.2).
fn golden_min(f: impl Fn(f64) -> f64, mut a: f64, mut b: f64) -> f64 {
    const INV_PHI: f64 = 0.618_033_988_749_894_9;
    let mut c = b - INV_PHI * (b - a);
    let mut d = a + INV_PHI * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    while b - a > 1e-12 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - INV_PHI * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + INV_PHI * (b - a);
            fd = f(d);
        }
    }
    0.5 * (a + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    #[test]
    fn arclengths_between_places_are_kurbos_subsegment_arclengths_bit_for_bit() {
        // The arclength table measures from places computed once; its numbers must be those
        // of `arclength_between` (kurbo's subsegment, then arclen), or tables and every rail
        // built on them would move.
        let mut rng = crate::rail::arclength::tests::Rng::new(0xa11ce);
        let mut compared = 0;
        for _ in 0..2000 {
            let [a, b, c, d] = [0; 4].map(|_| rng.point(10.0));
            for seg in [RailSegment::cubic(a, b, c, d), RailSegment::quad(a, b, c)] {
                let (t0, t1) = (rng.next_f64(), rng.next_f64());
                let (t0, t1) = (t0.min(t1), t0.max(t1));
                let places = (seg.place(t0), seg.place(t1));
                let fast = seg.arclength_between_places(&places.0, &places.1);
                assert_eq!(
                    fast.to_bits(),
                    seg.arclength_between(t0, t1).to_bits(),
                    "{seg:?}"
                );
                assert_eq!(places.1.position(), seg.point(t1));
                compared += 1;
            }
        }
        assert_eq!(compared, 4000);
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let segs = [
            RailSegment::line(v(0.0, 0.0), v(3.0, 4.0)),
            RailSegment::quad(v(0.0, 0.0), v(2.0, 3.0), v(5.0, 1.0)),
            RailSegment::cubic(v(0.0, 0.0), v(1.0, 4.0), v(4.0, -2.0), v(6.0, 1.0)),
        ];
        let h = 1e-6;
        for seg in segs {
            for k in 1..10 {
                let t = k as f64 / 10.0;
                let fd = (seg.point(t + h) - seg.point(t - h)) / (2.0 * h);
                assert!((fd - seg.derivative(t)).length() < 1e-6, "{seg:?} {t}");
                let fd2 = (seg.derivative(t + h) - seg.derivative(t - h)) / (2.0 * h);
                assert!(
                    (fd2 - seg.second_derivative(t)).length() < 1e-5,
                    "{seg:?} {t}"
                );
            }
        }
    }

    #[test]
    fn control_points_and_ends() {
        let c = RailSegment::cubic(v(0.0, 0.0), v(1.0, 1.0), v(2.0, 1.0), v(3.0, 0.0));
        assert_eq!(c.control_points().len(), 4);
        assert_eq!(c.start(), v(0.0, 0.0));
        assert_eq!(c.end(), v(3.0, 0.0));
        let sub = c.subsegment(0.25, 0.75);
        assert!((sub.start() - c.point(0.25)).length() < 1e-12);
        assert!((sub.end() - c.point(0.75)).length() < 1e-12);
    }

    #[test]
    fn doubled_end_control_point_tangent() {
        let c = RailSegment::cubic(v(0.0, 0.0), v(0.0, 0.0), v(2.0, 1.0), v(3.0, 0.0));
        let t0 = c.tangent(0.0);
        assert!((t0 - v(2.0, 1.0).normalize()).length() < 1e-12);
        assert!(c.curvature(0.0).is_finite());
        let c = RailSegment::cubic(v(0.0, 0.0), v(1.0, 2.0), v(3.0, 0.0), v(3.0, 0.0));
        assert!((c.tangent(1.0) - v(2.0, -2.0).normalize()).length() < 1e-12);
        assert!(c.find_cusp().is_none());
    }

    #[test]
    fn cusp_found() {
        let c = RailSegment::cubic(v(0.0, 0.0), v(3.0, 0.0), v(-1.0, 0.0), v(2.0, 0.0));
        let t = c.find_cusp().expect("cusp");
        assert!(t > 0.0 && t < 1.0);
        assert!(c.derivative(t).length() < 1e-4);
        let q = RailSegment::quad(v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.0));
        let t = q.find_cusp().expect("quad cusp");
        assert!((t - 2.0 / 3.0).abs() < 1e-6);
        // A tight but smooth U-turn is not a cusp.
        let u = RailSegment::cubic(v(0.0, 0.0), v(10.0, 0.0), v(10.0, 1.0), v(0.0, 1.0));
        assert!(u.find_cusp().is_none());
    }
}
