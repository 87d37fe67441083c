//! Feature `parallel`: `World::query_all` with every agent's first sweep computed ahead on
//! rayon's pool gives the same orders, bit for bit, as the sequential queries, frame after frame
//! in crowded random scenarios (a minimal host applies the orders to both worlds alike).
//!
//! (The fixture scenarios have fewer than 256 agents, below which `query_all` stays sequential,
//! so their snapshots do not exercise the feature; these two scenarios do.)
#![cfg(feature = "parallel")]

use std::sync::Arc;

use sidestep::{AgentKey, Level, Motion, Order, PlacementOptions, Scenario, World};

/// A minimal host: agents ride their rails at the ordered speed; a start moves them at once, a
/// stop halts them at once.
struct Host {
    keys: Vec<AgentKey>,
    s: Vec<f64>,
    speed: Vec<f64>,
    length: Vec<f64>,
}

impl Host {
    fn new(world: &mut World, scenario: &Scenario) -> Host {
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
        host
    }

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
            // Keys are in insertion order, which is the dense order here.
            let i = self.keys.binary_search(key).unwrap();
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

fn same_orders_with_and_without(level: &str, agents: usize, frames: usize) {
    let level = Arc::new(
        Level::load(format!(
            "{}/fixtures/levels/{level}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    );
    let options = PlacementOptions {
        agents,
        seed: 3,
        ..PlacementOptions::default()
    };
    let scenario = Scenario::random("parallel", level, &options).unwrap();
    let mut worlds = Vec::new();
    let mut hosts = Vec::new();
    for parallel in [false, true] {
        let mut world = World::new(scenario.level.clone(), scenario.avoidance).unwrap();
        world.set_parallel_detection(parallel);
        hosts.push(Host::new(&mut world, &scenario));
        worlds.push(world);
    }
    let (mut sequential, mut parallel) = (Vec::new(), Vec::new());
    let mut given = 0;
    for frame in 0..frames {
        hosts[0].frame(&mut worlds[0], &mut sequential, scenario.dt);
        hosts[1].frame(&mut worlds[1], &mut parallel, scenario.dt);
        // Debug prints every f64 so that it reads back to the same bits (and -0.0 as such).
        assert_eq!(
            format!("{sequential:?}"),
            format!("{parallel:?}"),
            "orders differ at frame {frame}"
        );
        given += sequential
            .iter()
            .filter(|(_, o)| !matches!(o, Order::Continue | Order::Wait { .. }))
            .count();
    }
    assert!(given > 0, "the scenario should give orders");
    for (a, b) in worlds[0].agents().zip(worlds[1].agents()) {
        assert_eq!(format!("{:?}", a.1.motion()), format!("{:?}", b.1.motion()));
    }
}

#[test]
fn plaza_300_orders_are_bit_identical() {
    same_orders_with_and_without("plaza", 300, 150);
}

#[test]
fn city_small_1000_orders_are_bit_identical() {
    same_orders_with_and_without("city-small", 1000, 60);
}
