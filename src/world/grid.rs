//! The broad phase: a uniform grid of agent indices, rebuilt each frame without allocating.

use glam::DVec2;

use crate::geometry::clamped_cell_coordinate;

/// The grid has at most this many cells per agent (plus 64): on a large level with few agents
/// its cells grow instead.
const MAX_CELLS_PER_AGENT: usize = 4;

/// A rectangle of grid cells, inclusive: columns `x0..=x1`, rows `y0..=y1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellRect {
    pub x0: usize,
    pub y0: usize,
    pub x1: usize,
    pub y1: usize,
}

/// Agents bucketed by cell, in compressed rows: the agents of cell `c` are
/// `items[start[c]..start[c + 1]]`, in increasing index order (so iteration is deterministic).
#[derive(Clone, Debug, Default)]
pub struct AgentGrid {
    origin: DVec2,
    cell: f64,
    columns: usize,
    rows: usize,
    start: Vec<u32>,
    items: Vec<u32>,
    cell_of: Vec<u32>,
}

impl AgentGrid {
    /// Rebuild over the rectangle `[lo, hi]` with cells of side `cell` metres, from the
    /// agents' positions (index = position in the slice). Points outside the rectangle go to
    /// the nearest border cell. Reuses its buffers: no allocation once they are large enough.
    pub fn rebuild(
        &mut self,
        lo: DVec2,
        hi: DVec2,
        cell: f64,
        positions: impl ExactSizeIterator<Item = DVec2> + Clone,
    ) {
        let cell = if cell.is_finite() && cell > 0.0 {
            cell
        } else {
            4.0
        };
        let size = (hi - lo).max(DVec2::ZERO);
        // Keep the grid to at most 2^22 cells whatever the level size, and to at most
        // MAX_CELLS_PER_AGENT cells per agent (+ 64), so that a rebuild stays linear in the
        // agents on a large level (the Circle example: 250 agents on 460 m × 460 m had 17,000
        // cells of 3.5 m, most of the frame's time in ORCA-only scenarios).
        let mut cell = cell;
        let limit = ((MAX_CELLS_PER_AGENT * positions.len() + 64) as f64).min((1u64 << 22) as f64);
        while (size.x / cell + 1.0) * (size.y / cell + 1.0) > limit {
            cell *= 2.0;
        }
        self.origin = lo;
        self.cell = cell;
        self.columns = (size.x / cell).floor() as usize + 1;
        self.rows = (size.y / cell).floor() as usize + 1;
        let cells = self.columns * self.rows;
        self.start.clear();
        self.start.resize(cells + 1, 0);
        self.cell_of.clear();
        for p in positions.clone() {
            let c = self.cell_index(p) as u32;
            self.cell_of.push(c);
            self.start[c as usize + 1] += 1;
        }
        for c in 0..cells {
            self.start[c + 1] += self.start[c];
        }
        self.items.clear();
        self.items.resize(self.cell_of.len(), 0);
        // Fill each cell from its start; a cursor per cell is the start array shifted, so walk
        // it and restore it afterwards.
        for (i, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut self.start[c as usize];
            self.items[*slot as usize] = i as u32;
            *slot += 1;
        }
        for c in (1..=cells).rev() {
            self.start[c] = self.start[c - 1];
        }
        self.start[0] = 0;
    }

    /// Bytes allocated by its buffers.
    pub fn heap_bytes(&self) -> usize {
        (self.start.capacity() + self.items.capacity() + self.cell_of.capacity())
            * std::mem::size_of::<u32>()
    }

    fn coords(&self, p: DVec2) -> (usize, usize) {
        let q = (p - self.origin) / self.cell;
        let x = if q.x.is_finite() {
            clamped_cell_coordinate(q.x, self.columns - 1)
        } else {
            0
        };
        let y = if q.y.is_finite() {
            clamped_cell_coordinate(q.y, self.rows - 1)
        } else {
            0
        };
        (x, y)
    }

    fn cell_index(&self, p: DVec2) -> usize {
        let (x, y) = self.coords(p);
        y * self.columns + x
    }

    /// The cells (first and last column, first and last row) that the square of half-side
    /// `reach` around `centre` meets; `None` for an empty grid.
    pub fn cells_near(&self, centre: DVec2, reach: f64) -> Option<CellRect> {
        if self.columns == 0 {
            return None;
        }
        let reach = if reach.is_finite() {
            reach.max(0.0)
        } else {
            f64::MAX / 4.0
        };
        let (x0, y0) = self.coords(centre - DVec2::splat(reach));
        let (x1, y1) = self.coords(centre + DVec2::splat(reach));
        Some(CellRect { x0, y0, x1, y1 })
    }

    /// Whether [`AgentGrid::near`] for `centre` and `reach` lists agent `index` (as numbered
    /// at the last rebuild), without listing the others.
    pub fn lists(&self, index: usize, centre: DVec2, reach: f64) -> bool {
        let (Some(rect), Some(&cell)) = (self.cells_near(centre, reach), self.cell_of.get(index))
        else {
            return false;
        };
        let (x, y) = (cell as usize % self.columns, cell as usize / self.columns);
        (rect.x0..=rect.x1).contains(&x) && (rect.y0..=rect.y1).contains(&y)
    }

    /// Whether `visit` returns true for some agent whose cell meets the square of half-side
    /// `reach` around `centre` (the agents [`AgentGrid::near`] lists, in its order), stopping at
    /// the first; nothing is gathered.
    pub fn any_near(
        &self,
        centre: DVec2,
        reach: f64,
        mut visit: impl FnMut(usize) -> bool,
    ) -> bool {
        let Some(CellRect { x0, y0, x1, y1 }) = self.cells_near(centre, reach) else {
            return false;
        };
        (y0..=y1).any(|y| {
            let row = y * self.columns;
            let a = self.start[row + x0] as usize;
            let b = self.start[row + x1 + 1] as usize;
            self.items[a..b].iter().any(|&i| visit(i as usize))
        })
    }

    /// Append to `out` every agent whose cell meets the square of half-side `reach` around
    /// `centre`, in row-major cell order then index order.
    pub fn near(&self, centre: DVec2, reach: f64, out: &mut Vec<u32>) {
        let Some(CellRect { x0, y0, x1, y1 }) = self.cells_near(centre, reach) else {
            return;
        };
        for y in y0..=y1 {
            let row = y * self.columns;
            let a = self.start[row + x0] as usize;
            let b = self.start[row + x1 + 1] as usize;
            out.extend_from_slice(&self.items[a..b]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_exactly_the_agents_in_nearby_cells() {
        let points = [
            DVec2::new(1.0, 1.0),
            DVec2::new(9.0, 9.0),
            DVec2::new(1.5, 1.2),
            DVec2::new(-5.0, 50.0),
        ];
        let mut grid = AgentGrid::default();
        grid.rebuild(
            DVec2::ZERO,
            DVec2::new(10.0, 10.0),
            2.0,
            points.iter().copied(),
        );
        let mut out = Vec::new();
        grid.near(DVec2::new(1.0, 1.0), 0.5, &mut out);
        assert_eq!(out, vec![0, 2]);
        out.clear();
        grid.near(DVec2::new(5.0, 5.0), 100.0, &mut out);
        out.sort();
        assert_eq!(out, vec![0, 1, 2, 3]);
        out.clear();
        // The point outside the rectangle sits in the top-left border cell.
        grid.near(DVec2::new(0.5, 10.0), 0.1, &mut out);
        assert_eq!(out, vec![3]);
    }

    #[test]
    fn lists_answers_as_near_does() {
        let mut rng = crate::sim::SplitMix64::new(5);
        let points: Vec<DVec2> = (0..200)
            .map(|_| DVec2::new(rng.unit() * 24.0 - 2.0, rng.unit() * 24.0 - 2.0))
            .collect();
        let mut grid = AgentGrid::default();
        grid.rebuild(
            DVec2::ZERO,
            DVec2::new(20.0, 20.0),
            3.0,
            points.iter().copied(),
        );
        let mut out = Vec::new();
        for _ in 0..200 {
            let centre = DVec2::new(rng.unit() * 24.0 - 2.0, rng.unit() * 24.0 - 2.0);
            let reach = rng.unit() * 8.0;
            out.clear();
            grid.near(centre, reach, &mut out);
            for index in 0..points.len() {
                assert_eq!(
                    grid.lists(index, centre, reach),
                    out.contains(&(index as u32)),
                    "{index} {centre:?} {reach}"
                );
            }
        }
        assert!(!grid.lists(points.len(), DVec2::ZERO, 100.0));
    }
}
