//! The funnel algorithm (string pulling): the shortest polyline through a sequence of portals.
//!
//! This is the "simple stupid funnel algorithm" (M. Mononen, Digesting Duck, 2010): keep a funnel
//! from the apex to the current left and right portal ends; tighten a side while the new end stays
//! inside the funnel; when a side crosses over the other, the other side's end becomes a corner
//! and the new apex, and the scan restarts after it. Exact up to floating-point rounding.

use glam::DVec2;

use super::navmesh::NONE;
use super::path::{CornerVertex, PathCorner, Turn};
use crate::geometry::cross;

/// A portal as seen when walking through it: its left and right ends (already shrunk by the
/// agent radius) and the mesh vertices they came from (`NONE` for the start and goal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Portal {
    pub left: DVec2,
    pub right: DVec2,
    pub left_vertex: u32,
    pub right_vertex: u32,
}

impl Portal {
    /// A degenerate portal at one point (the start or goal).
    pub fn point(p: DVec2) -> Portal {
        Portal {
            left: p,
            right: p,
            left_vertex: NONE,
            right_vertex: NONE,
        }
    }
}

/// The corner path through `portals` (the first and last are the start and goal points).
pub(crate) fn string_pull(portals: &[Portal], vertices: &[DVec2]) -> Vec<PathCorner> {
    let start = portals[0].left;
    let goal = portals[portals.len() - 1].left;
    let mut corners = vec![PathCorner {
        position: start,
        around: None,
        turn: None,
    }];
    let (mut apex, mut left, mut right) = (start, start, start);
    let (mut left_i, mut right_i) = (0usize, 0usize);
    let push = |corners: &mut Vec<PathCorner>, p: DVec2, vertex: u32, turn: Turn| {
        if corners.last().is_some_and(|c| c.position == p) {
            return;
        }
        let around = (vertex != NONE).then(|| CornerVertex {
            index: vertex,
            position: vertices[vertex as usize],
            turn,
        });
        corners.push(PathCorner {
            position: p,
            around,
            turn: Some(turn),
        });
    };
    let mut i = 1;
    // Each restart moves the apex forward, so the loop ends; the cap guards against rounding.
    let mut budget = portals.len() * portals.len() + 16;
    while i < portals.len() && budget > 0 {
        budget -= 1;
        let (pl, pr) = (portals[i].left, portals[i].right);
        // Right side: tighten if the new right end is counter-clockwise of (or on) the right edge.
        if cross(right - apex, pr - apex) >= 0.0 {
            if apex == right || cross(left - apex, pr - apex) < 0.0 {
                right = pr;
                right_i = i;
            } else {
                // The right side crossed the left: the left end is a corner, turning left.
                push(&mut corners, left, portals[left_i].left_vertex, Turn::Left);
                apex = left;
                (left, right) = (apex, apex);
                right_i = left_i;
                i = left_i + 1;
                continue;
            }
        }
        // Left side: tighten if the new left end is clockwise of (or on) the left edge.
        if cross(left - apex, pl - apex) <= 0.0 {
            if apex == left || cross(right - apex, pl - apex) > 0.0 {
                left = pl;
                left_i = i;
            } else {
                push(
                    &mut corners,
                    right,
                    portals[right_i].right_vertex,
                    Turn::Right,
                );
                apex = right;
                (left, right) = (apex, apex);
                left_i = right_i;
                i = right_i + 1;
                continue;
            }
        }
        i += 1;
    }
    if corners.last().map(|c| c.position) != Some(goal) || corners.len() == 1 {
        corners.push(PathCorner {
            position: goal,
            around: None,
            turn: None,
        });
    }
    drop_straight_corners(&mut corners);
    corners
}

/// Remove interior corners where the path bends by less than a micro-radian: portal ends cut
/// back to keep the radius from a wall can leave such near-collinear corners, which mean nothing.
fn drop_straight_corners(corners: &mut Vec<PathCorner>) {
    let mut i = 1;
    while i + 1 < corners.len() {
        let a = corners[i - 1].position;
        let (b, c) = (corners[i].position, corners[i + 1].position);
        let (d_in, d_out) = ((b - a).normalize_or_zero(), (c - b).normalize_or_zero());
        if cross(d_in, d_out).abs() < 1e-6 && d_in.dot(d_out) > 0.0 {
            corners.remove(i);
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    #[test]
    fn straight_corridor_has_no_corners() {
        let portals = [
            Portal::point(v(0., 0.)),
            Portal {
                left: v(1., 1.),
                right: v(1., -1.),
                left_vertex: NONE,
                right_vertex: NONE,
            },
            Portal {
                left: v(2., 1.),
                right: v(2., -1.),
                left_vertex: NONE,
                right_vertex: NONE,
            },
            Portal::point(v(3., 0.)),
        ];
        let c = string_pull(&portals, &[]);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn bends_left_around_a_corner() {
        // Walk east then north around a corner vertex at (2, 1) on the left.
        let vertices = [v(2., 1.)];
        let portals = [
            Portal::point(v(0., 0.)),
            Portal {
                left: v(2., 1.),
                right: v(2., -1.),
                left_vertex: 0,
                right_vertex: NONE,
            },
            Portal {
                left: v(2., 1.),
                right: v(4., 1.),
                left_vertex: 0,
                right_vertex: NONE,
            },
            Portal::point(v(3., 5.)),
        ];
        let c = string_pull(&portals, &vertices);
        assert_eq!(c.len(), 3);
        assert_eq!(c[1].position, v(2., 1.));
        assert_eq!(c[1].around.unwrap().turn, Turn::Left);
    }
}
