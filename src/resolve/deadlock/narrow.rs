//! Waiting cycles through places too narrow for two agents to pass (a door, a one-lane
//! corridor): broken without waiting for every link of the cycle to last the deadlock time.
//!
//! At a door, the agent waiting in it waits on one agent at its far side after another, as
//! those bend, yield and start toward it; no link of the cycle lasts the deadlock time, and the
//! door stood blocked for 18–30 s at a time (doorway-crowd, session 11). Where the straight way
//! between two agents waiting on each other passes a place narrower than both their diameters
//! and the margins, waiting cannot help: the cycle counts once every member has stood still
//! for the reversal hold and one of them for the deadlock time, however recent the links.
//! Elsewhere (a corridor wide enough for two lanes) yielding early reshuffled the lanes into
//! knots, so there every link must last the deadlock time, as before.

use glam::{DVec2, Vec2};

use super::MAX_CYCLE;
use crate::world::{AgentKey, Phase, World};

/// Whether the straight way from an agent to the agent it waits on passes a single-lane place,
/// measured once while both stand (`Agent::lane_link`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LaneLink {
    /// The agent waited on.
    pub blocker: AgentKey,
    /// Where it stood when measured (the measure holds while it stands there; the waiting agent
    /// itself stands, or it would not be waiting).
    pub at: Vec2,
    /// The way passes a place narrower than both diameters and the margins.
    pub single_lane: bool,
}

/// Spacing of the width measurements along the way between two agents, metres.
const WIDTH_STEP: f64 = 0.25;

impl World {
    /// Whether `key` has stood still for the reversal hold: its waits are not a passing moment.
    fn settled(&self, key: AgentKey) -> bool {
        self.agents.get(key).is_some_and(|agent| {
            agent.motion.phase == Phase::Standing
                && self.time - agent.stood_since >= self.config().reversal_hold
        })
    }

    /// The measure of the way from `key` to `blocker`, which it waits on, when both are settled
    /// and the chain of waits from `blocker` leads back to `key` (only then can it make a
    /// cycle): the one `key` keeps if it still holds, else measured now.
    pub(crate) fn lane_link(&self, key: AgentKey, blocker: AgentKey) -> Option<LaneLink> {
        if !self.settled(key) || !self.settled(blocker) || !self.leads_back(blocker, key) {
            return None;
        }
        let agent = &self.agents[key];
        let other = &self.agents[blocker];
        let at = other.position().as_vec2();
        if let Some(kept) = agent.lane_link {
            if kept.blocker == blocker && kept.at == at {
                return Some(kept);
            }
        }
        let config = self.config();
        let width = 2.0 * (agent.desc().radius + other.desc().radius) + 2.0 * config.margin;
        Some(LaneLink {
            blocker,
            at,
            single_lane: self.narrower_between(agent.position(), other.position(), width),
        })
    }

    /// Whether the chain of waits from `from` reaches `to` (within [`MAX_CYCLE`] links).
    fn leads_back(&self, from: AgentKey, to: AgentKey) -> bool {
        let mut current = from;
        for _ in 0..MAX_CYCLE {
            if current == to {
                return true;
            }
            match self.agents.get(current).and_then(|a| a.waiting_on) {
                Some((next, _)) => current = next,
                None => return false,
            }
        }
        false
    }

    /// Whether the mesh is narrower than `width` across the segment `a → b` somewhere along it
    /// (measured every [`WIDTH_STEP`] and at both ends).
    fn narrower_between(&self, a: DVec2, b: DVec2, width: f64) -> bool {
        let Some(direction) = (b - a).try_normalize() else {
            return false;
        };
        let mesh = self.level().navmesh();
        let length = a.distance(b);
        let steps = (length / WIDTH_STEP).ceil().max(1.0) as usize;
        (0..=steps).any(|i| {
            let p = a.lerp(b, i as f64 / steps as f64);
            mesh.width_across(p, direction, width) < width
        })
    }

    /// The cycle of waits through `key` (`key` first), of settled agents one of which has stood
    /// for the deadlock time, one of whose links passes a single-lane place, however recent its
    /// links. `own` is `key`'s own link, measured on this query; the other members' links are
    /// the ones they keep, each measured on its own query.
    pub(crate) fn single_lane_cycle(
        &self,
        key: AgentKey,
        own: Option<LaneLink>,
    ) -> Option<Vec<AgentKey>> {
        let own = own?;
        // Walk the cycle first without allocating (this runs for every settled agent whose
        // chain of waits closes, every frame); collect it only when it counts.
        let mut single_lane = own.single_lane;
        let long =
            |k: AgentKey| self.time - self.agents[k].stood_since >= self.config().deadlock_time;
        let mut any_long = long(key);
        let mut length = 1;
        let mut current = own.blocker;
        while current != key {
            if length >= MAX_CYCLE || !self.settled(current) {
                return None;
            }
            any_long |= long(current);
            let member = &self.agents[current];
            let (next, _) = member.waiting_on?;
            let next_at = self.agents.get(next)?.position().as_vec2();
            single_lane |= member
                .lane_link
                .is_some_and(|link| link.blocker == next && link.at == next_at && link.single_lane);
            length += 1;
            current = next;
        }
        if !single_lane || !any_long {
            return None;
        }
        let mut cycle = Vec::with_capacity(length);
        cycle.push(key);
        let mut current = own.blocker;
        while current != key {
            cycle.push(current);
            current = self.agents[current].waiting_on?.0;
        }
        Some(cycle)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{stander, world_on};
    use super::*;
    use crate::rail::Rail;
    use crate::world::Motion;
    use crate::{Order, RerouteReason};

    /// Two agents face to face, each waiting on the other since now; the first has stood for
    /// `first_stood` seconds, the second for `second_stood` (no more than the first).
    fn facing(
        level: &str,
        a: DVec2,
        b: DVec2,
        first_stood: f64,
        second_stood: f64,
    ) -> (World, AgentKey, AgentKey) {
        let mut world = world_on(level);
        let first = stander(&mut world, a, a + (b - a) * 4.0);
        let second = stander(&mut world, b, b + (a - b) * 4.0);
        world.begin_frame(first_stood - second_stood);
        world.set_motion(second, Motion::moving(0.0, 1.4)).unwrap();
        world.set_motion(second, Motion::standing(0.0)).unwrap();
        world.begin_frame(second_stood);
        for (key, other) in [(first, second), (second, first)] {
            world.set_motion(key, Motion::standing(0.0)).unwrap();
            world.agents[key].waiting_on = Some((other, world.time));
        }
        (world, first, second)
    }

    #[test]
    fn a_cycle_through_a_door_counts_once_its_members_have_stood_for_the_hold() {
        // Either side of the 1.2 m door of `doorway` (the wall is x 9.5..10.5): two agents of
        // radius 0.4 cannot pass each other in it. The first has stood for the deadlock time,
        // the second only for the reversal hold, and the links are fresh.
        let (a, b) = (DVec2::new(8.9, 5.0), DVec2::new(11.1, 5.0));
        let (world, first, second) = facing("doorway", a, b, 2.5, 0.7);
        assert_eq!(world.waiting_cycle(second), None, "the links are fresh");
        let link = world
            .lane_link(second, first)
            .expect("both settled, in a cycle");
        assert!(link.single_lane);
        assert_eq!(
            world.single_lane_cycle(second, Some(link)),
            Some(vec![second, first])
        );
        // The agent with the turn (added last) yields at once, out of the door's way.
        let (mut world, _, second) = facing("doorway", a, b, 2.5, 0.7);
        match world.query(second).unwrap() {
            Order::Reroute { reroute, .. } => assert_eq!(reroute.reason, RerouteReason::Yield),
            other => panic!("expected a yield, got {other:?}"),
        }

        // Not before both have stood for the reversal hold (0.6 s)...
        let (world, first, second) = facing("doorway", a, b, 2.5, 0.3);
        assert_eq!(world.lane_link(second, first), None);
        assert_eq!(world.single_lane_cycle(second, None), None);
        // ... nor before one of them has stood for the deadlock time (2 s).
        let (world, first, second) = facing("doorway", a, b, 1.5, 1.5);
        let link = world.lane_link(second, first).unwrap();
        assert_eq!(world.single_lane_cycle(second, Some(link)), None);
    }

    #[test]
    fn a_cycle_in_a_corridor_wide_enough_for_two_waits_for_the_deadlock_time() {
        // The 2.4 m corridor: two agents of radius 0.4 pass each other there.
        let (a, b) = (DVec2::new(10.0, 1.2), DVec2::new(12.2, 1.2));
        let (mut world, first, second) = facing("corridor", a, b, 2.5, 2.5);
        let link = world
            .lane_link(second, first)
            .expect("both settled, in a cycle");
        assert!(!link.single_lane);
        assert_eq!(world.single_lane_cycle(second, Some(link)), None);
        // Once the links have lasted the deadlock time, the cycle counts as before.
        world.agents[first].waiting_on = Some((second, world.time - 2.0));
        world.agents[second].waiting_on = Some((first, world.time - 2.0));
        assert_eq!(world.waiting_cycle(second), Some(vec![second, first]));
    }

    #[test]
    fn a_kept_measure_holds_while_the_agent_waited_on_stands_where_it_was_measured() {
        let (a, b) = (DVec2::new(8.9, 5.0), DVec2::new(11.1, 5.0));
        let (mut world, first, second) = facing("doorway", a, b, 2.5, 2.5);
        let link = world.lane_link(second, first).unwrap();
        world.agents[second].lane_link = Some(LaneLink {
            single_lane: false,
            ..link
        });
        // Kept: the measure is not taken again.
        assert!(!world.lane_link(second, first).unwrap().single_lane);
        // The agent waited on stands elsewhere now (given a new rail there): measured again.
        let moved = Rail::from_points(&[DVec2::new(9.0, 5.1), DVec2::new(15.0, 5.1)]).unwrap();
        world.set_rail(first, moved).unwrap();
        world.set_motion(first, Motion::standing(0.0)).unwrap();
        world.agents[first].waiting_on = Some((second, world.time));
        assert!(world.lane_link(second, first).unwrap().single_lane);
    }
}
