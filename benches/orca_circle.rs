//! ORCA side by side with `dodgy_2d` 0.5.5 on the reference library's Circle example (issue 5):
//! N agents of radius 1.5 m on a circle of radius 200 m (N = 250) or 0.8 × N m (N = 1,000 and
//! 5,000, the spacing of the example), each walking to the antipodal point; preferred velocity
//! the unit vector to the goal (the goal vector within 1 m), max speed 2 m/s, neighbour distance
//! 15 m, at most 10 neighbours, time horizon 10 s, dt 0.25 s, one substep (numbers from
//! `../shared/data/rvo2/rvo2_examples_params.json`).
//!
//! Our world plays the scenario for 0.7 × the circle radius seconds (560 frames at N = 250),
//! when agents would have walked 70% of the way in: the ring has closed up into a band two or
//! three agents deep, the same locally at every N, where most agents are avoiding someone. On
//! that state, each iteration times one step of each solver:
//! - `sidestep/N`: `World::steer_all` (neighbour grid, nearest neighbours, path following, the
//!   ORCA half-planes and linear program, the mesh guard), on a clone of the world that has been
//!   given the frame's positions and velocities (the clone and the reports are not timed);
//! - `sidestep_pass_right/N`: the same with our defaults [`OrcaConfig::pass_right_degrees`]
//!   and [`OrcaConfig::radius_margin`] (RVO2 has neither, so the two cases above run without
//!   them), from its own warm-up;
//! - `dodgy_2d/N`: what a `dodgy_2d` user writes, since the crate leaves the neighbour search to
//!   its caller (its own `Simulator` is an O(N²) demo): a `kiddo` k-d tree built over the
//!   positions, the 10 nearest within 15 m of each agent, then
//!   `Agent::compute_avoiding_velocity` for each (f32, as the crate is).
//!
//! Both start from the same positions and velocities (ours rounded to f32 for dodgy). Criterion's
//! time per iteration divided by N is the cost per agent-step; its throughput line gives agent-
//! steps per second. Setup prints the state (mean neighbours within 15 m, closest pair, share of
//! agents whose new velocity is not their preferred one) and how far apart the two solvers'
//! answers are.
//!
//! `ORCA_CIRCLE_AGENTS=250,1000 cargo bench --bench orca_circle` runs only those counts (the
//! 5,000-agent warm-up takes a while).

use std::borrow::Cow;
use std::hint::black_box;
use std::num::NonZero;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use kiddo::{KdTree, SquaredEuclidean};
use sidestep::{
    AgentDesc, AgentKey, AvoidanceConfig, DVec2, Level, Locomotion, OrcaConfig, Steer, World,
};

/// Agent counts.
const CASES: [usize; 3] = [250, 1_000, 5_000];
/// Circle example numbers.
const RADIUS: f64 = 1.5;
const MAX_SPEED: f64 = 2.0;
const PREFERRED_SPEED: f64 = 1.0;
const NEIGHBOUR_DISTANCE: f64 = 15.0;
const MAX_NEIGHBOURS: usize = 10;
const TIME_HORIZON: f64 = 10.0;
const DT: f64 = 0.25;

/// Radius of the circle the agents start on, metres.
fn circle_radius(agents: usize) -> f64 {
    if agents == 250 {
        200.0
    } else {
        0.8 * agents as f64
    }
}

/// The Circle state after the warm-up: our world (positions reported) and each agent's position,
/// velocity and goal.
struct CircleState {
    world: World,
    keys: Vec<AgentKey>,
    positions: Vec<DVec2>,
    velocities: Vec<DVec2>,
    goals: Vec<DVec2>,
}

impl CircleState {
    /// The state after the warm-up, played with `pass_right_degrees` and `radius_margin` (both 0
    /// for RVO2's own rule).
    fn new(agents: usize, pass_right_degrees: f64, radius_margin: f64) -> CircleState {
        let r = circle_radius(agents);
        let half = r + 30.0;
        let level = Level::from_json(
            &format!(
                r#"{{"name": "circle-{agents}", "boundary": [[-{half}, -{half}], [{half}, -{half}], [{half}, {half}], [-{half}, {half}]]}}"#
            ),
            "orca_circle bench",
        )
        .expect("the square level loads");
        let config = AvoidanceConfig {
            orca: OrcaConfig {
                time_horizon: TIME_HORIZON,
                obstacle_time_horizon: TIME_HORIZON,
                neighbour_distance: NEIGHBOUR_DISTANCE,
                max_neighbours: MAX_NEIGHBOURS,
                substeps: 1,
                pass_right_degrees,
                radius_margin,
            },
            ..AvoidanceConfig::default()
        };
        let mut world = World::new(Arc::new(level), config).expect("valid config");
        let mut keys = Vec::with_capacity(agents);
        let mut positions = Vec::with_capacity(agents);
        let mut goals = Vec::with_capacity(agents);
        for i in 0..agents {
            let angle = i as f64 * std::f64::consts::TAU / agents as f64;
            let start = r * DVec2::from_angle(angle);
            let mut desc = AgentDesc::with_speeds(RADIUS, &[PREFERRED_SPEED, MAX_SPEED], 1.0);
            desc.locomotion = Locomotion::Orca;
            desc.position = start;
            let key = world.add_agent(desc).expect("apart on the circle");
            world.set_goal(key, -start).expect("goal on the level");
            keys.push(key);
            positions.push(start);
            goals.push(-start);
        }
        let mut state = CircleState {
            world,
            keys,
            positions,
            velocities: vec![DVec2::ZERO; agents],
            goals,
        };
        let frames = (0.7 * r / PREFERRED_SPEED / DT).round() as usize;
        let mut steers = Vec::new();
        for _ in 0..frames {
            state.report();
            state.world.steer_all(DT, &mut steers);
            for (i, s) in steers.iter().enumerate() {
                debug_assert_eq!(s.key, state.keys[i]);
                state.velocities[i] = s.velocity;
                state.positions[i] += s.velocity * DT;
            }
        }
        state.report();
        state
    }

    /// Begin a frame and report every agent's position and velocity to the world.
    fn report(&mut self) {
        self.world.begin_frame(DT);
        for ((&key, &p), &v) in self.keys.iter().zip(&self.positions).zip(&self.velocities) {
            self.world
                .set_free_motion(key, p, v)
                .expect("agents stay on the level");
        }
    }

    fn dodgy_agents(&self) -> Vec<dodgy_2d::Agent> {
        self.positions
            .iter()
            .zip(&self.velocities)
            .map(|(p, v)| dodgy_2d::Agent {
                position: dodgy_2d::Vec2::new(p.x as f32, p.y as f32),
                velocity: dodgy_2d::Vec2::new(v.x as f32, v.y as f32),
                radius: RADIUS as f32,
                avoidance_responsibility: 0.5,
            })
            .collect()
    }

    /// RVO2's preferred velocity: the unit vector to the goal, or the goal vector within 1 m.
    fn dodgy_preferred(&self) -> Vec<dodgy_2d::Vec2> {
        self.positions
            .iter()
            .zip(&self.goals)
            .map(|(p, g)| {
                let to = *g - *p;
                let v = if to.length() > 1.0 {
                    to.normalize()
                } else {
                    to
                };
                dodgy_2d::Vec2::new(v.x as f32, v.y as f32)
            })
            .collect()
    }
}

/// One `dodgy_2d` step over all agents: k-d tree, nearest neighbours, solver; the new velocities
/// go into `out`.
fn dodgy_step(
    agents: &[dodgy_2d::Agent],
    preferred: &[dodgy_2d::Vec2],
    out: &mut Vec<dodgy_2d::Vec2>,
) {
    let options = dodgy_2d::AvoidanceOptions {
        obstacle_margin: 0.0,
        time_horizon: TIME_HORIZON as f32,
        obstacle_time_horizon: TIME_HORIZON as f32,
    };
    let mut tree: KdTree<f32, 2> = KdTree::with_capacity(agents.len());
    for (i, a) in agents.iter().enumerate() {
        tree.add(&[a.position.x, a.position.y], i as u64);
    }
    // The agent itself is among its nearest.
    let wanted = NonZero::new(MAX_NEIGHBOURS + 1).expect("not zero");
    let range_sq = (NEIGHBOUR_DISTANCE * NEIGHBOUR_DISTANCE) as f32;
    let mut neighbours: Vec<Cow<'_, dodgy_2d::Agent>> = Vec::with_capacity(MAX_NEIGHBOURS);
    out.clear();
    for (i, a) in agents.iter().enumerate() {
        neighbours.clear();
        let near = tree.nearest_n_within::<SquaredEuclidean>(
            &[a.position.x, a.position.y],
            range_sq,
            wanted,
            true,
        );
        neighbours.extend(
            near.iter()
                .filter(|n| n.item as usize != i)
                .take(MAX_NEIGHBOURS)
                .map(|n| Cow::Borrowed(&agents[n.item as usize])),
        );
        out.push(a.compute_avoiding_velocity(
            &neighbours,
            &[],
            preferred[i],
            MAX_SPEED as f32,
            DT as f32,
            &options,
        ));
    }
}

/// Mean number of other agents within the neighbour distance, and the closest centre distance.
fn crowding(positions: &[DVec2]) -> (f64, f64) {
    let mut within = 0usize;
    let mut closest = f64::INFINITY;
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by(|&i, &j| positions[i].x.total_cmp(&positions[j].x));
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if positions[j].x - positions[i].x > NEIGHBOUR_DISTANCE {
                break;
            }
            let d = positions[i].distance(positions[j]);
            closest = closest.min(d);
            if d < NEIGHBOUR_DISTANCE {
                within += 2;
            }
        }
    }
    (within as f64 / positions.len() as f64, closest)
}

/// Times one `World::steer_all` on a fresh clone of the state's world (the clone not timed).
fn steer_step(b: &mut criterion::Bencher, state: &CircleState) {
    let mut out = Vec::with_capacity(state.keys.len());
    b.iter_batched_ref(
        || state.world.clone(),
        |world| {
            world.steer_all(DT, &mut out);
            black_box(&out);
        },
        BatchSize::LargeInput,
    )
}

fn bench_orca_circle(c: &mut Criterion) {
    let mut group = c.benchmark_group("orca_circle");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let cases: Vec<usize> = match std::env::var("ORCA_CIRCLE_AGENTS") {
        Ok(list) => list
            .split(',')
            .map(|n| {
                n.trim()
                    .parse()
                    .expect("ORCA_CIRCLE_AGENTS: counts separated by commas")
            })
            .collect(),
        Err(_) => CASES.to_vec(),
    };
    for agents in cases {
        // RVO2 has no rule to pass on the right: off here, so that both solvers get the same
        // preferred velocities and give the same answers.
        let state = CircleState::new(agents, 0.0, 0.0);
        let dodgy = state.dodgy_agents();
        let preferred = state.dodgy_preferred();
        // How the two answers compare on this state (not timed).
        let mut ours: Vec<Steer> = Vec::new();
        state.world.clone().steer_all(DT, &mut ours);
        let mut theirs = Vec::new();
        dodgy_step(&dodgy, &preferred, &mut theirs);
        let mean_difference = ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| a.velocity.distance(DVec2::new(b.x as f64, b.y as f64)))
            .sum::<f64>()
            / agents as f64;
        let constrained = ours
            .iter()
            .filter(|s| s.velocity.distance(s.preferred) > 0.01 * PREFERRED_SPEED)
            .count() as f64
            / agents as f64;
        let (neighbours, closest) = crowding(&state.positions);
        eprintln!(
            "orca_circle/{agents}: {neighbours:.1} agents within 15 m on average, closest pair \
             {closest:.2} m apart (2r = 3), {:.0}% of agents off their preferred velocity; \
             mean |v_sidestep - v_dodgy| {mean_difference:.1e} m/s",
            100.0 * constrained
        );

        group.throughput(Throughput::Elements(agents as u64));
        group.bench_with_input(BenchmarkId::new("sidestep", agents), &state, steer_step);
        group.bench_with_input(BenchmarkId::new("dodgy_2d", agents), &dodgy, |b, dodgy| {
            let mut out = Vec::with_capacity(agents);
            b.iter(|| {
                dodgy_step(black_box(dodgy), &preferred, &mut out);
                black_box(&out);
            })
        });
        // Our defaults, passing on the right with the radius margin, from their own warm-up (the
        // band it reaches differs).
        let defaults = OrcaConfig::default();
        let passing = CircleState::new(agents, defaults.pass_right_degrees, defaults.radius_margin);
        group.bench_with_input(
            BenchmarkId::new("sidestep_pass_right", agents),
            &passing,
            steer_step,
        );
    }
    group.finish();
}

criterion_group!(benches, bench_orca_circle);
criterion_main!(benches);
