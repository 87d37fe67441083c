//! Plans rails between random on-mesh points of a level and counts the outcomes: a check of the
//! path search and smoother on a real level beyond the fixtures' queries.
//!
//! `cargo run --release --example plan_census -- LEVEL.json COUNT [RADIUS]` draws COUNT pairs of
//! points (seeded, so the same command gives the same pairs) whose wall clearance is at least
//! the radius (default 0.4 m) plus 5 cm, plans a rail between each pair with
//! `NavMesh::plan_rail`, and prints how many were planned, how many were refused because the
//! rail would leave the mesh (`PlanError::LeavesMesh`, a path-search fault), how many failed
//! otherwise, how many planned rails come closer to a wall than the radius less 1 cm
//! (`too_close`), how many planned rails turn on the spot somewhere (`kinked`: the tangent turns by
//! more than 2.6° across a joint of two segments, where a rail must be G1), and the planned
//! rails' total length; each refused, too-close or kinked pair is printed first (`leaves_mesh
//! from=X,Y to=X,Y`, `too_close …`, `kinked …`, for `sidestep path`).

use sidestep::{DVec2, Level, PathOptions, PlanError};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, level, count, rest @ ..] = args.as_slice() else {
        return Err("usage: plan_census LEVEL.json COUNT [RADIUS]".into());
    };
    let level = Level::load(level)?;
    let count: usize = count.parse()?;
    let radius: f64 = rest.first().map_or(Ok(0.4), |r| r.parse())?;
    let mesh = level.navmesh();
    let (lo, hi) = mesh.bounds();
    // xorshift64 with a fixed seed: the pairs only need to be spread and repeatable.
    let mut state = 12345u64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut point = || loop {
        let p = DVec2::new(lo.x + (hi.x - lo.x) * unit(), lo.y + (hi.y - lo.y) * unit());
        if mesh.locate(p).is_some() && mesh.wall_distance(p) >= radius + 0.05 {
            return p;
        }
    };
    let options = PathOptions::from_agent_radius(radius);
    let (mut planned, mut leaves_mesh, mut failed, mut length) = (0, 0, 0, 0.0);
    let (mut too_close, mut kinked) = (0, 0);
    for _ in 0..count {
        let (from, to) = (point(), point());
        match mesh.plan_rail(from, to, &options) {
            Ok(rail) => {
                planned += 1;
                length += rail.length();
                let clearance = rail.clearance(mesh, 0.02);
                if clearance.distance < radius - 0.01 {
                    too_close += 1;
                    println!(
                        "too_close from={},{} to={},{} clearance={:.4} at={},{}",
                        from.x,
                        from.y,
                        to.x,
                        to.y,
                        clearance.distance,
                        clearance.point.x,
                        clearance.point.y
                    );
                }
                if let Some(s) = kink(&rail) {
                    kinked += 1;
                    println!(
                        "kinked from={},{} to={},{} at_s={s:.4}",
                        from.x, from.y, to.x, to.y
                    );
                }
            }
            Err(PlanError::LeavesMesh { .. }) => {
                leaves_mesh += 1;
                println!(
                    "leaves_mesh from={},{} to={},{}",
                    from.x, from.y, to.x, to.y
                );
            }
            Err(_) => failed += 1,
        }
    }
    println!(
        "level={} pairs={count} radius={radius} planned={planned} too_close={too_close} \
         kinked={kinked} leaves_mesh={leaves_mesh} failed={failed} total_length_m={length:.1}",
        level.name()
    );
    Ok(())
}

/// The arclength of the first joint of two segments where `rail`'s tangent turns by more than
/// 2.6° (cosine 0.999, as `tests/rail_properties.rs` asks of every rail), if any.
fn kink(rail: &sidestep::Rail) -> Option<f64> {
    (1..rail.segments().len())
        .map(|i| rail.segment_start(i))
        .find(|&s| rail.tangent(s - 1e-7).dot(rail.tangent(s + 1e-7)) <= 0.999)
}
