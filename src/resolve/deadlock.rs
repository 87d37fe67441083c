//! Deadlock breaking: agents standing and waiting on each other in a cycle for too long; one
//! of them yields to a spot off the others' rails, waits there until the way is clear, then
//! goes on to its goal.

use std::sync::Arc;

use glam::DVec2;

use super::destination::{ring_points, RING_STEP_RADII};
use super::order::{Order, Reroute, RerouteReason, StartVerdict};
use super::rewrite::segment_is_clear;
use super::trivial::{start_verdict, Decision, Hysteresis};
use crate::detect::SweepSample;
use crate::geometry::closest_on_segment;
use crate::rail::Rail;
use crate::world::{Agent, AgentKey, World};

mod narrow;

pub(crate) use narrow::LaneLink;

/// What [`World::break_deadlock`] found.
pub(super) enum DeadlockOutcome {
    /// No deadlock through this agent (cheap to find out).
    None,
    /// A deadlock, and this agent looked for a yield spot and found none: the search was
    /// costly (it counts against the frame's budget), so it waits before looking again, and the
    /// next member in rank gets the turn. It asks the agent that boxes it in, if any
    /// ([`World::boxing_in`]), to make way.
    Searched { ask: Option<AgentKey> },
    /// A deadlock, but another member has the turn to look for a yield spot: this agent only
    /// walked the cycle (cheap, not counted against the budget), and waits.
    NotItsTurn,
    /// This agent yields.
    Yield(Box<Decision>),
}

/// Longest waiting cycle looked for (agents).
/// A tight yield spot keeps the radii and margins grown by this factor from the others' ways
/// (1 %, so that their sweeps, which count a touch at exactly the radii, find none).
const TIGHT_GROWTH: f64 = 1.01;

const MAX_CYCLE: usize = 16;

/// Rings tried around the yielding agent for a yield spot (out to 24 × 0.5 = 12 radii).
const YIELD_RINGS: usize = 24;

/// Yield-spot searches allowed per frame in the whole world (each can cost milliseconds in a
/// dense crowd); the agents over the budget look on a later frame. Four since agents
/// stuck in a jam make way too (two served tradeshow-1000's ~380 queue heads too slowly: 202
/// arrivals against 230, at no higher cost per frame once the spots tested only the nearby
/// chords of the other agents' ways; docs/PERFORMANCE.md, "Real levels").
pub(super) const YIELD_SEARCHES_PER_FRAME: u32 = 4;

/// An agent that stepped aside goes back after this long even if the one it made way for has
/// not passed (it may be stuck behind others), seconds.
const MAKE_WAY_PATIENCE: f64 = 20.0;

/// Yield spots that cannot be reached in a straight line are tried with a planned rail, at
/// most this many (each is a path query) on the rings, and as many again along the ways.
const PLANNED_TRIES: usize = 8;

/// How far along the other members' ways a yield spot is looked for when the rings have none,
/// in agent radii from the yielding agent (16 m for 0.4 m agents): out of a long corridor.
const YIELD_WAY_RADII: f64 = 40.0;

/// Stations along the other members' ways where yield spots are tried, one radius apart.
const YIELD_WAY_STEP_RADII: f64 = 1.0;

/// Spots tried each side of a way at each station along it: the first a quarter radius clear
/// of the way, then a half radius further out each.
const YIELD_WAY_OFFSETS: usize = 3;

/// A pair face to face looks for a passing spot (`SpotSearch::passing`) once each has waited
/// on the other this many deadlock times (3 s by default): a second of ordinary searches first,
/// which in a crowd often find a spot as the others move. Sooner (at the deadlock time), the
/// committed tradeshow-300 took passing spots where it found ordinary ones later, and two
/// orders flipped; with the second, it plays as before (docs/ROBUSTNESS.md, session 21).
const PASSING_PATIENCE: f64 = 1.5;

/// At most this many agents' ways are kept clear by one step aside ([`World::step_aside_for`]).
pub(super) const STEP_ASIDE_WAYS: usize = 4;

/// How far along its rail an agent's heading looks for [`World::face_to_face`], in its radii:
/// past a bend's first turn toward the wall, to where the bend runs along the way.
const HEADING_RADII: f64 = 4.0;

/// How near a deadlocked agent with no yield spot an agent waiting on it must stand to be
/// asked to make way, in sums of the radii.
const BOXING_RADII: f64 = 2.0;

/// Chords of a way tested together against a spot's distance from their bounding circle.
const CHORD_RUN: usize = 16;

impl World {
    /// The agents `key` waits on, in order, back to `key` itself, if they form a cycle of agents
    /// standing and waiting on the next one for at least the deadlock time (`key` first).
    pub(crate) fn waiting_cycle(&self, key: AgentKey) -> Option<Vec<AgentKey>> {
        // Walk the chain first without allocating (this runs for every blocked agent, every
        // frame); collect it only when it closes.
        let now = self.time;
        let hold = self.config().deadlock_time;
        let next_of = |k: AgentKey| {
            let (next, since) = self.agents.get(k)?.waiting_on?;
            (now - since >= hold).then_some(next)
        };
        let mut current = key;
        let mut length = 0;
        loop {
            current = next_of(current)?;
            length += 1;
            if current == key {
                break;
            }
            if length >= MAX_CYCLE {
                // Too long, or a cycle that does not pass through `key` (its own members
                // break it).
                return None;
            }
        }
        let mut cycle = Vec::with_capacity(length);
        let mut current = key;
        for _ in 0..length {
            cycle.push(current);
            current = next_of(current)?;
        }
        Some(cycle)
    }

    /// Step 3 of [`World::query`] for a standing agent blocked by `blocker`: if it is in a
    /// deadlock and is the one to yield, the order sending it to a yield spot.
    ///
    /// The cycle's members are ranked by priority (lowest first), then by key (the most
    /// recently added first); the first that has a yield spot yields. Each member looks for
    /// its own spot on its own query, in rank order: one that found none is passed over for a
    /// while, so one deadlock gives one yield and one search per frame.
    pub(super) fn break_deadlock(
        &self,
        key: AgentKey,
        blocker: AgentKey,
        lane_link: Option<LaneLink>,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> DeadlockOutcome {
        let agent = &self.agents[key];
        if agent.waiting_on.map(|(k, _)| k) != Some(blocker) || self.time < agent.next_bend_time {
            return DeadlockOutcome::None;
        }
        if self.yield_searches >= YIELD_SEARCHES_PER_FRAME {
            return DeadlockOutcome::None;
        }
        // A cycle whose every link has lasted the deadlock time, or one through a place too
        // narrow for two agents to pass (`narrow`), however recent its links.
        let Some(cycle) = self
            .waiting_cycle(key)
            .or_else(|| self.single_lane_cycle(key, lane_link))
        else {
            return DeadlockOutcome::None;
        };
        self.yield_out_of(key, cycle, candidates, samples)
    }

    /// The yield order for `key` if it is the member of `cycle` to yield.
    fn yield_out_of(
        &self,
        key: AgentKey,
        mut cycle: Vec<AgentKey>,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> DeadlockOutcome {
        let agent = &self.agents[key];
        cycle.sort_by(|&a, &b| {
            let (pa, pb) = (
                self.agents[a].desc().priority,
                self.agents[b].desc().priority,
            );
            pa.cmp(&pb).then(b.cmp(&a))
        });
        for &member in &cycle {
            if member != key {
                if self.agents[member].cannot_yield_until > self.time {
                    // It looked and found no spot: the next one in rank yields.
                    continue;
                }
                // Its turn: it looks on its own query (one search per deadlock per frame).
                return DeadlockOutcome::NotItsTurn;
            }
            // An agent yielding again (on its way to a spot, or waiting there) keeps the goal
            // it will go on to: its rail ends at the last spot.
            let (Some((rail, via)), Some(goal)) = (
                self.yield_spot(key, &cycle, candidates, samples),
                agent.resume_goal.or(agent.rail().map(Rail::end)),
            ) else {
                return DeadlockOutcome::Searched {
                    ask: self.boxing_in(key, &cycle, candidates),
                };
            };
            let letting_pass = self.beside_the_way(key, &cycle, via);
            let decision = yield_decision(rail, via, goal, letting_pass);
            return DeadlockOutcome::Yield(Box::new(decision));
        }
        DeadlockOutcome::Searched { ask: None }
    }

    /// A rail for `key` to a yield spot off the ways of `others` (as for a deadlock of them
    /// all; at most [`STEP_ASIDE_WAYS`], the first counted), going on to its goal once the
    /// first of them has passed the spot: the order, or `None` when there is no spot or the
    /// frame's yield searches are used up. The caller records a failed search
    /// (`Decision::yield_failed`) when it matters.
    pub(super) fn step_aside_for(
        &self,
        key: AgentKey,
        others: &[AgentKey],
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<Decision> {
        let agent = &self.agents[key];
        let goal = agent.resume_goal.or(agent.rail().map(Rail::end))?;
        let first = *others.first()?;
        // The yielding agent and the others, on the stack (no allocation in the frame).
        let mut members = [key; STEP_ASIDE_WAYS + 1];
        let count = others.len().min(STEP_ASIDE_WAYS);
        members[1..=count].copy_from_slice(&others[..count]);
        // Tight spots too: the other agents pass one standing at the radii and margins (their
        // sweeps grow them only against agents that move).
        let (rail, via) =
            self.yield_spot_away(key, &members[..=count], None, true, candidates, samples)?;
        Some(yield_decision(rail, via, goal, Some(first)))
    }

    /// The agent nearest `key` (within [`BOXING_RADII`] of the radii) that stands waiting on it
    /// and is not in its `cycle`, which found no yield spot: asked to make way, it frees room
    /// for `key`'s next search. At a door two agents face to face, each with others queued
    /// close behind and beside it, found no spot for good (doorway-crowd with jittered starts,
    /// seed 2: agents 1 and 16 stood from 29 s to the end, 18 of 20 with them;
    /// docs/ROBUSTNESS.md, session 24).
    pub(crate) fn boxing_in(
        &self,
        key: AgentKey,
        cycle: &[AgentKey],
        candidates: &mut Vec<u32>,
    ) -> Option<AgentKey> {
        let agent = &self.agents[key];
        let reach = BOXING_RADII * (agent.desc().radius + self.max_radius);
        let from = agent.position();
        candidates.clear();
        self.grid.near(from, reach, candidates);
        candidates
            .iter()
            .map(|&i| self.dense[i as usize])
            .filter(|&k| k != key && !cycle.contains(&k))
            .filter_map(|k| {
                let other = &self.agents[k];
                let waits = other.waiting_on.is_some_and(|(w, _)| w == key);
                let d = other.position().distance(from);
                (waits && !other.plan.moves() && d <= reach && other.make_way_for.is_none())
                    .then_some((d, k))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, k)| k)
    }

    /// A yield spot for `key` out of the way of the other agents of `cycle`, and a rail to it
    /// from where it stands.
    ///
    /// Spots are tried on rings half a radius apart around the agent, nearest first; then, if
    /// none there will do, beside the other members' ways further on, nearest first along each
    /// way ([`YIELD_WAY_RADII`]): where the agents meet in a passage longer than the rings
    /// reach, the one that yields backs out of it. A spot must be on the mesh, keep the radius
    /// from walls, keep its radius plus theirs (and the margins, grown by the resume
    /// inflation) from the rest of the other members' rails and from every other agent, and be
    /// reachable: in a straight line that keeps the radius from walls and passes the other
    /// members at their radius plus its own, or else (a few tries) by a planned rail; and the
    /// start along that rail must not be blocked: collision-free now, or waiting for a walker to
    /// pass (the agent takes the rail and starts when its start check clears).
    pub(crate) fn yield_spot(
        &self,
        key: AgentKey,
        cycle: &[AgentKey],
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<(Rail, DVec2)> {
        self.yield_spot_away(key, cycle, None, false, candidates, samples)
    }

    /// [`World::yield_spot`], with every spot at least `away_from.1` metres from the point
    /// `away_from.0` when given; with `tight`, the tight spots and those the others pass on a
    /// lane beside are looked for whatever the cycle (they are otherwise only for a pair face
    /// to face, or an agent with nowhere to go asked to make way).
    fn yield_spot_away(
        &self,
        key: AgentKey,
        cycle: &[AgentKey],
        away_from: Option<(DVec2, f64)>,
        tight: bool,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<(Rail, DVec2)> {
        let radius = self.agents[key].desc().radius;
        let from = self.agents[key].position();
        let step = RING_STEP_RADII * radius;
        // Spots on the rings lie within this distance of the agent.
        let outer_ring = YIELD_RINGS as f64 * step;
        let mut search = SpotSearch::new(self, key, cycle, outer_ring);
        search.away_from = away_from;
        for spot in ring_points(from, step, YIELD_RINGS) {
            if let Some(found) = search.try_spot(spot, candidates, samples) {
                return Some(found);
            }
        }
        // Further on along the ways of the agents it yields to (a corridor too long for the
        // rings, tradeshow-1000 by its north wall: two agents stood face to face for 75 s).
        let reach = YIELD_WAY_RADII * radius;
        let mut search = SpotSearch::new(self, key, cycle, reach);
        search.away_from = away_from;
        for &member in cycle.iter().filter(|&&k| k != key) {
            let other = &self.agents[member];
            let Some(rail) = other.rail() else {
                continue;
            };
            // From the point of its way nearest the yielding agent, onward (away from the
            // other agent, which comes that way).
            let s0 = other.motion().s;
            let station_step = YIELD_WAY_STEP_RADII * radius;
            let stations = ((rail.length() - s0) / station_step).floor() as usize;
            let nearest = (0..=stations)
                .map(|i| s0 + i as f64 * station_step)
                .min_by(|&a, &b| {
                    let (pa, pb) = (rail.position(a), rail.position(b));
                    pa.distance_squared(from)
                        .total_cmp(&pb.distance_squared(from))
                })
                .unwrap_or(s0);
            let clearance = search.way_clearance(other);
            let mut s = nearest;
            while s <= rail.length() {
                let at = rail.sample(s);
                if at.position.distance(from) > reach {
                    break;
                }
                let normal = at.tangent.perp();
                for j in 0..YIELD_WAY_OFFSETS {
                    let offset = clearance + (j as f64 + 0.5) * step;
                    for side in [1.0, -1.0] {
                        let spot = at.position + normal * (side * offset);
                        if let Some(found) = search.try_spot(spot, candidates, samples) {
                            return Some(found);
                        }
                    }
                }
                s += station_step;
            }
        }
        // Last, a spot the others can pass on a lane beside it (`SpotSearch::passing`): two
        // agents face to face in a corridor too narrow to keep out of each other's ways but
        // wide enough to pass, each blocking the other's bend (a 2 m corridor, 0.4 m agents).
        if !(tight || self.face_to_face(key, cycle) || self.idle_in_the_way(key, cycle, away_from))
        {
            return None;
        }
        let mut search = SpotSearch::new(self, key, cycle, outer_ring);
        search.passing = true;
        search.away_from = away_from;
        if let Some(found) = ring_points(from, step, YIELD_RINGS)
            .find_map(|spot| search.try_spot(spot, candidates, samples))
        {
            return Some(found);
        }
        // Last of all, a tight spot: off the others' ways by the radii and margins only, not
        // the resume inflation. Two 0.4 m agents face to face in a 1.8 m corridor, or in a
        // 0.9 m one with a 1 m alcove, found no spot 1.08 m off the other's way (the corridor
        // has 1.0 m, the alcove 0.95 m) and stood for good (session 27; tried first, tight
        // spots closed a door's mouths: doorway-crowd 20 -> 13 of 20).
        let mut search = SpotSearch::with_growth(self, key, cycle, outer_ring, TIGHT_GROWTH);
        search.passing = true;
        search.away_from = away_from;
        if let Some(found) = ring_points(from, step, YIELD_RINGS)
            .find_map(|spot| search.try_spot(spot, candidates, samples))
        {
            return Some(found);
        }
        // The ring points are half a radius apart, and a tight spot can be smaller than that
        // (a 1 m alcove off a 0.9 m corridor leaves 0.2 by 0.09 m for a 0.4 m agent's centre):
        // beside each point of the others' ways within the ways' reach (`YIELD_WAY_RADII`, an
        // alcove 6 m back along the way), a quarter radius apart, the deepest spot straight off
        // the way on either side, the radius (and 1 mm) short of the wall there; with planned
        // tries of their own (the rings used them up on the spots round the alcove's mouth).
        let way_reach = YIELD_WAY_RADII * radius;
        let mut search = SpotSearch::with_growth(self, key, cycle, way_reach, TIGHT_GROWTH);
        search.passing = true;
        search.away_from = away_from;
        for &member in cycle.iter().filter(|&&k| k != key) {
            let Some(rail) = self.agents[member].rail() else {
                continue;
            };
            let s0 = self.agents[member].motion().s;
            let station_step = 0.25 * radius;
            let stations = ((rail.length() - s0) / station_step).floor() as usize;
            let mut cursor = rail.cursor();
            for i in 0..=stations {
                let at = cursor.sample(s0 + i as f64 * station_step);
                if at.position.distance(from) > way_reach {
                    continue;
                }
                for side in [1.0, -1.0] {
                    let normal = at.tangent.perp() * side;
                    let deepest =
                        self.level()
                            .navmesh()
                            .furthest_along(at.position, normal, outer_ring);
                    if !deepest.blocked {
                        continue;
                    }
                    let spot = deepest.point - normal * (radius + 1e-3);
                    if let Some(found) = search.try_spot(spot, candidates, samples) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// Whether `cycle` is `key` and one other agent, each going at the other (directions
    /// more than 135° apart) and each waiting on the other for [`PASSING_PATIENCE`] deadlock
    /// times: the pair for a passing spot.
    fn face_to_face(&self, key: AgentKey, cycle: &[AgentKey]) -> bool {
        let [a, b] = cycle else {
            return false;
        };
        let other = if *a == key { *b } else { *a };
        let (mine, theirs) = (self.heading(key), self.heading(other));
        let patience = PASSING_PATIENCE * self.config().deadlock_time;
        let long = |k: AgentKey, on: AgentKey| {
            self.agents[k]
                .waiting_on
                .is_some_and(|(w, since)| w == on && self.time - since >= patience)
        };
        mine.dot(theirs) < -std::f64::consts::FRAC_1_SQRT_2 && long(key, other) && long(other, key)
    }

    /// Where `key` is heading: toward its rail's point [`HEADING_RADII`] of its radii further
    /// on (its direction where that is degenerate). An agent that stopped on a bend stands
    /// turned across the corridor (two agents face to face in a 1.8 m corridor, one turned 50°
    /// toward the wall, were not seen as face to face and stood for good).
    fn heading(&self, key: AgentKey) -> DVec2 {
        let agent = &self.agents[key];
        let direction = agent.direction();
        let Some(rail) = agent.rail() else {
            return direction;
        };
        let ahead = rail.position(agent.motion().s + HEADING_RADII * agent.desc().radius);
        (ahead - agent.position())
            .try_normalize()
            .unwrap_or(direction)
    }

    /// Whether `key` has nowhere to go and is asked to make way for the other agent of `cycle`
    /// (not to leave room away from a point): it may step to a spot the other passes on a lane
    /// beside it. A slow walker arrived at its goal in the middle of a 2.4 m corridor, a metre
    /// short of the goal of the 0.4 m agent following it, kept the follower behind it for good:
    /// no spot in that corridor keeps out of the follower's way.
    fn idle_in_the_way(
        &self,
        key: AgentKey,
        cycle: &[AgentKey],
        away_from: Option<(DVec2, f64)>,
    ) -> bool {
        away_from.is_none() && cycle.len() == 2 && !self.agents[key].wants_to_move()
    }

    /// A standing agent at its yield spot: its rail on to `goal`, planned from where it stands.
    /// It takes the rail standing and starts on it as any standing agent does: when the start
    /// is collision-free; until then it waits on whoever blocks it (so a new deadlock through
    /// it is seen and broken), or bends around an agent that will not clear the way.
    pub(super) fn resume_from_yield(&self, key: AgentKey, goal: DVec2) -> Decision {
        let agent = &self.agents[key];
        let options = self.config().path_options(agent.desc().radius);
        match self
            .level()
            .navmesh()
            .plan_rail(agent.position(), goal, &options)
        {
            Ok(rail) => Decision::new(Order::Reroute {
                rail: Arc::new(rail),
                reroute: Reroute {
                    reason: RerouteReason::Resume,
                    via: goal,
                    side: None,
                },
            }),
            Err(_) => Decision::new(Order::Wait { clear_in: None }),
        }
    }

    /// An agent asked by `head` (which waits on it and that no bend or detour gets past, or
    /// which it waits on and boxes in, [`World::boxing_in`]) to make way: it yields to a spot
    /// off the head's rail (and, boxing in, a diameter further from the head), found as a yield
    /// spot out of a deadlock is. One with nowhere to go goes back to where it stood once the way there is
    /// clear; one stuck on its own way ([`World::stuck_in_a_jam`]) goes on from the spot to its
    /// goal, as a deadlock's yielding agent does. Yield searches share the per-frame budget: over
    /// it, `None` (the agent answers on a later frame, and meanwhile decides as usual). An agent
    /// that finds no spot is not asked again for a while.
    pub(super) fn make_way(
        &self,
        key: AgentKey,
        head: AgentKey,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<Decision> {
        let agent = &self.agents[key];
        // The order while it does not step aside: an agent with nowhere to go stays; one that
        // wants to go keeps waiting on its own blocker (its deadlock clock runs on).
        let mut decision = if agent.wants_to_move() {
            let mut waiting = Decision::new(Order::Wait { clear_in: None });
            waiting.waiting_on = agent.waiting_on.map(|(blocker, _)| blocker);
            waiting
        } else {
            Decision::new(Order::Continue)
        };
        // The head waits on it; or it waits on the head, which stands in a deadlock with no
        // yield spot (`World::boxing_in`): then it moves away from the head, by a diameter at
        // least, to leave the head room for a spot.
        let head_waits = self
            .agents
            .get(head)
            .is_some_and(|h| h.waiting_on.map(|(k, _)| k) == Some(key));
        let boxing_in = !head_waits
            && agent.waiting_on.map(|(k, _)| k) == Some(head)
            && self
                .agents
                .get(head)
                .is_some_and(|h| h.cannot_yield_until > self.time);
        if !(head_waits || boxing_in) || self.time < agent.cannot_yield_until {
            decision.answered_way = true;
            return Some(decision);
        }
        if self.yield_searches >= YIELD_SEARCHES_PER_FRAME {
            return None;
        }
        decision.answered_way = true;
        let away_from = boxing_in.then(|| {
            let at = self.agents[head].position();
            (
                at,
                at.distance(agent.position()) + 2.0 * agent.desc().radius,
            )
        });
        let Some((rail, via)) =
            self.yield_spot_away(key, &[key, head], away_from, false, candidates, samples)
        else {
            decision.yield_failed = true;
            return Some(decision);
        };
        let mut yielding = Decision::new(Order::Reroute {
            rail: Arc::new(rail),
            reroute: Reroute {
                reason: RerouteReason::Yield,
                via,
                side: None,
            },
        });
        yielding.answered_way = true;
        match agent.rail().filter(|_| agent.wants_to_move()) {
            // Stuck on its way: on to its goal from the spot, at once (the start check there
            // waits for the head to pass). An agent already yielding keeps the goal it will go
            // on to (its rail ends at the last spot: tradeshow-300, an agent asked to make way
            // on its way to a spot went on to that spot, and stood there for good).
            Some(rail) => yielding.resume_goal = Some(agent.resume_goal.unwrap_or(rail.end())),
            // Nowhere to go: back home once the head has passed (or on to the goal it was
            // going on to from a yield spot).
            None => {
                yielding.resume_goal = Some(agent.resume_goal.unwrap_or(agent.position()));
                yielding.making_way_for = Some(head);
            }
        }
        Some(yielding)
    }

    /// Whether standing agent `collider`, which `key` waits on, is stuck in a jam on its own
    /// way, so that it may be asked to make way as an agent with nowhere to go is: it stands
    /// and wants to go, has waited at least the deadlock time on an agent that stands too (an
    /// agent waiting for a moving flow, at a door, say, is taking its turn), and its chain of
    /// waits does not lead back to `key` (a cycle is the deadlock breaker's, which ranks who
    /// yields).
    pub(super) fn stuck_in_a_jam(&self, key: AgentKey, collider: AgentKey) -> bool {
        let Some(agent) = self.agents.get(collider) else {
            return false;
        };
        let Some((blocker, since)) = agent.waiting_on else {
            return false;
        };
        if agent.plan.moves()
            || !agent.wants_to_move()
            || self.time - since < self.config().deadlock_time
            || self.agents.get(blocker).is_none_or(|b| b.plan.moves())
        {
            return false;
        }
        let mut current = blocker;
        for _ in 0..MAX_CYCLE {
            if current == key {
                return false;
            }
            match self.agents.get(current).and_then(|a| a.waiting_on) {
                Some((next, _)) => current = next,
                None => return true,
            }
        }
        true
    }

    /// The other member of a two-agent `cycle` whose remaining way passes `spot` nearer than
    /// the resume check's clearance (a passing or tight spot, which it passes on a lane
    /// beside): the yielding agent waits at such a spot until it has gone by. Going on from it
    /// at once (the way there clear), the yielding agent turned back into the lane the other
    /// was about to take, and both stood again for good (two agents face to face in a 1.8 m
    /// corridor, session 27).
    fn beside_the_way(&self, key: AgentKey, cycle: &[AgentKey], spot: DVec2) -> Option<AgentKey> {
        let [a, b] = cycle else {
            return None;
        };
        let other = if *a == key { *b } else { *a };
        let grow = 1.0 + Hysteresis::resume(self.config()).inflation;
        self.way_passes(key, other, spot, grow).then_some(other)
    }

    /// Whether `other`'s remaining way passes within `key`'s and its radii and margins, grown
    /// by `grow`, of `point` (sampled a quarter of that apart along the way).
    pub(super) fn way_passes(
        &self,
        key: AgentKey,
        other: AgentKey,
        point: DVec2,
        grow: f64,
    ) -> bool {
        let (Some(agent), Some(other)) = (self.agents.get(key), self.agents.get(other)) else {
            return false;
        };
        let Some(rail) = other.rail() else {
            return false;
        };
        let clear = (agent.desc().radius + other.desc().radius + 2.0 * self.config().margin) * grow;
        let s0 = other.motion().s;
        let count = ((rail.length() - s0) / (0.25 * clear)).ceil().max(1.0) as usize;
        (0..=count).any(|i| {
            let s = s0 + (rail.length() - s0) * i as f64 / count as f64;
            rail.position(s).distance(point) < clear
        })
    }

    /// Whether `key`, standing at a spot it yielded to beside another agent's way
    /// ([`World::beside_the_way`]), still waits there: that agent's remaining way passes the
    /// spot within the resume check's clearance, and it has not been [`MAKE_WAY_PATIENCE`]
    /// seconds.
    pub(super) fn still_letting_pass(&self, key: AgentKey) -> bool {
        let agent = &self.agents[key];
        let Some((other, since)) = agent.letting_pass else {
            return false;
        };
        let grow = 1.0 + Hysteresis::resume(self.config()).inflation;
        self.time - since < MAKE_WAY_PATIENCE && self.way_passes(key, other, agent.position(), grow)
    }

    /// Whether `key`, which stepped aside from `home` for another agent, still keeps out of
    /// its way: that agent is there, its remaining rail passes `home` within both radii and
    /// the margins, and it has not been [`MAKE_WAY_PATIENCE`] seconds.
    pub(super) fn still_making_way(&self, key: AgentKey, home: DVec2) -> bool {
        let agent = &self.agents[key];
        let Some((head, since)) = agent.made_way_for else {
            return false;
        };
        self.time - since < MAKE_WAY_PATIENCE && self.way_passes(key, head, home, 1.0)
    }
}

/// The tests a yield spot must pass ([`World::yield_spot`]), for spots within `reach` of the
/// yielding agent, with the other members' ways near enough to matter gathered once per search.
struct SpotSearch<'w> {
    world: &'w World,
    key: AgentKey,
    cycle: &'w [AgentKey],
    /// The other members' ways, as polylines (quarter-radius chords), with their clearance;
    /// only the chords that pass within reach of a spot (a way across the level is hundreds
    /// of chords, tested against each of the ~1,900 ring points).
    ways: Vec<(Vec<(DVec2, DVec2)>, f64)>,
    /// For each way, its chords in runs of [`CHORD_RUN`], each run's bounding circle (centre,
    /// radius): a spot further than the clearance from a run's circle is clear of the run
    /// without testing its chords (the ways along a corridor are long).
    runs: Vec<Vec<(DVec2, f64)>>,
    /// Wall clearance of the straight line to a spot: the radius, or less where the agent
    /// stands closer to a wall.
    clearance: f64,
    /// Spots not reachable in a straight line tried with a planned rail so far.
    planned_tries: usize,
    /// Whether a spot nearer a way than its clearance will do when the other agent can pass
    /// it on a lane beside it: the point that clearance away from the spot, through the
    /// way's nearest point, is on the mesh, keeps that agent's radius from walls and is
    /// reachable from the way in a straight line (the other agent bends around the spot, as
    /// around any agent standing on its way).
    passing: bool,
    /// The radius of each way's agent, in the order of `ways`.
    way_radii: Vec<f64>,
    /// The end of each way (its agent's goal), in the order of `ways`: no lane passes it.
    way_ends: Vec<DVec2>,
    /// A point the spot must be at least this far from (metres): the agent that makes room
    /// for a deadlocked agent boxed in ([`World::boxing_in`]) moves away from it.
    away_from: Option<(DVec2, f64)>,
    /// The ways' clearance grows the radii and margins by this factor: the resume inflation
    /// (the room the other agent's start check keeps from an agent that may move), or, for a
    /// tight spot, [`TIGHT_GROWTH`] only (see [`SpotSearch::way_clearance`]).
    way_growth: f64,
}

impl<'w> SpotSearch<'w> {
    fn new(world: &'w World, key: AgentKey, cycle: &'w [AgentKey], reach: f64) -> SpotSearch<'w> {
        let growth = 1.0 + Hysteresis::resume(world.config()).inflation;
        SpotSearch::with_growth(world, key, cycle, reach, growth)
    }

    /// [`SpotSearch::new`] with the ways' clearance grown by `way_growth` instead of the
    /// resume inflation.
    fn with_growth(
        world: &'w World,
        key: AgentKey,
        cycle: &'w [AgentKey],
        reach: f64,
        way_growth: f64,
    ) -> SpotSearch<'w> {
        let agent = &world.agents[key];
        let radius = agent.desc().radius;
        let from = agent.position();
        let mut search = SpotSearch {
            world,
            key,
            cycle,
            ways: Vec::new(),
            runs: Vec::new(),
            clearance: radius.min(world.level().navmesh().wall_distance(from)),
            planned_tries: 0,
            passing: false,
            way_radii: Vec::new(),
            way_ends: Vec::new(),
            away_from: None,
            way_growth,
        };
        search.ways = cycle
            .iter()
            .filter(|&&k| k != key)
            .filter_map(|&k| {
                let other = &world.agents[k];
                let rail = other.rail()?;
                search.way_radii.push(other.desc().radius);
                search.way_ends.push(rail.end());
                let clearance = search.way_clearance(other);
                let s0 = other.motion().s;
                let count = ((rail.length() - s0) / (0.25 * radius)).ceil().max(1.0) as usize;
                let points: Vec<DVec2> = (0..=count)
                    .map(|i| rail.position(s0 + (rail.length() - s0) * i as f64 / count as f64))
                    .collect();
                let chords = points
                    .windows(2)
                    .map(|w| (w[0], w[1]))
                    .filter(|&(a, b)| {
                        closest_on_segment(from, a, b).0.distance(from) < reach + clearance
                    })
                    .collect();
                Some((chords, clearance))
            })
            .collect();
        search.runs = search
            .ways
            .iter()
            .map(|(chords, _)| {
                chords
                    .chunks(CHORD_RUN)
                    .map(|run| {
                        let centre =
                            run.iter().map(|&(a, b)| a + b).sum::<DVec2>() / (2 * run.len()) as f64;
                        let reach = run
                            .iter()
                            .map(|&(a, b)| centre.distance(a).max(centre.distance(b)))
                            .fold(0.0, f64::max);
                        (centre, reach)
                    })
                    .collect()
            })
            .collect();
        search
    }

    /// How far a spot must be from `other`'s way: as far as the start check of the other
    /// agent looks (both radii and margins, grown by the resume inflation), or it would not
    /// start past the spot. A tight spot keeps the radii and margins only (and
    /// [`TIGHT_GROWTH`]): the start check grows them only against agents that may move, and
    /// the yielding agent, standing at the end of its rail to the spot, does not.
    fn way_clearance(&self, other: &Agent) -> f64 {
        let radius = self.world.agents[self.key].desc().radius;
        let margin = self.world.config().margin;
        (radius + other.desc().radius + 2.0 * margin) * self.way_growth
    }

    /// Whether every way keeps its clearance from `spot` or, where it comes within it, has a
    /// lane round the spot (see `passing`): each point of the way within the clearance, pushed
    /// straight away from the spot to the clearance, is on the mesh, keeps the way's agent's
    /// radius from walls and its radius and the margins from agents with nowhere to go (session
    /// 39), and so does the line between each two in turn (from walls). The way's end
    /// keeps the clearance: its agent stops there, and does not pass it (an agent making way at
    /// a corridor's end stepped onto the goal of the agent it made way for, and the two stepped
    /// aside for each other by turns).
    fn passable_ways(&self, spot: DVec2, candidates: &mut Vec<u32>) -> bool {
        let world = self.world;
        let mesh = world.level().navmesh();
        let margin = world.config().margin;
        // Whether an agent with nowhere to go (it will not move out of the lane), other than
        // the yielding agent and its cycle, stands where the way's agent would pass `lane`.
        let mut blocked_by_stander = |lane: DVec2, other_radius: f64| {
            candidates.clear();
            world.grid.near(
                lane,
                other_radius + world.max_radius + 2.0 * margin,
                candidates,
            );
            candidates.iter().any(|&i| {
                let hot = &world.hot[i as usize];
                let k = world.dense[i as usize];
                k != self.key
                    && !self.cycle.contains(&k)
                    && !world.agents[k].wants_to_move()
                    && hot.position.distance(lane) < other_radius + hot.radius + 2.0 * margin
            })
        };
        self.ways
            .iter()
            .zip(self.way_radii.iter().zip(&self.way_ends))
            .all(|((chords, clearance), (&other_radius, &end))| {
                if end.distance(spot) < *clearance {
                    return false;
                }
                let mut previous: Option<DVec2> = None;
                for &(a, b) in chords {
                    for p in [a, closest_on_segment(spot, a, b).0, b] {
                        let Some(away) = (p - spot).try_normalize() else {
                            return false;
                        };
                        if p.distance(spot) >= *clearance {
                            continue;
                        }
                        let lane = spot + away * *clearance;
                        if !mesh.contains(lane)
                            || mesh.wall_distance(lane) < other_radius
                            || blocked_by_stander(lane, other_radius)
                        {
                            return false;
                        }
                        if let Some(last) = previous {
                            if !segment_is_clear(mesh, last, lane, other_radius) {
                                return false;
                            }
                        }
                        previous = Some(lane);
                    }
                }
                true
            })
    }

    /// The rail to `spot` if it is a yield spot (see [`World::yield_spot`]).
    fn try_spot(
        &mut self,
        spot: DVec2,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<(Rail, DVec2)> {
        if self
            .away_from
            .is_some_and(|(point, distance)| spot.distance(point) < distance)
        {
            return None;
        }
        let world = self.world;
        let agent = &world.agents[self.key];
        let radius = agent.desc().radius;
        let margin = world.config().margin;
        let from = agent.position();
        let mesh = world.level().navmesh();
        let off_the_ways = || {
            self.ways
                .iter()
                .zip(&self.runs)
                .all(|((chords, clearance), runs)| {
                    chords
                        .chunks(CHORD_RUN)
                        .zip(runs)
                        .all(|(run, &(centre, reach))| {
                            centre.distance(spot) >= reach + clearance
                                || run.iter().all(|&(a, b)| {
                                    let (q, _) = closest_on_segment(spot, a, b);
                                    q.distance(spot) >= *clearance
                                })
                        })
                })
        };
        // The agents that could stand on the spot, from the broad-phase grid.
        let apart_from_agents = |candidates: &mut Vec<u32>| {
            candidates.clear();
            world
                .grid
                .near(spot, radius + world.max_radius + 2.0 * margin, candidates);
            candidates.iter().all(|&i| {
                let hot = &world.hot[i as usize];
                world.dense[i as usize] == self.key
                    || hot.position.distance(spot) >= radius + hot.radius + 2.0 * margin
            })
        };
        if !mesh.contains(spot)
            || mesh.wall_distance(spot) < radius
            || !(off_the_ways() || self.passing && self.passable_ways(spot, candidates))
            || !apart_from_agents(candidates)
        {
            return None;
        }
        let passes_members = self.cycle.iter().filter(|&&k| k != self.key).all(|&k| {
            let other = &world.agents[k];
            let (q, _) = closest_on_segment(other.position(), from, spot);
            q.distance(other.position()) >= radius + other.desc().radius + margin
        });
        // The way there must not be blocked: the start check the agent will run next is clear,
        // or waits for a walker to pass (it takes the rail and waits, as any start does).
        // Refusing the spots a walker was about to pass left a pair packed among standing
        // agents (den312d-500: 1 m apart, from 56 s to the end) with none: in a crowd, some
        // walker crosses most ways.
        let hysteresis = Hysteresis::resume(world.config());
        let mut can_start = |rail: &Rail| {
            !matches!(
                start_verdict(world, self.key, rail, 0.0, hysteresis, candidates, samples),
                StartVerdict::Blocked { .. }
            )
        };
        if segment_is_clear(mesh, from, spot, self.clearance) && passes_members {
            return Rail::from_points(&[from, spot])
                .ok()
                .filter(|rail| can_start(rail))
                .map(|rail| (rail, spot));
        }
        if self.planned_tries >= PLANNED_TRIES {
            return None;
        }
        self.planned_tries += 1;
        let options = self.world.config().path_options(radius);
        mesh.plan_rail(from, spot, &options)
            .ok()
            .filter(|rail| can_start(rail))
            .map(|rail| (rail, spot))
    }
}

/// The order to take `rail` to the yield spot `via`, going on to `goal` from there (once
/// `letting_pass`, when given, has passed the spot).
fn yield_decision(rail: Rail, via: DVec2, goal: DVec2, letting_pass: Option<AgentKey>) -> Decision {
    let mut decision = Decision::new(Order::Reroute {
        rail: Arc::new(rail),
        reroute: Reroute {
            reason: RerouteReason::Yield,
            via,
            side: None,
        },
    });
    decision.resume_goal = Some(goal);
    decision.letting_pass = letting_pass;
    decision
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{AgentDesc, Motion};
    use crate::AvoidanceConfig;

    /// A world on the fixture level `name` (`fixtures/levels/NAME.json`), default settings (also
    /// the worlds of `narrow`'s tests).
    pub(super) fn world_on(name: &str) -> World {
        World::new(
            crate::level::fixture_level(name),
            AvoidanceConfig::default(),
        )
        .unwrap()
    }

    fn narrow_alcove() -> World {
        world_on("narrow-alcove")
    }

    /// An agent of radius 0.4 standing at `from` on a straight rail to `to`, wanting to go
    /// (also the agents of `narrow`'s tests).
    pub(super) fn stander(world: &mut World, from: DVec2, to: DVec2) -> AgentKey {
        crate::world::line_agent(world, from, to, &[1.4], Motion::standing(0.0))
    }

    /// Two agents standing face to face in the 1 m corridor of `narrow-alcove`, either side of
    /// the alcove, each on a rail through the other.
    fn face_to_face(world: &mut World) -> (AgentKey, AgentKey) {
        let a = stander(world, DVec2::new(8.6, 0.5), DVec2::new(19.0, 0.5));
        let b = stander(world, DVec2::new(11.4, 0.5), DVec2::new(1.0, 0.5));
        (a, b)
    }

    #[test]
    fn a_member_whose_turn_it_is_not_spends_no_search_and_keeps_its_rank() {
        let mut world = narrow_alcove();
        let (first, second) = face_to_face(&mut world);
        world.begin_frame(1.0 / 30.0);
        world.agents[first].waiting_on = Some((second, -10.0));
        world.agents[second].waiting_on = Some((first, -10.0));
        // Equal priorities: the agent added last has the turn.
        let mut candidates = Vec::new();
        let mut samples = Vec::new();
        let outcome = world.break_deadlock(first, second, None, &mut candidates, &mut samples);
        assert!(matches!(outcome, DeadlockOutcome::NotItsTurn));
        // Through the whole query: the first waits, spends none of the frame's searches and is
        // not passed over; the second then yields into the alcove.
        world.query(first).unwrap();
        assert_eq!(world.yield_searches, 0);
        assert!(world.agents[first].cannot_yield_until < world.time);
        match world.query(second).unwrap() {
            Order::Reroute { reroute, .. } => assert_eq!(reroute.reason, RerouteReason::Yield),
            other => panic!("expected a yield, got {other:?}"),
        }
    }

    #[test]
    fn in_a_corridor_longer_than_the_rings_reach_the_yielding_agent_backs_out_of_it() {
        // A 20 m corridor 1 m wide between two rooms (fixture `long-corridor-head-on`): two
        // agents of radius 0.4 face to face in its middle, 8 m and more from either room. The
        // rings (out to 4.8 m) hold no spot; the search along the way of the agent it yields
        // to finds one in the room at that way's end, beside it, and the rail there backs out
        // along the corridor.
        let mut world = world_on("long-corridor");
        let east = stander(&mut world, DVec2::new(15.0, 3.0), DVec2::new(30.0, 3.0));
        let west = stander(&mut world, DVec2::new(17.0, 3.0), DVec2::new(2.0, 3.0));
        world.begin_frame(1.0 / 30.0);
        world.ensure_grid();
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        let (rail, spot) = world
            .yield_spot(west, &[east, west], &mut candidates, &mut samples)
            .expect("a spot out of the corridor");
        assert!(spot.x > 26.0, "in the east room: {spot:?}");
        let clearance = (0.4 + 0.4 + 2.0 * world.config().margin) * 1.2;
        assert!((spot.y - 3.0).abs() >= clearance, "off the way: {spot:?}");
        assert_eq!(rail.end(), spot);
        assert!(rail.length() < 14.0, "straight out: {}", rail.length());
        // Nothing nearer: the whole corridor is the other agent's way.
        let rings = YIELD_RINGS as f64 * RING_STEP_RADII * 0.4;
        assert!(spot.distance(DVec2::new(17.0, 3.0)) > rings);
    }

    #[test]
    fn a_spot_whose_start_waits_for_a_walker_to_pass_is_a_yield_spot() {
        // Two agents face to face in the open; the second yields. Its first spot, found with
        // nobody else about, is kept when a walker is about to pass close by it: the start
        // toward it waits for the walker to pass (the yielding agent takes the rail and waits,
        // as any start does), which is no reason to look elsewhere. Refused, every spot whose
        // way a walker crossed was, and a pair packed in a crowd (den312d-500) found none.
        let mut world = world_on("open-field");
        let first = stander(&mut world, DVec2::new(15.0, 15.0), DVec2::new(25.0, 15.0));
        let second = stander(&mut world, DVec2::new(16.2, 15.0), DVec2::new(5.0, 15.0));
        world.begin_frame(1.0 / 30.0);
        world.ensure_grid();
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        let cycle = [first, second];
        let (_, alone) = world
            .yield_spot(second, &cycle, &mut candidates, &mut samples)
            .expect("a spot in the open");
        // A walker about to pass the spot a metre beyond it, square to the way there: the start
        // toward the spot meets it, a start a little later does not.
        let from = DVec2::new(16.2, 15.0);
        let ahead = (alone - from).normalize();
        let across = ahead.perp();
        let walker_from = alone + ahead * 1.0 + across * 1.5;
        let walker = stander(&mut world, walker_from, walker_from - across * 8.0);
        world.set_motion(walker, Motion::moving(0.0, 1.4)).unwrap();
        world.begin_frame(1.0 / 30.0);
        world.ensure_grid();
        let straight = Rail::from_points(&[from, alone]).unwrap();
        let hysteresis = Hysteresis::resume(world.config());
        let verdict = start_verdict(
            &world,
            second,
            &straight,
            0.0,
            hysteresis,
            &mut candidates,
            &mut samples,
        );
        assert!(
            matches!(verdict, StartVerdict::Wait { blocker, .. } if blocker == walker),
            "the walker must be in the way of the start, and pass: {verdict:?}"
        );
        let (rail, spot) = world
            .yield_spot(second, &cycle, &mut candidates, &mut samples)
            .expect("a spot");
        assert_eq!(spot, alone);
        assert_eq!(rail.end(), alone);
    }

    /// Two agents standing on the fixture level `name` on straight rails (`ends`: the first's
    /// start and goal, then the second's), each waiting on the other since `since` (world
    /// clock, seconds), in a frame begun with the broad phase built.
    fn waiting_pair(name: &str, ends: [(f64, f64); 4], since: f64) -> (World, AgentKey, AgentKey) {
        let mut world = world_on(name);
        let at = |k: usize| DVec2::new(ends[k].0, ends[k].1);
        let first = stander(&mut world, at(0), at(1));
        let second = stander(&mut world, at(2), at(3));
        world.begin_frame(1.0 / 30.0);
        world.ensure_grid();
        world.agents[first].waiting_on = Some((second, since));
        world.agents[second].waiting_on = Some((first, since));
        (world, first, second)
    }

    #[test]
    fn in_a_corridor_too_narrow_to_keep_off_a_way_the_yielding_agent_leaves_a_lane() {
        // Two 0.4 m agents face to face in a 2 m corridor, on lines 0.2 m apart: each blocks
        // the other's bend, and no spot keeps the first's way clear by the start check's
        // clearance (1.08 m), so the rings and the ways find none. The second steps to the
        // wall beside where it stands, leaving the first a lane on its far side.
        let ends = [(12.8, 1.1), (28.0, 1.1), (15.2, 0.9), (2.0, 0.9)];
        let (mut world, first, second) = waiting_pair("corridor-2m", ends, -2.0);
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        let cycle = [first, second];
        // Not before each has waited on the other for the passing patience.
        assert!(world
            .yield_spot(second, &cycle, &mut candidates, &mut samples)
            .is_none());
        world.agents[first].waiting_on = Some((second, -10.0));
        world.agents[second].waiting_on = Some((first, -10.0));
        let (rail, spot) = world
            .yield_spot(second, &cycle, &mut candidates, &mut samples)
            .expect("a spot beside the first's way");
        assert_eq!(rail.end(), spot);
        // Nearer the first's way (y = 1.1) than its clearance, on the far side from the lane.
        let clearance = (0.4 + 0.4 + 2.0 * world.config().margin) * 1.2;
        assert!((1.1 - spot.y).abs() < clearance, "{spot}");
        assert!(spot.y < 1.1 && spot.y >= 0.4 - 1e-9, "{spot}");
        // The lane on the other side keeps the first's radius from the wall (y = 2).
        assert!(spot.y + clearance <= 2.0 - 0.4 + 1e-9, "{spot}");
        // Without the passing stage there is none.
        let step = RING_STEP_RADII * 0.4;
        let mut search = SpotSearch::new(&world, second, &cycle, YIELD_RINGS as f64 * step);
        let found = ring_points(DVec2::new(15.2, 0.9), step, YIELD_RINGS)
            .find_map(|p| search.try_spot(p, &mut candidates, &mut samples));
        assert!(found.is_none(), "{found:?}");
    }

    /// Two 0.4 m agents face to face in a 1.8 m corridor, on lines 0.35 m apart: no spot keeps
    /// the resume check's 1.08 m from the other's way (the corridor's free band is 1.0 m), nor
    /// has a lane that wide beside it; a tight spot (the radii and margins, 1 % more) by a
    /// wall does, with a lane past it for the other.
    #[test]
    fn a_tight_spot_by_the_wall_is_found_where_no_other_is() {
        let ends = [(13.0, 1.25), (28.0, 1.25), (15.3, 0.9), (2.0, 0.9)];
        let (mut world, first, second) = waiting_pair("corridor-1.8m", ends, -10.0);
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        let cycle = [first, second];
        let (rail, spot) = world
            .yield_spot(second, &cycle, &mut candidates, &mut samples)
            .expect("a tight spot");
        assert_eq!(rail.end(), spot);
        let keep = 0.4 + 0.4 + 2.0 * world.config().margin;
        // By a wall, with a lane for the first the radii and margins (1 % more) off it on its
        // other side, keeping the first's radius from the other wall (the free band of
        // centres is y in [0.4, 1.4]).
        let lane = keep * TIGHT_GROWTH;
        assert!((0.4 - 1e-9..=1.4 + 1e-9).contains(&spot.y), "{spot}");
        let lane_y = if spot.y > 0.9 {
            spot.y - lane
        } else {
            spot.y + lane
        };
        assert!((0.4 - 1e-9..=1.4 + 1e-9).contains(&lane_y), "{spot}");
        // The resume check's room (20 % more) has no lane.
        assert!(!(0.4..=1.4).contains(&(spot.y - keep * 1.2)), "{spot}");
        // Without the tight stage there is none: the passing stage alone finds nothing.
        let step = RING_STEP_RADII * 0.4;
        let mut search = SpotSearch::new(&world, second, &cycle, YIELD_RINGS as f64 * step);
        search.passing = true;
        let found = ring_points(DVec2::new(15.3, 0.9), step, YIELD_RINGS)
            .find_map(|p| search.try_spot(p, &mut candidates, &mut samples));
        assert!(found.is_none(), "{found:?}");
        // The first passes beside the spot: the second waits there until it has gone by.
        assert_eq!(world.beside_the_way(second, &cycle, spot), Some(first));
        let length = rail.length();
        world.set_rail(second, rail).unwrap();
        world.set_motion(second, Motion::standing(length)).unwrap();
        world.agents[second].letting_pass = Some((first, world.time));
        assert!(world.still_letting_pass(second));
        // Once the first is past the spot, it goes on.
        world.set_motion(first, Motion::standing(4.0)).unwrap();
        assert!(!world.still_letting_pass(second));
    }

    /// An agent that stopped on a bend stands turned toward the wall (here 51° off the
    /// corridor): the pair is still face to face, by where each rail goes over the next
    /// [`HEADING_RADII`] radii.
    #[test]
    fn a_pair_is_face_to_face_by_where_their_rails_go_not_how_they_stand() {
        let mut world = world_on("corridor-1.8m");
        let first = stander(&mut world, DVec2::new(18.2, 1.1), DVec2::new(28.0, 1.1));
        let second = world
            .add_agent(AgentDesc {
                position: DVec2::new(19.7, 0.9),
                ..AgentDesc::with_speeds(0.4, &[1.4], 1.4)
            })
            .unwrap();
        let bent = [
            DVec2::new(19.7, 0.9),
            DVec2::new(19.3, 0.4),
            DVec2::new(2.0, 0.4),
        ];
        world
            .set_rail(second, Rail::from_points(&bent).unwrap())
            .unwrap();
        world.set_motion(second, Motion::standing(0.0)).unwrap();
        world.begin_frame(1.0 / 30.0);
        world.agents[first].waiting_on = Some((second, -10.0));
        world.agents[second].waiting_on = Some((first, -10.0));
        let turned = world.agents[second].direction().dot(DVec2::X);
        assert!(turned > -std::f64::consts::FRAC_1_SQRT_2, "{turned}");
        assert!(world.face_to_face(first, &[first, second]));
        assert!(world.face_to_face(second, &[first, second]));
    }

    /// [`face_to_face`] with a third agent standing behind the first, on the second's way:
    /// the first has waited long on the second, which has waited long on the third.
    fn jam() -> (World, AgentKey, AgentKey, AgentKey) {
        let mut world = narrow_alcove();
        let (first, second) = face_to_face(&mut world);
        let third = stander(&mut world, DVec2::new(4.0, 0.5), DVec2::new(1.0, 0.5));
        world.begin_frame(1.0 / 30.0);
        world.agents[first].waiting_on = Some((second, -10.0));
        world.agents[second].waiting_on = Some((third, -10.0));
        (world, first, second, third)
    }

    #[test]
    fn an_agent_stuck_in_a_jam_is_asked_to_make_way_and_goes_on_to_its_goal_from_the_spot() {
        // The agent ahead of `first` has waited long on a third, standing agent (a jam, not a
        // cycle through `first`): `first`, whose bends fail in the corridor, asks it to make
        // way, and it steps into the alcove, to go on to its own goal from there.
        let (mut world, first, second, _) = jam();
        assert!(world.stuck_in_a_jam(first, second));
        world.query(first).unwrap();
        assert_eq!(world.agents[second].make_way_for, Some(first));
        match world.query(second).unwrap() {
            Order::Reroute { rail, reroute } => {
                assert_eq!(reroute.reason, RerouteReason::Yield);
                assert!(rail.end().y > 1.0, "into the alcove: {:?}", rail.end());
            }
            other => panic!("expected a yield, got {other:?}"),
        }
        let second = &world.agents[second];
        assert_eq!(second.resume_goal, Some(DVec2::new(1.0, 0.5)));
        assert_eq!(second.made_way_for, None);
    }

    #[test]
    fn an_agent_asked_to_make_way_again_keeps_the_goal_it_will_go_on_to() {
        let (mut world, first, second, _) = jam();
        world.query(first).unwrap();
        assert!(matches!(
            world.query(second).unwrap(),
            Order::Reroute { .. }
        ));
        assert_eq!(world.agents[second].resume_goal, Some(DVec2::new(1.0, 0.5)));
        // Asked again before it reached the spot (its rail now ends there): it yields again
        // and still goes on to its own goal afterwards, not to the first spot.
        world.begin_frame(1.0 / 30.0);
        world.set_motion(second, Motion::standing(0.0)).unwrap();
        world.agents[first].waiting_on = Some((second, -10.0));
        world.agents[second].make_way_for = Some(first);
        let order = world.query(second).unwrap();
        assert!(
            matches!(&order, Order::Reroute { reroute, .. } if reroute.reason == RerouteReason::Yield),
            "expected a second yield, got {order:?}"
        );
        assert_eq!(world.agents[second].resume_goal, Some(DVec2::new(1.0, 0.5)));
    }

    #[test]
    fn an_agent_waiting_on_a_walker_or_in_a_cycle_is_not_stuck_in_a_jam() {
        let (mut world, first, second, third) = jam();
        // Waiting on `first` itself: a deadlock, which the breaker ranks.
        world.agents[second].waiting_on = Some((first, -10.0));
        assert!(!world.stuck_in_a_jam(first, second));
        // Waiting on the third, whose wait comes back to `first`.
        world.agents[second].waiting_on = Some((third, -10.0));
        world.agents[third].waiting_on = Some((first, -10.0));
        assert!(!world.stuck_in_a_jam(first, second));
        // Not waiting long enough.
        world.agents[third].waiting_on = None;
        world.agents[second].waiting_on = Some((third, world.time - 1.0));
        assert!(!world.stuck_in_a_jam(first, second));
        // Waiting for an agent that walks (a flow it takes its turn in).
        world.agents[second].waiting_on = Some((third, -10.0));
        world.set_motion(third, Motion::moving(0.0, 1.4)).unwrap();
        assert!(!world.stuck_in_a_jam(first, second));
    }

    /// At the door of `doorway`: `a` west of it going east, `b` east of it going west, waiting
    /// on each other; `near` just behind `a` and `far` further back, both waiting on `a`;
    /// `other` beside `a`, waiting on `b`.
    fn boxed_door() -> (World, [AgentKey; 5]) {
        let mut world = world_on("doorway");
        let a = stander(&mut world, DVec2::new(8.6, 5.0), DVec2::new(16.0, 5.0));
        let b = stander(&mut world, DVec2::new(11.4, 5.0), DVec2::new(2.0, 5.0));
        let near = stander(&mut world, DVec2::new(7.5, 5.0), DVec2::new(17.0, 5.3));
        let far = stander(&mut world, DVec2::new(5.0, 5.0), DVec2::new(18.0, 5.0));
        let other = stander(&mut world, DVec2::new(8.4, 6.2), DVec2::new(16.0, 6.2));
        world.begin_frame(1.0 / 30.0);
        world.ensure_grid();
        world.agents[a].waiting_on = Some((b, -10.0));
        world.agents[b].waiting_on = Some((a, -10.0));
        world.agents[near].waiting_on = Some((a, -10.0));
        world.agents[far].waiting_on = Some((a, -10.0));
        world.agents[other].waiting_on = Some((b, -10.0));
        (world, [a, b, near, far, other])
    }

    #[test]
    fn a_deadlocked_agent_with_no_spot_asks_the_nearest_agent_waiting_on_it_to_make_way() {
        let (mut world, [a, b, near, _far, other]) = boxed_door();
        let mut candidates = Vec::new();
        assert_eq!(world.boxing_in(a, &[a, b], &mut candidates), Some(near));
        // Not one that walks, nor one already asked: the next nearest within reach, none.
        world.agents[near].make_way_for = Some(b);
        assert_eq!(world.boxing_in(a, &[a, b], &mut candidates), None);
        world.agents[near].make_way_for = None;
        world.set_motion(near, Motion::moving(0.0, 1.4)).unwrap();
        world.ensure_grid();
        assert_eq!(world.boxing_in(a, &[a, b], &mut candidates), None);
        // `far` waits on `a` too but stands 3.6 m off (beyond twice the radii, 1.6 m); `other`
        // stands 1.2 m off but waits on `b`, until it waits on `a`.
        world.agents[other].waiting_on = Some((a, -10.0));
        assert_eq!(world.boxing_in(a, &[a, b], &mut candidates), Some(other));
    }

    #[test]
    fn an_agent_boxing_in_a_deadlocked_agent_steps_off_its_way_and_goes_on_from_there() {
        let (mut world, [a, _, near, _, _]) = boxed_door();
        // `a` searched and found no spot; `near`, asked, yields to a spot off `a`'s way.
        world.agents[a].cannot_yield_until = world.time + 1.0;
        world.agents[near].make_way_for = Some(a);
        match world.query(near).unwrap() {
            Order::Reroute { rail, reroute } => {
                assert_eq!(reroute.reason, RerouteReason::Yield);
                // Away from `a` (1.1 m off) by a diameter at least.
                let off = rail.end().distance(DVec2::new(8.6, 5.0));
                assert!(off >= 1.1 + 0.8 - 1e-9, "{:?}", rail.end());
            }
            other => panic!("expected a yield, got {other:?}"),
        }
        assert_eq!(world.agents[near].resume_goal, Some(DVec2::new(17.0, 5.3)));
        // Once `a` may search again, an agent merely waiting on it is not made to move.
        let (mut world, [_, _, near, _, _]) = boxed_door();
        world.agents[near].make_way_for = Some(world.agents.keys().next().unwrap());
        let order = world.query(near).unwrap();
        assert!(
            !matches!(&order, Order::Reroute { reroute, .. } if reroute.reason == RerouteReason::Yield),
            "{order:?}"
        );
    }
}
