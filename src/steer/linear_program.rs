//! The small linear programs ORCA solves every step: the velocity closest to the preferred one
//! inside the max-speed disc and a set of half-planes, and, when the half-planes leave no room,
//! the velocity that least violates the agent half-planes while keeping the obstacle ones hard.
//!
//! Source: J. van den Berg, S. J. Guy, M. Lin, D. Manocha, "Reciprocal n-body collision
//! avoidance", ISRR 2009 / Springer 2011, §5.2–5.3, as implemented by the RVO2 library
//! (`Agent.cc`: `linearProgram1`, `linearProgram2`, `linearProgram3`). This is the same
//! incremental algorithm (Seidel's, as in de Berg et al., "Computational Geometry", §4.4) written
//! in `f64`, taking the half-planes in the order given (RVO2 does not shuffle either), so results
//! are deterministic; the work is O(n) when few constraints change the optimum, O(n²) at worst
//! for the 2D program and O(n³) at worst for the 3D fallback.
//!
//! Accuracy: exact up to floating-point rounding. A returned velocity lies inside the disc and
//! satisfies every half-plane to about 1e-12 times the magnitude of the speeds and line offsets
//! involved; two half-planes whose directions differ by less than [`PARALLEL_EPSILON`] radians
//! are treated as parallel.

use glam::DVec2;

use crate::geometry::{cross, left_normal};

/// Two half-plane directions (unit vectors) are parallel when the sine of the angle between them
/// is at most this. The `f64` counterpart of RVO2's `RVO_EPSILON` (1e-5 in `f32`).
pub(crate) const PARALLEL_EPSILON: f64 = 1e-9;

/// A half-plane in velocity space: the permitted velocities are those on the LEFT of the line
/// through `point` along `direction` (RVO2's `Line`), boundary included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfPlane {
    /// A point of the boundary line, metres per second.
    pub point: DVec2,
    /// Unit direction of the boundary line; the permitted side is on its left.
    pub direction: DVec2,
}

impl HalfPlane {
    /// How far `velocity` lies on the forbidden (right) side of the boundary, metres per second:
    /// positive when violated, zero on the line, negative inside.
    #[inline]
    pub fn violation(&self, velocity: DVec2) -> f64 {
        cross(self.direction, self.point - velocity)
    }
}

/// Result of the 2D linear program ([`linear_program_2`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LpOutcome {
    /// The optimum when every half-plane was met; otherwise the optimum of the half-planes before
    /// `failed_at` (which the 3D fallback starts from).
    pub velocity: DVec2,
    /// Index of the first half-plane that could not be met together with the earlier ones and the
    /// disc, or `None` on success.
    pub failed_at: Option<usize>,
}

/// The optimum on the boundary line of `lines[line_no]`, subject to the disc of `radius` and the
/// half-planes `lines[..line_no]` (RVO2's `linearProgram1`): the point closest to `opt`, or with
/// `direction_opt` the point furthest along the unit direction `opt`. `None` when the line has
/// no such point.
#[inline]
fn linear_program_1(
    lines: &[HalfPlane],
    line_no: usize,
    radius: f64,
    opt: DVec2,
    direction_opt: bool,
) -> Option<DVec2> {
    let line = lines[line_no];
    let dot = line.point.dot(line.direction);
    let discriminant = dot * dot + radius * radius - line.point.length_squared();
    if discriminant < 0.0 {
        // The max-speed disc lies entirely on the forbidden side of this line.
        return None;
    }
    let sqrt_discriminant = discriminant.sqrt();
    let mut t_left = -dot - sqrt_discriminant;
    let mut t_right = -dot + sqrt_discriminant;

    for other in &lines[..line_no] {
        let denominator = cross(line.direction, other.direction);
        let numerator = cross(other.direction, line.point - other.point);
        if denominator.abs() <= PARALLEL_EPSILON {
            // Parallel: the whole line is either inside `other` or outside it.
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            // `other` bounds the line on the right.
            t_right = t_right.min(t);
        } else {
            // `other` bounds the line on the left.
            t_left = t_left.max(t);
        }
        if t_left > t_right {
            return None;
        }
    }

    let t = if direction_opt {
        if opt.dot(line.direction) > 0.0 {
            t_right
        } else {
            t_left
        }
    } else {
        // Not `f64::clamp`, which panics on inverted (NaN) bounds.
        let t = line.direction.dot(opt - line.point);
        if t < t_left {
            t_left
        } else if t > t_right {
            t_right
        } else {
            t
        }
    };
    Some(line.point + t * line.direction)
}

/// The velocity inside the disc of `radius` that meets every half-plane of `lines` and is
/// closest to `opt`, or with `direction_opt` (`opt` then a unit vector) furthest along `opt`
/// (RVO2's `linearProgram2`). On failure, reports the first half-plane that cannot be met.
pub(crate) fn linear_program_2(
    lines: &[HalfPlane],
    radius: f64,
    opt: DVec2,
    direction_opt: bool,
) -> LpOutcome {
    let mut result = if direction_opt {
        opt * radius
    } else if opt.length_squared() > radius * radius {
        opt * (radius / opt.length())
    } else {
        opt
    };
    for i in 0..lines.len() {
        if lines[i].violation(result) > 0.0 {
            match linear_program_1(lines, i, radius, opt, direction_opt) {
                Some(v) => result = v,
                None => {
                    return LpOutcome {
                        velocity: result,
                        failed_at: Some(i),
                    }
                }
            }
        }
    }
    LpOutcome {
        velocity: result,
        failed_at: None,
    }
}

/// The 3D fallback (RVO2's `linearProgram3`): starting from `result`, the optimum of the 2D
/// program over `lines[..begin]`, the velocity inside the disc of `radius` that minimises the
/// largest violation of the half-planes `lines[protected..]` while meeting the first `protected`
/// half-planes (obstacles) exactly. `projected` is reusable scratch.
///
/// If the protected half-planes cannot be met together inside the disc, or rounding makes an
/// inner program fail, the previous velocity is kept, as in RVO2.
pub(crate) fn linear_program_3(
    lines: &[HalfPlane],
    protected: usize,
    begin: usize,
    radius: f64,
    mut result: DVec2,
    projected: &mut Vec<HalfPlane>,
) -> DVec2 {
    let protected = protected.min(lines.len());
    let mut distance = 0.0;
    for i in begin..lines.len() {
        let line = lines[i];
        if line.violation(result) <= distance {
            continue;
        }
        // The new optimum has equal violation of `line` and the worst of the others: restrict
        // to the boundary plane of `line` in (velocity, violation) space, project the others.
        projected.clear();
        projected.extend_from_slice(&lines[..protected]);
        for other in &lines[protected.min(i)..i] {
            let determinant = cross(line.direction, other.direction);
            let point = if determinant.abs() <= PARALLEL_EPSILON {
                if line.direction.dot(other.direction) > 0.0 {
                    // Same direction: `other` is less violated than `line` everywhere.
                    continue;
                }
                0.5 * (line.point + other.point)
            } else {
                line.point
                    + (cross(other.direction, line.point - other.point) / determinant)
                        * line.direction
            };
            // Non-zero: the directions are not equal (parallel same-direction skipped above).
            let d = other.direction - line.direction;
            projected.push(HalfPlane {
                point,
                direction: d / d.length(),
            });
        }
        let outcome = linear_program_2(projected, radius, left_normal(line.direction), true);
        if outcome.failed_at.is_none() {
            result = outcome.velocity;
        }
        distance = line.violation(result);
    }
    result
}

/// The velocity within `max_speed` closest to `preferred` that meets every half-plane, if there
/// is one: [`solve`] without its fallback (the same answer when it is `Some`).
pub(crate) fn solve_feasible(
    lines: &[HalfPlane],
    max_speed: f64,
    preferred: DVec2,
) -> Option<DVec2> {
    let Some(preferred) = usable_preferred(max_speed, preferred) else {
        return Some(DVec2::ZERO);
    };
    let outcome = linear_program_2(lines, max_speed, preferred, false);
    outcome.failed_at.is_none().then_some(outcome.velocity)
}

/// The degenerate inputs of [`solve`] and [`solve_feasible`]: `None` when `max_speed` is not
/// finite and positive (the answer is zero), else `preferred`, or zero if it is not finite.
fn usable_preferred(max_speed: f64, preferred: DVec2) -> Option<DVec2> {
    if !(max_speed > 0.0 && max_speed.is_finite()) {
        return None;
    }
    Some(if preferred.is_finite() {
        preferred
    } else {
        DVec2::ZERO
    })
}

/// The ORCA velocity for a set of half-planes: the velocity within `max_speed` closest to
/// `preferred` that meets every half-plane; when there is none, the one that least violates the
/// half-planes after the first `protected` ones while meeting those (obstacles) exactly.
/// `scratch` is reusable storage for the fallback (no allocation once it has grown).
///
/// Degenerate inputs: a `max_speed` that is not finite or not positive gives zero velocity; a
/// non-finite `preferred` is taken as zero; parallel half-planes are handled (opposite ones with
/// an empty gap between them make the program infeasible and go to the fallback). Half-planes must
/// be finite with unit directions.
pub(crate) fn solve(
    lines: &[HalfPlane],
    protected: usize,
    max_speed: f64,
    preferred: DVec2,
    scratch: &mut Vec<HalfPlane>,
) -> DVec2 {
    let Some(preferred) = usable_preferred(max_speed, preferred) else {
        return DVec2::ZERO;
    };
    let outcome = linear_program_2(lines, max_speed, preferred, false);
    match outcome.failed_at {
        None => outcome.velocity,
        Some(failed) => linear_program_3(
            lines,
            protected,
            failed,
            max_speed,
            outcome.velocity,
            scratch,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marsaglia's xorshift64*, enough for test data.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        /// Uniform in [lo, hi).
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
        fn unit(&mut self) -> DVec2 {
            DVec2::from_angle(self.range(0.0, std::f64::consts::TAU))
        }
        fn in_disc(&mut self, r: f64) -> DVec2 {
            loop {
                let p = DVec2::new(self.range(-r, r), self.range(-r, r));
                if p.length() <= r {
                    return p;
                }
            }
        }
    }

    /// A half-plane with direction `d` that `q` meets with slack `slack`.
    fn through(q: DVec2, d: DVec2, slack: f64, along: f64) -> HalfPlane {
        HalfPlane {
            point: q - slack * left_normal(d) + along * d,
            direction: d,
        }
    }

    fn max_violation(lines: &[HalfPlane], v: DVec2) -> f64 {
        lines
            .iter()
            .map(|l| l.violation(v))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Exact optimum by enumeration of the candidate points of the convex program
    /// min |v − pref| over the disc and the half-planes: pref, its projections on the lines and
    /// on the circle, line–line and line–circle intersections. `None` when none is feasible.
    fn brute_closest(lines: &[HalfPlane], radius: f64, pref: DVec2) -> Option<f64> {
        let mut candidates = vec![pref];
        if pref.length() > 0.0 {
            candidates.push(pref * (radius / pref.length()));
        }
        for (i, a) in lines.iter().enumerate() {
            candidates.push(a.point + a.direction * a.direction.dot(pref - a.point));
            let dot = a.point.dot(a.direction);
            let disc = dot * dot + radius * radius - a.point.length_squared();
            if disc >= 0.0 {
                candidates.push(a.point + (-dot - disc.sqrt()) * a.direction);
                candidates.push(a.point + (-dot + disc.sqrt()) * a.direction);
            }
            for b in &lines[..i] {
                let den = cross(a.direction, b.direction);
                if den.abs() > 1e-12 {
                    let t = cross(b.direction, a.point - b.point) / den;
                    candidates.push(a.point + t * a.direction);
                }
            }
        }
        candidates
            .into_iter()
            .filter(|&c| c.length() <= radius + 1e-9 && max_violation(lines, c) <= 1e-9)
            .map(|c| c.distance(pref))
            .min_by(f64::total_cmp)
    }

    /// Brute-force minimum of the largest violation of `lines[protected..]` over the disc points
    /// meeting `lines[..protected]`: a grid, then repeated zooming around the best point.
    /// An upper bound on the true minimum (loose by up to ~1e-2 when the optimum sits in a
    /// narrow corner of the feasible region). `None` if no grid point is feasible.
    fn brute_least_violation(lines: &[HalfPlane], protected: usize, radius: f64) -> Option<f64> {
        let score = |v: DVec2| -> Option<f64> {
            if v.length() > radius || lines[..protected].iter().any(|l| l.violation(v) > 0.0) {
                return None;
            }
            Some(max_violation(&lines[protected..], v))
        };
        let mut best: Option<(f64, DVec2)> = None;
        let consider = |v: DVec2, best: &mut Option<(f64, DVec2)>| {
            if let Some(s) = score(v) {
                if best.is_none_or(|b| s < b.0) {
                    *best = Some((s, v));
                }
            }
        };
        let n = 160;
        let h = 2.0 * radius / n as f64;
        for i in 0..=n {
            for j in 0..=n {
                consider(
                    DVec2::new(-radius + i as f64 * h, -radius + j as f64 * h),
                    &mut best,
                );
            }
        }
        let mut half = 2.0 * h;
        for _ in 0..60 {
            let (_, centre) = best?;
            let m = 20;
            for i in 0..=m {
                for j in 0..=m {
                    let off = DVec2::new(i as f64, j as f64) / m as f64 * 2.0 - 1.0;
                    consider(centre + off * half, &mut best);
                }
            }
            half *= 0.7;
        }
        best.map(|b| b.0)
    }

    /// Exact minimum of the largest violation of `lines[protected..]` over the disc points
    /// meeting `lines[..protected]`, by enumeration. Writing violation_j(v) = c_j − n_j·v, the
    /// optimum of min δ (violation_j ≤ δ, protected ≤ 0, |v| ≤ R) is where constraints meet:
    /// two of the lines {violation_a = violation_b} and {protected_k = 0} crossing, one of them
    /// meeting the circle, or the circle point R n_j. `None` if no candidate is feasible.
    fn exact_least_violation(lines: &[HalfPlane], protected: usize, radius: f64) -> Option<f64> {
        let lin = |l: &HalfPlane| (left_normal(l.direction), cross(l.direction, l.point));
        // Equations g · v = h.
        let mut eqs: Vec<(DVec2, f64)> = lines[..protected].iter().map(lin).collect();
        let free = &lines[protected..];
        for (i, a) in free.iter().enumerate() {
            for b in &free[..i] {
                let ((na, ca), (nb, cb)) = (lin(a), lin(b));
                if (na - nb).length() > 1e-12 {
                    eqs.push((na - nb, ca - cb));
                }
            }
        }
        let mut candidates: Vec<DVec2> = free.iter().map(|l| radius * lin(l).0).collect();
        for (i, &(g1, h1)) in eqs.iter().enumerate() {
            // Circle: v = g1 h1 / |g1|² ± t along g1's normal.
            let g2 = g1.length_squared();
            let foot = g1 * (h1 / g2);
            let rest = radius * radius - foot.length_squared();
            if rest >= 0.0 {
                let along = left_normal(g1) / g2.sqrt() * rest.sqrt();
                candidates.push(foot + along);
                candidates.push(foot - along);
            }
            for &(g2v, h2) in &eqs[..i] {
                let det = cross(g1, g2v);
                if det.abs() > 1e-12 {
                    candidates.push(DVec2::new(
                        (h1 * g2v.y - h2 * g1.y) / det,
                        (g1.x * h2 - g2v.x * h1) / det,
                    ));
                }
            }
        }
        candidates
            .into_iter()
            .filter(|&v| {
                v.length() <= radius + 1e-9 && max_violation(&lines[..protected], v) <= 1e-9
            })
            .map(|v| max_violation(free, v))
            .min_by(f64::total_cmp)
    }

    fn random_feasible_set(rng: &mut Rng, radius: f64) -> Vec<HalfPlane> {
        let q = rng.in_disc(0.9 * radius);
        let n = 1 + (rng.next() % 12) as usize;
        let mut lines: Vec<HalfPlane> = Vec::with_capacity(n);
        for _ in 0..n {
            let d = match (rng.next() % 6, lines.last()) {
                // Exactly parallel and anti-parallel lines, to exercise those branches.
                (0, Some(l)) => l.direction,
                (1, Some(l)) => -l.direction,
                _ => rng.unit(),
            };
            let slack = rng.range(0.0, radius);
            let along = rng.range(-radius, radius);
            lines.push(through(q, d, slack, along));
        }
        lines
    }

    #[test]
    fn feasible_sets_match_brute_force_optimum() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut scratch = Vec::new();
        for case in 0..3000 {
            let radius = rng.range(0.5, 3.0);
            let lines = random_feasible_set(&mut rng, radius);
            let pref = DVec2::new(
                rng.range(-2.0 * radius, 2.0 * radius),
                rng.range(-2.0 * radius, 2.0 * radius),
            );
            let outcome = linear_program_2(&lines, radius, pref, false);
            assert_eq!(outcome.failed_at, None, "case {case}: {lines:?}");
            let v = solve(&lines, 0, radius, pref, &mut scratch);
            assert_eq!(v, outcome.velocity);
            assert!(v.length() <= radius + 1e-9, "case {case}");
            assert!(max_violation(&lines, v) <= 1e-6, "case {case}");
            let best = brute_closest(&lines, radius, pref).expect("feasible by construction");
            assert!(
                (v.distance(pref) - best).abs() <= 1e-6,
                "case {case}: lp {} vs brute {best}",
                v.distance(pref)
            );
        }
    }

    #[test]
    fn infeasible_sets_minimise_the_largest_violation() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let mut scratch = Vec::new();
        let (mut infeasible, mut compared) = (0, 0);
        for case in 0..600 {
            let radius = rng.range(0.5, 3.0);
            // Protected half-planes that a known point of the disc meets.
            let q = rng.in_disc(0.8 * radius);
            let protected = (rng.next() % 4) as usize;
            let mut lines: Vec<HalfPlane> = (0..protected)
                .map(|_| {
                    let d = rng.unit();
                    let slack = rng.range(0.0, 0.5 * radius);
                    let along = rng.range(-radius, radius);
                    through(q, d, slack, along)
                })
                .collect();
            let others = 2 + (rng.next() % 10) as usize;
            for _ in 0..others {
                let d = rng.unit();
                let p = rng.in_disc(1.5 * radius);
                lines.push(HalfPlane {
                    point: p,
                    direction: d,
                });
            }
            let pref = rng.in_disc(1.5 * radius);
            let v = solve(&lines, protected, radius, pref, &mut scratch);
            assert!(v.is_finite() && v.length() <= radius + 1e-9, "case {case}");
            assert!(
                max_violation(&lines[..protected], v) <= 1e-6,
                "case {case}: protected line violated"
            );
            if linear_program_2(&lines, radius, pref, false)
                .failed_at
                .is_none()
            {
                let best = brute_closest(&lines, radius, pref).expect("lp2 found one");
                assert!((v.distance(pref) - best).abs() <= 1e-6, "case {case}");
                continue;
            }
            infeasible += 1;
            let got = max_violation(&lines[protected..], v);
            let exact = exact_least_violation(&lines, protected, radius).expect("q is feasible");
            assert!(
                (got - exact).abs() <= 1e-6,
                "case {case}: lp3 worst violation {got} vs exact {exact}"
            );
            if let Some(grid) = brute_least_violation(&lines, protected, radius) {
                compared += 1;
                assert!(
                    got <= grid + 1e-6,
                    "case {case}: lp3 worst violation {got} vs grid search {grid}"
                );
            }
        }
        assert!(infeasible > 200, "only {infeasible} infeasible cases");
        assert!(compared > 150, "only {compared} compared with brute force");
    }

    #[test]
    fn degenerate_inputs_give_finite_answers() {
        let mut scratch = Vec::new();
        let up = HalfPlane {
            point: DVec2::new(0.0, 1.0),
            direction: DVec2::X,
        };
        let down = HalfPlane {
            point: DVec2::new(0.0, 2.0),
            direction: -DVec2::X,
        };
        // Zero and invalid max speed: zero velocity.
        assert_eq!(solve(&[up], 0, 0.0, DVec2::X, &mut scratch), DVec2::ZERO);
        assert_eq!(
            solve(&[up], 0, f64::NAN, DVec2::X, &mut scratch),
            DVec2::ZERO
        );
        // No lines: the preferred velocity clipped to the disc.
        let v = solve(&[], 0, 2.0, DVec2::new(3.0, 4.0), &mut scratch);
        assert!(v.distance(DVec2::new(1.2, 1.6)) < 1e-12, "{v}");
        // A non-finite preference counts as zero.
        let v = solve(&[], 0, 2.0, DVec2::new(f64::NAN, 1.0), &mut scratch);
        assert_eq!(v, DVec2::ZERO);
        // `up` permits y >= 1 (left of +x), `down` permits y <= 2 (left of -x).
        let v = solve(&[up, down], 0, 3.0, DVec2::ZERO, &mut scratch);
        assert!((v - DVec2::new(0.0, 1.0)).length() < 1e-12, "{v}");
        // Opposite half-planes with an empty gap: the fallback splits the violation evenly.
        let low = HalfPlane {
            point: DVec2::new(0.0, 0.5),
            direction: -DVec2::X,
        };
        let v = solve(&[up, low], 0, 3.0, DVec2::ZERO, &mut scratch);
        assert!(v.is_finite());
        assert!((v.y - 0.75).abs() < 1e-9, "{v}");
        // The same with the lower one protected: it is met exactly.
        let v = solve(&[low, up], 1, 3.0, DVec2::ZERO, &mut scratch);
        assert!(v.y <= 0.5 + 1e-12, "{v}");
        // Identical lines.
        let v = solve(&[up, up, up], 0, 3.0, DVec2::ZERO, &mut scratch);
        assert!((v - DVec2::new(0.0, 1.0)).length() < 1e-12, "{v}");
    }
}
