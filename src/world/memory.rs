//! How much memory a world holds for its agents, rails excluded (issue 6's budget per agent).

use std::mem::size_of;

use super::{Agent, AgentKey, World};
use crate::world::Gait;

/// The memory a [`World`] holds for its agents: the agent records, their descriptions' heap
/// parts, the memos of standing agents' bend tries, and the per-frame buffers sized by the number of agents (broad-phase grid, key
/// order, sweep scratch). Rails (shared, owned by whoever planned them), the level and the free
/// agents' steering buffers are not counted. Capacities are counted, not lengths, so the figure
/// is what is allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldMemory {
    /// Agents in the world.
    pub agents: usize,
    /// Bytes held, as described above.
    pub bytes: usize,
}

impl WorldMemory {
    /// Bytes per agent (0 for an empty world).
    pub fn bytes_per_agent(&self) -> f64 {
        if self.agents == 0 {
            0.0
        } else {
            self.bytes as f64 / self.agents as f64
        }
    }
}

impl World {
    /// The memory this world holds for its agents, rails excluded (see [`WorldMemory`]).
    pub fn memory(&self) -> WorldMemory {
        // A slot map slot is the value and a 32-bit version, padded to the value's 8-byte
        // alignment.
        let slot = size_of::<Agent>() + size_of::<u64>();
        let mut bytes = self.agents.capacity() * slot;
        for agent in self.agents.values() {
            bytes += agent.desc.gaits.capacity() * size_of::<Gait>();
            if let Some(narrows) = &agent.narrows {
                bytes += narrows.len() * size_of::<super::Narrow>();
            }
            if agent.bend_memo.is_some() {
                bytes += size_of::<crate::resolve::BendMemo>();
            }
            if let Some(free) = &agent.free {
                bytes += size_of::<crate::steer::FreeState>();
                bytes += free.corners.capacity() * size_of::<glam::DVec2>();
                bytes += free.narrow_stretches.capacity() * size_of::<[glam::DVec2; 2]>();
            }
        }
        bytes += self.dense.capacity() * size_of::<AgentKey>();
        bytes += self.hot.capacity() * size_of::<super::HotAgent>();
        bytes += self.grid.heap_bytes();
        bytes += self.spots.heap_bytes();
        bytes += self.scratch_candidates.capacity() * size_of::<u32>();
        bytes += self.scratch_samples.capacity() * size_of::<crate::detect::SweepSample>();
        bytes += self.scratch_deferred.capacity() * size_of::<u32>();
        #[cfg(feature = "parallel")]
        {
            bytes += self.speculation.heap_bytes();
        }
        WorldMemory {
            agents: self.agents.len(),
            bytes,
        }
    }
}
