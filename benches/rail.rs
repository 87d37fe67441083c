//! Benchmarks of rail sampling: the cursor sweep the detector runs, random access, and kurbo's
//! `inv_arclen` as the baseline the arclength table replaces.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kurbo::{CubicBez, ParamCurve, ParamCurveArclen};
use sidestep::{DVec2, Rail, RailSegment};

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

/// A corridor-like rail of 10 segments, about 40 m: straights joined by quadratic corners,
/// an S-bend of two cubics (one with a doubled start control point) and a final curve.
fn realistic_rail() -> Rail {
    Rail::new(vec![
        RailSegment::line(v(0.0, 0.0), v(6.0, 0.0)),
        RailSegment::quad(v(6.0, 0.0), v(8.0, 0.0), v(8.0, 2.0)),
        RailSegment::line(v(8.0, 2.0), v(8.0, 7.0)),
        RailSegment::quad(v(8.0, 7.0), v(8.0, 9.0), v(6.0, 9.0)),
        RailSegment::line(v(6.0, 9.0), v(2.0, 9.0)),
        RailSegment::cubic(v(2.0, 9.0), v(2.0, 9.0), v(-1.0, 9.0), v(-1.0, 12.0)),
        RailSegment::cubic(v(-1.0, 12.0), v(-1.0, 15.0), v(4.0, 13.0), v(5.0, 16.0)),
        RailSegment::line(v(5.0, 16.0), v(6.0, 19.0)),
        RailSegment::quad(v(6.0, 19.0), v(7.0, 22.0), v(10.0, 22.0)),
        RailSegment::cubic(v(10.0, 22.0), v(13.0, 22.0), v(15.0, 18.0), v(18.0, 19.0)),
    ])
    .expect("valid rail")
}

fn benches(c: &mut Criterion) {
    let rail = realistic_rail();
    let step = 0.4;
    let n = (rail.length() / step) as usize + 1;

    let mut group = c.benchmark_group("rail");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("rail_position_monotone_sweep", |b| {
        b.iter(|| {
            let mut cursor = rail.cursor();
            let mut acc = DVec2::ZERO;
            for i in 0..n {
                acc += cursor.position(black_box(i as f64 * step));
            }
            acc
        })
    });
    group.bench_function("rail_sample_monotone_sweep", |b| {
        b.iter(|| {
            let mut cursor = rail.cursor();
            let mut acc = 0.0;
            for i in 0..n {
                acc += cursor.sample(black_box(i as f64 * step)).curvature;
            }
            acc
        })
    });

    // Pseudo-random arclengths (golden-ratio sequence), precomputed.
    let random: Vec<f64> = (0..1024)
        .map(|i| (i as f64 * 0.618_033_988_749_895).fract() * rail.length())
        .collect();
    group.throughput(Throughput::Elements(random.len() as u64));
    group.bench_function("rail_position_random_access", |b| {
        b.iter(|| {
            let mut acc = DVec2::ZERO;
            for &s in &random {
                acc += rail.position(black_box(s));
            }
            acc
        })
    });
    group.finish();

    // Baseline: kurbo's inverse arclength on one curved segment (the S-bend cubic, ~7 m).
    let cubic = CubicBez::new((-1.0, 12.0), (-1.0, 15.0), (4.0, 13.0), (5.0, 16.0));
    let len = cubic.arclen(1e-9);
    let mut group = c.benchmark_group("baseline");
    for accuracy in [1e-9, 1e-4] {
        let ss: Vec<f64> = (0..16).map(|i| (i as f64 + 0.5) / 16.0 * len).collect();
        group.throughput(Throughput::Elements(ss.len() as u64));
        group.bench_function(format!("kurbo_inv_arclen_{accuracy:e}"), |b| {
            b.iter(|| {
                let mut acc = 0.0;
                for &s in &ss {
                    let t = cubic.inv_arclen(black_box(s), accuracy);
                    acc += cubic.eval(t).x;
                }
                acc
            })
        });
    }
    group.finish();

    c.bench_function("rail_build", |b| b.iter(|| realistic_rail().length()));
}

criterion_group!(rail_benches, benches);
criterion_main!(rail_benches);
