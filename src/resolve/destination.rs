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
        self.taken_spots(key, serial)
            .any(|(spot, r)| spot.distance(point) < radius + r + 2.0 * margin)
    }

    /// The spots taken by agents other than `key` (see [`World::spot_is_taken`]), with the
    /// radius of the agent taking each.
    fn taken_spots(&self, key: AgentKey, serial: u64) -> impl Iterator<Item = (DVec2, f64)> + '_ {
        self.agents.iter().filter_map(move |(other_key, other)| {
            if other_key == key {
                return None;
            }
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
        })
    }

    /// The rail of `key` from arclength `s` with its end moved to the nearest free spot, and
    /// that spot; `None` when its end is free, or when no free spot within 12 radii can be
    /// reached (it then keeps its end).
    ///
    /// Spots are tried on rings half a radius apart around the end, nearest first; a spot must
    /// be on the mesh, keep the radius from walls, be reachable from the old end in a straight
    /// line and not be taken. The rail's last stretch is replaced by a cubic Bézier that leaves
    /// the rail with its tangent (G1) and arrives heading straight for the spot, validated on
    /// the mesh like a bend (chapter 22.4).
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
        // Only the taken spots the rings can reach matter: gather them once (O(n)), so each
        // ring point costs little whatever the number of agents.
        let margin = self.config().margin;
        let search = FREE_SPOT_RINGS as f64 * step + radius + self.max_radius + 2.0 * margin;
        let nearby: Vec<(DVec2, f64)> = self
            .taken_spots(key, serial)
            .filter(|(spot, _)| spot.distance(end) <= search)
            .collect();
        let taken = |p: DVec2| {
            nearby
                .iter()
                .any(|&(spot, r)| spot.distance(p) < radius + r + 2.0 * margin)
        };
        ring_points(end, step, FREE_SPOT_RINGS)
            .filter(|&spot| {
                mesh.contains(spot)
                    && mesh.wall_distance(spot) >= radius
                    && !taken(spot)
                    && mesh.is_reachable(end, spot)
            })
            .find_map(|spot| move_end(self, rail, s, spot, radius).map(|moved| (moved, spot)))
    }
}

/// Candidate spots around `centre`: on rings `step` metres apart (`rings` of them), nearest
/// ring first, each ring cut into points about `step` apart (at least 6), counter-clockwise
/// from +x. Deterministic, so the same world picks the same spot.
pub(crate) fn ring_points(centre: DVec2, step: f64, rings: usize) -> impl Iterator<Item = DVec2> {
    (1..=rings).flat_map(move |ring| {
        let distance = ring as f64 * step;
        let count = ((std::f64::consts::TAU * distance / step).ceil() as usize).max(6);
        (0..count).map(move |j| {
            let angle = std::f64::consts::TAU * j as f64 / count as f64;
            centre + DVec2::from_angle(angle) * distance
        })
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
