//! What moving agents stop for: plays a scenario file in the built-in host up to a time and
//! sorts every stop order given by its cause (a clean stop or an unavoidable one) and by the
//! collider it answered: walking (or starting, or stopping), standing and wanting to go, or with
//! nowhere to go; ahead of the stopping agent or not; going its way (within 45°), coming at it
//! (beyond 135°) or across. Each line also says how many of those stops were for a graze within
//! the margins (the predicted discs overlap by no more than the two margins, so the agents'
//! own discs would not touch), and the quartiles of the collision's time ahead. The census behind
//! docs/ROBUSTNESS.md, "Session 20: what walkers stop for".
//!
//! `cargo run --release --example stop_census -- SCENARIO.json [SECONDS]` (default: the whole
//! scenario).

use std::collections::BTreeMap;
use std::io::Write;

use sidestep::{Order, Phase, Scenario, Simulation, StopCause, World};

/// Two directions count as "the same way" within this angle, degrees, and as "coming at it"
/// beyond 180° less it.
const SAME_WAY_DEGREES: f64 = 45.0;

/// The stops of one kind: how many, how many for a graze within the margins, and the
/// collision's time ahead for each, seconds.
#[derive(Default)]
struct Tally {
    stops: usize,
    grazes: usize,
    times: Vec<f64>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: stop_census SCENARIO.json [SECONDS]";
    let file = args.first().ok_or(usage)?;
    let scenario = Scenario::load(file)?;
    let until: f64 = match args.get(1) {
        Some(seconds) => seconds.parse()?,
        None => scenario.duration,
    };
    let mut sim = Simulation::new(&scenario)?;
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut other_stops = 0usize;
    while sim.world().time() < until && !sim.finished() {
        sim.step();
        let world = sim.world();
        for host in sim.agents() {
            let Some(Order::Stop { cause }) = &host.order else {
                continue;
            };
            let (what, collision) = match cause {
                StopCause::Collision(c) => ("clean", c),
                StopCause::Unavoidable(c) => ("unavoidable", c),
                _ => {
                    other_stops += 1;
                    continue;
                }
            };
            let kind = describe(world, host.key, collision.collider)
                .unwrap_or_else(|| "collider gone".to_string());
            let tally = tallies.entry(format!("{what}, {kind}")).or_default();
            tally.stops += 1;
            let agent = world.agent(host.key)?;
            let collider = world.agent(collision.collider)?;
            let margin = world.config().margin;
            let radii = agent.desc().radius + collider.desc().radius + 2.0 * margin;
            if collision.overlap * radii <= 2.0 * margin {
                tally.grazes += 1;
            }
            tally.times.push(collision.time);
        }
    }
    // Written, not printed: a closed pipe (`| head`) ends the run with an error, not a panic.
    let mut out = std::io::stdout().lock();
    let total: usize = tallies.values().map(|t| t.stops).sum();
    writeln!(
        out,
        "{}: {total} stops for a collision up to t = {:.1} s ({other_stops} for other causes)",
        scenario.name,
        sim.world().time()
    )?;
    writeln!(
        out,
        "  stops  grazes  time ahead q1 / median / q3 (s)  cause, collider"
    )?;
    let mut rows: Vec<(String, Tally)> = tallies.into_iter().collect();
    rows.sort_by(|a, b| b.1.stops.cmp(&a.1.stops).then_with(|| a.0.cmp(&b.0)));
    for (kind, mut tally) in rows {
        tally.times.sort_by(f64::total_cmp);
        let quartile = |q: f64| tally.times[((tally.times.len() - 1) as f64 * q).round() as usize];
        writeln!(
            out,
            "  {:5}  {:6}  {:5.2} / {:5.2} / {:5.2}                {kind}",
            tally.stops,
            tally.grazes,
            quartile(0.25),
            quartile(0.5),
            quartile(0.75)
        )?;
    }
    Ok(())
}

/// The collider as the stopping agent sees it after the frame: what it is doing, where it is
/// and which way it goes (`None` if either agent has left the world).
fn describe(
    world: &World,
    key: sidestep::AgentKey,
    collider: sidestep::AgentKey,
) -> Option<String> {
    let agent = world.agent(key).ok()?;
    let other = world.agent(collider).ok()?;
    let doing = if !other.wants_to_move() {
        "nowhere to go"
    } else if other.motion().phase == Phase::Standing {
        "standing"
    } else {
        "walking"
    };
    let ahead = (other.position() - agent.position()).dot(agent.direction()) > 0.0;
    let cos = other.direction().dot(agent.direction());
    let same = SAME_WAY_DEGREES.to_radians().cos();
    let way = if cos >= same {
        "same way"
    } else if cos <= -same {
        "coming at it"
    } else {
        "across"
    };
    Some(format!(
        "{doing}, {}, {way}",
        if ahead { "ahead" } else { "not ahead" }
    ))
}
