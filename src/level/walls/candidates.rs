//! The nearest-wall candidate grid: for each cell of a fine grid over the mesh, the few walls
//! that can be the nearest wall of some point of the cell, so that a nearest-wall query inside
//! the mesh's bounding box tests a handful of walls instead of searching rings of wall-grid
//! cells.
//!
//! Why hand-written: the profile of crowded frames (`docs/PERFORMANCE.md`, issue 6) had half of
//! the time in `NavMesh::nearest_wall`, called thousands of times per bend by the rail rewrite's
//! clearance checks, each testing dozens of walls of the wall grid's large cells.
//!
//! Exactness: for a cell with centre `c`, half-diagonal `h` and nearest wall distance `d(c)`,
//! every point `p` of the cell has a wall within `d(c) + h`, and a wall at distance
//! `≤ d(c) + h` from `p` is within `d(c) + 2h` of `c`. The cell lists every wall within
//! `d(c) + 2h` (+ 1e-6 m against rounding) of its centre, so the nearest walls of every point of
//! the cell, ties included, are among its candidates; the query then measures them with the
//! same arithmetic as the ring search, and the answer is the same, bit for bit.

use glam::DVec2;

use super::super::navmesh::NavMesh;
use crate::geometry::closest_on_segment;

/// Most cells of a candidate grid, count: about 2 m cells on a 250 m × 250 m level; 16,384 cells
/// of a few walls each take a few hundred kilobytes and a few milliseconds to build.
const MAX_CELLS: f64 = 16_384.0;

/// Smallest cell side, metres: finer cells would not shorten the lists of small levels.
const MIN_CELL: f64 = 0.25;

/// Slack added to the inclusion distance against rounding, metres.
const SLACK: f64 = 1e-6;

/// Walls that may be nearest to a point, per cell, in compressed rows: the walls of cell `i`
/// are `items[start[i]..start[i + 1]]`, by increasing wall index.
#[derive(Clone, Debug)]
pub(crate) struct WallCandidates {
    origin: DVec2,
    cell: f64,
    columns: usize,
    rows: usize,
    start: Vec<u32>,
    items: Vec<u32>,
}

impl WallCandidates {
    /// The candidate grid of `mesh` over its bounding box (the mesh must have walls).
    pub fn build(mesh: &NavMesh) -> WallCandidates {
        let size = (mesh.max - mesh.min).max(DVec2::splat(1e-6));
        let cell = (size.x * size.y / MAX_CELLS).sqrt().max(MIN_CELL);
        let columns = ((size.x / cell).ceil() as usize).max(1);
        let rows = ((size.y / cell).ceil() as usize).max(1);
        let half_diagonal = 0.5 * cell * std::f64::consts::SQRT_2;
        let mut start = Vec::with_capacity(columns * rows + 1);
        let mut items = Vec::new();
        let mut near = Vec::new();
        start.push(0);
        for r in 0..rows {
            for c in 0..columns {
                let centre = mesh.min + DVec2::new(c as f64 + 0.5, r as f64 + 0.5) * cell;
                let nearest = mesh
                    .nearest_wall_by_rings(centre, f64::INFINITY)
                    .map_or(0.0, |(d, _, _)| d);
                let limit = nearest + 2.0 * half_diagonal + SLACK;
                near.clear();
                mesh.walls_near(centre, limit, &mut near);
                near.sort_unstable();
                near.dedup();
                items.extend(near.iter().copied().filter(|&w| {
                    let (a, b) = mesh.wall_ends(w);
                    closest_on_segment(centre, a, b).0.distance(centre) <= limit
                }));
                start.push(items.len() as u32);
            }
        }
        WallCandidates {
            origin: mesh.min,
            cell,
            columns,
            rows,
            start,
            items,
        }
    }

    /// The candidate walls of the cell holding `point`, or `None` when `point` is outside the
    /// grid (or not finite).
    #[inline]
    pub fn of(&self, point: DVec2) -> Option<&[u32]> {
        let q = (point - self.origin) / self.cell;
        if !(q.x >= 0.0 && q.y >= 0.0) {
            return None;
        }
        // Non-negative here, so `floor(q) < n` is `q < n` and the truncating cast is the floor
        // (no library call for `floor`: `geometry::clamped_cell_coordinate`).
        if !(q.x < self.columns as f64 && q.y < self.rows as f64) {
            return None;
        }
        let i = q.y as usize * self.columns + q.x as usize;
        Some(&self.items[self.start[i] as usize..self.start[i + 1] as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64, for reproducible points.
    fn next(state: &mut u64) -> f64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn candidates_give_the_ring_search_answer_bit_for_bit() {
        for name in [
            "city-small",
            "plaza",
            "doorway",
            "arena",
            "tradeshow",
            "pillar-hall",
        ] {
            let level = crate::level::fixture_level(name);
            let mesh = level.navmesh();
            let (lo, hi) = mesh.bounds();
            let mut state = 6;
            for k in 0..20_000 {
                // Mostly inside the bounding box, some outside, some on cell borders.
                let u = DVec2::new(next(&mut state), next(&mut state));
                let mut p = lo + (hi - lo) * (u * 1.2 - 0.1);
                if k % 7 == 0 {
                    p = (p * 4.0).round() / 4.0;
                }
                for max in [f64::INFINITY, 0.5, 3.0] {
                    let fast = mesh.nearest_wall(p, max);
                    let rings = mesh.nearest_wall_by_rings(p, max).filter(|b| b.0 <= max);
                    assert_eq!(
                        fast.map(|h| (h.distance, h.point)),
                        rings.map(|(d, _, q)| (d, q)),
                        "{name} at {p:?} within {max}"
                    );
                }
            }
        }
    }
}
