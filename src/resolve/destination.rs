//! Shared destinations (chapter 22.5): an agent sent to a point where another agent stands or
//! is bound gets the end of its rail moved to the nearest free spot.

use glam::DVec2;

use super::rewrite::stays_on_mesh;
use crate::rail::{Rail, RailSegment};
use crate::world::{AgentKey, World};

/// Free spots are looked for on rings this far apart, in agent radii.
pub(crate) const RING_STEP_RADII: f64 = 0.5;

/// Rings tried around a point (out to 24 × 0.5 = 12 radii).
const FREE_SPOT_RINGS: usize = 24;

/// The point of the rail this many radii before its end stands for the way it comes in: each
/// ring's spots nearest it are tried first.
const APPROACH_RADII: f64 = 8.0;

/// An agent predicted to arrive at a shared destination up to this long before another,
/// seconds, may still come later: the other's moved spot keeps out of its way in too
/// (`World::free_destination`). Predictions at the preferred speed along the rails ignore the
/// crowd the agents meet on the way: two agents of a group sent together, a metre or two apart
/// on the way, often arrive in the other order. From 0.5 to 4 s tried on the crowd variants
/// (docs/ROBUSTNESS.md, session 39); 2 s missed the fewest bars.
const ARRIVAL_SLACK: f64 = 2.0;

/// Slack of the index queries, metres: covers an agent's position moving by rounding since the
/// broad phase placed it (a rail rewritten under it starts where it stands, to the last bits).
const INDEX_SLACK: f64 = 1e-6;

impl World {
    /// Whether a disc of `radius` at `point` overlaps (with the margin on both) a spot taken by
    /// another agent than `key`: where it stands with nowhere to go, or the end of its rail if
    /// that rail was given before `serial` (a later one moves for this one, not the reverse).
    pub(crate) fn spot_is_taken(
        &self,
        key: AgentKey,
        serial: u64,
        point: DVec2,
        radius: f64,
    ) -> bool {
        let margin = self.config().margin;
        let reach = radius + self.max_radius + 2.0 * margin;
        self.any_taken_spot_near(key, serial, point, reach, |_, spot, r| {
            spot.distance(point) < radius + r + 2.0 * margin
        })
    }

    /// Whether `hit` holds for some spot taken against `key` and `serial` (see
    /// [`World::spot_is_taken`]), with the radius of its agent, among those within `reach` of
    /// `centre`; spots further out may be offered too. Through the broad phase's grid (agents
    /// where they are) and the index of rail ends when it is current for this broad phase
    /// (`World::ensure_spots`), else over every agent.
    fn any_taken_spot_near(
        &self,
        key: AgentKey,
        serial: u64,
        centre: DVec2,
        reach: f64,
        mut hit: impl FnMut(AgentKey, DVec2, f64) -> bool,
    ) -> bool {
        if self.grid_dirty || !self.spots.is_current(self.grid_generation) {
            return self
                .taken_spots(key, serial)
                .any(|(other, spot, r)| hit(other, spot, r));
        }
        // Each agent is offered with its spot as it is now: the one where it stands is found
        // through the grid of positions, the one at its rail's end through the index of ends
        // (or its list of rails rewritten since); an agent may be offered twice.
        let reach = reach + INDEX_SLACK;
        let mut offer = |slot: usize| {
            let other_key = self.dense[slot];
            self.taken_spot(key, serial, other_key)
                .is_some_and(|(spot, r)| hit(other_key, spot, r))
        };
        self.grid.any_near(centre, reach, &mut offer) || self.spots.any_near(centre, reach, offer)
    }

    /// The spot `other_key` takes against `key`'s rail of `serial` (see
    /// [`World::spot_is_taken`]), with its radius.
    fn taken_spot(&self, key: AgentKey, serial: u64, other_key: AgentKey) -> Option<(DVec2, f64)> {
        if other_key == key {
            return None;
        }
        let other = &self.agents[other_key];
        let spot = match other.rail() {
            Some(rail) if other.wants_to_move() => {
                if other.rail_serial >= serial {
                    return None;
                }
                rail.end()
            }
            _ => other.position(),
        };
        Some((spot, other.desc().radius))
    }

    /// The spots taken by agents other than `key` (see [`World::spot_is_taken`]), with the
    /// radius of the agent taking each: every agent, in key order.
    fn taken_spots(
        &self,
        key: AgentKey,
        serial: u64,
    ) -> impl Iterator<Item = (AgentKey, DVec2, f64)> + '_ {
        self.agents.keys().filter_map(move |other_key| {
            self.taken_spot(key, serial, other_key)
                .map(|(spot, r)| (other_key, spot, r))
        })
    }

    /// How `other_key` comes to the spot it takes (`spot`, for an agent of radius `radius`):
    /// when, and by which way in.
    fn arrival(&self, other_key: AgentKey, spot: DVec2, radius: f64) -> Arrival {
        let other = &self.agents[other_key];
        match other.rail() {
            Some(rail) if other.wants_to_move() => {
                let s = other.motion().s;
                let speed = other.desc().preferred_speed.max(1e-3);
                let back = (rail.length() - APPROACH_RADII * other.desc().radius).max(s);
                Arrival {
                    spot,
                    radius,
                    time: (rail.length() - s).max(0.0) / speed,
                    way_in: rail.position(back),
                }
            }
            _ => Arrival {
                spot,
                radius,
                time: 0.0,
                way_in: spot,
            },
        }
    }

    /// The rail of `key` from arclength `s` with its end moved to the nearest free spot, and
    /// that spot; `None` when its end is free, or when no free spot within 12 radii can be
    /// reached (it then keeps its end).
    ///
    /// Spots are tried on rings half a radius apart around the end, nearest first, and on each
    /// ring nearest first to the rail [`APPROACH_RADII`] before its end; a spot must
    /// be on the mesh, keep the radius from walls, be reachable from the old end in a straight
    /// line and not be taken. The spots out of the way of the other agents bound there are
    /// tried first: on the way in of none that may arrive later (predicted at its preferred
    /// speed later, or up to [`ARRIVAL_SLACK`] sooner), and reached without passing the spot of
    /// one there sooner (docs/ALGORITHM.md, "Shared destinations"); then, if none can be had,
    /// any free one. The rail's last stretch is replaced by a cubic Bézier that leaves the rail
    /// with its tangent (G1) and arrives heading straight for the spot, validated on the mesh
    /// like a bend (chapter 22.4).
    pub(crate) fn free_destination(
        &self,
        key: AgentKey,
        rail: &Rail,
        s: f64,
    ) -> Option<(Rail, DVec2)> {
        let agent = &self.agents[key];
        let radius = agent.desc().radius;
        let serial = agent.rail_serial;
        let end = rail.end();
        if !self.spot_is_taken(key, serial, end, radius) {
            return None;
        }
        let mesh = self.level().navmesh();
        let step = RING_STEP_RADII * radius;
        // Only the taken spots the rings can reach matter: gather them once, so each ring point
        // costs little whatever the number of agents.
        let margin = self.config().margin;
        let search = FREE_SPOT_RINGS as f64 * step + radius + self.max_radius + 2.0 * margin;
        let mut nearby: Vec<(AgentKey, DVec2, f64)> = Vec::new();
        self.any_taken_spot_near(key, serial, end, search, |other, spot, r| {
            if spot.distance(end) <= search {
                nearby.push((other, spot, r));
            }
            false
        });
        // An agent offered twice (where it stands and its rail's end) takes one spot.
        nearby.sort_by_key(|&(other, _, _)| other);
        nearby.dedup_by_key(|&mut (other, _, _)| other);
        let taken = |p: DVec2| {
            nearby
                .iter()
                .any(|&(_, spot, r)| spot.distance(p) < radius + r + 2.0 * margin)
        };
        let free = |spot: &DVec2| {
            mesh.contains(*spot)
                && mesh.wall_distance(*spot) >= radius
                && !taken(*spot)
                && mesh.is_reachable(end, *spot)
        };
        // Each ring's spots nearest the way the rail comes in first: a crowd arriving from one
        // side fills the near side of the point and leaves the far side's spots reachable.
        let approach = rail.position((rail.length() - APPROACH_RADII * radius).max(s));
        // Out of the way of the others bound near here: not on the way in of one that arrives
        // later (or up to `ARRIVAL_SLACK` sooner), and this agent's way in to it clear of the
        // spot of one there sooner.
        let own_arrival = (rail.length() - s).max(0.0) / agent.desc().preferred_speed.max(1e-3);
        let arrivals: Vec<Arrival> = nearby
            .iter()
            .map(|&(other, spot, r)| self.arrival(other, spot, r))
            .collect();
        let out_of_the_way = |spot: DVec2| {
            arrivals.iter().all(|other| {
                let clear = radius + other.radius + 2.0 * margin;
                // One predicted up to ARRIVAL_SLACK sooner may come later: kept out of its way.
                (other.time <= own_arrival - ARRIVAL_SLACK
                    || distance_to_segment(spot, other.way_in, other.spot) >= clear)
                    && (other.time > own_arrival
                        || distance_to_segment(other.spot, approach, spot) >= clear)
            })
        };
        let mut ring: Vec<(f64, usize, DVec2)> = Vec::new();
        // The spots out of the way first; if none can be had, the nearest free one.
        for out_of_the_way_only in [true, false] {
            for k in 1..=FREE_SPOT_RINGS {
                ring.clear();
                ring.extend(
                    ring_of(end, step, k)
                        .enumerate()
                        .map(|(j, spot)| (spot.distance(approach), j, spot)),
                );
                ring.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let found = ring
                    .iter()
                    .map(|&(_, _, spot)| spot)
                    .filter(|&spot| !out_of_the_way_only || out_of_the_way(spot))
                    .filter(free)
                    .find_map(|spot| {
                        move_end(self, rail, s, spot, radius).map(|moved| (moved, spot))
                    });
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }
}

/// How another agent comes to the spot it takes near a shared destination.
struct Arrival {
    /// The spot: where it stands with nowhere to go, or its rail's end.
    spot: DVec2,
    /// Its radius, metres.
    radius: f64,
    /// When it gets there at its preferred speed, seconds from now (0 if it is there).
    time: f64,
    /// Its rail's point [`APPROACH_RADII`] before the end (the spot itself if it is there):
    /// from there to the spot is its way in.
    way_in: DVec2,
}

/// The distance from `p` to the segment `a`–`b`, metres.
fn distance_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    crate::geometry::closest_on_segment(p, a, b).0.distance(p)
}

/// Candidate spots around `centre`: on rings `step` metres apart (`rings` of them), nearest
/// ring first, each ring cut into points about `step` apart (at least 6), counter-clockwise
/// from +x. Deterministic, so the same world picks the same spot.
pub(crate) fn ring_points(centre: DVec2, step: f64, rings: usize) -> impl Iterator<Item = DVec2> {
    (1..=rings).flat_map(move |ring| ring_of(centre, step, ring))
}

/// The points of ring `ring` (from 1) of [`ring_points`].
fn ring_of(centre: DVec2, step: f64, ring: usize) -> impl Iterator<Item = DVec2> {
    let distance = ring as f64 * step;
    let count = ((std::f64::consts::TAU * distance / step).ceil() as usize).max(6);
    (0..count).map(move |j| {
        let angle = std::f64::consts::TAU * j as f64 / count as f64;
        centre + DVec2::from_angle(angle) * distance
    })
}

/// `rail` from `s`, its last stretch (four radii plus the shift, or less on a short rail)
/// replaced by a cubic to `spot`; `None` if the curve cannot be built or leaves the mesh.
fn move_end(world: &World, rail: &Rail, s: f64, spot: DVec2, radius: f64) -> Option<Rail> {
    let mesh = world.level().navmesh();
    let shift = rail.end().distance(spot);
    let join = (rail.length() - (4.0 * radius + 2.0 * shift)).max(s);
    let at = rail.sample(join);
    let chord = spot - at.position;
    let h = chord.length() / 3.0;
    let arrive = chord.try_normalize()?;
    let curve = RailSegment::cubic(
        at.position,
        at.position + at.tangent * h,
        spot - arrive * h,
        spot,
    );
    let mut segments = if join > s + 1e-6 {
        rail.subrail(s, join).ok()?.segments().to_vec()
    } else {
        Vec::new()
    };
    let curve_rail = Rail::new(vec![curve]).ok()?;
    let clearance = radius.min(mesh.wall_distance(at.position));
    if !stays_on_mesh(mesh, &curve_rail, curve_rail.length(), clearance) {
        return None;
    }
    if let Some(last) = segments.last() {
        let joined = curve.with_start(last.end());
        segments.push(joined);
    } else {
        segments.push(curve);
    }
    Rail::new(segments).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Level;
    use crate::world::{AgentDesc, Motion};
    use crate::AvoidanceConfig;
    use std::sync::Arc;

    /// A 0.4 m agent at `from` standing on a straight rail to `goal`.
    fn sent(world: &mut World, from: DVec2, goal: DVec2) -> AgentKey {
        let speeds = [0.8, 1.4, 2.6];
        crate::world::line_agent(world, from, goal, &speeds, Motion::standing(0.0))
    }

    /// An agent sent to a point another agent stands on gets the free spot beside it on the
    /// side its rail comes in from, whichever side that is: a crowd arriving from one side
    /// fills the near side and leaves the far side reachable (until session 36 each ring was
    /// tried counter-clockwise from +x, and an agent coming from the west was sent round to
    /// the east).
    #[test]
    fn a_moved_destination_is_on_the_side_the_rail_comes_in() {
        let level = Arc::new(crate::level::fixture_level("open-field"));
        let goal = DVec2::new(15.0, 15.0);
        for heading in 0..8 {
            let from = goal - DVec2::from_angle(std::f64::consts::FRAC_PI_4 * heading as f64) * 8.0;
            let mut world = World::new(level.clone(), AvoidanceConfig::default()).unwrap();
            world
                .add_agent(AgentDesc {
                    position: goal,
                    ..AgentDesc::default()
                })
                .unwrap();
            let key = sent(&mut world, from, goal);
            let rail = world.agents[key].rail().unwrap().clone();
            let (_, spot) = world.free_destination(key, &rail, 0.0).expect("moved");
            let side = (spot - goal).normalize();
            let back = (from - goal).normalize();
            assert!(side.dot(back) > 0.9, "coming from {from:?}: spot {spot:?}");
        }
    }

    /// Two agents sent to one point along one line: the one given its rail first keeps the
    /// point, and the one given its rail second moves. When the second arrives first, its spot
    /// keeps out of the first's way in (the near side, where it went before session 39, is
    /// the way in: the first then had to get round it); when it arrives later, it takes the
    /// near side as before (nobody comes after it).
    #[test]
    fn a_moved_destination_keeps_out_of_the_way_of_an_agent_arriving_later() {
        let level = Arc::new(crate::level::fixture_level("open-field"));
        let goal = DVec2::new(20.0, 15.0);
        for (first_from, second_from, second_is_sooner) in [
            (DVec2::new(4.0, 15.0), DVec2::new(10.0, 15.0), true),
            (DVec2::new(10.0, 15.0), DVec2::new(4.0, 15.0), false),
        ] {
            let mut world = World::new(level.clone(), AvoidanceConfig::default()).unwrap();
            let mut keys = Vec::new();
            for from in [first_from, second_from] {
                keys.push(sent(&mut world, from, goal));
            }
            world.begin_frame(1.0 / 30.0);
            let second = keys[1];
            let rail = world.agents[second].rail().unwrap().clone();
            let (_, spot) = world.free_destination(second, &rail, 0.0).expect("moved");
            let radius = AgentDesc::default().radius;
            let clear = 2.0 * radius + 2.0 * world.config().margin;
            // The first agent's way in: from APPROACH_RADII before its end to the point.
            let way_in = goal - DVec2::X * APPROACH_RADII * radius;
            let off_the_way = distance_to_segment(spot, way_in, goal);
            if second_is_sooner {
                assert!(off_the_way >= clear, "spot {spot:?}, {off_the_way} m off");
            } else {
                let side = (spot - goal).normalize();
                assert!(side.dot(-DVec2::X) > 0.9, "spot {spot:?}");
            }
        }
    }

    /// The index of rail ends answers as the scan over every agent does: random crowds on an
    /// open field, agents standing idle or on rails ending near each other, before and after
    /// some rails are rewritten within the frame.
    #[test]
    fn the_index_of_rail_ends_answers_as_the_scan_of_every_agent() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/levels/open-field.json"
        );
        let level = Arc::new(Level::load(path).unwrap());
        let mut rng = crate::sim::SplitMix64::new(23);
        let point = |rng: &mut crate::sim::SplitMix64| {
            DVec2::new(2.0 + rng.unit() * 26.0, 2.0 + rng.unit() * 26.0)
        };
        let (mut taken, mut free) = (0, 0);
        for _ in 0..40 {
            let mut world = World::new(level.clone(), AvoidanceConfig::default()).unwrap();
            let mut keys = Vec::new();
            for _ in 0..60 {
                let desc = AgentDesc {
                    position: point(&mut rng),
                    ..AgentDesc::from_radius(0.2 + rng.unit() * 0.3)
                };
                let Ok(key) = world.add_agent(desc) else {
                    continue;
                };
                // Two in three get a rail, ending near the middle (ends that crowd).
                if rng.unit() < 0.67 {
                    let end = DVec2::new(15.0, 15.0) + (point(&mut rng) - 15.0) * 0.3;
                    let start = world.agent(key).unwrap().position();
                    if let Ok(rail) = Rail::from_points(&[start, end]) {
                        world.set_rail(key, rail).unwrap();
                        world.set_motion(key, Motion::standing(0.0)).unwrap();
                    }
                }
                keys.push(key);
            }
            world.begin_frame(1.0 / 30.0);
            world.ensure_spots();
            let mut compare = |world: &World, rng: &mut crate::sim::SplitMix64| {
                for _ in 0..50 {
                    let key = keys[(rng.unit() * keys.len() as f64) as usize % keys.len()];
                    let serial = world.agents[key].rail_serial + (rng.unit() * 3.0) as u64;
                    let at = DVec2::new(15.0, 15.0) + (point(rng) - 15.0) * 0.4;
                    let radius = 0.2 + rng.unit() * 0.3;
                    let margin = world.config().margin;
                    let scan = world
                        .taken_spots(key, serial)
                        .any(|(_, spot, r)| spot.distance(at) < radius + r + 2.0 * margin);
                    assert_eq!(world.spot_is_taken(key, serial, at, radius), scan, "{at:?}");
                    if scan {
                        taken += 1;
                    } else {
                        free += 1;
                    }
                }
            };
            assert!(world.spots.is_current(world.grid_generation));
            compare(&world, &mut rng);
            // Rails rewritten within the frame (as a reroute does): new ends elsewhere.
            for &key in keys.iter().take(10) {
                let Some(old) = world.agents[key].rail().cloned() else {
                    continue;
                };
                let end = point(&mut rng);
                if let Ok(rail) = Rail::from_points(&[old.start(), end]) {
                    world.agents[key].rail = Some(Arc::new(rail));
                    let slot = world.agents[key].slot as usize;
                    world.spots.mark_moved(slot);
                }
            }
            assert!(world.spots.is_current(world.grid_generation));
            compare(&world, &mut rng);
        }
        assert!(taken > 200 && free > 200, "{taken} {free}");
    }
}
