//! Predicted motion: where an agent will be `t` seconds from now, as the detector assumes it.

use glam::DVec2;

use crate::rail::{Rail, RailCursor};

/// A prediction in three parts: standing for `still` seconds, then `transition_time` seconds
/// at the constant `transition_speed` (the average velocity of a start or stop transition,
/// chapter 22.3), then `speed` until the end of the rail, where it stands. Without a rail the
/// agent stands at `position` throughout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionPlan {
    /// Arclength now, metres.
    pub s: f64,
    /// Leading time without motion (turning on the spot), seconds.
    pub still: f64,
    /// Duration of the averaged transition part, seconds.
    pub transition_time: f64,
    /// Average speed during the transition, m/s.
    pub transition_speed: f64,
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
            return self.s + self.transition_speed * t;
        }
        self.s
            + self.transition_speed * self.transition_time
            + self.speed * (t - self.transition_time)
    }

    /// The fastest speed anywhere in the plan, m/s.
    pub fn max_speed(&self) -> f64 {
        self.speed.max(self.transition_speed)
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
            Some(cursor) if self.plan.moves() => cursor.position(self.plan.s_at(t)),
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
        let in_transition = p.transition_speed * p.transition_time;
        if left <= in_transition {
            return p.still + left / p.transition_speed;
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

    #[test]
    fn plan_parts_chain_continuously() {
        let p = MotionPlan {
            s: 1.0,
            still: 0.5,
            transition_time: 1.0,
            transition_speed: 0.5,
            speed: 2.0,
        };
        assert_eq!(p.s_at(0.0), 1.0);
        assert_eq!(p.s_at(0.5), 1.0);
        assert!((p.s_at(1.0) - 1.25).abs() < 1e-12);
        assert!((p.s_at(1.5) - 1.5).abs() < 1e-12);
        assert!((p.s_at(2.5) - 3.5).abs() < 1e-12);
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
