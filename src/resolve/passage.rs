//! One way at a time through single-lane stretches (a door, a corridor one agent wide): an
//! agent about to enter one stops short of it while an agent coming the other way is in it, or
//! goes first by the turn order below.
//!
//! Without it, two agents meeting head-on in a corridor that leaves no room to pass both walked
//! in, met in the middle and stood until the deadlock rule sent one back out (long-corridor:
//! 10 m walked back). The turn order, the same from both ends, so that one waits and the other
//! goes: an agent in the stretch (or too near its entry to stop short of it) first; then one
//! that has stood before its entry for [`PATIENCE`] or longer, the longest first (the other
//! side's stream gives way to it); then one following an agent through the stretch its way
//! ([`FOLLOW_TIME`]), the sooner to arrive first; then the sooner to arrive at its entry at its
//! speed (agents standing come last); ties to the lower key.
//!
//! The turn goes to a side, not to one agent: an agent coming to the stretch goes when the best
//! turn among the agents coming to it its way (its own among them) is before the best turn of
//! those coming the other way. Turns taken agent by agent waited in circles at a crowded door:
//! the agent with the best turn on one side could not start for an agent of its own side
//! standing before it, which waited for the other side's best, which waited for the first
//! (doorway-crowd, 18 s with no one in the door; docs/ROBUSTNESS.md, session 34).

use crate::rail::Rail;
use crate::world::{plan_of, AgentDesc, AgentKey, Narrow, Phase, World};
use crate::AvoidanceConfig;
use glam::DVec2;

/// How far short of a single-lane stretch an agent waits, in its radii: room for the agents
/// coming out to pass beside it where the way widens (at 2.5 radii, the agents waiting at a
/// crowded door's mouths stood in the way out: doorway-crowd reached 8 of 20).
pub(super) const WAIT_RADII: f64 = 5.0;

/// An agent standing before a stretch this long, seconds, goes before agents that have not yet
/// come too near their own entry to stop: the other side's stream gives way in turns of a few
/// agents, not one by one (at 2 s, doorway-crowd's travel time ratio was 7.35, at 5 s 5.21).
/// Since the turn goes to a side (session 34), 8 s: a side's stream finishes before the other
/// claims the door (24 jittered runs of doorway-crowd: 5.93 at 5 s, 5.11 at 8 s, 5.21 at 12 s;
/// docs/ROBUSTNESS.md, session 34).
const PATIENCE: f64 = 8.0;

/// An agent coming the other way counts from this far before its entry, seconds at its speed
/// (the sweep's horizon is 2 s by default: an agent further off is not yet in anyone's way).
const CLAIM_TIME: f64 = 3.0;

/// An agent this near its entry, seconds at its preferred speed, while an agent going its way
/// is in the stretch ahead of it, follows that agent through: it goes before agents coming the
/// other way that have not stood for [`PATIENCE`] (a door changes direction only when it has
/// emptied, so a file going one way keeps the door rather than alternating agent by agent; a
/// follower stopped behind its leader outside the door kept its turn only after standing 5 s:
/// doorway-two-way changed direction three times, travel time ratio 1.64). Longer than the
/// wait before an entry ([`WAIT_RADII`] radii: 1.4 s at 1.4 m/s for 0.4 m agents), so that an
/// agent waiting there follows.
const FOLLOW_TIME: f64 = 2.0;

/// Where an agent stands in the turn order of a stretch: lower goes first.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Turn {
    /// 0: in the stretch, or too near to stop short of it; 1: coming.
    class: u8,
    /// Within the class: seconds to its entry; minus the time stood, for an agent that has
    /// stood for [`PATIENCE`]; infinite for one standing less long.
    time: f64,
}

/// How far short of a single-lane stretch an agent waits while two or more agents come
/// through it the other way first, in its radii: agents coming out of a stretch fan out toward
/// their goals, and a crowd waiting at its mouth stands in their ways (each steps aside, and
/// back, for each one). Random crowds of 20 at doorway, mesh-rooms and long-corridor (3
/// jittered runs of 24 files each) arrived 843 of 2,160 times waiting at 5 radii, 952 at 8,
/// 996 at 10, 1,013 at 12 (builds with this constant changed); doorway-crowd's travel time
/// ratio over 24 jittered runs went 5.47 → 4.00 at 10 (docs/ROBUSTNESS.md, session 34). Against one agent coming, [`WAIT_RADII`]:
/// the wait is the nearer, and long-corridor-head-on's second agent walks less.
pub(super) const STREAM_WAIT_RADII: f64 = 10.0;

/// The turn an agent waits for at a single-lane stretch ([`passage_turn`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct TurnAfter {
    /// The stretch, on the waiting agent's rail.
    pub narrow: Narrow,
    /// The agent coming the other way that goes first (the best turn of the other side).
    pub after: AgentKey,
    /// Whether two or more agents of the other side go first.
    pub stream: bool,
}

impl TurnAfter {
    /// How far short of the stretch to wait, in the agent's radii.
    pub fn wait_radii(&self) -> f64 {
        if self.stream {
            STREAM_WAIT_RADII
        } else {
            WAIT_RADII
        }
    }
}

/// The turn agent `key` must wait for, in the next single-lane stretch of its rail: `None`
/// when there is no stretch ahead within `look` metres of its entry, or it goes first.
pub(super) fn passage_turn(
    world: &World,
    key: AgentKey,
    look: f64,
    candidates: &mut Vec<u32>,
) -> Option<TurnAfter> {
    if !world.config().single_lane_turns {
        return None;
    }
    let agent = &world.agents[key];
    let rail = agent.rail()?;
    let s = agent.motion.s;
    let radius = agent.desc().radius;
    let narrow = agent.next_narrow()?;
    if narrow.s_in - s > look {
        return None;
    }
    let config = world.config();
    let ours = StretchEnds::of(rail, narrow);
    let (entry, exit) = (ours.entry, ours.exit);
    // Anyone in the stretch or coming to it from either end within the claim time (at its
    // speed, or its preferred speed if slower or standing).
    let reach = 0.5 * (narrow.s_out - narrow.s_in)
        + world.max_speed.max(world.max_preferred_speed) * CLAIM_TIME
        + world.max_radius
        + radius
        + 2.0 * config.margin;
    let centre = rail.position(0.5 * (narrow.s_in + narrow.s_out));
    candidates.clear();
    world.grid.near(centre, reach, candidates);
    let own = turn_of(
        world,
        key,
        narrow.s_in - s,
        follows_through(world, key, narrow, candidates),
    );
    let width = 4.0 * radius + 2.0 * config.margin;
    // The best two turns of the agents coming the other way.
    let mut first: Option<(Turn, AgentKey)> = None;
    let mut second: Option<(Turn, AgentKey)> = None;
    // The best turn of the agents coming to the stretch our way, ours among them.
    let mut side = (own, key);
    for &i in candidates.iter() {
        let other_key = world.dense[i as usize];
        if other_key == key {
            continue;
        }
        let other = &world.agents[other_key];
        // One waiting on this agent lets it go first (it waits for this stretch, or stands
        // in the way for other reasons: then the deadlock rule, not the turn order, decides).
        if !other.wants_to_move() || other.waiting_on.is_some_and(|(k, _)| k == key) {
            continue;
        }
        // Nor does one standing stuck, waiting on another for the deadlock time (a jam): the
        // deadlock rule and the requests to make way free the stretch, not waiting for it.
        let stuck = other.motion.phase == Phase::Standing
            && other
                .waiting_on
                .is_some_and(|(_, since)| world.time - since >= config.deadlock_time);
        if stuck {
            continue;
        }
        let Some(other_rail) = other.rail() else {
            continue;
        };
        let position = other.position();
        let radii = radius + other.desc().radius + 2.0 * config.margin;
        // In the stretch, heading out at our end. Within both radii of a point of the rail at
        // most the radii beyond the stretch, so within half its length and twice the radii of
        // its middle (an arclength is no shorter than its chord): the nearest point of the
        // rail, a search along it, is sought only then (exact; most agents near are not).
        let inside = position.distance(centre) <= 0.5 * (narrow.s_out - narrow.s_in) + 2.0 * radii
            && {
                let at = rail.closest_s(position);
                at >= narrow.s_in - radii
                    && at <= narrow.s_out + radii
                    && rail.position(at).distance(position) <= radii
                    && other.direction().dot(rail.tangent(at)) < 0.0
            };
        let turn = if inside {
            Turn {
                class: 0,
                time: 0.0,
            }
        } else {
            // Coming to the same stretch from its far end: its next stretch runs from near our
            // exit to near our entry.
            let Some(theirs) = other.next_narrow() else {
                continue;
            };
            // Coming to it from our end, our way: its turn is our side's (not one in the
            // stretch or too near to stop: the side would keep the door while it streams;
            // followers have their own rule).
            if ours.passed_the_same_way(other_rail, theirs, width) {
                let follows = follows_through(world, other_key, theirs, candidates);
                let turn = turn_of(world, other_key, theirs.s_in - other.motion.s, follows);
                let speed = other.motion.speed.max(other.desc().preferred_speed);
                if turn.class == 1
                    && (theirs.s_in - other.motion.s) <= speed * CLAIM_TIME
                    && (turn, other_key) < side
                {
                    side = (turn, other_key);
                }
                continue;
            }
            if other_rail.position(theirs.s_in).distance(exit) > width
                || other_rail.position(theirs.s_out).distance(entry) > width
                || other_rail
                    .tangent(theirs.s_in)
                    .dot(rail.tangent(narrow.s_out))
                    >= 0.0
            {
                continue;
            }
            let follows = follows_through(world, other_key, theirs, candidates);
            let turn = turn_of(world, other_key, theirs.s_in - other.motion.s, follows);
            let speed = other.motion.speed.max(other.desc().preferred_speed);
            if turn.class == 1 && (theirs.s_in - other.motion.s) > speed * CLAIM_TIME {
                continue;
            }
            turn
        };
        let this = (turn, other_key);
        if first.is_none_or(|best| this < best) {
            second = first;
            first = Some(this);
        } else if second.is_none_or(|next| this < next) {
            second = Some(this);
        }
    }
    let first = first?;
    (first < side).then(|| TurnAfter {
        narrow,
        after: first.1,
        stream: second.is_some_and(|next| next < side),
    })
}

/// A stretch's ends on a rail, and the rail's direction at its entry.
#[derive(Clone, Copy, Debug)]
struct StretchEnds {
    entry: DVec2,
    exit: DVec2,
    direction: DVec2,
}

impl StretchEnds {
    fn of(rail: &Rail, narrow: Narrow) -> StretchEnds {
        StretchEnds {
            entry: rail.position(narrow.s_in),
            exit: rail.position(narrow.s_out),
            direction: rail.tangent(narrow.s_in),
        }
    }

    /// Whether the stretch `theirs` of `other_rail` is this one passed the same way: its entry
    /// within `width` of the entry, its exit of the exit, and its direction at the entry
    /// within 90° of ours.
    fn passed_the_same_way(&self, other_rail: &Rail, theirs: Narrow, width: f64) -> bool {
        other_rail.position(theirs.s_in).distance(self.entry) <= width
            && other_rail.position(theirs.s_out).distance(self.exit) <= width
            && other_rail.tangent(theirs.s_in).dot(self.direction) > 0.0
    }
}

/// How far a standing agent described by `desc` walks from its start before it could stop
/// again, metres: the start transition, the reversal hold at its preferred speed, and the stop.
/// It looks for its turn at a stretch this far, plus the wait short of it.
pub(super) fn start_walk(desc: &AgentDesc, config: &AvoidanceConfig) -> f64 {
    let preferred = desc.preferred_speed;
    desc.start.distance + preferred * config.reversal_hold + desc.stop_distance(preferred)
}

/// Whether `other` stands before a single-lane stretch that `key` has entered (it is in it, too
/// near its entry to stop short of it, or has come out of it and not entered another) from the
/// other end, near enough to its entry to be waiting there for its turn: it waits for `key`'s
/// side to come through, and will not start while `key` comes.
pub(super) fn waits_for_our_side(world: &World, key: AgentKey, other: AgentKey) -> bool {
    let (agent, other) = (&world.agents[key], &world.agents[other]);
    if other.plan.moves() || !other.wants_to_move() {
        return false;
    }
    let (Some(rail), Some(other_rail), Some(ours)) =
        (agent.rail(), other.rail(), agent.narrows.as_deref())
    else {
        return false;
    };
    let Some(theirs) = other.next_narrow() else {
        return false;
    };
    // As far from its entry as a standing agent looks for its turn (`decide_standing`).
    let other_desc = other.desc();
    let looks = start_walk(other_desc, world.config()) + STREAM_WAIT_RADII * other_desc.radius;
    if theirs.s_in - other.motion.s > looks {
        return false;
    }
    let desc = agent.desc();
    let width = 4.0 * desc.radius + 2.0 * world.config().margin;
    // The last stretch it is in, committed to, or came out of.
    let committed = agent.motion.s + desc.stop_distance(agent.motion.speed) + desc.radius;
    let Some(&ours) = ours.iter().rev().find(|n| n.s_in <= committed) else {
        return false;
    };
    let ends = StretchEnds::of(rail, ours);
    other_rail.position(theirs.s_in).distance(ends.exit) <= width
        && other_rail.position(theirs.s_out).distance(ends.entry) <= width
        && other_rail.tangent(theirs.s_in).dot(ends.direction) < 0.0
}

/// Whether `other`'s next single-lane stretch is the stretch `narrow` of `key`'s rail, which it
/// passes `key`'s way (the width of a stretch: two of `key`'s radii and the margins).
pub(super) fn waits_for_the_same_turn(
    world: &World,
    key: AgentKey,
    narrow: Narrow,
    other: AgentKey,
) -> bool {
    let (agent, other) = (&world.agents[key], &world.agents[other]);
    let (Some(rail), Some(other_rail)) = (agent.rail(), other.rail()) else {
        return false;
    };
    let Some(theirs) = other.next_narrow() else {
        return false;
    };
    let width = 4.0 * agent.desc().radius + 2.0 * world.config().margin;
    StretchEnds::of(rail, narrow).passed_the_same_way(other_rail, theirs, width)
}

/// Whether agent `key`, before the stretch `narrow` of its rail, follows an agent going its way
/// through it ([`FOLLOW_TIME`]); `near` holds the dense indices of the agents near the stretch.
fn follows_through(world: &World, key: AgentKey, narrow: Narrow, near: &[u32]) -> bool {
    let agent = &world.agents[key];
    let Some(rail) = agent.rail() else {
        return false;
    };
    let ahead = narrow.s_in - agent.motion.s;
    if ahead > agent.desc().preferred_speed * FOLLOW_TIME {
        return false;
    }
    let margin = world.config().margin;
    near.iter().any(|&i| {
        let other_key = world.dense[i as usize];
        if other_key == key {
            return false;
        }
        let other = &world.agents[other_key];
        if !other.wants_to_move() {
            return false;
        }
        // A leader standing in the stretch (stuck there) leads no one through.
        if !other.plan.moves() {
            return false;
        }
        let radii = agent.desc().radius + other.desc().radius + 2.0 * margin;
        let position = other.position();
        let at = rail.closest_s(position);
        at >= narrow.s_in - radii
            && at <= narrow.s_out
            && at > agent.motion.s
            && rail.position(at).distance(position) <= radii
            && other.direction().dot(rail.tangent(at)) > 0.0
    })
}

/// The turn of agent `key`, `ahead` metres before the entry of a stretch; `follows`: it follows
/// an agent going its way through the stretch ([`follows_through`]).
fn turn_of(world: &World, key: AgentKey, ahead: f64, follows: bool) -> Turn {
    let agent = &world.agents[key];
    let motion = agent.motion;
    // A follower goes before the agents coming the other way that have not stood for
    // `PATIENCE`, in the order it would reach the entry; one that has stood as long goes first.
    let follower = |speed: f64| Turn {
        class: 1,
        time: ahead / speed.max(1e-3) - PATIENCE,
    };
    match motion.phase {
        Phase::Standing => {
            let stood = world.time - agent.stood_since;
            if stood >= PATIENCE {
                Turn {
                    class: 1,
                    time: -stood,
                }
            } else if follows {
                follower(agent.desc().preferred_speed)
            } else {
                Turn {
                    class: 1,
                    time: f64::INFINITY,
                }
            }
        }
        _ => {
            let plan = plan_of(agent.desc(), &motion);
            let stop = agent
                .desc()
                .stop_distance(motion.speed.max(plan.max_speed()));
            if ahead <= stop {
                Turn {
                    class: 0,
                    time: 0.0,
                }
            } else if follows {
                follower(plan.max_speed())
            } else {
                Turn {
                    class: 1,
                    time: ahead / plan.max_speed().max(1e-3),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Motion;
    use crate::{AvoidanceConfig, DVec2};

    /// `doorway`: a 1.2 m door through a 1 m wall at x 9.5 to 10.5, y 4.4 to 5.6.
    fn doorway() -> World {
        World::new(
            crate::level::fixture_level("doorway"),
            AvoidanceConfig::default(),
        )
        .unwrap()
    }

    /// A 0.4 m agent walking at 0.8 or 1.4 m/s on a straight rail from `from` to `to`.
    fn agent(world: &mut World, from: DVec2, to: DVec2, motion: Motion) -> AgentKey {
        crate::world::line_agent(world, from, to, &[0.8, 1.4], motion)
    }

    /// Who the follower and the walker of [`follower_and_walker`] wait on.
    struct Waits {
        leader: AgentKey,
        walker: AgentKey,
        follower_waits_on: Option<AgentKey>,
        walker_waits_on: Option<AgentKey>,
        /// Whether two or more go before the walker ([`TurnAfter::stream`]).
        walker_sees_a_stream: bool,
    }

    /// A leader on its way into the door westward (`leader_motion`), an agent standing 1 m
    /// behind it going the same way, and a walker coming east to the door, 2.5 m from it (2.5 s
    /// from the follower's entry at its preferred speed, 1.8 s for the walker).
    fn follower_and_walker(leader_motion: Motion) -> Waits {
        let mut world = doorway();
        let leader = agent(
            &mut world,
            DVec2::new(12.0, 5.0),
            DVec2::new(2.0, 4.0),
            leader_motion,
        );
        let follower = agent(
            &mut world,
            DVec2::new(13.0, 5.0),
            DVec2::new(2.0, 6.0),
            Motion::standing(0.0),
        );
        let walker = agent(
            &mut world,
            DVec2::new(7.0, 5.0),
            DVec2::new(18.0, 5.0),
            Motion::moving(0.0, 1.4),
        );
        world.begin_frame(1.0 / 30.0);
        world.ensure_grid();
        let mut candidates = Vec::new();
        let mut turn = |key| passage_turn(&world, key, 10.0, &mut candidates);
        let follower_waits_on = turn(follower).map(|t| t.after);
        let walker_turn = turn(walker);
        Waits {
            leader,
            walker,
            follower_waits_on,
            walker_waits_on: walker_turn.map(|t| t.after),
            walker_sees_a_stream: walker_turn.is_some_and(|t| t.stream),
        }
    }

    #[test]
    fn an_agent_close_behind_a_leader_in_the_door_follows_it_through_first() {
        // The leader is 1.2 m along its rail, 0.3 m short of the wall's face (within the radii
        // and margins of the stretch): the standing agent behind it goes before the walker coming the
        // other way, which is sooner to the door. Without the follow rule, an agent standing
        // less than 5 s came last, and the door changed direction after each agent.
        let waits = follower_and_walker(Motion::moving(1.2, 1.4));
        assert_eq!(waits.follower_waits_on, None);
        assert_eq!(waits.walker_waits_on, Some(waits.leader));
        // Both go before the walker: it waits the further back (`STREAM_WAIT_RADII`).
        assert!(waits.walker_sees_a_stream);
    }

    #[test]
    fn the_turn_goes_to_the_side_of_the_agent_that_has_stood_longest() {
        // Two agents standing west of the door, going east: one 3 m from the door, 10 s stood,
        // one in front of it, 3 s stood; one standing east of it, going west, 8 s stood. The
        // west side has the turn: the agent in front goes (the one behind could not start
        // before it), and the east agent waits on the longest stander. Turns taken agent by
        // agent, the one in front waited on the east agent, which waited on the one behind.
        let mut world = doorway();
        let east = DVec2::new(18.0, 5.0);
        let west = DVec2::new(2.0, 5.0);
        let behind = agent(
            &mut world,
            DVec2::new(6.5, 5.0),
            east,
            Motion::standing(0.0),
        );
        let front = agent(
            &mut world,
            DVec2::new(7.5, 5.0),
            east,
            Motion::standing(0.0),
        );
        let across = agent(
            &mut world,
            DVec2::new(12.5, 5.0),
            west,
            Motion::standing(0.0),
        );
        world.begin_frame(1.0 / 30.0);
        for (key, stood) in [(behind, 10.0), (front, 3.0), (across, 8.0)] {
            world.agents[key].stood_since = world.time - stood;
        }
        world.ensure_grid();
        let mut candidates = Vec::new();
        let mut waits_on = |key| passage_turn(&world, key, 10.0, &mut candidates).map(|t| t.after);
        assert_eq!(waits_on(front), None);
        assert_eq!(waits_on(behind), None);
        assert_eq!(waits_on(across), Some(behind));
    }

    #[test]
    fn a_leader_standing_in_the_door_leads_no_one_through() {
        // The same, the leader standing (stuck) in its approach: the agent behind it takes its
        // turn as any standing agent, after the walker.
        let waits = follower_and_walker(Motion::standing(1.2));
        assert_eq!(waits.follower_waits_on, Some(waits.walker));
        assert_eq!(waits.walker_waits_on, Some(waits.leader));
        assert!(!waits.walker_sees_a_stream);
    }
}
