//! Free-steering agents in the world: a corner path over the navmesh to follow, the nearest
//! neighbours, and the solver (ORCA or time-to-collision forces) that turns the preferred
//! velocity into a new one that never leaves the mesh.

use glam::DVec2;

use super::exits;
use super::neighbours::{nearest_among, nearest_among_sorted, NeighbourGrid, SortedCandidates};
use super::orca::{orca_velocity_of, ObstacleMap, OrcaAgent, OrcaNeighbour, OrcaScratch};
use super::ttc::{time_to_collision, ttc_velocity, TtcAgent, TtcNeighbour};
use crate::geometry::closest_on_segment;
use crate::level::{Path, PathOptions, Turn};
use crate::world::{AgentDesc, AgentKey, AvoidanceConfig, Locomotion, World, WorldError};

/// Within this time of its goal at the preferred speed, a free agent slows down: its preferred
/// speed is the distance left over this time (the reference ORCA library's examples use the
/// goal vector itself within 1 m of a unit preferred speed, the same rule), seconds.
const ARRIVAL_TIME: f64 = 1.0;

/// How far ahead (seconds) a rail agent's motion along its rail is averaged into the velocity
/// free agents see: its rail is known, so a bend just ahead already shows.
const RAIL_LOOKAHEAD: f64 = 0.5;

/// A rail agent whose velocity over the next frame differs from its average over
/// [`RAIL_LOOKAHEAD`] by more than this (m/s) is two neighbours to an ORCA agent, one at each
/// velocity: starting, stopping or turning, it follows neither straight line. Below it they
/// are one (a rail agent walking steadily along a straight stretch).
const RAIL_VELOCITY_SPREAD: f64 = 0.05;

/// The candidate lists of the neighbour search ("Verlet lists") hold every agent within the
/// neighbour distance plus a skin of this fraction of the longest neighbour distance (in a crowd,
/// within the distance of the k-th nearest plus two skins), and are made again once any agent
/// has moved half a skin since, so no agent that can be a neighbour is missing. Longer lists
/// are scanned every frame, shorter ones are remade more often: on the one-substep Circle
/// example (`run --json` median per frame) 0.05 gave 75 µs, 0.1 57 µs, 0.15 48 µs, 0.25 45 µs,
/// 0.4 43 µs; 0.3 (4.5 m for a 15 m neighbour distance) is near the best without long lists
/// for agents with short neighbour distances.
const CANDIDATE_SKIN: f64 = 0.3;

/// Keep right: where a free agent's path turns left around a wall vertex, its corner is moved
/// this many radii farther from the vertex (fewer where the mesh leaves less room), radii;
/// range [0, 10], 0 to hug every corner; default 2. Agents rounding the same corner the other way
/// turn right there and hug it, their discs reaching 2 radii from the vertex: 2 leaves them
/// that lane. Without it, two streams rounding one block corner in opposite directions both
/// aimed at the same point and knotted there (rvo2-blocks, docs/PERFORMANCE.md).
const KEEP_RIGHT_RADII: f64 = 2.0;

/// A released agent ([`FreeState::released_at`]) whose velocity is under this fraction of the
/// speed it wants is halted: its preferred velocity turns right by
/// [`crate::AvoidanceConfig::release_turn_degrees`].
const STUCK_SPEED_FRACTION: f64 = 0.1;

/// Passing on the right ([`crate::OrcaConfig::pass_right_degrees`]) leaves out a neighbour
/// crossing the agent's way from its left within 15° of square: the cosine of the angle
/// between its velocity and the agent's preferred velocity is under this in size (sin 15°).
/// Turning right for a stream crossing from the left turns into its way: in crossroads-4-way
/// steered by ORCA, whose arms' agents already keep right, the travel time ratio went from
/// 1.04 to 1.58 over three jittered runs; with this, 1.04. One crossing from the right still
/// counts (turning right passes behind it): leaving out both sides cost den312d-500 steered by
/// ORCA arrivals, 75 % → 70 % over 18 runs, against 73 % for the left side only
/// (docs/PERFORMANCE.md, "Pass on the right").
const CROSSING_COSINE: f64 = 0.258_819_045_102_520_8;

/// A neighbour slower than this has no direction that counts as crossing, m/s.
const CROSSING_MIN_SPEED: f64 = 0.1;

/// A free agent further than this many radii from the line between its last and next corner
/// checks that it can still see the next corner, and plans again if not.
const OFF_PATH_RADII: f64 = 2.0;

/// The steering state of a free agent.
#[derive(Clone, Debug, Default)]
pub(crate) struct FreeState {
    /// Current velocity, m/s (reported by the host).
    pub velocity: DVec2,
    /// Where it is going, if anywhere.
    pub goal: Option<DVec2>,
    /// The corner path to the goal, from where it was planned.
    pub corners: Vec<DVec2>,
    /// Index in `corners` of the corner it walks toward.
    pub next: usize,
    /// The velocity of the solver's last substep, m/s.
    pub solved: DVec2,
    /// The preferred velocity of this frame, m/s.
    pub preferred: DVec2,
    /// A rail agent released from a jam ([`crate::Order::Release`]): when (world clock,
    /// seconds). `None` for an agent free by its description.
    pub released_at: Option<f64>,
    /// A released agent tries to rejoin a rail no sooner than this (world clock, seconds).
    pub next_rejoin: f64,
    /// A released agent's narrow stretches along `corners` (entry, exit), for its right of way
    /// out of them (`steer/exits.rs`); empty for other free agents and with
    /// [`crate::AvoidanceConfig::exit_right_of_way`] 0.
    pub narrow_stretches: Vec<[DVec2; 2]>,
}

/// A new velocity for a free agent (the answer of [`World::steer_all`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steer {
    /// The agent.
    pub key: AgentKey,
    /// Its new velocity, m/s: collision-free for the solver's horizon as far as the solver can
    /// make it, and keeping the agent on the navmesh for the frame's `dt`.
    pub velocity: DVec2,
    /// The velocity it would take with nobody around (toward its next corner), m/s.
    pub preferred: DVec2,
}

/// Buffers reused by every [`World::steer_all`] (nothing is allocated per frame once they
/// have grown): a flat copy of every agent in key order (the "dense" index), the neighbour grid
/// and each free agent's neighbour list.
#[derive(Clone, Debug, Default)]
pub(crate) struct SteerScratch {
    /// Every agent, in key order.
    keys: Vec<AgentKey>,
    /// Their positions (for the neighbour search; also in `bodies`).
    positions: Vec<DVec2>,
    /// What a solver needs to know of every agent as a neighbour, in one record so each
    /// neighbour is one read.
    bodies: Vec<Body>,
    /// The free agents' new velocities this substep, by dense index.
    solved: Vec<DVec2>,
    /// Dense indices of the free agents.
    free_agents: Vec<u32>,
    /// The solver inputs of free agent `f` (index into `free_agents`), copied out of the agents'
    /// records once per frame.
    inputs: Vec<FreeInput>,
    /// Free agent `f`'s neighbours are `neighbour_list[neighbour_start[f]..neighbour_start[f + 1]]`
    /// (dense indices, nearest first).
    neighbour_start: Vec<u32>,
    neighbour_list: Vec<u32>,
    grid: NeighbourGrid,
    nearest: Vec<(f64, u32)>,
    /// Candidate lists (Verlet lists): free agent `f` may only have neighbours among
    /// `candidates[candidate_start[f]..candidate_start[f + 1]]`, every agent that was within its
    /// neighbour distance + `skin` when the lists were made, at `listed_positions`, for the
    /// agents `listed_keys`. Each list is sorted by the distance then, kept in
    /// `candidate_distance` (metres), so the search for the nearest can stop early.
    candidate_start: Vec<u32>,
    candidates: Vec<u32>,
    candidate_distance: Vec<f64>,
    /// The farthest any agent has moved since the lists were made, metres (this frame).
    moved_most: f64,
    listed_keys: Vec<AgentKey>,
    /// The free agents (dense indices) the lists were made for: a rail agent released from a
    /// jam, or one back on a rail, changes them.
    listed_free: Vec<u32>,
    listed_positions: Vec<DVec2>,
    skin: f64,
    /// Free agent `f` had no wall within `wall_free[f]` metres of its listed position (0 when
    /// one was near): while it is within `wall_free[f] - range` of that position, its wall
    /// queries within `range` are known to be empty and are skipped.
    wall_free: Vec<f64>,
    /// An obstacle map without obstacles, for agents with no wall in reach.
    no_walls: ObstacleMap,
    ttc_neighbours: Vec<TtcNeighbour>,
    walls: Vec<(DVec2, DVec2)>,
    edges: Vec<(f64, u32)>,
    orca: OrcaScratch,
}

/// An agent as the free agents' solvers see it as a neighbour.
#[derive(Clone, Copy, Debug)]
struct Body {
    position: DVec2,
    /// The velocity the others see this substep: a free agent's velocity of the previous
    /// substep, a rail agent's average velocity over [`RAIL_LOOKAHEAD`] (NaN until needed).
    velocity: DVec2,
    /// A rail agent's velocity over the next frame when it differs from `velocity` by more
    /// than [`RAIL_VELOCITY_SPREAD`]: ORCA agents avoid it at both (NaN otherwise, and for
    /// free agents).
    velocity_next: DVec2,
    radius: f64,
    priority: i32,
    /// A released agent in a narrow stretch of its way or just out of one
    /// ([`crate::AvoidanceConfig::exit_right_of_way`]): among equal priorities, it has the right
    /// of way.
    exiting: bool,
    /// The solvers' id (see `id_of`).
    id: u32,
    /// Whether the agent steers freely.
    free: bool,
}

/// A free agent's solver inputs for one frame.
#[derive(Clone, Copy, Debug)]
struct FreeInput {
    locomotion: Locomotion,
    /// Neighbour distance, metres, and most neighbours.
    range: f64,
    max: usize,
    /// Largest speed, m/s.
    max_speed: f64,
    /// The range its solver searches walls within, metres.
    wall_range: f64,
    /// Preferred velocity, m/s: toward its next corner.
    preferred: DVec2,
    /// The preferred velocity its solver is given, m/s: `preferred`, or turned right to pass a
    /// neighbour on its right ([`crate::OrcaConfig::pass_right_degrees`]).
    aimed: DVec2,
    /// Whether it passes on the right: an ORCA agent by its description, or a rail agent
    /// released from a jam (steered by ORCA), not a time-to-collision agent.
    passes_right: bool,
    /// How far it has moved since the candidate lists were made, metres.
    moved: f64,
    /// How far from it no wall is known to be, metres (0 if unknown): its wall-free radius
    /// where it was listed less how far it has moved since, less a micrometre for rounding.
    clear: f64,
}

/// The stable id of a key for the solvers' tie-breaking rules (its slot index).
fn id_of(key: AgentKey) -> u32 {
    use slotmap::Key;
    key.data().as_ffi() as u32
}

impl World {
    fn free_agent_mut(&mut self, key: AgentKey) -> Result<&mut crate::Agent, WorldError> {
        let agent = self
            .agents
            .get_mut(key)
            .ok_or(WorldError::UnknownAgent(key))?;
        if agent.free.is_none() {
            return Err(WorldError::NotFree(key));
        }
        Ok(agent)
    }

    /// Send a free agent to `goal`: plans a corner path over the navmesh (for its radius) from
    /// where it is. Errors: an unknown key, a rail agent ([`WorldError::NotFree`]), a goal off
    /// the mesh or unreachable.
    pub fn set_goal(&mut self, key: AgentKey, goal: DVec2) -> Result<(), WorldError> {
        if self.agent(key)?.free.is_none() {
            return Err(WorldError::NotFree(key));
        }
        let path = self.free_path(key, goal)?;
        self.take_free_path(key, goal, &path);
        Ok(())
    }

    /// The corner path a free agent would walk from where agent `key` is to `goal` (planned
    /// for its radius, as [`World::set_goal`] plans it).
    pub(crate) fn free_path(&self, key: AgentKey, goal: DVec2) -> Result<Path, WorldError> {
        let agent = self.agent(key)?;
        let options = PathOptions::from_agent_radius(agent.desc().radius);
        self.level()
            .navmesh()
            .find_path(agent.position(), goal, &options)
            .map_err(|e| WorldError::Plan(e.into()))
    }

    /// Send free agent `key` along `path` (from [`World::free_path`]) to `goal`.
    pub(crate) fn take_free_path(&mut self, key: AgentKey, goal: DVec2, path: &Path) {
        let free = self.agents[key].free.as_mut().expect("a free agent");
        free.goal = Some(goal);
        free.next = 1.min(path.corners.len().saturating_sub(1));
        self.set_corners(key, path);
    }

    /// Give free agent `key` the corners of `path` (planned for its radius), keeping right:
    /// each corner where the path turns left around a wall vertex moves `KEEP_RIGHT_RADII`
    /// radii (else half that) farther from the vertex, along the line from it, if the mesh
    /// leaves room there (no wall within a radius of the new point, and the straight ways from
    /// the corner before and to the corner after on the mesh); otherwise it stays. A released
    /// agent also gets the path's narrow stretches, for its right of way out of them
    /// ([`AvoidanceConfig::exit_right_of_way`]).
    fn set_corners(&mut self, key: AgentKey, path: &Path) {
        let agent = &mut self.agents[key];
        let radius = agent.desc.radius;
        let free = agent.free.as_mut().expect("free");
        let released = free.released_at.is_some();
        let mut corners = std::mem::take(&mut free.corners);
        let mut stretches = std::mem::take(&mut free.narrow_stretches);
        corners.clear();
        stretches.clear();
        corners.extend(path.corners.iter().map(|c| c.position));
        let mesh = self.level().navmesh();
        let obstacles = self
            .obstacles
            .as_ref()
            .expect("built with the first free agent");
        for k in 1..corners.len().saturating_sub(1) {
            let Some(vertex) = path.corners[k].around else {
                continue;
            };
            if vertex.turn != Turn::Left {
                continue;
            }
            let out = (corners[k] - vertex.position).normalize_or_zero();
            for gap in [KEEP_RIGHT_RADII, 0.5 * KEEP_RIGHT_RADII] {
                let moved = corners[k] + out * (gap * radius);
                if gap > 0.0
                    && out != DVec2::ZERO
                    && obstacles.is_clear_within(moved, radius)
                    && mesh.is_reachable(corners[k - 1], moved)
                    && mesh.is_reachable(moved, corners[k + 1])
                {
                    corners[k] = moved;
                    break;
                }
            }
        }
        if self.config().exit_right_of_way > 0.0 && released {
            exits::narrow_stretches(mesh, &corners, radius, &mut stretches);
        }
        let free = self.agents[key].free.as_mut().expect("free");
        free.corners = corners;
        free.narrow_stretches = stretches;
    }

    /// Forget a free agent's goal: it stands (preferred velocity zero) but still gives way.
    pub fn clear_goal(&mut self, key: AgentKey) -> Result<(), WorldError> {
        let free = self
            .free_agent_mut(key)?
            .free
            .as_mut()
            .expect("checked free");
        free.goal = None;
        free.corners.clear();
        free.narrow_stretches.clear();
        free.next = 0;
        Ok(())
    }

    /// The host's report of where a free agent is and how fast it moves. A position off the
    /// navmesh or a non-finite value is refused (the agent keeps its last report).
    pub fn set_free_motion(
        &mut self,
        key: AgentKey,
        position: DVec2,
        velocity: DVec2,
    ) -> Result<(), WorldError> {
        if !position.is_finite() || !velocity.is_finite() {
            return Err(WorldError::InvalidMotion {
                key,
                problem: format!("position {position} or velocity {velocity} is not finite"),
            });
        }
        if !self.level().navmesh().contains(position) {
            return Err(WorldError::OffMesh {
                what: "position",
                at: position,
            });
        }
        let agent = self.free_agent_mut(key)?;
        agent.desc.position = position;
        agent.free.as_mut().expect("checked free").velocity = velocity;
        self.refresh(key);
        self.grid_dirty = true;
        Ok(())
    }

    /// The velocity-space update of every free agent, in key order, into `out` (cleared
    /// first):
    /// 1. preferred velocities: toward the next corner of each agent's path (skipping corners
    ///    reached, planning again when it has strayed out of sight of the next one);
    /// 2. neighbours: each free agent's nearest within its solver's neighbour distance (at most
    ///    its maximum count, nearest first, ties by key order), found once for all substeps;
    ///    an ORCA-steered agent about to meet one of them aims to pass it on the right
    ///    ([`crate::OrcaConfig::pass_right_degrees`]);
    /// 3. the solver, `substeps` times (ORCA; once for time-to-collision forces), every agent
    ///    against its neighbours' velocities of the previous substep (rail agents at their
    ///    motion along their rails, taking no part in the avoidance; to ORCA, a rail agent is
    ///    a disc grown by the rail agents' two margins, and one starting, stopping or turning
    ///    is two neighbours, one at its average velocity over the next half second and one at
    ///    its velocity over the next frame);
    /// 4. the mesh guard: a velocity that would cross a wall within `dt` slides along it.
    ///
    /// The world's copies of the velocities are not changed: the host moves its agents and
    /// reports them with [`World::set_free_motion`].
    pub fn steer_all(&mut self, dt: f64, out: &mut Vec<Steer>) {
        out.clear();
        if self.obstacles.is_none() {
            // Built with the first free agent: there is none.
            return;
        }
        let mut scratch = std::mem::take(&mut self.steer_scratch);
        // 1. The flat copy of every agent, and the free agents' solver inputs.
        let config = *self.config();
        scratch.keys.clear();
        scratch.positions.clear();
        scratch.bodies.clear();
        scratch.free_agents.clear();
        scratch.inputs.clear();
        let mut longest = 0.0_f64;
        let exit_after = config.exit_right_of_way;
        for (key, agent) in &self.agents {
            let dense = scratch.keys.len() as u32;
            let desc = agent.desc();
            let position = agent.position();
            scratch.keys.push(key);
            scratch.positions.push(position);
            scratch.bodies.push(Body {
                position,
                velocity: agent.free.as_ref().map_or(DVec2::NAN, |f| f.velocity),
                velocity_next: DVec2::NAN,
                radius: desc.radius,
                priority: desc.priority,
                exiting: agent.free.as_ref().is_some_and(|free| {
                    exit_after > 0.0
                        && exits::in_or_just_out(
                            &free.narrow_stretches,
                            position,
                            desc.radius,
                            exit_after,
                        )
                }),
                id: id_of(key),
                free: agent.free.is_some(),
            });
            if agent.free.is_some() {
                scratch.free_agents.push(dense);
                let (range, max) = neighbour_limits(&config, desc);
                longest = longest.max(range);
                let max_speed = desc.gaits.iter().map(|g| g.speed).fold(0.0, f64::max);
                let horizon = match desc.locomotion {
                    Locomotion::Ttc => config.ttc.time_horizon,
                    _ => config.orca.obstacle_time_horizon,
                };
                scratch.inputs.push(FreeInput {
                    // A rail agent released from a jam steers with ORCA.
                    locomotion: match desc.locomotion {
                        Locomotion::Ttc => Locomotion::Ttc,
                        _ => Locomotion::Orca,
                    },
                    range,
                    max,
                    max_speed,
                    wall_range: horizon * max_speed + desc.radius,
                    preferred: DVec2::ZERO,
                    aimed: DVec2::ZERO,
                    // ORCA agents and rail agents released from a jam, not time-to-collision
                    // agents (their forces have their own sideways share).
                    passes_right: desc.locomotion != Locomotion::Ttc,
                    moved: 0.0,
                    clear: 0.0,
                });
            }
        }
        if scratch.free_agents.is_empty() {
            self.steer_scratch = scratch;
            return;
        }
        // Preferred velocities.
        for f in 0..scratch.free_agents.len() {
            let key = scratch.keys[scratch.free_agents[f] as usize];
            scratch.inputs[f].preferred = self.follow_path(key);
        }
        // 2. Neighbours: the nearest among the candidate lists, made again when needed.
        let skin = CANDIDATE_SKIN * longest;
        let moved_sq = (0.5 * skin) * (0.5 * skin);
        let mut stale = scratch.skin != skin
            || scratch.listed_keys != scratch.keys
            || scratch.listed_free != scratch.free_agents;
        if !stale {
            let mut most_sq = 0.0_f64;
            for (p, q) in scratch.positions.iter().zip(&scratch.listed_positions) {
                let d = p.distance_squared(*q);
                // NaN (never for positions from the host) counts as moved.
                if d.is_nan() || d > moved_sq {
                    stale = true;
                    break;
                }
                most_sq = most_sq.max(d);
            }
            scratch.moved_most = most_sq.sqrt();
        }
        if stale {
            self.make_candidate_lists(&mut scratch, skin);
            scratch.moved_most = 0.0;
        }
        for f in 0..scratch.free_agents.len() {
            let i = scratch.free_agents[f] as usize;
            let moved = scratch.positions[i].distance(scratch.listed_positions[i]);
            let clear = scratch.wall_free[f] - moved - 1e-6;
            let input = &mut scratch.inputs[f];
            input.moved = moved;
            input.clear = if clear.is_finite() {
                clear.max(0.0)
            } else {
                0.0
            };
        }
        scratch.neighbour_start.clear();
        scratch.neighbour_list.clear();
        scratch.neighbour_start.push(0);
        for f in 0..scratch.free_agents.len() {
            let i = scratch.free_agents[f] as usize;
            let FreeInput {
                range, max, moved, ..
            } = scratch.inputs[f];
            let listed =
                scratch.candidate_start[f] as usize..scratch.candidate_start[f + 1] as usize;
            // Every distance from this agent has changed by at most its own move and the
            // largest one since the lists were made (a hair more for rounding).
            let slack = (moved + scratch.moved_most) * (1.0 + 1e-9) + 1e-9;
            nearest_among_sorted(
                SortedCandidates {
                    candidates: &scratch.candidates[listed.clone()],
                    listed: &scratch.candidate_distance[listed],
                    slack,
                },
                &scratch.positions,
                scratch.positions[i],
                range,
                max,
                &mut scratch.nearest,
            );
            scratch
                .neighbour_list
                .extend(scratch.nearest.iter().map(|&(_, j)| j));
            for &(_, j) in &scratch.nearest {
                let j = j as usize;
                let body = &mut scratch.bodies[j];
                if !body.free && body.velocity.is_nan() {
                    // A rail agent does not take part: the free agent takes it all, at the
                    // rail agent's average velocity over the next moments along its rail, and
                    // at its velocity over the next frame when the two differ. With the
                    // average alone, an agent about to start, still turning on the spot, was
                    // seen leaving at 0.7 m/s, and a free agent walked into it (arena-200 with
                    // the jam release: 10 contacts); with the next frame's alone, one seen
                    // standing accelerated into a free agent (tradeshow-1000 with its starts
                    // jittered, seed 4: 12.7 % deep). Its path lies between the two.
                    let other = &self.agents[scratch.keys[j]];
                    // One trajectory for both, sampled in time order (the next frame is
                    // sooner than the lookahead, bar a frame longer than half a second).
                    let mut trajectory = other.trajectory();
                    let next =
                        (dt > 0.0).then(|| (trajectory.position(dt) - other.position()) / dt);
                    let ahead = trajectory.position(RAIL_LOOKAHEAD);
                    body.velocity = (ahead - other.position()) / RAIL_LOOKAHEAD;
                    if let Some(next) = next {
                        if next.distance(body.velocity) > RAIL_VELOCITY_SPREAD {
                            body.velocity_next = next;
                        }
                    }
                }
            }
            scratch
                .neighbour_start
                .push(scratch.neighbour_list.len() as u32);
        }
        // ORCA agents about to meet a neighbour aim to pass it on their right.
        for f in 0..scratch.free_agents.len() {
            scratch.inputs[f].aimed = self.aim(f, &scratch);
        }
        // 3. The solver, over substeps (Jacobi: every agent sees the previous substep).
        let substeps = config.orca.substeps.max(1);
        for substep in 0..substeps {
            let mut solved = std::mem::take(&mut scratch.solved);
            solved.clear();
            let mut any_orca = false;
            for f in 0..scratch.free_agents.len() {
                let locomotion = scratch.inputs[f].locomotion;
                if substep > 0 && locomotion != Locomotion::Orca {
                    solved.push(scratch.bodies[scratch.free_agents[f] as usize].velocity);
                    continue;
                }
                any_orca |= locomotion == Locomotion::Orca;
                solved.push(self.solve(f, &mut scratch, dt));
            }
            for (&i, &v) in scratch.free_agents.iter().zip(&solved) {
                scratch.bodies[i as usize].velocity = v;
            }
            scratch.solved = solved;
            if !any_orca {
                break;
            }
        }
        // 4. The mesh guard.
        for f in 0..scratch.free_agents.len() {
            let i = scratch.free_agents[f] as usize;
            let key = scratch.keys[i];
            let solved = scratch.bodies[i].velocity;
            self.agents[key].free.as_mut().expect("free").solved = solved;
            let clear = scratch.inputs[f].clear;
            let velocity = self.keep_on_mesh(scratch.positions[i], solved, dt, clear);
            out.push(Steer {
                key,
                velocity,
                preferred: scratch.inputs[f].preferred,
            });
        }
        self.steer_scratch = scratch;
    }

    /// Step 2 of [`World::steer_all`] when the candidate lists are stale: each free agent's
    /// list (every agent within its neighbour distance + `skin`; in a crowd, within the
    /// distance of its `max`-th nearest + two skins), sorted by distance; and how far each one
    /// is from the walls.
    fn make_candidate_lists(&self, scratch: &mut SteerScratch, skin: f64) {
        let longest = skin / CANDIDATE_SKIN;
        scratch.grid.rebuild(&scratch.positions, longest + skin);
        scratch.candidate_start.clear();
        scratch.candidates.clear();
        scratch.candidate_distance.clear();
        scratch.wall_free.clear();
        scratch.candidate_start.push(0);
        let obstacles = self
            .obstacles
            .as_ref()
            .expect("built with the first free agent");
        for f in 0..scratch.free_agents.len() {
            let i = scratch.free_agents[f];
            let FreeInput { range, max, .. } = scratch.inputs[f];
            let centre = scratch.positions[i as usize];
            let from = scratch.candidates.len();
            scratch
                .grid
                .within(centre, range + skin, i, &mut scratch.candidates);
            // With `max` agents within `kth` now, after everyone has moved up to skin / 2 the
            // `max` nearest are within kth + skin, so they are within kth + 2 skin now: in a
            // crowd the list keeps to those (it would hold the whole crowd otherwise).
            nearest_among(
                &scratch.candidates[from..],
                &scratch.positions,
                centre,
                range,
                max,
                &mut scratch.nearest,
            );
            let keep_sq = if max > 0 && scratch.nearest.len() == max {
                let keep = scratch.nearest[max - 1].0.sqrt() + 2.0 * skin;
                // A hair longer, so rounding cannot drop an agent at exactly that distance.
                keep * keep * (1.0 + 1e-9)
            } else {
                f64::INFINITY
            };
            let positions = &scratch.positions;
            scratch.nearest.clear();
            scratch.nearest.extend(
                scratch.candidates[from..]
                    .iter()
                    .map(|&j| (positions[j as usize].distance_squared(centre), j))
                    .filter(|&(d, _)| d <= keep_sq),
            );
            scratch
                .nearest
                .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            scratch.candidates.truncate(from);
            for &(d, j) in &scratch.nearest {
                scratch.candidates.push(j);
                scratch.candidate_distance.push(d.sqrt());
            }
            scratch
                .candidate_start
                .push(scratch.candidates.len() as u32);
            // No wall within the solver's wall range + a skin: its wall queries are skipped
            // until it has moved a skin.
            let reach = scratch.inputs[f].wall_range + skin;
            scratch
                .wall_free
                .push(if obstacles.is_clear_within(centre, reach) {
                    reach
                } else {
                    0.0
                });
        }
        scratch.listed_keys.clone_from(&scratch.keys);
        scratch.listed_free.clone_from(&scratch.free_agents);
        scratch.listed_positions.clone_from(&scratch.positions);
        scratch.skin = skin;
    }

    /// Step 1 of [`World::steer_all`] for one agent: its preferred velocity (also kept in its
    /// record).
    fn follow_path(&mut self, key: AgentKey) -> DVec2 {
        let agent = &self.agents[key];
        let position = agent.position();
        let radius = agent.desc().radius;
        let speed = agent.desc().preferred_speed;
        let free = agent.free.as_ref().expect("free");
        if free.goal.is_none() || free.corners.is_empty() {
            self.agents[key].free.as_mut().expect("free").preferred = DVec2::ZERO;
            return DVec2::ZERO;
        }
        let last = free.corners.len() - 1;
        let mut next = free.next.min(last);
        // Corners within a radius are reached.
        while next < last && free.corners[next].distance(position) <= radius {
            next += 1;
        }
        // A corner the crowd has pushed it past or around is not walked back to: while the corner
        // after it is in plain sight (the straight way there clears every wall by a radius), it
        // is skipped. Otherwise agents pushed beyond a corner turn back toward it, and a group
        // all trying to reach the same corner point blocks itself there.
        // Path corners are planned exactly a radius from the wall vertex they turn around: the
        // test clears a hair less, so rounding cannot hide them.
        let obstacles = self
            .obstacles
            .as_ref()
            .expect("built with the first free agent");
        let clearance = radius * (1.0 - 1e-6);
        while next < last && obstacles.is_segment_clear(position, free.corners[next + 1], clearance)
        {
            next += 1;
        }
        // Strayed off the line to the next corner (pushed by others): still in sight?
        let from = free.corners[next.saturating_sub(1)];
        let (closest, _) = closest_on_segment(position, from, free.corners[next]);
        let mesh = self.level().navmesh();
        let goal = free.goal.expect("checked");
        if closest.distance(position) > OFF_PATH_RADII * radius
            && !mesh.is_reachable(position, free.corners[next])
        {
            let options = PathOptions::from_agent_radius(radius);
            if let Some(path) = mesh
                .find_path(position, goal, &options)
                .ok()
                .filter(|p| !p.corners.is_empty())
            {
                next = 1.min(path.corners.len().saturating_sub(1));
                self.set_corners(key, &path);
            }
        }
        let turn = self.config().release_turn_degrees;
        let free = self.agents[key].free.as_mut().expect("free");
        free.next = next;
        let to = free.corners[next] - position;
        let distance = to.length();
        let wanted = if next == free.corners.len() - 1 {
            speed.min(distance / ARRIVAL_TIME)
        } else {
            speed
        };
        free.preferred = if distance > 1e-9 {
            to * (wanted / distance)
        } else {
            DVec2::ZERO
        };
        // A rail agent released from a jam that the solver has brought to a halt short of its
        // goal steps to its right (`AvoidanceConfig::release_turn_degrees`): released face to
        // face on an aisle's axis, two agents' half-planes are exact mirrors and ORCA holds both
        // at zero for good.
        let halted = free.velocity.length() < STUCK_SPEED_FRACTION * wanted;
        if free.released_at.is_some() && halted && wanted > 0.0 {
            free.preferred = DVec2::from_angle(-turn.to_radians()).rotate(free.preferred);
        }
        free.preferred
    }

    /// The preferred velocity free agent `f`'s solver is given: its preferred velocity turned
    /// right by [`crate::OrcaConfig::pass_right_degrees`] if walking at it would touch one of
    /// its neighbours (at the neighbour's velocity) within the ORCA time horizon, other than one
    /// crossing its way from the left nearly square (see [`CROSSING_COSINE`]); unchanged for
    /// time-to-collision agents (their forces have their own sideways share) and for agents
    /// with no such neighbour. Rail agents released from a jam pass right too since session 49
    /// (den312d-500 as imported, 28 jittered runs: 10,964 → 11,466 of 14,000 arrived;
    /// docs/ALGORITHM.md, "The velocity-space fallback"). Needs step 2's neighbour lists and
    /// rail agents' velocities.
    fn aim(&self, f: usize, scratch: &SteerScratch) -> DVec2 {
        let input = &scratch.inputs[f];
        let config = &self.config().orca;
        let preferred = input.preferred;
        if !input.passes_right || config.pass_right_degrees <= 0.0 || preferred == DVec2::ZERO {
            return preferred;
        }
        let me = &scratch.bodies[scratch.free_agents[f] as usize];
        let way = preferred.normalize_or_zero();
        let list = &scratch.neighbour_list
            [scratch.neighbour_start[f] as usize..scratch.neighbour_start[f + 1] as usize];
        let meets = list.iter().any(|&j| {
            let other = &scratch.bodies[j as usize];
            let soon = time_to_collision(
                other.position - me.position,
                other.velocity - preferred,
                me.radius + other.radius,
            )
            .is_some_and(|t| t < config.time_horizon);
            if !soon {
                return false;
            }
            // One crossing from the left, nearly square, is left out (tested second: most
            // neighbours are not met soon).
            let (velocity, speed) = (other.velocity, other.velocity.length());
            let crossing_from_left = velocity.perp_dot(way) > 0.0
                && speed > CROSSING_MIN_SPEED
                && velocity.dot(way).abs() < CROSSING_COSINE * speed;
            !crossing_from_left
        });
        if meets {
            DVec2::from_angle(-config.pass_right_degrees.to_radians()).rotate(preferred)
        } else {
            preferred
        }
    }

    /// Step 3 of [`World::steer_all`] for free agent `f` (index into the free agents) and one
    /// substep, from the flat copies in `scratch` (no lookup in the agents' records).
    fn solve(&self, f: usize, scratch: &mut SteerScratch, dt: f64) -> DVec2 {
        let SteerScratch {
            bodies,
            free_agents,
            inputs,
            neighbour_start,
            neighbour_list,
            no_walls,
            ttc_neighbours,
            walls,
            edges,
            orca,
            ..
        } = scratch;
        let i = free_agents[f] as usize;
        let me = bodies[i];
        let input = inputs[f];
        let (radius, max_speed) = (me.radius, input.max_speed);
        let list = &neighbour_list[neighbour_start[f] as usize..neighbour_start[f + 1] as usize];
        // A free neighbour shares the avoidance by priority; a rail agent leaves it all to us.
        let responsibility_of = |other: &Body| {
            if other.free {
                responsibility((me.priority, me.exiting), (other.priority, other.exiting))
            } else {
                1.0
            }
        };
        let config = self.config();
        // No wall within the solver's range (known from the candidate lists): skip the query.
        let obstacles = if input.clear >= input.wall_range {
            &*no_walls
        } else {
            self.obstacles
                .as_deref()
                .expect("built with the first free agent")
        };
        match input.locomotion {
            Locomotion::Ttc => {
                // The chapter has every agent take the whole force (responsibility 1); ORCA's
                // shares are doubled to that scale (equal priorities 1, a higher-priority
                // agent half), rail agents 1.
                ttc_neighbours.clear();
                ttc_neighbours.extend(list.iter().map(|&j| {
                    let other = &bodies[j as usize];
                    TtcNeighbour {
                        position: other.position,
                        velocity: other.velocity,
                        radius: other.radius,
                        responsibility: (2.0 * responsibility_of(other)).min(1.0),
                    }
                }));
                walls.clear();
                let reach = config.ttc.time_horizon * max_speed + radius;
                obstacles.edges_near(me.position, reach, edges);
                let vertices = obstacles.vertices();
                walls.extend(edges.iter().map(|&(_, e)| {
                    let v = &vertices[e as usize];
                    (v.point, vertices[v.next as usize].point)
                }));
                ttc_velocity(
                    &TtcAgent {
                        position: me.position,
                        velocity: me.velocity,
                        preferred_velocity: input.aimed,
                        radius,
                        max_speed,
                    },
                    ttc_neighbours,
                    walls,
                    &config.ttc,
                    dt,
                )
            }
            _ => {
                // A rail agent starting, stopping or turning is avoided at both its
                // velocities (`Body::velocity_next`). And with the margins rail agents keep from
                // one another (`AvoidanceConfig::margin`, one each side): a rail agent's sweep
                // takes a free agent inside them for a collision, and one grazed at ORCA's
                // plain distance stopped, started and stopped again (tradeshow-1000: 24 of its
                // 32 flips a start taken back, most for a released agent walking past).
                let rail_room = 2.0 * config.margin;
                let neighbours = list.iter().flat_map(|&j| {
                    let other = &bodies[j as usize];
                    let room = if other.free { 0.0 } else { rail_room };
                    let at = |velocity| OrcaNeighbour {
                        position: other.position,
                        velocity,
                        radius: other.radius + room,
                        responsibility: responsibility_of(other),
                        id: other.id,
                    };
                    let next = (!other.velocity_next.is_nan()).then(|| at(other.velocity_next));
                    std::iter::once(at(other.velocity)).chain(next)
                });
                orca_velocity_of(
                    &OrcaAgent {
                        position: me.position,
                        velocity: me.velocity,
                        preferred_velocity: input.aimed,
                        radius,
                        max_speed,
                        id: me.id,
                    },
                    neighbours,
                    obstacles,
                    &config.orca,
                    dt,
                    orca,
                )
            }
        }
    }

    /// Step 4 of [`World::steer_all`]: `velocity`, or if moving at it for `dt` would cross a
    /// wall, its component along that wall (if that stays on the mesh), else the part of the
    /// step that stays on the mesh. No wall is within `clear` metres of `position` (0 if not
    /// known).
    fn keep_on_mesh(&self, position: DVec2, velocity: DVec2, dt: f64, clear: f64) -> DVec2 {
        if !velocity.is_finite() {
            return DVec2::ZERO;
        }
        if dt <= 0.0 || velocity == DVec2::ZERO {
            return velocity;
        }
        // Far from every wall (the common case), the move cannot leave the mesh: no raycast.
        // The margin covers the rounding of the distance test.
        let step = velocity.length() * dt;
        let reach = step * (1.0 + 1e-9) + 1e-6;
        if reach <= clear {
            return velocity;
        }
        let obstacles = self
            .obstacles
            .as_ref()
            .expect("built with the first free agent");
        if obstacles.is_clear_within(position, reach) {
            return velocity;
        }
        let mesh = self.level().navmesh();
        let hit = mesh.raycast(position, position + velocity * dt);
        if hit.reached() {
            return velocity;
        }
        if let Some((a, b)) = hit.wall {
            let tangent = (b - a).normalize_or_zero();
            let along = tangent * velocity.dot(tangent);
            if mesh.is_reachable(position, position + along * dt) {
                return along;
            }
        }
        velocity * (hit.fraction * 0.9)
    }
}

/// The neighbour distance (metres) and the most neighbours an agent's solver looks at.
fn neighbour_limits(config: &AvoidanceConfig, desc: &AgentDesc) -> (f64, usize) {
    match desc.locomotion {
        Locomotion::Ttc => (config.ttc.neighbour_distance, config.ttc.max_neighbours),
        _ => (config.orca.neighbour_distance, config.orca.max_neighbours),
    }
}

/// The share of the avoidance an agent takes against a free agent, from their priorities and
/// then whether each has the right of way out of a narrow stretch (`steer/exits.rs`): half
/// each (ORCA's reciprocity) when equal; the lower takes three quarters, the higher one quarter.
fn responsibility(mine: (i32, bool), theirs: (i32, bool)) -> f64 {
    match mine.cmp(&theirs) {
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.75,
        std::cmp::Ordering::Greater => 0.25,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::level::Level;

    fn world(json: &str) -> World {
        let level = Level::from_json(json, "test").expect("valid test level");
        World::new(Arc::new(level), AvoidanceConfig::default()).expect("default config")
    }

    /// A default ORCA agent at `from`.
    fn orca_agent(world: &mut World, from: DVec2) -> AgentKey {
        world
            .add_agent(AgentDesc {
                position: from,
                locomotion: Locomotion::Orca,
                ..AgentDesc::default()
            })
            .expect("on the mesh")
    }

    /// The free agent's corners, and the planned path's (corner, vertex, turn) for comparison.
    fn corners(world: &mut World, from: DVec2, to: DVec2) -> (Vec<DVec2>, Path) {
        let key = orca_agent(world, from);
        world.set_goal(key, to).expect("reachable");
        let path = world
            .level()
            .navmesh()
            .find_path(from, to, &PathOptions::from_agent_radius(0.4))
            .expect("reachable");
        let free = world.agents[key].free.as_ref().expect("free");
        (free.corners.clone(), path)
    }

    #[test]
    fn corners_of_left_turns_move_away_from_the_vertex_and_right_turns_hug_it() {
        let block = r#"{"name": "block", "boundary": [[0, 0], [40, 0], [40, 40], [0, 40]],
            "holes": [[[10, 10], [30, 10], [30, 30], [10, 30]]]}"#;
        // Counter-clockwise round the block (it stays on the left): left turns.
        let mut w = world(block);
        let (moved, path) = corners(&mut w, DVec2::new(20.0, 5.0), DVec2::new(35.0, 35.0));
        assert_eq!(moved.len(), path.corners.len());
        assert_eq!(moved[0], path.corners[0].position);
        assert_eq!(moved.last(), path.corners.last().map(|c| &c.position));
        let mut left = 0;
        for (k, corner) in path.corners.iter().enumerate() {
            let Some(vertex) = corner.around else {
                continue;
            };
            assert_eq!(vertex.turn, Turn::Left);
            left += 1;
            let from_vertex = moved[k] - vertex.position;
            // One radius (the plan) + two radii, along the same line.
            assert!(
                (from_vertex.length() - 3.0 * 0.4).abs() < 1e-9,
                "{from_vertex}"
            );
            let planned = corner.position - vertex.position;
            assert!(from_vertex.normalize().dot(planned.normalize()) > 1.0 - 1e-12);
        }
        assert!(left > 0, "the path turns round the block");
        // Clockwise round it (it stays on the right): right turns, corners as planned.
        let mut w = world(block);
        let (kept, path) = corners(&mut w, DVec2::new(20.0, 5.0), DVec2::new(5.0, 35.0));
        assert!(path.corners.iter().any(|c| c.around.is_some()));
        for (k, corner) in path.corners.iter().enumerate() {
            if let Some(vertex) = corner.around {
                assert_eq!(vertex.turn, Turn::Right);
            }
            assert_eq!(kept[k], corner.position);
        }
    }

    /// Two released agents by a corridor 3 m wide (x 3.5–6.5, y 10–14) between two rooms: one
    /// in it walking north (released 3 m from its exit), one in the north room about to go in
    /// southward. With `exit_after`
    /// metres of right of way, their `exiting` flags after one steering step.
    fn exiting_flags(exit_after: f64) -> (bool, bool) {
        let level = exits::rooms_and_corridor();
        let config = AvoidanceConfig {
            jam_release: 2.0,
            exit_right_of_way: exit_after,
            ..AvoidanceConfig::default()
        };
        let mut world = World::new(Arc::new(level), config).expect("valid config");
        let mut released = |from: DVec2, to: DVec2| {
            let key = orca_agent(&mut world, from);
            world.agents[key].free.as_mut().expect("free").released_at = Some(0.0);
            world.set_goal(key, to).expect("reachable");
            key
        };
        let coming_out = released(DVec2::new(5.0, 11.0), DVec2::new(5.0, 22.0));
        let going_in = released(DVec2::new(5.2, 15.5), DVec2::new(5.0, 2.0));
        world.begin_frame(1.0 / 30.0);
        let mut steers = Vec::new();
        world.steer_all(1.0 / 30.0, &mut steers);
        let flag = |key: AgentKey| {
            let scratch = &world.steer_scratch;
            let i = scratch.keys.iter().position(|&k| k == key).expect("listed");
            scratch.bodies[i].exiting
        };
        (flag(coming_out), flag(going_in))
    }

    #[test]
    fn a_released_agent_coming_out_of_a_corridor_has_the_right_of_way() {
        assert_eq!(exiting_flags(4.0), (true, false));
        assert_eq!(exiting_flags(0.0), (false, false), "0 turns it off");
        // The shares: the one with the right of way takes a quarter, the other three quarters;
        // priorities decide before it.
        assert_eq!(responsibility((0, true), (0, false)), 0.25);
        assert_eq!(responsibility((0, false), (0, true)), 0.75);
        assert_eq!(responsibility((0, true), (0, true)), 0.5);
        assert_eq!(responsibility((0, true), (1, false)), 0.75);
    }

    #[test]
    fn a_left_turn_without_room_keeps_its_corner() {
        // A 0.9 m corridor bending left (room for one 0.8 m agent): moving the corner 2 radii
        // (0.8 m) or 1 radius beyond the 0.4 m planned would bring it within a radius of the
        // outer walls, so it stays as planned.
        let bend = r#"{"name": "bend", "boundary": [[0, 0], [10, 0], [10, 10], [9.1, 10],
            [9.1, 0.9], [0, 0.9]]}"#;
        let mut w = world(bend);
        let (kept, path) = corners(&mut w, DVec2::new(1.0, 0.45), DVec2::new(9.55, 9.0));
        assert!(path
            .corners
            .iter()
            .any(|c| c.around.is_some_and(|v| v.turn == Turn::Left)));
        let planned: Vec<DVec2> = path.corners.iter().map(|c| c.position).collect();
        assert_eq!(kept, planned);
    }
}
