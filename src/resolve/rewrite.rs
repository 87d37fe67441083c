//! Non-trivial resolution (chapter 22.4): bending a rail through an avoidance point so that it
//! goes around a collision that no speed solves.
//!
//! The steps, each a function here: the avoidance point ([`avoidance_point`]), the
//! reconnection point ([`reconnection`]), the two G1 cubics through the avoidance point
//! ([`bend`]), the navmesh validation ([`stays_on_mesh`]), and the choice between the two
//! sides ([`World::bend_around`]).

mod memo;

use std::sync::Arc;

use glam::DVec2;

pub(crate) use memo::{BendInputs, BendMemo};
use memo::{BendRecipe, BendTry};

use super::order::{Order, Reroute, RerouteReason, Side};
use super::trivial::{detect, speeds_by_preference, Hysteresis, Sweep};
use crate::detect::{Collision, MotionPlan, SweepSample};
use crate::geometry::left_normal;
use crate::level::NavMesh;
use crate::rail::{Rail, RailError, RailSegment, Splice};
use crate::world::{AgentKey, Phase, World, SPEED_TOLERANCE};

/// Wall-clearance slack allowed on a bent rail, metres: the rails the planner makes keep
/// exactly the radius, so a bend that rejoins one must not fail on rounding.
const CLEARANCE_SLACK: f64 = 1e-3;

/// The reconnection point is looked for at most this many avoidance distances past the
/// collision, so that a long straight rail in the open is not scanned to its end every time.
const RECONNECT_REACH: f64 = 8.0;

/// Where the bend may leave the old rail: at the agent, then at 1/4, 1/2 and 3/4 of the way to
/// the collision.
const LEAVE_TRIES: usize = 4;

/// Arclength of the `k`-th place a bend may leave the old rail (`k < LEAVE_TRIES`), metres,
/// between the agent at `from` and the collision at `collision`.
fn leave_s(from: f64, collision: f64, k: u8) -> f64 {
    from + (collision - from) * f64::from(k) / LEAVE_TRIES as f64
}

/// The avoidance distances tried on each side, as fractions of the configured one (never below
/// the configured minimum): the full distance of the chapter, then nearer points for a bend
/// that would run into a neighbour of the collider.
const AVOIDANCE_FRACTIONS: [f64; 3] = [1.0, 0.6, 0.4];

/// Lane bends are tried against walkers whose heading is more than this cosine away from
/// opposite ours (within about 60° of head-on).
const LANE_COS: f64 = 0.5;

/// Straight runs of the lane bends tried, in avoidance distances.
const LANE_RUNS: [f64; 3] = [1.0, 2.0, 4.0];

/// An avoidance point (chapter 22.4) with its tangent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AvoidancePoint {
    /// The point, metres.
    pub point: DVec2,
    /// Unit tangent of the new rail there.
    pub tangent: DVec2,
    /// Whether it was pulled in from the full avoidance distance (a wall in the way).
    pub truncated: bool,
}

/// The avoidance point `distance` metres from the collision position `from` along the unit
/// `direction`, keeping `radius` from every wall: if the full distance leaves the mesh, is not
/// reachable in a straight line, or is closer than `radius` to a wall, it is pulled back toward
/// `from` (to the furthest point that keeps the radius) and must stay at least `min_distance`
/// away, else `None`. The tangent is `rail_tangent`; for a point pulled in against a wall it is
/// that wall's tangent, oriented along `rail_tangent` (chapter 22.4, figure 22.2b).
pub(crate) fn avoidance_point(
    mesh: &NavMesh,
    from: DVec2,
    direction: DVec2,
    rail_tangent: DVec2,
    radius: f64,
    distance: f64,
    min_distance: f64,
) -> Option<AvoidancePoint> {
    let ray = mesh.furthest_along(from, direction, distance);
    if ray.distance <= 0.0 && distance > 0.0 {
        return None;
    }
    let mut d = if ray.blocked {
        ray.distance - radius
    } else {
        ray.distance
    };
    let truncated_by_ray = d < distance;
    // Pull in until the point keeps the radius from every wall (a side wall the ray missed).
    let step = (0.1 * radius).max(1e-3);
    let mut pulled = false;
    while d >= min_distance && mesh.wall_distance(from + direction * d) < radius - CLEARANCE_SLACK {
        d -= step;
        pulled = true;
    }
    if d < min_distance {
        return None;
    }
    let point = from + direction * d;
    let truncated = truncated_by_ray || pulled;
    let mut tangent = rail_tangent;
    if truncated {
        // Along the wall it was pulled in against, when that wall runs roughly along the rail
        // (a wall across the rail would turn the curve back on itself).
        if let Some(wall) = mesh.nearest_wall(point, radius * 1.5) {
            let along = if wall.tangent.dot(rail_tangent) < 0.0 {
                -wall.tangent
            } else {
                wall.tangent
            };
            if along.dot(rail_tangent) >= 0.5 {
                tangent = along;
            }
        }
    }
    Some(AvoidancePoint {
        point,
        tangent,
        truncated,
    })
}

/// The point furthest from `from` toward `point`, and at most one pull step (a tenth of
/// `radius`) past it, that keeps `radius` less half the slack from every wall: a truncated
/// avoidance point moved out to the wall's clearance. Bisection on the wall distance along the
/// line, 20 halvings (to a millionth of the step); `point` itself when the whole step keeps
/// the clearance. Half the slack, so that the checks of the bent rail (which allow the whole
/// slack) do not fail on rounding or the arclength table's position error (8e-5 m).
fn hug_wall(mesh: &NavMesh, from: DVec2, point: DVec2, radius: f64) -> DVec2 {
    let Some(direction) = (point - from).try_normalize() else {
        return point;
    };
    let threshold = radius - 0.5 * CLEARANCE_SLACK;
    let keeps = |p: DVec2| mesh.contains(p) && mesh.wall_distance(p) >= threshold;
    let base = from.distance(point);
    let (mut lo, mut hi) = (base, base + (0.1 * radius).max(1e-3));
    if keeps(from + direction * hi) {
        return point;
    }
    for _ in 0..20 {
        let mid = 0.5 * (lo + hi);
        if keeps(from + direction * mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    from + direction * lo
}

/// Slack of the distance bounds that let [`reconnection`] and [`stays_on_mesh`] skip wall
/// checks, metres: well above rounding and the arclength table's position error (8e-5 m,
/// `rail::arclength`), so that a check skipped would have passed.
const DISC_SLACK: f64 = 1e-3;

/// Whether the straight segment `a → b` is on the mesh and keeps `clearance` metres (less
/// 1 mm) from every wall, exactly ([`NavMesh::segment_keeps_clearance`]).
pub(crate) fn segment_is_clear(mesh: &NavMesh, a: DVec2, b: DVec2, clearance: f64) -> bool {
    mesh.is_reachable(a, b) && mesh.segment_keeps_clearance(a, b, clearance - CLEARANCE_SLACK)
}

/// Where and how [`reconnection`] looks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReconnectSearch {
    /// Arclength of the collision, metres: the search starts after it.
    pub s_from: f64,
    /// Last arclength looked at, metres.
    pub max_s: f64,
    /// Wall clearance the straight line from the avoidance point must keep, metres.
    pub clearance: f64,
    /// Arclength step, metres.
    pub step: f64,
    /// Least angle between the avoidance point's tangent and the direction to the point,
    /// degrees.
    pub min_degrees: f64,
}

/// The reconnection point (chapter 22.4): the furthest arclength of `rail` past `s_from`
/// (scanned every `step` metres by [`reconnection_scan`], up to `max_s`, stopping at the first point that cannot be
/// seen) whose point is reachable from the avoidance point in a straight line keeping
/// `clearance` from walls, and whose direction from the avoidance point is ahead of its
/// tangent and differs from it by at least `min_degrees` (so that the reconnecting curve does
/// not cross the original rail). `None` when no point qualifies.
pub(crate) fn reconnection(
    mesh: &NavMesh,
    rail: &Rail,
    ap: &AvoidancePoint,
    search: &ReconnectSearch,
) -> Option<Reconnection> {
    let ReconnectSearch {
        s_from,
        max_s,
        clearance,
        step,
        min_degrees,
    } = *search;
    let end = max_s.min(rail.length());
    let cos_max = min_degrees.to_radians().cos();
    // Lines seen without the full check (a raycast and a wall walk each, an eighth of the
    // update in the bends of standing crowds on `plaza`), by bounds on the wall distance,
    // which is 1-Lipschitz; exact, with `DISC_SLACK` for rounding, and kept above zero so that
    // no wall touches the line, which therefore stays on the mesh with the avoidance point:
    // - within `open` of the avoidance point, the line lies in a disc round it that keeps the
    //   clearance from every wall;
    // - further, a point of the line is `u` from the avoidance point and `length - u` from
    //   the rail point `r`, so its wall distance is at least (d(ap) + d(r) - length) / 2.
    let needed = (clearance - CLEARANCE_SLACK).max(0.0) + DISC_SLACK;
    let ap_wall = if mesh.contains(ap.point) {
        mesh.wall_distance(ap.point)
    } else {
        f64::NEG_INFINITY
    };
    let open = ap_wall - needed;
    let mut best = None;
    for (index, s_here) in reconnection_scan(s_from, end, step).enumerate() {
        let r = rail.position(s_here);
        let to = r - ap.point;
        let length = to.length();
        if length > 1e-6 {
            let seen = length <= open
                || 0.5 * (ap_wall + mesh.wall_distance(r) - length) >= needed
                || segment_is_clear(mesh, ap.point, r, clearance);
            if !seen {
                break;
            }
            let cos = to.dot(ap.tangent) / length;
            if cos > 0.0 && cos <= cos_max {
                best = Some(Reconnection { s: s_here, index });
            }
        }
    }
    best
}

/// A reconnection point found by [`reconnection`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Reconnection {
    /// Its arclength on the old rail, metres.
    pub s: f64,
    /// Its place in [`reconnection_scan`].
    pub index: usize,
}

/// The arclengths the reconnection search looks at, in order: every `step` metres (at least
/// 5 cm) after `s_from`, by repeated addition, the last clamped to `end`. The `index`-th of
/// them is the same number however often it is computed.
pub(crate) fn reconnection_scan(s_from: f64, end: f64, step: f64) -> impl Iterator<Item = f64> {
    let step = step.max(0.05);
    let mut s = s_from + step;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let s_here = s.min(end);
        if s_here >= end {
            done = true;
        } else {
            s += step;
        }
        Some(s_here)
    })
}

/// A rail bent by [`bend`].
#[derive(Clone, Debug)]
pub(crate) struct BentRail {
    /// The new rail, arclength 0 at the agent.
    pub rail: Rail,
    /// Arclength where the bent part ends (the reconnection point), metres.
    pub bent_length: f64,
    /// Whether a new segment's arclength table needed an interval bisected
    /// ([`crate::rail::Rejoined::bisected`]).
    pub bisected: bool,
}

/// How a bent rail leaves the agent's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Departure {
    /// Along the old rail's tangent (G1): a moving agent.
    Tangent,
    /// Toward the avoidance point: a standing agent, whose start turns it on the spot first
    /// (`StartTransition::turn_time`), so its new rail may set off in any direction. Leaving
    /// along its old heading, a bend around an agent a metre or two ahead ran into it before
    /// it turned away (city-small: most standing agents' bends failed so).
    TurnOnTheSpot,
}

/// The rail bent through the avoidance point: the old rail from `s0` (the agent's arclength) to
/// `s_leave` (≥ `s0`; equal in the chapter, later when the bend must first clear a corner),
/// then two cubic Béziers, the first leaving as `departure` says (the rail's tangent at
/// `s_leave`, or for a standing agent toward the avoidance point) and arriving
/// at the avoidance point with its tangent, the second leaving with that tangent and arriving
/// at the reconnection point `s_reconnect` with the rail's tangent there (G1 at all three
/// joints; inner control points a third of the chord out, the usual choice for a smooth
/// Hermite-like arc); then the rest of the rail. The result starts at arclength 0 at the agent.
/// `splice` says whether the new segments are checked and their tables refined
/// ([`Splice::Checked`]), or repeat an earlier checked bend's ([`Splice::Repeated`]).
pub(crate) fn bend_from(
    rail: &Rail,
    s0: f64,
    s_leave: f64,
    ap: &AvoidancePoint,
    s_reconnect: f64,
    departure: Departure,
    splice: Splice,
) -> Result<BentRail, RailError> {
    bend_through(rail, s0, s_leave, ap, None, s_reconnect, departure, splice)
}

/// [`bend_from`] with, when `run_to` is given, a straight run from the avoidance point to
/// `run_to` (along the avoidance point's tangent) before the curve back to the rail: a lane
/// beside the old rail, kept past oncoming walkers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bend_through(
    rail: &Rail,
    s0: f64,
    s_leave: f64,
    ap: &AvoidancePoint,
    run_to: Option<DVec2>,
    s_reconnect: f64,
    departure: Departure,
    splice: Splice,
) -> Result<BentRail, RailError> {
    let mut start = rail.sample(s_leave);
    if departure == Departure::TurnOnTheSpot && s_leave <= s0 + 1e-6 {
        if let Some(toward) = (ap.point - start.position).try_normalize() {
            start.tangent = toward;
        }
    }
    let join = rail.sample(s_reconnect);
    let hermite = |a: DVec2, ta: DVec2, b: DVec2, tb: DVec2| {
        let h = a.distance(b) / 3.0;
        RailSegment::cubic(a, a + ta * h, b - tb * h, b)
    };
    let to_ap = hermite(start.position, start.tangent, ap.point, ap.tangent);
    // Two curves, or three with the run between them (no allocation: a fixed array).
    let (parts, count) = match run_to {
        Some(end) => (
            [
                to_ap,
                RailSegment::line(ap.point, end),
                hermite(end, ap.tangent, join.position, join.tangent),
            ],
            3,
        ),
        None => {
            let back = hermite(ap.point, ap.tangent, join.position, join.tangent);
            ([to_ap, back, back], 2)
        }
    };
    let curves = &parts[..count];
    let rejoined = rail.rejoined(s0, s_leave, curves, s_reconnect, splice)?;
    // Where the second curve ends on the new rail: the kept head, then the two curves.
    let mut bent_length = rejoined.rail.segment_start(rejoined.first_middle);
    for curve in curves {
        bent_length += curve.arclength();
    }
    Ok(BentRail {
        rail: rejoined.rail,
        bent_length,
        bisected: rejoined.bisected,
    })
}

/// The navmesh validation of a bent rail (chapter 22.4): its first `bent_length` metres, cut
/// into chords of half a radius, each straight-line reachable on the mesh, and its wall
/// clearance (sampled every quarter radius) at least `clearance`.
///
/// The chord walks are skipped when the clearance samples imply them: every chord joins two
/// samples (the even ones), each keeping `clearance` less the slack from every wall, and a point
/// of a chord is at most half its length, `bent_length / fine`, from one of its ends. When that
/// is less than the clearance no wall comes near a chord, so none crosses one and the bent part,
/// starting on the mesh, stays on it: the answer is the same. (The walks, a raycast per chord,
/// were about a third of this check's cost in bends of standing crowds on `plaza`.)
pub(crate) fn stays_on_mesh(mesh: &NavMesh, rail: &Rail, bent_length: f64, clearance: f64) -> bool {
    let step = (0.5 * clearance).max(0.05);
    let count = (bent_length / step).ceil().max(1.0) as usize;
    let fine = (2 * count).max(1);
    let mut cursor = rail.cursor();
    let start = cursor.position(0.0);
    let implied = bent_length / (fine as f64) < clearance - CLEARANCE_SLACK && mesh.contains(start);
    if !implied {
        let mut previous = start;
        for k in 1..=count {
            let p = cursor.position(bent_length * k as f64 / count as f64);
            if !mesh.is_reachable(previous, p) {
                return false;
            }
            previous = p;
        }
    }
    // The wall distance is 1-Lipschitz and two rail points are at most their arclength apart
    // (plus the arclength table's position error, which `DISC_SLACK` covers): a sample whose
    // distance that bounds from the last one measured is already enough is not measured.
    // Exact; in the open most samples are skipped.
    let threshold = clearance - CLEARANCE_SLACK;
    let mut cursor = rail.cursor();
    let mut measured: Option<(f64, f64)> = None;
    (0..=fine).all(|k| {
        let s = bent_length * k as f64 / fine as f64;
        if let Some((s0, d0)) = measured {
            if d0 - (s - s0) - DISC_SLACK >= threshold {
                return true;
            }
        }
        let d = mesh.wall_distance(cursor.position(s));
        measured = Some((s, d));
        d >= threshold
    })
}

/// A candidate bent rail for one side.
#[derive(Clone, Debug)]
pub(crate) struct Bend {
    /// The new rail, starting at the agent.
    pub rail: Rail,
    /// The avoidance point.
    pub via: DVec2,
    /// Its side of the old rail.
    pub side: Side,
    /// The overlap fraction of its first collision at the current speed (0 when clear).
    pub overlap: f64,
    /// Seconds until that collision (infinite when clear).
    pub collision_time: f64,
    /// Whether it is accepted: clear at the current speed, or at another of the agent's speeds
    /// with its collision at the current speed further off than the stopping time.
    pub accepted: bool,
    /// The agent of that collision (`None` when clear): the next try's sweeps look at it
    /// first.
    pub collider: Option<AgentKey>,
}

impl Bend {
    /// The order that hands the bent rail to the host.
    pub(crate) fn into_order(self) -> Order {
        Order::Reroute {
            rail: Arc::new(self.rail),
            reroute: Reroute {
                reason: RerouteReason::Avoid,
                via: self.via,
                side: Some(self.side),
            },
        }
    }
}

/// Why a side failed before its sweep, for the debug sink and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BendFailure {
    /// No avoidance point keeps the minimum distance (walls too close).
    NoAvoidancePoint,
    /// No reconnection point is visible at the required angle.
    NoReconnection,
    /// The curves could not be built (a cusp, a degenerate segment).
    Degenerate,
    /// The bent part leaves the mesh or comes closer than the radius to a wall.
    OffMesh,
}

/// Where on the old rail a bend lies: arclengths, metres.
#[derive(Clone, Copy, Debug)]
struct BendSpan {
    /// The agent's position.
    from: f64,
    /// The collision bent around.
    collision: f64,
    /// The reconnection point.
    reconnect: f64,
}

/// What to bend: an agent's rail, its predicted motion on it (from arclength `plan.s`), and
/// the collision to bend around.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BendRequest<'a> {
    pub key: AgentKey,
    pub rail: &'a Rail,
    pub plan: MotionPlan,
    pub collision: &'a Collision,
    /// The check the bend's sweep makes: detection's for a moving agent; for a standing one,
    /// the start check it will run on the new rail.
    pub hysteresis: Hysteresis,
}

impl World {
    /// The rail bent to `side` around the collision at the `fraction`-th avoidance distance
    /// (`distance`, metres), with its sweep: every step of chapter 22.4 for one side.
    ///
    /// With a `memo` (a standing agent's, for this request's inputs), a try remembered there
    /// gives its rail without the reconnection search and the mesh checks (the same rail bit for
    /// bit, [`BendMemo`]), and a try made here is remembered.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bend_to_side(
        &self,
        request: &BendRequest<'_>,
        side: Side,
        fraction: usize,
        distance: f64,
        hint: Option<AgentKey>,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
        memo: Option<&mut BendMemo>,
    ) -> Result<Bend, BendFailure> {
        let remembered = memo.as_deref().map(|memo| memo.try_at(side, fraction));
        let geometry = match remembered {
            Some(BendTry::Failed(failure)) => Err(failure),
            Some(BendTry::Found(recipe)) => self.rebuilt_bend(request, side, distance, recipe),
            Some(BendTry::Untried) | None => self.bend_geometry(request, side, distance),
        };
        if let Some(memo) = memo {
            let found = match &geometry {
                Ok((_, _, Some(recipe))) => BendTry::Found(*recipe),
                Ok((_, _, None)) => BendTry::Untried,
                Err(failure) => BendTry::Failed(*failure),
            };
            memo.remember(side, fraction, found);
        }
        let (bent, via, _) = geometry?;
        Ok(self.sweep_bend(
            request.key,
            bent,
            request.plan,
            request.hysteresis,
            via,
            side,
            hint,
            candidates,
            samples,
        ))
    }

    /// The geometric part of [`World::bend_to_side`]: the bent rail, its avoidance point, and
    /// the recipe that rebuilds it (`None` past the recipe's range: a scan of over 65,535
    /// steps).
    fn bend_geometry(
        &self,
        request: &BendRequest<'_>,
        side: Side,
        distance: f64,
    ) -> Result<(Rail, DVec2, Option<BendRecipe>), BendFailure> {
        let clearance = self.bend_clearance(request);
        let ap = self.side_avoidance_point(request, side, distance)?;
        let search = ReconnectSearch {
            clearance,
            min_degrees: self.config().reconnect_degrees,
            ..self.reconnect_scan(request, distance)
        };
        let (bent, leave, found) =
            self.reconnect_and_bend(request, &ap, &ap, None, &search, clearance)?;
        let recipe = u16::try_from(found.index).ok().map(|reconnect| BendRecipe {
            reconnect,
            leave,
            bisected: bent.bisected,
        });
        Ok((bent.rail, ap.point, recipe))
    }

    /// The reconnection point seen from `back_from` (the avoidance point, or the end of a lane's
    /// run), then the bent rail through `ap` (and the run to `run_to`) validated on the mesh
    /// ([`World::bend_on_mesh`]): the rail, where it leaves the old one, and the reconnection.
    fn reconnect_and_bend(
        &self,
        request: &BendRequest<'_>,
        ap: &AvoidancePoint,
        back_from: &AvoidancePoint,
        run_to: Option<DVec2>,
        search: &ReconnectSearch,
        clearance: f64,
    ) -> Result<(BentRail, u8, Reconnection), BendFailure> {
        let mesh = self.level().navmesh();
        let found = reconnection(mesh, request.rail, back_from, search)
            .ok_or(BendFailure::NoReconnection)?;
        let span = BendSpan {
            from: request.plan.s,
            collision: request.collision.s,
            reconnect: found.s,
        };
        let departure = self.departure(request.key);
        let (bent, leave) =
            self.bend_on_mesh(request.rail, span, ap, run_to, clearance, departure)?;
        Ok((bent, leave, found))
    }

    /// The wall clearance asked of a bend's new part, metres: the agent's radius, or what it
    /// has now if that is less (an agent already near a wall must not be refused every bend).
    fn bend_clearance(&self, request: &BendRequest<'_>) -> f64 {
        let radius = self.agents[request.key].desc().radius;
        let position = request.rail.position(request.plan.s);
        radius.min(self.level().navmesh().wall_distance(position))
    }

    /// The avoidance point on `side` at `distance` metres (chapter 22.4), truncated by walls.
    fn side_avoidance_point(
        &self,
        request: &BendRequest<'_>,
        side: Side,
        distance: f64,
    ) -> Result<AvoidancePoint, BendFailure> {
        let (rail, collision) = (request.rail, request.collision);
        let config = self.config();
        let radius = self.agents[request.key].desc().radius;
        let at = rail.sample(collision.s);
        let normal = left_normal(at.tangent);
        let direction = match side {
            Side::Left => normal,
            Side::Right => -normal,
        };
        avoidance_point(
            self.level().navmesh(),
            collision.agent_position,
            direction,
            at.tangent,
            radius,
            distance,
            config.min_avoidance_radii * radius,
        )
        .ok_or(BendFailure::NoAvoidancePoint)
    }

    /// The rail of a remembered try: the avoidance point again (one ray on the mesh), then the
    /// same call of [`bend_from`] that made it, without the searches and checks it passed.
    fn rebuilt_bend(
        &self,
        request: &BendRequest<'_>,
        side: Side,
        distance: f64,
        recipe: BendRecipe,
    ) -> Result<(Rail, DVec2, Option<BendRecipe>), BendFailure> {
        let ap = self.side_avoidance_point(request, side, distance)?;
        let (from, collision) = (request.plan.s, request.collision.s);
        let scan = self.reconnect_scan(request, distance);
        let end = scan.max_s.min(request.rail.length());
        // Found once from the same numbers: neither fails; if one did, the side would fail
        // as it would have the first time.
        let reconnect = reconnection_scan(scan.s_from, end, scan.step)
            .nth(usize::from(recipe.reconnect))
            .ok_or(BendFailure::NoReconnection)?;
        let bent = bend_from(
            request.rail,
            from,
            leave_s(from, collision, recipe.leave),
            &ap,
            reconnect,
            self.departure(request.key),
            // Nothing bisected the first time: the same tables unchecked, and the segments
            // that passed their checks then not checked again.
            if recipe.bisected {
                Splice::Checked
            } else {
                Splice::Repeated
            },
        )
        .map_err(|_| BendFailure::Degenerate)?;
        Ok((bent.rail, ap.point, Some(recipe)))
    }

    /// Where the reconnection point of a bend `distance` metres to the side is looked for:
    /// from the collision, every radius (at least 10 cm), up to [`RECONNECT_REACH`] avoidance
    /// distances on. The clearance and the angle are left to the caller.
    fn reconnect_scan(&self, request: &BendRequest<'_>, distance: f64) -> ReconnectSearch {
        let radius = self.agents[request.key].desc().radius;
        let s_from = request.collision.s;
        ReconnectSearch {
            s_from,
            max_s: s_from + RECONNECT_REACH * distance,
            clearance: 0.0,
            step: radius.max(0.1),
            min_degrees: 0.0,
        }
    }

    /// How a bend leaves the agent: a standing agent turns on the spot.
    fn departure(&self, key: AgentKey) -> Departure {
        if self.agents[key].motion().phase == Phase::Standing {
            Departure::TurnOnTheSpot
        } else {
            Departure::Tangent
        }
    }

    /// The bent rail through `ap`, validated on the mesh, with the index of where it leaves
    /// the old rail ([`leave_s`]): it leaves at the agent (the chapter); when that first curve
    /// cuts a corner (a bend planned before a door, around someone past it), later, up to three
    /// quarters of the way to the collision (`span.collision`), keeping the old rail through the
    /// corner.
    fn bend_on_mesh(
        &self,
        rail: &Rail,
        span: BendSpan,
        ap: &AvoidancePoint,
        run_to: Option<DVec2>,
        clearance: f64,
        departure: Departure,
    ) -> Result<(BentRail, u8), BendFailure> {
        let mesh = self.level().navmesh();
        let mut failure = BendFailure::OffMesh;
        let BendSpan {
            from,
            collision,
            reconnect,
        } = span;
        for k in 0..LEAVE_TRIES as u8 {
            let leave = leave_s(from, collision, k);
            let splice = Splice::Checked;
            match bend_through(rail, from, leave, ap, run_to, reconnect, departure, splice) {
                Ok(bent) if stays_on_mesh(mesh, &bent.rail, bent.bent_length, clearance) => {
                    return Ok((bent, k));
                }
                Ok(_) => failure = BendFailure::OffMesh,
                Err(_) => failure = BendFailure::Degenerate,
            }
        }
        Err(failure)
    }

    /// The sweep on a bent rail, as in detection: the bend is accepted when it is clear at the
    /// current speed, or at another of the agent's speeds (the next query will order it) when
    /// the collision at the current speed is further off than the stopping time and not with
    /// an agent standing with nowhere to go; the sweep applies `hysteresis` (a standing
    /// agent's start check).
    #[allow(clippy::too_many_arguments)]
    fn sweep_bend(
        &self,
        key: AgentKey,
        bent: Rail,
        plan: MotionPlan,
        hysteresis: Hysteresis,
        via: DVec2,
        side: Side,
        hint: Option<AgentKey>,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Bend {
        let desc = self.agents[key].desc();
        let on_bent = MotionPlan { s: 0.0, ..plan };
        let hit = detect(
            self,
            &Sweep {
                hint,
                ..Sweep::ahead(key, &bent, on_bent, 0.0).with(hysteresis)
            },
            candidates,
            samples,
        );
        let (overlap, collision_time, accepted) = match &hit {
            None => (0.0, f64::INFINITY, true),
            // Not when the collision comes sooner than the stopping time at the current speed:
            // until the next query orders the other speed, the others see the agent on the
            // bent rail at its current speed and may stop for it, and then nothing clean is
            // left (jittered tradeshow-300, seed 45: a bend with its collision 0.16 s off
            // taken for a slower speed; the walker it turned toward stopped in the same frame,
            // and both slid into each other, 22.9 %; fixture `tradeshow-300-jittered`).
            Some(hit) if hit.time <= desc.gait(plan.speed).stop_time => {
                (hit.overlap, hit.time, false)
            }
            // Nor is any speed an answer to an agent with nowhere to go: a slower one only
            // meets it beyond its shorter sweep (a walker bent round one agent at its goal
            // toward another, "for a slower speed", and met it 1.2 s later with no clean stop
            // left: arena-200, docs/ROBUSTNESS.md, session 35).
            Some(hit) if self.agents[hit.collider].stands_for_good() => {
                (hit.overlap, hit.time, false)
            }
            Some(hit) => {
                let other_speed =
                    speeds_by_preference(desc, |v| (v - plan.speed).abs() > SPEED_TOLERANCE).any(
                        |speed| {
                            let at_speed = rescale(on_bent, plan.speed, speed);
                            // (The collider at the current speed is looked at first.)
                            let sweep = Sweep {
                                hint: Some(hit.collider),
                                ..Sweep::ahead(key, &bent, at_speed, 0.0).with(hysteresis)
                            };
                            detect(self, &sweep, candidates, samples).is_none()
                        },
                    );
                (hit.overlap, hit.time, other_speed)
            }
        };
        Bend {
            rail: bent,
            via,
            side,
            overlap,
            collision_time,
            accepted,
            collider: hit.map(|hit| hit.collider),
        }
    }

    /// The avoidance point of a lane on `side` at `distance` metres: the chapter's, when a wall
    /// pulled it in, moved out to the wall's clearance ([`hug_wall`]). `NoAvoidancePoint` when
    /// no wall is beside it (no lane in the open) or walls leave none.
    fn lane_point(
        &self,
        request: &BendRequest<'_>,
        side: Side,
        distance: f64,
    ) -> Result<AvoidancePoint, BendFailure> {
        let mut ap = self.side_avoidance_point(request, side, distance)?;
        if !ap.truncated {
            return Err(BendFailure::NoAvoidancePoint);
        }
        let radius = self.agents[request.key].desc().radius;
        let from = request.collision.agent_position;
        ap.point = hug_wall(self.level().navmesh(), from, ap.point, radius);
        Ok(ap)
    }

    /// A lane bend to `side` through the lane's avoidance point `ap` ([`World::lane_point`] at
    /// `distance` metres): a straight run of `run` metres along its tangent, then the curve back
    /// to the rail, validated on the mesh and swept as [`World::bend_to_side`] does.
    #[allow(clippy::too_many_arguments)]
    fn lane_to_side(
        &self,
        request: &BendRequest<'_>,
        side: Side,
        ap: &AvoidancePoint,
        distance: f64,
        run: f64,
        hint: Option<AgentKey>,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
    ) -> Result<Bend, BendFailure> {
        let key = request.key;
        let radius = self.agents[key].desc().radius;
        let clearance = self.bend_clearance(request);
        let end = ap.point + ap.tangent * run;
        if !segment_is_clear(self.level().navmesh(), ap.point, end, clearance) {
            return Err(BendFailure::OffMesh);
        }
        let far = AvoidancePoint { point: end, ..*ap };
        let s_from = request.collision.s + run;
        let search = ReconnectSearch {
            s_from,
            max_s: s_from + RECONNECT_REACH * distance,
            clearance,
            step: radius.max(0.1),
            min_degrees: self.config().reconnect_degrees,
        };
        let (bent, _, _) =
            self.reconnect_and_bend(request, ap, &far, Some(end), &search, clearance)?;
        Ok(self.sweep_bend(
            key,
            bent.rail,
            request.plan,
            request.hysteresis,
            ap.point,
            side,
            hint,
            candidates,
            samples,
        ))
    }

    /// Both sides in turn (chapter 22.4): first the side of the collision's avoidance vector,
    /// then the mirrored one (unless `only` names the side allowed, after a recent rewrite).
    /// Returns the first accepted bend, else the valid bend with the least overlap (`accepted`
    /// false), else `None`. A standing agent passes its `memo` of tries ([`BendMemo`]).
    pub(crate) fn bend_around(
        &self,
        request: &BendRequest<'_>,
        only: Option<Side>,
        candidates: &mut Vec<u32>,
        samples: &mut Vec<SweepSample>,
        mut memo: Option<&mut BendMemo>,
    ) -> Option<Bend> {
        let (rail, collision) = (request.rail, request.collision);
        let tangent = rail.sample(collision.s).tangent;
        let first = if left_normal(tangent).dot(collision.avoid_direction) >= 0.0 {
            Side::Left
        } else {
            Side::Right
        };
        let config = self.config();
        let radius = self.agents[request.key].desc().radius;
        let full = config.avoidance_radii * radius;
        let least = config.min_avoidance_radii * radius;
        let mut best: Option<Bend> = None;
        // The agent the last try's rail met: the next try's sweeps look at it first (a crowd
        // beside the rail meets most tries; only an order of work, `Sweep::hint`).
        let mut hint = None;
        for side in [first, first.mirrored()] {
            if only.is_some_and(|allowed| allowed != side) {
                continue;
            }
            // The configured distance first; when its bend runs into someone else (a crowd
            // standing beside the rail), nearer avoidance points, down to the minimum.
            for (index, fraction) in AVOIDANCE_FRACTIONS.into_iter().enumerate() {
                let distance = full * fraction;
                if fraction < 1.0 && distance < least {
                    break;
                }
                let bend = match self.bend_to_side(
                    request,
                    side,
                    index,
                    distance,
                    hint,
                    candidates,
                    samples,
                    memo.as_deref_mut(),
                ) {
                    Ok(bend) => bend,
                    // Walls leave no room on this side: a nearer point has none either.
                    Err(BendFailure::NoAvoidancePoint) => break,
                    Err(_) => continue,
                };
                if bend.accepted {
                    return Some(bend);
                }
                hint = bend.collider.or(hint);
                if best.as_ref().is_none_or(|b| bend.overlap < b.overlap) {
                    best = Some(bend);
                }
            }
        }
        // Against a walker coming the other way, the chapter's bend rejoins the rail a few
        // metres past it, in the way of whoever follows it (a two-way corridor): a lane beside
        // the rail, kept for longer, before coming back.
        let collider = &self.agents[collision.collider];
        let oncoming = collider.plan.moves() && collider.direction().dot(tangent) < -LANE_COS;
        if oncoming {
            // A lane clear at the current speed first, else the first clear at another.
            let mut slower: Option<Bend> = None;
            for side in [first, first.mirrored()] {
                if only.is_some_and(|allowed| allowed != side) {
                    continue;
                }
                // Once per side, for all its runs (a ray and a bisection on the mesh).
                let fits = |runs: f64| collision.s + runs * full + least <= rail.length();
                if !fits(LANE_RUNS[0]) {
                    break;
                }
                let Ok(ap) = self.lane_point(request, side, full) else {
                    continue;
                };
                for runs in LANE_RUNS.into_iter().take_while(|&runs| fits(runs)) {
                    let run = runs * full;
                    let lane =
                        self.lane_to_side(request, side, &ap, full, run, hint, candidates, samples);
                    match lane {
                        Ok(bend) if bend.accepted && bend.collision_time.is_infinite() => {
                            return Some(bend);
                        }
                        Ok(bend) if bend.accepted && slower.is_none() => slower = Some(bend),
                        Ok(bend) => hint = bend.collider.or(hint),
                        Err(_) => {}
                    }
                }
            }
            if slower.is_some() {
                return slower;
            }
        }
        best
    }
}

/// `plan` with its cruise speed (and its transition, which scales with it) changed from
/// `from` to `to`.
fn rescale(plan: MotionPlan, from: f64, to: f64) -> MotionPlan {
    let k = if from > 0.0 { to / from } else { 1.0 };
    MotionPlan {
        speed: to,
        transition_speed: plan.transition_speed * k,
        transition_acceleration: plan.transition_acceleration * k,
        ..plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Level;

    /// The reconnection point's arclength.
    fn reconnection_s(
        mesh: &NavMesh,
        rail: &Rail,
        ap: &AvoidancePoint,
        search: &ReconnectSearch,
    ) -> Option<f64> {
        let found = reconnection(mesh, rail, ap, search)?;
        // The scan gives the same arclength at its index, as a remembered bend recomputes it.
        let end = search.max_s.min(rail.length());
        let again = reconnection_scan(search.s_from, end, search.step).nth(found.index);
        assert_eq!(again.map(f64::to_bits), Some(found.s.to_bits()));
        Some(found.s)
    }

    /// Two bends are the same bit for bit.
    fn same_bend(a: &Option<Bend>, b: &Option<Bend>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.rail == b.rail
                    && a.via.to_array().map(f64::to_bits) == b.via.to_array().map(f64::to_bits)
                    && a.side == b.side
                    && a.overlap.to_bits() == b.overlap.to_bits()
                    && a.collision_time.to_bits() == b.collision_time.to_bits()
                    && a.accepted == b.accepted
            }
            _ => false,
        }
    }

    #[test]
    fn a_remembered_bend_is_the_bend_made_afresh_bit_for_bit() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/levels/plaza.json");
        let level = Arc::new(Level::load(path).unwrap());
        let options = crate::sim::PlacementOptions {
            agents: 300,
            seed: 3,
            duration: 30.0,
            ..Default::default()
        };
        let scenario = crate::sim::Scenario::random("memo", level, &options).unwrap();
        let mut sim = crate::sim::Simulation::new(&scenario).unwrap();
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        let (mut compared, mut rebuilt) = (0, 0);
        for frame in 0..120 {
            sim.step();
            if frame % 10 != 9 {
                continue;
            }
            let world = sim.world();
            for (key, agent) in world.agents.iter() {
                let (Some(rail), Phase::Standing) = (agent.rail(), agent.motion().phase) else {
                    continue;
                };
                let desc = agent.desc();
                let plan =
                    crate::world::start_plan(desc, agent.motion().s, desc.preferred_speed, 0.0);
                let sweep = Sweep::ahead(key, rail, plan, 0.0);
                let Some(collision) = detect(world, &sweep, &mut candidates, &mut samples) else {
                    continue;
                };
                let request = BendRequest {
                    key,
                    rail,
                    plan,
                    collision: &collision,
                    hysteresis: Hysteresis::resume(world.config()),
                };
                let afresh = world.bend_around(&request, None, &mut candidates, &mut samples, None);
                let inputs = BendInputs::of(rail, plan.s, &collision);
                let mut memo = BendMemo::for_inputs(inputs, None);
                let first = world.bend_around(
                    &request,
                    None,
                    &mut candidates,
                    &mut samples,
                    Some(&mut memo),
                );
                let filled = memo.clone();
                let again = world.bend_around(
                    &request,
                    None,
                    &mut candidates,
                    &mut samples,
                    Some(&mut memo),
                );
                assert!(same_bend(&afresh, &first), "{key:?} at frame {frame}");
                assert!(
                    same_bend(&afresh, &again),
                    "{key:?} at frame {frame}, remembered"
                );
                // The second time tried the same sides and distances, from the memo.
                assert_eq!(memo, filled);
                compared += 1;
                rebuilt += filled.found();
            }
        }
        assert!(
            compared >= 50 && rebuilt >= 50,
            "{compared} bends, {rebuilt} tries"
        );
    }

    fn outline(points: &[(f64, f64)]) -> Level {
        let boundary: Vec<[f64; 2]> = points.iter().map(|&(x, y)| [x, y]).collect();
        let text = serde_json::json!({ "name": "test", "boundary": boundary }).to_string();
        Level::from_json(&text, "test").unwrap()
    }

    fn search(s_from: f64, max_s: f64, min_degrees: f64) -> ReconnectSearch {
        ReconnectSearch {
            s_from,
            max_s,
            clearance: 0.4,
            step: 0.1,
            min_degrees,
        }
    }

    fn corridor(width: f64) -> Level {
        outline(&[(0.0, 0.0), (30.0, 0.0), (30.0, width), (0.0, width)])
    }

    #[test]
    fn the_avoidance_point_is_at_the_full_distance_in_the_open() {
        let level = corridor(20.0);
        let mesh = level.navmesh();
        let ap = avoidance_point(
            mesh,
            DVec2::new(10.0, 10.0),
            DVec2::Y,
            DVec2::X,
            0.4,
            2.0,
            0.4,
        )
        .unwrap();
        assert!((ap.point - DVec2::new(10.0, 12.0)).length() < 1e-9);
        assert!(!ap.truncated);
        assert_eq!(ap.tangent, DVec2::X);
    }

    #[test]
    fn the_avoidance_point_is_truncated_a_radius_off_the_wall_with_its_tangent() {
        // A wall at y = 2.4 running along x; the rail tangent is a little off the wall's.
        let level = corridor(2.4);
        let mesh = level.navmesh();
        let rail_tangent = DVec2::new(1.0, 0.1).normalize();
        let ap = avoidance_point(
            mesh,
            DVec2::new(10.0, 1.2),
            DVec2::Y,
            rail_tangent,
            0.4,
            2.0,
            0.4,
        )
        .unwrap();
        assert!(ap.truncated);
        assert!((ap.point.y - 2.0).abs() < 0.05, "{:?}", ap.point);
        assert!(mesh.wall_distance(ap.point) >= 0.4 - CLEARANCE_SLACK);
        // The wall's tangent, oriented along the rail.
        assert!((ap.tangent - DVec2::X).length() < 1e-9, "{:?}", ap.tangent);
    }

    #[test]
    fn the_avoidance_point_fails_when_the_wall_is_closer_than_the_minimum() {
        let level = corridor(1.0);
        let mesh = level.navmesh();
        let ap = avoidance_point(
            mesh,
            DVec2::new(10.0, 0.5),
            DVec2::Y,
            DVec2::X,
            0.4,
            2.0,
            0.4,
        );
        assert_eq!(ap, None);
    }

    #[test]
    fn the_reconnection_point_is_the_furthest_visible_one_at_eight_degrees() {
        let level = corridor(20.0);
        let mesh = level.navmesh();
        let rail = Rail::from_points(&[DVec2::new(1.0, 10.0), DVec2::new(29.0, 10.0)]).unwrap();
        let ap = AvoidancePoint {
            point: DVec2::new(10.0, 12.0),
            tangent: DVec2::X,
            truncated: false,
        };
        let s = reconnection_s(mesh, &rail, &ap, &search(9.0, 28.0, 8.0)).unwrap();
        // tan(8°) = 2 / dx: dx = 14.23, so the point at x ≈ 24.2 (s ≈ 23.2), to the step.
        let x = rail.position(s).x;
        let expected = 10.0 + 2.0 / 8f64.to_radians().tan();
        assert!(
            x <= expected + 1e-9 && x > expected - 0.11,
            "{x} vs {expected}"
        );
        // With no angle rule the rail's visible end (capped at max_s) wins.
        let s = reconnection_s(mesh, &rail, &ap, &search(9.0, 20.0, 0.0)).unwrap();
        assert!((s - 20.0).abs() < 1e-9);
    }

    #[test]
    fn the_reconnection_point_stops_at_the_first_point_hidden_by_a_wall() {
        // An L: the rail turns a corner the avoidance point cannot see around.
        let level = outline(&[
            (0.0, 0.0),
            (20.0, 0.0),
            (20.0, 20.0),
            (16.0, 20.0),
            (16.0, 4.0),
            (0.0, 4.0),
        ]);
        let mesh = level.navmesh();
        let rail = Rail::from_points(&[
            DVec2::new(1.0, 2.0),
            DVec2::new(18.0, 2.0),
            DVec2::new(18.0, 19.0),
        ])
        .unwrap();
        let ap = AvoidancePoint {
            point: DVec2::new(8.0, 3.5),
            tangent: DVec2::X,
            truncated: false,
        };
        let s = reconnection_s(mesh, &rail, &ap, &search(7.0, rail.length(), 8.0)).unwrap();
        let p = rail.position(s);
        assert!(segment_is_clear(mesh, ap.point, p, 0.4));
        // Visible points lie before the corner's wall blocks the view up the second arm.
        assert!(p.y < 8.0, "{p:?}");
    }

    /// The wall checks the distance bounds skip would all have passed: `reconnection_s` and
    /// `stays_on_mesh` agree with checking every segment and every sample, on random rails
    /// and avoidance points among walls (an L with a pillar).
    #[test]
    fn skipped_wall_checks_change_no_answer() {
        let level = Level::from_json(
            &serde_json::json!({
                "name": "l-pillar",
                "boundary": [[0, 0], [20, 0], [20, 20], [14, 20], [14, 6], [0, 6]],
                "holes": [[[6, 2], [7, 2], [7, 3], [6, 3]]],
            })
            .to_string(),
            "test",
        )
        .unwrap();
        let mesh = level.navmesh();
        let mut rng = crate::sim::SplitMix64::new(11);
        let point = |rng: &mut crate::sim::SplitMix64| loop {
            let p = DVec2::new(rng.unit() * 20.0, rng.unit() * 20.0);
            if mesh.contains(p) && mesh.wall_distance(p) > 0.3 {
                return p;
            }
        };
        let (mut reconnections, mut on_mesh, mut off_mesh) = (0, 0, 0);
        for round in 0..300 {
            let points = [point(&mut rng), point(&mut rng), point(&mut rng)];
            let Ok(rail) = Rail::from_points(&points) else {
                continue;
            };
            // Now and then less than the slack (an agent already touching a wall).
            let clearance = if round % 10 == 0 {
                0.0005
            } else {
                0.2 + rng.unit() * 0.4
            };
            // Every segment checked, up to the first hidden point.
            let ap = AvoidancePoint {
                point: point(&mut rng),
                tangent: DVec2::from_angle(rng.unit() * std::f64::consts::TAU),
                truncated: false,
            };
            let search = ReconnectSearch {
                s_from: 0.0,
                max_s: rail.length(),
                clearance,
                step: 0.3,
                min_degrees: 8.0,
            };
            let mut expected = None;
            let mut s = search.step;
            loop {
                let s_here = s.min(rail.length());
                let r = rail.position(s_here);
                let to = r - ap.point;
                if to.length() > 1e-6 {
                    if !segment_is_clear(mesh, ap.point, r, clearance) {
                        break;
                    }
                    let cos = to.dot(ap.tangent) / to.length();
                    if cos > 0.0 && cos <= 8f64.to_radians().cos() {
                        expected = Some(s_here);
                    }
                }
                if s_here >= rail.length() {
                    break;
                }
                s += search.step;
            }
            assert_eq!(reconnection_s(mesh, &rail, &ap, &search), expected);
            reconnections += usize::from(expected.is_some());
            // Every sample measured.
            let length = rail.length();
            let step = (0.5 * clearance).max(0.05);
            let fine = 2 * (length / step).ceil().max(1.0) as usize;
            let every = (0..=fine).all(|k| {
                mesh.wall_distance(rail.position(length * k as f64 / fine as f64))
                    >= clearance - CLEARANCE_SLACK
            });
            let mut previous = rail.position(0.0);
            let walks = (1..=fine / 2).all(|k| {
                let p = rail.position(length * k as f64 / (fine / 2) as f64);
                let ok = mesh.is_reachable(previous, p);
                previous = p;
                ok
            });
            let expected = every && walks;
            assert_eq!(stays_on_mesh(mesh, &rail, length, clearance), expected);
            if expected {
                on_mesh += 1;
            } else {
                off_mesh += 1;
            }
        }
        // Both answers occur, so the comparison means something.
        assert!(
            reconnections > 20 && on_mesh > 20 && off_mesh > 20,
            "{reconnections} {on_mesh} {off_mesh}"
        );
    }

    #[test]
    fn the_bent_rail_is_g1_through_the_avoidance_point_and_keeps_the_tail() {
        let rail = Rail::from_points(&[DVec2::new(1.0, 10.0), DVec2::new(29.0, 10.0)]).unwrap();
        let ap = AvoidancePoint {
            point: DVec2::new(10.0, 12.0),
            tangent: DVec2::X,
            truncated: false,
        };
        let (bent, bent_length) = bend_from(
            &rail,
            3.0,
            3.0,
            &ap,
            20.0,
            Departure::Tangent,
            Splice::Checked,
        )
        .map(|b| (b.rail, b.bent_length))
        .unwrap();
        assert!((bent.start() - DVec2::new(4.0, 10.0)).length() < 1e-9);
        assert!((bent.end() - rail.end()).length() < 1e-9);
        assert_eq!(bent.segments().len(), 3);
        // G1 at every joint.
        let mut s = 0.0;
        for w in bent.segments().windows(2) {
            s += w[0].arclength();
            let before = bent.tangent(s - 1e-7);
            let after = bent.tangent(s + 1e-7);
            assert!(before.dot(after) > 1.0 - 1e-6, "kink at s = {s}");
        }
        assert!((bent.position(bent.segments()[0].arclength()) - ap.point).length() < 1e-9);
        assert!((bent_length - (bent.length() - 8.0)).abs() < 1e-3);
        assert_eq!(bent.tangent(0.0), DVec2::X);
    }

    #[test]
    fn validation_rejects_a_bend_that_leaves_the_mesh() {
        let level = corridor(2.4);
        let mesh = level.navmesh();
        let rail = Rail::from_points(&[DVec2::new(1.0, 1.2), DVec2::new(29.0, 1.2)]).unwrap();
        let bent_through = |ap: &AvoidancePoint| {
            bend_from(
                &rail,
                3.0,
                3.0,
                ap,
                20.0,
                Departure::Tangent,
                Splice::Checked,
            )
            .map(|b| (b.rail, b.bent_length))
            .unwrap()
        };
        // An avoidance point placed by hand beyond the wall: the curve leaves the corridor.
        let ap = AvoidancePoint {
            point: DVec2::new(10.0, 3.2),
            tangent: DVec2::X,
            truncated: false,
        };
        let (bent, length) = bent_through(&ap);
        assert!(!stays_on_mesh(mesh, &bent, length, 0.4));
        // Inside, but closer to the wall than the radius: refused too.
        let ap = AvoidancePoint {
            point: DVec2::new(10.0, 2.2),
            ..ap
        };
        let (bent, length) = bent_through(&ap);
        assert!(!stays_on_mesh(mesh, &bent, length, 0.4));
        // A radius off the wall: accepted.
        let ap = AvoidancePoint {
            point: DVec2::new(10.0, 1.95),
            ..ap
        };
        let (bent, length) = bent_through(&ap);
        assert!(stays_on_mesh(mesh, &bent, length, 0.4));
    }

    #[test]
    fn a_bend_meeting_an_agent_with_nowhere_to_go_is_not_accepted_for_another_speed() {
        // Open field: a walker going north at 1.4 m/s on a rail (taken as the bend) that
        // passes 0.3 m beside an agent 3 m ahead. Its sweep meets the agent 1.5 s ahead; at
        // 0.8 m/s the sweep reaches 1.7 m and is clear. Against an agent that wants to go the
        // bend is accepted (the next query slows, and the agent may start); against one with
        // nowhere to go it is not: it will be there at any speed.
        use crate::world::{line_agent, AgentDesc, Motion};
        let accepted = |wants_to_go: bool| {
            let level = Arc::new(crate::level::fixture_level("open-field"));
            let mut world = World::new(level, crate::AvoidanceConfig::default()).unwrap();
            let speeds = [0.8, 1.4];
            let from = DVec2::new(10.0, 15.0);
            let walker = line_agent(
                &mut world,
                from,
                DVec2::new(10.0, 30.0),
                &speeds,
                Motion::moving(0.0, 1.4),
            );
            let at = DVec2::new(10.3, 18.0);
            if wants_to_go {
                line_agent(
                    &mut world,
                    at,
                    DVec2::new(20.0, 18.0),
                    &speeds,
                    Motion::standing(0.0),
                );
            } else {
                let desc = AgentDesc {
                    position: at,
                    ..AgentDesc::with_speeds(0.4, &speeds, 1.4)
                };
                world.add_agent(desc).unwrap();
            }
            world.ensure_grid();
            let rail = world.agents[walker].rail().unwrap().clone();
            let (mut candidates, mut samples) = (Vec::new(), Vec::new());
            let bend = world.sweep_bend(
                walker,
                rail,
                MotionPlan::cruising(0.0, 1.4),
                Hysteresis::NONE,
                from,
                Side::Left,
                None,
                &mut candidates,
                &mut samples,
            );
            assert!(bend.collision_time > 1.0 && bend.collision_time < 2.0);
            bend.accepted
        };
        assert!(accepted(true));
        assert!(!accepted(false));
    }

    /// An agent standing on the line y = 0.9 of a 2.4 m corridor, wanting to go east, and a
    /// file of walkers coming west on y = 1.5, `gap` metres apart (two 0.4 m agents pass only
    /// near the walls): the world, the agent, its start plan and the start's collision.
    fn standing_before_a_file(gap: f64) -> (World, AgentKey, MotionPlan, Collision) {
        use crate::world::{AgentDesc, Motion};
        let level = Arc::new(corridor(2.4));
        let mut world = World::new(level, crate::AvoidanceConfig::default()).unwrap();
        let mut add = |from: DVec2, to: DVec2, motion: Motion| {
            let desc = AgentDesc {
                position: from,
                ..AgentDesc::with_speeds(0.4, &[0.8, 1.4], 1.4)
            };
            let key = world.add_agent(desc).unwrap();
            world
                .set_rail(key, Rail::from_points(&[from, to]).unwrap())
                .unwrap();
            world.set_motion(key, motion).unwrap();
            key
        };
        let key = add(
            DVec2::new(4.0, 0.9),
            DVec2::new(28.0, 0.9),
            Motion::standing(0.0),
        );
        for k in 0..6 {
            let x = 8.0 + gap * f64::from(k);
            add(
                DVec2::new(x, 1.5),
                DVec2::new(1.0, 1.5),
                Motion::moving(0.0, 1.4),
            );
        }
        world.ensure_grid();
        let desc = world.agents[key].desc();
        let plan = crate::world::start_plan(desc, 0.0, desc.preferred_speed, 0.0);
        let rail = world.agents[key].rail().unwrap().clone();
        let sweep = Sweep::ahead(key, &rail, plan, 0.0).with(Hysteresis::resume(world.config()));
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        let collision =
            detect(&world, &sweep, &mut candidates, &mut samples).expect("the file is in the way");
        (world, key, plan, collision)
    }

    #[test]
    fn a_lane_bend_keeps_the_wall_past_a_file_of_oncoming_walkers() {
        let (world, key, plan, collision) = standing_before_a_file(1.6);
        let rail = world.agents[key].rail().unwrap();
        let request = BendRequest {
            key,
            rail,
            plan,
            collision: &collision,
            hysteresis: Hysteresis::resume(world.config()),
        };
        let (mut candidates, mut samples) = (Vec::new(), Vec::new());
        // The chapter's bends, every side and distance: none is clear.
        for side in [Side::Left, Side::Right] {
            for (index, fraction) in AVOIDANCE_FRACTIONS.into_iter().enumerate() {
                let distance = world.config().avoidance_radii * 0.4 * fraction;
                if let Ok(bend) = world.bend_to_side(
                    &request,
                    side,
                    index,
                    distance,
                    None,
                    &mut candidates,
                    &mut samples,
                    None,
                ) {
                    assert!(!bend.accepted, "{side:?} at {fraction}: {:?}", bend.via);
                }
            }
        }
        let bend = world
            .bend_around(&request, None, &mut candidates, &mut samples, None)
            .expect("a bend");
        assert!(bend.accepted && bend.collision_time.is_infinite());
        assert_eq!(bend.side, Side::Right);
        // Out to the wall's clearance, not a pull step short of it.
        assert!((bend.via.y - 0.4).abs() < 2e-3, "{:?}", bend.via);
        // Along the wall for a while before it turns back.
        let by_the_wall: Vec<f64> = (0..=400)
            .map(|k| {
                bend.rail
                    .position(bend.rail.length() * f64::from(k) / 400.0)
            })
            .filter(|p| p.y < 0.41)
            .map(|p| p.x)
            .collect();
        let run = by_the_wall.last().unwrap() - by_the_wall.first().unwrap();
        assert!(run >= 1.9, "along the wall for {run} m");
    }

    #[test]
    fn the_wall_is_hugged_to_its_clearance() {
        let level = corridor(2.4);
        let mesh = level.navmesh();
        let from = DVec2::new(5.0, 1.2);
        let down = DVec2::new(0.3, -1.0).normalize();
        // A point a pull step short of the clearance moves out to it along the same line.
        let short = from + down * ((1.2 - 0.43) / -down.y);
        let hugged = hug_wall(mesh, from, short, 0.4);
        assert!((hugged.y - 0.4).abs() < 1e-3, "{hugged:?}");
        assert!((hugged - from).normalize().dot(down) > 1.0 - 1e-12);
        assert!(mesh.wall_distance(hugged) >= 0.4 - 0.5 * CLEARANCE_SLACK);
        // Already at the clearance: it stays.
        let at = from + down * ((1.2 - 0.4) / -down.y);
        assert!(hug_wall(mesh, from, at, 0.4).distance(at) < 2e-3);
    }
}
