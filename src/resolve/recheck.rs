//! Time-sliced waits: a standing agent blocked by an agent that stands still decides again
//! every [`AvoidanceConfig::blocked_recheck`](crate::AvoidanceConfig::blocked_recheck) seconds
//! ([`BLOCKED_RECHECK`] by default), not every frame, while nothing it waits on has changed.
//!
//! Most of a standing crowd's frame was the start checks of agents blocked by another agent
//! standing (a queue, or one it cannot bend round before its next try): the same full sweep,
//! finding the same agent, every frame (docs/PERFORMANCE.md, session 38: a third of the
//! decisions' time on `plaza` with 1,000 agents). The wait is repeated as it was decided, for a
//! tenth of a second at most, and only while the agent waited on still stands, has had no order
//! and has not moved since; the moment it starts, the waiting agent decides afresh in the same
//! frame, so a queue discharges as before. A wait after a far-start test that swept is not
//! repeated (that test's answer depends on the agents that move; the ones it skipped depend on
//! the two agents alone). What the repeat can delay, by the recheck time at most: a wait moving
//! to another agent (a walker passing in between), a single-lane stretch's turn, a host's own
//! change to the agent waited on. A repeat is a `Wait`: the agent stands, and a start is always
//! checked in full. A wait whose bend is due is repeated only while the frame's bends are spent
//! (the bend is then tried on the same frame as when every wait is decided in full).

use super::trivial::{Decision, STANDING_BENDS_PER_FRAME};
use crate::world::{AgentKey, World};

/// The default [`AvoidanceConfig::blocked_recheck`](crate::AvoidanceConfig::blocked_recheck):
/// the longest time a standing agent blocked by one standing still repeats its decision to
/// wait, seconds. Three frames at 30 per second (every frame at 10 per second or fewer).
pub const BLOCKED_RECHECK: f64 = 0.1;

/// A wait that may be repeated: decided in full at `at` (world clock, seconds), blocked by the
/// agent the waiting agent waits on (`Agent::waiting_on`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BlockedWait {
    /// When it was decided in full, seconds.
    pub at: f64,
    /// Waiting behind an agent going its way (or not ahead of it): no bend is tried against
    /// it, whenever one is due. Otherwise the wait lasts only until the next bend is due.
    pub queue: bool,
}

impl World {
    /// The agent standing `key` waits on, when its last decision may be repeated now: it was
    /// a [`BlockedWait`] less than `blocked_recheck` ago (and, unless in a queue, before its
    /// next bend is due or while the frame's bends are spent), nobody has asked it to make way
    /// since, and the agent it waits on has stood all that time without an order.
    pub(crate) fn repeatable_wait(&self, key: AgentKey) -> Option<AgentKey> {
        self.repeatable_wait_with(key, self.bend_budget_left())
    }

    /// [`World::repeatable_wait`] with `budget_left` saying whether the frame's bends are not
    /// spent (the `parallel` build's pass ahead guesses it before the queries).
    pub(crate) fn repeatable_wait_with(
        &self,
        key: AgentKey,
        budget_left: bool,
    ) -> Option<AgentKey> {
        let agent = &self.agents[key];
        let wait = agent.blocked_wait?;
        if self.time >= wait.at + self.config().blocked_recheck
            || (!wait.queue && self.time >= agent.next_bend_time && budget_left)
            || agent.make_way_for.is_some()
            || agent.resume_goal.is_some()
        {
            return None;
        }
        let (blocker, _) = agent.waiting_on?;
        let other = self.agents.get(blocker)?;
        let still = !other.plan.moves()
            && other.stood_since <= wait.at
            && other.last_order_time < wait.at
            && other.make_way_for.is_none();
        still.then_some(blocker)
    }

    /// Whether a standing agent may still try a bend this frame (the frame's budget,
    /// `STANDING_BENDS_PER_FRAME`, is not spent).
    pub(crate) fn bend_budget_left(&self) -> bool {
        self.standing_bends < STANDING_BENDS_PER_FRAME
    }

    /// Whether the frame before ended with bends left: the `parallel` build's pass ahead guesses
    /// [`World::bend_budget_left`] from it before this frame's queries.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) fn bend_budget_left_before(&self) -> bool {
        self.standing_bends_before < STANDING_BENDS_PER_FRAME
    }
}

impl Decision {
    /// This decision (a wait on an agent standing) may be repeated for `blocked_recheck`.
    pub(crate) fn repeatable(mut self, at: f64, queue: bool) -> Decision {
        self.blocked_wait = Some(BlockedWait { at, queue });
        self
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec2;

    use super::*;
    use crate::world::{line_agent, Motion};
    use crate::Order;

    /// Two agents standing a metre apart on one line, both to go the same way (to two goals):
    /// `back` waits behind `front` (a queue of two).
    fn queue_of_two() -> (World, AgentKey, AgentKey) {
        queue_of_two_with(crate::AvoidanceConfig::default())
    }

    /// An agent standing at (10, 15) on `open-field`, to go 18 m along +x.
    fn standing_at_10_15(config: crate::AvoidanceConfig) -> (World, AgentKey) {
        let level = crate::level::fixture_level("open-field");
        let mut world = World::new(level, config).unwrap();
        let back = line_agent(
            &mut world,
            DVec2::new(10.0, 15.0),
            DVec2::new(28.0, 15.0),
            &[0.8, 1.4],
            Motion::standing(0.0),
        );
        (world, back)
    }

    fn queue_of_two_with(config: crate::AvoidanceConfig) -> (World, AgentKey, AgentKey) {
        let (mut world, back) = standing_at_10_15(config);
        let front = line_agent(
            &mut world,
            DVec2::new(11.0, 15.0),
            DVec2::new(30.0, 15.0),
            &[0.8, 1.4],
            Motion::standing(0.0),
        );
        (world, back, front)
    }

    #[test]
    fn a_wait_behind_an_agent_standing_is_repeated_for_the_recheck_time_only() {
        let (mut world, back, front) = queue_of_two();
        world.begin_frame(1.0);
        assert!(matches!(world.query(back).unwrap(), Order::Wait { .. }));
        assert_eq!(world.repeatable_wait(back), Some(front));
        let decided = world.agents[back]
            .blocked_wait
            .expect("a wait that may be repeated");
        assert!(decided.queue);
        // A frame later: repeated, and still dated from the full decision.
        world.begin_frame(0.5 * BLOCKED_RECHECK);
        assert!(matches!(world.query(back).unwrap(), Order::Wait { .. }));
        assert_eq!(world.agents[back].blocked_wait, Some(decided));
        assert_eq!(world.agents[back].waiting_on.map(|(k, _)| k), Some(front));
        // The recheck time over: decided in full again.
        world.begin_frame(0.6 * BLOCKED_RECHECK);
        assert_eq!(world.repeatable_wait(back), None);
        assert!(matches!(world.query(back).unwrap(), Order::Wait { .. }));
        let again = world.agents[back]
            .blocked_wait
            .expect("the same wait, decided again");
        assert_eq!(again.at, world.time());
    }

    #[test]
    fn a_wait_is_decided_afresh_as_soon_as_the_agent_waited_on_starts() {
        let (mut world, back, front) = queue_of_two();
        world.begin_frame(1.0);
        assert!(matches!(world.query(back).unwrap(), Order::Wait { .. }));
        assert_eq!(world.repeatable_wait(back), Some(front));
        world.begin_frame(0.3 * BLOCKED_RECHECK);
        // The front agent's way is clear: it starts, and the wait behind it is not repeated
        // in the same frame.
        assert!(matches!(world.query(front).unwrap(), Order::Start { .. }));
        assert_eq!(world.repeatable_wait(back), None);
        world.query(back).unwrap();
        assert!(world.agents[back]
            .blocked_wait
            .is_none_or(|wait| wait.at == world.time()));
    }

    #[test]
    fn with_no_recheck_time_every_wait_is_decided_in_full() {
        let (mut world, back, _) = queue_of_two_with(crate::AvoidanceConfig {
            blocked_recheck: 0.0,
            ..crate::AvoidanceConfig::default()
        });
        world.begin_frame(1.0);
        assert!(matches!(world.query(back).unwrap(), Order::Wait { .. }));
        assert_eq!(world.repeatable_wait(back), None);
    }

    /// An agent blocked by one standing with nowhere to go, a metre ahead on its line, when
    /// the frame's bends are spent: its bend is due, but it waits; the wait is repeated while
    /// the budget stays spent, and decided in full (with the bend) once a frame has bends left.
    /// Decided in full every frame, such waits were half of city's 10,000-agent frame
    /// (docs/PERFORMANCE.md, session 49).
    #[test]
    fn a_wait_over_the_spent_bend_budget_is_repeated_while_the_budget_stays_spent() {
        let (mut world, back) = standing_at_10_15(crate::AvoidanceConfig::default());
        let stander = line_agent(
            &mut world,
            DVec2::new(11.0, 16.0),
            DVec2::new(11.0, 15.0),
            &[0.8, 1.4],
            Motion::standing(1.0),
        );
        world.begin_frame(1.0);
        world.standing_bends = STANDING_BENDS_PER_FRAME;
        assert!(matches!(world.query(back).unwrap(), Order::Wait { .. }));
        let decided = world.agents[back]
            .blocked_wait
            .expect("a wait that may be repeated");
        assert!(!decided.queue);
        assert!(
            world.time() >= world.agents[back].next_bend_time,
            "bend due"
        );
        world.begin_frame(0.3 * BLOCKED_RECHECK);
        world.standing_bends = STANDING_BENDS_PER_FRAME;
        assert_eq!(world.repeatable_wait(back), Some(stander));
        assert!(matches!(world.query(back).unwrap(), Order::Wait { .. }));
        assert_eq!(world.agents[back].blocked_wait, Some(decided));
        // Bends left in this frame: decided in full, the bend tried.
        world.standing_bends = 0;
        assert_eq!(world.repeatable_wait(back), None);
        world.query(back).unwrap();
        assert_eq!(world.standing_bends, 1);
    }

    #[test]
    fn a_wait_is_not_repeated_for_an_agent_asked_to_make_way() {
        let (mut world, back, front) = queue_of_two();
        world.begin_frame(1.0);
        world.query(back).unwrap();
        assert_eq!(world.repeatable_wait(back), Some(front));
        world.agents[back].make_way_for = Some(front);
        assert_eq!(world.repeatable_wait(back), None);
    }
}
