//! Time-to-collision forces for free-steering agents: the anticipatory model of Guy & Karamouzas
//! (*Guide to Anticipatory Collision Avoidance*, Game AI Pro, ch. 19) and the power law of
//! Karamouzas, Skinner & Guy (*Universal power law governing pedestrian interactions*, PRL 113,
//! 238701, 2014).
//!
//! Each neighbour (and each wall, as a static neighbour) on a collision course within the time
//! horizon pushes the agent along the contact normal at the predicted time of collision τ: the
//! unit vector from the neighbour's predicted position to the agent's, `d̂`. The two models only
//! differ in the magnitude:
//!
//! * [`TtcModel::Linear`] (chapter eq. 19.6): `(t_H − τ) / τ`.
//! * [`TtcModel::PowerLaw`]: `−∇ₓ E` of the energy `E(τ) = k τ⁻² e^(−τ/τ₀)`, where `x` is the
//!   agent's position relative to the neighbour. Differentiating `|x + v τ|² = R²` implicitly
//!   (`v` the relative velocity, `R` the radius sum) gives `∇ₓτ = d̂ / (−d̂·v)`, and
//!   `dE/dτ = −k e^(−τ/τ₀) τ⁻² (2/τ + 1/τ₀)`, so
//!   `F = k e^(−τ/τ₀) (2/τ + 1/τ₀) / (τ² (−d̂·v)) · d̂`. With `−d̂·v = √D / R`,
//!   `D = (x·v)² − |v|² (|x|² − R²)`, this is the paper's supplementary formula
//!   `−k e^(−τ/τ₀)/(|v|² τ²) (2/τ + 1/τ₀) [v − (|v|² x − (x·v) v)/√D]`; a unit test checks it
//!   against a central finite difference of the energy. The same `∇ₓτ = d̂ / (−d̂·v)` holds for a
//!   wall (flat side or end cap), so walls use the same formula.
//!
//! Every avoidance force is capped at [`TtcConfig::max_force`] (chapter 19.3.2.3), scaled by the
//! neighbour's [`TtcNeighbour::responsibility`], added to the goal force `k (v_pref − v)` (eq.
//! 19.3), and the total is capped at `max_force` again. Everything is `f64`, allocation-free and
//! deterministic: the same inputs give bit-identical outputs. Accuracy: times to collision are
//! exact up to ordinary rounding (the smaller root is computed as `c / (b + √disc)`, which does
//! not cancel); no robust predicates.

use glam::DVec2;

use crate::geometry::{closest_on_segment, left_normal};

/// τ is clamped below by this in the force magnitudes, seconds, so that an imminent collision
/// gives a large finite force rather than ∞ (the chapter's listing 19.3 adds 0.001 s instead).
const TAU_EPSILON: f64 = 1e-3;

/// Largest [`TtcConfig::max_neighbours`]: the selected neighbours live in a stack buffer of this
/// size, so that no call allocates.
pub const TTC_MAX_NEIGHBOURS_LIMIT: usize = 64;

/// A lateral share of the contact normal below this counts as exactly head-on for
/// [`TtcConfig::head_on_bias`] (the side is then the agent's right).
const HEAD_ON_EXACT: f64 = 1e-9;

/// Earliest time `τ ≥ 0`, seconds, at which two discs moving at constant velocity touch (chapter
/// 19.2.2, eq. 19.2 and listing 19.2).
///
/// `relative_position` and `relative_velocity` are those of one disc relative to the other
/// (`x_B − x_A`, `v_B − v_A`, metres and m/s; both the other way round give the same answer);
/// `radius_sum` is `r_A + r_B`, metres, `≥ 0`.
///
/// Returns `Some(0.0)` when the discs already overlap (centre distance `< radius_sum`), `Some(τ)`
/// for a future first contact, and `None` when they never touch: moving apart, no relative
/// motion, a grazing (double-root) contact, a negative `radius_sum`, or any non-finite input or
/// result. Exact up to rounding.
pub fn time_to_collision(
    relative_position: DVec2,
    relative_velocity: DVec2,
    radius_sum: f64,
) -> Option<f64> {
    let valid = relative_position.is_finite()
        && relative_velocity.is_finite()
        && radius_sum.is_finite()
        && radius_sum >= 0.0;
    if !valid {
        return None;
    }
    let c = relative_position.length_squared() - radius_sum * radius_sum;
    if c < 0.0 {
        return Some(0.0);
    }
    let a = relative_velocity.length_squared();
    // The chapter's b = −w·ν: positive when closing.
    let b = -relative_position.dot(relative_velocity);
    if !(a > 0.0 && b > 0.0) {
        return None;
    }
    let discriminant = b * b - a * c;
    if discriminant.is_nan() || discriminant <= 0.0 {
        return None;
    }
    // (b − √disc) / a without cancellation: the product of the roots is c / a.
    let tau = c / (b + discriminant.sqrt());
    (tau.is_finite() && tau >= 0.0).then_some(tau)
}

/// Earliest time `τ ≥ 0`, seconds, at which a disc of `radius` (metres, `≥ 0`) centred at
/// `position` and moving at constant `velocity` (m/s) touches the static segment `a b`: the ray
/// of its centre against the capsule of that radius around the segment (the two end discs and
/// the two sides offset by `radius`).
///
/// Returns `Some(0.0)` when the disc already overlaps the segment (distance `< radius`), and
/// `None` when it never touches (moving away, parallel outside the capsule, grazing an end cap,
/// a negative radius, or any non-finite input or result). A degenerate segment (`a == b`) is a
/// point. Exact up to rounding.
pub fn time_to_collision_with_segment(
    position: DVec2,
    velocity: DVec2,
    radius: f64,
    a: DVec2,
    b: DVec2,
) -> Option<f64> {
    if !(position.is_finite()
        && velocity.is_finite()
        && a.is_finite()
        && b.is_finite()
        && radius.is_finite()
        && radius >= 0.0)
    {
        return None;
    }
    let (closest, _) = closest_on_segment(position, a, b);
    if position.distance_squared(closest) < radius * radius {
        return Some(0.0);
    }
    let end_a = time_to_collision(a - position, -velocity, radius);
    let end_b = time_to_collision(b - position, -velocity, radius);
    let mut best = earliest(end_a, end_b);
    let along = b - a;
    let length = along.length();
    if length > 0.0 {
        let normal = left_normal(along) / length;
        let height = normal.dot(position - a);
        let normal_speed = normal.dot(velocity);
        // Gap to the offset side facing the disc, and the closing speed towards it.
        let (gap, closing) = if height >= 0.0 {
            (height - radius, -normal_speed)
        } else {
            (-height - radius, normal_speed)
        };
        if gap >= 0.0 && closing > 0.0 {
            let t = gap / closing;
            let s = (position + velocity * t - a).dot(along) / (length * length);
            if t.is_finite() && (0.0..=1.0).contains(&s) {
                best = earliest(best, Some(t));
            }
        }
    }
    best.filter(|t| t.is_finite())
}

/// The smaller of two optional times.
fn earliest(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// How the avoidance force's magnitude depends on the time to collision τ. The direction is the
/// contact normal at τ for both (see the module documentation).
///
/// In a scenario file: `{ "kind": "linear" }` or `{ "kind": "power_law", "k": 1.5, "tau0": 3 }`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TtcModel {
    /// `(t_H − τ) / max(τ, 0.001 s)`, m/s² (Guy & Karamouzas, eq. 19.6): zero at the horizon,
    /// growing without bound as τ → 0 (then capped at [`TtcConfig::max_force`]).
    Linear,
    /// `−∇ₓ (k τ⁻² e^(−τ/τ₀))` (Karamouzas, Skinner & Guy 2014), truncated at the time
    /// horizon `t_H` (neighbours with `τ > t_H` are ignored), then capped.
    PowerLaw {
        /// Interaction strength `k`, m²/s². Range (0, 100]; the paper's value is 1.5.
        k: f64,
        /// Interaction time scale `τ₀` (exponential cut-off), seconds. Range (0, 60]; the
        /// paper's value is 3.
        tau0: f64,
    },
}

impl TtcModel {
    /// The power law with the paper's fitted constants: `k = 1.5 m²/s²`, `τ₀ = 3 s`.
    pub const fn power_law() -> TtcModel {
        TtcModel::PowerLaw { k: 1.5, tau0: 3.0 }
    }
}

/// A [`TtcConfig`] field out of its documented range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("ttc.{field} = {value} is out of range {range}")]
pub struct TtcConfigError {
    /// The field's name (`model.k` and `model.tau0` for the power law's constants).
    pub field: &'static str,
    /// The rejected value.
    pub value: f64,
    /// The documented range.
    pub range: &'static str,
}

/// Tunables of the time-to-collision forces. Defaults follow the chapter's examples. A
/// scenario's `avoidance.ttc` object overrides them by field name.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TtcConfig {
    /// Goal-force gain `k` in `k (v_pref − v)`, 1/s. Range [0, 100]; default 2 (chapter
    /// 19.3.1: "a k of 2 balances well between agents reaching their goal and avoiding
    /// collisions").
    pub goal_gain: f64,
    /// Time horizon `t_H`: collisions predicted later than this are ignored, seconds. Range
    /// (0, 60]; default 4 (chapter 19.3.4: 4 s gives anticipatory, collision-free motion).
    pub time_horizon: f64,
    /// Cap on each avoidance force's magnitude (chapter 19.3.2.3, listing 19.3) and on the
    /// total returned acceleration, m/s² (unit mass). Range (0, 1000]; default 20 (the
    /// chapter's value).
    pub max_force: f64,
    /// Neighbours whose centre, and walls whose closest point, is farther than this from the
    /// agent's centre are ignored, metres. Range (0, 1000]; default 10 (about 4 s at 2.5 m/s,
    /// the chapter's "distance the agent can travel given its time horizon").
    pub neighbour_distance: f64,
    /// At most this many neighbours push the agent: those with the earliest τ within the
    /// horizon (ties by slice order). Walls are not counted. Range [1, 64]
    /// ([`TTC_MAX_NEIGHBOURS_LIMIT`]); default 10 (as in RVO2).
    pub max_neighbours: usize,
    /// Smallest sideways share of an avoidance direction (the sine of its angle from the line
    /// of relative motion), dimensionless. Exactly symmetric head-on encounters, common when
    /// paths follow the same corridor centre line, otherwise push the agents straight back and
    /// they stall facing each other; with a bias, a direction with less sideways share gets
    /// exactly this much, on the side it already leans to, or on the agent's right of its
    /// relative velocity when exactly head-on (so both agents keep right; an exactly aligned
    /// overtake passes on the slower agent's right). Range [0, 0.9];
    /// 0 gives the chapter's and the paper's direction unchanged; default 0.2 (an addition
    /// of this crate, not in either source).
    pub head_on_bias: f64,
    /// Force magnitude model. Default [`TtcModel::Linear`] (the chapter's).
    pub model: TtcModel,
}

impl Default for TtcConfig {
    fn default() -> Self {
        TtcConfig {
            goal_gain: 2.0,
            time_horizon: 4.0,
            max_force: 20.0,
            neighbour_distance: 10.0,
            max_neighbours: 10,
            head_on_bias: 0.2,
            model: TtcModel::Linear,
        }
    }
}

impl TtcConfig {
    /// Check every field against its documented range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), TtcConfigError> {
        // (field, value, low, high, low excluded, range as documented)
        let check = |field: &'static str, value: f64, lo: f64, hi: f64, open: bool| {
            let ok =
                value.is_finite() && value <= hi && if open { value > lo } else { value >= lo };
            if ok {
                return Ok(());
            }
            let range = match (field, open) {
                ("goal_gain", _) => "[0, 100]",
                ("max_neighbours", _) => "[1, 64]",
                ("head_on_bias", _) => "[0, 0.9]",
                ("max_force" | "neighbour_distance", _) => "(0, 1000]",
                ("time_horizon" | "model.tau0", _) => "(0, 60]",
                _ => "(0, 100]",
            };
            Err(TtcConfigError {
                field,
                value,
                range,
            })
        };
        check("goal_gain", self.goal_gain, 0.0, 100.0, false)?;
        check("time_horizon", self.time_horizon, 0.0, 60.0, true)?;
        check("max_force", self.max_force, 0.0, 1000.0, true)?;
        check(
            "neighbour_distance",
            self.neighbour_distance,
            0.0,
            1000.0,
            true,
        )?;
        let limit = TTC_MAX_NEIGHBOURS_LIMIT as f64;
        check(
            "max_neighbours",
            self.max_neighbours as f64,
            1.0,
            limit,
            false,
        )?;
        check("head_on_bias", self.head_on_bias, 0.0, 0.9, false)?;
        if let TtcModel::PowerLaw { k, tau0 } = self.model {
            check("model.k", k, 0.0, 100.0, true)?;
            check("model.tau0", tau0, 0.0, 60.0, true)?;
        }
        Ok(())
    }
}

/// The agent being steered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TtcAgent {
    /// Centre, metres.
    pub position: DVec2,
    /// Current velocity, m/s.
    pub velocity: DVec2,
    /// Goal velocity the goal force pulls towards, m/s.
    pub preferred_velocity: DVec2,
    /// Disc radius, metres, `≥ 0`.
    pub radius: f64,
    /// Speed cap of [`ttc_velocity`], m/s, `≥ 0`.
    pub max_speed: f64,
}

/// A neighbouring disc the agent avoids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TtcNeighbour {
    /// Centre, metres.
    pub position: DVec2,
    /// Current velocity, m/s (extrapolated at constant velocity).
    pub velocity: DVec2,
    /// Disc radius, metres, `≥ 0`.
    pub radius: f64,
    /// Share of the avoidance this agent takes on, dimensionless, typically in [0, 1]: the
    /// neighbour's avoidance force is multiplied by it after the per-neighbour cap, so the
    /// force from one neighbour is at most `responsibility · max_force`. 1.0 is the chapter's
    /// model (every agent avoids fully, both sides of a pair react) and the right value for
    /// neighbours that do not react (rail agents, players); two free-steering agents may pass
    /// 0.5 each for reciprocal sharing. Negative or NaN counts as 0.
    pub responsibility: f64,
}

/// Acceleration (force on unit mass), m/s², of the time-to-collision model for `agent` among
/// `neighbours` and static wall segments `walls` (pairs of end points, metres).
///
/// The goal force `goal_gain · (v_pref − v)` plus, for each of the `max_neighbours` neighbours
/// with the earliest τ ≤ `time_horizon` within `neighbour_distance`, and for each wall within
/// `neighbour_distance` with τ ≤ `time_horizon`, an avoidance force along the contact normal at
/// τ (from the neighbour's predicted position, or the wall's point closest to the agent's
/// predicted position, to the agent's), whose magnitude is given by [`TtcConfig::model`] with τ
/// clamped below by 0.001 s, capped at `max_force` (chapter 19.3.2.3), and multiplied by the
/// neighbour's responsibility (1 for walls). The direction then gets the
/// [`TtcConfig::head_on_bias`]. The total is capped at `max_force` as well, so the result never
/// exceeds it (the chapter caps only each avoidance force).
///
/// Overlaps (τ = 0) push at `max_force` straight away from the neighbour's current centre (or the
/// wall's closest point); the power law's gradient is undefined there. When that direction is
/// zero (coincident centres, a centre on the wall), the push goes along the left normal of the
/// agent's preferred velocity, or along +x when that is zero: deterministic, and never NaN for
/// finite input. A zero radius sum or zero relative velocity gives no avoidance force (τ is
/// undefined).
pub fn ttc_acceleration(
    agent: &TtcAgent,
    neighbours: &[TtcNeighbour],
    walls: &[(DVec2, DVec2)],
    config: &TtcConfig,
) -> DVec2 {
    let fallback = left_normal(agent.preferred_velocity)
        .try_normalize()
        .unwrap_or(DVec2::X);
    let mut force = (agent.preferred_velocity - agent.velocity) * config.goal_gain;

    // The max_neighbours earliest collisions, sorted by (τ, index).
    let capacity = config.max_neighbours.min(TTC_MAX_NEIGHBOURS_LIMIT);
    let mut selected = [(0.0_f64, 0_usize); TTC_MAX_NEIGHBOURS_LIMIT];
    let mut count = 0;
    let range2 = config.neighbour_distance * config.neighbour_distance;
    for (index, neighbour) in neighbours.iter().enumerate() {
        let offset = agent.position - neighbour.position;
        let near = offset.length_squared() <= range2;
        if !near {
            continue;
        }
        let relative_velocity = agent.velocity - neighbour.velocity;
        let Some(tau) =
            time_to_collision(offset, relative_velocity, agent.radius + neighbour.radius)
        else {
            continue;
        };
        if tau > config.time_horizon || capacity == 0 {
            continue;
        }
        if count == capacity && tau >= selected[count - 1].0 {
            continue;
        }
        // Insert after every entry with τ ≤ this one (stable by index), dropping the last when full.
        let mut slot = count.min(capacity - 1);
        while slot > 0 && selected[slot - 1].0 > tau {
            selected[slot] = selected[slot - 1];
            slot -= 1;
        }
        selected[slot] = (tau, index);
        count = (count + 1).min(capacity);
    }
    for &(tau, index) in &selected[..count] {
        let neighbour = &neighbours[index];
        let relative_velocity = agent.velocity - neighbour.velocity;
        let separation = agent.position - neighbour.position + relative_velocity * tau;
        let push = avoidance(config, fallback, tau, separation, relative_velocity);
        force += push * neighbour.responsibility.max(0.0);
    }

    for &(a, b) in walls {
        let (closest, _) = closest_on_segment(agent.position, a, b);
        let near = agent.position.distance_squared(closest) <= range2;
        if !near {
            continue;
        }
        let Some(tau) =
            time_to_collision_with_segment(agent.position, agent.velocity, agent.radius, a, b)
        else {
            continue;
        };
        if tau > config.time_horizon {
            continue;
        }
        let predicted = agent.position + agent.velocity * tau;
        let separation = predicted - closest_on_segment(predicted, a, b).0;
        force += avoidance(config, fallback, tau, separation, agent.velocity);
    }

    if force.is_finite() {
        force.clamp_length_max(config.max_force)
    } else {
        DVec2::ZERO
    }
}

/// New velocity after one explicit Euler step of `dt` seconds (chapter eq. 19.4):
/// `v + ttc_acceleration(..) · dt`, clamped to length `agent.max_speed` (m/s). Never NaN for
/// finite input (see [`ttc_acceleration`] for the degenerate cases); a negative `max_speed` counts
/// as 0.
pub fn ttc_velocity(
    agent: &TtcAgent,
    neighbours: &[TtcNeighbour],
    walls: &[(DVec2, DVec2)],
    config: &TtcConfig,
    dt: f64,
) -> DVec2 {
    let acceleration = ttc_acceleration(agent, neighbours, walls, config);
    let velocity = agent.velocity + acceleration * dt;
    let max_speed = agent.max_speed.max(0.0);
    if velocity.is_finite() {
        velocity.clamp_length_max(max_speed)
    } else {
        agent.velocity.clamp_length_max(max_speed)
    }
}

/// One avoidance force, capped at `max_force`, before the responsibility: `separation` is the
/// agent's position relative to the obstacle at τ, `relative_velocity` the agent's velocity
/// relative to it, `fallback` the unit direction used when `separation` is zero.
fn avoidance(
    config: &TtcConfig,
    fallback: DVec2,
    tau: f64,
    separation: DVec2,
    relative_velocity: DVec2,
) -> DVec2 {
    let normal = separation.try_normalize().unwrap_or(fallback);
    if tau <= 0.0 {
        return normal * config.max_force;
    }
    let magnitude = model_magnitude(
        config.model,
        config.time_horizon,
        tau,
        normal,
        relative_velocity,
    )
    .min(config.max_force);
    let direction = bias_sideways(normal, relative_velocity, config.head_on_bias);
    direction * magnitude.max(0.0)
}

/// Uncapped avoidance magnitude of `model` for a collision at `tau > 0` with unit contact normal
/// `normal` (obstacle to agent) and the agent's velocity relative to the obstacle, m/s². τ is
/// clamped below by [`TAU_EPSILON`]; a zero approach speed along the normal (grazing) gives ∞.
fn model_magnitude(
    model: TtcModel,
    time_horizon: f64,
    tau: f64,
    normal: DVec2,
    relative_velocity: DVec2,
) -> f64 {
    let tau = tau.max(TAU_EPSILON);
    match model {
        TtcModel::Linear => (time_horizon - tau) / tau,
        TtcModel::PowerLaw { k, tau0 } => {
            // −∇ₓE = −E'(τ) ∇ₓτ with ∇ₓτ = n / (−n·v).
            let approach = -normal.dot(relative_velocity);
            let slope = k * (-tau / tau0).exp() * (2.0 / tau + 1.0 / tau0) / (tau * tau);
            if approach > 0.0 {
                let magnitude = slope / approach;
                if magnitude.is_nan() {
                    f64::INFINITY
                } else {
                    magnitude
                }
            } else {
                f64::INFINITY
            }
        }
    }
}

/// `normal` with at least `bias` of its length across `relative_velocity` (see
/// [`TtcConfig::head_on_bias`]): unchanged when it already has that much or when there is no
/// relative motion.
fn bias_sideways(normal: DVec2, relative_velocity: DVec2, bias: f64) -> DVec2 {
    if bias.is_nan() || bias <= 0.0 {
        return normal;
    }
    let Some(forward) = relative_velocity.try_normalize() else {
        return normal;
    };
    let along = normal.dot(forward);
    let lateral = normal - forward * along;
    let share = lateral.length();
    if share >= bias {
        return normal;
    }
    let side = if share > HEAD_ON_EXACT {
        lateral / share
    } else {
        -left_normal(forward)
    };
    let back = if along < 0.0 { -1.0 } else { 1.0 };
    forward * (back * (1.0 - bias * bias).sqrt()) + side * bias
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    fn agent(position: DVec2, preferred_velocity: DVec2) -> TtcAgent {
        TtcAgent {
            position,
            velocity: preferred_velocity,
            preferred_velocity,
            radius: 0.5,
            max_speed: 2.0,
        }
    }

    fn as_neighbour(a: &TtcAgent) -> TtcNeighbour {
        TtcNeighbour {
            position: a.position,
            velocity: a.velocity,
            radius: a.radius,
            responsibility: 1.0,
        }
    }

    #[test]
    fn time_to_collision_known_cases() {
        // Head-on at 2 m/s closing from 10 m, radius sum 1: (10 − 1) / 2.
        assert_eq!(time_to_collision(v(10., 0.), v(-2., 0.), 1.0), Some(4.5));
        // Either sign convention gives the same answer.
        assert_eq!(time_to_collision(v(-10., 0.), v(2., 0.), 1.0), Some(4.5));
        // Moving apart, standing still, passing wide, grazing.
        assert_eq!(time_to_collision(v(10., 0.), v(2., 0.), 1.0), None);
        assert_eq!(time_to_collision(v(10., 0.), v(0., 0.), 1.0), None);
        assert_eq!(time_to_collision(v(10., 3.), v(-2., 0.), 1.0), None);
        assert_eq!(time_to_collision(v(10., 1.), v(-2., 0.), 1.0), None);
        // Offset by 0.6 with radius sum 1: contact 0.8 before the centres align.
        let tau = time_to_collision(v(10., 0.6), v(-2., 0.), 1.0).unwrap();
        assert!((tau - (10.0 - 0.8) / 2.0).abs() < 1e-12);
        // Overlapping, even when moving apart.
        assert_eq!(time_to_collision(v(0.5, 0.), v(3., 0.), 1.0), Some(0.0));
        assert_eq!(time_to_collision(v(0., 0.), v(0., 0.), 1.0), Some(0.0));
        // Degenerate and non-finite input.
        assert_eq!(time_to_collision(v(0., 0.), v(0., 0.), 0.0), None);
        assert_eq!(time_to_collision(v(10., 0.), v(-2., 0.), -1.0), None);
        assert_eq!(time_to_collision(v(f64::NAN, 0.), v(-2., 0.), 1.0), None);
        assert_eq!(
            time_to_collision(v(10., 0.), v(f64::INFINITY, 0.), 1.0),
            None
        );
        assert_eq!(time_to_collision(v(1e300, 0.), v(-1e300, 0.), 1.0), None);
    }

    #[test]
    fn time_to_collision_with_segment_cases() {
        let (a, b) = (v(-5., 0.), v(5., 0.));
        // Perpendicular approach from above and below: gap 3 − 0.5 at 1 m/s.
        assert_eq!(
            time_to_collision_with_segment(v(0., 3.), v(0., -1.), 0.5, a, b),
            Some(2.5)
        );
        assert_eq!(
            time_to_collision_with_segment(v(1., -3.), v(0., 2.), 0.5, a, b),
            Some(1.25)
        );
        // Endpoint approach along the segment's line: the end cap at 10 − 5 − 0.5.
        assert_eq!(
            time_to_collision_with_segment(v(10., 0.), v(-1., 0.), 0.5, a, b),
            Some(4.5)
        );
        // Diagonal at the end cap: centre passes 0.3 from b, contact 0.4 before.
        let t = time_to_collision_with_segment(v(8., 0.3), v(-1., 0.), 0.5, a, b).unwrap();
        assert!((t - (3.0 - 0.4)).abs() < 1e-12, "{t}");
        // Parallel, outside the capsule: never.
        assert_eq!(
            time_to_collision_with_segment(v(-10., 2.), v(1., 0.), 0.5, a, b),
            None
        );
        // Moving away, and passing beyond the end.
        assert_eq!(
            time_to_collision_with_segment(v(0., 3.), v(0., 1.), 0.5, a, b),
            None
        );
        assert_eq!(
            time_to_collision_with_segment(v(7., 3.), v(0., -1.), 0.5, a, b),
            None
        );
        // Overlapping now.
        assert_eq!(
            time_to_collision_with_segment(v(0., 0.2), v(0., 1.), 0.5, a, b),
            Some(0.0)
        );
        // Degenerate segment: a point.
        assert_eq!(
            time_to_collision_with_segment(v(3., 0.), v(-1., 0.), 0.5, b * 0.0, b * 0.0),
            Some(2.5)
        );
        assert_eq!(
            time_to_collision_with_segment(v(0., 3.), v(0., -1.), f64::NAN, a, b),
            None
        );
    }

    /// The power-law force used by the model equals −∇ₓE by central finite differences.
    #[test]
    fn power_law_force_is_minus_energy_gradient() {
        let (k, tau0) = (1.5, 3.0);
        let model = TtcModel::PowerLaw { k, tau0 };
        let energy = |x: DVec2, rv: DVec2, r: f64| {
            let tau = time_to_collision(x, rv, r).unwrap();
            k / (tau * tau) * (-tau / tau0).exp()
        };
        let cases = [
            (v(-6., 0.4), v(2.5, 0.), 1.0),
            (v(-3., -0.9), v(1.2, 0.3), 0.8),
            (v(2., 5.), v(-0.7, -2.1), 0.6),
            (v(-1.5, 0.2), v(1.0, 0.0), 0.9),
        ];
        for (x, rv, r) in cases {
            let tau = time_to_collision(x, rv, r).unwrap();
            assert!(tau > 0.05, "{tau}");
            let normal = (x + rv * tau).normalize();
            let force = normal * model_magnitude(model, 100.0, tau, normal, rv);
            let h = 1e-6;
            let gradient = v(
                (energy(x + v(h, 0.), rv, r) - energy(x - v(h, 0.), rv, r)) / (2.0 * h),
                (energy(x + v(0., h), rv, r) - energy(x - v(0., h), rv, r)) / (2.0 * h),
            );
            let error = (force + gradient).length() / force.length();
            assert!(error < 1e-5, "{x} {rv} {r}: {force} vs {}", -gradient);
        }
    }

    /// Two agents walking at each other, stepped with `ttc_velocity`; returns the smallest gap
    /// between the discs and the final positions.
    fn head_on(config: &TtcConfig, offset: f64) -> (f64, DVec2, DVec2) {
        let mut a = agent(v(-8., 0.), v(1.3, 0.));
        let mut b = agent(v(8., offset), v(-1.3, 0.));
        let dt = 0.05;
        let mut min_gap = f64::INFINITY;
        for _ in 0..400 {
            let va = ttc_velocity(&a, &[as_neighbour(&b)], &[], config, dt);
            let vb = ttc_velocity(&b, &[as_neighbour(&a)], &[], config, dt);
            a.velocity = va;
            b.velocity = vb;
            a.position += va * dt;
            b.position += vb * dt;
            assert!(a.position.is_finite() && b.position.is_finite());
            min_gap = min_gap.min(a.position.distance(b.position) - a.radius - b.radius);
        }
        (min_gap, a.position, b.position)
    }

    #[test]
    fn head_on_linear_passes_without_overlap() {
        let config = TtcConfig::default();
        config.validate().unwrap();
        let (gap, a, b) = head_on(&config, 0.0);
        assert!(gap > 0.0, "gap {gap}");
        assert!(a.x > 8.0 && b.x < -8.0, "{a} {b}");
        // Both kept right: a (walking +x) passed below b.
        assert!(a.y < b.y, "{a} {b}");
        // The chapter's exact direction, with an offset to break the symmetry.
        let chapter = TtcConfig {
            head_on_bias: 0.0,
            ..TtcConfig::default()
        };
        let (gap, a, b) = head_on(&chapter, 0.5);
        assert!(gap > 0.0, "gap {gap}");
        assert!(a.x > 8.0 && b.x < -8.0, "{a} {b}");
    }

    #[test]
    fn head_on_power_law_passes_without_overlap() {
        let config = TtcConfig {
            model: TtcModel::power_law(),
            ..TtcConfig::default()
        };
        config.validate().unwrap();
        let (gap, a, b) = head_on(&config, 0.0);
        assert!(gap > 0.0, "gap {gap}");
        assert!(a.x > 8.0 && b.x < -8.0, "{a} {b}");
        let paper = TtcConfig {
            head_on_bias: 0.0,
            ..config
        };
        let (gap, a, b) = head_on(&paper, 0.5);
        assert!(gap > 0.0, "gap {gap}");
        assert!(a.x > 8.0 && b.x < -8.0, "{a} {b}");
    }

    #[test]
    fn wall_ahead_deflects_or_stops_the_agent() {
        for model in [TtcModel::Linear, TtcModel::power_law()] {
            for bias in [0.0, 0.2] {
                let config = TtcConfig {
                    model,
                    head_on_bias: bias,
                    ..TtcConfig::default()
                };
                let wall = (v(5., -20.), v(5., 20.));
                let mut a = agent(v(0., 0.), v(1.5, 0.));
                let dt = 0.05;
                for _ in 0..400 {
                    a.velocity = ttc_velocity(&a, &[], &[wall], &config, dt);
                    a.position += a.velocity * dt;
                    let gap = a
                        .position
                        .distance(closest_on_segment(a.position, wall.0, wall.1).0);
                    assert!(gap > a.radius, "{model:?} {bias}: {a:?}");
                }
                assert!(a.position.x > 4.0, "{model:?} {bias}: {a:?}");
            }
        }
    }

    #[test]
    fn runs_are_bit_identical() {
        let config = TtcConfig::default();
        let first = head_on(&config, 0.0);
        let second = head_on(&config, 0.0);
        assert_eq!(first.0.to_bits(), second.0.to_bits());
        for (p, q) in [(first.1, second.1), (first.2, second.2)] {
            assert_eq!(p.x.to_bits(), q.x.to_bits());
            assert_eq!(p.y.to_bits(), q.y.to_bits());
        }
    }

    #[test]
    fn degenerate_inputs_give_finite_results() {
        for model in [TtcModel::Linear, TtcModel::power_law()] {
            let config = TtcConfig {
                model,
                ..TtcConfig::default()
            };
            // Coincident agents: pushed along the left normal of the preferred velocity.
            let a = agent(v(1., 1.), v(1., 0.));
            let same = as_neighbour(&a);
            let acc = ttc_acceleration(&a, &[same], &[], &config);
            assert!(acc.is_finite());
            assert!(acc.y > 0.0, "{acc}");
            // Coincident and at rest with no preferred velocity: along +x.
            let still = agent(v(1., 1.), v(0., 0.));
            let acc = ttc_acceleration(&still, &[as_neighbour(&still)], &[], &config);
            assert_eq!(acc, v(config.max_force, 0.));
            // Zero radius sum, zero relative velocity, centre on a wall.
            let point = TtcAgent { radius: 0.0, ..a };
            let ghost = TtcNeighbour {
                radius: 0.0,
                ..as_neighbour(&point)
            };
            assert!(ttc_velocity(&point, &[ghost], &[], &config, 0.05).is_finite());
            let beside = TtcNeighbour {
                position: v(3., 1.),
                ..as_neighbour(&a)
            };
            assert_eq!(ttc_acceleration(&a, &[beside], &[], &config), DVec2::ZERO);
            let on_wall = [(v(0., 1.), v(2., 1.))];
            assert!(ttc_velocity(&a, &[], &on_wall, &config, 0.05).is_finite());
            let degenerate_wall = [(v(1., 1.), v(1., 1.))];
            assert!(ttc_velocity(&a, &[], &degenerate_wall, &config, 0.05).is_finite());
        }
    }

    #[test]
    fn caps_responsibility_and_neighbour_limit() {
        let config = TtcConfig {
            goal_gain: 0.0,
            ..TtcConfig::default()
        };
        let a = agent(v(0., 0.), v(1., 0.));
        let close = TtcNeighbour {
            position: v(1.05, 0.01),
            velocity: v(-1., 0.),
            radius: 0.5,
            responsibility: 1.0,
        };
        let full = ttc_acceleration(&a, &[close], &[], &config);
        assert!((full.length() - config.max_force).abs() < 1e-9, "{full}");
        let half = ttc_acceleration(
            &a,
            &[TtcNeighbour {
                responsibility: 0.5,
                ..close
            }],
            &[],
            &config,
        );
        assert!(
            (half.length() - config.max_force / 2.0).abs() < 1e-9,
            "{half}"
        );
        // Many neighbours: the total is capped.
        let many = [close; 5];
        let total = ttc_acceleration(&a, &many, &[], &config);
        assert!(total.length() <= config.max_force + 1e-9);
        // Only the earliest collision counts with max_neighbours = 1.
        let far = TtcNeighbour {
            position: v(4., 0.3),
            ..close
        };
        let one = TtcConfig {
            max_neighbours: 1,
            max_force: 1000.0,
            ..config
        };
        assert_eq!(
            ttc_acceleration(&a, &[far, close], &[], &one),
            ttc_acceleration(&a, &[close], &[], &one)
        );
    }

    #[test]
    fn validate_names_the_field() {
        let bad = TtcConfig {
            time_horizon: 0.0,
            ..TtcConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "time_horizon");
        let bad = TtcConfig {
            max_neighbours: 65,
            ..TtcConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "max_neighbours");
        let bad = TtcConfig {
            model: TtcModel::PowerLaw {
                k: 1.5,
                tau0: f64::NAN,
            },
            ..TtcConfig::default()
        };
        let error = bad.validate().unwrap_err();
        assert_eq!(error.field, "model.tau0");
        assert!(error.to_string().starts_with("ttc.model.tau0 = NaN"));
        TtcConfig {
            model: TtcModel::power_law(),
            ..TtcConfig::default()
        }
        .validate()
        .unwrap();
    }
}
