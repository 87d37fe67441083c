//! Jam release (`AvoidanceConfig::jam_release`): a rail agent that has stood wanting to go for
//! the release time leaves its rail and steers freely toward its goal (`Order::Release`), and
//! takes a rail again once it walks clear of the others (`Order::Rejoin`). Off by default.

mod common;

use sidestep::*;

use common::{level, stander, v};

const DT: f64 = 1.0 / 30.0;

/// A world on `doorway` (a 1.2 m door at x 9.5–10.5, y 4.4–5.6) with `jam_release`, an agent
/// standing in the door with nowhere to go, and the default agent at (6, 5) with a rail through
/// the door to (14, 5): it can neither pass nor go round.
fn blocked_door(jam_release: f64) -> (World, AgentKey, AgentKey) {
    blocked_door_with(AvoidanceConfig {
        jam_release,
        ..AvoidanceConfig::default()
    })
}

/// [`blocked_door`] with the avoidance settings `config`.
fn blocked_door_with(config: AvoidanceConfig) -> (World, AgentKey, AgentKey) {
    let mut world = World::new(level("doorway"), config).unwrap();
    let blocker = stander(&mut world, v(10.0, 5.0));
    let walker = railed(&mut world, v(8.9, 5.0), v(14.0, 5.0));
    (world, walker, blocker)
}

/// A world on the fixture level `name` with `jam_release`, the rest default.
fn world_with_release(name: &str, jam_release: f64) -> World {
    let config = AvoidanceConfig {
        jam_release,
        ..AvoidanceConfig::default()
    };
    World::new(level(name), config).unwrap()
}

/// The default agent at `from` with a straight rail to `to`.
fn railed(world: &mut World, from: DVec2, to: DVec2) -> AgentKey {
    let key = world
        .add_agent(AgentDesc {
            position: from,
            ..AgentDesc::default()
        })
        .unwrap();
    world
        .set_rail(key, Rail::from_points(&[from, to]).unwrap())
        .unwrap();
    key
}

/// Play frames with the walker standing at the start of its rail until it gets an order other
/// than a wait, at most `seconds`; that order and when (world clock), or `None`.
fn stand_until_told(world: &mut World, walker: AgentKey, seconds: f64) -> Option<(Order, f64)> {
    let frames = (seconds / DT).ceil() as usize;
    for _ in 0..frames {
        world.begin_frame(DT);
        world.set_motion(walker, Motion::standing(0.0)).unwrap();
        match world.query(walker).unwrap() {
            Order::Wait { .. } | Order::Continue => {}
            order => return Some((order, world.time())),
        }
    }
    None
}

/// [`blocked_door`] with a release time of 1 s, played until the walker's release; and when
/// (world clock, seconds).
fn released_at_the_door() -> (World, AgentKey, AgentKey, f64) {
    released_at_the_door_with(AvoidanceConfig {
        jam_release: 1.0,
        ..AvoidanceConfig::default()
    })
}

/// [`released_at_the_door`] with the avoidance settings `config` (a release time of 1 s).
fn released_at_the_door_with(config: AvoidanceConfig) -> (World, AgentKey, AgentKey, f64) {
    let (mut world, walker, blocker) = blocked_door_with(config);
    let (order, at) = stand_until_told(&mut world, walker, 5.0).expect("an order");
    assert!(matches!(order, Order::Release { .. }), "{order:?}");
    (world, walker, blocker, at)
}

#[test]
fn an_agent_stuck_for_the_release_time_leaves_its_rail_for_free_steering() {
    let (mut world, walker, _) = blocked_door(1.0);
    let (order, at) = stand_until_told(&mut world, walker, 5.0).expect("an order");
    let Order::Release { goal } = order else {
        panic!("expected a release, got {order:?}");
    };
    assert_eq!(goal, v(14.0, 5.0), "it steers to its rail's end");
    // Stood since its first report (one frame in), released once that is a second ago (the
    // frame after, when the clock's sum of steps falls a hair short).
    assert!(
        (1.0 + DT - 1e-9..1.0 + 2.0 * DT + 1e-9).contains(&at),
        "released at {at} s"
    );
    let agent = world.agent(walker).unwrap();
    assert!(agent.is_released());
    assert!(agent.rail().is_none(), "the world dropped its rail");
    assert_eq!(agent.position(), v(8.9, 5.0));
    // From now on it is reported as a free agent.
    assert_eq!(
        world.set_motion(walker, Motion::standing(0.0)).unwrap_err(),
        WorldError::NoRail(walker)
    );
    world.begin_frame(DT);
    world
        .set_free_motion(walker, v(8.9, 5.0), DVec2::ZERO)
        .unwrap();
    let mut steers = Vec::new();
    world.steer_all(DT, &mut steers);
    let steer = steers.iter().find(|s| s.key == walker).expect("steered");
    assert!(
        steer.preferred.x > 1.0,
        "toward the door: {:?}",
        steer.preferred
    );
}

#[test]
fn without_a_release_time_an_agent_waits_on_its_rail() {
    let (mut world, walker, _) = blocked_door(0.0);
    assert_eq!(
        AvoidanceConfig::default().jam_release,
        0.0,
        "off by default"
    );
    assert_eq!(stand_until_told(&mut world, walker, 5.0), None);
    assert!(!world.agent(walker).unwrap().is_released());
    assert!(world.agent(walker).unwrap().rail().is_some());
}

#[test]
fn a_released_agent_clear_of_the_others_rejoins_a_rail_to_its_goal() {
    let (mut world, walker, blocker, released_at) = released_at_the_door();
    // The door clears; the host moves the agent by the solver's velocities.
    world.remove_agent(blocker).unwrap();
    let (mut position, mut velocity) = (v(8.9, 5.0), DVec2::ZERO);
    let mut steers = Vec::new();
    for _ in 0..(5.0 / DT) as usize {
        world.begin_frame(DT);
        world.set_free_motion(walker, position, velocity).unwrap();
        let order = world.query(walker).unwrap();
        if let Order::Rejoin { rail, speed } = order {
            let now = world.time();
            assert!(now - released_at >= 1.0, "not before a second: {now} s");
            assert!(rail.start().distance(position) < 1e-9, "from where it is");
            assert!(rail.end().distance(v(14.0, 5.0)) < 1e-9, "to its goal");
            assert!(rail.sample(0.0).tangent.dot(velocity.normalize()) > 0.7);
            let desc = AgentDesc::default();
            assert!(
                desc.gaits.iter().any(|g| g.speed == speed),
                "a gait: {speed}"
            );
            assert!(speed <= desc.preferred_speed);
            let agent = world.agent(walker).unwrap();
            assert!(!agent.is_released());
            assert_eq!(agent.motion(), Motion::moving(0.0, speed));
            // A rail agent again: reported on its rail, refused as a free one.
            world
                .set_motion(walker, Motion::moving(0.05, speed))
                .unwrap();
            assert_eq!(
                world
                    .set_free_motion(walker, position, velocity)
                    .unwrap_err(),
                WorldError::NotFree(walker)
            );
            return;
        }
        assert_eq!(order, Order::Continue, "a released agent steers freely");
        world.steer_all(DT, &mut steers);
        velocity = steers.iter().find(|s| s.key == walker).unwrap().velocity;
        position += velocity * DT;
    }
    panic!("no rejoin in 5 s; at {position} moving {velocity}");
}

#[test]
fn a_release_time_out_of_range_is_refused_by_name() {
    for bad in [0.2, -1.0, f64::NAN, 601.0] {
        let config = AvoidanceConfig {
            jam_release: bad,
            ..AvoidanceConfig::default()
        };
        let message = config.validate().unwrap_err();
        assert!(message.contains("avoidance.jam_release"), "{message}");
    }
    let on = AvoidanceConfig {
        jam_release: 2.0,
        ..AvoidanceConfig::default()
    };
    assert_eq!(on.validate(), Ok(()));
    for bad in [-1.0, 91.0, f64::NAN] {
        let config = AvoidanceConfig {
            release_turn_degrees: bad,
            ..AvoidanceConfig::default()
        };
        let message = config.validate().unwrap_err();
        assert!(
            message.contains("avoidance.release_turn_degrees"),
            "{message}"
        );
    }
    for bad in [-0.5, 20.5, f64::NAN, f64::INFINITY] {
        let config = AvoidanceConfig {
            exit_right_of_way: bad,
            ..AvoidanceConfig::default()
        };
        let message = config.validate().unwrap_err();
        assert!(message.contains("avoidance.exit_right_of_way"), "{message}");
    }
    for good in [0.0, 4.0, 20.0] {
        let config = AvoidanceConfig {
            exit_right_of_way: good,
            ..AvoidanceConfig::default()
        };
        assert_eq!(config.validate(), Ok(()));
    }
}

/// The preferred velocity `walker`'s solver gets in the next frame, at (8.9, 5) with `velocity`.
fn preferred_after(world: &mut World, walker: AgentKey, velocity: DVec2) -> DVec2 {
    world.begin_frame(DT);
    world
        .set_free_motion(walker, v(8.9, 5.0), velocity)
        .unwrap();
    let mut steers = Vec::new();
    world.steer_all(DT, &mut steers);
    steers.iter().find(|s| s.key == walker).unwrap().preferred
}

#[test]
fn a_released_agent_halted_short_of_its_goal_steps_to_its_right() {
    let (mut world, walker, _, _) = released_at_the_door();
    // Walking: straight for the door (its goal due east), at the preferred speed.
    let walking = preferred_after(&mut world, walker, v(1.4, 0.0));
    assert!(walking.distance(v(1.4, 0.0)) < 1e-9, "{walking}");
    // Halted (the blocker in the door): the same turned 30° clockwise, to its right.
    let halted = preferred_after(&mut world, walker, DVec2::ZERO);
    let turned = DVec2::from_angle(-30f64.to_radians()).rotate(v(1.4, 0.0));
    assert!(halted.distance(turned) < 1e-9, "{halted}");
    // As far as `release_turn_degrees` says.
    let (mut world, walker, _, _) = released_at_the_door_with(AvoidanceConfig {
        jam_release: 1.0,
        release_turn_degrees: 60.0,
        ..AvoidanceConfig::default()
    });
    let halted = preferred_after(&mut world, walker, DVec2::ZERO);
    let turned = DVec2::from_angle(-60f64.to_radians()).rotate(v(1.4, 0.0));
    assert!(halted.distance(turned) < 1e-9, "{halted}");
}

/// A released agent steers by ORCA and, like an ORCA agent by description, aims to pass on its
/// right an agent it would walk into (`OrcaConfig::pass_right_degrees`): walking east in the
/// open at an agent standing 2 m ahead on its line, its solver is given its way turned right.
#[test]
fn a_released_agent_walking_at_another_passes_it_on_the_right() {
    let velocity = |pass_right_degrees: f64| {
        let config = AvoidanceConfig {
            jam_release: 1.0,
            orca: OrcaConfig {
                pass_right_degrees,
                ..OrcaConfig::default()
            },
            ..AvoidanceConfig::default()
        };
        let (mut world, walker, _, _) = released_at_the_door_with(config);
        stander(&mut world, v(6.0, 5.0));
        world.begin_frame(DT);
        world
            .set_free_motion(walker, v(4.0, 5.0), v(1.4, 0.0))
            .unwrap();
        let mut steers = Vec::new();
        world.steer_all(DT, &mut steers);
        steers.iter().find(|s| s.key == walker).unwrap().velocity
    };
    let plain = velocity(0.0);
    let right = velocity(OrcaConfig::default().pass_right_degrees);
    // The solver was given the preferred velocity turned right: its answer moves (here along
    // the same leg of the standing agent's cone, faster); a released agent that did not pass
    // right got the same answer at any angle.
    assert!(right.distance(plain) > 0.05, "{right} against {plain}");
    assert!(right.y < 0.0 && plain.y < 0.0, "{right} {plain}");
}

#[test]
fn a_new_rail_from_the_host_ends_a_release() {
    let (mut world, walker, blocker, _) = released_at_the_door();
    world.remove_agent(blocker).unwrap();
    world
        .set_rail(
            walker,
            Rail::from_points(&[v(8.9, 5.0), v(14.0, 5.0)]).unwrap(),
        )
        .unwrap();
    assert!(!world.agent(walker).unwrap().is_released());
    // A rail agent again: reported on its rail, not steered, and told to start.
    world.begin_frame(DT);
    world.set_motion(walker, Motion::standing(0.0)).unwrap();
    let mut steers = Vec::new();
    world.steer_all(DT, &mut steers);
    assert!(steers.iter().all(|s| s.key != walker), "{steers:?}");
    let order = world.query(walker).unwrap();
    assert!(
        matches!(order, Order::Start { .. }),
        "the door is clear: {order:?}"
    );
    // Taking its rail away after another release leaves it standing, not steered.
    let (mut world, walker, _, _) = released_at_the_door();
    world.clear_rail(walker).unwrap();
    assert!(!world.agent(walker).unwrap().is_released());
    world.begin_frame(DT);
    world.steer_all(DT, &mut steers);
    assert!(steers.iter().all(|s| s.key != walker), "{steers:?}");
}

/// A rail agent at the end of its rail on `open-field` (with `jam_release`), and a free ORCA
/// agent at `free_at`; the rail agent's order after one frame.
fn arrived_agent_order(jam_release: f64, free_at: DVec2, free: bool) -> Order {
    let mut world = world_with_release("open-field", jam_release);
    let arrived = railed(&mut world, v(10.0, 15.0), v(12.0, 15.0));
    let other = world
        .add_agent(AgentDesc {
            position: free_at,
            locomotion: if free {
                Locomotion::Orca
            } else {
                Locomotion::Rail
            },
            ..AgentDesc::default()
        })
        .unwrap();
    world.begin_frame(DT);
    world.set_motion(arrived, Motion::standing(2.0)).unwrap();
    if free {
        world.set_free_motion(other, free_at, DVec2::ZERO).unwrap();
    }
    world.query(arrived).unwrap()
}

/// At its goal a rail agent is a wall to free agents, which take all the avoidance; with the
/// release on, it steps aside as a free agent once one comes near (its disc within its radius
/// + 1 m), as ORCA agents at their goals give way and come back.
#[test]
fn an_arrived_rail_agent_gives_way_to_a_free_agent_coming_near() {
    // Discs 1.3 m apart (centres 2.1 m): within its radius + 1 m.
    let near = v(14.1, 15.0);
    let Order::Release { goal } = arrived_agent_order(2.0, near, true) else {
        panic!("expected a release");
    };
    assert_eq!(
        goal,
        v(12.0, 15.0),
        "it steers to its goal, where it stands"
    );
    // Discs 1.5 m apart: it stays on its rail.
    assert_eq!(
        arrived_agent_order(2.0, v(14.3, 15.0), true),
        Order::Continue
    );
    // Not without the release, nor for a rail agent coming near.
    assert!(!matches!(
        arrived_agent_order(0.0, near, true),
        Order::Release { .. }
    ));
    assert!(!matches!(
        arrived_agent_order(2.0, near, false),
        Order::Release { .. }
    ));
}

/// The committed fixture scenario `name` with `jam_release` (the rest of its avoidance
/// settings dropped) and, if given, another duration (seconds).
fn fixture_with_release(name: &str, jam_release: f64, duration: Option<f64>) -> Scenario {
    let path = format!(
        "{}/fixtures/scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    json["avoidance"] = serde_json::json!({ "jam_release": jam_release });
    if let Some(duration) = duration {
        json["duration"] = serde_json::json!(duration);
    }
    let base = std::path::Path::new(&path).parent();
    Scenario::from_json(&json.to_string(), name, base).unwrap()
}

/// The built-in host moves an agent released this frame at the velocity the free agents' solver
/// gave it this frame: its neighbours counted on its share of the avoidance. The host used to
/// apply the release after the solver's velocities and stand it still for a frame, and a
/// released agent walking past slid into it (tradeshow-1000: 16 of its 41 contacts began in a
/// release frame).
#[test]
fn an_agent_released_this_frame_moves_at_this_frames_velocity() {
    let scenario = fixture_with_release("tradeshow-300", 2.0, Some(8.0));
    let mut sim = Simulation::new(&scenario).unwrap();
    let (mut released, mut moved) = (0, 0);
    while !sim.finished() {
        let before: Vec<DVec2> = sim.agents().iter().map(|a| a.position).collect();
        let logged = sim.log.len();
        sim.step();
        for record in &sim.log[logged..] {
            if let Order::Release { .. } = record.order {
                released += 1;
                let agent = &sim.agents()[record.agent];
                let step = agent.position - before[record.agent];
                assert!(
                    (step - agent.velocity * scenario.dt).length() < 1e-9,
                    "agent {} at {} s",
                    record.agent,
                    record.time
                );
                moved += usize::from(step.length() > 0.0);
            }
        }
    }
    assert!(
        released >= 10 && moved * 2 >= released,
        "{moved} of {released} moved"
    );
}

/// An agent that has stood at the end of its rail for a while and is then given a new rail
/// (by its host, or by a yield order) has only just begun to want to go: its release clock
/// starts then, not when it stopped. It used to be released the moment it got the rail, and
/// an agent asked to step aside from its goal was released back to that goal, where it stood
/// (fixture `follow` with a release at 3 s: the slow walker never got past).
#[test]
fn the_release_clock_of_an_agent_given_a_new_rail_at_its_goal_starts_with_that_rail() {
    let mut world = world_with_release("doorway", 1.0);
    let walker = railed(&mut world, v(7.0, 5.0), v(8.9, 5.0));
    // It stands at the end of its rail for 3 s, then the host sends it through the blocked
    // door.
    for _ in 0..90 {
        world.begin_frame(DT);
        world.set_motion(walker, Motion::standing(1.9)).unwrap();
        let order = world.query(walker).unwrap();
        assert!(!matches!(order, Order::Release { .. }), "{order:?}");
    }
    stander(&mut world, v(10.0, 5.0));
    let given = world.time();
    world
        .set_rail(
            walker,
            Rail::from_points(&[v(8.9, 5.0), v(14.0, 5.0)]).unwrap(),
        )
        .unwrap();
    let (order, at) = stand_until_told(&mut world, walker, 5.0).expect("an order");
    assert!(matches!(order, Order::Release { .. }), "{order:?}");
    assert!(
        at - given >= 1.0 - 1e-9 && at - given < 1.0 + 2.5 * DT,
        "released {} s after its new rail",
        at - given
    );
}

/// Fixture `follow` (a fast walker overtakes a slow one in the 2.4 m corridor and stops at its
/// goal in the slow one's way) with a release at 3 s: the one at its goal steps aside, and both
/// arrive.
#[test]
fn with_a_release_an_agent_asked_to_step_aside_from_its_goal_does_so() {
    let scenario = fixture_with_release("follow", 3.0, None);
    let mut sim = Simulation::new(&scenario).unwrap();
    while !sim.finished() {
        sim.step();
    }
    let metrics = sim.metrics();
    assert_eq!(metrics.reached, 2, "{metrics:?}");
    assert_eq!(metrics.collisions, 0, "{metrics:?}");
}
