//! Free-steering agents in the world: a corner path over the navmesh to follow, the nearest
//! neighbours, and the solver (ORCA or time-to-collision forces) that turns the preferred
//! velocity into a new one that never leaves the mesh.

use glam::DVec2;

use super::orca::{orca_velocity, OrcaAgent, OrcaNeighbour, OrcaScratch};
use super::ttc::{ttc_velocity, TtcAgent, TtcNeighbour};
use crate::geometry::closest_on_segment;
use crate::level::PathOptions;
use crate::world::{AgentKey, Locomotion, World, WorldError};

/// Within this time of its goal at the preferred speed, a free agent slows down: its preferred
/// speed is the distance left over this time (the reference ORCA library's examples use the
/// goal vector itself within 1 m of a unit preferred speed, the same rule), seconds.
const ARRIVAL_TIME: f64 = 1.0;

/// How far ahead (seconds) a rail agent's motion along its rail is averaged into the velocity
/// free agents see: its rail is known, so a bend just ahead already shows.
const RAIL_LOOKAHEAD: f64 = 0.5;

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
/// have grown).
#[derive(Clone, Debug, Default)]
pub(crate) struct SteerScratch {
    keys: Vec<AgentKey>,
    neighbours: Vec<Neighbour>,
    solved: Vec<DVec2>,
    candidates: Vec<u32>,
    orca_neighbours: Vec<OrcaNeighbour>,
    ttc_neighbours: Vec<TtcNeighbour>,
    walls: Vec<(DVec2, DVec2)>,
    edges: Vec<(f64, u32)>,
    orca: OrcaScratch,
}

/// A neighbour as the solvers see it.
#[derive(Clone, Copy, Debug)]
struct Neighbour {
    distance_squared: f64,
    position: DVec2,
    velocity: DVec2,
    radius: f64,
    responsibility: f64,
    id: u32,
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
        let agent = self.agent(key)?;
        if agent.free.is_none() {
            return Err(WorldError::NotFree(key));
        }
        let options = PathOptions::from_agent_radius(agent.desc().radius);
        let path = self
            .level()
            .navmesh()
            .find_path(agent.position(), goal, &options)
            .map_err(|e| WorldError::Plan(e.into()))?;
        let free = self
            .free_agent_mut(key)?
            .free
            .as_mut()
            .expect("checked free");
        free.goal = Some(goal);
        free.corners.clear();
        free.corners.extend(path.corners.iter().map(|c| c.position));
        free.next = 1.min(free.corners.len().saturating_sub(1));
        Ok(())
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
    /// 2. the solver, `substeps` times (ORCA; once for time-to-collision forces), every agent
    ///    against its nearest neighbours' velocities of the previous substep (rail agents at
    ///    their motion along their rails, taking no part in the avoidance);
    /// 3. the mesh guard: a velocity that would cross a wall within `dt` slides along it.
    ///
    /// The world's copies of the velocities are not changed: the host moves its agents and
    /// reports them with [`World::set_free_motion`].
    pub fn steer_all(&mut self, dt: f64, out: &mut Vec<Steer>) {
        out.clear();
        self.ensure_grid();
        let mut scratch = std::mem::take(&mut self.steer_scratch);
        // 1. Preferred velocities.
        scratch.keys.clear();
        scratch.keys.extend(
            self.agents
                .iter()
                .filter(|(_, a)| a.free.is_some())
                .map(|(k, _)| k),
        );
        for &key in &scratch.keys {
            self.follow_path(key);
            let free = self.agents[key].free.as_mut().expect("free");
            free.solved = free.velocity;
        }
        // 2. The solver, over substeps (Jacobi: every agent sees the previous substep).
        let substeps = self.config().orca.substeps.max(1);
        for substep in 0..substeps {
            let mut solved = std::mem::take(&mut scratch.solved);
            solved.clear();
            let mut any_orca = false;
            for i in 0..scratch.keys.len() {
                let key = scratch.keys[i];
                let agent = &self.agents[key];
                let locomotion = agent.desc().locomotion;
                if substep > 0 && locomotion != Locomotion::Orca {
                    solved.push(agent.free.as_ref().expect("free").solved);
                    continue;
                }
                any_orca |= locomotion == Locomotion::Orca;
                self.gather_neighbours(key, &mut scratch);
                solved.push(self.solve(key, &mut scratch, dt));
            }
            for (&key, &v) in scratch.keys.iter().zip(&solved) {
                self.agents[key].free.as_mut().expect("free").solved = v;
            }
            scratch.solved = solved;
            if !any_orca {
                break;
            }
        }
        // 3. The mesh guard.
        for &key in &scratch.keys {
            let agent = &self.agents[key];
            let free = agent.free.as_ref().expect("free");
            let velocity = self.keep_on_mesh(agent.position(), free.solved, dt);
            out.push(Steer {
                key,
                velocity,
                preferred: free.preferred,
            });
        }
        self.steer_scratch = scratch;
    }

    /// Step 1 of [`World::steer_all`] for one agent.
    fn follow_path(&mut self, key: AgentKey) {
        let agent = &self.agents[key];
        let position = agent.position();
        let radius = agent.desc().radius;
        let speed = agent.desc().preferred_speed;
        let free = agent.free.as_ref().expect("free");
        if free.goal.is_none() || free.corners.is_empty() {
            self.agents[key].free.as_mut().expect("free").preferred = DVec2::ZERO;
            return;
        }
        let last = free.corners.len() - 1;
        let mut next = free.next.min(last);
        // Corners within a radius are reached.
        while next < last && free.corners[next].distance(position) <= radius {
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
                let free = self.agents[key].free.as_mut().expect("free");
                free.corners.clear();
                free.corners.extend(path.corners.iter().map(|c| c.position));
                next = 1.min(free.corners.len().saturating_sub(1));
            }
        }
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
    }

    /// The nearest neighbours of `key` within the neighbour distance, at most
    /// `max_neighbours`, nearest first (ties by key order), into `out`.
    fn gather_neighbours(&self, key: AgentKey, scratch: &mut SteerScratch) {
        let SteerScratch {
            neighbours: out,
            candidates,
            ..
        } = scratch;
        out.clear();
        let agent = &self.agents[key];
        let config = self.config();
        let (range, max) = match agent.desc().locomotion {
            Locomotion::Ttc => (config.ttc.neighbour_distance, config.ttc.max_neighbours),
            _ => (config.orca.neighbour_distance, config.orca.max_neighbours),
        };
        if max == 0 {
            return;
        }
        let position = agent.position();
        let range_squared = range * range;
        candidates.clear();
        self.grid.near(position, range, candidates);
        for &i in candidates.iter() {
            let other_key = self.dense[i as usize];
            if other_key == key {
                continue;
            }
            let other = &self.agents[other_key];
            let distance_squared = other.position().distance_squared(position);
            if distance_squared >= range_squared
                || (out.len() == max && distance_squared >= out[max - 1].distance_squared)
            {
                continue;
            }
            let (velocity, responsibility) = match &other.free {
                Some(free) => (
                    free.solved,
                    responsibility(agent.desc().priority, other.desc().priority),
                ),
                None => {
                    // A rail agent does not take part: the free agent takes it all, at the
                    // rail agent's average velocity over the next moments along its rail.
                    let mut trajectory = other.trajectory();
                    let ahead = trajectory.position(RAIL_LOOKAHEAD);
                    ((ahead - other.position()) / RAIL_LOOKAHEAD, 1.0)
                }
            };
            let neighbour = Neighbour {
                distance_squared,
                position: other.position(),
                velocity,
                radius: other.desc().radius,
                responsibility,
                id: id_of(other_key),
            };
            // Insertion into the sorted list (RVO2's insertAgentNeighbor): a handful of entries.
            let mut at = out.len();
            while at > 0 && out[at - 1].distance_squared > distance_squared {
                at -= 1;
            }
            if out.len() == max {
                out.pop();
            }
            out.insert(at, neighbour);
        }
    }

    /// Step 2 of [`World::steer_all`] for one agent and one substep.
    fn solve(&self, key: AgentKey, scratch: &mut SteerScratch, dt: f64) -> DVec2 {
        let neighbours = &scratch.neighbours;
        let agent = &self.agents[key];
        let free = agent.free.as_ref().expect("free");
        let desc = agent.desc();
        let max_speed = desc.gaits.iter().map(|g| g.speed).fold(0.0, f64::max);
        let config = self.config();
        let obstacles = self
            .obstacles
            .as_ref()
            .expect("built with the first free agent");
        match desc.locomotion {
            Locomotion::Ttc => {
                // The chapter has every agent take the whole force (responsibility 1); ORCA's
                // shares are doubled to that scale (equal priorities 1, a higher-priority
                // agent half), rail agents 1.
                let ttc_neighbours = &mut scratch.ttc_neighbours;
                ttc_neighbours.clear();
                ttc_neighbours.extend(neighbours.iter().map(|n| TtcNeighbour {
                    position: n.position,
                    velocity: n.velocity,
                    radius: n.radius,
                    responsibility: (2.0 * n.responsibility).min(1.0),
                }));
                let walls = &mut scratch.walls;
                walls.clear();
                let reach = config.ttc.time_horizon * max_speed + desc.radius;
                obstacles.edges_near(agent.position(), reach, &mut scratch.edges);
                let vertices = obstacles.vertices();
                walls.extend(scratch.edges.iter().map(|&(_, e)| {
                    let v = &vertices[e as usize];
                    (v.point, vertices[v.next as usize].point)
                }));
                ttc_velocity(
                    &TtcAgent {
                        position: agent.position(),
                        velocity: free.solved,
                        preferred_velocity: free.preferred,
                        radius: desc.radius,
                        max_speed,
                    },
                    ttc_neighbours,
                    walls,
                    &config.ttc,
                    dt,
                )
            }
            _ => {
                let orca_neighbours = &mut scratch.orca_neighbours;
                orca_neighbours.clear();
                orca_neighbours.extend(neighbours.iter().map(|n| OrcaNeighbour {
                    position: n.position,
                    velocity: n.velocity,
                    radius: n.radius,
                    responsibility: n.responsibility,
                    id: n.id,
                }));
                orca_velocity(
                    &OrcaAgent {
                        position: agent.position(),
                        velocity: free.solved,
                        preferred_velocity: free.preferred,
                        radius: desc.radius,
                        max_speed,
                        id: id_of(key),
                    },
                    orca_neighbours,
                    obstacles,
                    &config.orca,
                    dt,
                    &mut scratch.orca,
                )
            }
        }
    }

    /// Step 3 of [`World::steer_all`]: `velocity`, or if moving at it for `dt` would cross a
    /// wall, its component along that wall (if that stays on the mesh), else the part of the
    /// step that stays on the mesh.
    fn keep_on_mesh(&self, position: DVec2, velocity: DVec2, dt: f64) -> DVec2 {
        if !velocity.is_finite() {
            return DVec2::ZERO;
        }
        if dt <= 0.0 || velocity == DVec2::ZERO {
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

/// The share of the avoidance an agent of priority `mine` takes against a free agent of
/// priority `theirs`: half each (ORCA's reciprocity) when equal; the lower priority takes
/// three quarters, the higher one quarter.
fn responsibility(mine: i32, theirs: i32) -> f64 {
    match mine.cmp(&theirs) {
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.75,
        std::cmp::Ordering::Greater => 0.25,
    }
}
