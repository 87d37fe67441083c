//! Snapshots of the rails planned for a fixed set of queries on every fixture level (coordinates
//! rounded to millimetres), so any change in paths or smoothing shows up in review.

mod common;

use common::{point_with_clearance, SplitMix};
use serde_json::{json, Value};
use sidestep::{DVec2, Level, PathOptions};

fn mm(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

fn xy(p: DVec2) -> Value {
    json!([mm(p.x), mm(p.y)])
}

#[test]
fn rails_on_fixture_levels() {
    insta::glob!("../fixtures/levels", "*.json", |path| {
        let level = Level::load(path).unwrap();
        let mesh = level.navmesh();
        let mut rng = SplitMix(7);
        let mut queries = Vec::new();
        for _ in 0..4 {
            let from = point_with_clearance(&level, &mut rng, 0.4);
            let to = point_with_clearance(&level, &mut rng, 0.4);
            let path = mesh
                .find_path(from, to, &PathOptions::from_agent_radius(0.4))
                .unwrap();
            let rail = sidestep::smooth_path(&path).unwrap();
            let segments: Vec<Value> = rail
                .segments()
                .iter()
                .map(|s| Value::Array(s.control_points().into_iter().map(xy).collect()))
                .collect();
            queries.push(json!({
                "from": xy(from),
                "to": xy(to),
                "corners": path.points().into_iter().map(xy).collect::<Vec<_>>(),
                "rail_length": mm(rail.length()),
                "segments": segments,
            }));
        }
        let summary = json!({
            "level": level.name(),
            "polygons": mesh.polygon_count(),
            "walls": mesh.boundary_edges().count(),
            "area": mm(mesh.area()),
            "queries": queries,
        });
        insta::assert_json_snapshot!(summary);
    });
}
