//! The navigation mesh: convex counter-clockwise polygons over shared vertices, with polygon
//! adjacency, boundary (wall) edges, islands and the spatial indices the queries use.

use std::collections::HashMap;
use std::fmt;

use glam::DVec2;

use super::error::{Invalid, LevelItem, LevelProblem};
use super::grid::Grid;

/// Index of a polygon of a [`NavMesh`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PolygonId(pub u32);

impl fmt::Display for PolygonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "polygon {}", self.0)
    }
}

/// A wall: an edge of the mesh with walkable area on one side only. The walkable side is on the
/// left of `start → end` (boundaries run counter-clockwise, holes clockwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundaryEdge {
    /// Start of the edge, metres.
    pub start: DVec2,
    /// End of the edge, metres.
    pub end: DVec2,
    /// The polygon the edge belongs to.
    pub polygon: PolygonId,
}

pub(crate) const NONE: u32 = u32::MAX;

/// A navigation mesh of convex polygons. Built by [`crate::Level`] loading; immutable afterwards,
/// so it can be shared between threads.
#[derive(Clone, Debug)]
pub struct NavMesh {
    pub(crate) vertices: Vec<DVec2>,
    /// Polygon `p` owns `corners[poly_start[p]..poly_start[p + 1]]`.
    pub(crate) poly_start: Vec<u32>,
    /// Vertex indices of every polygon, counter-clockwise.
    pub(crate) corners: Vec<u32>,
    /// Aligned with `corners`: the polygon across the edge from corner `i` to corner `i + 1`, or
    /// `NONE` for a wall.
    pub(crate) neighbours: Vec<u32>,
    /// Aligned with `corners`: the index into `corners` of the same edge in the neighbouring
    /// polygon (walked the other way), or `NONE` for a wall.
    pub(crate) twins: Vec<u32>,
    pub(crate) island: Vec<u32>,
    pub(crate) island_count: u32,
    /// Vertices that touch at least one wall edge (portal ends there are shrunk by the radius).
    pub(crate) wall_vertex: Vec<bool>,
    /// Wall edges as (start vertex, end vertex, polygon).
    pub(crate) walls: Vec<[u32; 3]>,
    pub(crate) min: DVec2,
    pub(crate) max: DVec2,
    pub(crate) polygon_grid: Grid,
    pub(crate) wall_grid: Grid,
    /// The nearest-wall candidate grid, built on the first nearest-wall query.
    pub(crate) wall_candidates: std::sync::OnceLock<super::walls::WallCandidates>,
    /// Aligned with `corners`: for a portal, the largest wall clearance of any point on it
    /// (metres) and the portal parameter (0 at the edge's first corner) where it is reached;
    /// `(0, 0)` for walls. An agent of radius `r` can cross the portal only if `r <= clearance`.
    pub(crate) portal_clearance: Vec<(f64, f64)>,
}

impl NavMesh {
    /// Build a mesh from validated convex counter-clockwise polygons: adjacency, walls, islands,
    /// spatial grids. Fails when two polygons overlap along an edge.
    pub(crate) fn build(vertices: Vec<DVec2>, polygons: Vec<Vec<u32>>) -> Result<NavMesh, Invalid> {
        let mut poly_start = Vec::with_capacity(polygons.len() + 1);
        let mut corners = Vec::new();
        poly_start.push(0u32);
        for poly in &polygons {
            corners.extend_from_slice(poly);
            poly_start.push(corners.len() as u32);
        }

        // Adjacency: each directed edge a→b may appear once; its neighbour owns b→a.
        let mut directed: HashMap<(u32, u32), (u32, u32)> = HashMap::with_capacity(corners.len());
        for (p, poly) in polygons.iter().enumerate() {
            let n = poly.len();
            for i in 0..n {
                let (a, b) = (poly[i], poly[(i + 1) % n]);
                if let Some(&(other, _)) = directed.get(&(a, b)) {
                    return Err((
                        LevelItem::Polygon {
                            polygon: p,
                            corner: Some(i),
                        },
                        LevelProblem::Overlapping {
                            other: other as usize,
                            a: a as usize,
                            b: b as usize,
                        },
                    ));
                }
                directed.insert((a, b), (p as u32, poly_start[p] + i as u32));
            }
        }
        let mut neighbours = vec![NONE; corners.len()];
        let mut twins = vec![NONE; corners.len()];
        let mut walls = Vec::new();
        let mut wall_vertex = vec![false; vertices.len()];
        for (p, poly) in polygons.iter().enumerate() {
            let n = poly.len();
            for i in 0..n {
                let (a, b) = (poly[i], poly[(i + 1) % n]);
                let slot = poly_start[p] as usize + i;
                match directed.get(&(b, a)) {
                    Some(&(q, twin)) => {
                        neighbours[slot] = q;
                        twins[slot] = twin;
                    }
                    None => {
                        walls.push([a, b, p as u32]);
                        wall_vertex[a as usize] = true;
                        wall_vertex[b as usize] = true;
                    }
                }
            }
        }

        // Islands: connected components over adjacency, numbered in polygon order.
        let mut island = vec![NONE; polygons.len()];
        let mut island_count = 0u32;
        let mut stack = Vec::new();
        for seed in 0..polygons.len() {
            if island[seed] != NONE {
                continue;
            }
            island[seed] = island_count;
            stack.push(seed as u32);
            while let Some(p) = stack.pop() {
                let range = poly_start[p as usize] as usize..poly_start[p as usize + 1] as usize;
                for &q in &neighbours[range] {
                    if q != NONE && island[q as usize] == NONE {
                        island[q as usize] = island_count;
                        stack.push(q);
                    }
                }
            }
            island_count += 1;
        }

        // Bounds and spatial grids.
        let mut min = DVec2::splat(f64::INFINITY);
        let mut max = DVec2::splat(f64::NEG_INFINITY);
        let mut poly_boxes = Vec::with_capacity(polygons.len());
        let mut area = 0.0;
        for poly in &polygons {
            let mut lo = DVec2::splat(f64::INFINITY);
            let mut hi = DVec2::splat(f64::NEG_INFINITY);
            for &v in poly {
                lo = lo.min(vertices[v as usize]);
                hi = hi.max(vertices[v as usize]);
            }
            area += (hi - lo).x * (hi - lo).y;
            min = min.min(lo);
            max = max.max(hi);
            poly_boxes.push((lo, hi));
        }
        let cell = (area / polygons.len().max(1) as f64).sqrt();
        let max_cells = 4 * polygons.len() + 64;
        let polygon_grid = Grid::build(min, max, cell, max_cells, &poly_boxes);
        let wall_boxes: Vec<(DVec2, DVec2)> = walls
            .iter()
            .map(|w| {
                let (a, b) = (vertices[w[0] as usize], vertices[w[1] as usize]);
                (a.min(b), a.max(b))
            })
            .collect();
        let wall_cell = ((max - min).x * (max - min).y / walls.len().max(1) as f64)
            .sqrt()
            .max(cell * 0.5);
        let wall_grid = Grid::build(min, max, wall_cell, 4 * walls.len() + 64, &wall_boxes);

        let mut mesh = NavMesh {
            vertices,
            poly_start,
            corners,
            neighbours,
            twins,
            island,
            island_count,
            wall_vertex,
            walls,
            min,
            max,
            polygon_grid,
            wall_grid,
            wall_candidates: std::sync::OnceLock::new(),
            portal_clearance: Vec::new(),
        };
        mesh.portal_clearance = mesh.compute_portal_clearance();
        Ok(mesh)
    }

    /// The best wall clearance along every portal: dense sampling of the wall distance along the
    /// portal, then golden-section refinement around the best sample (the distance to the nearest
    /// wall is piecewise smooth along a segment). Accurate to about 1 mm; computed once per portal.
    fn compute_portal_clearance(&self) -> Vec<(f64, f64)> {
        let mut out = vec![(0.0, 0.0); self.corners.len()];
        for p in 0..self.polygon_count() as u32 {
            let range = self.corner_range(p);
            let n = range.len();
            for i in 0..n {
                let q = self.neighbours[range.start + i];
                if q == NONE || q < p {
                    continue;
                }
                let a = self.vertices[self.corners[range.start + i] as usize];
                let b = self.vertices[self.corners[range.start + (i + 1) % n] as usize];
                let clearance = |t: f64| self.wall_distance(a + (b - a) * t);
                let samples = ((a.distance(b) / 0.05).ceil() as usize).clamp(8, 64);
                let mut best = (f64::NEG_INFINITY, 0.0);
                for k in 0..=samples {
                    let t = k as f64 / samples as f64;
                    let c = clearance(t);
                    if c > best.0 {
                        best = (c, t);
                    }
                }
                let h = 1.0 / samples as f64;
                let (mut lo, mut hi) = ((best.1 - h).max(0.0), (best.1 + h).min(1.0));
                let golden = 0.618_033_988_749_895;
                for _ in 0..24 {
                    let m1 = hi - golden * (hi - lo);
                    let m2 = lo + golden * (hi - lo);
                    if clearance(m1) < clearance(m2) {
                        lo = m1;
                    } else {
                        hi = m2;
                    }
                }
                let t = 0.5 * (lo + hi);
                let c = clearance(t);
                if c > best.0 {
                    best = (c, t);
                }
                out[range.start + i] = best;
                // The twin slot in q walks the same edge backwards.
                let twin = self.corner_range(q);
                let m = twin.len();
                for j in 0..m {
                    if self.neighbours[twin.start + j] == p {
                        out[twin.start + j] = (best.0, 1.0 - best.1);
                    }
                }
            }
        }
        out
    }

    /// All vertex positions, metres.
    pub fn vertices(&self) -> &[DVec2] {
        &self.vertices
    }

    /// Number of polygons.
    pub fn polygon_count(&self) -> usize {
        self.island.len()
    }

    /// Every polygon id, in order.
    pub fn polygon_ids(&self) -> impl Iterator<Item = PolygonId> + '_ {
        (0..self.polygon_count() as u32).map(PolygonId)
    }

    /// Vertex indices of polygon `id`, counter-clockwise. Panics if `id` is not of this mesh.
    pub fn polygon(&self, id: PolygonId) -> &[u32] {
        let p = id.0 as usize;
        &self.corners[self.poly_start[p] as usize..self.poly_start[p + 1] as usize]
    }

    /// Corner positions of polygon `id`, counter-clockwise.
    pub fn polygon_points(&self, id: PolygonId) -> impl Iterator<Item = DVec2> + '_ {
        self.polygon(id).iter().map(|&v| self.vertices[v as usize])
    }

    /// For each edge of polygon `id` (from corner `i` to corner `i + 1`), the polygon across it,
    /// or `None` for a wall.
    pub fn neighbours(&self, id: PolygonId) -> impl Iterator<Item = Option<PolygonId>> + '_ {
        let p = id.0 as usize;
        self.neighbours[self.poly_start[p] as usize..self.poly_start[p + 1] as usize]
            .iter()
            .map(|&q| (q != NONE).then_some(PolygonId(q)))
    }

    /// The island (connected component) polygon `id` belongs to; polygons on different islands
    /// cannot reach each other.
    pub fn island(&self, id: PolygonId) -> u32 {
        self.island[id.0 as usize]
    }

    /// Number of islands.
    pub fn island_count(&self) -> u32 {
        self.island_count
    }

    /// Every wall edge, walkable side on the left.
    pub fn boundary_edges(&self) -> impl Iterator<Item = BoundaryEdge> + '_ {
        self.walls.iter().map(|w| BoundaryEdge {
            start: self.vertices[w[0] as usize],
            end: self.vertices[w[1] as usize],
            polygon: PolygonId(w[2]),
        })
    }

    /// Whether vertex `index` touches a wall.
    pub fn is_wall_vertex(&self, index: u32) -> bool {
        self.wall_vertex
            .get(index as usize)
            .copied()
            .unwrap_or(false)
    }

    /// The axis-aligned bounding box of the mesh, metres: (min, max).
    pub fn bounds(&self) -> (DVec2, DVec2) {
        (self.min, self.max)
    }

    /// Total walkable area, square metres.
    pub fn area(&self) -> f64 {
        self.polygon_ids()
            .map(|id| {
                let pts: Vec<DVec2> = self.polygon_points(id).collect();
                crate::geometry::signed_area2(&pts) / 2.0
            })
            .sum()
    }

    pub(crate) fn corner_range(&self, p: u32) -> std::ops::Range<usize> {
        self.poly_start[p as usize] as usize..self.poly_start[p as usize + 1] as usize
    }
}
