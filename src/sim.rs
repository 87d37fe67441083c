//! The built-in simulation: scenarios, the host that plays them, and their metrics.

mod host;
mod metrics;
mod scenario;

pub use host::{AgentState, HostAgent, HostPhase, OrderRecord, Simulation, FLIP_WINDOW};
pub use metrics::{ContactEvent, Metrics, OrderCounts, Percentiles, CONTACT_FRACTION};
pub use scenario::{
    AgentEntry, Mode, Scenario, ScenarioAgent, ScenarioError, ScenarioFile, StartEntry,
};
