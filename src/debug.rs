//! Debug output of the avoidance update: a sink the host may pass in to see collisions and
//! orders as they are decided, for debug drawing and logs.

use crate::detect::Collision;
use crate::resolve::Order;
use crate::world::AgentKey;

/// Receives what the per-frame query decides. Every method has an empty default, and the
/// queries are generic over the sink, so [`NoDebug`] compiles to nothing.
pub trait DebugSink {
    /// The sweep at the agent's current speed found `collision`.
    fn collision(&mut self, agent: AgentKey, collision: &Collision) {
        let _ = (agent, collision);
    }

    /// The agent was given `order` (continue and wait included).
    fn order(&mut self, agent: AgentKey, order: &Order) {
        let _ = (agent, order);
    }
}

/// The sink that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDebug;

impl DebugSink for NoDebug {}

/// A sink that keeps everything it is given, in order (for tests and tools).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugLog {
    /// Collisions found, in query order.
    pub collisions: Vec<(AgentKey, Collision)>,
    /// Orders given, in query order.
    pub orders: Vec<(AgentKey, Order)>,
}

impl DebugSink for DebugLog {
    fn collision(&mut self, agent: AgentKey, collision: &Collision) {
        self.collisions.push((agent, *collision));
    }

    fn order(&mut self, agent: AgentKey, order: &Order) {
        self.orders.push((agent, order.clone()));
    }
}
