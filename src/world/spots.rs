//! The index of the spots agents take for the shared-destination check: where each agent's
//! rail ends, on a uniform grid, so that the check looks only at the spots near a point.
//!
//! The check (`World::spot_is_taken`, `src/resolve/destination.rs`) asks whether any other
//! agent stands, or is bound, within reach of a point. Scanning every agent made it O(n) per
//! check, and a frame where every agent gets its rail O(n²): 10,000 agents given their rails
//! at once took 658 ms in the first frame on `city`. The index answers with the agents near
//! the point instead; the check then applies its own rule to each, on the agents' current
//! state, so the answer is the same.
//!
//! Built lazily, at most once per broad-phase rebuild (`World::ensure_grid`), and only in a
//! frame that checks destinations; the rails bent during the frame after the build are listed
//! in `moved` and looked at one by one, their entries on the grid being out of date.

use glam::DVec2;

use super::grid::AgentGrid;

/// Rail ends by agent slot (as numbered at the broad phase's last rebuild).
#[derive(Clone, Debug, Default)]
pub(crate) struct SpotIndex {
    /// Each agent's rail end when built (its position when it had no rail).
    ends: AgentGrid,
    /// The broad-phase generation it was built for (0: never built; generations start at 1).
    generation: u64,
    /// Agents whose rail changed since the build: their entries on `ends` are out of date.
    moved: Vec<u32>,
    /// `moved` as a flag per slot.
    is_moved: Vec<bool>,
}

impl SpotIndex {
    /// Whether it was built for the broad phase of `generation` (never, before a first build).
    pub fn is_current(&self, generation: u64) -> bool {
        self.generation != 0 && self.generation == generation
    }

    /// Index `ends` (one per slot) for the broad phase of `generation`, on a grid of `cell`
    /// metres over the box `lo`–`hi` (points outside fall in its border cells).
    pub fn rebuild(
        &mut self,
        generation: u64,
        lo: DVec2,
        hi: DVec2,
        cell: f64,
        ends: impl ExactSizeIterator<Item = DVec2> + Clone,
    ) {
        let count = ends.len();
        self.ends.rebuild(lo, hi, cell, ends);
        self.moved.clear();
        self.is_moved.clear();
        self.is_moved.resize(count, false);
        self.generation = generation;
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.ends.heap_bytes()
            + self.moved.capacity() * std::mem::size_of::<u32>()
            + self.is_moved.capacity()
    }

    /// The rail of the agent at `slot` changed since the build.
    pub fn mark_moved(&mut self, slot: usize) {
        if let Some(flag) = self.is_moved.get_mut(slot) {
            if !*flag {
                *flag = true;
                self.moved.push(slot as u32);
            }
        }
    }

    /// Whether `visit` returns true for some agent slot whose rail end, as built, lies in a
    /// grid cell within `reach` of `centre` (in the square sense), or whose rail moved since;
    /// other slots may be visited too. Stops at the first true.
    pub fn any_near(
        &self,
        centre: DVec2,
        reach: f64,
        mut visit: impl FnMut(usize) -> bool,
    ) -> bool {
        self.ends
            .any_near(centre, reach, |i| !self.is_moved[i] && visit(i))
            || self.moved.iter().any(|&i| visit(i as usize))
    }
}
