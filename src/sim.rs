//! The built-in simulation: scenarios, the host that plays them, and their metrics.

mod host;
mod metrics;
mod placement;
mod scenario;

pub use host::{AgentState, HostAgent, HostPhase, OrderRecord, Simulation, FLIP_WINDOW};
pub use metrics::{ContactEvent, Metrics, OrderCounts, Percentiles, CONTACT_FRACTION};
#[cfg(test)]
pub(crate) use placement::SplitMix64;
pub use placement::{
    PlacementError, PlacementOptions, PLACEMENT_ATTEMPTS_PER_AGENT, PLACEMENT_SPACING,
    PLACEMENT_WALL_MARGIN,
};
pub use scenario::{
    AgentEntry, Mode, Scenario, ScenarioAgent, ScenarioError, ScenarioFile, StartEntry,
};
