//! Keeping right in two-way corridors: the straight parts of a planned rail that run along a
//! corridor a few agents wide are moved to the right of its middle line, so that agents going
//! opposite ways along it walk in two lanes instead of meeting head-on.
//!
//! The taut path runs where its corners put it: in a straight corridor, on the straight line
//! between the ends, so two agents going opposite ways along it meet nearly head-on and each
//! must bend around the other (corridor-two-way: two files of eight in a 2.4 m corridor, travel
//! time ratio 1.77). A corridor is a straight part along which the mesh across is narrower than
//! [`CORRIDOR_RADII`] radii at every metre. There the part becomes a lane: a line that runs
//! [`PathOptions::keep_right`] right of the corridor's middle (or as far right as the walls
//! leave room for, if that is at least [`MIN_KEEP_FRACTION`] of it), measured at each end of the
//! lane, joined to the part's ends by a cubic S-curve each ([`RAMP_OFFSETS`] times its move
//! long, G1 at both ends); an end already that far right stays, and the lane is kept only where
//! it and its curves keep the radius from the walls. Measured at each end, the lane runs along
//! the corridor even where the part crosses it (a rail from one side of a corridor to the
//! other, as between two points placed at random in it).

use glam::DVec2;

use super::{Rail, RailSegment};
use crate::level::{NavMesh, PathOptions};

/// A straight part counts as in a corridor when the mesh across it is narrower than this many
/// agent radii everywhere along it: four agents abreast with their margins, and a little. The
/// same width makes a short passage (`world/narrows.rs`) and a free agent's narrow stretch
/// (`steer/exits.rs`).
pub(crate) const CORRIDOR_RADII: f64 = 9.0;

/// Length of each S-curve into and out of the lane, in multiples of its move: a lateral slope
/// of at most 1.5 / 3 (about 27°). Four (21°) until session 37: with lanes measured at each
/// end, a rail from one side of a 3 m corridor to the other crossed the other lane over 6.6 m,
/// and random crowds there lost arrivals (docs/ALGORITHM.md, "Lanes").
const RAMP_OFFSETS: f64 = 3.0;

/// Shortest S-curve, metres.
const MIN_RAMP: f64 = 1.0;

/// A lane short of the wanted [`PathOptions::keep_right`] still counts down to this fraction of
/// it: with the default 1.5 radii, 1.125 radii right of the middle, so that two lanes part by
/// 2.25 radii, both radii and the default margins (an eighth of a radius each).
const MIN_KEEP_FRACTION: f64 = 0.75;

/// How far short of the walls' room the move stops, in radii (the clearance checks below count
/// the radius itself as touching).
const ROOM_SLACK: f64 = 0.01;

/// Spacing of the width measurements along a part, metres.
const WIDTH_STEP: f64 = 1.0;

impl NavMesh {
    /// `rail` with its straight parts along two-way corridors moved right as the module says,
    /// for an agent of `options.radius`; `rail` itself when `options.keep_right` is 0 or no part
    /// moves.
    pub(crate) fn keep_right(&self, rail: Rail, options: &PathOptions) -> Rail {
        let radius = options.radius;
        if options.keep_right <= 0.0 || radius <= 0.0 {
            return rail;
        }
        let mut segments: Vec<RailSegment> = Vec::with_capacity(rail.segments().len() + 4);
        let mut moved = false;
        for segment in rail.segments() {
            match self.lane_of(segment, radius, options.keep_right) {
                Some(lane) => {
                    segments.extend(lane);
                    moved = true;
                }
                None => segments.push(*segment),
            }
        }
        if !moved {
            return rail;
        }
        Rail::new(segments).unwrap_or(rail)
    }

    /// The three pieces (S-curve out, the lane, S-curve back) that replace a straight
    /// `segment` in a corridor, or `None`.
    fn lane_of(&self, segment: &RailSegment, radius: f64, keep: f64) -> Option<[RailSegment; 3]> {
        if !segment.is_line() {
            return None;
        }
        let (a, b) = (segment.start(), segment.end());
        let length = a.distance(b);
        let direction = (b - a).try_normalize()?;
        let right = DVec2::new(direction.y, -direction.x);
        // In a corridor: narrower than the limit at every metre of the part.
        let limit = CORRIDOR_RADII * radius;
        let steps = (length / WIDTH_STEP).ceil().max(2.0) as usize;
        for k in 0..=steps {
            let p = a.lerp(b, k as f64 / steps as f64);
            let to_right = self.raycast(p, p + right * limit).fraction * limit;
            let to_left = self.raycast(p, p - right * limit).fraction * limit;
            if to_left + to_right >= limit {
                return None;
            }
        }
        // How far right a point must move to be `keep` right of the middle: as far as the walls
        // let it (a hair short of the radius), and not left (a point already right enough
        // stays).
        let wanted = |p: DVec2| {
            let (right_of_middle, room) = self.across(p, right, radius);
            (keep - right_of_middle)
                .min(room - ROOM_SLACK * radius)
                .max(0.0)
        };
        let (move_a, move_b) = (wanted(a), wanted(b));
        if move_a.max(move_b) < 0.05 * radius {
            return None;
        }
        let ramp_a = (RAMP_OFFSETS * move_a).max(MIN_RAMP);
        let ramp_b = (RAMP_OFFSETS * move_b).max(MIN_RAMP);
        if length < ramp_a + ramp_b + radius {
            return None;
        }
        let (p, q) = (a + direction * ramp_a, b - direction * ramp_b);
        let (a1, b1) = (p + right * wanted(p), q + right * wanted(q));
        // Far enough right that two lanes part by both radii and the default margins: a lane
        // only half as far right as wanted left two 0.4 m agents in a 1.8 m corridor 0.8 m
        // apart, and they grazed and stood (`tools/variant_scenarios.py`,
        // headon_W1.8_y-0.2_0.2_v1.4_2.6).
        let least = MIN_KEEP_FRACTION * keep;
        if self.across(a1, right, radius).0 < least || self.across(b1, right, radius).0 < least {
            return None;
        }
        let lane = (b1 - a1).try_normalize()?;
        let out = RailSegment::cubic(
            a,
            a + direction * (0.5 * ramp_a),
            a1 - lane * (0.5 * ramp_a),
            a1,
        );
        let back = RailSegment::cubic(
            b1,
            b1 + lane * (0.5 * ramp_b),
            b - direction * (0.5 * ramp_b),
            b,
        );
        let clear = |p: DVec2, q: DVec2| {
            self.segment_keeps_clearance(p, q, radius) && self.is_reachable(p, q)
        };
        // The curves by chords an eighth of them long: an S-curve this flat strays from its
        // chords by well under a millimetre per metre of ramp.
        let curve_clear = |curve: &RailSegment| {
            (0..8).all(|i| {
                clear(
                    curve.point(i as f64 / 8.0),
                    curve.point((i + 1) as f64 / 8.0),
                )
            })
        };
        (clear(a1, b1) && curve_clear(&out) && curve_clear(&back))
            .then(|| [out, RailSegment::line(a1, b1), back])
    }

    /// How far `p` is right of the corridor's middle across `right` (metres, negative left of
    /// it), and how far it can move right and keep `radius` from the wall there.
    fn across(&self, p: DVec2, right: DVec2, radius: f64) -> (f64, f64) {
        let limit = CORRIDOR_RADII * radius;
        let to_right = self.raycast(p, p + right * limit).fraction * limit;
        let to_left = self.raycast(p, p - right * limit).fraction * limit;
        (0.5 * (to_left - to_right), to_right - radius)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::fixture_level as level;

    fn keeping_right(radius: f64) -> PathOptions {
        PathOptions::from_agent_radius(radius)
    }

    /// `kept` is `rail` in three pieces with the same ends, G1 at the joints, and keeps the
    /// 0.4 m radius from the walls of `mesh`.
    fn assert_lane_of(kept: &Rail, rail: &Rail, mesh: &NavMesh) {
        assert_eq!(kept.segments().len(), 3);
        assert!(kept.start().distance(rail.start()) < 1e-12);
        assert!(kept.end().distance(rail.end()) < 1e-12);
        for s in [kept.segment_start(1), kept.segment_start(2)] {
            let before = kept.tangent(s - 1e-6);
            let after = kept.tangent(s + 1e-6);
            assert!(before.dot(after) > 1.0 - 1e-6, "{before} {after}");
        }
        assert!(kept.clearance(mesh, 0.05).distance >= 0.4 - 1e-6);
    }

    #[test]
    fn a_rail_along_a_two_way_corridor_keeps_right_of_its_middle() {
        // corridor: 2.4 m wide (y 0 to 2.4), 30 m long. Eastbound on the middle line: its right
        // is south.
        let corridor = level("corridor");
        let mesh = corridor.navmesh();
        let rail = Rail::from_points(&[DVec2::new(2.0, 1.2), DVec2::new(28.0, 1.2)]).unwrap();
        let kept = mesh.keep_right(rail.clone(), &keeping_right(0.4));
        // The ends stay, G1 at the joints, the radius kept from the walls; the middle runs
        // 0.6 m right of the corridor's middle.
        assert_lane_of(&kept, &rail, mesh);
        let middle = kept.position(0.5 * kept.length());
        assert!((middle.y - 0.6).abs() < 1e-9, "{middle}");
        // Westbound on a line already 0.3 m right of the middle: moved 0.3 m more.
        let west = Rail::from_points(&[DVec2::new(28.0, 1.5), DVec2::new(2.0, 1.5)]).unwrap();
        let kept = mesh.keep_right(west, &keeping_right(0.4));
        let middle = kept.position(0.5 * kept.length());
        assert!((middle.y - 1.8).abs() < 1e-9, "{middle}");
    }

    #[test]
    fn a_rail_across_a_corridor_from_side_to_side_takes_the_lane_along_it() {
        // Eastbound from the left side (y 1.9) to the right side (y 0.5) of the 2.4 m corridor,
        // as between two points placed at random in it. Moved as a whole the diagonal line would
        // cross the corridor on its way (its mean is already right of the middle, its far end
        // at the wall's room); the lane runs 0.6 m right of the middle from its first curve on,
        // and the end already that far right stays on the rail's line.
        let corridor = level("corridor");
        let mesh = corridor.navmesh();
        let rail = Rail::from_points(&[DVec2::new(2.0, 1.9), DVec2::new(28.0, 0.5)]).unwrap();
        let kept = mesh.keep_right(rail.clone(), &keeping_right(0.4));
        assert_lane_of(&kept, &rail, mesh);
        // The first curve moves 1.3 m over three times that: the lane starts 3.9 m on (less a
        // little for the slant; the widths are measured square to the rail, 3° off the
        // corridor's, so its 0.6 m is long by a millimetre).
        let lane_start = kept.position(kept.segment_start(1));
        assert!((lane_start.x - 5.85).abs() < 0.05, "{lane_start}");
        assert!((lane_start.y - 0.6).abs() < 0.002, "{lane_start}");
        for x in [10.0, 15.0, 20.0, 25.0] {
            let s = (0..=1000)
                .map(|i| kept.length() * i as f64 / 1000.0)
                .min_by(|&p, &q| {
                    let (p, q) = (kept.position(p), kept.position(q));
                    (p.x - x).abs().total_cmp(&(q.x - x).abs())
                })
                .unwrap();
            let y = kept.position(s).y;
            assert!(y > 0.54 && y < 0.61, "at x {x}: y {y}");
        }
    }

    #[test]
    fn lanes_in_a_narrow_corridor_go_as_far_right_as_the_walls_let_them_and_still_part() {
        // corridor-1.8m (y 0 to 1.8): 0.6 m right of the middle would leave 0.3 m to the wall,
        // less than the 0.4 m radius. Two rails 0.2 m either side of the middle, going opposite
        // ways, each move right to the wall's room: 1.0 m apart, more than both radii and the
        // margins (0.9 m); half the wanted move would have left them 0.8 m apart.
        let corridor = level("corridor-1.8m");
        let mesh = corridor.navmesh();
        let east = Rail::from_points(&[DVec2::new(2.0, 0.7), DVec2::new(28.0, 0.7)]).unwrap();
        let west = Rail::from_points(&[DVec2::new(28.0, 1.1), DVec2::new(2.0, 1.1)]).unwrap();
        let east = mesh.keep_right(east, &keeping_right(0.4));
        let west = mesh.keep_right(west, &keeping_right(0.4));
        let (e, w) = (
            east.position(0.5 * east.length()),
            west.position(0.5 * west.length()),
        );
        assert!(e.y < 0.41 && e.y > 0.4, "{e}");
        assert!(w.y > 1.39 && w.y < 1.4, "{w}");
        assert!(w.y - e.y > 0.9);
        assert!(east.clearance(mesh, 0.05).distance >= 0.4 - 1e-6);
    }

    #[test]
    fn rails_already_right_across_open_ground_or_off_keep_their_line() {
        let corridor = level("corridor");
        // Already 0.6 m right of the middle (y 0.6 eastbound): nothing to move.
        let right = Rail::from_points(&[DVec2::new(2.0, 0.6), DVec2::new(28.0, 0.6)]).unwrap();
        let kept = corridor
            .navmesh()
            .keep_right(right.clone(), &keeping_right(0.4));
        assert_eq!(kept.segments().len(), 1);
        // Open ground: no corridor.
        let open = level("open-field");
        let across = Rail::from_points(&[DVec2::new(2.0, 15.0), DVec2::new(28.0, 15.0)]).unwrap();
        assert_eq!(
            open.navmesh()
                .keep_right(across, &keeping_right(0.4))
                .segments()
                .len(),
            1
        );
        // A line through a crossing: the mesh across it is wide where it crosses.
        let crossroads = level("crossroads");
        let through = Rail::from_points(&[DVec2::new(1.0, 15.0), DVec2::new(29.0, 15.0)]).unwrap();
        let kept = crossroads
            .navmesh()
            .keep_right(through, &keeping_right(0.4));
        assert_eq!(kept.segments().len(), 1);
        // Off (the default options).
        let middle = Rail::from_points(&[DVec2::new(2.0, 1.2), DVec2::new(28.0, 1.2)]).unwrap();
        let off = PathOptions {
            keep_right: 0.0,
            ..PathOptions::from_agent_radius(0.4)
        };
        let kept = corridor.navmesh().keep_right(middle, &off);
        assert_eq!(kept.segments().len(), 1);
    }
}
