//! The free agents' neighbour search: a spatial hash of the agents' positions with cells sized
//! to the neighbour distance, the query for every agent within a range, and the choice of the k
//! nearest among candidates.
//!
//! [`crate::World::steer_all`] builds it over every agent (free, rail and stationary, in the
//! world's key order) when it makes its candidate lists, which are then reused for several
//! frames (see `CANDIDATE_SKIN` in `free.rs`). Why not the world's broad-phase grid: that one
//! spans the whole level with cells sized to the rail agents' detection ranges (a few metres),
//! so on a large level it was rebuilt over tens of thousands of mostly empty cells every frame,
//! and each ORCA query (15 m in the Circle example) walked dozens of them through the agents'
//! slot map (`benches/orca_circle.rs`, docs/PERFORMANCE.md). Here cells are hashed into a table
//! of about two buckets per agent, so building is linear in the number of agents whatever the
//! level's size or the crowd's shape (a ring of agents around an empty centre costs no empty
//! cells), and positions are stored bucket by bucket so a query scans contiguous memory.

use glam::DVec2;

/// Cells per neighbour distance: cells of `range / CELLS_PER_RANGE` metres; a query scans
/// `(2 × CELLS_PER_RANGE + 1)²` cells, about `(2 + 1 / CELLS_PER_RANGE)² / π` times the disc's
/// area. 1 (9 cells, 2.9× the disc) measured faster than 2 (25 cells, 2×) on the Circle example:
/// a cell visit costs more than a few extra distance tests.
const CELLS_PER_RANGE: f64 = 1.0;

/// Cell coordinates are clamped to ± this, so that far-away and non-finite positions still have
/// a cell (they are only found by their distance, which is then large or not finite).
const MAX_CELL_COORD: f64 = 1.0e9;

/// Agents bucketed by hashed cell, positions copied in bucket order (then agent index), rebuilt
/// without allocating once the buffers have grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct NeighbourGrid {
    inv_cell: f64,
    cell: f64,
    /// log2 of the number of buckets.
    bits: u32,
    /// Points of bucket `b` are `points[start[b]..start[b + 1]]`.
    start: Vec<u32>,
    /// Positions in bucket order.
    points: Vec<DVec2>,
    /// The agent index and the cell of each point.
    index: Vec<u32>,
    cells: Vec<[i32; 2]>,
    bucket_of: Vec<u32>,
}

impl NeighbourGrid {
    /// Rebuild over `positions` (agent index = position in the slice) for queries of up to
    /// `range` metres (a non-positive or non-finite range gives cells of 1 m).
    pub fn rebuild(&mut self, positions: &[DVec2], range: f64) {
        let cell = if range.is_finite() && range > 0.0 {
            range / CELLS_PER_RANGE
        } else {
            1.0
        };
        self.cell = cell;
        self.inv_cell = 1.0 / cell;
        self.bits = (2 * positions.len())
            .max(16)
            .next_power_of_two()
            .trailing_zeros();
        let buckets = 1usize << self.bits;
        self.start.clear();
        self.start.resize(buckets + 1, 0);
        self.bucket_of.clear();
        self.cells.clear();
        for &p in positions {
            let c = self.cell_of(p);
            let b = self.bucket(c);
            self.bucket_of.push(b as u32);
            self.cells.push(c);
            self.start[b + 1] += 1;
        }
        for b in 0..buckets {
            self.start[b + 1] += self.start[b];
        }
        let n = positions.len();
        self.points.clear();
        self.points.resize(n, DVec2::ZERO);
        self.index.clear();
        self.index.resize(n, 0);
        // The cells move into bucket order too: fill a second half and rotate it in.
        self.cells.resize(2 * n, [0, 0]);
        // Fill each bucket from its start (the start array serves as the cursors, shifted by
        // one bucket, and is shifted back afterwards).
        for (i, &p) in positions.iter().enumerate() {
            let b = self.bucket_of[i] as usize;
            let slot = self.start[b] as usize;
            self.points[slot] = p;
            self.index[slot] = i as u32;
            self.cells[n + slot] = self.cells[i];
            self.start[b] += 1;
        }
        self.cells.drain(..n);
        for b in (1..=buckets).rev() {
            self.start[b] = self.start[b - 1];
        }
        self.start[0] = 0;
    }

    /// The cell of `p` (clamped; NaN goes to 0).
    #[inline]
    fn cell_of(&self, p: DVec2) -> [i32; 2] {
        let q = (p * self.inv_cell).floor();
        // `as` saturates and maps NaN to 0.
        [
            q.x.clamp(-MAX_CELL_COORD, MAX_CELL_COORD) as i32,
            q.y.clamp(-MAX_CELL_COORD, MAX_CELL_COORD) as i32,
        ]
    }

    /// The bucket of a cell (a multiplicative hash of its coordinates).
    #[inline]
    fn bucket(&self, [x, y]: [i32; 2]) -> usize {
        let h = (x as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (y as u32 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h.wrapping_mul(0x2545_F491_4F6C_DD1D) >> (64 - self.bits)) as usize
    }

    /// Every agent other than `skip` whose centre is closer than `range` to `centre` (strictly),
    /// appended to `out` in no particular order.
    pub fn within(&self, centre: DVec2, range: f64, skip: u32, out: &mut Vec<u32>) {
        if self.start.is_empty() || range.is_nan() || range <= 0.0 || !centre.is_finite() {
            return;
        }
        let range_sq = range * range;
        let [cx, cy] = self.cell_of(centre);
        // A point closer than `range` is at most this many cells away along each axis
        // (|Δx| < range, so the floors differ by less than range / cell + 1).
        let reach = (range * self.inv_cell).ceil().min(MAX_CELL_COORD) as i64;
        let mut offer = |k: usize| {
            let d = self.points[k].distance_squared(centre);
            if d < range_sq && self.index[k] != skip {
                out.push(self.index[k]);
            }
        };
        if (2 * reach + 1).saturating_mul(2 * reach + 1) > 2 * self.points.len() as i64 + 64 {
            // A range far beyond the cells: fewer points than cells to visit, so scan them all.
            (0..self.points.len()).for_each(offer);
            return;
        }
        let reach = reach as i32;
        for y in cy - reach..=cy + reach {
            for x in cx - reach..=cx + reach {
                let b = self.bucket([x, y]);
                for k in self.start[b] as usize..self.start[b + 1] as usize {
                    // Another cell may share the bucket: it is visited on its own.
                    if self.cells[k] == [x, y] {
                        offer(k);
                    }
                }
            }
        }
    }
}

/// The at most `max` of `candidates` (indices into `positions`) whose centres are closer than
/// `range` to `centre` (strictly), nearest first, ties by index, as `(squared distance, index)`
/// into `out` (cleared first). The answer does not depend on the candidates' order.
pub(crate) fn nearest_among(
    candidates: &[u32],
    positions: &[DVec2],
    centre: DVec2,
    range: f64,
    max: usize,
    out: &mut Vec<(f64, u32)>,
) {
    out.clear();
    if max == 0 {
        return;
    }
    let range_sq = range * range;
    for &i in candidates {
        let d = positions[i as usize].distance_squared(centre);
        if d.is_nan() || d >= range_sq {
            continue;
        }
        let n = out.len();
        if n == max {
            let last = out[n - 1];
            if d > last.0 || (d == last.0 && i > last.1) {
                continue;
            }
            out.pop();
        }
        // Insertion into the sorted list (RVO2's insertAgentNeighbor): a handful.
        out.push((d, i));
        let mut at = out.len() - 1;
        while at > 0 && (out[at - 1].0 > d || (out[at - 1].0 == d && out[at - 1].1 > i)) {
            out[at] = out[at - 1];
            at -= 1;
        }
        out[at] = (d, i);
    }
}

/// A candidate list sorted by the candidates' distances to the centre when it was made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortedCandidates<'a> {
    /// Indices into the positions.
    pub candidates: &'a [u32],
    /// Their distances when the list was made, metres, one per candidate, non-decreasing.
    pub listed: &'a [f64],
    /// By how much any of those distances may have changed since, metres.
    pub slack: f64,
}

/// [`nearest_among`] over a [`SortedCandidates`] list: the same answer, but the scan stops at
/// the first candidate that, by its listed distance less the slack, is out of range or beyond
/// the `max`-th nearest found so far, since no later one can be nearer. `steer_all`'s candidate
/// lists are made sorted and stay nearly sorted while they are used (agents move a fraction of
/// a skin), so most of each list is not looked at.
pub(crate) fn nearest_among_sorted(
    SortedCandidates {
        candidates,
        listed,
        slack,
    }: SortedCandidates<'_>,
    positions: &[DVec2],
    centre: DVec2,
    range: f64,
    max: usize,
    out: &mut Vec<(f64, u32)>,
) {
    out.clear();
    if max == 0 || candidates.is_empty() {
        return;
    }
    debug_assert_eq!(candidates.len(), listed.len());
    let range_sq = range * range;
    // The answer is built in place: `n` entries, sorted.
    let cap = max.min(candidates.len());
    out.resize(cap, (f64::INFINITY, u32::MAX));
    let buf = &mut out[..cap];
    let mut n = 0;
    for (&i, &then) in candidates.iter().zip(listed) {
        // Every later candidate is at least this far now: none can be taken.
        let floor = then - slack;
        if floor > 0.0 {
            let floor_sq = floor * floor;
            if floor_sq >= range_sq || (n == max && floor_sq > buf[n - 1].0) {
                break;
            }
        }
        let d = positions[i as usize].distance_squared(centre);
        if d.is_nan() || d >= range_sq {
            continue;
        }
        let mut at = if n == max {
            let last = buf[n - 1];
            if d > last.0 || (d == last.0 && i > last.1) {
                continue;
            }
            n - 1
        } else {
            n += 1;
            n - 1
        };
        while at > 0 {
            let previous = buf[at - 1];
            if previous.0 > d || (previous.0 == d && previous.1 > i) {
                buf[at] = previous;
                at -= 1;
            } else {
                break;
            }
        }
        buf[at] = (d, i);
    }
    out.truncate(n);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answer by brute force.
    fn brute(
        points: &[DVec2],
        centre: DVec2,
        range: f64,
        max: usize,
        skip: u32,
    ) -> Vec<(f64, u32)> {
        let mut all: Vec<(f64, u32)> = points
            .iter()
            .enumerate()
            .map(|(i, p)| (p.distance_squared(centre), i as u32))
            .filter(|&(d, i)| d < range * range && i != skip)
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        all.truncate(max);
        all
    }

    /// `within` then `nearest_among`.
    fn nearest(
        grid: &NeighbourGrid,
        points: &[DVec2],
        centre: DVec2,
        range: f64,
        max: usize,
        skip: u32,
    ) -> Vec<(f64, u32)> {
        let mut candidates = Vec::new();
        grid.within(centre, range, skip, &mut candidates);
        let mut sorted = candidates.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), candidates.len(), "no duplicates");
        let mut out = vec![(1.0, 1)];
        nearest_among(&candidates, points, centre, range, max, &mut out);
        // The order of the candidates does not matter.
        candidates.reverse();
        let mut reversed = Vec::new();
        nearest_among(&candidates, points, centre, range, max, &mut reversed);
        assert_eq!(out, reversed);
        out
    }

    #[test]
    fn nearest_matches_brute_force_with_ties_by_index() {
        // A lattice (many equal distances) plus scattered points, some far outside.
        let mut points = Vec::new();
        for y in 0..12 {
            for x in 0..12 {
                points.push(DVec2::new(x as f64, y as f64));
            }
        }
        let mut s = 0x2545_f491_4f6c_dd1d_u64;
        let mut unit = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            let (u, v) = (unit(), unit());
            points.push(DVec2::new(-20.0 + 60.0 * u, -5.0 + 30.0 * v));
        }
        let mut grid = NeighbourGrid::default();
        for range in [0.5, 1.0, 2.5, 7.0, 100.0] {
            grid.rebuild(&points, range);
            for (k, &centre) in points.iter().enumerate().step_by(7) {
                for max in [0, 1, 4, 10, 1000] {
                    assert_eq!(
                        nearest(&grid, &points, centre, range, max, k as u32),
                        brute(&points, centre, range, max, k as u32)
                    );
                }
            }
            // A query point that is not an agent, off the grid; a range beyond the cells.
            let far = DVec2::new(50.0, 50.0);
            for r in [range, 10.0 * range] {
                assert_eq!(
                    nearest(&grid, &points, far, r, 5, u32::MAX),
                    brute(&points, far, r, 5, u32::MAX)
                );
            }
        }
    }

    #[test]
    fn sorted_search_with_lower_bounds_matches_brute_force() {
        // Points listed at `listed`, then moved by up to `drift`: every distance changed by
        // up to 2 × drift.
        let mut s = 0x9e37_79b9_7f4a_7c15_u64;
        let mut unit = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for trial in 0..40 {
            let drift = [0.0, 0.1, 0.5, 2.0][trial % 4];
            let n = 5 + trial * 7;
            let listed: Vec<DVec2> = (0..n)
                .map(|_| DVec2::new(20.0 * unit(), 20.0 * unit()))
                .collect();
            let mut moved: Vec<DVec2> = listed
                .iter()
                .map(|&p| {
                    let a = std::f64::consts::TAU * unit();
                    p + DVec2::from_angle(a) * drift * unit()
                })
                .collect();
            // Some exact ties (listed where they are now).
            moved[1] = moved[0] + DVec2::new(1.0, 0.0);
            moved[2] = moved[0] + DVec2::new(0.0, -1.0);
            let mut listed = listed;
            listed[1] = moved[1];
            listed[2] = moved[2];
            for (centre_index, range, max) in
                [(0, 8.0, 5), (3, 30.0, 10), (1, 2.0, 3), (4, 15.0, 1)]
            {
                let skip = centre_index as u32;
                let (c_then, c_now) = (listed[centre_index], moved[centre_index]);
                let mut order: Vec<(f64, u32)> = (0..n as u32)
                    .filter(|&j| j != skip)
                    .map(|j| (listed[j as usize].distance_squared(c_then), j))
                    .collect();
                order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let candidates: Vec<u32> = order.iter().map(|o| o.1).collect();
                let then: Vec<f64> = order.iter().map(|o| o.0.sqrt()).collect();
                // Each end moved up to `drift` (a hair more for rounding).
                let slack = 2.0 * drift * (1.0 + 1e-9) + 1e-9;
                let mut out = vec![(0.0, 0)];
                nearest_among_sorted(
                    SortedCandidates {
                        candidates: &candidates,
                        listed: &then,
                        slack,
                    },
                    &moved,
                    c_now,
                    range,
                    max,
                    &mut out,
                );
                assert_eq!(out, brute(&moved, c_now, range, max, skip), "trial {trial}");
            }
        }
    }

    #[test]
    fn far_apart_points_keep_the_table_small() {
        let points: Vec<DVec2> = (0..100)
            .map(|i| DVec2::new(1000.0 * i as f64, -500.0 * i as f64))
            .collect();
        let mut grid = NeighbourGrid::default();
        grid.rebuild(&points, 1.0);
        assert_eq!(grid.start.len(), 256 + 1);
        let found = nearest(&grid, &points, points[3], 1500.0, 10, 3);
        assert_eq!(found.iter().map(|n| n.1).collect::<Vec<_>>(), vec![2, 4]);
    }

    #[test]
    fn empty_and_degenerate_inputs() {
        let mut grid = NeighbourGrid::default();
        let mut out = Vec::new();
        grid.within(DVec2::ZERO, 1.0, 0, &mut out);
        assert!(out.is_empty());
        grid.rebuild(&[], 1.0);
        grid.within(DVec2::ZERO, 1.0, 0, &mut out);
        assert!(out.is_empty());
        let points = [DVec2::new(f64::NAN, 0.0), DVec2::ZERO, DVec2::new(0.5, 0.0)];
        grid.rebuild(&points, f64::NAN);
        assert_eq!(
            nearest(&grid, &points, DVec2::ZERO, 1.0, 3, 1),
            vec![(0.25, 2)]
        );
        grid.within(DVec2::new(f64::NAN, 0.0), 1.0, 9, &mut out);
        assert!(out.is_empty());
    }
}
