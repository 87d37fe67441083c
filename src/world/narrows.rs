//! The single-lane stretches of a rail: where the mesh across it is too narrow for two agents
//! to pass each other, so that agents coming the other way must take turns.

use crate::level::NavMesh;
use crate::rail::Rail;

/// Spacing of the width measurements along a rail, metres (as the deadlock rule's lane links
/// measure a way, `resolve/deadlock/narrow.rs`).
const NARROW_STEP: f64 = 0.25;

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
