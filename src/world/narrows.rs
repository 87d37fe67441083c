//! The stretches of a rail that agents coming the other way take in turns: where the mesh
//! across it is too narrow for two agents to pass each other (single-lane), and short passages
//! a few agents wide between wider ground (since session 48).

use crate::level::NavMesh;
use crate::rail::Rail;

/// Spacing of the width measurements along a rail, metres (as the deadlock rule's lane links
/// measure a way, `resolve/deadlock/narrow.rs`).
const NARROW_STEP: f64 = 0.25;

/// A short passage is narrower than this many agent radii across the rail: as a corridor is
/// for the planner's lanes (`rail/lane.rs`), four agents abreast with their margins, and a
/// little.
const PASSAGE_WIDTH_RADII: f64 = crate::rail::CORRIDOR_RADII;

/// A short passage is at least this many radii long: a narrower run shorter than that is a gap
/// between two corners, passed at once.
const PASSAGE_SHORTEST_RADII: f64 = 4.0;

/// A short passage is at most this many radii long (4.8 m for 0.4 m agents): a longer one is a
/// corridor, where the lanes let two streams pass.
const PASSAGE_LONGEST_RADII: f64 = 12.0;

/// The stretches of the rail of an agent of `radius` that it takes in turns with agents coming
/// the other way, in order: its single-lane stretches ([`narrows_of`] narrower than two agents
/// and both `margin`s, a wider part shorter than the agent's diameter no passing place), and
/// its short passages: runs narrower than [`PASSAGE_WIDTH_RADII`] radii, from
/// [`PASSAGE_SHORTEST_RADII`] to [`PASSAGE_LONGEST_RADII`] radii long, that neither start nor
/// end the rail (an agent placed in a passage, or bound for a point in it, is already there).
/// Stretches of either kind less than a diameter apart are one. With `passages` false (the jam
/// release is on: see below), the single-lane stretches alone. `None` when there is none.
///
/// **Why the short passages (session 48):** two rooms joined by a 3 m passage 4 m long, twenty
/// 0.4 m agents in each crossing to the other: the streams met in the passage and at its mouths,
/// each agent waiting on one coming the other way, and 56 of 320 arrived over eight such
/// crowds (`python3 tools/crowd_probes.py passage`), against 240 taking turns by side as at a
/// door. den312d's passages between its two halves are such (docs/ALGORITHM.md,
/// "Single-lane stretches"). Not with the jam release: agents released from a jam pass each
/// other in a passage two agents wide, and the turns held back the side waiting (den312d with
/// the release, 6 jittered runs: 2,524 → 2,024 of 3,000 arrivals).
pub(crate) fn turn_stretches_of(
    mesh: &NavMesh,
    rail: &Rail,
    radius: f64,
    margin: f64,
    passages: bool,
) -> Option<Box<[Narrow]>> {
    let join = 2.0 * radius;
    let single = narrows_of(mesh, rail, 4.0 * radius + 2.0 * margin, join);
    if !passages {
        return single;
    }
    let under_passage_width = narrows_of(mesh, rail, PASSAGE_WIDTH_RADII * radius, join);
    let (shortest, longest) = (
        PASSAGE_SHORTEST_RADII * radius,
        PASSAGE_LONGEST_RADII * radius,
    );
    let mut short = under_passage_width
        .iter()
        .flatten()
        .copied()
        .filter(|n| {
            let length = n.s_out - n.s_in;
            (shortest..=longest).contains(&length) && n.s_in > 0.0 && n.s_out < rail.length()
        })
        .peekable();
    // Most rails cross no short passage: their single-lane stretches as found, no copy.
    if short.peek().is_none() {
        return single;
    }
    let mut all: Vec<Narrow> = single.map(Vec::from).unwrap_or_default();
    all.extend(short);
    all.sort_by(|a, b| a.s_in.total_cmp(&b.s_in));
    // Merged in place: each stretch joins the last kept one when less than `join` after it.
    let mut kept = 0;
    for i in 1..all.len() {
        if all[i].s_in <= all[kept].s_out + join {
            all[kept].s_out = all[kept].s_out.max(all[i].s_out);
        } else {
            kept += 1;
            all[kept] = all[i];
        }
    }
    all.truncate(kept + 1);
    Some(all.into_boxed_slice())
}

/// One single-lane stretch of a rail, by arclength (metres from the rail's start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Narrow {
    /// Where the rail enters it.
    pub s_in: f64,
    /// Where the rail leaves it.
    pub s_out: f64,
}

/// The single-lane stretches of `rail`, in order: where the mesh across the rail (square to its
/// tangent, measured every [`NARROW_STEP`] and at the end) is narrower than `width` metres.
/// Stretches less than `join` metres apart are one (a wider spot shorter than an agent is no
/// passing place). `None` when there is none, so that most agents hold no allocation.
pub(crate) fn narrows_of(
    mesh: &NavMesh,
    rail: &Rail,
    width: f64,
    join: f64,
) -> Option<Box<[Narrow]>> {
    let length = rail.length();
    let steps = (length / NARROW_STEP).ceil().max(1.0) as usize;
    let mut cursor = rail.cursor();
    let mut found: Vec<Narrow> = Vec::new();
    let mut open: Option<f64> = None;
    let mut last_narrow = 0.0;
    // Samples up to this arclength are wide without measuring: the line across a point is at
    // least twice its wall distance long, and a point `x` metres along the rail from one whose
    // wall distance is `d` has at least `d − x` (open ground is passed in a few lookups).
    let mut wide_until = f64::NEG_INFINITY;
    for k in 0..=steps {
        let s = (k as f64 * NARROW_STEP).min(length);
        let narrow = if s <= wide_until {
            false
        } else {
            let sample = cursor.sample(s);
            let clearance = mesh.wall_distance(sample.position);
            if 2.0 * clearance >= width {
                wide_until = s + (clearance - 0.5 * width);
                false
            } else {
                mesh.width_across(sample.position, sample.tangent, width) < width
            }
        };
        match (narrow, open) {
            (true, None) => {
                // Joined to the stretch before when the wide part between is too short.
                match found.last() {
                    Some(before) if s - before.s_out < join => {
                        open = Some(before.s_in);
                        found.pop();
                    }
                    _ => open = Some(s),
                }
                last_narrow = s;
            }
            (true, Some(_)) => last_narrow = s,
            (false, Some(s_in)) => {
                found.push(Narrow {
                    s_in,
                    s_out: last_narrow,
                });
                open = None;
            }
            (false, None) => {}
        }
    }
    if let Some(s_in) = open {
        found.push(Narrow {
            s_in,
            s_out: last_narrow,
        });
    }
    (!found.is_empty()).then(|| found.into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::fixture_level as level;
    use glam::DVec2;

    #[test]
    fn a_door_is_one_narrow_stretch_and_an_open_room_none() {
        // doorway: a 1.2 m door through a wall 1 m thick (x 9.5 to 10.5), rooms 10 m high.
        let doorway = level("doorway");
        let mesh = doorway.navmesh();
        let rail = Rail::from_points(&[DVec2::new(2.0, 5.0), DVec2::new(18.0, 5.0)]).unwrap();
        // Two 0.4 m agents and two 0.05 m margins need 1.7 m.
        let narrows = narrows_of(mesh, &rail, 1.7, 0.8).expect("the door is narrow");
        assert_eq!(narrows.len(), 1);
        let door = narrows[0];
        // Measured every 0.25 m from x = 2: the samples inside the wall's thickness (x 9.5 to
        // 10.5; on its faces the line across runs along the wall).
        assert!((7.5..=7.75).contains(&door.s_in), "{door:?}");
        assert!((8.25..=8.5).contains(&door.s_out), "{door:?}");
        // Small agents pass each other in the door.
        assert!(narrows_of(mesh, &rail, 1.0, 0.4).is_none());
        let open = level("open-field");
        let across = Rail::from_points(&[DVec2::new(2.0, 15.0), DVec2::new(28.0, 15.0)]).unwrap();
        assert!(narrows_of(open.navmesh(), &across, 1.7, 0.8).is_none());
    }

    #[test]
    fn a_short_passage_between_rooms_is_taken_in_turns_and_a_two_way_corridor_is_not() {
        // rooms-passage: two rooms joined by a passage 3 m wide and 4 m long (x 4.5 to 7.5, y
        // 10 to 14): two lanes for 0.4 m agents (1.7 m), narrower than 9 radii (3.6 m).
        let rooms = level("rooms-passage");
        let mesh = rooms.navmesh();
        let through = Rail::from_points(&[DVec2::new(6.0, 2.0), DVec2::new(6.0, 22.0)]).unwrap();
        assert!(narrows_of(mesh, &through, 1.7, 0.8).is_none(), "two lanes");
        let stretches = turn_stretches_of(mesh, &through, 0.4, 0.05, true).expect("the passage");
        assert_eq!(stretches.len(), 1);
        // Not with the jam release on.
        assert!(turn_stretches_of(mesh, &through, 0.4, 0.05, false).is_none());
        // From y = 2: the passage's samples, y 10 to 14 (on its mouths the line across runs
        // along the walls).
        let passage = stretches[0];
        assert!((8.0..=8.25).contains(&passage.s_in), "{passage:?}");
        assert!((11.75..=12.0).contains(&passage.s_out), "{passage:?}");
        // Not for an agent starting in it, or bound for a point in it.
        let from_inside =
            Rail::from_points(&[DVec2::new(6.0, 12.0), DVec2::new(6.0, 22.0)]).unwrap();
        assert!(turn_stretches_of(mesh, &from_inside, 0.4, 0.05, true).is_none());
        // Small agents pass each other there: 9 radii of 0.19 m are 1.71 m.
        assert!(turn_stretches_of(mesh, &through, 0.19, 0.024, true).is_none());
        // corridor: 2.4 m wide and 30 m long, a corridor for lanes, not a passage.
        let corridor = level("corridor");
        let along = Rail::from_points(&[DVec2::new(1.0, 1.2), DVec2::new(29.0, 1.2)]).unwrap();
        assert!(turn_stretches_of(corridor.navmesh(), &along, 0.4, 0.05, true).is_none());
        // A door stays one stretch (doorway: 1.2 m wide through a wall 1 m thick).
        let doorway = level("doorway");
        let rail = Rail::from_points(&[DVec2::new(2.0, 5.0), DVec2::new(18.0, 5.0)]).unwrap();
        let door = turn_stretches_of(doorway.navmesh(), &rail, 0.4, 0.05, true).expect("the door");
        assert_eq!(door.len(), 1);
        assert_eq!(Some(door), narrows_of(doorway.navmesh(), &rail, 1.7, 0.8));
    }

    #[test]
    fn a_passing_place_splits_a_corridor_and_a_short_bulge_does_not() {
        // long-corridor: a 1 m corridor (y 2.5 to 3.5) from x = 6 to 26 between two rooms.
        let corridor = level("long-corridor");
        let rail = Rail::from_points(&[DVec2::new(2.0, 3.0), DVec2::new(30.0, 3.0)]).unwrap();
        let narrows = narrows_of(corridor.navmesh(), &rail, 1.7, 0.8).expect("narrow");
        assert_eq!(narrows.len(), 1);
        assert!((narrows[0].s_in - 4.0).abs() <= 0.25 && (narrows[0].s_out - 24.0).abs() <= 0.25);
        // narrow-alcove: the corridor widens beside an alcove, room to pass.
        let alcove = level("narrow-alcove");
        let (lo, hi) = alcove.navmesh().bounds();
        let y = 0.45;
        let along =
            Rail::from_points(&[DVec2::new(lo.x + 1.0, y), DVec2::new(hi.x - 1.0, y)]).unwrap();
        let split = narrows_of(alcove.navmesh(), &along, 1.7, 0.8).expect("narrow");
        assert_eq!(split.len(), 2, "{split:?}");
        // Joined when the alcove is shorter than `join`.
        let joined = narrows_of(alcove.navmesh(), &along, 1.7, 100.0).expect("narrow");
        assert_eq!(joined.len(), 1);
    }
}
