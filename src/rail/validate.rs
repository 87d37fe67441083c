//! Checking a rail against the navmesh: does it stay on the mesh, and how close does it come to
//! a wall.

use glam::DVec2;

use super::Rail;
use crate::level::NavMesh;

/// Where a rail leaves the navmesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OffMesh {
    /// Arclength of the first chord that leaves the mesh, metres.
    pub s: f64,
    /// The last on-mesh point along that chord.
    pub point: DVec2,
}

/// The closest approach of a rail to the walls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clearance {
    /// Smallest wall distance found, metres (`f64::INFINITY` for a wall-less mesh).
    pub distance: f64,
    /// Arclength where it was found, metres.
    pub s: f64,
    /// The rail point there.
    pub point: DVec2,
}

impl Rail {
    /// Check that the rail stays on `mesh`: the rail is cut into chords of at most `step` metres
    /// (clamped to `[0.01, 10]`; the chord of a curve bulges from it by at most
    /// `step² × curvature / 8`) and each chord is walked with [`NavMesh::raycast`]. Returns the
    /// first chord that leaves the mesh, or `None` when the rail stays on it.
    pub fn off_mesh(&self, mesh: &NavMesh, step: f64) -> Option<OffMesh> {
        let step = if step.is_nan() {
            0.1
        } else {
            step.clamp(0.01, 10.0)
        };
        let count = (self.length() / step).ceil().max(1.0) as usize;
        let mut cursor = self.cursor();
        let mut previous = cursor.position(0.0);
        for k in 1..=count {
            let s = self.length() * k as f64 / count as f64;
            let p = cursor.position(s);
            let hit = mesh.raycast(previous, p);
            if !hit.reached() {
                return Some(OffMesh {
                    s: self.length() * (k - 1) as f64 / count as f64,
                    point: hit.point,
                });
            }
            previous = p;
        }
        None
    }

    /// The rail's smallest wall distance, sampled every `step` metres (clamped to `[0.005, 10]`).
    /// Sampling can miss a closer approach between samples by at most `step / 2`.
    pub fn clearance(&self, mesh: &NavMesh, step: f64) -> Clearance {
        let step = if step.is_nan() {
            0.05
        } else {
            step.clamp(0.005, 10.0)
        };
        let count = (self.length() / step).ceil().max(1.0) as usize;
        let mut cursor = self.cursor();
        let mut best = Clearance {
            distance: f64::INFINITY,
            s: 0.0,
            point: self.start(),
        };
        for k in 0..=count {
            let s = self.length() * k as f64 / count as f64;
            let p = cursor.position(s);
            let d = mesh.wall_distance(p);
            if d < best.distance {
                best = Clearance {
                    distance: d,
                    s,
                    point: p,
                };
            }
        }
        best
    }
}
