//! World-wide avoidance settings: horizon, margins, thresholds and hysteresis.

use serde::Deserialize;

/// Tunables of the avoidance world. Every field has a default (see [`Default`]); a scenario's
/// `avoidance` object overrides them by field name.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AvoidanceConfig {
    /// How far ahead the sweep looks beyond the stopping distance, seconds at the current speed
    /// (chapter 22.3). Range (0, 10]; default 2.
    pub horizon: f64,
    /// Extra distance added to every agent's radius in the sweep, metres, so that small
    /// differences between the predicted and the animated motion do not touch. Range [0, 1];
    /// default 0.05.
    pub margin: f64,
    /// A collision is head-on when the collider's centre is within this angle of the agent's
    /// direction of travel, degrees. Range [0, 90]; default 10 (chapter 22.3).
    pub head_on_degrees: f64,
    /// After an order, an agent keeps it at least this long before returning to its preferred
    /// speed or starting again, seconds; a collision found sooner is still acted on. Range
    /// [0, 5]; default 0.6 (longer than the 0.5 s of the `order_flips` metric).
    pub commitment: f64,
    /// Returning to the preferred speed or starting again needs a clear sweep with radii grown
    /// by this fraction, so that the return does not flip back at once. Range [0, 1]; default
    /// 0.25.
    pub resume_inflation: f64,
    /// Two agents walk "the same way" for the follow-distance rule when their directions
    /// differ by less than this, degrees. Range [0, 90]; default 30.
    pub follow_degrees: f64,
    /// Side of the uniform broad-phase grid's cells, metres; 0 picks one from the agents'
    /// detection ranges when the grid is first built. Range 0 or [0.5, 100]; default 0.
    pub cell_size: f64,
    /// Let [`World::add_agent`](crate::World::add_agent) place an agent overlapping another
    /// (dense spawns); default false, so overlapping starts are reported as errors.
    pub allow_overlap: bool,
}

impl Default for AvoidanceConfig {
    fn default() -> Self {
        AvoidanceConfig {
            horizon: 2.0,
            margin: 0.05,
            head_on_degrees: 10.0,
            commitment: 0.6,
            resume_inflation: 0.25,
            follow_degrees: 30.0,
            cell_size: 0.0,
            allow_overlap: false,
        }
    }
}

impl AvoidanceConfig {
    /// Check every field against its documented range; the error names the field.
    pub fn validate(&self) -> Result<(), String> {
        let check = |name: &str, value: f64, lo: f64, hi: f64, open_lo: bool| {
            let ok =
                value.is_finite() && value <= hi && if open_lo { value > lo } else { value >= lo };
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "avoidance.{name} = {value} is out of range {}{lo}, {hi}]",
                    if open_lo { "(" } else { "[" }
                ))
            }
        };
        check("horizon", self.horizon, 0.0, 10.0, true)?;
        check("margin", self.margin, 0.0, 1.0, false)?;
        check("head_on_degrees", self.head_on_degrees, 0.0, 90.0, false)?;
        check("commitment", self.commitment, 0.0, 5.0, false)?;
        check("resume_inflation", self.resume_inflation, 0.0, 1.0, false)?;
        check("follow_degrees", self.follow_degrees, 0.0, 90.0, false)?;
        if self.cell_size != 0.0 {
            check("cell_size", self.cell_size, 0.5, 100.0, false)?;
        }
        Ok(())
    }
}
