//! Speculative detection (feature `parallel`): every agent's first sweep of the frame computed
//! ahead, in parallel, against the state at the start of `query_all`, and used by the queries in
//! key order only where nothing it looked at has changed since.
//!
//! Orders take effect at once, and an agent queried later sees them, so the queries themselves
//! stay sequential. What can be done ahead is the first sweep each agent's query will run (a
//! moving agent's sweep at its current plan; a standing agent's start check), which is most of
//! the detection work of a frame. An answer computed ahead is used when the query asks for
//! exactly that sweep (same agent, rail, plan, inflation, extra time), the world's largest speed
//! and radius (which size the broad-phase query) have not grown, and no agent listed in any
//! grid cell the sweep looked at has received an order this frame (orders are the only changes
//! to agents during `query_all`; the grid itself is not rebuilt during it). Otherwise the query
//! sweeps afresh. Either way the answer is what the sequential query computes, bit for bit:
//! the same function on the same data.

use std::cell::RefCell;

use super::trivial::{detect_fresh, Colliders, Hysteresis, Sweep};
use crate::detect::{Collision, MotionPlan, SweepSample};
use crate::world::{plan_of, start_plan, AgentKey, CellRect, Phase, World};

/// One agent's sweep computed ahead.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: AgentKey,
    /// Address of the rail swept (compared, never dereferenced).
    rail: usize,
    plan: PlanBits,
    /// Swept with the resume check's hysteresis (a start check), else with none: the only
    /// two a first sweep has (a flag, not the two numbers: 15 B an agent).
    resume: bool,
    /// The answer.
    found: Option<Collision>,
    /// The grid cells whose agents it looked at (`None`: it looked at no agent).
    cells: Option<CellRect>,
}

/// Sweeps computed ahead for one `query_all`, and which grid cells have changed since.
#[derive(Clone, Debug, Default)]
pub(crate) struct Speculation {
    /// Between [`World::speculate`] and [`World::end_speculation`].
    active: bool,
    /// Switched off by [`World::set_parallel_detection`].
    off: bool,
    /// The agent being queried now: dense index and key.
    current: Option<(usize, AgentKey)>,
    /// The world's largest planned speed and radius when the sweeps were computed.
    max_speed: f64,
    max_radius: f64,
    /// By dense index.
    entries: Vec<Option<Entry>>,
    /// By grid cell: an agent listed there received an order this frame.
    changed: Vec<bool>,
}

/// Fewer agents than this are queried sequentially only: handing work to the thread pool costs
/// microseconds, a small world's whole frame less.
pub(crate) const PARALLEL_MIN_AGENTS: usize = 256;

thread_local! {
    /// Each thread's sweep buffers: they keep their size from frame to frame, so a steady-state
    /// frame allocates nothing.
    static SCRATCH: RefCell<(Vec<u32>, Vec<SweepSample>)> = const {
        RefCell::new((Vec::new(), Vec::new()))
    };
}

impl Speculation {
    /// The answer computed ahead for `sweep`, if it is still the answer.
    pub fn lookup(&self, world: &World, sweep: &Sweep<'_>) -> Option<Option<Collision>> {
        if !self.active
            || sweep.only.is_some()
            || !sweep.front_only
            || sweep.colliders != Colliders::All
        {
            return None;
        }
        let (index, key) = self.current?;
        let entry = self.entries.get(index)?.as_ref()?;
        let same = key == sweep.key
            && entry.key == sweep.key
            && entry.rail == std::ptr::from_ref(sweep.rail) as usize
            && same_plan(&entry.plan, &sweep.plan)
            && {
                let hysteresis = if entry.resume {
                    Hysteresis::resume(world.config())
                } else {
                    Hysteresis::NONE
                };
                hysteresis.inflation.to_bits() == sweep.inflation.to_bits()
                    && hysteresis.extra_time.to_bits() == sweep.extra_time.to_bits()
            }
            && world.max_speed.to_bits() == self.max_speed.to_bits()
            && world.max_radius.to_bits() == self.max_radius.to_bits();
        if !same {
            return None;
        }
        if let Some(CellRect { x0, y0, x1, y1 }) = entry.cells {
            let columns = world.grid.columns();
            for y in y0..=y1 {
                if self.changed[y * columns + x0..=y * columns + x1]
                    .iter()
                    .any(|&c| c)
                {
                    return None;
                }
            }
        }
        Some(entry.found)
    }

    /// The agent at dense index `index` is queried next.
    pub fn set_current(&mut self, index: usize, key: AgentKey) {
        if self.active {
            self.current = Some((index, key));
        }
    }

    /// The agent being queried received an order that changes its motion or rail.
    pub fn note_change(&mut self, world_grid: &crate::world::AgentGrid, key: AgentKey) {
        let Some((index, current)) = self.current.filter(|_| self.active) else {
            return;
        };
        if current != key {
            return;
        }
        if let Some(cell) = world_grid.cell_of(index) {
            if let Some(flag) = self.changed.get_mut(cell) {
                *flag = true;
            }
        }
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Option<Entry>>() + self.changed.capacity()
    }
}

/// A speculated sweep's plan, bit for bit. Its transition's acceleration is 0 (only moving and
/// starting agents are speculated, and the world predicts a start at its average velocity,
/// `start_plan`; a plan with an acceleration is not speculated), so it is not kept: 8 B an
/// agent, which kept the parallel build's crowd under 1 KiB an agent.
#[derive(Clone, Copy, Debug)]
struct PlanBits {
    s: u64,
    still: u64,
    transition_time: u64,
    transition_speed: u64,
    speed: u64,
}

impl PlanBits {
    /// The bits of `plan`, if its acceleration is 0 (else it is not speculated).
    fn of(plan: &MotionPlan) -> Option<PlanBits> {
        (plan.transition_acceleration == 0.0).then_some(PlanBits {
            s: plan.s.to_bits(),
            still: plan.still.to_bits(),
            transition_time: plan.transition_time.to_bits(),
            transition_speed: plan.transition_speed.to_bits(),
            speed: plan.speed.to_bits(),
        })
    }
}

/// Plans equal bit for bit.
fn same_plan(a: &PlanBits, b: &MotionPlan) -> bool {
    PlanBits::of(b).is_some_and(|b| {
        a.s == b.s
            && a.still == b.still
            && a.transition_time == b.transition_time
            && a.transition_speed == b.transition_speed
            && a.speed == b.speed
    })
}

impl World {
    /// Compute every agent's first sweep of the frame ahead, in parallel (rayon's pool), and
    /// start using the answers (see the module documentation).
    pub(crate) fn speculate(&mut self) {
        use rayon::prelude::*;
        if self.speculation.off || self.dense.len() < PARALLEL_MIN_AGENTS {
            return;
        }
        let mut spec = std::mem::take(&mut self.speculation);
        spec.entries.clear();
        spec.entries.resize(self.dense.len(), None);
        spec.changed.clear();
        spec.changed.resize(self.grid.cell_count(), false);
        spec.max_speed = self.max_speed;
        spec.max_radius = self.max_radius;
        spec.current = None;
        let world = &*self;
        spec.entries
            .par_iter_mut()
            .enumerate()
            .for_each(|(index, entry)| {
                SCRATCH.with(|scratch| {
                    let (candidates, samples) = &mut *scratch.borrow_mut();
                    *entry = world.first_sweep(index, candidates, samples);
                });
            });
        spec.active = true;
        self.speculation = spec;
    }

    /// Whether [`World::query_all`] computes every agent's first sweep ahead on rayon's thread
    /// pool (feature `parallel`; default on). The orders are the same either way, bit for bit;
    /// switching it off is for comparing the two.
    pub fn set_parallel_detection(&mut self, on: bool) {
        self.speculation.off = !on;
    }

    /// Stop using the answers computed ahead (the end of `query_all`).
    pub(crate) fn end_speculation(&mut self) {
        self.speculation.active = false;
        self.speculation.current = None;
    }

    /// The first sweep the query of the agent at dense index `index` will run, computed now:
    /// a moving or starting agent's sweep at its current plan, a standing agent's start check.
    fn first_sweep(
        &self,
        index: usize,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<Entry> {
        let key = *self.dense.get(index)?;
        let agent = self.agents.get(key)?;
        if agent.invalid_motion {
            return None;
        }
        let rail = agent.rail.as_deref()?;
        let desc = &agent.desc;
        let motion = agent.motion;
        let sweep = match motion.phase {
            Phase::Moving | Phase::Starting { .. } => {
                Sweep::ahead(key, rail, plan_of(desc, &motion), 0.0)
            }
            // A standing agent checks its start once the reversal hold since its stop is over.
            Phase::Standing
                if agent.wants_to_move()
                    && self.time() - agent.last_stop_time >= self.config().reversal_hold =>
            {
                let plan = start_plan(desc, motion.s, desc.preferred_speed, 0.0);
                Sweep::ahead(key, rail, plan, 0.0).with(Hysteresis::resume(self.config()))
            }
            Phase::Standing | Phase::Stopping { .. } => return None,
        };
        let plan = PlanBits::of(&sweep.plan)?;
        let (found, square) = detect_fresh(self, &sweep, candidates, samples);
        Some(Entry {
            key,
            rail: std::ptr::from_ref(rail) as usize,
            plan,
            resume: matches!(motion.phase, Phase::Standing),
            found,
            cells: square.and_then(|(centre, reach)| self.grid.cells_near(centre, reach)),
        })
    }
}
