//! The importers on the committed files (`fixtures/import/`): polygon and island counts, known
//! paths, the MovingAI oracle (our any-angle path is never longer than the file's optimal grid
//! path), the committed levels being what the importers make today, bad input naming the file
//! and the line, and the `sidestep import` command line.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::VisibilityGraph;

use sidestep::{
    import_menge, import_movingai, import_polyanya, DVec2, ImportError, Level, MeshImportOptions,
    MovingAiImport, MovingAiOptions, PathOptions, Scenario, TripOptions,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn arena() -> MovingAiImport {
    import_movingai(
        &fixture("import/arena.map"),
        Some(&fixture("import/arena.map.scen")),
        &MovingAiOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn arena_mesh() -> Level {
    let options = MeshImportOptions {
        name: Some("arena-mesh".into()),
        flip_y: Some(49.0),
    };
    import_polyanya(&fixture("import/arena.mesh"), &options).unwrap_or_else(|e| panic!("{e}"))
}

fn menge(name: &str) -> Level {
    import_menge(
        &fixture(&format!("import/{name}.nav")),
        &MeshImportOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Radius of the oracle's paths, metres: small, since the file's optimal lengths are for a
/// point moving between cell centres.
const ORACLE_RADIUS: f64 = 0.01;

/// How much longer than the file's optimal grid length our path may be, metres. Each corner the
/// path turns around is moved `ORACLE_RADIUS` off the wall vertex along its portal, which
/// lengthens the path by at most `2 × ORACLE_RADIUS` per corner; and the file's lengths are
/// rounded to 5 decimals. A grid path with no corner cutting is a path through the same free
/// cells, so an exact any-angle planner is never longer than it.
fn oracle_tolerance(corners: usize) -> f64 {
    1e-4 + 2.0 * ORACLE_RADIUS * corners as f64
}

/// Every query: straight-line distance ≤ our path ≤ optimal grid length + tolerance. Returns the
/// queries that fail, as messages.
fn oracle_failures(import: &MovingAiImport) -> Vec<String> {
    let mesh = import.level.navmesh();
    let options = PathOptions::from_agent_radius(ORACLE_RADIUS);
    let mut failures = Vec::new();
    for q in &import.queries {
        let path = match mesh.find_path(q.start, q.goal, &options) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("line {}: {e}", q.line));
                continue;
            }
        };
        let length = path.length();
        let straight = q.start.distance(q.goal);
        let bound = q.optimal_length + oracle_tolerance(path.corners.len().saturating_sub(2));
        if length < straight - 1e-9 || length > bound {
            failures.push(format!(
                "line {}: path {length:.4} m, straight {straight:.4} m, optimal {:.4} m",
                q.line, q.optimal_length
            ));
        }
    }
    failures
}

#[test]
fn arena_map_becomes_its_free_cells() {
    let import = arena();
    let mesh = import.level.navmesh();
    assert_eq!((import.map.width, import.map.height), (49, 49));
    assert_eq!(import.map.passable_count(), 2054);
    assert!((mesh.area() - 2054.0).abs() < 1e-9, "area {}", mesh.area());
    assert_eq!(import.level.source().holes.len(), 7);
    assert_eq!(mesh.polygon_count(), 121);
    assert_eq!(mesh.island_count(), 1);
    assert_eq!(import.queries.len(), 160);
    // y flipped: row 11 of 49 is y = 49 − 11 − 0.5.
    assert_eq!(import.queries[0].start, DVec2::new(1.5, 37.5));
    // The trees of row 7, columns 24 and 25, are a hole; the cell beside them is not.
    assert!(!mesh.contains(DVec2::new(24.5, 41.5)));
    assert!(mesh.contains(DVec2::new(23.5, 41.5)));
}

#[test]
fn cell_size_scales_the_arena() {
    let options = MovingAiOptions {
        cell: 0.5,
        ..MovingAiOptions::default()
    };
    let import = import_movingai(&fixture("import/arena.map"), None, &options).unwrap();
    assert!((import.level.navmesh().area() - 2054.0 * 0.25).abs() < 1e-9);
    assert_eq!(import.level.navmesh().bounds().1, DVec2::new(24.0, 24.0));
}

#[test]
fn arena_paths_are_no_longer_than_the_optimal_grid_paths() {
    let failures = oracle_failures(&arena());
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
#[ignore = "reads the research-only Dragon Age maps from ../shared/data"]
fn dragon_age_paths_are_no_longer_than_the_optimal_grid_paths() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/movingai/dao");
    let mut report = Vec::new();
    for name in ["arena", "den009d", "den312d", "isound1", "lak303d"] {
        let import = import_movingai(
            &dir.join(format!("{name}.map")),
            Some(&dir.join(format!("{name}.map.scen"))),
            &MovingAiOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mesh = import.level.navmesh();
        assert!((mesh.area() - import.map.passable_count() as f64).abs() < 1e-6);
        let failures = oracle_failures(&import);
        if !failures.is_empty() {
            report.push(format!(
                "{name}: {} of {} queries: {:#?}",
                failures.len(),
                import.queries.len(),
                failures
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn polyanya_arena_mesh_covers_the_same_cells() {
    let level = arena_mesh();
    let mesh = level.navmesh();
    assert_eq!(mesh.polygon_count(), 120);
    assert_eq!(mesh.island_count(), 1);
    assert!((mesh.area() - 2054.0).abs() < 1e-9);
    // Flipped onto the map's coordinates: every query's cells are on it, and the paths are as
    // short as the oracle asks there too.
    let import = arena();
    let options = PathOptions::from_agent_radius(ORACLE_RADIUS);
    for q in &import.queries {
        let path = mesh
            .find_path(q.start, q.goal, &options)
            .unwrap_or_else(|e| panic!("line {}: {e}", q.line));
        let bound = q.optimal_length + oracle_tolerance(path.corners.len().saturating_sub(2));
        assert!(path.length() <= bound, "line {}", q.line);
    }
}

/// The shortest any-angle path at radius 0 bends only at wall vertices: Dijkstra over the
/// visibility graph of the wall vertices (built once) is an exact oracle. On the arena (the
/// traced map and Polyanya's own mesh of it) every `.scen` query's path is that optimum to 1 µm,
/// where the issue asks for 2 % (the Polyanya crate's optimal paths were the suggested oracle;
/// this one needs no dependency and is exact). It found the funnel's fault with a start on a
/// portal (arena-mesh line 19: the start on a triangle's diagonal, 8.96 m for 6.32 m).
#[test]
fn arena_paths_are_the_any_angle_optimum() {
    let import = arena();
    for level in [&import.level, &arena_mesh()] {
        let mesh = level.navmesh();
        let graph = VisibilityGraph::new(mesh);
        for q in &import.queries {
            let optimum = graph.shortest(mesh, q.start, q.goal);
            let ours = mesh
                .find_path(q.start, q.goal, &PathOptions::default())
                .unwrap_or_else(|e| panic!("line {}: {e}", q.line))
                .length();
            assert!(
                (ours - optimum).abs() < 1e-6,
                "{} line {}: ours {ours}, optimum {optimum}",
                level.name(),
                q.line
            );
        }
    }
}

#[test]
fn known_arena_path_around_the_pillar() {
    // From west of the tree clump of rows 7–9 (columns 23–25, y 39 to 42) to east of it, low
    // down: under the clump, around its bottom corners (23, 39) and (26, 39).
    let import = arena();
    let from = DVec2::new(21.5, 39.5);
    let to = DVec2::new(27.5, 39.5);
    for level in [&import.level, &arena_mesh()] {
        let path = level
            .navmesh()
            .find_path(from, to, &PathOptions::default())
            .unwrap();
        let (a, b) = (DVec2::new(23.0, 39.0), DVec2::new(26.0, 39.0));
        let expected = from.distance(a) + a.distance(b) + b.distance(to);
        assert!(
            (path.length() - expected).abs() < 1e-9,
            "{}: {} against {expected}",
            level.name(),
            path.length()
        );
    }
}

#[test]
fn menge_meshes_import() {
    let simple = menge("simple");
    let mesh = simple.navmesh();
    assert_eq!(simple.name(), "simple");
    assert_eq!(mesh.polygon_count(), 8);
    assert_eq!(mesh.island_count(), 1);
    assert!((mesh.area() - 36.0).abs() < 1e-9);
    // Down the corridor x ∈ [−1, 1] from the room above: around the corner (−1, 3).
    let from = DVec2::new(-4.0, 4.5);
    let to = DVec2::new(0.0, -2.0);
    let path = mesh.find_path(from, to, &PathOptions::default()).unwrap();
    let corner = DVec2::new(-1.0, 3.0);
    assert!((path.length() - (from.distance(corner) + corner.distance(to))).abs() < 1e-9);

    let tradeshow = menge("tradeshow");
    let mesh = tradeshow.navmesh();
    assert_eq!(mesh.vertices().len(), 470);
    assert_eq!(mesh.polygon_count(), 338);
    assert_eq!(mesh.island_count(), 1);
    assert!((mesh.area() - 1972.4753).abs() < 1e-3, "{}", mesh.area());
    assert_eq!(
        mesh.bounds(),
        (DVec2::new(-26.8, -33.0), DVec2::new(26.8, 34.0))
    );
}

#[test]
fn committed_levels_are_what_the_importers_make() {
    let committed = |name: &str| {
        Level::load(fixture(&format!("levels/{name}.json")))
            .unwrap_or_else(|e| panic!("{e}"))
            .source()
            .clone()
    };
    assert_eq!(&committed("arena"), arena().level.source());
    assert_eq!(&committed("arena-mesh"), arena_mesh().source());
    let mut simple = menge("simple").source().clone();
    simple.name = "menge-simple".into();
    assert_eq!(committed("menge-simple"), simple);
    assert_eq!(&committed("tradeshow"), menge("tradeshow").source());
}

#[test]
fn arena_trips_move_repeated_cells_apart() {
    let import = arena();
    let radius = 0.4;
    let trips = import.trips(&TripOptions {
        count: 200,
        radius,
        spacing: 2.0,
    });
    assert_eq!(trips.len(), 200);
    // The first query's start is free; its goal, the next cell, is closer than the spacing.
    assert_eq!(trips[0].query, 0);
    assert_eq!(trips[0].start, import.queries[0].start);
    assert!(trips[0].moved);
    let mesh = import.level.navmesh();
    let ends: Vec<DVec2> = trips.iter().flat_map(|t| [t.start, t.goal]).collect();
    for (i, a) in ends.iter().enumerate() {
        assert!(mesh.wall_distance(*a) >= radius);
        for b in &ends[i + 1..] {
            assert!(a.distance(*b) >= 2.0 - 1e-9, "{a} and {b}");
        }
    }
    // The arena file starts its 160 queries from 19 cells: most trips are moved.
    assert!(trips.iter().filter(|t| t.moved).count() > 100);
}

fn error_of(result: Result<impl std::fmt::Debug, ImportError>) -> String {
    let err = result.expect_err("the import must fail");
    let text = err.to_string();
    text.replace(env!("CARGO_MANIFEST_DIR"), "")
}

#[test]
fn bad_maps_and_scenarios_name_the_file_and_line() {
    let options = MovingAiOptions::default();
    let map = |name: &str| error_of(import_movingai(&fixture(name), None, &options));
    assert_eq!(
        map("bad-import/short-row.map"),
        "/fixtures/bad-import/short-row.map:6: row 1 has 3 cells, the header's width is 4"
    );
    assert_eq!(
        map("bad-import/unknown-terrain.map"),
        "/fixtures/bad-import/unknown-terrain.map:6: unknown terrain `x` at column 2 (passable: . G S; blocked: @ O T W)"
    );
    assert_eq!(
        map("bad-import/no-height.map"),
        "/fixtures/bad-import/no-height.map:3: the header must give both `height` and `width` before `map`"
    );
    let scen = |name: &str| {
        error_of(import_movingai(
            &fixture("import/arena.map"),
            Some(&fixture(name)),
            &options,
        ))
    };
    assert_eq!(
        scen("bad-import/blocked-start.scen"),
        "/fixtures/bad-import/blocked-start.scen:3: the start cell (0, 0) is blocked on the map"
    );
    assert_eq!(
        scen("bad-import/wrong-size.scen"),
        "/fixtures/bad-import/wrong-size.scen:2: the query is for a 50 × 49 map, but the map is 49 × 49"
    );
    let missing = error_of(import_movingai(&fixture("import/none.map"), None, &options));
    assert!(
        missing.starts_with("/fixtures/import/none.map: cannot read the file"),
        "{missing}"
    );
}

#[test]
fn bad_meshes_name_the_file_and_line() {
    let options = MeshImportOptions::default();
    assert_eq!(
        error_of(import_menge(&fixture("bad-import/bad-index.nav"), &options)),
        "/fixtures/bad-import/bad-index.nav:11: vertex 3 of node 0 is 7, but there are only 4 vertices"
    );
    assert_eq!(
        error_of(import_polyanya(&fixture("bad-import/truncated.mesh"), &options)),
        "/fixtures/bad-import/truncated.mesh:8: the file ends early: expected the vertex count of polygon 1"
    );
    assert_eq!(
        error_of(import_polyanya(&fixture("bad-import/clockwise.mesh"), &options)),
        "/fixtures/bad-import/clockwise.mesh:7: polygon 0 is clockwise; polygons must list their vertices counter-clockwise"
    );
}

fn sidestep(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sidestep"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the sidestep binary runs")
}

/// `sidestep ARGS`, which must succeed (its stderr is the failure message).
fn sidestep_ok(args: &[&str]) -> std::process::Output {
    let out = sidestep(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh directory under the target directory's temp area for files a test writes.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sidestep-import-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn cli_writes_a_level_and_a_scenario_that_load() {
    let dir = scratch("cli");
    let level = dir.join("arena.json");
    sidestep_ok(&[
        "import",
        "movingai",
        "fixtures/import/arena.map",
        "-o",
        level.to_str().unwrap(),
    ]);
    assert_eq!(
        Level::load(&level).unwrap().source(),
        arena().level.source()
    );

    let scenario = dir.join("scenarios/arena-5.json");
    std::fs::create_dir_all(scenario.parent().unwrap()).unwrap();
    // The first five queries of arena.map.scen, with `extra` arguments.
    let import_arena_5 = |extra: &[&str]| {
        let mut args = vec![
            "import",
            "movingai",
            "fixtures/import/arena.map",
            "--scen",
            "fixtures/import/arena.map.scen",
            "--agents",
            "5",
            "-o",
            scenario.to_str().unwrap(),
            "--level-out",
            level.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        sidestep_ok(&args);
    };
    import_arena_5(&[]);
    let text = std::fs::read_to_string(&scenario).unwrap();
    assert!(text.contains("\"level\": \"../arena.json\""), "{text}");
    let loaded = Scenario::load(&scenario).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.agents.len(), 5);
    assert_eq!(loaded.agents[0].desc.position, DVec2::new(1.5, 37.5));
    // A benchmark crowd gets the jam release unless told otherwise; a random crowd on a mesh
    // (below) gets the defaults.
    assert_eq!(loaded.avoidance.jam_release, 2.0);
    assert_eq!(loaded.avoidance.release_turn_degrees, 60.0);
    assert_eq!(loaded.avoidance.orca.substeps, 4);
    import_arena_5(&["--avoidance", "{}"]);
    let loaded = Scenario::load(&scenario).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.avoidance.jam_release, 0.0);
    assert_eq!(loaded.avoidance.release_turn_degrees, 30.0);

    let random = dir.join("simple-20.json");
    sidestep_ok(&[
        "import",
        "menge",
        "fixtures/import/simple.nav",
        "--agents",
        "20",
        "--radius",
        "0.25",
        "--seed",
        "3",
        "-o",
        random.to_str().unwrap(),
    ]);
    let loaded = Scenario::load(&random).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.agents.len(), 20);
    assert_eq!(loaded.avoidance.jam_release, 0.0);
    assert!(dir.join("simple-20.level.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_bad_input_exits_2_naming_the_file_and_line() {
    let dir = scratch("bad");
    let out = sidestep(&[
        "import",
        "movingai",
        "fixtures/bad-import/short-row.map",
        "-o",
        dir.join("x.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("fixtures/bad-import/short-row.map:6: row 1 has 3 cells"),
        "{stderr}"
    );
    assert!(!dir.join("x.json").exists());
    let out = sidestep(&[
        "import",
        "polyanya",
        "fixtures/bad-import/clockwise.mesh",
        "-o",
        dir.join("y.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_writes_the_avoidance_settings_asked_for_and_refuses_bad_ones() {
    let dir = scratch("avoidance");
    let scenario = dir.join("simple-release.json");
    sidestep_ok(&[
        "import",
        "menge",
        "fixtures/import/simple.nav",
        "--agents",
        "10",
        "--radius",
        "0.25",
        "--avoidance",
        r#"{"jam_release": 2, "orca": {"substeps": 4}}"#,
        "-o",
        scenario.to_str().unwrap(),
    ]);
    let loaded = Scenario::load(&scenario).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.avoidance.jam_release, 2.0);
    assert_eq!(loaded.avoidance.orca.substeps, 4);
    // The fields it does not name keep their defaults for the agents' radius.
    assert_eq!(
        loaded.avoidance.margin,
        sidestep::AvoidanceConfig::from_agent_radius(0.25).margin
    );
    for (bad, says) in [
        (r#"{"jam_relase": 2}"#, "unknown field `jam_relase`"),
        (
            r#"{"jam_release": 0.1}"#,
            "avoidance.jam_release = 0.1 is out of range",
        ),
        ("[2]", "is not a JSON object"),
        ("{", "is not JSON"),
    ] {
        let out = sidestep(&[
            "import",
            "menge",
            "fixtures/import/simple.nav",
            "--agents",
            "10",
            "--avoidance",
            bad,
            "-o",
            dir.join("bad.json").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{bad}: {stderr}");
        assert!(!dir.join("bad.json").exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
