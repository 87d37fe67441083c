//! Navmesh queries on the fixture levels: loading, point location, rays, walls, clamping, paths.

mod common;

use sidestep::{DVec2, Level, LevelFile, PathError, PathOptions, Turn};

fn level(name: &str) -> Level {
    Level::load(format!("fixtures/levels/{name}.json")).unwrap_or_else(|e| panic!("{e}"))
}

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

#[test]
fn fixture_levels_have_the_designed_area() {
    for (name, area) in [
        ("open-field", 900.0),
        ("corridor", 72.0),
        ("doorway", 200.0 - 4.4 - 4.4),
        ("crossroads", 2.0 * 90.0 - 9.0),
        ("pillar-hall", 400.0 - 9.0),
        ("l-corner", 50.0 + 43.75),
        ("narrow-alcove", 24.0),
        ("mesh-rooms", 76.5),
    ] {
        let l = level(name);
        assert!(
            (l.navmesh().area() - area).abs() < 1e-9,
            "{name}: {}",
            l.navmesh().area()
        );
        assert_eq!(l.navmesh().island_count(), 1, "{name}");
        assert_eq!(l.name(), name);
    }
    let plaza = level("plaza");
    assert_eq!(plaza.navmesh().island_count(), 1);
    assert!(plaza.navmesh().area() > 3400.0);
}

#[test]
fn point_location() {
    let l = level("doorway");
    let m = l.navmesh();
    assert!(m.contains(v(5., 5.)));
    assert!(m.contains(v(10., 5.)), "in the door");
    assert!(!m.contains(v(10., 2.)), "inside the wall");
    assert!(!m.contains(v(-1., 5.)));
    assert!(m.contains(v(0., 5.)), "walls belong to the mesh");
    assert!(m.contains(v(9.5, 2.)), "wall faces belong to the mesh");
    assert!(!m.contains(v(f64::NAN, 5.)));
    let rooms = level("mesh-rooms");
    assert!(rooms.navmesh().contains(v(7.5, 3.)));
    assert!(!rooms.navmesh().contains(v(7.5, 1.)));
}

#[test]
fn straight_line_reachability_and_rays() {
    let l = level("doorway");
    let m = l.navmesh();
    assert!(m.is_reachable(v(5., 5.), v(15., 5.)), "through the door");
    assert!(!m.is_reachable(v(5., 2.), v(15., 2.)), "through the wall");
    let hit = m.raycast(v(5., 2.), v(15., 2.));
    assert!((hit.fraction - 0.45).abs() < 1e-9);
    assert!((hit.point - v(9.5, 2.)).length() < 1e-9);
    let (a, b) = hit.wall.unwrap();
    assert!(a.x == 9.5 && b.x == 9.5);
    // Grazing a wall corner stays on the mesh.
    assert!(m.is_reachable(v(8.5, 3.4), v(10.5, 5.4)));
    // An off-mesh start reaches nothing.
    let off = m.raycast(v(10., 2.), v(15., 2.));
    assert_eq!(off.fraction, 0.0);
    assert!(off.polygon.is_none());

    let f = m.furthest_along(v(5., 2.), v(1., 0.), 20.0);
    assert!(f.blocked);
    assert!((f.distance - 4.5).abs() < 1e-9);
    let f = m.furthest_along(v(5., 5.), v(1., 0.), 3.0);
    assert!(!f.blocked);
    assert!((f.point - v(8., 5.)).length() < 1e-9);
    let f = m.furthest_along(v(5., 5.), v(0., 0.), 3.0);
    assert_eq!(f.distance, 0.0);
}

#[test]
fn nearest_wall_and_clamp() {
    let l = level("corridor");
    let m = l.navmesh();
    let w = m.nearest_wall(v(5., 1.), f64::INFINITY).unwrap();
    assert!((w.distance - 1.0).abs() < 1e-12);
    assert_eq!(w.point, v(5., 0.));
    assert_eq!(w.tangent, v(1., 0.));
    assert_eq!(w.outward_normal, v(0., -1.));
    let w = m.nearest_wall(v(5., 2.), f64::INFINITY).unwrap();
    assert!((w.distance - 0.4).abs() < 1e-12);
    assert_eq!(w.outward_normal, v(0., 1.));
    assert!(m.nearest_wall(v(15., 1.2), 1.0).is_none(), "limited search");
    assert_eq!(m.clamp(v(5., -1.)), Some(v(5., 0.)));
    assert_eq!(m.clamp(v(5., 1.)), Some(v(5., 1.)));
    assert_eq!(m.clamp(v(f64::NAN, 1.)), None);
    // Pillar faces are walls too.
    let hall = level("pillar-hall");
    let w = hall
        .navmesh()
        .nearest_wall(v(5., 6.), f64::INFINITY)
        .unwrap();
    assert!((w.distance - 0.5).abs() < 1e-12);
    assert_eq!(w.outward_normal, v(0., -1.));
}

#[test]
fn path_through_the_door_turns_around_both_jambs() {
    let l = level("doorway");
    let p = l
        .navmesh()
        .find_path(v(2., 2.), v(18., 2.), &PathOptions::from_agent_radius(0.4))
        .unwrap();
    let corners: Vec<_> = p.corners.iter().filter_map(|c| c.around).collect();
    assert_eq!(corners.len(), 2, "{:?}", p.points());
    assert_eq!(corners[0].position, v(9.5, 4.4));
    assert_eq!(corners[1].position, v(10.5, 4.4));
    assert!(corners.iter().all(|c| c.turn == Turn::Right));
    // Corners keep the radius from the jambs and from every wall.
    for c in &p.corners[1..p.corners.len() - 1] {
        let jamb = c.around.unwrap().position;
        assert!(c.position.distance(jamb) >= 0.4 - 1e-9);
        assert!(c.position.distance(jamb) <= 0.4 * 1.5, "{:?}", c.position);
        assert!(l.navmesh().wall_distance(c.position) >= 0.4 - 1e-6);
    }
    let direct = v(2., 2.).distance(v(18., 2.));
    assert!(p.length() > direct);
}

#[test]
fn straight_path_when_in_sight() {
    let l = level("open-field");
    let p = l
        .navmesh()
        .find_path(v(1., 1.), v(29., 28.), &PathOptions::default())
        .unwrap();
    assert_eq!(p.corners.len(), 2);
    assert!((p.length() - v(1., 1.).distance(v(29., 28.))).abs() < 1e-12);
    let same = l
        .navmesh()
        .find_path(v(1., 1.), v(1., 1.), &PathOptions::default())
        .unwrap();
    assert_eq!(same.length(), 0.0);
}

#[test]
fn path_errors() {
    let l = level("narrow-alcove");
    let m = l.navmesh();
    let e = m
        .find_path(
            v(1., 0.5),
            v(19., 0.5),
            &PathOptions::from_agent_radius(0.6),
        )
        .unwrap_err();
    assert!(matches!(e, PathError::TooNarrow { .. }), "{e}");
    assert!(m
        .find_path(
            v(1., 0.5),
            v(19., 0.5),
            &PathOptions::from_agent_radius(0.45)
        )
        .is_ok());
    let e = m
        .find_path(v(1., 5.), v(19., 0.5), &PathOptions::default())
        .unwrap_err();
    assert_eq!(e, PathError::StartOffMesh(v(1., 5.)));
    assert_eq!(e.to_string(), "the start (1, 5) is not on the navmesh");
    let e = m
        .find_path(v(1., 0.5), v(f64::NAN, 0.5), &PathOptions::default())
        .unwrap_err();
    assert!(matches!(e, PathError::GoalOffMesh(_)));
    let e = m
        .find_path(
            v(1., 0.5),
            v(2., 0.5),
            &PathOptions::from_agent_radius(-1.0),
        )
        .unwrap_err();
    assert!(matches!(e, PathError::BadRadius(_)));

    // A hole cutting the level in two makes two islands.
    let split = Level::from_file(
        LevelFile {
            name: "split".into(),
            boundary: Some(vec![[0., 0.], [10., 0.], [10., 4.], [0., 4.]]),
            holes: vec![vec![[4., -1.], [6., -1.], [6., 5.], [4., 5.]]],
            ..Default::default()
        },
        "<code>",
    )
    .unwrap();
    assert_eq!(split.navmesh().island_count(), 2);
    let e = split
        .navmesh()
        .find_path(v(1., 2.), v(9., 2.), &PathOptions::default())
        .unwrap_err();
    assert!(matches!(e, PathError::Unreachable { .. }), "{e}");
}

/// Regression: the ring search stopped one ring early and missed a nearer wall corner in the next
/// cell (found by the rail property test on narrow-alcove).
#[test]
fn nearest_wall_finds_a_corner_in_the_next_cell() {
    let l = level("narrow-alcove");
    let p = v(10.842548600675222, 0.9729742496301127);
    let w = l.navmesh().nearest_wall(p, f64::INFINITY).unwrap();
    assert_eq!(w.point, v(11., 1.));
    assert!((w.distance - p.distance(v(11., 1.))).abs() < 1e-12);
}

/// The grid answer matches a brute-force scan over every wall.
#[test]
fn nearest_wall_matches_brute_force() {
    for name in [
        "plaza",
        "narrow-alcove",
        "pillar-hall",
        "crossroads",
        "mesh-rooms",
    ] {
        let l = level(name);
        let m = l.navmesh();
        let (lo, hi) = m.bounds();
        let mut state = 12345u64;
        for _ in 0..2000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (state >> 11) as f64 / (1u64 << 53) as f64;
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = (state >> 11) as f64 / (1u64 << 53) as f64;
            let p = lo - v(2., 2.) + (hi - lo + v(4., 4.)) * v(a, b);
            let brute = m
                .boundary_edges()
                .map(|e| {
                    let ab = e.end - e.start;
                    let t = ((p - e.start).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
                    (e.start + ab * t).distance(p)
                })
                .fold(f64::INFINITY, f64::min);
            let grid = m.nearest_wall(p, f64::INFINITY).unwrap().distance;
            assert!(
                (grid - brute).abs() < 1e-12,
                "{name}: {p}: grid {grid} brute {brute}"
            );
        }
    }
}

/// A polygon with collinear edges (mesh-rooms: the wall, the portal and the wall again along
/// x = 9) tied in the exit test, and a walk below the portal went through it.
#[test]
fn a_walk_leaves_through_the_collinear_edge_it_crosses() {
    let rooms = level("mesh-rooms");
    let hit = rooms.navmesh().raycast(v(10.45, 1.79), v(6.0, 2.25));
    assert!(!hit.reached());
    assert_eq!(hit.wall, Some((v(9.0, 2.25), v(9.0, 0.0))));
    assert!(rooms.navmesh().is_reachable(v(10.45, 3.0), v(6.0, 3.0)));
}

/// A walk from a wall vertex located in a polygon the segment does not enter (l-corner's inner
/// corner, located in the north leg, towards the west leg) stopped at once.
#[test]
fn a_walk_from_a_vertex_starts_in_the_polygon_it_enters() {
    let l = level("l-corner");
    assert!(l.navmesh().is_reachable(v(17.5, 2.5), v(6.9, 1.15)));
    assert!(l.navmesh().is_reachable(v(17.5, 2.5), v(18.6, 16.5)));
    assert!(!l.navmesh().is_reachable(v(17.5, 2.5), v(16.0, 4.0)));
}

/// A walk ending exactly on a wall vertex exited a rounding error before its end and reported
/// the wall (plaza).
#[test]
fn a_walk_to_a_wall_vertex_reaches_it() {
    let plaza = level("plaza");
    let from = v(49.464, 49.118);
    let corner = plaza
        .navmesh()
        .vertices()
        .iter()
        .copied()
        .min_by(|a, b| {
            a.distance(v(55.707, 51.777))
                .total_cmp(&b.distance(v(55.707, 51.777)))
        })
        .unwrap();
    assert!(plaza.navmesh().is_reachable(from, corner), "{corner}");
}

/// The exact segment clearance sees a wall corner between any two samples: a segment passing a
/// pillar corner at 0.38 m fails a 0.4 m clearance wherever the corner falls along it.
#[test]
fn segment_clearance_is_exact_at_a_corner() {
    let hall = level("pillar-hall");
    let mesh = hall.navmesh();
    let corner = v(4.5, 4.5);
    let outward = v(-1.0, -1.0).normalize();
    let along = v(1.0, -1.0).normalize();
    for shift in [0.0, 0.05, 0.1, 0.137] {
        let passing = |d: f64| {
            let mid = corner + outward * d + along * shift;
            (mid - along * 2.0, mid + along * 2.0)
        };
        let (a, b) = passing(0.38);
        assert!(!mesh.segment_keeps_clearance(a, b, 0.4), "shift {shift}");
        let (a, b) = passing(0.42);
        assert!(mesh.segment_keeps_clearance(a, b, 0.4), "shift {shift}");
    }
}

/// Against the wall distance sampled every millimetre along random segments of the plaza.
#[test]
fn segment_clearance_agrees_with_dense_sampling() {
    let plaza = level("plaza");
    let mesh = plaza.navmesh();
    let mut rng = common::SplitMix(11);
    let mut unit = || rng.unit();
    let (lo, hi) = mesh.bounds();
    let mut checked = 0;
    while checked < 300 {
        let a = lo + (hi - lo) * v(unit(), unit());
        let b = a + v(unit() - 0.5, unit() - 0.5) * 8.0;
        if !mesh.is_reachable(a, b) {
            continue;
        }
        let n = (a.distance(b) / 0.001).ceil() as usize;
        let sampled = (0..=n)
            .map(|k| mesh.wall_distance(a.lerp(b, k as f64 / n as f64)))
            .fold(f64::INFINITY, f64::min);
        let clearance = 0.5;
        if (sampled - clearance).abs() < 0.002 {
            continue;
        }
        assert_eq!(
            mesh.segment_keeps_clearance(a, b, clearance),
            sampled >= clearance,
            "{a} -> {b}: sampled {sampled}"
        );
        checked += 1;
    }
}
