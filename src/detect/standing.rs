//! The sweep against a collider that stands: the agent's rail between two samples followed as
//! the curve it is, not the chord the moving-disc test slides along, so that whether and where
//! the discs touch does not depend on where along the rail the samples fall.
//!
//! The samples are one agent radius of travel apart and start where the agent stands now, so
//! from one frame to the next they fall elsewhere on the rail. On a bend a chord of that length
//! strays centimetres inside the curve: a start checked clear against an agent standing beside
//! the bend met it one frame later, when the samples had moved, and was stopped again (a flip;
//! tradeshow-300, agents 262 and 77: one sweep of the same rail against the same standing agent
//! gave an overlap of 0.0002 of the radii at 1.4 m/s and 0.029 at 0.8 m/s; docs/ROBUSTNESS.md,
//! session 24). Here each step that can come near the collider is followed along the chords
//! between the points of a grid fixed on the rail (every [`GRID_FRACTION`] of the radii of
//! arclength), the same chords every frame whatever the samples (`GridChords`, session 30).

use glam::DVec2;

use super::moving_sphere::{first_contact, Contact};
use super::sweep::{PairContact, SweepSample};
use crate::geometry::closest_on_segment;
use crate::rail::{Rail, RailCursor};

/// Position error of a point of a rail, metres (`Rail::position`: within 1.2e-4 m of the exact
/// arclength parameterisation).
const POSITION_ERROR: f64 = 1.2e-4;

/// Spacing of the grid on the rail, as a fraction of the radii: a chord of 1/16 of the radii
/// (2.7 cm for two 0.19 m agents and their margins) strays at most `chord² / 8 R` from a
/// curve of turning radius `R`: 0.3 mm for R = 0.3 m, against 7 cm for a one-radius step
/// of a 0.4 m agent.
const GRID_FRACTION: f64 = 1.0 / 16.0;

/// How far the rail between samples `p` and `q` can stray from their chord, metres. A curve of
/// arclength `L` whose ends are `c` apart lies in the ellipse with its ends as foci and major
/// axis `L`, no further than half its minor axis, `½√(L² − c²)`, from the chord; plus the
/// position error of the points.
fn stray(p: &SweepSample, q: &SweepSample) -> f64 {
    let length = q.s - p.s;
    let chord = (p.position.distance(q.position) - 2.0 * POSITION_ERROR).max(0.0);
    0.5 * (length * length - chord * chord).max(0.0).sqrt() + 2.0 * POSITION_ERROR
}

/// The chords a sweep follows along its rail: from grid point to grid point (`i × grid`), so
/// that the path they follow is the same whatever the samples. Cut at the samples instead, the
/// chords strayed by up to half a millimetre more or less from frame to frame, and a start
/// that grazed an agent at its goal by that much was stopped a frame or two later and started
/// again, 322 times (tradeshow-300 with its starts jittered; docs/ROBUSTNESS.md, session 30).
struct GridChords<'r> {
    /// The sweep's first sample, where the agent is: no chord starts before it.
    start: SweepSample,
    /// Grid spacing, metres of arclength.
    grid: f64,
    /// Looks up the chords' ends.
    ends: RailCursor<'r>,
    /// Looks up the chords' first points, which increase from step to step as their ends do
    /// (a cursor sent back searches the whole rail).
    firsts: RailCursor<'r>,
}

impl<'r> GridChords<'r> {
    fn new(rail: &'r Rail, start: SweepSample, grid: f64) -> Self {
        GridChords {
            start,
            grid,
            ends: rail.cursor(),
            firsts: rail.cursor(),
        }
    }

    /// Visit the chords of step `p → q` (arclength and position of each chord's two ends), in
    /// order, while `visit` returns `true`; whether it always did. They run from the last grid
    /// point at or before `p` (or the sweep's start) to the first at or after `q`: a step's
    /// first and last chords are its neighbours' too. A step standing still (turning on the
    /// spot) is the point where it stands, and a step on one straight segment of the rail is
    /// its own chord, wherever the samples fall: it is visited whole (most steps of a rail of
    /// lines and corners; the grid's points were most of this sweep's cost on a crowd of
    /// 1,000, docs/PERFORMANCE.md).
    fn step(
        &mut self,
        p: &SweepSample,
        q: &SweepSample,
        mut visit: impl FnMut(f64, DVec2, f64, DVec2) -> bool,
    ) -> bool {
        let rail = self.ends.rail();
        if q.s <= p.s || rail.is_line_between(p.s, q.s) {
            return visit(p.s, p.position, q.s, q.position);
        }
        let length = rail.length();
        let mut i = (p.s / self.grid).floor();
        let g = i * self.grid;
        let (mut sa, mut a) = if g <= self.start.s {
            (self.start.s, self.start.position)
        } else {
            (g, self.firsts.position(g))
        };
        loop {
            i += 1.0;
            let g = (i * self.grid).min(length);
            let b = self.ends.position(g);
            if !visit(sa, a, g, b) {
                return false;
            }
            if g >= q.s || g >= length {
                return true;
            }
            (sa, a) = (g, b);
        }
    }
}

/// Sweep the agent's `samples`, taken on `rail`, against a collider standing at `point`, discs
/// touching at centre distance `radii`: the first contact, or `None` (also when it comes after
/// `cutoff` seconds). As [`super::sweep_pair`] against a standing collider, with each step
/// that can come within `radii` of it followed along the grid's chords instead of its own.
/// Times inside a step are interpolated by arclength.
pub fn sweep_standing(
    samples: &[SweepSample],
    rail: &Rail,
    point: DVec2,
    radii: f64,
    cutoff: f64,
) -> Option<PairContact> {
    if samples.len() < 2 {
        return None;
    }
    let grid = (radii * GRID_FRACTION).max(1e-3);
    let mut chords = GridChords::new(rail, samples[0], grid);
    for (k, pair) in samples.windows(2).enumerate() {
        let (p, q) = (pair[0], pair[1]);
        if p.t > cutoff {
            break;
        }
        // Steps whose chords cannot come within the radii are passed over: most of them. The
        // chords lie on the curve up to a grid point either side of the step, within `grid`
        // of the step's own curve, which lies within its stray of the samples' chord.
        let reach = radii + stray(&p, &q) + grid;
        let (nearest, _) = closest_on_segment(point, p.position, q.position);
        if nearest.distance_squared(point) > reach * reach {
            continue;
        }
        let mut hit = None;
        chords.step(&p, &q, |sa, a, sb, b| {
            match first_contact(a, b - a, point, DVec2::ZERO, radii) {
                Contact::At(u) => {
                    let s = sa + (sb - sa) * u;
                    // Past this step (its last chord reaches the next grid point): the next
                    // step, which shares the chord, finds the same contact, and its time.
                    if s <= q.s {
                        hit = Some((s, a + (b - a) * u));
                    }
                    false
                }
                Contact::None => true,
            }
        });
        let Some((s, at)) = hit else {
            continue;
        };
        let dt = (q.t - p.t).max(1e-12);
        let time = if q.s > p.s {
            p.t + ((s - p.s) / (q.s - p.s)).clamp(0.0, 1.0) * (q.t - p.t)
        } else {
            p.t
        };
        if time > cutoff {
            return None;
        }
        let closest = closest_after(samples, rail, k, s, at, point, grid);
        return Some(PairContact {
            time,
            agent_position: at,
            agent_s: s,
            agent_velocity: (q.position - p.position) / dt,
            collider_position: point,
            collider_velocity: DVec2::ZERO,
            overlap: ((radii - closest) / radii).clamp(0.0, 1.0),
        });
    }
    None
}

/// The smallest distance from `point` to the rail from the contact (arclength `s`, position
/// `at`, in step `k`) on, along the grid's chords while it keeps shrinking: the chapter's "min
/// distance between the two spheres along their respective paths".
fn closest_after(
    samples: &[SweepSample],
    rail: &Rail,
    k: usize,
    s: f64,
    at: DVec2,
    point: DVec2,
    grid: f64,
) -> f64 {
    let mut chords = GridChords::new(rail, samples[0], grid);
    let mut best = at.distance(point);
    for pair in samples[k..].windows(2) {
        let (p, q) = (pair[0], pair[1]);
        let shrinking = chords.step(&p, &q, |sa, a, sb, b| {
            if sb <= s {
                return true;
            }
            let a = if sa < s { at } else { a };
            let (nearest, _) = closest_on_segment(point, a, b);
            let d = nearest.distance(point);
            // The chord comes no nearer than before: the distance has begun to grow.
            if d >= best {
                return false;
            }
            best = best.min(d);
            true
        });
        if !shrinking {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::sweep::{sample_agent, sweep_pair};
    use super::super::trajectory::{MotionPlan, Trajectory};
    use super::*;

    fn samples_on(rail: &Rail, plan: MotionPlan, radius: f64, duration: f64) -> Vec<SweepSample> {
        let mut trajectory = Trajectory::on_rail(rail, plan);
        let mut samples = Vec::new();
        sample_agent(&mut trajectory, radius, duration, &mut samples);
        samples
    }

    /// A straight metre, a quarter turn to the left of about `bend` metres' radius (a cubic
    /// with the usual 0.5523 handles), and a straight metre.
    fn corner(bend: f64) -> Rail {
        use crate::rail::RailSegment;
        let k = 0.5523 * bend;
        let a = DVec2::new(1.0, 0.0);
        let b = DVec2::new(1.0 + bend, bend);
        Rail::new(vec![
            RailSegment::line(DVec2::ZERO, a),
            RailSegment::cubic(a, a + DVec2::new(k, 0.0), b - DVec2::new(0.0, k), b),
            RailSegment::line(b, b + DVec2::new(0.0, 1.0)),
        ])
        .unwrap()
    }

    /// The smallest distance from `point` to `rail` over `[s0, s1]`, by 20,000 points.
    fn dense_distance(rail: &Rail, s0: f64, s1: f64, point: DVec2) -> f64 {
        (0..=20_000)
            .map(|i| {
                rail.position(s0 + (s1 - s0) * i as f64 / 20_000.0)
                    .distance(point)
            })
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn on_a_straight_rail_it_finds_what_the_chord_sweep_finds() {
        let rail = Rail::from_points(&[DVec2::ZERO, DVec2::new(10.0, 0.0)]).unwrap();
        let samples = samples_on(&rail, MotionPlan::cruising(0.0, 2.0), 0.4, 2.0);
        let point = DVec2::new(3.0, 0.5);
        let exact = sweep_standing(&samples, &rail, point, 0.8, f64::INFINITY).unwrap();
        let chord =
            sweep_pair(&samples, &mut Trajectory::fixed(point), 0.8, f64::INFINITY).unwrap();
        assert!(
            (exact.time - chord.time).abs() < 1e-6,
            "{exact:?} {chord:?}"
        );
        assert!((exact.agent_position - chord.agent_position).length() < 1e-6);
        assert!((exact.overlap - (0.8 - 0.5) / 0.8).abs() < 1e-6);
        assert!(sweep_standing(&samples, &rail, point, 0.8, 1.0).is_none());
    }

    #[test]
    fn beside_a_bend_the_answer_does_not_depend_on_where_the_samples_fall() {
        // A quarter turn of about a metre's radius between two straight lines (a cubic
        // corner, as rails are smoothed), and points standing just inside and just outside
        // the radii of its inner side; the samples start at 40 arclengths about a centimetre
        // apart, as from frame to frame.
        let rail = corner(1.0);
        let radii = 0.43;
        let mut chord_wrong = 0;
        for (inside, offset) in [(true, -0.004), (false, 0.004)] {
            // The point at `radii + offset` from the curve, on the inner side of the bend.
            let mid = rail.sample(rail.length() / 2.0);
            let mut point = mid.position + mid.tangent.perp() * (radii + offset);
            let d = dense_distance(&rail, 0.0, rail.length(), point);
            point += mid.tangent.perp() * (radii + offset - d);
            let truth = dense_distance(&rail, 0.0, rail.length(), point);
            assert!((truth - (radii + offset)).abs() < 2e-4, "{truth}");
            for i in 0..40 {
                let s0 = 0.3 + 0.011 * i as f64;
                let samples = samples_on(&rail, MotionPlan::cruising(s0, 1.4), 0.4, 4.0);
                let exact = sweep_standing(&samples, &rail, point, radii, f64::INFINITY);
                assert_eq!(exact.is_some(), inside, "start {s0}: {exact:?}");
                let chord = sweep_pair(
                    &samples,
                    &mut Trajectory::fixed(point),
                    radii,
                    f64::INFINITY,
                );
                if chord.is_some() != inside {
                    chord_wrong += 1;
                }
            }
        }
        // The chord sweep, a chord inside the bend, meets the point outside the radii on some
        // starts and not others: the flaw this sweep removes (else the test proves nothing).
        assert!(chord_wrong > 0 && chord_wrong < 80, "{chord_wrong}");
    }

    #[test]
    fn from_the_same_spot_the_answer_does_not_depend_on_when_the_samples_fall() {
        // An agent turning on the spot before it walks: its samples fall elsewhere on the
        // rail from frame to frame (the still part shrinks) while it stands where it is. Points
        // a fraction of a millimetre either side of the radii from random corners, below the
        // grid's error: whatever the answer, it is the same at every frame (the loop of
        // docs/ROBUSTNESS.md, session 30: 0.4 mm, a contact at one frame in three).
        let mut rng = crate::sim::SplitMix64::new(7);
        let mut next = || rng.unit();
        let radii = 0.43;
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..300 {
            let rail = corner(0.2 + next());
            let mid = rail.sample(1.0 + next() * (rail.length() - 2.0));
            let side = if next() < 0.5 { 1.0 } else { -1.0 };
            let mut point = mid.position + mid.tangent.perp() * side * radii;
            let d = dense_distance(&rail, 0.0, rail.length(), point);
            point += mid.tangent.perp() * side * (radii - d + (next() - 0.5) * 1e-3);
            let answers: Vec<bool> = (0..12)
                .map(|frame| {
                    let plan = MotionPlan {
                        still: 0.2 - frame as f64 / 60.0,
                        ..MotionPlan::cruising(0.0, 1.4)
                    };
                    let samples = samples_on(&rail, plan, 0.19, 4.0);
                    sweep_standing(&samples, &rail, point, radii, f64::INFINITY).is_some()
                })
                .collect();
            assert!(
                answers.iter().all(|&a| a == answers[0]),
                "{point:?} by the corner of {}: {answers:?}",
                rail.length()
            );
            if answers[0] {
                hits += 1;
            } else {
                misses += 1;
            }
        }
        assert!(hits > 50 && misses > 50, "{hits} {misses}");
    }

    #[test]
    fn it_agrees_with_a_dense_reference_on_random_curves() {
        // Random corners, standing points near them: a contact found
        // exactly when the dense distance over the swept arclength is under the radii (up to
        // the grid's and the table's error), the contact on the rail at the radii.
        let mut rng = crate::sim::SplitMix64::new(41);
        let mut next = || rng.unit();
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..1000 {
            let rail = corner(0.3 + next());
            let speed = 0.8 + next() * 1.8;
            let s0 = next() * 0.5;
            let samples = samples_on(&rail, MotionPlan::cruising(s0, speed), 0.4, 3.0);
            let s1 = samples.last().unwrap().s;
            let radii = 0.8;
            let at = rail.position(s0 + next() * (s1 - s0));
            let c = at + DVec2::from_angle(next() * 6.3) * (radii * (0.95 + next() * 0.3));
            if c.distance(rail.position(s0)) < radii * 1.05 {
                continue;
            }
            let truth = dense_distance(&rail, s0, s1, c);
            let found = sweep_standing(&samples, &rail, c, radii, f64::INFINITY);
            if truth < radii - 2e-3 {
                let contact = found.expect("a contact the dense reference sees");
                let d = contact.agent_position.distance(c);
                assert!((d - radii).abs() < 1e-6, "{d}");
                let on_rail = rail
                    .position(contact.agent_s)
                    .distance(contact.agent_position);
                assert!(on_rail < 2e-3, "{on_rail}");
                hits += 1;
            } else if truth > radii + 2e-3 {
                assert!(found.is_none(), "{truth} {found:?}");
                misses += 1;
            }
        }
        assert!(hits > 100 && misses > 100, "{hits} {misses}");
    }
}
