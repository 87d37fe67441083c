//! A steady-state frame of the avoidance update allocates nothing (DESIGN §4): a counting
//! global allocator around `begin_frame` + `set_motion` + `query_all`. The world's lazily built
//! state (the level's nearest-wall candidate grid, the sweep buffers, with the feature
//! `parallel` the answers computed ahead) is built during the warm-up. With `parallel` and 256
//! agents or more, rayon's job queue may allocate a block now and then (not in this 16-agent
//! scenario, which stays sequential).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use sidestep::{AgentKey, Motion, Order, Scenario, World};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Count only this thread's allocations: the test harness's own threads allocate too.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
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
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        host.frame(&mut world, &mut orders, scenario.dt);
        worst = worst.max(ALLOCATIONS.load(Ordering::Relaxed) - before);
    }
    assert!(
        host.speed.iter().any(|&v| v > 0.0),
        "agents should be moving"
    );
    assert_eq!(worst, 0, "allocations in a steady-state frame");
}
