//! Agent trips from MovingAI queries: start and goal cell centres for a crowd of rail agents,
//! moved to the nearest free cell where an earlier agent already stands or ends.
//!
//! Grid benchmark files reuse cells freely (`arena.map.scen` starts its 160 queries from only 19
//! cells), but agents of a crowd cannot share a start or a goal. Trip `k` uses query
//! `k mod queries` (so asking for more agents than queries goes round the file again); its start
//! is the query's start cell when no earlier trip starts within `2 × radius × 1.05` of its centre
//! and the centre is at least `radius` from every wall, and otherwise the nearest passable cell
//! (by distance between centres, ties in row-major order) that is; the goal likewise among the
//! goals. A trip with no rail for the radius (goal on another island, a gap too narrow) is
//! skipped.

use glam::DVec2;

use super::movingai::MovingAiImport;
use crate::level::PathOptions;

/// Starts (and goals) are kept this factor × the sum of radii apart.
const SPACING: f64 = 1.05;

/// How [`MovingAiImport::trips`] makes trips.
#[derive(Clone, Debug, PartialEq)]
pub struct TripOptions {
    /// Number of trips, ≥ 0. Default 100.
    pub count: usize,
    /// Collision radius of the agents, metres, finite and > 0. Default 0.4.
    pub radius: f64,
    /// Smallest distance between any two trip ends (starts and goals), metres; raised to
    /// `2 × radius × 1.05` when smaller. Default 0 (just that).
    pub spacing: f64,
}

impl Default for TripOptions {
    fn default() -> Self {
        TripOptions {
            count: 100,
            radius: 0.4,
            spacing: 0.0,
        }
    }
}

/// One agent's trip.
#[derive(Clone, Debug, PartialEq)]
pub struct MovingAiTrip {
    /// Index of the query it comes from in [`MovingAiImport::queries`].
    pub query: usize,
    /// Start, metres (a cell centre).
    pub start: DVec2,
    /// Goal, metres (a cell centre).
    pub goal: DVec2,
    /// Whether the start or the goal was moved off the query's cell.
    pub moved: bool,
    /// Length of the rail planned for the radius, metres.
    pub rail_length: f64,
}

impl MovingAiImport {
    /// Up to `options.count` trips from the queries (see the module documentation); fewer when
    /// the map runs out of room or the queries of rails. Deterministic.
    pub fn trips(&self, options: &TripOptions) -> Vec<MovingAiTrip> {
        let radius = options.radius;
        if self.queries.is_empty() || !(radius.is_finite() && radius > 0.0) {
            return Vec::new();
        }
        let mesh = self.level.navmesh();
        let spacing = options.spacing.max(2.0 * radius * SPACING);
        let path_options = PathOptions::from_agent_radius(radius);
        let map = &self.map;
        let cells: Vec<DVec2> = (0..map.height)
            .flat_map(|row| (0..map.width).map(move |column| (column, row)))
            .filter(|&(column, row)| map.is_passable(column, row))
            .map(|(column, row)| map.cell_centre(column, row, self.cell))
            .filter(|&p| mesh.wall_distance(p) >= radius)
            .collect();
        let free = |p: DVec2, taken: &[DVec2]| taken.iter().all(|t| t.distance(p) >= spacing);
        let place = |wanted: DVec2, taken: &[DVec2]| -> Option<DVec2> {
            if mesh.wall_distance(wanted) >= radius && free(wanted, taken) {
                return Some(wanted);
            }
            cells
                .iter()
                .copied()
                .filter(|&p| free(p, taken))
                .min_by(|a, b| {
                    a.distance_squared(wanted)
                        .total_cmp(&b.distance_squared(wanted))
                })
        };
        let mut trips = Vec::with_capacity(options.count);
        // Every start and goal so far: no agent starts or ends where another starts or ends.
        let mut taken: Vec<DVec2> = Vec::new();
        // Each query is tried at most once per round; stop after a round that adds nothing.
        let mut k = 0usize;
        let mut added_this_round = false;
        while trips.len() < options.count {
            let index = k % self.queries.len();
            if index == 0 && k > 0 {
                if !added_this_round {
                    break;
                }
                added_this_round = false;
            }
            k += 1;
            let q = &self.queries[index];
            let Some(start) = place(q.start, &taken) else {
                continue;
            };
            taken.push(start);
            let goal = place(q.goal, &taken);
            taken.pop();
            let Some(goal) = goal else {
                continue;
            };
            let Ok(rail) = mesh.plan_rail(start, goal, &path_options) else {
                continue;
            };
            taken.push(start);
            taken.push(goal);
            added_this_round = true;
            trips.push(MovingAiTrip {
                query: index,
                start,
                goal,
                moved: start != q.start || goal != q.goal,
                rail_length: rail.length(),
            });
        }
        trips
    }
}
