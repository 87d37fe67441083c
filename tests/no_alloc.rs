//! A steady-state frame of the avoidance update allocates nothing (DESIGN §4): a counting
//! global allocator (this thread's allocations only) around `begin_frame` + `set_motion` +
//! `query_all`, and for free agents `steer_all` + `set_free_motion`. The world's lazily built
//! state (the level's nearest-wall candidate grid, the sweep buffers, with the feature
//! `parallel` the answers computed ahead) is built during the warm-up. With `parallel` and 256
//! agents or more, rayon's job queue may allocate a block now and then (not in this 16-agent
//! scenario, which stays sequential).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use sidestep::{AgentKey, DVec2, Motion, Order, Scenario, World};

struct Counting;

thread_local! {
    /// Count only this thread's allocations: the test harness's own threads allocate too, and
    /// so do the other tests of this file, run beside it.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

/// This thread's allocations counted so far.
fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A minimal host: agents ride their rails at the ordered speed; a stop halts them at once.
struct Host {
    keys: Vec<AgentKey>,
    s: Vec<f64>,
    speed: Vec<f64>,
    length: Vec<f64>,
}

impl Host {
    fn frame(&mut self, world: &mut World, orders: &mut Vec<(AgentKey, Order)>, dt: f64) {
        world.begin_frame(dt);
        for i in 0..self.keys.len() {
            let motion = if self.speed[i] > 0.0 && self.s[i] < self.length[i] {
                Motion::moving(self.s[i], self.speed[i])
            } else {
                Motion::standing(self.s[i])
            };
            world.set_motion(self.keys[i], motion).unwrap();
        }
        world.query_all(orders);
        for (key, order) in orders.iter() {
            let i = self.keys.iter().position(|k| k == key).unwrap();
            match order {
                Order::ChangeSpeed { speed } | Order::Start { speed } => self.speed[i] = *speed,
                Order::Stop { .. } => self.speed[i] = 0.0,
                Order::Reroute { rail, .. } => {
                    self.s[i] = 0.0;
                    self.length[i] = rail.length();
                }
                _ => {}
            }
        }
        for i in 0..self.keys.len() {
            self.s[i] = (self.s[i] + self.speed[i] * dt).min(self.length[i]);
        }
    }
}

#[test]
fn a_steady_state_frame_allocates_nothing() {
    let scenario = Scenario::load("fixtures/scenarios/crossroads-4-way.json").unwrap();
    let mut world = World::new(scenario.level.clone(), scenario.avoidance).unwrap();
    let mut host = Host {
        keys: Vec::new(),
        s: Vec::new(),
        speed: Vec::new(),
        length: Vec::new(),
    };
    for agent in &scenario.agents {
        let key = world.add_agent(agent.desc.clone()).unwrap();
        let rail = agent.rail.clone().unwrap();
        host.length.push(rail.length());
        world.set_rail(key, rail).unwrap();
        host.keys.push(key);
        host.s.push(0.0);
        host.speed.push(0.0);
    }
    let mut orders = Vec::with_capacity(scenario.agents.len());
    // Warm up: buffers grow to their working size.
    for _ in 0..120 {
        host.frame(&mut world, &mut orders, scenario.dt);
    }
    let mut worst = 0;
    COUNTING.with(|c| c.set(true));
    for _ in 0..60 {
        let before = allocations();
        host.frame(&mut world, &mut orders, scenario.dt);
        worst = worst.max(allocations() - before);
    }
    assert!(
        host.speed.iter().any(|&v| v > 0.0),
        "agents should be moving"
    );
    assert_eq!(worst, 0, "allocations in a steady-state frame");
}

/// Free agents walking apart in the open (`open-field`, four ORCA agents 3 m apart on parallel
/// ways): once the buffers have grown, `steer_all` allocates nothing. It allocated once a frame
/// (its scratch taken, and a fresh empty obstacle map made in its place) until session 47.
/// Not covered: a free agent planning its path again (strayed out of sight of its next corner)
/// allocates in the planner (mixed-crossing: 99 allocations in one frame at 10 s).
#[test]
fn a_steady_state_frame_of_free_agents_in_the_open_allocates_nothing() {
    let text = serde_json::json!({
        "name": "free-walkers",
        "level": "../levels/open-field.json",
        "dt": 1.0 / 30.0, "duration": 30.0,
        "agents": (0..4).map(|i| serde_json::json!({
            "start": [3.0, 5.0 + 3.0 * f64::from(i)], "goal": [27.0, 5.0 + 3.0 * f64::from(i)],
            "radius": 0.4, "speeds": [0.8, 1.4, 2.6], "speed": 1.4, "mode": "orca"
        })).collect::<Vec<_>>()
    })
    .to_string();
    let base =
        std::path::PathBuf::from(format!("{}/fixtures/scenarios", env!("CARGO_MANIFEST_DIR")));
    let scenario = Scenario::from_json(&text, "free-walkers", Some(&base)).unwrap();
    let mut world = World::new(scenario.level.clone(), scenario.avoidance).unwrap();
    let mut free = Vec::new();
    for agent in &scenario.agents {
        let key = world.add_agent(agent.desc.clone()).unwrap();
        world.set_goal(key, agent.goal.unwrap()).unwrap();
        free.push((key, agent.desc.position));
    }
    let mut orders = Vec::with_capacity(4);
    let mut steers = Vec::with_capacity(4);
    let dt = scenario.dt;
    let mut frame = |world: &mut World, free: &mut Vec<(AgentKey, DVec2)>| {
        world.begin_frame(dt);
        world.query_all(&mut orders);
        world.steer_all(dt, &mut steers);
        for (steer, f) in steers.iter().zip(free.iter_mut()) {
            f.1 += steer.velocity * dt;
            world.set_free_motion(f.0, f.1, steer.velocity).unwrap();
        }
    };
    for _ in 0..30 {
        frame(&mut world, &mut free);
    }
    let mut worst = 0;
    COUNTING.with(|c| c.set(true));
    for _ in 0..60 {
        let before = allocations();
        frame(&mut world, &mut free);
        worst = worst.max(allocations() - before);
    }
    COUNTING.with(|c| c.set(false));
    assert!(free.iter().all(|f| f.1.x > 6.0), "walking: {free:?}");
    assert_eq!(
        worst, 0,
        "allocations in a steady-state frame of free agents"
    );
}
