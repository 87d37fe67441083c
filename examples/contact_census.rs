//! Where a scenario's contacts come from: plays a scenario file in the built-in host and, for
//! every contact episode (two discs overlapping by more than 1 % of their radii, as the
//! `collisions` metric counts them, DESIGN §6), prints when and where it began, the two agents'
//! states, each agent's orders over the seconds before it (`--history S`, default 3), and with
//! `--track`, where the two were, how fast and in what state, frame by frame over the last
//! second.
//!
//! `cargo run --release --example contact_census -- fixtures/scenarios/tradeshow-1000.json
//! [--history S] [--track]`

use std::collections::VecDeque;
use std::io::Write;

use sidestep::{AgentKey, AgentState, Order, Scenario, Simulation, StopCause};

/// Where an agent was in one frame, how fast it went and in what state.
struct Seen {
    x: f64,
    y: f64,
    speed: f64,
    state: AgentState,
}

/// An order in a few words; colliders by their index in the scenario.
fn describe(order: &Order, sim: &Simulation) -> String {
    let who = |key: &AgentKey| {
        sim.agent_index(*key)
            .map_or(format!("{key:?}"), |i| format!("agent {i}"))
    };
    match order {
        Order::ChangeSpeed { speed } => format!("speed {speed}"),
        Order::Stop { cause } => match cause {
            StopCause::Collision(c) => {
                format!("stop, clean, for {} in {:.2} s", who(&c.collider), c.time)
            }
            StopCause::Unavoidable(c) => {
                format!(
                    "stop, unavoidable, for {} in {:.2} s",
                    who(&c.collider),
                    c.time
                )
            }
            StopCause::Passage { after } => format!("stop, passage after {}", who(after)),
            StopCause::InvalidMotion => "stop, invalid motion".into(),
        },
        Order::Start { speed } => format!("start {speed}"),
        Order::Reroute { reroute, .. } => {
            format!("reroute {:?} via {:.2?}", reroute.reason, reroute.via).to_lowercase()
        }
        Order::Continue => "continue".into(),
        Order::Release { goal } => format!("release to {goal:.2?}"),
        Order::Rejoin { speed, .. } => format!("rejoin {speed}"),
        Order::Wait { .. } => "wait".into(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: contact_census SCENARIO.json [--history S] [--track]";
    let track = args.iter().any(|a| a == "--track");
    args.retain(|a| a != "--track");
    let mut history = 3.0;
    if let Some(at) = args.iter().position(|a| a == "--history") {
        history = args.get(at + 1).ok_or(usage)?.parse()?;
        args.drain(at..at + 2);
    }
    let path = args.first().ok_or(usage)?;
    let scenario = Scenario::load(path)?;
    let mut sim = Simulation::new(&scenario)?;
    // Written, not printed: a closed pipe (`| head`) ends the run with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let mut seen = 0;
    // The last second of every agent's position, speed and state (with `--track`).
    let kept = (1.0 / scenario.dt).ceil() as usize;
    let mut recent: VecDeque<(f64, Vec<Seen>)> = VecDeque::new();
    while !sim.finished() {
        sim.step();
        if track {
            let time = sim.frame() as f64 * scenario.dt;
            let frame = sim
                .agents()
                .iter()
                .map(|a| Seen {
                    x: a.position.x,
                    y: a.position.y,
                    speed: a.speed,
                    state: a.state(),
                })
                .collect();
            recent.push_back((time, frame));
            if recent.len() > kept {
                recent.pop_front();
            }
        }
        for &(frame, event) in &sim.contact_events[seen..] {
            let time = frame as f64 * scenario.dt;
            writeln!(
                out,
                "{time:8.3} s agents {} and {} at ({:.2}, {:.2})",
                event.a, event.b, event.at.x, event.at.y
            )?;
            for agent in [event.a as usize, event.b as usize] {
                let a = &sim.agents()[agent];
                writeln!(
                    out,
                    "    agent {agent}: {:?} at ({:.3}, {:.3}), s {:.3}, speed {}",
                    a.state(),
                    a.position.x,
                    a.position.y,
                    a.s,
                    a.speed
                )?;
                for record in sim
                    .log
                    .iter()
                    .filter(|r| r.agent == agent && r.time >= time - history)
                {
                    writeln!(
                        out,
                        "      {:8.3} s {}",
                        record.time,
                        describe(&record.order, &sim)
                    )?;
                }
            }
            for (t, frame) in &recent {
                let (a, b) = (&frame[event.a as usize], &frame[event.b as usize]);
                let gap = (a.x - b.x).hypot(a.y - b.y);
                writeln!(
                    out,
                    "    {t:8.3} s  ({:.3}, {:.3}) {} {:?}  ({:.3}, {:.3}) {} {:?}  centres {gap:.4} m",
                    a.x, a.y, a.speed, a.state, b.x, b.y, b.speed, b.state
                )?;
            }
        }
        seen = sim.contact_events.len();
    }
    let m = sim.metrics();
    writeln!(
        out,
        "{}: {} contact episode(s), largest penetration {:.4}",
        m.scenario, m.collisions, m.max_penetration
    )?;
    Ok(())
}
