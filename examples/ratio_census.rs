//! How the mean travel time ratio of a scenario is made up: plays a scenario file in the
//! built-in host and prints, for every agent that arrived, its travel time ratio (DESIGN §6:
//! arrival time since departure over its first rail's length at its preferred speed), the
//! slowest first, then how the ratios spread (quartiles) and how much of the mean's excess
//! over 1 the slowest tenth carries.
//!
//! `cargo run --release --example ratio_census -- fixtures/scenarios/arena-200.json [N]`
//! (N: how many of the slowest to list, default 20).

use std::io::Write;

use sidestep::{Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: ratio_census SCENARIO.json [N]")?;
    let listed: usize = args.get(1).map_or(Ok(20), |n| n.parse())?;
    let scenario = Scenario::load(path)?;
    let mut sim = Simulation::new(&scenario)?;
    while !sim.finished() {
        sim.step();
    }
    let mut ratios: Vec<(f64, usize, f64)> = sim
        .agents()
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let arrived = a.arrived_at?;
            let free = a.planned_length / a.desc.preferred_speed;
            (free > 0.0).then(|| ((arrived - a.depart) / free, i, free))
        })
        .collect();
    ratios.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // Written, not printed: a closed pipe (`| head`) ends the run with an error, not a panic.
    let mut out = std::io::stdout().lock();
    for &(ratio, i, free) in ratios.iter().take(listed) {
        let a = &sim.agents()[i];
        let start = a.desc.position;
        writeln!(
            out,
            "agent {i:4}: ratio {ratio:5.2}, free time {free:5.1} s, from ({:.1}, {:.1})",
            start.x, start.y
        )?;
    }
    if ratios.is_empty() {
        return Ok(());
    }
    let n = ratios.len();
    let mean = ratios.iter().map(|r| r.0).sum::<f64>() / n as f64;
    let quartile = |q: f64| ratios[((1.0 - q) * (n - 1) as f64).round() as usize].0;
    let tenth = n.div_ceil(10);
    let excess_top: f64 = ratios[..tenth].iter().map(|r| r.0 - 1.0).sum();
    let excess: f64 = ratios.iter().map(|r| r.0 - 1.0).sum();
    writeln!(
        out,
        "{n} arrived, mean {mean:.3}; quartiles {:.2} / {:.2} / {:.2}; the slowest tenth carries {:.0} % of the excess over 1",
        quartile(0.25),
        quartile(0.5),
        quartile(0.75),
        100.0 * excess_top / excess.max(1e-9)
    )?;
    Ok(())
}
