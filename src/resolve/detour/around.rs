//! A detour around one agent standing with nowhere to go: the taut path of the agent's disc
//! around the stander's (tangent line, arc, tangent line), rounded back onto its rail.
//!
//! The chapter's bend puts its avoidance point beside the first contact, up to the radii short
//! of a stander, and its two cubics sink back toward the rail as they pass it; the grid detour
//! samples free space at half-radius cells. Where the mesh leaves just the room to pass (a
//! stander by the wall of a 1.8 m corridor leaves a 0.95 m gap, a window of 5 cm for the centre
//! of a 0.4 m agent) neither finds the way, and the agent stood behind the stander for good.
//! This path keeps exactly the radii and margins from the stander (1 % more) over the whole
//! pass, so it threads any gap the sweep itself would let through.

use glam::DVec2;

use super::Detour;
use crate::detect::SweepSample;
use crate::geometry::cross;
use crate::rail::{around_circles, KeepOut, Rail, RailSegment, Splice};
use crate::resolve::order::StartVerdict;
use crate::resolve::rewrite::stays_on_mesh;
use crate::resolve::trivial::{start_verdict, Hysteresis};
use crate::world::{AgentKey, World};

/// The pass keeps this fraction more than the radii and margins from the stander's centre, so
/// that the sweep, which counts a touch at exactly the radii, finds none: 1 % (9 mm for two
/// 0.4 m agents with the default margins).
const SLACK: f64 = 0.01;

/// Where the pass rejoins the rail: this many of the agent's radii past the last stander's
/// circle, tried nearest first (a nearer rejoin turns back harder, a further one may meet a
/// wall).
const REJOIN_RADII: [f64; 4] = [2.0, 4.0, 8.0, 16.0];

/// Most standers one pass goes round: a start check blocked by another agent with nowhere to
/// go adds it, on the side of the pass it stands (two standers staggered across a corridor are
/// passed by a slalom between them).
const MOST_STANDERS: usize = 3;

impl World {
    /// A rail for the standing agent `key` past `stander` (an agent with nowhere to go on its
    /// rail ahead): away from the stander's side of the rail first, then the other side, each
    /// with the rejoining points of [`REJOIN_RADII`] in turn. A candidate must keep the radius
    /// from walls (or the clearance the agent has now, if less) and its start must be clear
    /// now; when another agent with nowhere to go blocks it, the pass goes round that one too
    /// (up to [`MOST_STANDERS`]). `None` when no candidate passes, or the agent stands within
    /// the radii of a stander it would go round already.
    pub(in crate::resolve) fn detour_around(
        &self,
        key: AgentKey,
        stander: AgentKey,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Option<Detour> {
        let agent = self.agents.get(key)?;
        let rail = agent.rail()?;
        let radius = agent.desc().radius;
        let mesh = self.level().navmesh();
        let from = agent.position();
        let s0 = agent.motion().s;
        let keep_from = |other: AgentKey| -> Option<(DVec2, f64)> {
            let other = self.agents.get(other)?;
            let keep = (radius + other.desc().radius + 2.0 * self.config().margin) * (1.0 + SLACK);
            let centre = other.position();
            (from.distance(centre) > keep).then_some((centre, keep))
        };
        let (centre, keep) = keep_from(stander)?;
        let length = rail.length();
        let s_stander = rail.closest_s(centre).max(s0);
        let abreast = rail.sample(s_stander);
        // Pass with the stander on the left when it stands left of the rail (the path keeps to
        // the right, away from it), and the other way; then the other side.
        let stander_left = cross(abreast.tangent, centre - abreast.position) >= 0.0;
        let clearance = radius.min(mesh.wall_distance(from));
        let hysteresis = Hysteresis::resume(self.config());
        for left in [stander_left, !stander_left] {
            let mut last_rejoin = None;
            for k in REJOIN_RADII {
                // Rejoins past the rail's end are all its end: tried once.
                let rejoin = (s_stander + keep + k * radius).min(length);
                if last_rejoin == Some(rejoin) {
                    break;
                }
                last_rejoin = Some(rejoin);
                // The standers gone round, each with where its circle ends along the old rail.
                let mut round: Vec<(AgentKey, KeepOut, f64)> = Vec::with_capacity(MOST_STANDERS);
                let circle = KeepOut {
                    centre,
                    radius: keep,
                    left,
                };
                round.push((stander, circle, s_stander + keep));
                loop {
                    let past = round.iter().map(|r| r.2).fold(s0, f64::max);
                    let s_rejoin = (past + k * radius).min(length);
                    let circles: Vec<KeepOut> = round.iter().map(|r| r.1).collect();
                    let Some(candidate) = pass(rail, from, &circles, s_rejoin, radius) else {
                        break;
                    };
                    if !stays_on_mesh(mesh, &candidate.rail, candidate.bent_length, clearance) {
                        break;
                    }
                    let verdict = start_verdict(
                        self,
                        key,
                        &candidate.rail,
                        0.0,
                        hysteresis,
                        candidates,
                        samples,
                    );
                    let blocker = match verdict {
                        StartVerdict::Go => {
                            return Some(Detour {
                                rail: candidate.rail,
                                rejoin: candidate.rejoin,
                            })
                        }
                        StartVerdict::Blocked { blocker }
                            if !self.agents[blocker].wants_to_move()
                                && round.len() < MOST_STANDERS
                                && round.iter().all(|r| r.0 != blocker) =>
                        {
                            blocker
                        }
                        _ => break,
                    };
                    // Round that one too, on the side of the pass it stands, in the order the
                    // old rail passes them.
                    let Some((at, keep)) = keep_from(blocker) else {
                        break;
                    };
                    let near = candidate.rail.sample(candidate.rail.closest_s(at));
                    let circle = KeepOut {
                        centre: at,
                        radius: keep,
                        left: cross(near.tangent, at - near.position) >= 0.0,
                    };
                    let along = rail.closest_s(at).max(s0);
                    let index = round.partition_point(|r| r.2 - r.1.radius <= along);
                    round.insert(index, (blocker, circle, along + keep));
                }
            }
        }
        None
    }
}

/// A candidate pass: the new rail and where it rejoins the old one.
struct Pass {
    rail: Rail,
    /// Length of the new part (before the old rail's tail), metres.
    bent_length: f64,
    rejoin: DVec2,
}

/// The rail from `from` around `circles` on their sides to the old rail's point at
/// `s_rejoin`, its corner there rounded by a quadratic Bézier from `radius` before it to the
/// rail's point `radius` further on (G1 where the rail is straight there), then the rest of the
/// old rail. `None` when the straight way touches none of the circles on their sides, or the
/// rejoining point lies inside one.
fn pass(rail: &Rail, from: DVec2, circles: &[KeepOut], s_rejoin: f64, radius: f64) -> Option<Pass> {
    let length = rail.length();
    let rejoin = rail.position(s_rejoin);
    let mut segments = around_circles(from, circles, rejoin)?;
    let s_after = (s_rejoin + radius).min(length);
    if s_after > s_rejoin + 1e-6 {
        // Round the corner at the rejoining point: cut the last line back and turn onto the
        // rail with a quadratic whose control point is the corner.
        let last = *segments.last()?;
        if !matches!(last, RailSegment::Line(_)) {
            return None;
        }
        let (start, corner) = (last.start(), last.end());
        let cut = radius.min(0.5 * start.distance(corner));
        let enter = corner - (corner - start).normalize_or_zero() * cut;
        segments.pop();
        if start.distance(enter) > 1e-9 {
            segments.push(RailSegment::line(start, enter));
        }
        segments.push(RailSegment::quad(enter, corner, rail.position(s_after)));
    }
    // The new part, then the old rail's tail from `s_after` with its arclength tables kept
    // (`Rail::rejoined`; no head: the new part starts where the agent stands).
    let rail = rail
        .rejoined(0.0, 0.0, &segments, s_after, Splice::Checked)
        .ok()?
        .rail;
    let bent_length = rail.segment_start(segments.len());
    Some(Pass {
        rail,
        bent_length,
        rejoin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_keeps_the_distance_from_the_stander_and_rejoins_the_rail() {
        let rail = Rail::from_points(&[DVec2::new(0.0, 0.9), DVec2::new(30.0, 0.9)]).unwrap();
        let centre = DVec2::new(15.0, 0.45);
        let keep = 0.909;
        // The stander is right of the rail (which runs toward +x): the pass keeps it on its
        // right and goes above it.
        let circle = KeepOut {
            centre,
            radius: keep,
            left: false,
        };
        let pass = pass(&rail, DVec2::new(10.0, 0.9), &[circle], 18.0, 0.4).unwrap();
        // Never closer than the circle (the quadratics bulge outward only), and close to it
        // abreast of the stander.
        let samples = 3000;
        let mut nearest = f64::INFINITY;
        for k in 0..=samples {
            let s = pass.bent_length * k as f64 / samples as f64;
            nearest = nearest.min(pass.rail.position(s).distance(centre));
        }
        assert!(nearest >= keep - 1e-4, "{nearest}");
        assert!(nearest <= keep * 1.011, "{nearest}");
        // It passes on the stander's upper side, no higher than the arc allows.
        let top = pass
            .rail
            .position(pass.rail.closest_s(DVec2::new(15.0, 2.0)));
        assert!((top.y - (0.45 + keep)).abs() < 0.011 * keep, "{top}");
        // G1 everywhere, and the old rail's tail is kept.
        for pair in pass.rail.segments().windows(2) {
            let a = pair[0].derivative(1.0).normalize();
            let b = pair[1].derivative(0.0).normalize();
            assert!(a.dot(b) > 0.999, "{a} {b}");
        }
        assert_eq!(pass.rail.end(), DVec2::new(30.0, 0.9));
        assert!((pass.rail.position(pass.rail.length() - 5.0).y - 0.9).abs() < 1e-9);
    }

    #[test]
    fn no_pass_when_the_straight_way_clears_the_stander_on_that_side() {
        let rail = Rail::from_points(&[DVec2::new(0.0, 0.9), DVec2::new(30.0, 0.9)]).unwrap();
        let from = DVec2::new(10.0, 0.9);
        let circle = |x: f64, y: f64, left: bool| KeepOut {
            centre: DVec2::new(x, y),
            radius: 0.9,
            left,
        };
        // The stander is below the rail: passing with it on the right is the straight way.
        assert!(pass(&rail, from, &[circle(15.0, -0.5, false)], 18.0, 0.4).is_none());
        assert!(pass(&rail, from, &[circle(15.0, -0.5, true)], 18.0, 0.4).is_some());
        // A rejoining point inside the circle.
        assert!(pass(&rail, from, &[circle(18.0, 0.9, true)], 18.0, 0.4).is_none());
    }

    #[test]
    fn a_pass_round_two_staggered_standers_slaloms_between_them() {
        // A 3 m corridor's rail at y = 1.5; standers at (12, 1.8) and (14, 1.2): the only way
        // is below the first and above the second (a circle of 0.9 m round each).
        let rail = Rail::from_points(&[DVec2::new(0.0, 1.5), DVec2::new(30.0, 1.5)]).unwrap();
        let first = KeepOut {
            centre: DVec2::new(12.0, 1.8),
            radius: 0.9,
            left: true,
        };
        let second = KeepOut {
            centre: DVec2::new(14.0, 1.2),
            radius: 0.9,
            left: false,
        };
        let pass = pass(&rail, DVec2::new(9.0, 1.5), &[first, second], 18.0, 0.4).unwrap();
        let samples = 4000;
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for k in 0..=samples {
            let p = pass
                .rail
                .position(pass.bent_length * k as f64 / samples as f64);
            for c in [first, second] {
                assert!(p.distance(c.centre) >= c.radius - 1e-4, "{p} within {c:?}");
            }
            low = low.min(p.y);
            high = high.max(p.y);
        }
        // Below the first (down to its circle's foot), above the second.
        assert!(
            (low - 0.9).abs() < 0.02 && (high - 2.1).abs() < 0.02,
            "{low} {high}"
        );
        // A circle it does not touch on that side is left out: the same path.
        let aside = KeepOut {
            centre: DVec2::new(10.0, 4.0),
            radius: 0.9,
            left: true,
        };
        let with = super::pass(
            &rail,
            DVec2::new(9.0, 1.5),
            &[aside, first, second],
            18.0,
            0.4,
        )
        .unwrap();
        assert_eq!(with.rail.segments(), pass.rail.segments());
    }
}
