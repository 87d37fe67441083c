//! Right of way out of narrow stretches: a released agent inside a narrow stretch of its corner
//! path, or just out of one, takes the smaller share of the avoidance against free agents that
//! are not ([`crate::AvoidanceConfig::exit_right_of_way`]).
//!
//! In a corridor that carries both ways, the crowd takes it in turns by itself: a file going
//! one way fills it while the other side waits at the far mouth. ORCA gives the agents coming
//! out and the ones waiting to go in the same half of every avoidance, so the waiting ones stand
//! their ground in the mouth and the file comes out at a crawl: on den312d-500 (the map's halves
//! meet through one corridor 3 m wide and 4 m long) 15–17 agents stood packed in the corridor at
//! 0.2–0.4 m/s for tens of seconds (docs/ROBUSTNESS.md, session 51). With the agents coming out
//! taking a quarter and those they meet three quarters, the mouth opens in front of the file.

use glam::DVec2;

use crate::level::NavMesh;
use crate::rail::CORRIDOR_RADII;

/// The path is sampled this often, metres.
const SAMPLE_STEP: f64 = 0.5;

/// A narrow run shorter than this (from its first to its last narrow sample) is a door frame or
/// a pinch, not a stretch agents queue at, metres.
const SHORTEST_STRETCH: f64 = 1.5;

/// An agent further than this many radii from a stretch's line (entry to exit) is beside it, not
/// in it or just out of it: half the narrow width, and a little more for the mouth.
const BESIDE_RADII: f64 = 5.0;

/// The narrow stretches of the corner path `corners` for an agent of `radius` metres, each as
/// its first and last narrow sample (entry, exit) in the path's direction. A narrow run the path
/// ends in is not listed: an agent whose goal lies in a corridor does not come out of it. One it
/// starts in counts from the start, so an agent released less than [`SHORTEST_STRETCH`] from a
/// corridor's exit has no right of way out of it (as measured; not looked into).
pub(crate) fn narrow_stretches(
    mesh: &NavMesh,
    corners: &[DVec2],
    radius: f64,
    out: &mut Vec<[DVec2; 2]>,
) {
    out.clear();
    // Narrow where the mesh across the path (each side counted up to the limit) and twice the
    // wall distance are both under the width the rails' lanes take for a two-way corridor.
    let limit = CORRIDOR_RADII * radius;
    let mut run: Option<[DVec2; 2]> = None;
    for leg in corners.windows(2) {
        let (a, b) = (leg[0], leg[1]);
        let Some(direction) = (b - a).try_normalize() else {
            continue;
        };
        let length = a.distance(b);
        let steps = (length / SAMPLE_STEP).ceil().max(1.0) as usize;
        for k in 0..=steps {
            let p = a + direction * (k as f64 * SAMPLE_STEP).min(length);
            // The wall distance first: open ground is passed without the two raycasts.
            let narrow = 2.0 * mesh.wall_distance(p) < limit
                && mesh.width_across(p, direction, limit) < limit;
            if narrow {
                run = Some(match run {
                    Some([entry, _]) => [entry, p],
                    None => [p, p],
                });
            } else if let Some([entry, exit]) = run.take() {
                if entry.distance(exit) >= SHORTEST_STRETCH {
                    out.push([entry, exit]);
                }
            }
        }
    }
}

/// Whether `position` is in one of `stretches` (from [`narrow_stretches`]) or out of its exit by
/// at most `after` metres along it, for an agent of `radius` metres.
pub(crate) fn in_or_just_out(
    stretches: &[[DVec2; 2]],
    position: DVec2,
    radius: f64,
    after: f64,
) -> bool {
    stretches.iter().any(|&[entry, exit]| {
        let Some(direction) = (exit - entry).try_normalize() else {
            return false;
        };
        let along = (position - entry).dot(direction);
        let beside = (position - entry).perp_dot(direction).abs();
        beside < BESIDE_RADII * radius && along >= 0.0 && along <= entry.distance(exit) + after
    })
}

/// Two 10 × 10 m rooms joined by a corridor 3 m wide and 4 m long (x 3.5–6.5, y 10–14), for
/// tests here and in `free.rs`.
#[cfg(test)]
pub(crate) fn rooms_and_corridor() -> crate::level::Level {
    crate::level::Level::from_json(
        r#"{"name": "rooms", "boundary": [[0, 0], [10, 0], [10, 10], [6.5, 10], [6.5, 14],
            [10, 14], [10, 24], [0, 24], [0, 14], [3.5, 14], [3.5, 10], [0, 10]],
            "holes": []}"#,
        "test",
    )
    .expect("valid test level")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_through_a_corridor_has_one_stretch_across_it() {
        let level = rooms_and_corridor();
        let mesh = level.navmesh();
        let mut stretches = Vec::new();
        let path = [DVec2::new(5.0, 2.0), DVec2::new(5.0, 22.0)];
        narrow_stretches(mesh, &path, 0.4, &mut stretches);
        assert_eq!(stretches.len(), 1, "{stretches:?}");
        let [entry, exit] = stretches[0];
        // 3 m across is under 9 radii (3.6 m); the rooms, 10 m across, are not. The mouths
        // count a little beyond the corridor, where the line across still meets its walls.
        assert!((9.0..=10.5).contains(&entry.y), "entry {entry}");
        assert!((13.5..=15.0).contains(&exit.y), "exit {exit}");
        // The other way: the same stretch, entry and exit swapped.
        narrow_stretches(mesh, &[path[1], path[0]], 0.4, &mut stretches);
        assert_eq!(stretches.len(), 1);
        assert!(stretches[0][0].y > stretches[0][1].y);
        // For agents of 0.2 m the corridor is 15 radii across: no stretch.
        narrow_stretches(mesh, &path, 0.2, &mut stretches);
        assert!(stretches.is_empty(), "{stretches:?}");
        // Starting inside: from the start, if that leaves 1.5 m of it.
        narrow_stretches(mesh, &[DVec2::new(5.0, 11.0), path[1]], 0.4, &mut stretches);
        assert_eq!(stretches.len(), 1);
        assert_eq!(stretches[0][0], DVec2::new(5.0, 11.0));
        narrow_stretches(mesh, &[DVec2::new(5.0, 12.5), path[1]], 0.4, &mut stretches);
        assert!(stretches.is_empty(), "{stretches:?}");
    }

    #[test]
    fn a_path_that_ends_in_the_corridor_comes_out_of_no_stretch() {
        let level = rooms_and_corridor();
        let mut stretches = Vec::new();
        let path = [DVec2::new(5.0, 2.0), DVec2::new(5.0, 12.0)];
        narrow_stretches(level.navmesh(), &path, 0.4, &mut stretches);
        assert!(stretches.is_empty(), "{stretches:?}");
    }

    #[test]
    fn in_or_just_out_covers_the_stretch_and_the_given_metres_past_its_exit() {
        let stretches = [[DVec2::new(5.0, 10.0), DVec2::new(5.0, 14.0)]];
        let at = |x: f64, y: f64| in_or_just_out(&stretches, DVec2::new(x, y), 0.4, 4.0);
        assert!(!at(5.0, 9.5), "before the entry");
        assert!(at(5.0, 10.0) && at(5.0, 12.0) && at(6.2, 14.0));
        assert!(at(5.0, 17.9), "within 4 m past the exit");
        assert!(!at(5.0, 18.1), "beyond");
        assert!(!at(7.1, 12.0), "beside, 2.1 m off its line");
        assert!(!in_or_just_out(&stretches, DVec2::new(5.0, 15.0), 0.4, 0.0));
    }
}
