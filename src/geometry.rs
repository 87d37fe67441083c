//! Small 2D geometry kernels shared by the level, rail and render parts (orientation, segment
//! distance, segment intersection, point in polygon).
//!
//! All functions work in `f64` metres on [`glam::DVec2`]; they are exact up to ordinary
//! floating-point rounding (no robust predicates): callers that need a tolerance pass one.

use glam::DVec2;

/// The z component of the 3D cross product `a × b`: positive when `b` is counter-clockwise of `a`.
#[inline]
pub fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// Twice the signed area of triangle `a b c`: positive when counter-clockwise.
#[inline]
pub fn orient(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    cross(b - a, c - a)
}

/// The left normal of `d` (`d` rotated a quarter turn counter-clockwise), same length as `d`.
#[inline]
pub fn left_normal(d: DVec2) -> DVec2 {
    DVec2::new(-d.y, d.x)
}

/// Twice the signed area of a polygon (shoelace): positive when counter-clockwise.
pub fn signed_area2(points: &[DVec2]) -> f64 {
    let n = points.len();
    (0..n).map(|i| cross(points[i], points[(i + 1) % n])).sum()
}

/// The point of segment `a b` closest to `p`, and its parameter in `[0, 1]`.
#[inline]
pub fn closest_on_segment(p: DVec2, a: DVec2, b: DVec2) -> (DVec2, f64) {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 <= 0.0 {
        return (a, 0.0);
    }
    let t = ((p - a).dot(ab) / len2).clamp(0.0, 1.0);
    (a + ab * t, t)
}

/// Whether the closed segments `a b` and `c d` intersect (touching and collinear overlap count).
pub fn segments_intersect(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> bool {
    let d1 = orient(c, d, a);
    let d2 = orient(c, d, b);
    let d3 = orient(a, b, c);
    let d4 = orient(a, b, d);
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    let on = |p: DVec2, q: DVec2, r: DVec2| {
        r.x >= p.x.min(q.x) && r.x <= p.x.max(q.x) && r.y >= p.y.min(q.y) && r.y <= p.y.max(q.y)
    };
    (d1 == 0.0 && on(c, d, a))
        || (d2 == 0.0 && on(c, d, b))
        || (d3 == 0.0 && on(a, b, c))
        || (d4 == 0.0 && on(a, b, d))
}

/// Even-odd point-in-polygon test (ray crossing). Points exactly on an edge may go either way.
pub fn point_in_polygon(p: DVec2, polygon: &[DVec2]) -> bool {
    let n = polygon.len();
    let mut inside = false;
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        let (a, b) = (polygon[i], polygon[j]);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
        j = i;
    }
    inside
}

/// Distance between segments `ab` and `cd`, metres: 0 when they cross, otherwise the smallest of
/// the four endpoint-to-segment distances (exact for segments in the plane).
pub fn segment_distance(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> f64 {
    if segments_intersect(a, b, c, d) {
        return 0.0;
    }
    // One square root of the smallest squared distance: the same as the smallest of the four
    // roots, bit for bit (a correctly rounded square root is monotone), for a quarter of the
    // roots (the clearance checks of bent rails call this for every wall near every step).
    let to = |p: DVec2, s0: DVec2, s1: DVec2| closest_on_segment(p, s0, s1).0.distance_squared(p);
    to(a, c, d)
        .min(to(b, c, d))
        .min(to(c, a, b))
        .min(to(d, a, b))
        .sqrt()
}

/// The grid coordinate of a point `q` cells from a grid's origin: `q.floor().clamp(0.0, last as
/// f64) as usize`, bit for bit (0 for NaN, `last` for +∞), without the floor. x86-64's baseline
/// instruction set has no rounding instruction, so `f64::floor` is a library call there (1.7 %
/// of a plaza bench's instructions, from the grids' cell lookups); the truncating cast rounds a
/// non-negative `q` down as `floor` does, saturates a negative one (and NaN) to 0, and `min`
/// clamps from above. Exact.
#[inline]
pub(crate) fn clamped_cell_coordinate(q: f64, last: usize) -> usize {
    (q as usize).min(last)
}

/// The parameters `u` (a closed range, unclamped) at which the point `p0 + (p1 − p0) u` of the
/// line through `p0` and `p1` is closer than `r` to segment `a b`: the line's chord through the
/// capsule of radius `r` around the segment (convex, so one range), or `None` when the line
/// misses it. A degenerate line (`p0 = p1`) gives the whole line or `None`. Exact up to rounding:
/// the union of the line's intersections with the two end discs (quadratics) and with the
/// rectangle between them (linear inequalities).
pub fn capsule_chord(p0: DVec2, p1: DVec2, a: DVec2, b: DVec2, r: f64) -> Option<(f64, f64)> {
    let d = p1 - p0;
    if d.length_squared() <= 0.0 {
        let inside = closest_on_segment(p0, a, b).0.distance(p0) < r;
        return inside.then_some((f64::NEG_INFINITY, f64::INFINITY));
    }
    // Quick rejection (exact): both ends of the segment farther than `r` on one side of the line.
    let reach = r * d.length();
    let (side_a, side_b) = (cross(d, a - p0), cross(d, b - p0));
    if (side_a > reach && side_b > reach) || (side_a < -reach && side_b < -reach) {
        return None;
    }
    let mut chord: Option<(f64, f64)> = None;
    let mut join = |range: Option<(f64, f64)>| {
        if let Some((lo, hi)) = range.filter(|(lo, hi)| lo < hi) {
            chord = Some(chord.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
        }
    };
    // The end discs: |p0 + d u − c|² < r².
    for c in [a, b] {
        let f = p0 - c;
        let (qa, qb, qc) = (d.dot(d), 2.0 * d.dot(f), f.dot(f) - r * r);
        let disc = qb * qb - 4.0 * qa * qc;
        if disc > 0.0 {
            let root = disc.sqrt();
            join(Some(((-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa))));
        }
    }
    // The rectangle: |cross(n, P − a)| < r and 0 ≤ (P − a)·n ≤ length.
    let e = b - a;
    let length = e.length();
    if length > 0.0 {
        let n = e / length;
        let f = p0 - a;
        let across = linear_range(cross(n, f), cross(n, d), -r, r);
        let along = linear_range(f.dot(n), d.dot(n), 0.0, length);
        join(across.and_then(|x| along.map(|y| (x.0.max(y.0), x.1.min(y.1)))));
    }
    chord
}

/// The range of `u` where `lo ≤ c0 + c1 u ≤ hi` (unbounded when `c1 = 0` and `c0` is within).
fn linear_range(c0: f64, c1: f64, lo: f64, hi: f64) -> Option<(f64, f64)> {
    if c1 == 0.0 {
        return (lo <= c0 && c0 <= hi).then_some((f64::NEG_INFINITY, f64::INFINITY));
    }
    let (u0, u1) = ((lo - c0) / c1, (hi - c0) / c1);
    Some((u0.min(u1), u0.max(u1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    #[test]
    fn clamped_cell_coordinates_are_the_floor_clamped() {
        let mut values = vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            -1e-300,
            1e-300,
            f64::MAX,
            f64::MIN,
            1e19,
            -1e19,
        ];
        // Integers and their neighbours, halves, and a seeded spread.
        for k in -20..=20 {
            let x = f64::from(k);
            values.extend([x, x.next_up(), x.next_down(), x + 0.5]);
        }
        let mut rng = crate::sim::SplitMix64::new(5);
        for _ in 0..10_000 {
            values.push(rng.unit() * 60.0 - 20.0);
        }
        for last in [0_usize, 1, 7, 16_383] {
            for &q in &values {
                let floor = if q.is_nan() {
                    0
                } else {
                    q.floor().clamp(0.0, last as f64) as usize
                };
                assert_eq!(
                    clamped_cell_coordinate(q, last),
                    floor,
                    "q = {q}, last = {last}"
                );
            }
        }
    }

    #[test]
    fn segment_distances_are_the_smallest_root() {
        let mut rng = crate::sim::SplitMix64::new(6);
        let mut next = || rng.unit() * 10.0 - 5.0;
        for _ in 0..20_000 {
            let (a, b, c, d) = (
                v(next(), next()),
                v(next(), next()),
                v(next(), next()),
                v(next(), next()),
            );
            let to = |p: DVec2, s0: DVec2, s1: DVec2| closest_on_segment(p, s0, s1).0.distance(p);
            let expected = if segments_intersect(a, b, c, d) {
                0.0
            } else {
                to(a, c, d)
                    .min(to(b, c, d))
                    .min(to(c, a, b))
                    .min(to(d, a, b))
            };
            assert_eq!(segment_distance(a, b, c, d).to_bits(), expected.to_bits());
        }
    }

    #[test]
    fn orientation_and_area() {
        assert!(orient(v(0., 0.), v(1., 0.), v(0., 1.)) > 0.0);
        let square = [v(0., 0.), v(2., 0.), v(2., 2.), v(0., 2.)];
        assert_eq!(signed_area2(&square), 8.0);
    }

    #[test]
    fn closest_point_on_a_segment() {
        assert_eq!(
            closest_on_segment(v(1., 1.), v(0., 0.), v(2., 0.))
                .0
                .distance(v(1., 1.)),
            1.0
        );
        assert_eq!(
            closest_on_segment(v(3., 0.), v(0., 0.), v(2., 0.)),
            (v(2., 0.), 1.0)
        );
    }

    #[test]
    fn intersections() {
        assert!(segments_intersect(
            v(0., 0.),
            v(2., 2.),
            v(0., 2.),
            v(2., 0.)
        ));
        assert!(segments_intersect(
            v(0., 0.),
            v(1., 0.),
            v(1., 0.),
            v(2., 1.)
        ));
        assert!(!segments_intersect(
            v(0., 0.),
            v(1., 0.),
            v(0., 1.),
            v(1., 1.)
        ));
    }

    #[test]
    fn inside_polygon() {
        let square = [v(0., 0.), v(2., 0.), v(2., 2.), v(0., 2.)];
        assert!(point_in_polygon(v(1., 1.), &square));
        assert!(!point_in_polygon(v(3., 1.), &square));
    }

    #[test]
    fn segment_distance_is_zero_when_crossing_and_the_gap_otherwise() {
        let p = |x: f64, y: f64| DVec2::new(x, y);
        assert_eq!(
            segment_distance(p(0.0, 0.0), p(2.0, 2.0), p(0.0, 2.0), p(2.0, 0.0)),
            0.0
        );
        assert_eq!(
            segment_distance(p(0.0, 0.0), p(2.0, 0.0), p(1.0, 0.5), p(1.0, 3.0)),
            0.5
        );
        // Parallel, offset: the endpoint distances give the gap.
        assert_eq!(
            segment_distance(p(0.0, 0.0), p(4.0, 0.0), p(1.0, 1.5), p(3.0, 1.5)),
            1.5
        );
        // Collinear, apart.
        assert_eq!(
            segment_distance(p(0.0, 0.0), p(1.0, 0.0), p(3.0, 0.0), p(5.0, 0.0)),
            2.0
        );
    }

    #[test]
    fn the_capsule_chord_is_where_the_line_is_within_the_radius() {
        // Line y = 0.5 along x, capsule of radius 1 around (0, 0)–(2, 0): x in [−√0.75, 2 + √0.75].
        let (lo, hi) = capsule_chord(v(-5., 0.5), v(5., 0.5), v(0., 0.), v(2., 0.), 1.0).unwrap();
        let h = 0.75f64.sqrt();
        assert!((lo - (-h + 5.0) / 10.0).abs() < 1e-12, "{lo}");
        assert!((hi - (2.0 + h + 5.0) / 10.0).abs() < 1e-12, "{hi}");
        // A line that passes by at 1.5 misses it; a crossing line meets it around the crossing.
        assert_eq!(
            capsule_chord(v(-5., 1.5), v(5., 1.5), v(0., 0.), v(2., 0.), 1.0),
            None
        );
        let (lo, hi) = capsule_chord(v(1., -3.), v(1., 3.), v(0., 0.), v(2., 0.), 1.0).unwrap();
        assert!((lo - 2.0 / 6.0).abs() < 1e-12 && (hi - 4.0 / 6.0).abs() < 1e-12);
        // Against brute force: a point of the chord is within r, a point beyond its ends is not.
        let mut rng = crate::sim::SplitMix64::new(7);
        for _ in 0..2000 {
            let mut p = || v(rng.unit() * 6.0 - 3.0, rng.unit() * 6.0 - 3.0);
            let (p0, p1, a, b) = (p(), p(), p(), p());
            let r = 0.7;
            let at = |u: f64| p0 + (p1 - p0) * u;
            let distance = |u: f64| closest_on_segment(at(u), a, b).0.distance(at(u));
            match capsule_chord(p0, p1, a, b, r) {
                Some((lo, hi)) => {
                    assert!(distance(0.5 * (lo + hi)) < r + 1e-9);
                    assert!(distance(lo - 1e-6) >= r - 1e-9 && distance(hi + 1e-6) >= r - 1e-9);
                }
                None => {
                    for k in -20..=40 {
                        assert!(distance(k as f64 / 20.0) >= r - 1e-9);
                    }
                }
            }
        }
    }
}
