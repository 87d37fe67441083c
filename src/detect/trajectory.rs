//! Predicted motion: where an agent will be `t` seconds from now, as the detector assumes it.

use glam::DVec2;

use crate::rail::{Rail, RailCursor};

/// A prediction in three parts: standing for `still` seconds, then `transition_time` seconds
/// of a start or stop transition at even acceleration (from `transition_speed`, changing by
/// `transition_acceleration` m/s each second), then `speed` until the end of the rail, where it
/// stands. Without a rail the agent stands at `position` throughout.
///
/// The world predicts a start transition at even acceleration and a stop at even deceleration
/// (`world::plan_of`; an agent's check of its own stop, `world::stop_plan_even`, the same): that
/// is how the default transition and the gaits describe them and the built-in host plays them,
/// where the chapter's average velocity (22.3) is up to a quarter of their distance off
/// (docs/ALGORITHM.md, "Prediction", sessions 31 and 41).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionPlan {
    /// Arclength now, metres.
    pub s: f64,
    /// Leading time without motion (turning on the spot), seconds.
    pub still: f64,
    /// Duration of the transition part, seconds.
    pub transition_time: f64,
    /// Speed at the beginning of the transition part, m/s (≥ 0).
    pub transition_speed: f64,
    /// Acceleration over the transition part, m/s² (negative in a stop); the speed stays
    /// ≥ 0 throughout it.
    pub transition_acceleration: f64,
    /// Speed after the transition, m/s (0: it stands once the transition is over).
    pub speed: f64,
}

impl MotionPlan {
    /// Standing at `s`.
    pub fn standing(s: f64) -> MotionPlan {
        MotionPlan {
            s,
            still: 0.0,
            transition_time: 0.0,
            transition_speed: 0.0,
            transition_acceleration: 0.0,
            speed: 0.0,
        }
    }

    /// Cruising at `speed` from `s`.
    pub fn cruising(s: f64, speed: f64) -> MotionPlan {
        MotionPlan {
            speed,
            ..MotionPlan::standing(s)
        }
    }

    /// Arclength `t` seconds from now (not clamped to the rail).
    #[inline]
    pub fn s_at(&self, t: f64) -> f64 {
        let t = t.max(0.0);
        if t <= self.still {
            return self.s;
        }
        let t = t - self.still;
        if t <= self.transition_time {
            return self.s + self.transition_distance_by(t);
        }
        self.s + self.transition_distance() + self.speed * (t - self.transition_time)
    }

    /// Speed `t` seconds from now, m/s: 0 while still, the transition's even change, then
    /// `speed` (at the end of the rail too: the plan does not know where that is).
    pub fn speed_at(&self, t: f64) -> f64 {
        let t = t.max(0.0);
        if t <= self.still {
            return 0.0;
        }
        let t = t - self.still;
        if t <= self.transition_time {
            return (self.transition_speed + self.transition_acceleration * t).max(0.0);
        }
        self.speed
    }

    /// Distance covered `t` seconds into the transition part (`0 ≤ t ≤ transition_time`),
    /// metres.
    #[inline]
    fn transition_distance_by(&self, t: f64) -> f64 {
        (self.transition_speed + 0.5 * self.transition_acceleration * t) * t
    }

    /// Distance covered by the whole transition part, metres.
    pub fn transition_distance(&self) -> f64 {
        self.transition_distance_by(self.transition_time)
    }

    /// Speed at the end of the transition part, m/s.
    pub fn transition_end_speed(&self) -> f64 {
        (self.transition_speed + self.transition_acceleration * self.transition_time).max(0.0)
    }

    /// The fastest speed anywhere in the plan, m/s (the transition's speed changes evenly, so
    /// it is fastest at one of its ends).
    pub fn max_speed(&self) -> f64 {
        self.speed
            .max(self.transition_speed)
            .max(self.transition_end_speed())
    }

    /// Seconds into the transition part at which it has covered `distance` metres
    /// (`0 ≤ distance ≤ transition_distance()`): the root of `v₀t + at²/2 = d` written as
    /// `2d / (v₀ + √(v₀² + 2ad))`, which has no cancellation for either sign of `a`
    /// (Numerical Recipes, 3rd ed., §5.6).
    fn transition_time_to(&self, distance: f64) -> f64 {
        let v0 = self.transition_speed;
        if self.transition_acceleration == 0.0 {
            return distance / v0;
        }
        let root = (v0 * v0 + 2.0 * self.transition_acceleration * distance)
            .max(0.0)
            .sqrt();
        let denominator = v0 + root;
        if denominator > 0.0 {
            (2.0 * distance / denominator).min(self.transition_time)
        } else {
            0.0
        }
    }

    /// Whether the agent moves at all.
    pub fn moves(&self) -> bool {
        self.max_speed() > 0.0
    }
}

/// A [`MotionPlan`] bound to the rail it runs on, or a straight line at a constant velocity
/// (a free-steering agent, or a fixed position).
#[derive(Clone, Debug)]
pub struct Trajectory<'a> {
    plan: MotionPlan,
    cursor: Option<RailCursor<'a>>,
    position: DVec2,
    velocity: DVec2,
}

impl<'a> Trajectory<'a> {
    /// An agent following `plan` on `rail`.
    pub fn on_rail(rail: &'a Rail, plan: MotionPlan) -> Trajectory<'a> {
        Trajectory {
            plan,
            cursor: Some(rail.cursor()),
            position: rail.position(plan.s),
            velocity: DVec2::ZERO,
        }
    }

    /// [`Trajectory::on_rail`] for an agent whose position now, `rail.position(plan.s)`, is
    /// known already (the world keeps it): saves a binary search per collider and sweep.
    pub fn on_rail_at(rail: &'a Rail, plan: MotionPlan, position: DVec2) -> Trajectory<'a> {
        Trajectory {
            plan,
            cursor: Some(rail.cursor()),
            position,
            velocity: DVec2::ZERO,
        }
    }

    /// An agent standing at `position`.
    pub fn fixed(position: DVec2) -> Trajectory<'a> {
        Trajectory::linear(position, DVec2::ZERO)
    }

    /// An agent moving from `position` at the constant `velocity` (m/s): how rail agents
    /// predict a free-steering agent.
    pub fn linear(position: DVec2, velocity: DVec2) -> Trajectory<'a> {
        Trajectory {
            plan: MotionPlan::cruising(0.0, velocity.length()),
            cursor: None,
            position,
            velocity,
        }
    }

    /// Position `t` seconds from now. Cheapest with increasing `t` (the rail cursor walks on).
    #[inline]
    pub fn position(&mut self, t: f64) -> DVec2 {
        match &mut self.cursor {
            Some(cursor) if self.plan.moves() => {
                let s = self.plan.s_at(t);
                // Not moved yet (standing still, turning on the spot, a delayed start): where
                // it is now, `rail.position(plan.s)`, which the cursor would give bit for bit.
                // Most samples of a delayed start check are such (plaza, 1,000 agents:
                // docs/PERFORMANCE.md, session 40).
                if s == self.plan.s {
                    self.position
                } else {
                    cursor.position(s)
                }
            }
            Some(_) => self.position,
            None => self.position + self.velocity * t.max(0.0),
        }
    }

    /// Arclength `t` seconds from now, clamped to the rail.
    pub fn s_at(&self, t: f64) -> f64 {
        match &self.cursor {
            Some(cursor) => self.plan.s_at(t).clamp(0.0, cursor.rail().length()),
            None => 0.0,
        }
    }

    /// The plan.
    pub fn plan(&self) -> &MotionPlan {
        &self.plan
    }

    /// Seconds until it reaches the end of its rail and stands (infinite if never).
    pub fn time_to_end(&self) -> f64 {
        let Some(cursor) = &self.cursor else {
            return 0.0;
        };
        let p = &self.plan;
        let left = cursor.rail().length() - p.s;
        if left <= 0.0 {
            return 0.0;
        }
        let in_transition = p.transition_distance();
        if left <= in_transition {
            return p.still + p.transition_time_to(left);
        }
        if p.speed > 0.0 {
            p.still + p.transition_time + (left - in_transition) / p.speed
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A start from rest: 0.2 m in 0.4 s (a = 2.5 m/s²) after 0.2 s turning, then 1 m/s.
    const START: MotionPlan = MotionPlan {
        s: 0.0,
        still: 0.2,
        transition_time: 0.4,
        transition_speed: 0.0,
        transition_acceleration: 2.5,
        speed: 1.0,
    };

    #[test]
    fn plan_parts_chain_continuously() {
        let p = MotionPlan {
            s: 1.0,
            still: 0.5,
            transition_time: 1.0,
            transition_speed: 0.5,
            transition_acceleration: 0.0,
            speed: 2.0,
        };
        assert_eq!(p.s_at(0.0), 1.0);
        assert_eq!(p.s_at(0.5), 1.0);
        assert!((p.s_at(1.0) - 1.25).abs() < 1e-12);
        assert!((p.s_at(1.5) - 1.5).abs() < 1e-12);
        assert!((p.s_at(2.5) - 3.5).abs() < 1e-12);
    }

    #[test]
    fn the_speed_is_the_derivative_of_the_arclength() {
        // A stop from 1.4 m/s over 0.5 s after 0.1 s still (a = -2.8 m/s²), then standing;
        // and a start that ends at 1 m/s. The speed matches the arclength's slope (central
        // differences, exact for the quadratic parts away from the joints).
        let stop = MotionPlan {
            s: 2.0,
            still: 0.1,
            transition_time: 0.5,
            transition_speed: 1.4,
            transition_acceleration: -2.8,
            speed: 0.0,
        };
        let start = START;
        for p in [stop, start] {
            assert_eq!(p.speed_at(0.05), 0.0);
            for t in [0.15, 0.3, 0.45, 0.55, 0.8, 1.5] {
                let h = 1e-6;
                let slope = (p.s_at(t + h) - p.s_at(t - h)) / (2.0 * h);
                assert!((p.speed_at(t) - slope).abs() < 1e-6, "{p:?} at {t}");
            }
        }
    }

    #[test]
    fn a_transition_accelerates_evenly_and_its_time_to_a_distance_inverts_it() {
        let start = START;
        assert_eq!(start.s_at(0.2), 0.0);
        assert!(
            (start.s_at(0.4) - 0.05).abs() < 1e-12,
            "a quarter of the way at half time"
        );
        assert!((start.transition_distance() - 0.2).abs() < 1e-12);
        assert!((start.s_at(1.6) - 1.2).abs() < 1e-12);
        assert!((start.max_speed() - 1.0).abs() < 1e-12);
        // A stop from 1.4 m/s over 0.56 s: three quarters of its 0.392 m at half time.
        let stop = MotionPlan {
            s: 2.0,
            still: 0.0,
            transition_time: 0.56,
            transition_speed: 1.4,
            transition_acceleration: -2.5,
            speed: 0.0,
        };
        assert!((stop.s_at(0.28) - (2.0 + 0.75 * 0.392)).abs() < 1e-12);
        assert!((stop.s_at(9.0) - 2.392).abs() < 1e-12);
        assert_eq!(stop.transition_end_speed(), 0.0);
        assert!((stop.max_speed() - 1.4).abs() < 1e-12);
        // The time to a distance inverts the distance at a time, for both signs of a.
        let rail = Rail::from_points(&[DVec2::ZERO, DVec2::new(3.0, 0.0)]).unwrap();
        for plan in [start, stop] {
            for k in 1..=9 {
                let t = plan.still + plan.transition_time * k as f64 / 10.0;
                let at = MotionPlan { s: 0.0, ..plan };
                let end = at.s_at(t);
                let short = Rail::from_points(&[DVec2::ZERO, DVec2::new(end, 0.0)]).unwrap();
                let time = Trajectory::on_rail(&short, at).time_to_end();
                assert!((time - t).abs() < 1e-9, "{time} against {t}");
            }
            assert!(
                Trajectory::on_rail(&rail, MotionPlan { s: 0.0, ..plan })
                    .time_to_end()
                    .is_finite()
                    == (plan.speed > 0.0)
            );
        }
    }

    #[test]
    fn trajectory_stands_at_the_end_of_its_rail() {
        let rail = Rail::from_points(&[DVec2::ZERO, DVec2::new(2.0, 0.0)]).unwrap();
        let mut t = Trajectory::on_rail(&rail, MotionPlan::cruising(0.0, 1.0));
        assert!((t.position(1.0).x - 1.0).abs() < 1e-12);
        assert!((t.position(5.0).x - 2.0).abs() < 1e-12);
        assert!((t.time_to_end() - 2.0).abs() < 1e-12);
    }
}
