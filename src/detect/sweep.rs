//! The sweep: slide an agent's disc along its predicted motion one collision radius at a time
//! and test it against a collider moved to the same times (chapter 22.3).

use glam::DVec2;

use super::moving_sphere::{closest_approach, first_contact, Contact};
use super::trajectory::Trajectory;
use crate::geometry::closest_on_segment;

/// Slack of [`sweep_pair`]'s pass-over bound, metres: above rounding and the arclength table's
/// position error (8e-5 m, `rail::arclength`).
const PASS_SLACK: f64 = 1e-3;

/// One sample of the agent's own sweep: time from now (s), position, arclength.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepSample {
    /// Seconds from now.
    pub t: f64,
    /// Predicted position, metres.
    pub position: DVec2,
    /// Predicted arclength, metres.
    pub s: f64,
}

/// Sample the agent's trajectory for a sweep: from now until `duration` seconds (or until it
/// stands at the end of its rail), one step per `radius` metres of travel at its fastest
/// planned speed (the chapter's time per move), into `out` (cleared first).
pub fn sample_agent(
    trajectory: &mut Trajectory<'_>,
    radius: f64,
    duration: f64,
    out: &mut Vec<SweepSample>,
) {
    out.clear();
    let speed = trajectory.plan().max_speed();
    let end = duration.min(trajectory.time_to_end());
    let push = |t: f64, trajectory: &mut Trajectory<'_>, out: &mut Vec<SweepSample>| {
        let position = trajectory.position(t);
        out.push(SweepSample {
            t,
            position,
            s: trajectory.s_at(t),
        });
    };
    push(0.0, trajectory, out);
    if speed <= 0.0 || end <= 0.0 {
        return;
    }
    let step = sample_step(radius, speed);
    let steps = (end / step).ceil().min(10_000.0) as usize;
    for k in 1..=steps {
        let t = (k as f64 * step).min(end);
        push(t, trajectory, out);
    }
}

/// Seconds between two of [`sample_agent`]'s samples of an agent of `radius` metres whose
/// plan's fastest speed is `speed` m/s (positive): the time it takes to walk its radius (1 mm
/// at least).
#[inline]
pub fn sample_step(radius: f64, speed: f64) -> f64 {
    radius.max(1e-3) / speed
}

/// Slack of [`SweepBound::may_touch`], metres: positions on a rail come from arclength tables
/// accurate to 1e-4 m (`rail/arclength.rs`), so a collider's chord can exceed its arclength by
/// twice that; 1 mm is five times more.
const BOUND_SLACK: f64 = 1e-3;

/// A cheap, conservative test run before [`sweep_pair`]: the agent's samples and the longest
/// step between two of them.
#[derive(Clone, Copy, Debug)]
pub struct SweepBound {
    /// The longest step between consecutive samples, chord or arclength, metres.
    pub longest_step: f64,
}

impl SweepBound {
    /// The bound of `samples`.
    pub fn of(samples: &[SweepSample]) -> SweepBound {
        // The chord, or the arclength where longer: the rail between two samples stays within
        // its arclength of the first (`sweep_standing` follows the curve, not the chord).
        let longest_step = samples
            .windows(2)
            .map(|w| {
                let arc = w[1].s - w[0].s;
                w[0].position.distance_squared(w[1].position).max(arc * arc)
            })
            .fold(0.0, f64::max)
            .sqrt();
        SweepBound { longest_step }
    }

    /// Whether a collider now at `position`, never faster than `max_speed` (m/s), can come
    /// within `radii` of the agent during a step of `samples` that starts by `cutoff`; when
    /// not, [`sweep_pair`] finds no contact. At the end of step `k` (time `t`) the collider is
    /// within `max_speed × t` of where it is now and the agent within the step's length of
    /// the step's first sample, so a contact in the step needs that sample within
    /// `radii + max_speed × t + longest_step` of `position` (plus [`BOUND_SLACK`]). Squared
    /// distances, no square root: ~2 ns a step, against ~40 ns for a step of `sweep_pair`
    /// (it places the collider on its rail).
    pub fn may_touch(
        &self,
        samples: &[SweepSample],
        position: DVec2,
        radii: f64,
        max_speed: f64,
        cutoff: f64,
    ) -> bool {
        let base = radii + self.longest_step + BOUND_SLACK;
        for pair in samples.windows(2) {
            if pair[0].t > cutoff {
                break;
            }
            let reach = base + max_speed * pair[1].t;
            if pair[0].position.distance_squared(position) <= reach * reach {
                return true;
            }
        }
        false
    }
}

/// The first contact of a sweep against one collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairContact {
    /// Seconds from now.
    pub time: f64,
    /// Agent centre at contact.
    pub agent_position: DVec2,
    /// Agent arclength at contact.
    pub agent_s: f64,
    /// Agent velocity over the step of contact, m/s.
    pub agent_velocity: DVec2,
    /// Collider centre at contact.
    pub collider_position: DVec2,
    /// Collider velocity over the step of contact, m/s.
    pub collider_velocity: DVec2,
    /// `(radii − closest distance over the step) / radii`, in `[0, 1]`.
    pub overlap: f64,
}

/// Sweep the agent's `samples` against `collider` (moved to the same times), discs touching at
/// centre distance `radii`. Stops at the first contact; ignores contacts after `cutoff` seconds.
pub fn sweep_pair(
    samples: &[SweepSample],
    collider: &mut Trajectory<'_>,
    radii: f64,
    cutoff: f64,
) -> Option<PairContact> {
    let first = samples.first()?;
    let start = collider.position(first.t);
    if samples.len() == 1 {
        // The agent does not move: only the collider's motion over... nothing to sweep.
        return None;
    }
    // Steps where the collider cannot come near are passed over without placing it on its
    // rail (the bulk of a pair's cost): from the last position placed, at `known` seconds, it
    // moves at most `speed` m/s (along its rail or its line; a rail's chord is no longer than
    // its arc, `PASS_SLACK` covering the arclength table's error), and the step's linear motions
    // keep each centre within the discs its ends are in. Exact: the steps that are swept place
    // it as before.
    let speed = collider.plan().max_speed();
    let mut known = (first.t, start);
    // Its position at the step's start, if placed.
    let mut placed = Some(start);
    for (k, pair) in samples.windows(2).enumerate() {
        let (p, q) = (pair[0], pair[1]);
        if p.t > cutoff {
            break;
        }
        // (A collider that stands is placed for nothing: no test.)
        if speed > 0.0 {
            let reach = radii + speed * (q.t - known.0) + PASS_SLACK;
            let (nearest, _) = closest_on_segment(known.1, p.position, q.position);
            if nearest.distance_squared(known.1) > reach * reach {
                placed = None;
                continue;
            }
        }
        let b0 = match placed {
            Some(b0) => b0,
            None => collider.position(p.t),
        };
        let b1 = collider.position(q.t);
        match step_contact(samples, collider, k, (b0, b1), radii, cutoff) {
            Step::Clear => {}
            Step::Late => return None,
            Step::Contact(contact) => return Some(contact),
        }
        known = (q.t, b1);
        placed = Some(b1);
    }
    None
}

/// What one step of a pair sweep finds.
enum Step {
    /// The discs do not meet in the step.
    Clear,
    /// They meet after the cutoff: the sweep ends with no contact.
    Late,
    /// They meet, first here.
    Contact(PairContact),
}

/// Step `k` of a pair sweep (the agent from sample `k` to `k + 1`, the collider from `b.0` to
/// `b.1`): where the discs first touch in it, with the overlap over the steps after.
fn step_contact(
    samples: &[SweepSample],
    collider: &mut Trajectory<'_>,
    k: usize,
    (b0, b1): (DVec2, DVec2),
    radii: f64,
    cutoff: f64,
) -> Step {
    let (p, q) = (samples[k], samples[k + 1]);
    let da = q.position - p.position;
    let db = b1 - b0;
    let Contact::At(u) = first_contact(p.position, da, b0, db, radii) else {
        return Step::Clear;
    };
    let dt = (q.t - p.t).max(1e-12);
    let time = p.t + u * (q.t - p.t);
    if time > cutoff {
        return Step::Late;
    }
    let closest = closest_after(samples, collider, k, b0, b1);
    Step::Contact(PairContact {
        time,
        agent_position: p.position + da * u,
        agent_s: p.s + (q.s - p.s) * u,
        agent_velocity: da / dt,
        collider_position: b0 + db * u,
        collider_velocity: db / dt,
        overlap: ((radii - closest) / radii).clamp(0.0, 1.0),
    })
}

/// The smallest centre distance from step `k` (collider from `b0` to `b1`) on, following the
/// later steps while the distance keeps shrinking: the chapter's "min distance between the
/// two spheres along their respective paths".
fn closest_after(
    samples: &[SweepSample],
    collider: &mut Trajectory<'_>,
    k: usize,
    b0: DVec2,
    b1: DVec2,
) -> f64 {
    let (p, q) = (samples[k], samples[k + 1]);
    let (mut best, mut u) = closest_approach(p.position, q.position - p.position, b0, b1 - b0);
    let mut b = b1;
    let mut k = k + 1;
    // The minimum lies inside a step when u < 1; otherwise look at the next one.
    while u >= 1.0 && k + 1 < samples.len() {
        let (p, q) = (samples[k], samples[k + 1]);
        let next = collider.position(q.t);
        let (d, v) = closest_approach(p.position, q.position - p.position, b, next - b);
        if d >= best {
            break;
        }
        best = d;
        u = v;
        b = next;
        k += 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::trajectory::MotionPlan;
    use super::*;
    use crate::rail::Rail;

    fn rail(a: (f64, f64), b: (f64, f64)) -> Rail {
        Rail::from_points(&[DVec2::new(a.0, a.1), DVec2::new(b.0, b.1)]).unwrap()
    }

    #[test]
    fn crossing_agents_meet_where_their_rails_cross() {
        let ra = rail((0.0, 0.0), (10.0, 0.0));
        let rb = rail((5.0, -5.0), (5.0, 5.0));
        let mut a = Trajectory::on_rail(&ra, MotionPlan::cruising(0.0, 1.0));
        let mut b = Trajectory::on_rail(&rb, MotionPlan::cruising(0.0, 1.0));
        let mut samples = Vec::new();
        sample_agent(&mut a, 0.4, 8.0, &mut samples);
        assert!((samples[1].t - 0.4).abs() < 1e-12);
        let hit = sweep_pair(&samples, &mut b, 0.8, f64::INFINITY).expect("they meet");
        // Centres 0.8 apart: (5 - x)² + (5 - x)² = 0.64 at x = t.
        let expected = 5.0 - 0.8 / 2f64.sqrt();
        assert!((hit.time - expected).abs() < 1e-9, "{}", hit.time);
        assert!(hit.overlap > 0.99);
        // One second later the agent passes first: no contact.
        let mut late = Trajectory::on_rail(&rb, MotionPlan::cruising(0.0, 0.5));
        assert!(sweep_pair(&samples, &mut late, 0.8, f64::INFINITY).is_none());
    }

    #[test]
    fn a_standing_collider_on_the_rail_is_hit_and_the_cutoff_is_respected() {
        let ra = rail((0.0, 0.0), (10.0, 0.0));
        let mut a = Trajectory::on_rail(&ra, MotionPlan::cruising(0.0, 2.0));
        let mut samples = Vec::new();
        sample_agent(&mut a, 0.4, 2.0, &mut samples);
        let mut b = Trajectory::fixed(DVec2::new(3.0, 0.5));
        let hit = sweep_pair(&samples, &mut b, 0.8, f64::INFINITY).unwrap();
        let x = 3.0 - (0.64f64 - 0.25).sqrt();
        assert!((hit.agent_position.x - x).abs() < 1e-9);
        assert!((hit.time - x / 2.0).abs() < 1e-9);
        assert_eq!(hit.collider_velocity, DVec2::ZERO);
        assert!((hit.overlap - (0.8 - 0.5) / 0.8).abs() < 1e-9);
        let mut b = Trajectory::fixed(DVec2::new(3.0, 0.5));
        assert!(sweep_pair(&samples, &mut b, 0.8, 1.0).is_none());
    }

    #[test]
    fn the_bound_never_drops_a_contact_the_sweep_finds() {
        // Agents on random lines and arcs-like two-segment rails, colliders standing or
        // moving: whenever the sweep finds a contact, the bound must let the pair through.
        let mut rng = crate::sim::SplitMix64::new(7);
        let mut next = || rng.unit();
        let (mut found, mut dropped) = (0, 0);
        for _ in 0..4000 {
            let point = |next: &mut dyn FnMut() -> f64| {
                DVec2::new(next() * 12.0 - 6.0, next() * 12.0 - 6.0)
            };
            let (a0, a1, a2) = (point(&mut next), point(&mut next), point(&mut next));
            let ra = Rail::from_points(&[a0, a1, a2]).unwrap();
            let speed = 0.5 + next() * 2.0;
            let mut a = Trajectory::on_rail(&ra, MotionPlan::cruising(next() * 2.0, speed));
            let mut samples = Vec::new();
            sample_agent(&mut a, 0.4, 3.5, &mut samples);
            let bound = SweepBound::of(&samples);
            let (b0, b1) = (point(&mut next), point(&mut next));
            let rb = Rail::from_points(&[b0, b1]).unwrap();
            let plan = if next() < 0.3 {
                MotionPlan::standing(0.0)
            } else {
                MotionPlan::cruising(0.0, next() * 2.6)
            };
            let mut b = Trajectory::on_rail(&rb, plan);
            let radii = 0.8 * (1.0 + next() * 0.2);
            let cutoff = if next() < 0.5 {
                f64::INFINITY
            } else {
                next() * 3.0
            };
            let contact = sweep_pair(&samples, &mut b, radii, cutoff);
            let start = rb.position(0.0);
            let passes = bound.may_touch(&samples, start, radii, plan.max_speed(), cutoff);
            if contact.is_some() {
                found += 1;
                assert!(passes, "the bound dropped a contact: {contact:?}");
            } else if !passes {
                dropped += 1;
            }
        }
        // The test means something: contacts happen, and the bound prunes pairs.
        assert!(found > 200, "{found}");
        assert!(dropped > 1000, "{dropped}");
    }

    /// [`sweep_pair`] as it was before it passed over steps, placing the collider at every
    /// sample (each step's contact as the sweep finds it): the reference the pass-over must
    /// match exactly.
    fn sweep_pair_placing_every_step(
        samples: &[SweepSample],
        collider: &mut Trajectory<'_>,
        radii: f64,
        cutoff: f64,
    ) -> Option<PairContact> {
        let first = samples.first()?;
        let mut b0 = collider.position(first.t);
        for (k, pair) in samples.windows(2).enumerate() {
            let (p, q) = (pair[0], pair[1]);
            if p.t > cutoff {
                break;
            }
            let b1 = collider.position(q.t);
            match step_contact(samples, collider, k, (b0, b1), radii, cutoff) {
                Step::Clear => {}
                Step::Late => return None,
                Step::Contact(contact) => return Some(contact),
            }
            b0 = b1;
        }
        None
    }

    #[test]
    fn passing_over_far_steps_finds_the_same_contact_bit_for_bit() {
        // Agents and colliders on random three-point rails (curves), colliders standing,
        // walking, starting, or on a straight line at a velocity.
        let mut rng = crate::sim::SplitMix64::new(29);
        let mut next = || rng.unit();
        let (mut found, mut clear) = (0, 0);
        for round in 0..4000 {
            let point = |next: &mut dyn FnMut() -> f64| {
                DVec2::new(next() * 12.0 - 6.0, next() * 12.0 - 6.0)
            };
            let (a0, a1, a2) = (point(&mut next), point(&mut next), point(&mut next));
            let Ok(ra) = Rail::from_points(&[a0, a1, a2]) else {
                continue;
            };
            let mut a = Trajectory::on_rail(&ra, MotionPlan::cruising(next(), 0.5 + next() * 2.0));
            let mut samples = Vec::new();
            sample_agent(&mut a, 0.2 + next() * 0.3, 3.5, &mut samples);
            let (b0, b1, b2) = (point(&mut next), point(&mut next), point(&mut next));
            let Ok(rb) = Rail::from_points(&[b0, b1, b2]) else {
                continue;
            };
            let plan = match round % 4 {
                0 => MotionPlan::standing(next()),
                1 => MotionPlan::cruising(next(), next() * 2.6),
                2 => MotionPlan {
                    s: next(),
                    still: 0.2,
                    transition_time: 0.4,
                    transition_speed: 0.7,
                    transition_acceleration: 1.0,
                    speed: 1.4,
                },
                _ => MotionPlan::cruising(0.0, 0.0),
            };
            let radii = 0.4 + next() * 0.6;
            let cutoff = if next() < 0.5 {
                f64::INFINITY
            } else {
                next() * 3.0
            };
            let (mut b, mut reference) = if round % 4 == 3 {
                let velocity = DVec2::from_angle(next() * 6.3) * next() * 2.0;
                (
                    Trajectory::linear(b0, velocity),
                    Trajectory::linear(b0, velocity),
                )
            } else {
                (
                    Trajectory::on_rail(&rb, plan),
                    Trajectory::on_rail(&rb, plan),
                )
            };
            let contact = sweep_pair(&samples, &mut b, radii, cutoff);
            let expected = sweep_pair_placing_every_step(&samples, &mut reference, radii, cutoff);
            assert_eq!(contact, expected);
            if contact.is_some() {
                found += 1;
            } else {
                clear += 1;
            }
        }
        assert!(found > 200 && clear > 300, "{found} {clear}");
    }

    #[test]
    fn the_sweep_ends_with_the_rail() {
        let ra = rail((0.0, 0.0), (2.0, 0.0));
        let mut a = Trajectory::on_rail(&ra, MotionPlan::cruising(0.0, 1.0));
        let mut samples = Vec::new();
        sample_agent(&mut a, 0.4, 10.0, &mut samples);
        assert!((samples.last().unwrap().t - 2.0).abs() < 1e-12);
        let mut b = Trajectory::fixed(DVec2::new(4.0, 0.0));
        assert!(sweep_pair(&samples, &mut b, 0.8, f64::INFINITY).is_none());
    }
}
