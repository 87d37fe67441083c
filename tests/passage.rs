//! Turns through single-lane stretches (docs/ALGORITHM.md, "Single-lane stretches"), on the
//! fixture scenarios of two agents meeting in a corridor one agent wide.

use sidestep::{DVec2, Order, RerouteReason, Scenario, Simulation, StopCause};

fn fixture(name: &str) -> Scenario {
    Scenario::load(format!(
        "{}/fixtures/scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_second_agent_waits_outside_a_corridor_the_first_is_in() {
    // long-corridor: a 1 m corridor from x = 6 to 26 (y 2.5 to 3.5) between two rooms; agent 0
    // comes from the west, agent 1 from the east, both at 1.4 m/s. Agent 0 is first to its
    // entry (ties go to the lower key): agent 1 never enters while agent 0 is inside, and
    // waits off agent 0's way out.
    let mut sim = Simulation::new(&fixture("long-corridor-head-on")).unwrap();
    let in_corridor = |p: DVec2| (6.0..=26.0).contains(&p.x) && (2.5..=3.5).contains(&p.y);
    let mut both_inside = 0;
    let mut aside_while_passing = false;
    while !sim.finished() {
        sim.step();
        let (first, second) = (sim.agents()[0].position, sim.agents()[1].position);
        both_inside += usize::from(in_corridor(first) && in_corridor(second));
        if first.x > 24.0 && first.x < 29.0 {
            // Agent 0 comes out: agent 1 stands clear of its line.
            aside_while_passing |= (second.y - 3.0).abs() > 0.9;
        }
    }
    assert_eq!(both_inside, 0);
    assert!(aside_while_passing);
    // Agent 1's one stop is the turn's, short of the corridor; nobody stopped for a collision.
    let stops: Vec<_> = sim
        .log
        .iter()
        .filter_map(|r| match &r.order {
            Order::Stop { cause } => Some((r.agent, *cause)),
            _ => None,
        })
        .collect();
    assert_eq!(stops.len(), 1, "{stops:?}");
    assert_eq!(stops[0].0, 1);
    assert!(matches!(stops[0].1, StopCause::Passage { .. }));
    let m = sim.metrics();
    assert_eq!((m.reached, m.collisions, m.order_flips), (2, 0, 0));
    assert!(m.travel_time_ratio < 1.5, "{}", m.travel_time_ratio);
}

#[test]
fn the_agent_before_the_stretch_waits_in_the_passing_place() {
    // narrow-alcove-1m: a 0.9 m corridor with a 1 m alcove at x 4.5 to 5.5. Agent 0 (from the
    // west) reaches the alcove while agent 1 is in the long stretch east of it: agent 0 steps
    // into the alcove, and agent 1 walks through without stopping.
    let mut sim = Simulation::new(&fixture("narrow-alcove-1m-head-on")).unwrap();
    while !sim.finished() {
        sim.step();
    }
    let into_alcove = sim
        .log
        .iter()
        .find_map(|r| match &r.order {
            Order::Reroute { reroute, .. } if reroute.reason == RerouteReason::Yield => {
                Some((r.agent, r.time, reroute.via))
            }
            _ => None,
        })
        .expect("a step into the alcove");
    assert_eq!(into_alcove.0, 0);
    assert!(into_alcove.1 < 5.0, "{into_alcove:?}");
    assert!(into_alcove.2.y > 0.9, "{into_alcove:?}");
    let stops_of_1 = sim
        .log
        .iter()
        .filter(|r| r.agent == 1 && matches!(r.order, Order::Stop { .. } | Order::Wait { .. }))
        .count();
    assert_eq!(stops_of_1, 0);
    let m = sim.metrics();
    assert_eq!((m.reached, m.collisions, m.order_flips), (2, 0, 0));
    assert!(m.travel_time_ratio < 1.5, "{}", m.travel_time_ratio);
}

#[test]
fn turns_can_be_switched_off() {
    // Without the turns, the two agents meet in the corridor and the deadlock rule sends one
    // back out (the behaviour before session 32).
    let mut scenario = fixture("long-corridor-head-on");
    scenario.avoidance.single_lane_turns = false;
    let mut sim = Simulation::new(&scenario).unwrap();
    while !sim.finished() {
        sim.step();
    }
    assert!(sim.log.iter().all(|r| !matches!(
        r.order,
        Order::Stop {
            cause: StopCause::Passage { .. }
        }
    )));
    assert!(sim.log.iter().any(|r| matches!(&r.order,
        Order::Reroute { reroute, .. } if reroute.reason == RerouteReason::Yield)));
    assert_eq!(sim.metrics().reached, 2);
}
