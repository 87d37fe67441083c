use sidestep::{Scenario, Simulation};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let sc = Scenario::load(&path).unwrap();
    let mut sim = Simulation::new(&sc).unwrap();
    // per pair: max depth, frame
    let mut best: std::collections::HashMap<(usize, usize), (f64, usize, String)> = Default::default();
    while !sim.finished() {
        sim.step();
        let ag = sim.agents();
        let mut idx: Vec<usize> = (0..ag.len()).collect();
        idx.sort_by(|&a, &b| ag[a].position.x.partial_cmp(&ag[b].position.x).unwrap());
        for x in 0..idx.len() { for y in x+1..idx.len() {
            let (i, j) = (idx[x].min(idx[y]), idx[x].max(idx[y]));
            if (ag[idx[y]].position.x - ag[idx[x]].position.x) > 1.0 { break; }
            let d = ag[i].position.distance(ag[j].position);
            let rr = ag[i].desc.radius + ag[j].desc.radius;
            let p = (rr - d) / rr;
            if p > 0.04 {
                let kind = |a: &sidestep::HostAgent| format!("{}{:?}@{:.2}", if a.released {"free-"} else {"rail-"}, a.state(), if a.released { a.velocity.length() } else { a.speed });
                let e = best.entry((i, j)).or_insert((0.0, 0, String::new()));
                if p > e.0 { *e = (p, sim.frame(), format!("{} | {}", kind(&ag[i]), kind(&ag[j]))); }
            }
        }}
    }
    let mut v: Vec<_> = best.into_iter().collect();
    v.sort_by(|a, b| b.1 .0.partial_cmp(&a.1 .0).unwrap());
    for ((i, j), (p, f, k)) in v.iter().take(25) { println!("{p:.3} frame {f} ({:.2} s) agents {i} {j}: {k}", *f as f64 / 30.0); }
}
