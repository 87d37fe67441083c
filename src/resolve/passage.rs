//! One way at a time through single-lane stretches (a door, a corridor one agent wide): an
//! agent about to enter one stops short of it while an agent coming the other way is in it, or
//! goes first by the turn order below.
//!
//! Without it, two agents meeting head-on in a corridor that leaves no room to pass both walked
//! in, met in the middle and stood until the deadlock rule sent one back out (long-corridor:
//! 10 m walked back). The turn order, the same from both ends, so that one waits and the other
//! goes: an agent in the stretch (or too near its entry to stop short of it) first; then one
//! that has stood before its entry for [`PATIENCE`] or longer, the longest first (the other
//! side's stream gives way to it); then the sooner to arrive at its entry at its speed (agents
//! standing come last); ties to the lower key.

use crate::world::{plan_of, AgentKey, Narrow, Phase, World};

/// How far short of a single-lane stretch an agent waits, in its radii: room for the agents
/// coming out to pass beside it where the way widens (at 2.5 radii, the agents waiting at a
/// crowded door's mouths stood in the way out: doorway-crowd reached 8 of 20).
pub(super) const WAIT_RADII: f64 = 5.0;

/// An agent standing before a stretch this long, seconds, goes before agents that have not yet
/// come too near their own entry to stop: the other side's stream gives way in turns of a few
/// agents, not one by one (at 2 s, doorway-crowd's travel time ratio was 7.35, at 5 s 5.21).
const PATIENCE: f64 = 5.0;

/// An agent coming the other way counts from this far before its entry, seconds at its speed
/// (the sweep's horizon is 2 s by default: an agent further off is not yet in anyone's way).
const CLAIM_TIME: f64 = 3.0;

/// Where an agent stands in the turn order of a stretch: lower goes first.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Turn {
    /// 0: in the stretch, or too near to stop short of it; 1: coming.
    class: u8,
    /// Within the class: seconds to its entry; minus the time stood, for an agent that has
    /// stood for [`PATIENCE`]; infinite for one standing less long.
    time: f64,
}

/// The agent `key` must let through first, in the next single-lane stretch of its rail, and
/// that stretch: `None` when there is no stretch ahead within `look` metres of its entry, or it
/// goes first.
pub(super) fn passage_turn(
    world: &World,
    key: AgentKey,
    look: f64,
    candidates: &mut Vec<u32>,
) -> Option<(Narrow, AgentKey)> {
    if !world.config().single_lane_turns {
        return None;
    }
    let agent = &world.agents[key];
    let rail = agent.rail()?;
    let s = agent.motion.s;
    let radius = agent.desc().radius;
    let narrow = *agent.narrows.as_deref()?.iter().find(|n| n.s_in > s)?;
    if narrow.s_in - s > look {
        return None;
    }
    let own = turn_of(world, key, narrow.s_in - s);
    let config = world.config();
    let entry = rail.position(narrow.s_in);
    let exit = rail.position(narrow.s_out);
    // Anyone in the stretch or coming to it from the far end within the claim time.
    let reach = 0.5 * (narrow.s_out - narrow.s_in)
        + world.max_speed * CLAIM_TIME
        + world.max_radius
        + radius
        + 2.0 * config.margin;
    let centre = rail.position(0.5 * (narrow.s_in + narrow.s_out));
    candidates.clear();
    world.grid.near(centre, reach, candidates);
    let width = 4.0 * radius + 2.0 * config.margin;
    let mut first: Option<(Turn, AgentKey)> = None;
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
        // In the stretch, heading out at our end.
        let at = rail.closest_s(position);
        let inside = at >= narrow.s_in - radii
            && at <= narrow.s_out + radii
            && rail.position(at).distance(position) <= radii
            && other.direction().dot(rail.tangent(at)) < 0.0;
        let turn = if inside {
            Turn {
                class: 0,
                time: 0.0,
            }
        } else {
            // Coming to the same stretch from its far end: its next stretch runs from near our
            // exit to near our entry.
            let Some(theirs) = other
                .narrows
                .as_deref()
                .and_then(|n| n.iter().find(|n| n.s_in > other.motion.s))
            else {
                continue;
            };
            if other_rail.position(theirs.s_in).distance(exit) > width
                || other_rail.position(theirs.s_out).distance(entry) > width
                || other_rail
                    .tangent(theirs.s_in)
                    .dot(rail.tangent(narrow.s_out))
                    >= 0.0
            {
                continue;
            }
            let turn = turn_of(world, other_key, theirs.s_in - other.motion.s);
            let speed = other.motion.speed.max(other.desc().preferred_speed);
            if turn.class == 1 && (theirs.s_in - other.motion.s) > speed * CLAIM_TIME {
                continue;
            }
            turn
        };
        if first.is_none_or(|(best, best_key)| (turn, other_key) < (best, best_key)) {
            first = Some((turn, other_key));
        }
    }
    let (turn, other_key) = first?;
    ((turn, other_key) < (own, key)).then_some((narrow, other_key))
}

/// The turn of agent `key`, `ahead` metres before the entry of a stretch.
fn turn_of(world: &World, key: AgentKey, ahead: f64) -> Turn {
    let agent = &world.agents[key];
    let motion = agent.motion;
    match motion.phase {
        Phase::Standing => {
            let stood = world.time - agent.stood_since;
            Turn {
                class: 1,
                time: if stood >= PATIENCE {
                    -stood
                } else {
                    f64::INFINITY
                },
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
            } else {
                Turn {
                    class: 1,
                    time: ahead / plan.max_speed().max(1e-3),
                }
            }
        }
    }
}
