//! Detours: a standing agent blocked by agents with nowhere to go, whose rail no bend gets
//! past, plans its way around them on a local grid and rejoins its rail (or reaches its goal).
//!
//! The navmesh planner knows only walls; agents standing at their goals are walls too for the
//! agents still on their way (a crowd filling a room through a door). The chapter's bend goes
//! around one collider; a row of standers needs a new path. The grid is local (a window around
//! the agent and where it rejoins its rail), its cells half a radius, and a cell is free when its
//! centre is on the mesh, keeps the radius from walls, and keeps the radii and margins from every
//! agent standing with nowhere to go. A* over 8-connected cells (octile heuristic, ties broken
//! by cell index, so the result is deterministic), then the path pulled taut (each corner
//! dropped when the cells between its neighbours are free) and its corners rounded by quadratic
//! Béziers (G1), then the rest of the old rail.

mod around;

use std::collections::BinaryHeap;

use glam::DVec2;

use std::sync::Arc;

use super::order::{Order, Reroute, RerouteReason, StartVerdict};
use super::rewrite::stays_on_mesh;
use super::trivial::{start_verdict, Decision, Hysteresis};
use crate::detect::{Collision, SweepSample};
use crate::rail::{Rail, RailError, RailSegment};
use crate::world::{AgentKey, DestinationCheck, World};

/// Detour searches allowed per frame in the whole world; the agents over the budget look on a
/// later frame.
pub(super) const DETOUR_SEARCHES_PER_FRAME: u32 = 2;

/// The window reaches this many metres around the agent and the rejoining point: a small
/// window first (cheap), then a wide one for a long row of agents.
const WINDOW_MARGINS: [f64; 2] = [4.0, 12.0];

/// The rejoining point is at most this far along the rail from the agent, metres (the goal when
/// it is nearer).
const REJOIN_REACH: f64 = 24.0;

/// Agents with nowhere to go [`World::opening_detour`] tries leaving out, nearest first: each
/// try is one grid search of the small window.
const OPENING_TRIES: usize = 4;

/// [`World::opening_detour`] leaves out agents within this many of the agent's radii of it.
const OPENING_REACH_RADII: f64 = 12.0;

/// A sealed goal's spot is looked for within this many radii of it: the destination check's
/// reach (24 rings half a radius apart).
const FREE_SPOT_REACH_RADII: f64 = 12.0;

/// Most cells in a window; a larger window gets coarser cells.
const MAX_CELLS: usize = 40_000;

/// How far each corner is rounded, in radii, tried in turn until the rounded path keeps the
/// clearance from walls.
const ROUNDINGS: [f64; 3] = [1.0, 0.5, 0.2];

/// A detour found by [`World::detour`].
pub(super) struct Detour {
    /// The new rail, from the agent.
    pub rail: Rail,
    /// Where it rejoins the old rail (or the goal).
    pub rejoin: DVec2,
}

impl Detour {
    /// The decision taking this detour around `collision`'s agent (it counts against the
    /// frame's detour budget).
    pub(super) fn into_decision(self, collision: Collision) -> Decision {
        self.into_decision_for(RerouteReason::Detour, collision)
    }

    /// The decision taking this rail as a new destination, its end the agent's goal from now
    /// ([`World::sealed_goal_detour`]; it counts against the frame's detour budget).
    pub(super) fn into_destination_decision(self, collision: Collision) -> Decision {
        self.into_decision_for(RerouteReason::Destination, collision)
    }

    fn into_decision_for(self, reason: RerouteReason, collision: Collision) -> Decision {
        let mut decision = Decision::with_collision(
            Order::Reroute {
                rail: Arc::new(self.rail),
                reroute: Reroute {
                    reason,
                    via: self.rejoin,
                    side: None,
                },
            },
            collision,
        );
        decision.searched_detour = true;
        decision
    }
}

/// A detour's local grid ([`World::window`]).
struct Window {
    grid: Grid,
    /// The agents the broad phase listed around the window (slots of `World::dense`).
    near: Vec<u32>,
    /// The clearance from walls asked at the window's far end: the radius, or what that point
    /// has when less.
    end_clearance: f64,
}

/// The steps between cells of a [`Grid`]: 8-connected, in the order A* relaxes them (which
/// picks among paths of equal cost).
const STEPS: [(i64, i64); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// The local grid: which cells are free.
struct Grid {
    origin: DVec2,
    cell: f64,
    width: usize,
    height: usize,
    free: Vec<bool>,
}

impl Grid {
    fn centre(&self, index: usize) -> DVec2 {
        let (i, j) = (index % self.width, index / self.width);
        self.origin + DVec2::new((i as f64 + 0.5) * self.cell, (j as f64 + 0.5) * self.cell)
    }

    fn index_of(&self, p: DVec2) -> Option<usize> {
        let q = (p - self.origin) / self.cell;
        if q.x < 0.0 || q.y < 0.0 {
            return None;
        }
        let (i, j) = (q.x as usize, q.y as usize);
        (i < self.width && j < self.height).then_some(j * self.width + i)
    }

    /// For each cell, whether its centre is closer than `d` to the centre `q` of some disc
    /// `(q, d)`: each disc tests only the cells of its bounding box (the same test as against
    /// every cell, so the same answer).
    fn within_discs(&self, discs: &[(DVec2, f64)]) -> Vec<bool> {
        let mut inside = vec![false; self.width * self.height];
        for &(q, d) in discs {
            // Cells whose centre (origin + (i + 0.5) cell) may lie within d of q.
            let span = |c: f64, origin: f64, count: usize| {
                let first = ((c - d - origin) / self.cell - 0.5).floor().max(0.0) as usize;
                let last = ((c + d - origin) / self.cell - 0.5).ceil().max(0.0) as usize;
                first..=last.min(count - 1)
            };
            for j in span(q.y, self.origin.y, self.height) {
                for i in span(q.x, self.origin.x, self.width) {
                    let index = j * self.width + i;
                    if !inside[index] && self.centre(index).distance(q) < d {
                        inside[index] = true;
                    }
                }
            }
        }
        inside
    }

    /// The free cells reached from `start` by the steps of [`grid_path`] (8-connected, no
    /// diagonal step between two blocked cells).
    fn reached_from(&self, start: usize) -> Vec<bool> {
        let mut reached = vec![false; self.free.len()];
        reached[start] = true;
        let mut open = vec![start];
        while let Some(index) = open.pop() {
            for next in self.steps_from(index) {
                if !reached[next] {
                    reached[next] = true;
                    open.push(next);
                }
            }
        }
        reached
    }

    /// The free cells one step from `index`, in the order of [`STEPS`].
    fn steps_from(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        let (i, j) = ((index % self.width) as i64, (index / self.width) as i64);
        STEPS.iter().filter_map(move |&(di, dj)| {
            let (ni, nj) = (i + di, j + dj);
            if ni < 0 || nj < 0 || ni >= self.width as i64 || nj >= self.height as i64 {
                return None;
            }
            let next = nj as usize * self.width + ni as usize;
            if !self.free[next] {
                return None;
            }
            if di != 0 && dj != 0 {
                // No diagonal step between two blocked cells.
                let side_a = j as usize * self.width + ni as usize;
                let side_b = nj as usize * self.width + i as usize;
                if !self.free[side_a] || !self.free[side_b] {
                    return None;
                }
            }
            Some(next)
        })
    }

    /// Whether the straight segment `a → b` crosses only free cells (sampled every quarter
    /// cell).
    fn segment_is_free(&self, a: DVec2, b: DVec2) -> bool {
        let count = (a.distance(b) / (0.25 * self.cell)).ceil().max(1.0) as usize;
        (0..=count).all(|k| {
            self.index_of(a.lerp(b, k as f64 / count as f64))
                .is_some_and(|i| self.free[i])
        })
    }
}

/// An open A* node: lowest estimate first, then lowest cell index (deterministic).
#[derive(PartialEq)]
struct Open {
    estimate: f64,
    index: usize,
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .estimate
            .total_cmp(&self.estimate)
            .then(other.index.cmp(&self.index))
    }
}

/// A* over the grid's free cells from `start` to `goal` (8-connected, no corner cutting past a
/// blocked cell), as cell indices from start to goal.
fn grid_path(grid: &Grid, start: usize, goal: usize) -> Option<Vec<usize>> {
    let n = grid.free.len();
    let mut cost = vec![f64::INFINITY; n];
    let mut parent = vec![usize::MAX; n];
    let mut heap = BinaryHeap::new();
    let goal_at = (goal % grid.width, goal / grid.width);
    let octile = |index: usize| {
        let (i, j) = (index % grid.width, index / grid.width);
        let dx = i.abs_diff(goal_at.0) as f64;
        let dy = j.abs_diff(goal_at.1) as f64;
        dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy)
    };
    cost[start] = 0.0;
    heap.push(Open {
        estimate: octile(start),
        index: start,
    });
    while let Some(Open { estimate, index }) = heap.pop() {
        if index == goal {
            let mut path = vec![goal];
            let mut at = goal;
            while at != start {
                at = parent[at];
                path.push(at);
            }
            path.reverse();
            return Some(path);
        }
        if estimate > cost[index] + octile(index) + 1e-9 {
            continue;
        }
        for next in grid.steps_from(index) {
            let diagonal =
                next % grid.width != index % grid.width && next / grid.width != index / grid.width;
            let step = if diagonal {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            let c = cost[index] + step;
            if c < cost[next] {
                cost[next] = c;
                parent[next] = index;
                heap.push(Open {
                    estimate: c + octile(next),
                    index: next,
                });
            }
        }
    }
    None
}

/// The polyline `points` with each interior corner rounded by a quadratic Bézier whose ends are
/// cut back `round` metres (at most half of each adjoining leg): G1 everywhere.
fn rounded(points: &[DVec2], round: f64) -> Result<Rail, RailError> {
    if points.len() < 3 {
        return Rail::from_points(points);
    }
    let mut segments = Vec::with_capacity(2 * points.len());
    let mut at = points[0];
    for k in 1..points.len() - 1 {
        let (prev, corner, next) = (points[k - 1], points[k], points[k + 1]);
        let cut_in = round.min(0.5 * prev.distance(corner));
        let cut_out = round.min(0.5 * corner.distance(next));
        let enter = corner + (prev - corner).normalize_or_zero() * cut_in;
        let leave = corner + (next - corner).normalize_or_zero() * cut_out;
        if at.distance(enter) > 1e-9 {
            segments.push(RailSegment::line(at, enter));
        }
        if enter.distance(leave) > 1e-9 {
            segments.push(RailSegment::quad(enter, corner, leave));
        }
        at = leave;
    }
    let end = points[points.len() - 1];
    if at.distance(end) > 1e-9 {
        segments.push(RailSegment::line(at, end));
    }
    Rail::new(segments)
}

/// The grid path `cells` from `from` (in its first cell) to `end` (in its last) pulled taut: a
/// corner kept only where the straight line past it leaves free cells.
fn taut(grid: &Grid, cells: &[usize], from: DVec2, end: DVec2) -> Vec<DVec2> {
    let mut points = vec![from];
    let mut k = 0;
    while k + 1 < cells.len() {
        let mut next = k + 1;
        while next + 1 < cells.len()
            && grid.segment_is_free(points[points.len() - 1], grid.centre(cells[next + 1]))
        {
            next += 1;
        }
        points.push(grid.centre(cells[next]));
        k = next;
    }
    if let Some(last) = points.last_mut() {
        *last = end;
    }
    points
}

/// The polyline `points` rounded as much as the walls allow (a rounded corner cuts inside the
/// taut path's): the first of [`ROUNDINGS`] radii whose rail keeps `clearance` from walls.
fn rounded_on_mesh(
    mesh: &crate::level::NavMesh,
    points: &[DVec2],
    radius: f64,
    clearance: f64,
) -> Option<Rail> {
    ROUNDINGS.iter().find_map(|&k| {
        let rail = rounded(points, k * radius).ok()?;
        stays_on_mesh(mesh, &rail, rail.length(), clearance).then_some(rail)
    })
}

impl World {
    /// A detour for the standing agent `key` around the agents standing with nowhere to go:
    /// from where it stands to its rail `REJOIN_REACH` on (or its goal), planned on a local
    /// grid. `None` when no such path exists in the widest window, or the rejoining point is
    /// taken.
    pub(super) fn detour(&self, key: AgentKey) -> Option<Detour> {
        WINDOW_MARGINS
            .iter()
            .find_map(|&margin| self.detour_within(key, margin, None))
    }

    /// A detour for standing agent `key` through the place of one agent with nowhere to go,
    /// when no detour gets past them all ([`World::detour`] found none) and the agent it waits
    /// on already stands aside for it or found no spot to step to: the grid path of the small
    /// window with that one agent left out, trying the agents with nowhere to go within
    /// [`OPENING_REACH_RADII`] nearest first (then by key), at most [`OPENING_TRIES`], not those
    /// already standing aside for `key` nor those that found no spot lately
    /// (`Agent::cannot_yield_until`: asked again, they would find none again). The agent
    /// takes it, its start is then blocked by the agent left out, and in time it asks that
    /// one to make way off the new rail (`decide_standing`), as for any agent with nowhere to
    /// go on its way. Several agents arrived across a corridor leave no gap (the asked ones
    /// stepped aside, off the old rail, and the agent stood behind the others for good:
    /// `python3 tools/crowd_probes.py idle-wall`, docs/ROBUSTNESS.md, session 43).
    pub(super) fn opening_detour(&self, key: AgentKey) -> Option<Detour> {
        let agent = &self.agents[key];
        let from = agent.position();
        let mut standers: Vec<(f64, AgentKey)> = Vec::new();
        let reach = OPENING_REACH_RADII * agent.desc().radius;
        let mut near = Vec::new();
        self.grid.near(from, reach, &mut near);
        for &i in &near {
            let other_key = self.dense[i as usize];
            let other = &self.agents[other_key];
            let distance = other.position().distance(from);
            if other_key != key
                && !other.wants_to_move()
                && !other.cannot_make_way_for(key, self.time)
                && distance <= reach
            {
                standers.push((distance, other_key));
            }
        }
        standers.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        standers
            .iter()
            .take(OPENING_TRIES)
            .find_map(|&(_, out)| self.detour_within(key, WINDOW_MARGINS[0], Some(out)))
    }

    /// [`World::detour`] in the window reaching `window_margin` metres around the agent and
    /// the rejoining point, leaving `except` out of the agents kept out of.
    fn detour_within(
        &self,
        key: AgentKey,
        window_margin: f64,
        except: Option<AgentKey>,
    ) -> Option<Detour> {
        let agent = &self.agents[key];
        let rail = agent.rail()?;
        let radius = agent.desc().radius;
        let margin = self.config().margin;
        let mesh = self.level().navmesh();
        let from = agent.position();
        let s0 = agent.motion().s;
        // Where it rejoins: the goal, or a point on the rail, plus a point a little further on
        // so that the last corner is rounded onto the rail's direction.
        let s_rejoin = (s0 + REJOIN_REACH).min(rail.length());
        let rejoin = rail.position(s_rejoin);
        let s_after = (s_rejoin + 2.0 * radius).min(rail.length());
        // The agents standing near the window are kept out of, whether they wait to go on or
        // have nowhere to go.
        let left_out = except.and_then(|k| self.agents.get(k));
        let Window {
            mut grid,
            near,
            end_clearance,
        } = self.window(key, rejoin, window_margin, |other| {
            !other.plan.moves() && !left_out.is_some_and(|out| std::ptr::eq(other, out))
        })?;
        let start = grid.index_of(from)?;
        grid.free[start] = true;
        let goal = grid.index_of(rejoin)?;
        if !grid.free[goal] {
            // Taken by an agent standing there with nowhere to go: the goal moves instead (see
            // the destination check); one waiting to go on there is waited on at the end.
            let p = grid.centre(goal);
            // The agents near the window, gathered above through the grid.
            let taken_for_good = near.iter().map(|&i| self.dense[i as usize]).any(|k| {
                let other = &self.agents[k];
                k != key
                    && !other.wants_to_move()
                    && other.position().distance(p) < radius + other.desc().radius + 2.0 * margin
            });
            if taken_for_good || mesh.wall_distance(p) < end_clearance - 0.5 * grid.cell {
                return None;
            }
            grid.free[goal] = true;
        }
        let cells = grid_path(&grid, start, goal)?;
        let mut points = taut(&grid, &cells, from, rejoin);
        if s_after > s_rejoin + 1e-6 {
            points.push(rail.position(s_after));
        }
        points.dedup_by(|a, b| a.distance(*b) < 1e-6);
        let clearance = radius.min(mesh.wall_distance(from));
        let detour = rounded_on_mesh(mesh, &points, radius, clearance)?;
        let rail = if s_after < rail.length() - 1e-6 {
            let tail = rail.subrail(s_after, rail.length()).ok()?;
            let mut segments = detour.segments().to_vec();
            segments.extend_from_slice(tail.segments());
            Rail::new(segments).ok()?
        } else {
            detour
        };
        Some(Detour { rail, rejoin })
    }

    /// The local grid of a detour for `key` from where it stands to `to`: the window reaching
    /// `window_margin` metres around both, half-radius cells (coarser when the window would
    /// hold more than [`MAX_CELLS`]), a cell free when its centre is on the mesh, keeps the
    /// radius and a quarter cell from walls, and keeps the radii and margins from each agent
    /// near for which `keeps_out` holds (or the distance it has now, when less).
    fn window(
        &self,
        key: AgentKey,
        to: DVec2,
        window_margin: f64,
        keeps_out: impl Fn(&crate::world::Agent) -> bool,
    ) -> Option<Window> {
        let agent = &self.agents[key];
        let radius = agent.desc().radius;
        let margin = self.config().margin;
        let mesh = self.level().navmesh();
        let from = agent.position();
        let (lo, hi) = (
            from.min(to) - DVec2::splat(window_margin),
            from.max(to) + DVec2::splat(window_margin),
        );
        let (mesh_lo, mesh_hi) = mesh.bounds();
        let (lo, hi) = (lo.max(mesh_lo), hi.min(mesh_hi));
        let size = hi - lo;
        let mut cell = 0.5 * radius;
        while (size.x / cell).ceil() * (size.y / cell).ceil() > MAX_CELLS as f64 {
            cell *= 1.5;
        }
        let (width, height) = (
            (size.x / cell).ceil().max(1.0) as usize,
            (size.y / cell).ceil().max(1.0) as usize,
        );
        let reach = 0.5 * size.length() + self.max_radius + radius + 2.0 * margin;
        let mut near = Vec::new();
        self.grid.near(0.5 * (lo + hi), reach, &mut near);
        let blockers: Vec<(DVec2, f64)> = near
            .iter()
            .map(|&i| self.dense[i as usize])
            .filter(|&k| k != key)
            .map(|k| &self.agents[k])
            .filter(|other| keeps_out(other))
            .map(|other| {
                // One standing closer than that already (agents stop near each other) keeps
                // only what it has: the agent may move away from it, not toward it.
                let apart = radius + other.desc().radius + 2.0 * margin;
                let now = other.position().distance(from);
                (other.position(), apart.min(0.99 * now))
            })
            .collect();
        // It may stand closer than its radius to a wall, and its goal may lie closer (the
        // rails keep exactly the radius): their surroundings ask only what they have.
        let own_clearance = radius.min(mesh.wall_distance(from));
        let end_clearance = radius.min(mesh.wall_distance(to));
        let mut grid = Grid {
            origin: lo,
            cell,
            width,
            height,
            free: Vec::with_capacity(width * height),
        };
        // Cells kept out of by a standing agent (testing every cell against every blocker
        // was most of a frame once a 1,000-agent crowd had hundreds of agents standing in the
        // window: tradeshow-1000, `perf`).
        let blocked = grid.within_discs(&blockers);
        for (index, &blocked) in blocked.iter().enumerate() {
            if blocked {
                grid.free.push(false);
                continue;
            }
            let p = grid.centre(index);
            // A quarter cell more than the radius from walls, so the straight runs between
            // cell centres keep the radius.
            let clearance = if p.distance(from) <= radius {
                own_clearance
            } else if p.distance(to) <= radius {
                end_clearance - 0.25 * cell
            } else {
                radius + 0.25 * cell
            };
            grid.free
                .push(mesh.contains(p) && mesh.wall_distance(p) >= clearance);
        }
        Some(Window {
            grid,
            near,
            end_clearance,
        })
    }

    /// Whether [`World::sealed_goal_detour`] looks for a spot for the agent `key` at all: it
    /// goes to its goal (not to a yield spot) within [`REJOIN_REACH`], and several agents were
    /// sent there (this agent's end, or that of an agent standing for good within
    /// [`FREE_SPOT_REACH_RADII`] of its goal, was moved off a taken goal). An agent that stands
    /// on its own goal in the way of another's (a corridor) makes way instead.
    pub(super) fn goal_is_shared(&self, key: AgentKey) -> bool {
        let agent = &self.agents[key];
        let Some(rail) = agent.rail() else {
            return false;
        };
        let goal = rail.end();
        // (A rail to a yield spot is not to its goal: the spot is the deadlock rule's.)
        if agent.resume_goal.is_some() || agent.position().distance(goal) > REJOIN_REACH {
            return false;
        }
        let reach = FREE_SPOT_REACH_RADII * agent.desc().radius;
        let moved = |other: &crate::world::Agent| other.destination == DestinationCheck::Moved;
        moved(agent)
            || self.grid.any_near(goal, reach, |i| {
                let other = &self.agents[self.dense[i]];
                moved(other) && other.stands_for_good() && other.position().distance(goal) <= reach
            })
    }

    /// A rail to the nearest spot of its goal that the agent `key` can reach, when agents
    /// standing with nowhere to go seal its goal off and several agents were sent there (a
    /// crowd sent to one point: the destination check gave this agent a free spot beside the
    /// point, and the others, arriving first, stood round it). `None` when the goal is not
    /// shared ([`World::goal_is_shared`]), the goal can be reached, or no spot is free.
    ///
    /// On the grid of [`World::window`] kept out of agents standing for good only (one waiting
    /// to go on will clear the way): the cells reached from the agent's, and of those within
    /// [`FREE_SPOT_REACH_RADII`] of the goal and not taken (the destination check's test, with
    /// every other agent's rail end counted), the nearest to the goal (ties to the lower cell
    /// index); the way there as a detour's.
    pub(super) fn sealed_goal_detour(&self, key: AgentKey) -> Option<Detour> {
        if !self.goal_is_shared(key) {
            return None;
        }
        let agent = &self.agents[key];
        let rail = agent.rail()?;
        let radius = agent.desc().radius;
        let from = agent.position();
        let goal = rail.end();
        let reach = FREE_SPOT_REACH_RADII * radius;
        let Window { mut grid, .. } = self.window(key, goal, WINDOW_MARGINS[0], |other| {
            other.stands_for_good()
        })?;
        let start = grid.index_of(from)?;
        grid.free[start] = true;
        let reached = grid.reached_from(start);
        if grid.index_of(goal).is_none_or(|cell| reached[cell]) {
            return None;
        }
        // Every other agent's rail end counts as taken, the earlier rails' too: this agent is the
        // one that moves now.
        let serial = u64::MAX;
        let (_, spot) = reached
            .iter()
            .enumerate()
            .filter(|&(_, &reached)| reached)
            .map(|(index, _)| (grid.centre(index).distance(goal), index))
            .filter(|&(distance, index)| {
                distance <= reach && !self.spot_is_taken(key, serial, grid.centre(index), radius)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))?;
        let end = grid.centre(spot);
        let cells = grid_path(&grid, start, spot)?;
        let mut points = taut(&grid, &cells, from, end);
        points.dedup_by(|a, b| a.distance(*b) < 1e-6);
        let mesh = self.level().navmesh();
        let clearance = radius.min(mesh.wall_distance(from));
        let rail = rounded_on_mesh(mesh, &points, radius, clearance)?;
        Some(Detour { rail, rejoin: end })
    }

    /// [`World::detour`] (which keeps the radius from walls, or the clearance the agent has now
    /// if less, as a bend does), if a start along it is clear now or once a moving agent has
    /// passed (the agent then waits on its new rail).
    pub(super) fn checked_detour(
        &self,
        key: AgentKey,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<Detour> {
        let detour = self.detour(key)?;
        let hysteresis = Hysteresis::resume(self.config());
        match start_verdict(
            self,
            key,
            &detour.rail,
            0.0,
            hysteresis,
            candidates,
            samples,
        ) {
            // Still blocked by an agent with nowhere to go: the grid's cells were too coarse.
            StartVerdict::Blocked { blocker } if !self.agents[blocker].wants_to_move() => None,
            // Clear, or blocked by agents that will move on: the agent takes its new rail and
            // waits on them there (a deadlock through them is then seen and broken).
            _ => Some(detour),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_grid(width: usize, height: usize) -> Grid {
        Grid {
            origin: DVec2::ZERO,
            cell: 1.0,
            width,
            height,
            free: vec![true; width * height],
        }
    }

    #[test]
    fn discs_stamped_by_bounding_box_are_the_cells_every_disc_covers() {
        let mut grid = open_grid(37, 23);
        grid.origin = DVec2::new(-3.2, 1.7);
        grid.cell = 0.21;
        let discs = [
            (DVec2::new(-1.0, 3.0), 0.9),
            (DVec2::new(-3.5, 1.5), 0.5),
            (DVec2::new(4.7, 6.4), 1.3),
            (DVec2::new(9.0, 9.0), 0.4),
            (DVec2::new(0.0, 2.5), 0.21),
        ];
        let stamped = grid.within_discs(&discs);
        for (index, &inside) in stamped.iter().enumerate() {
            let p = grid.centre(index);
            let brute = discs.iter().any(|&(q, d)| p.distance(q) < d);
            assert_eq!(inside, brute, "cell {index} at {p:?}");
        }
        assert!(stamped.iter().any(|&b| b) && !stamped.iter().all(|&b| b));
    }

    #[test]
    fn a_star_goes_around_a_wall_of_blocked_cells_by_the_shortest_way() {
        // A 10 × 10 grid with a wall at x = 5 from y = 0 to 7: around its top end.
        let mut grid = open_grid(10, 10);
        for j in 0..8 {
            grid.free[j * 10 + 5] = false;
        }
        let path = grid_path(&grid, 0, 9).unwrap();
        assert_eq!(path[0], 0);
        assert_eq!(*path.last().unwrap(), 9);
        assert!(path.iter().all(|&i| grid.free[i]));
        assert!(
            path.iter().any(|&i| i / 10 >= 8),
            "goes over the wall's end"
        );
        // Steps are between neighbours, and never cut a blocked corner.
        for w in path.windows(2) {
            let (a, b) = ((w[0] % 10, w[0] / 10), (w[1] % 10, w[1] / 10));
            assert!(a.0.abs_diff(b.0) <= 1 && a.1.abs_diff(b.1) <= 1);
        }
        // The cost is optimal: 8 up (diagonals as far as they go), over, down.
        let cost: f64 = path
            .windows(2)
            .map(|w| grid.centre(w[0]).distance(grid.centre(w[1])))
            .sum();
        // Up from (0,0) to (4,8) with 4 diagonals and 4 straight, across to (6,8) through
        // (5,8), down to (9,0): 4 + 4√2, 2, 5 + 3√2... any optimal path costs the same.
        let best = 4.0 + 4.0 * 2f64.sqrt() + 2.0 + 5.0 + 3.0 * 2f64.sqrt();
        assert!((cost - best).abs() < 1e-9, "{cost} vs {best}");
    }

    #[test]
    fn a_star_finds_no_path_through_a_closed_wall() {
        let mut grid = open_grid(10, 10);
        for j in 0..10 {
            grid.free[j * 10 + 5] = false;
        }
        assert!(grid_path(&grid, 0, 9).is_none());
    }

    #[test]
    fn the_cells_reached_are_those_a_star_can_reach() {
        // A ring of blocked cells round (5, 5) open only at its corner (6, 6), a diagonal step
        // between two blocked cells that A* does not take: the ring's inside is not reached,
        // and every cell is reached exactly when A* finds a path to it.
        let mut grid = open_grid(10, 10);
        for (i, j) in [(4, 4), (5, 4), (6, 4), (4, 5), (6, 5), (4, 6), (5, 6)] {
            grid.free[j * 10 + i] = false;
        }
        let reached = grid.reached_from(0);
        assert!(!reached[5 * 10 + 5], "inside the ring");
        for (goal, &reached) in reached.iter().enumerate() {
            let by_a_star = grid.free[goal] && grid_path(&grid, 0, goal).is_some();
            assert_eq!(reached, by_a_star, "cell {goal}");
        }
    }

    #[test]
    fn rounded_corners_are_g1_and_keep_the_ends() {
        let points = [
            DVec2::new(0.0, 0.0),
            DVec2::new(4.0, 0.0),
            DVec2::new(4.0, 4.0),
            DVec2::new(8.0, 4.0),
        ];
        let rail = rounded(&points, 0.5).unwrap();
        assert!(rail.start().distance(points[0]) < 1e-9);
        assert!(rail.end().distance(points[3]) < 1e-9);
        let mut s = 0.0;
        for segment in rail.segments() {
            s += segment.arclength();
            if s < rail.length() - 1e-6 {
                let before = rail.tangent(s - 1e-7);
                let after = rail.tangent(s + 1e-7);
                assert!(before.distance(after) < 1e-4, "G1 at {s}: {before} {after}");
            }
        }
        // The corner is cut by at most the rounding distance.
        assert!(rail.length() < 12.0 && rail.length() > 12.0 - 2.0 * 0.5);
    }
}
