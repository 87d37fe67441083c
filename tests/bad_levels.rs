//! Every class of bad level input is refused with a message naming the file, the level, the item
//! and the problem (DESIGN §5).

use sidestep::{Level, LevelError, LevelFile, LevelItem, LevelProblem};

/// (fixture in `fixtures/bad-levels/`, the exact message expected).
const CASES: &[(&str, &str)] = &[
    ("not-json", "fixtures/bad-levels/not-json.json: not a valid level (line 2, column 0): EOF while parsing a list"),
    ("unknown-field", "fixtures/bad-levels/unknown-field.json: not a valid level (line 1, column 27): unknown field `bondary`, expected one of `name`, `boundary`, `holes`, `vertices`, `polygons`"),
    ("number-out-of-range", "fixtures/bad-levels/number-out-of-range.json: not a valid level (line 1, column 45): number out of range"),
    ("too-few-vertices", "fixtures/bad-levels/too-few-vertices.json: level `sliver`: boundary has 2 vertices, at least 3 are needed"),
    ("collinear-boundary", "fixtures/bad-levels/collinear-boundary.json: level `flat`: boundary encloses no area (its vertices are collinear or repeated)"),
    ("self-intersecting-boundary", "fixtures/bad-levels/self-intersecting-boundary.json: level `bow-tie`: boundary edge 0 crosses edge 2"),
    ("self-intersecting-hole", "fixtures/bad-levels/self-intersecting-hole.json: level `twisted-hole`: hole 1 edge 0 crosses edge 2"),
    ("hole-outside", "fixtures/bad-levels/hole-outside.json: level `stray-hole`: hole 1 lies entirely outside the boundary"),
    ("hole-covers-all", "fixtures/bad-levels/hole-covers-all.json: level `all-hole`: level has no walkable area left once the holes are cut out"),
    ("mixed-forms", "fixtures/bad-levels/mixed-forms.json: level `both`: level gives both an outline (`boundary`) and explicit polygons (`vertices`/`polygons`); use one form"),
    ("missing-shape", "fixtures/bad-levels/missing-shape.json: level `empty`: level gives neither `boundary` nor `vertices` and `polygons`"),
    ("vertices-without-polygons", "fixtures/bad-levels/vertices-without-polygons.json: level `half`: level gives `vertices` without `polygons`"),
    ("clockwise-polygon", "fixtures/bad-levels/clockwise-polygon.json: level `clockwise`: polygon 1 is clockwise, polygons must list their vertices counter-clockwise"),
    ("degenerate-polygon", "fixtures/bad-levels/degenerate-polygon.json: level `flat-polygon`: polygon 0 encloses no area (its vertices are collinear or repeated)"),
    ("index-out-of-range", "fixtures/bad-levels/index-out-of-range.json: level `bad-index`: polygon 0 corner 2 refers to vertex 7, but there are only 4 vertices"),
    ("not-convex", "fixtures/bad-levels/not-convex.json: level `dent`: polygon 0 corner 2 is not convex (reflex turn at this corner)"),
    ("repeated-vertex", "fixtures/bad-levels/repeated-vertex.json: level `repeat`: polygon 0 corner 3 uses vertex 1 twice"),
    ("overlapping-polygons", "fixtures/bad-levels/overlapping-polygons.json: level `overlap`: polygon 1 corner 0 overlaps polygon 0 (they traverse the shared edge (0, 1) in the same direction)"),
    ("wrong-type", "fixtures/bad-levels/wrong-type.json: not a valid level (line 1, column 47): invalid type: string \"square\", expected a sequence"),
    ("missing-name", "fixtures/bad-levels/missing-name.json: not a valid level (line 1, column 48): missing field `name`"),
    ("empty-file", "fixtures/bad-levels/empty-file.json: not a valid level (line 1, column 0): EOF while parsing a value"),
    ("empty-boundary", "fixtures/bad-levels/empty-boundary.json: level `nothing`: boundary has 0 vertices, at least 3 are needed"),
    ("empty-mesh", "fixtures/bad-levels/empty-mesh.json: level `no-polygons`: level has no polygons (`polygons` is empty), so nothing is walkable"),
    ("negative-index", "fixtures/bad-levels/negative-index.json: not a valid level (line 1, column 90): invalid value: integer `-2`, expected usize"),
    // Found by the `level_parser` fuzz target: crossing holes on which the triangulator
    // (spade's `add_constraint_and_split`) panics; the panic is caught and reported.
    ("triangulator-failure", "fixtures/bad-levels/triangulator-failure.json: level `fuzzed-plaza`: level could not be triangulated: the triangulator failed on this outline"),
    ("too-few-polygon-vertices", "fixtures/bad-levels/too-few-polygon-vertices.json: level `two-corners`: polygon 0 has 2 vertices, at least 3 are needed"),
];

#[test]
fn every_bad_level_fixture_gives_its_message() {
    let mut failures = Vec::new();
    for (name, expected) in CASES {
        let path = format!("fixtures/bad-levels/{name}.json");
        match Level::load(&path) {
            Ok(_) => failures.push(format!("{name}: loaded, expected an error")),
            Err(e) if e.to_string() != *expected => {
                failures.push(format!("{name}:\n  got      {e}\n  expected {expected}"))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_bad_level_fixture_is_covered() {
    let mut files: Vec<String> = std::fs::read_dir("fixtures/bad-levels")
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".json")
                .to_owned()
        })
        .collect();
    files.sort();
    let mut named: Vec<String> = CASES.iter().map(|c| c.0.to_owned()).collect();
    named.sort();
    assert_eq!(files, named);
}

#[test]
fn missing_file_names_the_file() {
    let e = Level::load("fixtures/levels/no-such-level.json").unwrap_err();
    assert!(matches!(e, LevelError::Io { .. }));
    assert!(e
        .to_string()
        .starts_with("fixtures/levels/no-such-level.json: cannot read the level file"));
}

#[test]
fn nan_coordinates_are_named() {
    // JSON cannot spell NaN, but a level built in code can.
    let file = LevelFile {
        name: "nan".into(),
        boundary: Some(vec![[0., 0.], [4., 0.], [f64::NAN, 4.]]),
        ..Default::default()
    };
    let e = Level::from_file(file, "<code>").unwrap_err();
    assert_eq!(
        e.to_string(),
        "<code>: level `nan`: boundary vertex 2 has a coordinate that is not a finite number"
    );
    assert_eq!(
        e.invalid(),
        Some((
            &LevelItem::Boundary { vertex: Some(2) },
            &LevelProblem::NonFinite
        ))
    );

    let file = LevelFile {
        name: "nan-hole".into(),
        boundary: Some(vec![[0., 0.], [4., 0.], [4., 4.]]),
        holes: vec![vec![[1., 1.], [2., 1.], [1.5, f64::INFINITY]]],
        ..Default::default()
    };
    let e = Level::from_file(file, "<code>").unwrap_err();
    assert_eq!(
        e.to_string(),
        "<code>: level `nan-hole`: hole 0 vertex 2 has a coordinate that is not a finite number"
    );

    let file = LevelFile {
        name: "nan-vertex".into(),
        vertices: Some(vec![[0., 0.], [4., 0.], [4., f64::NAN]]),
        polygons: Some(vec![vec![0, 1, 2]]),
        ..Default::default()
    };
    let e = Level::from_file(file, "<code>").unwrap_err();
    assert_eq!(
        e.to_string(),
        "<code>: level `nan-vertex`: vertex 2 has a coordinate that is not a finite number"
    );
}

#[test]
fn cli_exits_2_with_the_message_for_every_bad_level_fixture() {
    let mut failures = Vec::new();
    for (name, expected) in CASES {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sidestep"))
            .args(["path", &format!("fixtures/bad-levels/{name}.json")])
            .args(["--from", "1,1", "--to", "2,2"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("the sidestep binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(2)
            || stderr.trim_end() != format!("sidestep: {expected}")
            || !out.stdout.is_empty()
        {
            failures.push(format!("{name}: exit {:?}, stderr {stderr}", out.status));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
