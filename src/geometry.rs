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
    let to = |p: DVec2, s0: DVec2, s1: DVec2| closest_on_segment(p, s0, s1).0.distance(p);
    to(a, c, d)
        .min(to(b, c, d))
        .min(to(c, a, b))
        .min(to(d, a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
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
}
