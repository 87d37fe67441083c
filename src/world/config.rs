//! World-wide avoidance settings: horizon, margins, thresholds and hysteresis.

use serde::Deserialize;

use crate::level::{PathOptions, KEEP_RIGHT_RADII};
use crate::steer::{OrcaConfig, TtcConfig};

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
    /// default 0.05, an eighth of the default 0.4 m radius ([`MARGIN_RADII`]; see
    /// [`AvoidanceConfig::from_agent_radius`] for other radii).
    pub margin: f64,
    /// A collision is head-on when the collider's centre is within this angle of the agent's
    /// direction of travel, degrees. Range [0, 90]; default 10 (chapter 22.3).
    pub head_on_degrees: f64,
    /// After an order, an agent keeps it at least this long before a change that no collision
    /// asks for (a new path rewrite for a later collision, a return toward the preferred speed),
    /// seconds; a collision found sooner than the one the order answered is still acted on.
    /// Range [0, 5]; default 0.25.
    pub commitment: f64,
    /// An order that undoes the previous one (start after a stop, faster after slower) waits
    /// at least this long after it, seconds. Range [0, 5]; default 0.6, longer than the 0.5 s
    /// window of the `order_flips` metric, so that a reversal never counts as a flip.
    pub reversal_hold: f64,
    /// Distance of the avoidance point from the collision position, along the avoidance
    /// vector, in multiples of the agent's radius (chapter 22.4: "around 5×"). Range
    /// [1, 20]; default 5.
    pub avoidance_radii: f64,
    /// When the avoidance point has to be pulled in (off the mesh, or not reachable in a straight
    /// line), it must still be at least this far from the collision position, in multiples of
    /// the agent's radius; closer, that side fails. Range [0.1, 20]; default 0.5 (half a
    /// radius: an agent already pushed against a wall by an earlier bend can still edge past a
    /// stander near its rail, as in a corridor with agents standing at their goals; the sweep
    /// then decides whether the small bend clears it).
    pub min_avoidance_radii: f64,
    /// The direction from the avoidance point to the reconnection point must differ from the
    /// tangent at the avoidance point by at least this much, degrees (chapter 22.4), so that the
    /// reconnection curve does not cross the original rail. Range [0, 60]; default 8.
    pub reconnect_degrees: f64,
    /// After a path rewrite to one side, no rewrite to the other side for this long, seconds.
    /// Range [0, 10]; default 1.
    pub reroute_side_hold: f64,
    /// Agents waiting on each other in a cycle for longer than this are in a deadlock, and the
    /// one that yields is sent to a yield spot, seconds. Range [0.1, 60]; default 2.
    pub deadlock_time: f64,
    /// A standing agent blocked by an agent that stands still repeats its wait for up to this
    /// long without sweeping its start again, while the agent it waits on stands there without
    /// an order (it decides afresh the moment that one starts), seconds. Time-slicing for
    /// standing crowds (docs/ALGORITHM.md, "Time-sliced waits"). Range [0, 1]; default 0.1
    /// ([`BLOCKED_RECHECK`](crate::resolve::BLOCKED_RECHECK): three frames at 30 per second);
    /// 0 decides every frame.
    pub blocked_recheck: f64,
    /// Returning to the preferred speed or starting again needs a clear sweep with radii grown
    /// by this fraction against agents that move, so that the return does not flip back at
    /// once (not against agents standing: their prediction changes only when they start, and
    /// their own start checks keep it). Range [0, 1]; default 0.2 (two agents of radius 0.4
    /// then pass side by side in a 2.4 m corridor).
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
    /// Take turns through single-lane stretches (a door, a corridor too narrow for two agents to
    /// pass each other) and, without the jam release, short passages (narrower than 9 radii,
    /// 4 to 12 radii long, between wider ground): an agent about to enter one waits short of
    /// it, or on a spot off the way, while an agent coming the other way is in it or goes first
    /// (docs/ALGORITHM.md, "Single-lane stretches"). Default true; false leaves such meetings
    /// to the path rewrite and the deadlock rule.
    pub single_lane_turns: bool,
    /// How far right of a two-way corridor's middle line the rails the world plans keep
    /// ([`World::plan_rail`](crate::World::plan_rail), the built-in host's scenarios, the yield
    /// and detour rails), in agent radii, and half how much wider they keep their left turns
    /// ([`AvoidanceConfig::path_options`]; docs/ALGORITHM.md, "Lanes"). Range [0, 5]; default
    /// [`KEEP_RIGHT_RADII`] (1.5); 0 plans the taut line.
    pub keep_right_radii: f64,
    /// A rail agent that has stood this long wanting to go (a jam) leaves its rail and steers
    /// freely toward its goal with the ORCA solver ([`crate::Order::Release`]), and takes a
    /// rail again once it walks clear of the others ([`crate::Order::Rejoin`];
    /// docs/ALGORITHM.md, "Jam release"), seconds. With it set, a rail agent standing at its
    /// goal also steps aside as a free agent when a free agent comes near. Free steering lets
    /// discs touch slightly (ORCA's overlaps), so this is for dense crowds where flow matters
    /// more than that: on the committed `tradeshow-1000` it takes arrivals in 160 s from 417 to
    /// 983 of 1,000. With it set, short passages are not taken in turns (only single-lane
    /// stretches are; docs/ALGORITHM.md, "Single-lane stretches").
    /// Range 0 or [0.5, 600]; default 0: off, rail agents never leave their rails.
    pub jam_release: f64,
    /// A rail agent released from a jam that the solver has brought to a halt short of its goal
    /// (under a tenth of the speed it wants) turns its preferred velocity right by this much,
    /// degrees: released face to face on an aisle's axis, two agents' half-planes are exact
    /// mirrors and ORCA holds both at zero for good. Further turns a halted agent further out
    /// of a stall, and the level decides which suits: on den312d-500's one-agent corridors 60
    /// let more arrive than 30 (16 jittered runs: 83.7 → 87.4 %), 90 and 0 fewer; on
    /// tradeshow-1000's aisles 60 let a few fewer arrive (4 runs: 98.6 → 97.8 %) with more
    /// contacts (docs/ALGORITHM.md, "Jam release"). `sidestep import movingai --scen` writes 60.
    /// Range [0, 90]; default 30.
    pub release_turn_degrees: f64,
    /// How far past the exit of a narrow stretch of its way (a corridor or passage narrower
    /// than nine of its radii and at least 1.5 m long) an agent released from a jam keeps the
    /// right of way, metres: inside such a stretch, or out of it by at most this much along it,
    /// it takes a quarter of the avoidance against free agents that are not (they take three
    /// quarters, ORCA agents by description too, which never have it; between agents of
    /// different priorities the priorities decide first).
    /// ORCA's equal shares let agents waiting to go into a corridor stand their ground in its
    /// mouth, and the file coming out crawled: on den312d-500 it let 84.3 → 87.9 % arrive over
    /// 32 jittered runs at 4 m (docs/ALGORITHM.md, "Jam release", rule 5). Range [0, 20];
    /// default 4; 0 turns it off.
    pub exit_right_of_way: f64,
    /// The ORCA solver of free agents ([`crate::Locomotion::Orca`]); see [`OrcaConfig`] for
    /// each field's units, range and default.
    pub orca: OrcaConfig,
    /// The time-to-collision forces of free agents ([`crate::Locomotion::Ttc`]); see
    /// [`TtcConfig`].
    pub ttc: TtcConfig,
}

/// Radius of the agents [`AvoidanceConfig::default`] is for, metres.
const DEFAULT_RADIUS: f64 = 0.4;

/// The default [`AvoidanceConfig::margin`], in multiples of the agent radius. A margin fixed in
/// metres held small agents apart by more than their size asks: Menge's 0.19 m tradeshow
/// agents, over the committed tradeshow-1000 and three runs with jittered starts, reached 911
/// of 4,000 goals with 0.05 m and 1,349 with an eighth of the radius, no contact in either
/// (docs/ROBUSTNESS.md, session 13). An eighth keeps 0.05 m for 0.4 m agents.
pub const MARGIN_RADII: f64 = 0.125;

impl Default for AvoidanceConfig {
    fn default() -> Self {
        AvoidanceConfig::from_agent_radius(DEFAULT_RADIUS)
    }
}

impl AvoidanceConfig {
    /// The defaults for agents of the given collision radius (metres; the largest, in a crowd
    /// of several sizes): [`margin`](Self::margin) is [`MARGIN_RADII`] radii and ORCA's settings
    /// are [`OrcaConfig::from_agent_radius`]; every other field is in seconds, degrees or radii
    /// already, or picked from the agents (`cell_size` 0), and keeps its default.
    /// `from_agent_radius(0.4)` is [`Default`]. The margin is capped at 1 m, the top of its
    /// range (agents of radius over 8 m).
    pub fn from_agent_radius(radius: f64) -> Self {
        AvoidanceConfig {
            horizon: 2.0,
            margin: (MARGIN_RADII * radius).min(1.0),
            head_on_degrees: 10.0,
            commitment: 0.25,
            reversal_hold: 0.6,
            avoidance_radii: 5.0,
            min_avoidance_radii: 0.5,
            reconnect_degrees: 8.0,
            reroute_side_hold: 1.0,
            deadlock_time: 2.0,
            blocked_recheck: crate::resolve::BLOCKED_RECHECK,
            resume_inflation: 0.2,
            follow_degrees: 30.0,
            cell_size: 0.0,
            allow_overlap: false,
            single_lane_turns: true,
            keep_right_radii: KEEP_RIGHT_RADII,
            jam_release: 0.0,
            release_turn_degrees: 30.0,
            exit_right_of_way: 4.0,
            orca: OrcaConfig::from_agent_radius(radius),
            ttc: TtcConfig::default(),
        }
    }

    /// The path options of the rails planned for an agent of `radius` metres: that radius, and
    /// [`AvoidanceConfig::keep_right_radii`] of it right of two-way corridors' middle lines.
    pub fn path_options(&self, radius: f64) -> PathOptions {
        PathOptions {
            radius,
            keep_right: self.keep_right_radii * radius,
        }
    }

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
        check("keep_right_radii", self.keep_right_radii, 0.0, 5.0, false)?;
        check("margin", self.margin, 0.0, 1.0, false)?;
        check("head_on_degrees", self.head_on_degrees, 0.0, 90.0, false)?;
        check("commitment", self.commitment, 0.0, 5.0, false)?;
        check("reversal_hold", self.reversal_hold, 0.0, 5.0, false)?;
        check("avoidance_radii", self.avoidance_radii, 1.0, 20.0, false)?;
        check(
            "min_avoidance_radii",
            self.min_avoidance_radii,
            0.1,
            20.0,
            false,
        )?;
        if self.min_avoidance_radii > self.avoidance_radii {
            return Err(format!(
                "avoidance.min_avoidance_radii = {} must not exceed avoidance.avoidance_radii = {}",
                self.min_avoidance_radii, self.avoidance_radii
            ));
        }
        check(
            "reconnect_degrees",
            self.reconnect_degrees,
            0.0,
            60.0,
            false,
        )?;
        check(
            "reroute_side_hold",
            self.reroute_side_hold,
            0.0,
            10.0,
            false,
        )?;
        check("deadlock_time", self.deadlock_time, 0.1, 60.0, false)?;
        check("blocked_recheck", self.blocked_recheck, 0.0, 1.0, false)?;
        check("resume_inflation", self.resume_inflation, 0.0, 1.0, false)?;
        check("follow_degrees", self.follow_degrees, 0.0, 90.0, false)?;
        if self.cell_size != 0.0 {
            check("cell_size", self.cell_size, 0.5, 100.0, false)?;
        }
        if self.jam_release != 0.0 {
            check("jam_release", self.jam_release, 0.5, 600.0, false)?;
        }
        check(
            "release_turn_degrees",
            self.release_turn_degrees,
            0.0,
            90.0,
            false,
        )?;
        check(
            "exit_right_of_way",
            self.exit_right_of_way,
            0.0,
            20.0,
            false,
        )?;
        self.orca.validate().map_err(|e| format!("avoidance.{e}"))?;
        self.ttc.validate().map_err(|e| format!("avoidance.{e}"))?;
        Ok(())
    }
}
