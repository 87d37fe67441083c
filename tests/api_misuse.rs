//! Misuse of the `World` API by a host never panics: each case gives an error value, or an agent
//! state and a stop (or wait) order, as documented on the call (see docs/ROBUSTNESS.md). Removed
//! and foreign keys, invalid descriptions and NaN motion reports are in `tests/world_api.rs`;
//! random sequences of all of these in `tests/world_robustness.rs`.

mod common;

use sidestep::*;

use common::{stander, v, world_on};

/// The default agent on a straight rail from `from` to `to`, reported moving at 1.4 m/s at
/// arclength `s`.
fn walker_at(world: &mut World, from: DVec2, to: DVec2, s: f64) -> AgentKey {
    let key = stander(world, from);
    world
        .set_rail(key, Rail::from_points(&[from, to]).unwrap())
        .unwrap();
    world.set_motion(key, Motion::moving(s, 1.4)).unwrap();
    key
}

fn free_agent(world: &mut World, at: DVec2, locomotion: Locomotion) -> AgentKey {
    world
        .add_agent(AgentDesc {
            position: at,
            locomotion,
            ..AgentDesc::default()
        })
        .unwrap()
}

fn problem(e: WorldError) -> String {
    match e {
        WorldError::InvalidMotion { problem, .. } => problem,
        other => panic!("expected InvalidMotion, got {other:?}"),
    }
}

#[test]
fn a_zero_length_rail_is_refused() {
    let p = v(5.0, 5.0);
    let e = Rail::from_points(&[p, p]).unwrap_err();
    assert_eq!(e, RailError::ZeroLength { segment: 0 });
    assert_eq!(
        e.to_string(),
        "segment 0 has zero length (shorter than 1e-9 m)"
    );
    let mut world = world_on("open-field");
    let key = stander(&mut world, p);
    assert!(matches!(world.plan_rail(key, p), Err(WorldError::Plan(_))));
    assert!(world.agent(key).unwrap().rail().is_none());
    assert_eq!(world.query(key).unwrap(), Order::Continue);
}

#[test]
fn backwards_motion_is_refused_and_stops_the_agent() {
    let mut world = world_on("open-field");
    let key = walker_at(&mut world, v(5.0, 15.0), v(25.0, 15.0), 5.0);
    let message = problem(world.set_motion(key, Motion::moving(3.0, 1.4)).unwrap_err());
    assert_eq!(
        message,
        "distance along the rail s = 3 is behind the last report s = 5; agents only move \
         forward along their rails (give it a new rail to send it back)"
    );
    let agent = world.agent(key).unwrap();
    assert!(agent.has_invalid_motion());
    assert_eq!(agent.motion().s, 5.0, "the last valid report is kept");
    assert_eq!(
        world.query(key).unwrap(),
        Order::Stop {
            cause: StopCause::InvalidMotion
        }
    );
    // A report a hair behind (rounding in the host) is accepted, as is going on.
    world.begin_frame(0.1);
    world.set_motion(key, Motion::moving(4.9995, 1.4)).unwrap();
    assert!(!world.agent(key).unwrap().has_invalid_motion());
    world.set_motion(key, Motion::moving(5.2, 1.4)).unwrap();
    // A new rail is how a host sends an agent back.
    world
        .set_rail(
            key,
            Rail::from_points(&[v(10.2, 15.0), v(5.0, 15.0)]).unwrap(),
        )
        .unwrap();
    world.set_motion(key, Motion::standing(0.0)).unwrap();
    // It starts once the reversal hold since its stop has passed.
    world.begin_frame(1.0);
    assert_eq!(world.query(key).unwrap(), Order::Start { speed: 1.4 });
}

#[test]
fn a_rail_replaced_between_the_motion_report_and_the_query_answers_for_the_new_rail() {
    let mut world = world_on("open-field");
    let key = walker_at(&mut world, v(5.0, 15.0), v(25.0, 15.0), 0.0);
    world.begin_frame(0.1);
    world.set_motion(key, Motion::moving(8.0, 1.4)).unwrap();
    // The host replaces the rail (a short one, shorter than the arclength it just reported)
    // before it queries.
    let short = Rail::from_points(&[v(13.0, 15.0), v(13.0, 18.0)]).unwrap();
    world.set_rail(key, short.clone()).unwrap();
    let agent = world.agent(key).unwrap();
    assert_eq!(agent.motion(), Motion::standing(0.0));
    assert_eq!(agent.position(), short.start());
    assert_eq!(world.query(key).unwrap(), Order::Start { speed: 1.4 });
    // A late report of the old rail's arclength is refused on the new one: the agent is told
    // to stop until a valid report comes.
    let message = problem(world.set_motion(key, Motion::moving(8.0, 1.4)).unwrap_err());
    assert!(message.contains("is outside the rail [0, 3]"), "{message}");
    assert_eq!(
        world.query(key).unwrap(),
        Order::Stop {
            cause: StopCause::InvalidMotion
        }
    );
    world.set_motion(key, Motion::moving(0.1, 1.4)).unwrap();
    assert!(!world.agent(key).unwrap().has_invalid_motion());
    assert_eq!(world.query(key).unwrap(), Order::Continue);
}

#[test]
fn an_agent_cannot_be_put_off_its_rail() {
    // A rail agent is where its rail and arclength put it; the host cannot report it elsewhere
    // (it gives it a new rail from where it is instead).
    let mut world = world_on("open-field");
    let key = walker_at(&mut world, v(5.0, 15.0), v(25.0, 15.0), 2.0);
    let before = world.agent(key).unwrap().position();
    match world.set_position(key, v(20.0, 2.0)) {
        Err(WorldError::InvalidAgent(problem)) => {
            assert!(problem.contains("is on a rail"), "{problem}")
        }
        other => panic!("expected InvalidAgent, got {other:?}"),
    }
    assert_eq!(world.agent(key).unwrap().position(), before);
    assert_eq!(world.query(key).unwrap(), Order::Continue);
}

#[test]
fn queries_about_rails_far_from_the_agent_or_off_the_mesh_answer() {
    let mut world = world_on("open-field");
    let key = stander(&mut world, v(5.0, 5.0));
    let _walker = walker_at(&mut world, v(5.0, 15.0), v(25.0, 15.0), 0.0);
    // A rail nowhere near the agent, and one that leaves the level.
    let far = Rail::from_points(&[v(25.0, 25.0), v(26.0, 25.0)]).unwrap();
    let outside = Rail::from_points(&[v(15.0, 5.0), v(15.0, 80.0)]).unwrap();
    for rail in [&far, &outside] {
        assert!(world.collision_free_start(key, rail).is_ok());
        assert!(world.is_path_free(key, rail).is_ok());
    }
    // One that crosses the walker's rail when the walker is there sees it.
    let crossing = Rail::from_points(&[v(10.0, 10.0), v(10.0, 20.0)]).unwrap();
    assert!(!world.is_path_free(key, &crossing).unwrap().is_free());
}

#[test]
fn free_agents_refuse_rails_and_rail_agents_refuse_free_motion() {
    let mut world = world_on("open-field");
    let rail = Rail::from_points(&[v(5.0, 5.0), v(10.0, 5.0)]).unwrap();
    for locomotion in [Locomotion::Orca, Locomotion::Ttc] {
        let key = free_agent(&mut world, v(5.0, 5.0), locomotion);
        assert_eq!(
            world.set_rail(key, rail.clone()).unwrap_err(),
            WorldError::NotRail(key)
        );
        assert_eq!(
            world.plan_rail(key, v(20.0, 20.0)).unwrap_err(),
            WorldError::NotRail(key)
        );
        assert!(WorldError::NotRail(key).to_string().ends_with(
            "is free-steering (its locomotion is Orca or Ttc); give it a goal, not a rail"
        ));
        assert_eq!(
            world.set_motion(key, Motion::moving(0.0, 1.4)).unwrap_err(),
            WorldError::NoRail(key)
        );
        assert!(world.agent(key).unwrap().rail().is_none());
        world.remove_agent(key).unwrap();
    }
    let walker = walker_at(&mut world, v(5.0, 15.0), v(25.0, 15.0), 0.0);
    assert_eq!(
        world
            .set_free_motion(walker, v(6.0, 15.0), v(1.0, 0.0))
            .unwrap_err(),
        WorldError::NotFree(walker)
    );
    assert_eq!(
        world.set_goal(walker, v(20.0, 20.0)).unwrap_err(),
        WorldError::NotFree(walker)
    );
}

#[test]
fn non_finite_or_off_mesh_free_motion_is_refused_and_the_last_report_kept() {
    let mut world = world_on("open-field");
    let key = free_agent(&mut world, v(5.0, 15.0), Locomotion::Orca);
    world.set_goal(key, v(25.0, 15.0)).unwrap();
    world
        .set_free_motion(key, v(6.0, 15.0), v(1.4, 0.0))
        .unwrap();
    let bad = [
        (v(f64::NAN, 15.0), v(1.4, 0.0)),
        (v(6.0, 15.0), v(f64::INFINITY, 0.0)),
        (v(6.0, 15.0), v(0.0, f64::NAN)),
        (v(-6.0, 15.0), v(1.4, 0.0)),
    ];
    for (position, velocity) in bad {
        let e = world.set_free_motion(key, position, velocity).unwrap_err();
        assert!(
            matches!(
                e,
                WorldError::InvalidMotion { .. } | WorldError::OffMesh { .. }
            ),
            "{e:?}"
        );
        assert_eq!(world.agent(key).unwrap().position(), v(6.0, 15.0));
    }
    let mut steers = Vec::new();
    world.steer_all(1.0 / 30.0, &mut steers);
    assert_eq!(steers.len(), 1);
    assert!(steers[0].velocity.is_finite() && steers[0].velocity.x > 0.0);
}

#[test]
fn odd_time_steps_leave_the_clock_and_the_velocities_finite() {
    let mut world = world_on("open-field");
    let key = free_agent(&mut world, v(5.0, 15.0), Locomotion::Ttc);
    world.set_goal(key, v(25.0, 15.0)).unwrap();
    let _walker = walker_at(&mut world, v(15.0, 5.0), v(15.0, 25.0), 0.0);
    world.begin_frame(0.5);
    for dt in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, 0.0] {
        world.begin_frame(dt);
        assert_eq!(world.time(), 0.5, "begin_frame({dt}) moved the clock");
        let mut steers = Vec::new();
        world.steer_all(dt, &mut steers);
        assert_eq!(steers.len(), 1);
        assert!(
            steers[0].velocity.is_finite() && steers[0].preferred.is_finite(),
            "steer_all({dt}): {:?}",
            steers[0]
        );
        let mut orders = Vec::new();
        world.query_all(&mut orders);
        assert_eq!(orders.len(), 2);
    }
}

#[test]
fn agents_removed_mid_frame_get_no_orders() {
    let mut world = world_on("open-field");
    let a = walker_at(&mut world, v(5.0, 15.0), v(25.0, 15.0), 0.0);
    let b = walker_at(&mut world, v(25.0, 15.5), v(5.0, 15.5), 0.0);
    let c = stander(&mut world, v(15.0, 16.5));
    world.begin_frame(0.1);
    world.set_motion(a, Motion::moving(0.1, 1.4)).unwrap();
    world.set_motion(b, Motion::moving(0.1, 1.4)).unwrap();
    // Removed after its motion report, before the queries; the others still see nobody there.
    world.remove_agent(b).unwrap();
    let mut orders = Vec::new();
    world.query_all(&mut orders);
    let keys: Vec<AgentKey> = orders.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, [a, c]);
    assert!(world.agent(a).unwrap().last_collision().is_none());
    assert_eq!(world.query(b).unwrap_err(), WorldError::UnknownAgent(b));
}
