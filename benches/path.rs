//! Path queries on the `plaza` fixture (60 m × 60 m, 28 obstacles): A* + funnel, and the full
//! rail plan (path + smoothing, left turns kept wide, lanes), and the same plan taut
//! (`keep_right` 0: no wide turns, no lanes). Target: a path query across plaza in ≤ 50 µs.
//! Also point location and the wall-clearance check of straight segments, two kernels of the
//! bends' validation.

use criterion::{criterion_group, criterion_main, Criterion};
use sidestep::{DVec2, Level, PathOptions};
use std::hint::black_box;

fn plaza() -> Level {
    Level::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/levels/plaza.json"
    ))
    .expect("plaza loads")
}

fn bench_paths(c: &mut Criterion) {
    let level = plaza();
    let mesh = level.navmesh();
    let options = PathOptions::from_agent_radius(0.4);
    // Corner to corner and across the middle: the longest queries on the level.
    let queries = [
        (DVec2::new(1.0, 1.0), DVec2::new(59.0, 59.0)),
        (DVec2::new(1.0, 59.0), DVec2::new(59.0, 1.0)),
        (DVec2::new(1.0, 30.0), DVec2::new(59.0, 31.0)),
    ];
    for (from, to) in queries {
        mesh.find_path(from, to, &options)
            .expect("plaza is connected");
    }
    c.bench_function("path_across_plaza", |b| {
        let mut i = 0;
        b.iter(|| {
            let (from, to) = queries[i % queries.len()];
            i += 1;
            black_box(
                mesh.find_path(black_box(from), black_box(to), &options)
                    .unwrap(),
            )
        })
    });
    // The plan as agents get it (left turns kept wide, lanes), and taut (`keep_right` 0).
    let taut = PathOptions {
        keep_right: 0.0,
        ..options
    };
    for (name, options) in [
        ("rail_plan_across_plaza", options),
        ("rail_plan_across_plaza_taut", taut),
    ] {
        c.bench_function(name, |b| {
            let mut i = 0;
            b.iter(|| {
                let (from, to) = queries[i % queries.len()];
                i += 1;
                black_box(
                    mesh.plan_rail(black_box(from), black_box(to), &options)
                        .unwrap(),
                )
            })
        });
    }
    c.bench_function("locate_on_plaza", |b| {
        let mut i = 0u32;
        b.iter(|| {
            i = i.wrapping_add(1);
            let p = DVec2::new((i % 59) as f64 + 0.5, ((i / 59) % 59) as f64 + 0.5);
            black_box(mesh.locate(black_box(p)))
        })
    });
    // The wall-clearance check of straight lines (a bend's reconnection lines): 2–6 m segments
    // over the level, clearance 0.4 m (docs/PERFORMANCE.md, session 40).
    let segments: Vec<(DVec2, DVec2)> = (0..64u32)
        .map(|k| {
            let a = DVec2::new(
                f64::from((k * 37) % 59) + 0.5,
                f64::from((k * 23) % 59) + 0.5,
            );
            let angle = f64::from(k) * 2.4;
            let length = 2.0 + f64::from(k % 5);
            (a, a + DVec2::new(angle.cos(), angle.sin()) * length)
        })
        .collect();
    c.bench_function("segment_clearance_on_plaza", |b| {
        let mut i = 0;
        b.iter(|| {
            let (a, to) = segments[i % segments.len()];
            i += 1;
            black_box(mesh.segment_keeps_clearance(black_box(a), black_box(to), 0.4))
        })
    });
}

criterion_group!(benches, bench_paths);
criterion_main!(benches);
