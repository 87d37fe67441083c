//! Scenarios (DESIGN §5): a level, a time step and duration, avoidance settings and agents,
//! loaded from JSON and validated once.

use std::path::Path as FilePath;
use std::sync::Arc;

use glam::DVec2;
use serde::Deserialize;

use crate::level::{Level, LevelError, LevelFile, PathOptions};
use crate::rail::Rail;
use crate::world::{AgentDesc, AvoidanceConfig, Gait, Locomotion, StartTransition};

/// A scenario file as written (DESIGN §5). Unknown fields are errors.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Scenario name, used in reports.
    pub name: String,
    /// A level file path relative to the scenario file, or an inline level object.
    pub level: serde_json::Value,
    /// Frame time step, seconds, in (0, 1]. Default 1/30.
    #[serde(default = "default_dt")]
    pub dt: f64,
    /// Simulated time, seconds, > 0.
    pub duration: f64,
    /// Seed of any randomness (none is used by rail scenarios yet). Default 0.
    #[serde(default)]
    pub seed: u64,
    /// Overrides of [`AvoidanceConfig`] by field name. [`Scenario::from_json`] fills the
    /// fields the file leaves out that depend on the agents' size (`margin`,
    /// `orca.neighbour_distance`) from its largest agent's radius
    /// ([`AvoidanceConfig::from_agent_radius`]); [`Scenario::from_file`] takes them as they are.
    #[serde(default)]
    pub avoidance: AvoidanceConfig,
    /// The agents.
    pub agents: Vec<AgentEntry>,
}

/// Which of the settings derived from the agents' radius a scenario file gives itself (read
/// beside [`ScenarioFile`], which cannot tell a field left out from one given its default).
#[derive(Default, Deserialize)]
struct GivenSettings {
    #[serde(default)]
    avoidance: GivenAvoidance,
}

/// See [`GivenSettings`].
#[derive(Default, Deserialize)]
struct GivenAvoidance {
    #[serde(default)]
    margin: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    orca: GivenOrca,
}

/// See [`GivenSettings`].
#[derive(Default, Deserialize)]
struct GivenOrca {
    #[serde(default)]
    neighbour_distance: Option<serde::de::IgnoredAny>,
}

fn default_dt() -> f64 {
    1.0 / 30.0
}

/// How an agent moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// On a rail planned from `start` to `goal`, with speed and stop orders (default).
    #[default]
    Rail,
    /// Free-steering with ORCA.
    Orca,
    /// Free-steering with time-to-collision forces.
    Ttc,
    /// Standing at `start` throughout (an idle act).
    Stationary,
}

/// One agent of a scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentEntry {
    /// Start position, metres.
    pub start: [f64; 2],
    /// Goal position, metres; required for `rail` agents.
    #[serde(default)]
    pub goal: Option<[f64; 2]>,
    /// Collision radius, metres (> 0). Default 0.4.
    #[serde(default = "default_radius")]
    pub radius: f64,
    /// Speeds the animations support, m/s. Default: [`AgentDesc::from_radius`].
    #[serde(default)]
    pub speeds: Option<Vec<f64>>,
    /// Preferred speed, one of `speeds`. Default: the middle speed of the default set, or the
    /// first of `speeds`.
    #[serde(default)]
    pub speed: Option<f64>,
    /// Time at which it wants to leave, seconds ≥ 0. Default 0.
    #[serde(default)]
    pub depart: f64,
    /// How it moves. Default `rail`.
    #[serde(default)]
    pub mode: Mode,
    /// Stopping `[distance m, time s]` for each speed, in the order of `speeds`. Default
    /// [`Gait::from_speed`].
    #[serde(default)]
    pub stopping: Option<Vec<[f64; 2]>>,
    /// Start transition `{ "duration", "distance", "turn_time" }` to the preferred speed.
    /// Default [`StartTransition::for_speed`].
    #[serde(default)]
    pub start_transition: Option<StartEntry>,
    /// Gap kept behind an agent walking the same way, metres. Default 3 × radius.
    #[serde(default)]
    pub follow_gap: Option<f64>,
    /// Priority (higher is yielded to). Default 0.
    #[serde(default)]
    pub priority: i32,
    /// A free label for grouping agents in reports. Default none.
    #[serde(default)]
    pub group: Option<String>,
}

fn default_radius() -> f64 {
    0.4
}

/// A start transition as written in a scenario.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartEntry {
    /// Seconds.
    pub duration: f64,
    /// Metres.
    pub distance: f64,
    /// Seconds turning on the spot at the beginning. Default 0.
    #[serde(default)]
    pub turn_time: f64,
}

/// A scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{origin}: cannot read the scenario file: {source}")]
    Io {
        /// The file.
        origin: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The text is not JSON of the scenario format.
    #[error("{origin}: not a valid scenario (line {line}, column {column}): {message}")]
    Parse {
        /// The file.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde said.
        message: String,
    },
    /// The scenario's level does not load.
    #[error("{origin}: level: {source}")]
    Level {
        /// The scenario file.
        origin: String,
        /// The level's error.
        #[source]
        source: Box<LevelError>,
    },
    /// The scenario's inline level does not validate; the level error names the scenario file
    /// (its origin is `FILE: level`).
    #[error("{source}")]
    InlineLevel {
        /// The level's error.
        #[source]
        source: Box<LevelError>,
    },
    /// The scenario parsed but does not validate.
    #[error("{origin}: scenario `{scenario}`: {item}: {problem}")]
    Invalid {
        /// The file.
        origin: String,
        /// Scenario name.
        scenario: String,
        /// What is wrong ("agent 3", "dt").
        item: String,
        /// How.
        problem: String,
    },
}

/// A validated scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Name.
    pub name: String,
    /// Where it came from (a path), for messages.
    pub origin: String,
    /// The level.
    pub level: Arc<Level>,
    /// Frame time step, seconds.
    pub dt: f64,
    /// Simulated time, seconds.
    pub duration: f64,
    /// Seed.
    pub seed: u64,
    /// Avoidance settings.
    pub avoidance: AvoidanceConfig,
    /// The agents, in file order.
    pub agents: Vec<ScenarioAgent>,
}

/// A validated agent of a scenario.
#[derive(Clone, Debug)]
pub struct ScenarioAgent {
    /// Its description (position = start).
    pub desc: AgentDesc,
    /// Mode.
    pub mode: Mode,
    /// Goal (rail agents).
    pub goal: Option<DVec2>,
    /// Departure time, seconds.
    pub depart: f64,
    /// The rail planned from start to goal (rail agents).
    pub rail: Option<Arc<Rail>>,
    /// Group label.
    pub group: Option<String>,
}

impl Scenario {
    /// Load and validate a scenario file; a level path in it is relative to the file.
    pub fn load(path: impl AsRef<FilePath>) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Io {
            origin: origin.clone(),
            source,
        })?;
        Scenario::from_json(&text, &origin, path.parent())
    }

    /// Parse and validate a scenario from JSON; `origin` names it in errors, `base` is the
    /// directory a level path is relative to.
    pub fn from_json(
        text: &str,
        origin: &str,
        base: Option<&FilePath>,
    ) -> Result<Scenario, ScenarioError> {
        let mut file: ScenarioFile =
            serde_json::from_str(text).map_err(|e| ScenarioError::Parse {
                origin: origin.to_owned(),
                line: e.line(),
                column: e.column(),
                message: crate::level::json_error_message(&e),
            })?;
        // The settings that scale with the agents' size and that the file leaves out are those
        // for its largest agent, not for the default 0.4 m one
        // (`AvoidanceConfig::from_agent_radius`).
        let given: GivenSettings = serde_json::from_str(text).unwrap_or_default();
        let largest = file
            .agents
            .iter()
            .map(|a| a.radius)
            .filter(|r| r.is_finite() && *r > 0.0)
            .reduce(f64::max);
        if let Some(radius) = largest {
            let derived = AvoidanceConfig::from_agent_radius(radius);
            if given.avoidance.margin.is_none() {
                file.avoidance.margin = derived.margin;
            }
            if given.avoidance.orca.neighbour_distance.is_none() {
                file.avoidance.orca.neighbour_distance = derived.orca.neighbour_distance;
            }
        }
        Scenario::from_file(file, origin, base)
    }

    /// Validate a parsed scenario file.
    pub fn from_file(
        file: ScenarioFile,
        origin: &str,
        base: Option<&FilePath>,
    ) -> Result<Scenario, ScenarioError> {
        let invalid = |item: String, problem: String| ScenarioError::Invalid {
            origin: origin.to_owned(),
            scenario: file.name.clone(),
            item,
            problem,
        };
        let level_error = |source| ScenarioError::Level {
            origin: origin.to_owned(),
            source: Box::new(source),
        };
        let level = match &file.level {
            serde_json::Value::String(relative) => {
                let path = base.map_or_else(
                    || FilePath::new(relative).to_path_buf(),
                    |b| b.join(relative),
                );
                Level::load(path).map_err(level_error)?
            }
            serde_json::Value::Object(_) => {
                let level_file: LevelFile =
                    serde_json::from_value(file.level.clone()).map_err(|e| {
                        invalid("level".into(), format!("not a valid inline level: {e}"))
                    })?;
                Level::from_file(level_file, &format!("{origin}: level")).map_err(|source| {
                    ScenarioError::InlineLevel {
                        source: Box::new(source),
                    }
                })?
            }
            _ => {
                return Err(invalid(
                    "level".into(),
                    "must be a path (string) or an inline level object".into(),
                ))
            }
        };
        if !(file.dt.is_finite() && file.dt > 0.0 && file.dt <= 1.0) {
            return Err(invalid(
                "dt".into(),
                format!("{} must be in (0, 1] seconds", file.dt),
            ));
        }
        if !(file.duration.is_finite() && file.duration > 0.0) {
            return Err(invalid(
                "duration".into(),
                format!("{} must be a finite number of seconds > 0", file.duration),
            ));
        }
        if file.duration / file.dt > 10_000_000.0 {
            return Err(invalid(
                "duration".into(),
                "more than ten million frames".into(),
            ));
        }
        file.avoidance
            .validate()
            .map_err(|problem| invalid("avoidance".into(), problem))?;
        let mut agents: Vec<ScenarioAgent> = Vec::with_capacity(file.agents.len());
        for (i, entry) in file.agents.iter().enumerate() {
            let item = || format!("agent {i}");
            let agent = agent_from_entry(entry, &level, &file.avoidance)
                .map_err(|problem| invalid(item(), problem))?;
            for (j, other) in agents.iter().enumerate() {
                let radii = agent.desc.radius + other.desc.radius;
                let d = agent.desc.position.distance(other.desc.position);
                if d < 0.99 * radii && !file.avoidance.allow_overlap {
                    return Err(invalid(
                        item(),
                        format!(
                            "starts overlapping agent {j} (centres {d:.3} m apart, radii sum {radii:.3} m); set avoidance.allow_overlap to allow it"
                        ),
                    ));
                }
            }
            agents.push(agent);
        }
        Ok(Scenario {
            name: file.name.clone(),
            origin: origin.to_owned(),
            level: Arc::new(level),
            dt: file.dt,
            duration: file.duration,
            seed: file.seed,
            avoidance: file.avoidance,
            agents,
        })
    }

    /// Number of frames the scenario runs.
    pub fn frames(&self) -> usize {
        (self.duration / self.dt).round().max(1.0) as usize
    }
}

/// A rail agent's goal must be further than this from its start, metres.
const MIN_RAIL_LENGTH: f64 = 1e-6;

fn point(p: [f64; 2], what: &str) -> Result<DVec2, String> {
    let v = DVec2::new(p[0], p[1]);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{what} {p:?} is not finite"))
    }
}

fn agent_from_entry(
    entry: &AgentEntry,
    level: &Level,
    avoidance: &AvoidanceConfig,
) -> Result<ScenarioAgent, String> {
    let mesh = level.navmesh();
    let radius = entry.radius;
    if !(radius.is_finite() && radius > 0.0) {
        return Err(format!(
            "radius {radius} must be a finite number of metres > 0"
        ));
    }
    let start = point(entry.start, "start")?;
    if !mesh.contains(start) {
        return Err(format!(
            "start ({}, {}) is not on the navmesh",
            start.x, start.y
        ));
    }
    let mut desc = match &entry.speeds {
        None => {
            let mut d = AgentDesc::from_radius(radius);
            if let Some(v) = entry.speed {
                if d.gaits.iter().all(|g| (g.speed - v).abs() > 1e-9) {
                    return Err(format!(
                        "speed {v} is not one of the default speeds {:?}; give `speeds`",
                        d.gaits.iter().map(|g| g.speed).collect::<Vec<_>>()
                    ));
                }
                d.preferred_speed = v;
                d.start = StartTransition::for_speed(v);
            }
            d
        }
        Some(speeds) => {
            if speeds.is_empty() {
                return Err("the speed set `speeds` is empty".into());
            }
            for v in speeds {
                if !(v.is_finite() && *v > 0.0) {
                    return Err(format!("speed {v} in `speeds` must be a finite number > 0"));
                }
            }
            let preferred = entry.speed.unwrap_or(speeds[0]);
            if speeds.iter().all(|v| (v - preferred).abs() > 1e-9) {
                return Err(format!(
                    "speed {preferred} is not one of `speeds` {speeds:?}"
                ));
            }
            AgentDesc::with_speeds(radius, speeds, preferred)
        }
    };
    desc.position = start;
    desc.priority = entry.priority;
    if let Some(stopping) = &entry.stopping {
        if stopping.len() != desc.gaits.len() {
            return Err(format!(
                "`stopping` has {} entries but there are {} speeds",
                stopping.len(),
                desc.gaits.len()
            ));
        }
        for (g, [distance, time]) in desc.gaits.iter_mut().zip(stopping) {
            *g = Gait {
                speed: g.speed,
                stop_distance: *distance,
                stop_time: *time,
            };
        }
    }
    if let Some(st) = entry.start_transition {
        desc.start = StartTransition {
            duration: st.duration,
            distance: st.distance,
            turn_time: st.turn_time,
        };
    }
    if let Some(gap) = entry.follow_gap {
        desc.follow_gap = gap;
    }
    crate::world::validate_desc(&desc)?;
    if !(entry.depart.is_finite() && entry.depart >= 0.0) {
        return Err(format!(
            "depart {} must be a finite number of seconds >= 0",
            entry.depart
        ));
    }
    let goal = entry.goal.map(|g| point(g, "goal")).transpose()?;
    if let Some(goal) = goal {
        if !mesh.contains(goal) {
            return Err(format!(
                "goal ({}, {}) is not on the navmesh",
                goal.x, goal.y
            ));
        }
    }
    let rail = match entry.mode {
        Mode::Rail => {
            let goal = goal.ok_or("a rail agent needs a `goal`")?;
            if goal.distance(start) <= MIN_RAIL_LENGTH {
                return Err(format!(
                    "goal ({}, {}) is its start, and a rail cannot have zero length; give a goal \
                     elsewhere, or mode `stationary` for an agent that stays",
                    goal.x, goal.y
                ));
            }
            let rail = mesh
                .plan_rail(start, goal, &avoidance.path_options(radius))
                .map_err(|e| format!("no rail from start to goal: {e}"))?;
            Some(Arc::new(rail))
        }
        Mode::Orca | Mode::Ttc => {
            desc.locomotion = if entry.mode == Mode::Orca {
                Locomotion::Orca
            } else {
                Locomotion::Ttc
            };
            let goal = goal.ok_or("a free-steering agent needs a `goal`")?;
            mesh.find_path(start, goal, &PathOptions::from_agent_radius(radius))
                .map_err(|e| format!("no path from start to goal: {e}"))?;
            None
        }
        Mode::Stationary => None,
    };
    Ok(ScenarioAgent {
        desc,
        mode: entry.mode,
        goal,
        depart: entry.depart,
        rail,
        group: entry.group.clone(),
    })
}
