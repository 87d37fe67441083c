//! The `World`'s public API: bad input gives the right `WorldError` and never panics; detection
//! range and exclusion; every order kind; the return to the preferred speed; the follow distance;
//! the one-off queries; determinism. Every test builds a tiny world on a fixture level, so the
//! whole file runs in well under a second even in a debug build.

mod common;

use std::sync::Arc;

use sidestep::*;

use common::{stander, v, world_on};

/// An agent of description `desc` on a straight rail from `from` to `to`, reported moving at
/// `speed` from the rail's start.
fn walker_with(world: &mut World, desc: AgentDesc, from: DVec2, to: DVec2, speed: f64) -> AgentKey {
    let key = world
        .add_agent(AgentDesc {
            position: from,
            ..desc
        })
        .unwrap();
    world
        .set_rail(key, Rail::from_points(&[from, to]).unwrap())
        .unwrap();
    world.set_motion(key, Motion::moving(0.0, speed)).unwrap();
    key
}

/// The default agent on a straight rail from `from` to `to`, moving at `speed`.
fn walker(world: &mut World, from: DVec2, to: DVec2, speed: f64) -> AgentKey {
    walker_with(world, AgentDesc::default(), from, to, speed)
}

fn speeds_of(desc: &AgentDesc) -> Vec<f64> {
    desc.gaits.iter().map(|g| g.speed).collect()
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

/// Every keyed call refuses `key` with `UnknownAgent(key)`.
fn assert_every_call_refuses(world: &mut World, key: AgentKey) {
    let unknown = WorldError::UnknownAgent(key);
    let rail = Rail::from_points(&[v(5.0, 5.0), v(10.0, 5.0)]).unwrap();
    assert_eq!(world.agent(key).unwrap_err(), unknown);
    assert_eq!(world.query(key).unwrap_err(), unknown);
    assert_eq!(
        world.set_motion(key, Motion::moving(0.0, 1.4)).unwrap_err(),
        unknown
    );
    assert_eq!(world.set_rail(key, rail.clone()).unwrap_err(), unknown);
    assert_eq!(world.plan_rail(key, v(20.0, 20.0)).unwrap_err(), unknown);
    assert_eq!(world.clear_rail(key).unwrap_err(), unknown);
    assert_eq!(world.set_position(key, v(20.0, 20.0)).unwrap_err(), unknown);
    assert_eq!(world.collision_free_start(key, &rail).unwrap_err(), unknown);
    assert_eq!(
        world.is_position_free(key, v(20.0, 20.0), 1.0).unwrap_err(),
        unknown
    );
    assert_eq!(world.is_path_free(key, &rail).unwrap_err(), unknown);
    assert_eq!(world.remove_agent(key).unwrap_err(), unknown);
    let message = unknown.to_string();
    assert!(
        message.starts_with("unknown agent key")
            && message.contains("removed, or from another world"),
        "{message}"
    );
}

#[test]
fn a_removed_agents_key_is_unknown_to_every_call() {
    let mut world = world_on("open-field");
    let gone = walker(&mut world, v(5.0, 15.0), v(25.0, 15.0), 1.4);
    let kept = stander(&mut world, v(20.0, 5.0));
    world.remove_agent(gone).unwrap();
    assert_eq!(world.len(), 1);
    assert_every_call_refuses(&mut world, gone);
    // A new agent does not take over the removed one's key.
    let newcomer = stander(&mut world, v(5.0, 15.0));
    assert_ne!(newcomer, gone);
    assert_every_call_refuses(&mut world, gone);
    // The live agents are untouched.
    assert_eq!(world.len(), 2);
    assert!(world.agent(kept).is_ok());
    assert_eq!(world.query(newcomer).unwrap(), Order::Continue);
}

#[test]
fn a_key_from_another_world_is_unknown_to_every_call() {
    // Keys carry no world identity: a foreign key is recognised as unknown when it names a slot
    // this world never filled (here the third slot of a world with one agent).
    let mut other = world_on("open-field");
    let _ = stander(&mut other, v(5.0, 5.0));
    let _ = stander(&mut other, v(10.0, 5.0));
    let foreign = stander(&mut other, v(15.0, 5.0));
    let mut world = world_on("open-field");
    let own = stander(&mut world, v(5.0, 5.0));
    assert_every_call_refuses(&mut world, foreign);
    assert!(world.agent(own).is_ok());
    assert_eq!(world.len(), 1);
}

#[test]
fn reporting_motion_for_an_agent_without_a_rail_is_refused() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(5.0, 5.0));
    assert_eq!(
        world.set_motion(key, Motion::moving(0.0, 1.4)).unwrap_err(),
        WorldError::NoRail(key)
    );
    assert_eq!(world.query(key).unwrap(), Order::Continue);
}

/// Each bad report: the error names the problem, the agent keeps its last valid motion and is
/// told to stop; a valid report clears it.
#[test]
fn invalid_motion_is_refused_and_stops_the_agent_until_a_valid_report() {
    let cases: [(&str, Motion, &str); 5] = [
        (
            "NaN s",
            Motion::moving(f64::NAN, 1.4),
            "s = NaN is not finite",
        ),
        (
            "NaN speed",
            Motion::moving(2.0, f64::NAN),
            "speed NaN is not a finite number >= 0",
        ),
        (
            "negative speed",
            Motion::moving(2.0, -1.4),
            "speed -1.4 is not a finite number >= 0",
        ),
        (
            "s beyond the rail",
            Motion::moving(21.0, 1.4),
            "s = 21 is outside the rail [0, 20]",
        ),
        (
            "moving at speed 0",
            Motion::moving(2.0, 0.0),
            "moving or starting at speed 0",
        ),
    ];
    for (what, bad, text) in cases {
        let mut world = world_on("open-field");
        let key = walker(&mut world, v(5.0, 15.0), v(25.0, 15.0), 1.4);
        world.set_motion(key, Motion::moving(1.0, 1.4)).unwrap();
        let before = world.agent(key).unwrap().motion();

        let e = world.set_motion(key, bad).unwrap_err();
        match &e {
            WorldError::InvalidMotion { key: k, problem } => {
                assert_eq!(*k, key, "{what}");
                assert!(problem.contains(text), "{what}: {problem}");
            }
            other => panic!("{what}: expected InvalidMotion, got {other:?}"),
        }
        assert!(e.to_string().starts_with("invalid motion for agent"), "{e}");
        let agent = world.agent(key).unwrap();
        assert!(agent.has_invalid_motion(), "{what}");
        assert_eq!(
            agent.motion(),
            before,
            "{what}: the last valid motion is kept"
        );

        assert_eq!(
            world.query(key).unwrap(),
            Order::Stop {
                cause: StopCause::InvalidMotion
            },
            "{what}"
        );

        world.begin_frame(0.1);
        world.set_motion(key, Motion::moving(1.2, 1.4)).unwrap();
        assert!(!world.agent(key).unwrap().has_invalid_motion(), "{what}");
        assert_eq!(world.query(key).unwrap(), Order::Continue, "{what}");
    }
}

#[test]
fn invalid_motion_of_a_standing_agent_gives_wait_not_stop() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(5.0, 15.0));
    world
        .set_rail(
            key,
            Rail::from_points(&[v(5.0, 15.0), v(25.0, 15.0)]).unwrap(),
        )
        .unwrap();
    assert!(world.set_motion(key, Motion::standing(f64::NAN)).is_err());
    assert_eq!(world.query(key).unwrap(), Order::Wait { clear_in: None });
    world.set_motion(key, Motion::standing(0.0)).unwrap();
    assert_eq!(world.query(key).unwrap(), Order::Start { speed: 1.4 });
}

#[test]
fn clearing_the_rail_forgets_an_invalid_motion_report() {
    let mut world = world_on("open-field");
    let key = walker(&mut world, v(5.0, 15.0), v(25.0, 15.0), 1.4);
    assert!(world
        .set_motion(key, Motion::moving(f64::NAN, 1.4))
        .is_err());
    world.clear_rail(key).unwrap();
    // It has no rail, so there is no motion to report: the flag should be gone and the agent,
    // with nowhere to go, told to continue (stand).
    assert!(!world.agent(key).unwrap().has_invalid_motion());
    assert_eq!(world.query(key).unwrap(), Order::Continue);
}

#[test]
fn invalid_agent_descriptions_are_refused_naming_the_field() {
    let mut world = world_on("open-field");
    let at = v(5.0, 5.0);
    let cases: Vec<(&str, AgentDesc, &str)> = vec![
        (
            "empty speed set",
            AgentDesc {
                gaits: vec![],
                ..AgentDesc::default()
            },
            "the speed set is empty",
        ),
        (
            "radius 0",
            AgentDesc::from_radius(0.0),
            "radius = 0 must be a finite number > 0",
        ),
        (
            "negative radius",
            AgentDesc {
                radius: -0.4,
                ..AgentDesc::default()
            },
            "radius = -0.4 must be a finite number > 0",
        ),
        (
            "NaN radius",
            AgentDesc {
                radius: f64::NAN,
                ..AgentDesc::default()
            },
            "radius = NaN must be a finite number > 0",
        ),
        (
            "preferred speed not among the speeds",
            AgentDesc {
                preferred_speed: 1.0,
                ..AgentDesc::default()
            },
            "preferred speed 1 is not one of the speeds [0.8",
        ),
        (
            "a zero speed",
            AgentDesc::with_speeds(0.4, &[0.0, 1.4], 1.4),
            "speed 0 = 0 must be a finite number > 0",
        ),
        (
            "start turn longer than the start",
            AgentDesc {
                start: StartTransition {
                    duration: 0.5,
                    distance: 0.2,
                    turn_time: 0.5,
                },
                ..AgentDesc::default()
            },
            "start turn time 0.5 must be shorter than the start duration 0.5",
        ),
        (
            "NaN position",
            AgentDesc {
                position: v(f64::NAN, 1.0),
                ..AgentDesc::default()
            },
            "position",
        ),
    ];
    for (what, desc, text) in cases {
        let desc = if desc.position.is_nan() {
            desc
        } else {
            AgentDesc {
                position: at,
                ..desc
            }
        };
        match world.add_agent(desc) {
            Err(WorldError::InvalidAgent(problem)) => {
                assert!(problem.contains(text), "{what}: {problem}")
            }
            other => panic!("{what}: expected InvalidAgent, got {other:?}"),
        }
    }
    assert!(world.is_empty());
}

#[test]
fn an_agent_off_the_mesh_is_refused() {
    let mut world = world_on("open-field");
    let off = v(-2.0, 5.0);
    let e = world
        .add_agent(AgentDesc {
            position: off,
            ..AgentDesc::default()
        })
        .unwrap_err();
    assert_eq!(
        e,
        WorldError::OffMesh {
            what: "position",
            at: off
        }
    );
    assert_eq!(e.to_string(), "position (-2, 5) is not on the navmesh");
    assert!(world.is_empty());

    // Rails and moves off the mesh are refused too.
    let key = stander(&mut world, v(5.0, 5.0));
    let leaves = Rail::from_points(&[v(5.0, 5.0), v(35.0, 5.0)]).unwrap();
    assert_eq!(
        world.set_rail(key, leaves).unwrap_err(),
        WorldError::OffMesh {
            what: "goal",
            at: v(35.0, 5.0)
        }
    );
    let enters = Rail::from_points(&[v(-5.0, 5.0), v(5.0, 5.0)]).unwrap();
    assert!(matches!(
        world.set_rail(key, enters).unwrap_err(),
        WorldError::OffMesh { what: "start", .. }
    ));
    assert!(matches!(
        world.plan_rail(key, v(5.0, 31.0)).unwrap_err(),
        WorldError::OffMesh { what: "goal", .. }
    ));
    assert!(matches!(
        world.set_position(key, v(5.0, -1.0)).unwrap_err(),
        WorldError::OffMesh {
            what: "position",
            ..
        }
    ));
    assert!(world.agent(key).unwrap().rail().is_none());
    assert_eq!(world.agent(key).unwrap().position(), v(5.0, 5.0));
}

#[test]
fn an_overlapping_agent_is_refused_unless_overlap_is_allowed() {
    let mut world = world_on("open-field");
    let first = stander(&mut world, v(5.0, 5.0));
    let overlapping = AgentDesc {
        position: v(5.5, 5.0),
        ..AgentDesc::default()
    };
    match world.add_agent(overlapping.clone()) {
        Err(WorldError::InvalidAgent(problem)) => {
            assert!(problem.contains("overlaps agent"), "{problem}");
            assert!(problem.contains("at (5.5, 5)"), "{problem}");
        }
        other => panic!("expected InvalidAgent, got {other:?}"),
    }
    assert_eq!(world.len(), 1);
    // Just touching is fine.
    assert!(world
        .add_agent(AgentDesc {
            position: v(5.8, 5.0),
            ..AgentDesc::default()
        })
        .is_ok());

    let config = AvoidanceConfig {
        allow_overlap: true,
        ..Default::default()
    };
    let mut dense = World::new(common::level("open-field"), config).unwrap();
    let a = stander(&mut dense, v(5.0, 5.0));
    let b = dense.add_agent(overlapping).unwrap();
    assert_ne!(a, b);
    assert_eq!(dense.len(), 2);
    assert!(world.agent(first).is_ok());
}

#[test]
fn invalid_configurations_are_refused_naming_the_field() {
    let level = Arc::new(common::level("open-field"));
    let cases = [
        (
            AvoidanceConfig {
                horizon: 0.0,
                ..Default::default()
            },
            "avoidance.horizon = 0 is out of range (0, 10]",
        ),
        (
            AvoidanceConfig {
                margin: f64::NAN,
                ..Default::default()
            },
            "avoidance.margin = NaN is out of range [0, 1]",
        ),
        (
            AvoidanceConfig {
                commitment: -1.0,
                ..Default::default()
            },
            "avoidance.commitment = -1",
        ),
        (
            AvoidanceConfig {
                cell_size: 0.1,
                ..Default::default()
            },
            "avoidance.cell_size = 0.1",
        ),
    ];
    for (config, text) in cases {
        match World::new(level.clone(), config) {
            Err(e @ WorldError::InvalidConfig(_)) => {
                let message = e.to_string();
                assert!(
                    message.starts_with("invalid avoidance configuration: ")
                        && message.contains(text),
                    "{message}"
                );
            }
            other => panic!("expected InvalidConfig for {text}, got {other:?}"),
        }
    }
    assert!(World::new(level, AvoidanceConfig::default()).is_ok());
}

#[test]
fn is_position_free_refuses_a_non_finite_position() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(5.0, 5.0));
    assert!(matches!(
        world.is_position_free(key, v(f64::NAN, 3.0), 1.0),
        Err(WorldError::OffMesh {
            what: "position",
            ..
        })
    ));
    // Odd time limits are no trouble.
    for within in [f64::NAN, f64::INFINITY, -1.0, 0.0] {
        assert_eq!(
            world.is_position_free(key, v(20.0, 20.0), within).unwrap(),
            Occupancy::Free
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Detection range and exclusion
// ---------------------------------------------------------------------------------------------

/// The order for an agent at (5, 15) moving east at 1.4 m/s with a stationary agent at
/// (5, 15) + `offset`.
fn order_with_stationary_at(offset: DVec2) -> Order {
    let mut world = world_on("open-field");
    let key = walker(&mut world, v(5.0, 15.0), v(25.0, 15.0), 1.4);
    stander(&mut world, v(5.0, 15.0) + offset);
    world.query(key).unwrap()
}

/// Stopping distance at 1.4 m/s plus the 2 s horizon at 1.4 m/s: ≈ 3.2 m.
fn detection_range() -> f64 {
    AgentDesc::default().stop_distance(1.4) + AvoidanceConfig::default().horizon * 1.4
}

#[test]
fn detection_range_is_stopping_distance_plus_horizon() {
    let range = detection_range();
    assert!((range - 3.192).abs() < 1e-9, "{range}");
}

#[test]
fn a_stationary_agent_inside_the_detection_range_gives_an_order() {
    let order = order_with_stationary_at(v(2.5, 0.0));
    assert_ne!(order, Order::Continue);
}

#[test]
fn a_stationary_agent_far_beyond_the_detection_range_is_ignored() {
    assert_eq!(order_with_stationary_at(v(10.0, 0.0)), Order::Continue);
}

#[test]
fn the_detection_range_edge_is_range_plus_radii() {
    // The discs touch once the centres are radii + margins apart: just inside that reach an
    // order comes, just outside it does not.
    let reach = detection_range() + 0.4 + 0.4 + 2.0 * AvoidanceConfig::default().margin;
    assert_ne!(
        order_with_stationary_at(v(reach - 0.1, 0.0)),
        Order::Continue
    );
    assert_eq!(
        order_with_stationary_at(v(reach + 0.1, 0.0)),
        Order::Continue
    );
}

#[test]
fn a_stationary_agent_behind_is_ignored() {
    assert_eq!(order_with_stationary_at(v(-2.0, 0.0)), Order::Continue);
    // Even when it is close behind.
    assert_eq!(order_with_stationary_at(v(-0.9, 0.0)), Order::Continue);
}

#[test]
fn a_stationary_agent_to_the_side_is_ignored() {
    assert_eq!(order_with_stationary_at(v(2.5, 3.0)), Order::Continue);
    assert_eq!(order_with_stationary_at(v(2.5, -3.0)), Order::Continue);
}

// ---------------------------------------------------------------------------------------------
// Each order kind
// ---------------------------------------------------------------------------------------------

/// Two agents 3 m from a crossing at (15, 15), one heading east and one north, both at
/// 1.4 m/s: they would meet there in ≈ 2.1 s. Returns (world, east, north).
fn crossing() -> (World, AgentKey, AgentKey) {
    let mut world = world_on("open-field");
    let east = walker(&mut world, v(12.0, 15.0), v(28.0, 15.0), 1.4);
    let north = walker(&mut world, v(15.0, 12.0), v(15.0, 28.0), 1.4);
    (world, east, north)
}

#[test]
fn crossing_agents_get_a_speed_change_that_takes_effect_at_once() {
    let (mut world, east, north) = crossing();
    let order = world.query(east).unwrap();
    let Order::ChangeSpeed { speed } = order else {
        panic!("expected a speed change, got {order:?}");
    };
    let agent = world.agent(east).unwrap();
    assert!(speeds_of(agent.desc()).contains(&speed), "{speed}");
    assert_ne!(speed, 1.4);
    // The order is applied to the world's copy at once.
    assert_eq!(agent.motion().speed, speed);
    assert_eq!(agent.motion().phase, Phase::Moving);
    assert_eq!(agent.last_order(), (OrderKind::ChangeSpeed, 0.0));
    let collision = agent.last_collision().expect("the collision is kept");
    assert_eq!(collision.collider, north);
    assert!(
        collision.time > 0.0 && collision.time < 2.5,
        "{collision:?}"
    );
    assert!(!collision.head_on);
    // The new speed is collision-free: asked again, it keeps going, and so does the other agent,
    // which sees the new speed.
    assert_eq!(world.query(east).unwrap(), Order::Continue);
    assert_eq!(world.query(north).unwrap(), Order::Continue);
    assert_eq!(world.agent(north).unwrap().motion().speed, 1.4);
}

#[test]
fn a_blocker_no_speed_or_bend_avoids_gives_a_stop_for_collision() {
    // A 1 m corridor: no room to bend around the blocker.
    let mut world = world_on("narrow-alcove");
    let one_speed = AgentDesc::with_speeds(0.4, &[1.4], 1.4);
    let key = walker_with(&mut world, one_speed, v(1.0, 0.5), v(8.0, 0.5), 1.4);
    let blocker = stander(&mut world, v(3.5, 0.5));
    let order = world.query(key).unwrap();
    let Order::Stop {
        cause: StopCause::Collision(collision),
    } = order
    else {
        panic!("expected a stop for a collision, got {order:?}");
    };
    assert_eq!(collision.collider, blocker);
    assert!(collision.head_on);
    assert_eq!(
        world.agent(key).unwrap().motion().phase,
        Phase::Stopping { elapsed: 0.0 }
    );
    assert_eq!(world.agent(key).unwrap().last_order().0, OrderKind::Stop);
}

#[test]
fn a_blocker_too_close_to_stop_for_gives_an_unavoidable_stop() {
    let mut world = world_on("narrow-alcove");
    let one_speed = AgentDesc::with_speeds(0.4, &[1.4], 1.4);
    let key = walker_with(&mut world, one_speed, v(1.0, 0.5), v(8.0, 0.5), 1.4);
    // 0.95 m ahead: 0.05 m between the grown discs, less than the 0.39 m stopping distance.
    let blocker = stander(&mut world, v(1.95, 0.5));
    match world.query(key).unwrap() {
        Order::Stop {
            cause: StopCause::Unavoidable(c),
        } => assert_eq!(c.collider, blocker),
        other => panic!("expected an unavoidable stop, got {other:?}"),
    }
}

/// An agent still turning on the spot at the start of its start transition has not moved: a
/// stop leaves it where it stands, so the stop is clean where a stop from its target speed
/// would slide 0.39 m into the blocker (tradeshow-1000, docs/ROBUSTNESS.md, session 29).
#[test]
fn a_start_stopped_while_turning_on_the_spot_stands_where_it_is() {
    for (elapsed, turning) in [(0.1, true), (0.3, false)] {
        let mut world = world_on("narrow-alcove");
        let one_speed = AgentDesc::with_speeds(0.4, &[1.4], 1.4);
        let key = walker_with(&mut world, one_speed, v(1.0, 0.5), v(8.0, 0.5), 1.4);
        world
            .set_motion(
                key,
                Motion {
                    s: 0.0,
                    speed: 1.4,
                    phase: Phase::Starting { elapsed },
                },
            )
            .unwrap();
        // 0.95 m ahead: 0.05 m between the grown discs.
        let blocker = stander(&mut world, v(1.95, 0.5));
        let order = world.query(key).unwrap();
        let phase = world.agent(key).unwrap().motion().phase;
        match order {
            Order::Stop {
                cause: StopCause::Collision(c),
            } if turning => {
                assert_eq!(c.collider, blocker);
                assert_eq!(phase, Phase::Standing);
            }
            Order::Stop {
                cause: StopCause::Unavoidable(c),
            } if !turning => {
                assert_eq!(c.collider, blocker);
                assert_eq!(phase, Phase::Stopping { elapsed: 0.0 });
            }
            other => panic!("{elapsed} s into the start: {other:?}"),
        }
    }
}

/// A clean stop far from its collision is not ordered when it would stand in the way of a walker
/// crossing behind the agent too soon for that walker to stop: the agent goes on and decides
/// again next frame. In tradeshow-1000 such a stop, 1.73 s before the agent's own collision,
/// made the crossing walker's collision unavoidable, and it slid into the stopped agent
/// (docs/ROBUSTNESS.md, session 29).
#[test]
fn a_far_stop_waits_while_it_would_stand_in_a_crossing_walkers_way() {
    for crossing in [false, true] {
        let mut world = world_on("open-field");
        let key = walker(&mut world, v(10.0, 15.0), v(10.0, 5.0), 0.8);
        // Standing on its way to go on the same way: waiting helps, the stop is clean.
        let ahead = stander(&mut world, v(10.0, 13.0));
        world
            .set_rail(
                ahead,
                Rail::from_points(&[v(10.0, 13.0), v(10.0, 3.0)]).unwrap(),
            )
            .unwrap();
        world.set_motion(ahead, Motion::standing(0.0)).unwrap();
        if crossing {
            // Passes behind the agent walking on; would meet it 0.2 s from now if it stopped.
            walker(&mut world, v(9.2, 15.6), v(20.0, 15.6), 1.4);
        }
        let order = world.query(key).unwrap();
        match order {
            Order::Continue if crossing => {}
            Order::Stop {
                cause: StopCause::Collision(c),
            } if !crossing => assert_eq!(c.collider, ahead),
            other => panic!("crossing {crossing}: {other:?}"),
        }
    }
}

/// Nor is a slow-down: an agent that slowed for a walker crossing ahead of it, in the way of a
/// walker crossing behind it, left that walker only an unavoidable stop (tradeshow-1000, 0.039
/// deep; docs/ROBUSTNESS.md, session 29).
#[test]
fn a_slow_down_is_not_ordered_in_a_crossing_walkers_way() {
    for crossing in [false, true] {
        let mut world = world_on("open-field");
        let key = walker(&mut world, v(10.0, 15.0), v(10.0, 5.0), 1.4);
        // Crosses ahead: the agent walking on at 1.4 m/s meets it, at 0.8 m/s does not.
        walker(&mut world, v(8.5, 13.0), v(20.0, 13.0), 1.4);
        if crossing {
            // Crosses just behind: its stop keeps clear of the agent walking on at 1.4 m/s,
            // not of the agent slowed to 0.8 m/s.
            walker(&mut world, v(9.2, 15.45), v(20.0, 15.45), 1.4);
        }
        let order = world.query(key).unwrap();
        match order {
            Order::ChangeSpeed { speed } if !crossing => assert_eq!(speed, 0.8),
            Order::ChangeSpeed { speed } if crossing && speed < 1.4 => {
                panic!("slowed to {speed} in the crossing walker's way")
            }
            _ if crossing => {}
            other => panic!("crossing {crossing}: {other:?}"),
        }
    }
}

/// Nor a slow-down that shortens the agent's stop below what a follower's stop can fit behind:
/// a leader that slowed from 1.4 to 0.8 m/s and stopped a frame later had a follower 0.19 m
/// behind it at 1.4 m/s slide into it (tradeshow-300 with the ask-way patience;
/// docs/ROBUSTNESS.md, session 30). A follower far enough back leaves the slow-down free.
#[test]
fn a_slow_down_leaves_a_close_follower_room_to_stop() {
    // The gap between the discs (radius 0.4): stops from 1.4 and 0.8 m/s are 0.39 and 0.13 m.
    for (gap, slows) in [(None, true), (Some(0.15), false), (Some(0.4), true)] {
        let mut world = world_on("open-field");
        let key = walker(&mut world, v(10.0, 15.0), v(10.0, 5.0), 1.4);
        // Crosses ahead: the agent walking on at 1.4 m/s meets it, at 0.8 m/s does not.
        walker(&mut world, v(8.5, 13.0), v(20.0, 13.0), 1.4);
        if let Some(gap) = gap {
            let y = 15.0 + 0.8 + gap;
            walker(&mut world, v(10.0, y), v(10.0, 5.0), 1.4);
        }
        let order = world.query(key).unwrap();
        let slowed = matches!(order, Order::ChangeSpeed { speed } if speed < 1.4);
        assert_eq!(slowed, slows, "follower gap {gap:?}: {order:?}");
    }
}

/// A walker keeps room to stop behind a walker ahead that would stop now: a fast walker whose
/// way a slower one is just leaving (clear if both go on) slows down while that one's stop
/// would stand in its stopping distance. An agent at 2.6 m/s closing on a walker at 1.4 m/s on
/// a converging rail slid 0.115 m into it when it stopped (tradeshow-300 with its starts
/// jittered; docs/ROBUSTNESS.md, session 30). Further ahead, the same walker leaves it be.
#[test]
fn a_fast_walker_keeps_room_to_stop_behind_a_walker_that_may_stop() {
    for (ahead, slows) in [(1.6, true), (2.6, false)] {
        let mut world = world_on("open-field");
        let fast = AgentDesc::with_speeds(0.4, &[0.8, 1.4, 2.6], 2.6);
        let key = walker_with(&mut world, fast, v(10.0, 15.0), v(25.0, 15.0), 2.6);
        // Leaving the way northward: going on, it is clear of the fast walker.
        walker(
            &mut world,
            v(10.0 + ahead, 15.2),
            v(10.0 + ahead, 25.0),
            1.4,
        );
        let order = world.query(key).unwrap();
        let slowed = matches!(order, Order::ChangeSpeed { speed } if speed < 2.6);
        assert_eq!(slowed, slows, "{ahead} m ahead: {order:?}");
        if !slows {
            assert_eq!(order, Order::Continue);
        }
    }
}

#[test]
fn a_standing_agent_with_a_clear_way_is_told_to_start_at_its_preferred_speed() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(5.0, 15.0));
    world
        .set_rail(
            key,
            Rail::from_points(&[v(5.0, 15.0), v(25.0, 15.0)]).unwrap(),
        )
        .unwrap();
    assert_eq!(world.agent(key).unwrap().motion(), Motion::standing(0.0));
    assert_eq!(world.query(key).unwrap(), Order::Start { speed: 1.4 });
    let motion = world.agent(key).unwrap().motion();
    assert_eq!(motion.phase, Phase::Starting { elapsed: 0.0 });
    assert_eq!(motion.speed, 1.4);
}

#[test]
fn a_standing_agent_whose_rail_is_blocked_is_told_to_wait() {
    // A 1 m corridor: no room to bend around the blocker.
    let mut world = world_on("narrow-alcove");
    let key = stander(&mut world, v(2.0, 0.5));
    stander(&mut world, v(3.5, 0.5));
    world
        .set_rail(key, Rail::from_points(&[v(2.0, 0.5), v(8.0, 0.5)]).unwrap())
        .unwrap();
    // The blocker stands there: it never clears the way.
    assert_eq!(world.query(key).unwrap(), Order::Wait { clear_in: None });
    assert_eq!(world.agent(key).unwrap().motion(), Motion::standing(0.0));
}

#[test]
fn an_agent_with_nothing_around_continues() {
    let mut world = world_on("open-field");
    let key = walker(&mut world, v(5.0, 15.0), v(25.0, 15.0), 1.4);
    assert_eq!(world.query(key).unwrap(), Order::Continue);
    assert_eq!(world.agent(key).unwrap().motion(), Motion::moving(0.0, 1.4));
    assert!(world.agent(key).unwrap().last_collision().is_none());
    // A stationary agent and an agent at the end of its rail continue too.
    let idle = stander(&mut world, v(20.0, 5.0));
    assert_eq!(world.query(idle).unwrap(), Order::Continue);
    world.set_motion(key, Motion::standing(20.0)).unwrap();
    assert_eq!(world.query(key).unwrap(), Order::Continue);
}

// ---------------------------------------------------------------------------------------------
// Return to the preferred speed
// ---------------------------------------------------------------------------------------------

#[test]
fn the_preferred_speed_returns_only_after_the_commitment_time() {
    let (mut world, east, north) = crossing();
    let Order::ChangeSpeed { speed } = world.query(east).unwrap() else {
        panic!("expected a speed change");
    };
    assert_ne!(speed, 1.4);
    world.remove_agent(north).unwrap();
    let commitment = world.config().reversal_hold;
    assert_eq!(commitment, 0.6);

    let dt = 0.25;
    let mut s = 0.0;
    let mut frame = |world: &mut World, speed: f64| {
        s += speed * dt;
        world.begin_frame(dt);
        world.set_motion(east, Motion::moving(s, speed)).unwrap();
        world.query(east).unwrap()
    };
    // 0.25 s and 0.5 s after the change: still committed.
    for _ in 0..2 {
        assert_eq!(frame(&mut world, speed), Order::Continue);
        assert!(world.time() < commitment);
    }
    // 0.75 s: the way is clear and the commitment is over.
    assert_eq!(frame(&mut world, speed), Order::ChangeSpeed { speed: 1.4 });
    assert!(world.time() > commitment);
    assert_eq!(world.agent(east).unwrap().motion().speed, 1.4);
    assert_eq!(frame(&mut world, 1.4), Order::Continue);
}

#[test]
fn the_preferred_speed_returns_whatever_the_number_of_gaits() {
    // Seventeen speeds, 0.1 to 1.7 m/s, the fastest preferred.
    let speeds: Vec<f64> = (1..=17).map(|i| i as f64 / 10.0).collect();
    let desc = AgentDesc::with_speeds(0.4, &speeds, 1.7);
    let mut world = world_on("open-field");
    let key = walker_with(&mut world, desc, v(5.0, 15.0), v(25.0, 15.0), 0.8);
    // Nothing around, never ordered: it should go back to its preferred speed.
    assert_eq!(world.query(key).unwrap(), Order::ChangeSpeed { speed: 1.7 });
}

// ---------------------------------------------------------------------------------------------
// Follow distance
// ---------------------------------------------------------------------------------------------

#[test]
fn a_faster_follower_close_behind_slows_to_the_leaders_speed() {
    let mut world = world_on("corridor");
    let rail = Arc::new(Rail::from_points(&[v(2.0, 1.2), v(28.0, 1.2)]).unwrap());
    let leader = stander(&mut world, v(6.0, 1.2));
    world.set_rail(leader, rail.clone()).unwrap();
    world.set_motion(leader, Motion::moving(4.0, 0.8)).unwrap();
    let follower = stander(&mut world, v(5.0, 1.2));
    // Its own end (the same end would be a shared destination, and move).
    let own = Rail::from_points(&[v(2.0, 1.2), v(26.0, 1.2)]).unwrap();
    world.set_rail(follower, own).unwrap();
    world
        .set_motion(follower, Motion::moving(3.0, 1.4))
        .unwrap();

    let gap = world
        .agent(leader)
        .unwrap()
        .position()
        .distance(world.agent(follower).unwrap().position());
    assert!((gap - 1.0).abs() < 1e-9);
    assert!(gap - 0.8 < 3.0 * 0.4);

    let order = world.query(follower).unwrap();
    let Order::ChangeSpeed { speed } = order else {
        panic!("expected a speed change, got {order:?}");
    };
    assert!(speed <= 0.8, "{speed}");
    assert_eq!(world.agent(follower).unwrap().motion().speed, speed);
    // The leader has nothing in front of it: it goes back to its preferred speed (it was never
    // ordered, so no commitment holds it).
    assert_eq!(
        world.query(leader).unwrap(),
        Order::ChangeSpeed { speed: 1.4 }
    );
}

#[test]
fn a_follower_at_the_margins_walks_slower_than_its_leader_until_the_gap_opens() {
    // Both walk at 1.4 m/s, 0.12 m apart surface to surface: no collision at that speed, but
    // under both margins (0.1 m) plus the reaction room (0.6 m/s over 0.1 s). A slow-down of
    // the leader would take the follower inside the margins before it could answer; it takes
    // a gait slower than the leader's, and at 0.3 m it keeps the leader's speed.
    for (gap, expected) in [
        (0.12, Order::ChangeSpeed { speed: 0.8 }),
        (0.3, Order::Continue),
    ] {
        let mut world = world_on("corridor");
        let rail = Rail::from_points(&[v(2.0, 1.2), v(28.0, 1.2)]).unwrap();
        let leader = stander(&mut world, v(6.0, 1.2));
        world.set_rail(leader, rail).unwrap();
        world.set_motion(leader, Motion::moving(4.0, 1.4)).unwrap();
        let behind = 6.0 - 0.8 - gap;
        let follower = stander(&mut world, v(behind, 1.2));
        let own = Rail::from_points(&[v(2.0, 1.2), v(26.0, 1.2)]).unwrap();
        world.set_rail(follower, own).unwrap();
        world
            .set_motion(follower, Motion::moving(behind - 2.0, 1.4))
            .unwrap();
        assert_eq!(world.query(follower).unwrap(), expected, "gap {gap}");
    }
}

/// A follower keeps at least the room it walks in one frame: queried before its leader, it
/// sees the leader's stop a frame late, and its own stop, alike, ends that much closer. Both at
/// 1.4 m/s, 0.2 m apart surface to surface: outside both margins and the reaction room
/// (0.16 m), so at 30 frames a second it keeps the leader's speed; at 5 frames a second a frame
/// is 0.28 m of its walk, and it takes a slower gait so that the gap opens. (Found at 10 frames
/// a second with 0.1 m agents, a frame of 0.14 m against 0.085 m: a file slid into its leader,
/// docs/ROBUSTNESS.md, session 44.)
#[test]
fn a_follower_keeps_the_room_it_walks_in_one_frame() {
    for (frame_time, expected) in [
        (1.0 / 30.0, Order::Continue),
        (0.2, Order::ChangeSpeed { speed: 0.8 }),
    ] {
        let mut world = world_on("corridor");
        let rail = Rail::from_points(&[v(2.0, 1.2), v(28.0, 1.2)]).unwrap();
        let leader = stander(&mut world, v(6.0, 1.2));
        world.set_rail(leader, rail).unwrap();
        let behind = 6.0 - 0.8 - 0.2;
        let follower = stander(&mut world, v(behind, 1.2));
        let own = Rail::from_points(&[v(2.0, 1.2), v(26.0, 1.2)]).unwrap();
        world.set_rail(follower, own).unwrap();
        world.begin_frame(frame_time);
        world.set_motion(leader, Motion::moving(4.0, 1.4)).unwrap();
        world
            .set_motion(follower, Motion::moving(behind - 2.0, 1.4))
            .unwrap();
        assert_eq!(
            world.query(follower).unwrap(),
            expected,
            "frame of {frame_time} s"
        );
    }
}

#[test]
fn a_faster_speed_out_of_a_collision_keeps_the_resume_checks_room() {
    // An agent that can only go faster (1.4 or 2.6 m/s) and a walker crossing its way: the
    // walker starts further along each time, so that 2.6 m/s passes ahead of it with less and
    // less room. The faster speed is ordered only while the closest approach keeps the radii
    // and margins grown by the resume inflation (0.9 m × 1.2); with less, it stops. Before, a
    // speed-up with barely the 0.9 m could meet the walker a frame later, and the stop from
    // 2.6 m/s is the longest.
    let room = (0.8 + 2.0 * 0.05) * 1.2;
    let (mut faster, mut refused_within_room) = (0, 0);
    for i in 0..80 {
        let y0 = 9.0 + i as f64 * 0.05;
        let mut world = world_on("open-field");
        let east = walker_with(
            &mut world,
            AgentDesc::with_speeds(0.4, &[1.4, 2.6], 1.4),
            v(12.0, 15.0),
            v(28.0, 15.0),
            1.4,
        );
        walker(&mut world, v(15.0, y0), v(15.0, 28.0), 1.4);
        let order = world.query(east).unwrap();
        // Closest approach if it goes at 2.6 m/s and the walker on at 1.4 m/s (both straight).
        let closest = (0..=300)
            .map(|k| {
                let t = k as f64 * 0.01;
                v(12.0 + 2.6 * t, 15.0).distance(v(15.0, y0 + 1.4 * t))
            })
            .fold(f64::INFINITY, f64::min);
        if order == (Order::ChangeSpeed { speed: 2.6 }) {
            faster += 1;
            assert!(closest >= room - 0.01, "y0 {y0}: closest {closest}");
        } else if closest > 0.95 && closest < room - 0.02 {
            refused_within_room += 1;
        }
    }
    assert!(faster > 0, "no speed-up at all");
    assert!(
        refused_within_room > 0,
        "no case between the plain and the grown radii"
    );
}

/// An agent alone on open-field at 0.8 m/s from (12, 15) heading east, never ordered: its first
/// query returns it to its preferred 1.4 m/s (a fresh speed-up).
fn freshly_sped_up() -> (World, AgentKey) {
    let mut world = world_on("open-field");
    let east = walker(&mut world, v(12.0, 15.0), v(28.0, 15.0), 0.8);
    assert_eq!(
        world.query(east).unwrap(),
        Order::ChangeSpeed { speed: 1.4 }
    );
    (world, east)
}

#[test]
fn a_fresh_speed_up_holds_while_the_collision_leaves_time_to_act_after_it() {
    // The crossing of `crossing()` (meeting in about 2.1 s, which there gives a speed change at
    // once), but the east agent has just sped up: it keeps its speed for the rest of the
    // reversal hold, as the collision is further off than that plus its stopping time. Taking
    // the speed-up back at once was most of the flips left in the crowd fixtures.
    let (mut world, east) = freshly_sped_up();
    let north = walker(&mut world, v(15.0, 12.0), v(15.0, 28.0), 1.4);
    assert_eq!(world.query(east).unwrap(), Order::Continue);
    assert_eq!(
        world
            .agent(east)
            .unwrap()
            .last_collision()
            .map(|c| c.collider),
        Some(north)
    );
    // Once the hold is over it answers the collision, which it still can without a contact.
    let dt = 0.25;
    let mut order = Order::Continue;
    for frame in 1..=3 {
        let s = 1.4 * dt * frame as f64;
        world.begin_frame(dt);
        world.set_motion(east, Motion::moving(s, 1.4)).unwrap();
        world.set_motion(north, Motion::moving(s, 1.4)).unwrap();
        order = world.query(east).unwrap();
        if world.time() < world.config().reversal_hold {
            assert_eq!(order, Order::Continue, "at {} s", world.time());
        }
    }
    match order {
        Order::ChangeSpeed { speed } => assert!(speed < 1.4, "{speed}"),
        Order::Stop {
            cause: StopCause::Collision(_),
        }
        | Order::Reroute { .. } => {}
        other => panic!("the collision must be answered after the hold, got {other:?}"),
    }
}

#[test]
fn a_fresh_speed_up_holds_for_the_rest_of_its_reversal_hold() {
    // Just sped up, and 0.3 s later an agent stands on its way, 1.5 m to 3.5 m ahead: a
    // collision further off than the rest of the hold (0.3 s) plus the stopping time (0.56 s)
    // waits for the hold to end, even one within the whole hold (0.6 s) plus the stopping time.
    let (rest, stop_time) = (0.3, 0.56);
    let mut held_within_whole = 0;
    for k in 0..=40 {
        let (mut world, east) = freshly_sped_up();
        for frame in 1..=3 {
            world.begin_frame(0.1);
            world
                .set_motion(east, Motion::moving(0.14 * frame as f64, 1.4))
                .unwrap();
        }
        stander(&mut world, v(12.42 + 1.5 + 0.05 * k as f64, 15.0));
        let order = world.query(east).unwrap();
        let Some(collision) = world.agent(east).unwrap().last_collision().copied() else {
            continue;
        };
        if collision.time > rest + stop_time + 0.01 {
            assert_eq!(order, Order::Continue, "collision in {} s", collision.time);
            held_within_whole += usize::from(collision.time < 0.6 + stop_time);
        }
    }
    assert!(held_within_whole > 0, "no collision within the whole hold");
}

#[test]
fn a_fresh_speed_up_answers_a_collision_sooner_than_its_hold_at_once() {
    // Just sped up, and an agent stands 1.6 m ahead: the collision is within the rest of the
    // hold and the stopping time, so the hold does not apply.
    let (mut world, east) = freshly_sped_up();
    stander(&mut world, v(13.6, 15.0));
    let order = world.query(east).unwrap();
    assert_ne!(order, Order::Continue);
    assert_ne!(order, Order::ChangeSpeed { speed: 2.6 });
}

#[test]
fn a_fresh_slow_down_takes_no_faster_speed_out_of_the_next_collision() {
    // An east agent at 0.8 m/s and a walker crossing its way 1.6 m ahead so that they would
    // meet at 0.8 m/s but not at 2.6 m/s. Never ordered, the east agent speeds up out of it;
    // just after a slow-down, it does not, as the speed-up would reverse
    // the slow-down within its reversal hold.
    let crossing_walker = |world: &mut World| walker(world, v(15.0, 12.2), v(15.0, 28.0), 1.4);
    let mut world = world_on("open-field");
    let east = walker(&mut world, v(13.4, 15.0), v(28.0, 15.0), 0.8);
    crossing_walker(&mut world);
    let unhurried = world.query(east).unwrap();
    let Order::ChangeSpeed { speed } = unhurried else {
        panic!("expected a speed-up out of the collision, got {unhurried:?}");
    };
    assert!(speed > 0.8, "{speed}");

    // The same, but it has just slowed to 0.8 m/s for another walker, gone since.
    let mut world = world_on("open-field");
    let east = walker(&mut world, v(13.4, 15.0), v(28.0, 15.0), 1.4);
    let first = walker(&mut world, v(16.0, 17.6), v(16.0, 2.0), 1.4);
    assert_eq!(
        world.query(east).unwrap(),
        Order::ChangeSpeed { speed: 0.8 }
    );
    world.remove_agent(first).unwrap();
    crossing_walker(&mut world);
    // It keeps its speed for the rest of the hold (the collision leaves time), stops or bends.
    match world.query(east).unwrap() {
        Order::ChangeSpeed { speed } => assert!(speed < 0.8, "{speed}"),
        Order::Continue | Order::Stop { .. } | Order::Reroute { .. } => {}
        other => panic!("expected no faster speed, got {other:?}"),
    }
}

#[test]
fn a_fresh_speed_up_keeps_its_hold_behind_a_slower_leader_outside_the_reaction_room() {
    // A leader 1.15 m ahead (surface to surface: within the follow gap of 1.2 m, outside the
    // margins and the reaction room) walking at 0.8 m/s, 29° off the follower's line and away
    // from it, so that the sweep is clear. A follower at its preferred speed, never ordered,
    // slows to the leader's; one that has just sped up keeps its hold.
    let leader_rail = |world: &mut World| {
        let from = v(12.0 + 1.95, 15.0);
        let heading = 29f64.to_radians();
        let to = from + 10.0 * v(heading.cos(), heading.sin());
        walker(world, from, to, 0.8)
    };
    let mut world = world_on("open-field");
    let follower = walker(&mut world, v(12.0, 15.0), v(28.0, 15.0), 1.4);
    leader_rail(&mut world);
    assert_eq!(
        world.query(follower).unwrap(),
        Order::ChangeSpeed { speed: 0.8 }
    );
    assert!(world.agent(follower).unwrap().last_collision().is_none());

    let (mut world, follower) = freshly_sped_up();
    leader_rail(&mut world);
    assert_eq!(world.query(follower).unwrap(), Order::Continue);
}

#[test]
fn a_fresh_start_holds_for_the_rest_of_its_reversal_hold() {
    // An agent with one speed starts east (nothing around), and 0.3 s into its start an agent
    // comes to stand
    // on its way, at distances from 1 m to 4 m. A collision further off than the rest of the
    // hold (0.3 s) plus the stopping time (0.56 s at 1.4 m/s) waits for the hold to end; one
    // sooner is answered at once. Before, the whole hold (0.6 s) counted, and a start was
    // stopped for a collision 0.9-1.16 s off: most of the flips left in the crowd fixtures.
    let (rest, stop_time) = (0.3, 0.56);
    let (mut held, mut answered) = (0, 0);
    for k in 0..=40 {
        let mut world = world_on("open-field");
        // One speed: no slower one to take instead.
        let one_speed = AgentDesc::with_speeds(0.4, &[1.4], 1.4);
        let key = walker_with(&mut world, one_speed, v(10.0, 15.0), v(28.0, 15.0), 1.4);
        world.set_motion(key, Motion::standing(0.0)).unwrap();
        assert_eq!(world.query(key).unwrap(), Order::Start { speed: 1.4 });
        for frame in 1..=3 {
            world.begin_frame(0.1);
            let motion = Motion {
                s: 0.0,
                speed: 1.4,
                phase: Phase::Starting {
                    elapsed: 0.1 * frame as f64,
                },
            };
            world.set_motion(key, motion).unwrap();
        }
        stander(&mut world, v(11.0 + 0.075 * k as f64, 15.0));
        let order = world.query(key).unwrap();
        let Some(collision) = world.agent(key).unwrap().last_collision().copied() else {
            continue;
        };
        if collision.time > rest + stop_time + 0.01 {
            assert_eq!(order, Order::Continue, "collision in {} s", collision.time);
            if collision.time < 0.6 + stop_time {
                held += 1;
            }
        } else if collision.time < rest + stop_time - 0.01 {
            assert_ne!(order, Order::Continue, "collision in {} s", collision.time);
            answered += 1;
        }
    }
    assert!(
        held > 0,
        "no collision between the rest and the whole of the hold"
    );
    assert!(
        answered > 0,
        "no collision sooner than the rest of the hold"
    );
}

#[test]
fn an_unclean_stop_waits_while_the_collision_is_far() {
    // Two agents head-on in the 1 m corridor of narrow-alcove (no room to bend) with one
    // speed: a stop does not clear the agent walking at it, so the stop is not clean. While
    // the collision is further off than the stop and a reversal hold, it keeps going (the
    // chapter stops only when the stop is collision-free); close, it stops as unavoidable.
    // 4.6 m apart: they would meet in 1.3 s, and the agent walking at it reaches the stop.
    for (apart, far) in [(4.6, true), (3.2, false)] {
        let mut world = world_on("narrow-alcove");
        let one_speed = AgentDesc::with_speeds(0.4, &[1.4], 1.4);
        let east = walker_with(
            &mut world,
            one_speed.clone(),
            v(1.0, 0.5),
            v(16.0, 0.5),
            1.4,
        );
        walker_with(&mut world, one_speed, v(1.0 + apart, 0.5), v(0.6, 0.5), 1.4);
        let order = world.query(east).unwrap();
        let collision = world.agent(east).unwrap().last_collision().unwrap();
        if far {
            assert_eq!(order, Order::Continue, "{apart} m apart");
            assert!(collision.time > 0.6 + 0.56, "{collision:?}");
        } else {
            assert!(
                matches!(
                    order,
                    Order::Stop {
                        cause: StopCause::Unavoidable(_)
                    }
                ),
                "{apart} m apart: {order:?}"
            );
        }
    }
}

#[test]
fn a_bend_taken_standing_keeps_the_wait_on_the_same_agent() {
    // A stands behind B, which wants to go the same way: A waits on it (a queue), and its
    // deadlock clock starts. Later B's rail turns across A's way; A bends around it, standing.
    // The bend has not moved A, so its wait on B (and the clock) goes on: reset at every bend
    // or detour taken standing, the clock of an agent that took the same detour every
    // half-second never reached the deadlock time, and a pair stood for 70 s (arena-200).
    let mut world = world_on("open-field");
    let a = walker(&mut world, v(15.0, 15.0), v(15.0, 28.0), 1.4);
    let b = walker(&mut world, v(15.0, 16.5), v(15.0, 25.0), 1.4);
    world.set_motion(a, Motion::standing(0.0)).unwrap();
    world.set_motion(b, Motion::standing(0.0)).unwrap();
    assert!(matches!(world.query(a).unwrap(), Order::Wait { .. }));
    let since = world.time();
    assert_eq!(world.agent(a).unwrap().waiting_on(), Some((b, since)));

    for _ in 0..6 {
        world.begin_frame(0.1);
        world.set_motion(a, Motion::standing(0.0)).unwrap();
        world.set_motion(b, Motion::standing(0.0)).unwrap();
    }
    world
        .set_rail(
            b,
            Rail::from_points(&[v(15.0, 16.5), v(28.0, 16.5)]).unwrap(),
        )
        .unwrap();
    world.set_motion(b, Motion::standing(0.0)).unwrap();
    let order = world.query(a).unwrap();
    assert!(
        matches!(
            order,
            Order::Reroute {
                reroute: Reroute {
                    reason: RerouteReason::Avoid,
                    ..
                },
                ..
            }
        ),
        "{order:?}"
    );
    assert_eq!(world.agent(a).unwrap().waiting_on(), Some((b, since)));
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

#[test]
fn collision_free_start_is_go_on_an_empty_level() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(15.0, 10.0));
    let rail = Rail::from_points(&[v(15.0, 10.0), v(15.0, 25.0)]).unwrap();
    assert_eq!(
        world.collision_free_start(key, &rail).unwrap(),
        StartVerdict::Go
    );
    // Agents behind the start or far away do not matter.
    stander(&mut world, v(15.0, 8.0));
    stander(&mut world, v(3.0, 25.0));
    assert_eq!(
        world.collision_free_start(key, &rail).unwrap(),
        StartVerdict::Go
    );
}

#[test]
fn collision_free_start_names_a_walker_crossing_the_start() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(15.0, 10.0));
    let walker = walker(&mut world, v(12.0, 11.5), v(27.0, 11.5), 1.4);
    let rail = Rail::from_points(&[v(15.0, 10.0), v(15.0, 25.0)]).unwrap();
    match world.collision_free_start(key, &rail).unwrap() {
        StartVerdict::Wait { blocker, clear_in } => {
            assert_eq!(blocker, walker);
            assert!(
                clear_in > 0.0 && clear_in <= world.config().horizon,
                "{clear_in}"
            );
        }
        StartVerdict::Blocked { blocker } => assert_eq!(blocker, walker),
        StartVerdict::Go => panic!("the walker crosses the start"),
    }
}

#[test]
fn collision_free_start_is_blocked_by_an_agent_standing_in_the_way() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(15.0, 10.0));
    let _walker = walker(&mut world, v(3.0, 20.0), v(27.0, 20.0), 1.4);
    let blocker = stander(&mut world, v(15.0, 11.5));
    let rail = Rail::from_points(&[v(15.0, 10.0), v(15.0, 25.0)]).unwrap();
    assert_eq!(
        world.collision_free_start(key, &rail).unwrap(),
        StartVerdict::Blocked { blocker }
    );
}

#[test]
fn is_position_free_when_nobody_comes() {
    let mut world = world_on("open-field");
    let me = stander(&mut world, v(25.0, 5.0));
    walker(&mut world, v(5.0, 15.0), v(25.0, 15.0), 1.4);
    assert_eq!(
        world.is_position_free(me, v(10.0, 25.0), 5.0).unwrap(),
        Occupancy::Free
    );
    // Its own disc does not count.
    assert!(world
        .is_position_free(me, v(25.0, 5.0), 5.0)
        .unwrap()
        .is_free());
}

#[test]
fn is_position_free_sees_a_walker_heading_there_within_the_time() {
    let mut world = world_on("open-field");
    let me = stander(&mut world, v(25.0, 5.0));
    let walker = walker(&mut world, v(5.0, 15.0), v(25.0, 15.0), 1.4);
    // The walker's disc (grown by the margins) reaches (10, 15) after (5 − 0.9) / 1.4 ≈ 2.93 s.
    match world.is_position_free(me, v(10.0, 15.0), 5.0).unwrap() {
        Occupancy::Taken { by, at } => {
            assert_eq!(by, walker);
            assert!((at - 4.1 / 1.4).abs() < 0.05, "{at}");
        }
        Occupancy::Free => panic!("the walker comes through"),
    }
    // Not within one second, though.
    assert_eq!(
        world.is_position_free(me, v(10.0, 15.0), 1.0).unwrap(),
        Occupancy::Free
    );
}

#[test]
fn is_position_free_sees_a_stationary_agent_at_time_zero() {
    let mut world = world_on("open-field");
    let me = stander(&mut world, v(25.0, 5.0));
    let idle = stander(&mut world, v(20.0, 20.0));
    assert_eq!(
        world.is_position_free(me, v(20.3, 20.0), 3.0).unwrap(),
        Occupancy::Taken { by: idle, at: 0.0 }
    );
    assert_eq!(
        world.is_position_free(me, v(21.0, 20.0), 3.0).unwrap(),
        Occupancy::Free
    );
}

#[test]
fn is_path_free_on_an_empty_level() {
    let mut world = world_on("open-field");
    let me = stander(&mut world, v(2.0, 28.0));
    let rail = Rail::from_points(&[v(15.0, 2.0), v(15.0, 28.0)]).unwrap();
    assert_eq!(world.is_path_free(me, &rail).unwrap(), Occupancy::Free);
}

#[test]
fn is_path_free_sees_a_stationary_agent_on_the_path() {
    let mut world = world_on("open-field");
    let me = stander(&mut world, v(2.0, 28.0));
    let idle = stander(&mut world, v(15.0, 12.0));
    let rail = Rail::from_points(&[v(15.0, 2.0), v(15.0, 28.0)]).unwrap();
    match world.is_path_free(me, &rail).unwrap() {
        Occupancy::Taken { by, at } => {
            assert_eq!(by, idle);
            // Reached after (10 − 0.9) m at the preferred 1.4 m/s.
            assert!((at - 9.1 / 1.4).abs() < 0.05, "{at}");
        }
        Occupancy::Free => panic!("the path runs through a standing agent"),
    }
}

#[test]
fn is_path_free_sees_a_walker_crossing_at_the_same_time_only() {
    let rail = Rail::from_points(&[v(15.0, 2.0), v(15.0, 28.0)]).unwrap();
    // Both reach (15, 15) 13 / 1.4 s from now.
    let mut world = world_on("open-field");
    let me = stander(&mut world, v(2.0, 28.0));
    let walker_key = walker(&mut world, v(2.0, 15.0), v(28.0, 15.0), 1.4);
    match world.is_path_free(me, &rail).unwrap() {
        Occupancy::Taken { by, at } => {
            assert_eq!(by, walker_key);
            assert!(at > 8.0 && at < 13.0 / 1.4, "{at}");
        }
        Occupancy::Free => panic!("the walker crosses the path"),
    }
    // A walker that passes the crossing long before is no trouble.
    let mut world = world_on("open-field");
    let me = stander(&mut world, v(2.0, 28.0));
    walker(&mut world, v(14.0, 15.0), v(28.0, 15.0), 1.4);
    assert_eq!(world.is_path_free(me, &rail).unwrap(), Occupancy::Free);
}

// ---------------------------------------------------------------------------------------------
// Determinism
// ---------------------------------------------------------------------------------------------

/// A small host: two crossing agents, a follower, a standing agent and a late starter, played
/// for `frames` frames; every order (with its collision) and the final motions, as text.
fn play(frames: usize) -> Vec<String> {
    let mut world = world_on("open-field");
    let rails: Vec<(DVec2, DVec2, f64)> = vec![
        (v(12.0, 15.0), v(28.0, 15.0), 1.4),
        (v(15.0, 12.0), v(15.0, 28.0), 1.4),
        (v(4.0, 5.0), v(26.0, 5.0), 0.8),
        (v(2.8, 5.0), v(26.0, 5.0), 1.4),
        (v(22.0, 22.0), v(28.0, 26.0), 0.0),
    ];
    let mut host: Vec<(AgentKey, Arc<Rail>, f64, f64, bool)> = Vec::new();
    for (from, to, speed) in rails {
        let key = stander(&mut world, from);
        let rail = Arc::new(Rail::from_points(&[from, to]).unwrap());
        world.set_rail(key, rail.clone()).unwrap();
        host.push((key, rail, 0.0, speed, speed > 0.0));
    }
    stander(&mut world, v(20.0, 5.0));
    let dt = 1.0 / 30.0;
    let mut log = Vec::new();
    let mut orders = Vec::new();
    for frame in 0..frames {
        world.begin_frame(dt);
        for (key, rail, s, speed, moving) in &host {
            let motion = if *moving && *s < rail.length() {
                Motion::moving(*s, *speed)
            } else {
                Motion::standing(*s)
            };
            world.set_motion(*key, motion).unwrap();
        }
        world.query_all(&mut orders);
        for (key, order) in &orders {
            let collision = world.agent(*key).unwrap().last_collision().copied();
            log.push(format!("{frame} {key:?} {order:?} {collision:?}"));
            if let Some(h) = host.iter_mut().find(|h| h.0 == *key) {
                match order {
                    Order::ChangeSpeed { speed } => h.3 = *speed,
                    Order::Stop { .. } => h.4 = false,
                    Order::Start { speed } => {
                        h.3 = *speed;
                        h.4 = true;
                    }
                    Order::Reroute { rail, .. } => {
                        h.1 = rail.clone();
                        h.2 = 0.0;
                    }
                    Order::Continue | Order::Wait { .. } => {}
                    // Not given: the default configuration releases no one.
                    Order::Release { .. } | Order::Rejoin { .. } => {
                        panic!("{order:?} with jam release off")
                    }
                }
            }
        }
        for h in &mut host {
            if h.4 {
                h.2 = (h.2 + h.3 * dt).min(h.1.length());
            }
        }
    }
    for (key, agent) in world.agents() {
        log.push(format!(
            "{key:?} {:?} {:?}",
            agent.motion(),
            agent.position()
        ));
    }
    log
}

#[test]
fn the_same_calls_give_the_same_orders() {
    let a = play(60);
    let b = play(60);
    assert!(a.len() >= 60 * 6);
    assert_eq!(a, b);
    // Something happened worth comparing.
    assert!(a
        .iter()
        .any(|line| line.contains("ChangeSpeed") || line.contains("Stop")));
    assert!(a.iter().any(|line| line.contains("Start")));
}

#[test]
fn a_cloned_world_answers_like_the_original() {
    let (mut world, east, north) = crossing();
    let mut copy = world.clone();
    for key in [east, north] {
        assert_eq!(world.query(key).unwrap(), copy.query(key).unwrap());
    }
}

#[test]
fn a_debug_sink_sees_the_collisions_and_orders_of_a_frame() {
    let (mut world, east, north) = crossing();
    let mut log = DebugLog::default();
    let mut orders = Vec::new();
    world.query_all_with(&mut orders, &mut log);
    assert_eq!(log.orders, orders, "every order, in query order");
    assert_eq!(log.collisions.len(), 1, "{:?}", log.collisions);
    assert_eq!(log.collisions[0].0, east);
    assert_eq!(log.collisions[0].1.collider, north);
    // The same frame without a sink gives the same orders.
    let (mut plain, _, _) = crossing();
    let mut plain_orders = Vec::new();
    plain.query_all(&mut plain_orders);
    assert_eq!(plain_orders, orders);
}

#[test]
fn a_fresh_speed_up_that_cannot_hold_bends_rather_than_slow_down_again() {
    // A walker crossing 1.6 m ahead of an east agent at 1.4 m/s: they would meet in about
    // 0.96 s, sooner than the rest of a speed-up's hold plus the stopping time. Never ordered,
    // the east agent slows to 0.8 m/s. Just sped up from 0.8 m/s, slowing again would reverse
    // the speed-up (a flip, the most common one left in the crowd fixtures); it keeps its
    // speed on a bend that clears the collision.
    let crossing_walker = |world: &mut World| walker(world, v(14.2, 13.4), v(14.2, 28.0), 1.4);
    let mut world = world_on("open-field");
    let east = walker(&mut world, v(12.0, 15.0), v(28.0, 15.0), 1.4);
    crossing_walker(&mut world);
    assert_eq!(
        world.query(east).unwrap(),
        Order::ChangeSpeed { speed: 0.8 }
    );

    let (mut world, east) = freshly_sped_up();
    let north = crossing_walker(&mut world);
    let order = world.query(east).unwrap();
    let Order::Reroute { rail, reroute } = order else {
        panic!("expected a bend, got {order:?}");
    };
    assert_eq!(reroute.reason, RerouteReason::Avoid);
    let collision = world.agent(east).unwrap().last_collision().unwrap();
    assert_eq!(collision.collider, north);
    assert!(collision.time < 0.6 + 0.56, "{}", collision.time);
    // The bent rail is clear at the speed it keeps: the next query goes on.
    assert!(rail.length() > 16.0);
    assert_eq!(world.query(east).unwrap(), Order::Continue);
}
