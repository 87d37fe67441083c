//! One-off queries for other game systems: can a standing agent start, is a position or a
//! path free of other agents' predicted motion.

use glam::DVec2;

use crate::detect::{first_contact, sample_agent, sweep_pair, Contact, MotionPlan, Trajectory};
use crate::rail::Rail;
use crate::resolve::{start_verdict, Hysteresis, Occupancy, StartVerdict};
use crate::world::{AgentKey, World, WorldError};

impl World {
    /// `CheckForCollisionFreeStart` (chapter 22.3): can this agent, standing at the start of
    /// `rail`, start along it now? The sweep models its start transition (turning on the spot,
    /// then the moving part at even acceleration) and then its preferred speed, against the
    /// other agents' predicted motion; only colliders in front of the rail's start count.
    pub fn collision_free_start(
        &mut self,
        key: AgentKey,
        rail: &Rail,
    ) -> Result<StartVerdict, WorldError> {
        self.agent(key)?;
        self.ensure_grid();
        let mut candidates = std::mem::take(&mut self.scratch_candidates);
        let mut samples = std::mem::take(&mut self.scratch_samples);
        let verdict = start_verdict(
            self,
            key,
            rail,
            0.0,
            Hysteresis::NONE,
            &mut candidates,
            &mut samples,
        );
        self.scratch_candidates = candidates;
        self.scratch_samples = samples;
        Ok(verdict)
    }

    /// For combat sidesteps and stepping out of cover: does any other agent's predicted disc
    /// come over `position` (with this agent's radius there) within `within` seconds? Checks
    /// every agent (O(n)); meant for occasional queries, not every agent every frame.
    pub fn is_position_free(
        &mut self,
        key: AgentKey,
        position: DVec2,
        within: f64,
    ) -> Result<Occupancy, WorldError> {
        let radius = self.agent(key)?.desc().radius;
        if !position.is_finite() {
            return Err(WorldError::OffMesh {
                what: "position",
                at: position,
            });
        }
        let within = if within.is_finite() {
            within.max(0.0)
        } else {
            self.config().horizon
        };
        let margin = self.config().margin;
        let mut samples = std::mem::take(&mut self.scratch_samples);
        let mut best: Option<(f64, AgentKey)> = None;
        for (other_key, other) in self.agents() {
            if other_key == key {
                continue;
            }
            let radii = radius + other.desc().radius + 2.0 * margin;
            let mut trajectory = other.trajectory();
            let p0 = trajectory.position(0.0);
            if p0.distance(position) <= radii {
                best = Some((0.0, other_key));
                break;
            }
            sample_agent(&mut trajectory, other.desc().radius, within, &mut samples);
            for pair in samples.windows(2) {
                let (p, q) = (pair[0], pair[1]);
                if best.is_some_and(|(t, _)| p.t >= t) {
                    break;
                }
                if let Contact::At(u) = first_contact(
                    position,
                    DVec2::ZERO,
                    p.position,
                    q.position - p.position,
                    radii,
                ) {
                    let t = p.t + u * (q.t - p.t);
                    if best.is_none_or(|(bt, _)| t < bt) {
                        best = Some((t, other_key));
                    }
                    break;
                }
            }
        }
        self.scratch_samples = samples;
        Ok(match best {
            Some((at, by)) => Occupancy::Taken { by, at },
            None => Occupancy::Free,
        })
    }

    /// Would this agent, walking all of `rail` from its start at its preferred speed, meet any
    /// other agent's predicted motion? Every agent counts (no "in front" exclusion).
    pub fn is_path_free(&mut self, key: AgentKey, rail: &Rail) -> Result<Occupancy, WorldError> {
        let agent = self.agent(key)?;
        let desc = agent.desc().clone();
        let margin = self.config().margin;
        let plan = MotionPlan::cruising(0.0, desc.preferred_speed);
        let duration = rail.length() / desc.preferred_speed;
        let mut samples = std::mem::take(&mut self.scratch_samples);
        let mut trajectory = Trajectory::on_rail(rail, plan);
        sample_agent(&mut trajectory, desc.radius, duration, &mut samples);
        let mut best: Option<(f64, AgentKey)> = None;
        for (other_key, other) in self.agents() {
            if other_key == key {
                continue;
            }
            let radii = desc.radius + other.desc().radius + 2.0 * margin;
            let mut collider = other.trajectory();
            let cutoff = best.map_or(f64::INFINITY, |(t, _)| t);
            if let Some(contact) = sweep_pair(&samples, &mut collider, radii, cutoff) {
                if contact.time < cutoff {
                    best = Some((contact.time, other_key));
                }
            }
        }
        self.scratch_samples = samples;
        Ok(match best {
            Some((at, by)) => Occupancy::Taken { by, at },
            None => Occupancy::Free,
        })
    }
}
