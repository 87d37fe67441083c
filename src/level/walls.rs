//! Nearest-wall queries through the wall grid: the closest boundary edge to a point with its
//! tangent and outward normal, and clamping a point onto the mesh.

mod candidates;

pub(crate) use candidates::WallCandidates;

use glam::DVec2;

use super::navmesh::{NavMesh, PolygonId};
use crate::geometry::{closest_on_segment, segment_distance};

/// The wall nearest to a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallHit {
    /// Start of the wall edge (walkable side on the left of start → end).
    pub start: DVec2,
    /// End of the wall edge.
    pub end: DVec2,
    /// The point of the wall closest to the query point, metres.
    pub point: DVec2,
    /// Distance from the query point to `point`, metres.
    pub distance: f64,
    /// Unit direction of the wall, `start → end` (walkable side on its left).
    pub tangent: DVec2,
    /// Unit normal pointing out of the walkable area.
    pub outward_normal: DVec2,
    /// The polygon the wall belongs to.
    pub polygon: PolygonId,
}

impl NavMesh {
    /// The wall edge nearest to `point` within `max_distance` metres (use `f64::INFINITY` for no
    /// limit), or `None` when there is none that close or the point is not finite. Ties go to the
    /// lower-numbered wall, so the answer is deterministic.
    pub fn nearest_wall(&self, point: DVec2, max_distance: f64) -> Option<WallHit> {
        if !point.is_finite() || self.walls.is_empty() || max_distance.is_nan() {
            return None;
        }
        // Inside the bounding box, the candidate grid's few walls (built on first use); outside,
        // the ring search. Both give the same answer.
        let candidates = self
            .wall_candidates
            .get_or_init(|| WallCandidates::build(self));
        let (distance, w, q) = match candidates.of(point) {
            Some(walls) => self.nearest_of(point, walls)?,
            None => self.nearest_wall_by_rings(point, max_distance)?,
        };
        if distance > max_distance {
            return None;
        }
        let [a, b, p] = self.walls[w as usize];
        let (start, end) = (self.vertices[a as usize], self.vertices[b as usize]);
        let tangent = (end - start).normalize_or_zero();
        Some(WallHit {
            start,
            end,
            point: q,
            distance,
            tangent,
            outward_normal: DVec2::new(tangent.y, -tangent.x),
            polygon: PolygonId(p),
        })
    }

    /// The nearest of `walls` to `point`: distance, wall index (the lower on ties) and closest
    /// point; `None` for no walls.
    #[inline]
    fn nearest_of(&self, point: DVec2, walls: &[u32]) -> Option<(f64, u32, DVec2)> {
        let mut best: Option<(f64, u32, DVec2)> = None;
        for &w in walls {
            let (a, b) = self.wall_ends(w);
            let (q, _) = closest_on_segment(point, a, b);
            let d = q.distance(point);
            let better = match best {
                None => true,
                Some((bd, bw, _)) => d < bd || (d == bd && w < bw),
            };
            if better {
                best = Some((d, w, q));
            }
        }
        best
    }

    /// The two ends of wall `w`.
    #[inline]
    pub(crate) fn wall_ends(&self, w: u32) -> (DVec2, DVec2) {
        let [a, b, _] = self.walls[w as usize];
        (self.vertices[a as usize], self.vertices[b as usize])
    }

    /// The nearest wall within `max_distance` by searching rings of wall-grid cells around the
    /// point's cell (clamped onto the grid): distance, wall index (the lower on ties) and
    /// closest point. The point must be finite and the mesh have walls.
    pub(crate) fn nearest_wall_by_rings(
        &self,
        point: DVec2,
        max_distance: f64,
    ) -> Option<(f64, u32, DVec2)> {
        let grid = &self.wall_grid;
        let (columns, rows) = grid.dimensions();
        let (c0, r0) = grid.clamped_cell(point);
        let mut best: Option<(f64, u32, DVec2)> = None;
        let rings = columns.max(rows);
        for k in 0..=rings {
            // Cells at Chebyshev ring distance k are at least k − 1 cells away from `point`
            // (which may lie anywhere in its own cell), so once the best wall is that close no
            // further ring can hold a nearer one.
            let reach = k.saturating_sub(1) as f64 * grid.cell_size();
            if reach > max_distance || best.is_some_and(|b| b.0 <= reach) {
                break;
            }
            let (lo_c, hi_c) = (c0 as isize - k as isize, c0 as isize + k as isize);
            let (lo_r, hi_r) = (r0 as isize - k as isize, r0 as isize + k as isize);
            for r in lo_r..=hi_r {
                if r < 0 || r >= rows as isize {
                    continue;
                }
                let on_edge_row = r == lo_r || r == hi_r;
                let mut c = lo_c;
                while c <= hi_c {
                    if c >= 0 && c < columns as isize {
                        for &w in grid.items(c as usize, r as usize) {
                            let [a, b, _] = self.walls[w as usize];
                            let (q, _) = closest_on_segment(
                                point,
                                self.vertices[a as usize],
                                self.vertices[b as usize],
                            );
                            let d = q.distance(point);
                            let better = match best {
                                None => true,
                                Some((bd, bw, _)) => d < bd || (d == bd && w < bw),
                            };
                            if better {
                                best = Some((d, w, q));
                            }
                        }
                    }
                    // Interior rows of the ring only have their two end cells on the ring.
                    c += if on_edge_row || c == hi_c {
                        1
                    } else {
                        (hi_c - lo_c).max(1)
                    };
                }
            }
        }
        best
    }

    /// Whether every point of segment `a → b` is at least `clearance` metres from every wall:
    /// the exact segment-to-segment distance to the walls of the wall-grid cells along the
    /// segment (one lookup per cell-sized step), stopping at the first wall closer. Exact where
    /// sampling the wall distance along the segment can step over a wall corner between two
    /// samples; and one lookup per cell instead of one nearest-wall query per sample.
    pub fn segment_keeps_clearance(&self, a: DVec2, b: DVec2, clearance: f64) -> bool {
        /// Metres beyond the clearance by which a wall's bounding box must miss the segment's
        /// to be passed over unmeasured.
        const BOX_SLACK: f64 = 1e-3;
        if !(a.is_finite() && b.is_finite()) {
            return false;
        }
        let step = self.wall_grid.cell_size();
        let count = (a.distance(b) / step).ceil().max(1.0) as usize;
        let reach = 0.5 * step + clearance;
        let grid = &self.wall_grid;
        // The cells of the step before, passed over: their walls were measured against the
        // whole segment already (each test is of the segment, not of the step, so skipping a
        // cell seen before cannot change the answer). Consecutive steps' squares overlap by
        // the clearance and more. With the box test below, this function's instructions on a
        // plaza bench fell from 7 % of the run to 2 % (docs/PERFORMANCE.md, session 40).
        let mut before: Option<(usize, usize, usize, usize)> = None;
        // A wall whose bounding box is further than the clearance from the segment's on either
        // axis is further from the segment, by more than `BOX_SLACK` (far above rounding), so
        // its distance is not measured. Exact: the distance measured would be above the
        // clearance too (bar `segments_intersect` reading rounding noise as a crossing of two
        // nearly collinear segments that far apart, where the box test is the right answer).
        let box_reach = DVec2::splat(clearance + BOX_SLACK);
        let (lo, hi) = (a.min(b) - box_reach, a.max(b) + box_reach);
        for k in 0..=count {
            let centre = a.lerp(b, k as f64 / count as f64);
            let (c0, r0) = grid.clamped_cell(centre - DVec2::splat(reach));
            let (c1, r1) = grid.clamped_cell(centre + DVec2::splat(reach));
            let seen = before;
            before = Some((c0, c1, r0, r1));
            for r in r0..=r1 {
                for c in c0..=c1 {
                    if seen.is_some_and(|(sc0, sc1, sr0, sr1)| {
                        (sc0..=sc1).contains(&c) && (sr0..=sr1).contains(&r)
                    }) {
                        continue;
                    }
                    for &w in grid.items(c, r) {
                        let [wa, wb, _] = self.walls[w as usize];
                        let (wa, wb) = (self.vertices[wa as usize], self.vertices[wb as usize]);
                        if wa.max(wb).cmplt(lo).any() || wa.min(wb).cmpgt(hi).any() {
                            continue;
                        }
                        if segment_distance(a, b, wa, wb) < clearance {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    /// Append to `out` every wall (index into the wall list) that may come within `reach` metres
    /// of `centre`: the walls of the wall-grid cells the square of half-side `reach` touches.
    /// A wall may appear more than once (it is listed in every cell it crosses).
    pub(crate) fn walls_near(&self, centre: DVec2, reach: f64, out: &mut Vec<u32>) {
        let grid = &self.wall_grid;
        let (c0, r0) = grid.clamped_cell(centre - DVec2::splat(reach));
        let (c1, r1) = grid.clamped_cell(centre + DVec2::splat(reach));
        for r in r0..=r1 {
            for c in c0..=c1 {
                out.extend_from_slice(grid.items(c, r));
            }
        }
    }

    /// Distance from `point` to the nearest wall, metres (`f64::INFINITY` for a wall-less mesh or a
    /// non-finite point). Inside the mesh this is the point's clearance.
    pub fn wall_distance(&self, point: DVec2) -> f64 {
        self.nearest_wall(point, f64::INFINITY)
            .map_or(f64::INFINITY, |w| w.distance)
    }

    /// `point` itself when it is on the mesh, otherwise the nearest point on a wall (which is the
    /// nearest on-mesh point). A non-finite point gives `None`.
    pub fn clamp(&self, point: DVec2) -> Option<DVec2> {
        if !point.is_finite() {
            return None;
        }
        if self.contains(point) {
            return Some(point);
        }
        self.nearest_wall(point, f64::INFINITY).map(|w| w.point)
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec2;

    use crate::geometry::segment_distance;

    /// [`NavMesh::segment_keeps_clearance`] measures each wall-grid cell once and passes over
    /// walls by their bounding boxes; measuring every wall of the mesh gives the same answers
    /// (short and long segments, on and off the mesh, clearances from 0 to 1 m).
    #[test]
    fn segment_clearance_is_that_of_every_wall_measured() {
        let mut rng = crate::sim::SplitMix64::new(7);
        let mut unit = || rng.unit();
        for name in ["plaza", "tradeshow", "arena", "narrow-alcove"] {
            let level = crate::level::fixture_level(name);
            let mesh = level.navmesh();
            let (lo, hi) = mesh.bounds();
            let mut refused = 0;
            for k in 0..2_000 {
                let a = lo + (hi - lo) * DVec2::new(unit(), unit());
                let reach = if k % 4 == 0 { 30.0 } else { 6.0 };
                let b = a + DVec2::new(unit() - 0.5, unit() - 0.5) * reach;
                let clearance = unit();
                let every = mesh.walls.iter().all(|&[wa, wb, _]| {
                    let (wa, wb) = (mesh.vertices[wa as usize], mesh.vertices[wb as usize]);
                    segment_distance(a, b, wa, wb) >= clearance
                });
                assert_eq!(
                    mesh.segment_keeps_clearance(a, b, clearance),
                    every,
                    "{name}: {a} -> {b}, clearance {clearance}"
                );
                refused += usize::from(!every);
            }
            // Both answers are exercised.
            assert!((200..1_800).contains(&refused), "{name}: {refused} refused");
        }
    }
}
