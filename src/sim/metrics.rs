//! The run metrics of DESIGN §6, gathered frame by frame.

use std::collections::BTreeSet;

use glam::DVec2;
use serde::Serialize;

/// Orders given during a run, by kind (DESIGN §6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OrderCounts {
    /// Speed changes.
    pub speed_change: u64,
    /// Stops.
    pub stop: u64,
    /// Rail rewrites.
    pub reroute: u64,
}

/// Median and 99th percentile of a per-frame timing, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Percentiles {
    /// Median.
    pub median: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Percentiles {
    /// Median and p99 (nearest rank) of `values` (sorted in place).
    pub fn of(values: &mut [f64]) -> Percentiles {
        if values.is_empty() {
            return Percentiles::default();
        }
        values.sort_by(f64::total_cmp);
        let rank =
            |q: f64| values[((q * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1];
        Percentiles {
            median: rank(0.5),
            p99: rank(0.99),
        }
    }
}

/// The metrics `sidestep run --json` prints, in the order and with the names of DESIGN §6.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    /// Scenario name.
    pub scenario: String,
    /// Number of agents.
    pub agents: usize,
    /// Frames simulated.
    pub frames: usize,
    /// Simulated seconds.
    pub sim_seconds: f64,
    /// Agents with a goal within their radius of it at the end.
    pub reached: usize,
    /// Contact episodes: a pair overlapping by more than 1% of their radii sum, counted once
    /// per contiguous run of overlapping frames.
    pub collisions: u64,
    /// Largest `(rA + rB − d) / (rA + rB)` seen; 0 when none.
    pub max_penetration: f64,
    /// Agent-frames whose centre was outside the navmesh.
    pub off_mesh_frames: u64,
    /// Mean over arrived agents of arrival time since departure over (initial rail length /
    /// preferred speed); 0 when none arrived.
    pub travel_time_ratio: f64,
    /// Orders by kind.
    pub orders: OrderCounts,
    /// Orders reversed within 0.5 s (faster then slower or back, stop then start or back).
    pub order_flips: u64,
    /// Wall-clock time of the avoidance update per frame, microseconds.
    pub avoidance_us_per_frame: Percentiles,
}

/// Pairs whose discs overlap by more than this fraction of their radii sum are in contact.
pub const CONTACT_FRACTION: f64 = 0.01;

/// Contact bookkeeping between frames.
#[derive(Clone, Debug, Default)]
pub struct ContactTracker {
    previous: BTreeSet<(u32, u32)>,
    current: BTreeSet<(u32, u32)>,
    order: Vec<u32>,
    /// Episodes so far.
    pub episodes: u64,
    /// Largest penetration fraction so far.
    pub max_penetration: f64,
}

/// A new contact episode: which agents, where (midpoint of the centres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactEvent {
    /// First agent (scenario index).
    pub a: u32,
    /// Second agent (scenario index).
    pub b: u32,
    /// Midpoint of their centres, metres.
    pub at: DVec2,
}

impl ContactTracker {
    /// Record one frame's positions and radii; new episodes are appended to `events`.
    /// Sort-and-sweep on x: O(n log n + contacts).
    pub fn frame(&mut self, positions: &[DVec2], radii: &[f64], events: &mut Vec<ContactEvent>) {
        std::mem::swap(&mut self.previous, &mut self.current);
        self.current.clear();
        let max_radius = radii.iter().copied().fold(0.0, f64::max);
        self.order.clear();
        self.order.extend(0..positions.len() as u32);
        self.order.sort_by(|&i, &j| {
            positions[i as usize]
                .x
                .total_cmp(&positions[j as usize].x)
                .then(i.cmp(&j))
        });
        for (k, &i) in self.order.iter().enumerate() {
            let (pi, ri) = (positions[i as usize], radii[i as usize]);
            for &j in &self.order[k + 1..] {
                let pj = positions[j as usize];
                if pj.x - pi.x > ri + max_radius {
                    break;
                }
                let radii_sum = ri + radii[j as usize];
                let d = pi.distance(pj);
                let penetration = (radii_sum - d) / radii_sum;
                if penetration > CONTACT_FRACTION {
                    let pair = (i.min(j), i.max(j));
                    self.current.insert(pair);
                    if penetration > self.max_penetration {
                        self.max_penetration = penetration;
                    }
                    if !self.previous.contains(&pair) {
                        self.episodes += 1;
                        events.push(ContactEvent {
                            a: pair.0,
                            b: pair.1,
                            at: (pi + pj) * 0.5,
                        });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_episode_is_counted_once_per_contiguous_run() {
        let mut t = ContactTracker::default();
        let radii = [0.5, 0.5];
        let mut events = Vec::new();
        for d in [2.0, 0.95, 0.9, 0.95, 2.0, 0.8, 0.995] {
            t.frame(&[DVec2::ZERO, DVec2::new(d, 0.0)], &radii, &mut events);
        }
        // 0.995 overlaps by 0.5%, under the 1% threshold.
        assert_eq!(t.episodes, 2);
        assert_eq!(events.len(), 2);
        assert!((t.max_penetration - 0.2).abs() < 1e-12);
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        let p = Percentiles::of(&mut v);
        assert_eq!((p.median, p.p99), (50.0, 99.0));
    }
}
