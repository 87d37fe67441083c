//! A uniform grid over the level's bounding box that lists, per cell, the items (polygons or
//! boundary edges) whose bounding boxes overlap it: the spatial index behind point location and
//! nearest-wall queries.

use glam::DVec2;

use crate::geometry::clamped_cell_coordinate;

/// Items bucketed by cell, stored compactly (one offsets array, one items array).
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    origin: DVec2,
    cell: f64,
    columns: usize,
    rows: usize,
    cell_start: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    /// Bucket `boxes` (item `i` has bounding box `boxes[i]`) over the region `min..max`, with
    /// cells of about `target_cell` metres, capped so the grid has at most `max_cells` cells.
    pub fn build(
        min: DVec2,
        max: DVec2,
        target_cell: f64,
        max_cells: usize,
        boxes: &[(DVec2, DVec2)],
    ) -> Grid {
        let extent = (max - min).max(DVec2::splat(1e-6));
        let mut cell = target_cell.max(1e-3);
        let cells_for =
            |c: f64| ((extent.x / c).ceil().max(1.0)) * ((extent.y / c).ceil().max(1.0));
        while cells_for(cell) > max_cells.max(1) as f64 {
            cell *= 1.25;
        }
        let columns = (extent.x / cell).ceil().max(1.0) as usize;
        let rows = (extent.y / cell).ceil().max(1.0) as usize;
        let mut grid = Grid {
            origin: min,
            cell,
            columns,
            rows,
            cell_start: vec![0; columns * rows + 1],
            items: Vec::new(),
        };
        // Counting pass, then fill: two passes over the boxes, no per-cell vectors.
        for &(lo, hi) in boxes {
            let (c0, r0, c1, r1) = grid.cell_range(lo, hi);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    grid.cell_start[r * columns + c + 1] += 1;
                }
            }
        }
        for i in 1..grid.cell_start.len() {
            grid.cell_start[i] += grid.cell_start[i - 1];
        }
        grid.items = vec![0; *grid.cell_start.last().unwrap_or(&0) as usize];
        let mut fill = grid.cell_start.clone();
        for (i, &(lo, hi)) in boxes.iter().enumerate() {
            let (c0, r0, c1, r1) = grid.cell_range(lo, hi);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    let slot = &mut fill[r * columns + c];
                    grid.items[*slot as usize] = i as u32;
                    *slot += 1;
                }
            }
        }
        grid
    }

    /// Cell size, metres.
    pub fn cell_size(&self) -> f64 {
        self.cell
    }

    /// Number of columns and rows.
    pub fn dimensions(&self) -> (usize, usize) {
        (self.columns, self.rows)
    }

    /// The cell holding `p`, clamped onto the grid.
    pub fn clamped_cell(&self, p: DVec2) -> (usize, usize) {
        let q = (p - self.origin) / self.cell;
        // NaN to 0, as the cast does.
        (
            clamped_cell_coordinate(q.x, self.columns - 1),
            clamped_cell_coordinate(q.y, self.rows - 1),
        )
    }

    /// The cell holding `p`, or `None` when `p` lies outside the grid.
    pub fn cell(&self, p: DVec2) -> Option<(usize, usize)> {
        let q = (p - self.origin) / self.cell;
        let eps = 1e-9;
        if !(q.x >= -eps
            && q.y >= -eps
            && q.x <= self.columns as f64 + eps
            && q.y <= self.rows as f64 + eps)
        {
            return None;
        }
        Some(self.clamped_cell(p))
    }

    /// Items of the cell at column `c`, row `r`.
    #[inline]
    pub fn items(&self, c: usize, r: usize) -> &[u32] {
        let i = r * self.columns + c;
        &self.items[self.cell_start[i] as usize..self.cell_start[i + 1] as usize]
    }

    fn cell_range(&self, lo: DVec2, hi: DVec2) -> (usize, usize, usize, usize) {
        let (c0, r0) = self.clamped_cell(lo);
        let (c1, r1) = self.clamped_cell(hi);
        (c0, r0, c1, r1)
    }
}
