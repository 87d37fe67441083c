//! Speculative detection (feature `parallel`): every agent's first sweep of the frame computed
//! ahead, in parallel, against the state at the start of `query_all`, and used by the queries in
//! key order only where nothing it looked at has changed since.
//!
//! Orders take effect at once, and an agent queried later sees them, so the queries themselves
//! stay sequential. What can be done ahead is the first sweep each agent's query will run (a
//! moving agent's sweep at its current plan; a standing agent's start check), which is most of
//! the detection work of a frame. An answer computed ahead is used when the query asks for
//! exactly that sweep (same agent, rail, plan, inflation, extra time), the world's largest speed
//! and radius (which size the broad-phase query) have not grown, and no agent that has received
//! an order this frame could have been swept by it: none is listed in the broad phase's square,
//! or each one listed there fails the sweep's disc test both as it was when the answer was
//! computed and as it is now. (Orders are the only changes to agents during `query_all` that a
//! sweep reads; the grid itself is not rebuilt during it.) An agent the disc test drops is never
//! swept, so it cannot change the answer either way. Otherwise the query sweeps afresh. Either
//! way the answer is what the sequential query computes, bit for bit: the same function on the
//! same data.

use std::cell::RefCell;

use super::trivial::{detect_fresh, Colliders, Hysteresis, LookedAt, Sweep};
use crate::detect::{Collision, MotionPlan, SweepSample};
use crate::world::{plan_of, start_plan, AgentKey, HotAgent, Phase, World};

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
    /// What it looked at (`None`: no agent).
    looked_at: Option<LookedAt>,
}

/// Sweeps computed ahead for one `query_all`, and which agents have changed since.
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
    /// The agents that received an order this frame, in order: dense index, and the state the
    /// sweeps computed ahead saw (before the order).
    changed: Vec<(u32, HotAgent)>,
}

/// Fewer agents than this are queried sequentially only: handing work to the thread pool costs
/// microseconds, a small world's whole frame less.
pub(crate) const PARALLEL_MIN_AGENTS: usize = 256;

/// Agents a thread sweeps ahead at a time: a lock taken every 16 sweeps (~30 µs of work in a
/// crowd) costs nothing against them, and the last chunk leaves the other thread little to
/// wait for.
const SPECULATION_CHUNK: usize = 16;

/// `Speculation::changed` has room for the orders of one agent in this many.
const CHANGED_SHARE: usize = 8;

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
        if let Some(LookedAt { reach, disc }) = entry.looked_at {
            // An agent changed since could have been swept only if the broad phase lists it
            // and the disc test keeps it, then or now.
            let could_sweep = |&(index, before): &(u32, HotAgent)| {
                world.grid.lists(index as usize, disc.origin, reach)
                    && (disc.keeps(&before) || disc.keeps(&world.hot[index as usize]))
            };
            if self.changed.iter().any(could_sweep) {
                return None;
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

    /// The agent being queried received an order that changes its motion or rail; `before` is
    /// its state when the sweeps were computed ahead.
    pub fn note_change(&mut self, key: AgentKey, before: HotAgent) {
        let Some((index, current)) = self.current.filter(|_| self.active) else {
            return;
        };
        if current == key {
            self.changed.push((index as u32, before));
        }
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Option<Entry>>()
            + self.changed.capacity() * std::mem::size_of::<(u32, HotAgent)>()
    }
}

/// A speculated sweep's plan, bit for bit. A start's transition has an acceleration
/// (`start_plan`, since session 41), which is kept too: 8 B an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PlanBits {
    s: u64,
    still: u64,
    transition_time: u64,
    transition_speed: u64,
    transition_acceleration: u64,
    speed: u64,
}

impl PlanBits {
    /// The bits of `plan`.
    fn of(plan: &MotionPlan) -> PlanBits {
        PlanBits {
            s: plan.s.to_bits(),
            still: plan.still.to_bits(),
            transition_time: plan.transition_time.to_bits(),
            transition_speed: plan.transition_speed.to_bits(),
            transition_acceleration: plan.transition_acceleration.to_bits(),
            speed: plan.speed.to_bits(),
        }
    }
}

/// Plans equal bit for bit.
fn same_plan(a: &PlanBits, b: &MotionPlan) -> bool {
    *a == PlanBits::of(b)
}

impl World {
    /// Compute every agent's first sweep of the frame ahead, in parallel (the calling thread
    /// with rayon's pool), and start using the answers (see the module documentation).
    pub(crate) fn speculate(&mut self) {
        if self.speculation.off || self.dense.len() < PARALLEL_MIN_AGENTS {
            return;
        }
        let mut spec = std::mem::take(&mut self.speculation);
        spec.entries.clear();
        spec.entries.resize(self.dense.len(), None);
        spec.changed.clear();
        // Room for an order to one agent in eight (a crowd's frame gives a few in a hundred;
        // 56 B each, so not one for every agent, which took the parallel build's largest
        // memory over the 1 KiB per agent), so that a steady-state frame allocates nothing.
        spec.changed.reserve(self.dense.len() / CHANGED_SHARE);
        spec.max_speed = self.max_speed;
        spec.max_radius = self.max_radius;
        spec.current = None;
        let world = &*self;
        // The calling thread sweeps too, taking chunks of agents in turn with the pool's
        // threads: handed whole to the pool (`par_iter_mut`), the work waited on a worker
        // waking, and on this 2-core machine the second one mostly woke when it was done
        // (`perf`: 63 samples against 333; docs/PERFORMANCE.md, session 37).
        let chunks = std::sync::Mutex::new(spec.entries.chunks_mut(SPECULATION_CHUNK).enumerate());
        let sweep_chunks = || {
            SCRATCH.with(|scratch| {
                let (candidates, samples) = &mut *scratch.borrow_mut();
                while let Ok(Some((chunk_index, chunk))) = chunks.lock().map(|mut c| c.next()) {
                    let first = chunk_index * SPECULATION_CHUNK;
                    for (offset, entry) in chunk.iter_mut().enumerate() {
                        *entry = world.first_sweep(first + offset, candidates, samples);
                    }
                }
            });
        };
        rayon::in_place_scope(|scope| {
            for _ in 1..rayon::current_num_threads() {
                scope.spawn(|_| sweep_chunks());
            }
            sweep_chunks();
        });
        spec.active = true;
        self.speculation = spec;
    }

    /// Whether [`World::query_all`] computes every agent's first sweep ahead on the calling
    /// thread and rayon's thread pool together (feature `parallel`; default on). The orders are
    /// the same either way, bit for bit; switching it off is for comparing the two (on two
    /// cores it does not pay yet: docs/PERFORMANCE.md, session 37).
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
            // A standing agent checks its start once the reversal hold since its stop is over,
            // unless it repeats a wait on an agent standing still (`resolve/recheck.rs`); one
            // whose bend is due repeats it if the frame's bends are spent by its turn, which is
            // guessed from the frame before (a guess: the query sweeps afresh if it is wrong).
            Phase::Standing
                if agent.wants_to_move()
                    && self.time() - agent.last_stop_time >= self.config().reversal_hold
                    && self
                        .repeatable_wait_with(key, self.bend_budget_left_before())
                        .is_none() =>
            {
                let plan = start_plan(desc, motion.s, desc.preferred_speed, 0.0);
                Sweep::ahead(key, rail, plan, 0.0).with(Hysteresis::resume(self.config()))
            }
            Phase::Standing | Phase::Stopping { .. } => return None,
        };
        let plan = PlanBits::of(&sweep.plan);
        let (found, looked_at) = detect_fresh(self, &sweep, candidates, samples);
        Some(Entry {
            key,
            rail: std::ptr::from_ref(rail) as usize,
            plan,
            resume: matches!(motion.phase, Phase::Standing),
            found,
            looked_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec2;

    use super::*;
    use crate::world::{line_agent, Motion};

    /// An agent that received an order counts against an answer computed ahead if the sweep's
    /// disc test keeps it as it is now, not only as it was: standing 6 m off a walker's way it
    /// is beyond the walker's sweep, started it is within reach (the test of the orders bit for
    /// bit, `tests/parallel.rs`, has no such case, and passes without the second check).
    #[test]
    fn an_agent_that_an_order_brings_within_reach_drops_the_answer_computed_ahead() {
        let level = crate::level::fixture_level("open-field");
        let mut world = World::new(level, crate::AvoidanceConfig::default()).unwrap();
        let walker = line_agent(
            &mut world,
            DVec2::new(10.0, 15.0),
            DVec2::new(10.0, 30.0),
            &[1.4],
            Motion::moving(0.0, 1.4),
        );
        let other = line_agent(
            &mut world,
            DVec2::new(16.0, 15.0),
            DVec2::new(26.0, 15.0),
            &[1.4],
            Motion::standing(0.0),
        );
        world.ensure_grid();
        let (index, slot) = (
            world.agents[walker].slot as usize,
            world.agents[other].slot as usize,
        );
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        let entry = world
            .first_sweep(index, &mut candidates, &mut samples)
            .expect("a walker's sweep is speculated");
        let looked_at = entry
            .looked_at
            .expect("the sweep looked at the other agent");
        assert!(world
            .grid
            .lists(slot, looked_at.disc.origin, looked_at.reach));
        let before = world.hot[slot];
        assert!(
            !looked_at.disc.keeps(&before),
            "standing, it is out of reach"
        );
        // `speculate`'s state, with the other agent's order noted as `query_with` notes it.
        let mut spec = Speculation {
            active: true,
            max_speed: world.max_speed,
            max_radius: world.max_radius,
            ..Speculation::default()
        };
        spec.entries.resize(world.dense.len(), None);
        spec.entries[index] = Some(entry);
        spec.current = Some((slot, other));
        spec.note_change(other, before);
        spec.set_current(index, walker);
        let agent = &world.agents[walker];
        let rail = agent.rail.as_deref().unwrap();
        let sweep = Sweep::ahead(walker, rail, plan_of(&agent.desc, &agent.motion), 0.0);
        assert!(
            spec.lookup(&world, &sweep).is_some(),
            "still standing, it changes nothing"
        );
        // Started: within reach now.
        world.set_motion(other, Motion::moving(0.0, 1.4)).unwrap();
        assert!(looked_at.disc.keeps(&world.hot[slot]));
        let agent = &world.agents[walker];
        let rail = agent.rail.as_deref().unwrap();
        let sweep = Sweep::ahead(walker, rail, plan_of(&agent.desc, &agent.motion), 0.0);
        assert!(spec.lookup(&world, &sweep).is_none());
    }
}
