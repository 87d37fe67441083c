//! Tracing the blocked cells of a grid into simple polygons on cell corners, for the outline
//! form's holes.
//!
//! Cells are `(i, j)`, x right and y up, cell `(i, j)` covering `[i, i + 1] × [j, j + 1]`.
//! Blocked cells are grouped into 4-connected components; each component's boundary is walked
//! with the blocked cells on the left, turning left whenever possible. Turning left at a diagonal
//! pinch point (two blocked cells touching only at a corner) keeps the walk around the cell it
//! came along, so two components touching at a corner give two loops sharing a vertex (the
//! outline form allows holes to touch) instead of one loop touching itself. A component that
//! still touches itself at a corner, or that encloses free cells (a pocket: a room walled in on
//! every side), is not one simple polygon; it is cut in two along a vertical grid line through
//! the pocket, and the pieces are traced again, until every piece is bounded by one simple
//! counter-clockwise loop. The pieces' union is the component, so the walkable area (boundary
//! minus the union of the holes) is exactly the free cells. Finally, runs of collinear edges are
//! merged into one edge.

use std::collections::HashMap;

/// A grid corner, in cells.
pub(crate) type Corner = [i32; 2];

/// The blocked area of a `width × height` grid (`blocked[j * width + i]`) as simple
/// counter-clockwise polygons on cell corners whose union is the blocked cells. Deterministic:
/// the same grid gives the same polygons in the same order.
pub(crate) fn blocked_polygons(width: usize, height: usize, blocked: &[bool]) -> Vec<Vec<Corner>> {
    let mut pending = components(width, height, |i, j| blocked[j * width + i]);
    pending.reverse();
    let mut out = Vec::new();
    while let Some(cells) = pending.pop() {
        let loops = trace(&cells);
        let Some(pocket) = loops.iter().find(|l| area2(l) < 0) else {
            out.extend(loops);
            continue;
        };
        // Cut along x = c, a grid line crossing the pocket: every column of the pocket's
        // bounding box holds pocket cells, so the pocket is open on both sides of the cut.
        let x0 = pocket.iter().map(|c| c[0]).min().unwrap_or(0);
        let x1 = pocket.iter().map(|c| c[0]).max().unwrap_or(0);
        let cut = x0 + (x1 - x0) / 2;
        let mut pieces = Vec::new();
        for side in [true, false] {
            let part: Vec<Corner> = cells
                .iter()
                .copied()
                .filter(|c| (c[0] < cut) == side)
                .collect();
            pieces.extend(split_components(&part));
        }
        // Keep the depth-first order deterministic: first piece processed next.
        pending.extend(pieces.into_iter().rev());
    }
    out
}

/// Twice the signed area of a loop (positive counter-clockwise).
pub(crate) fn area2(ring: &[Corner]) -> i64 {
    let n = ring.len();
    (0..n)
        .map(|k| {
            let (a, b) = (ring[k], ring[(k + 1) % n]);
            a[0] as i64 * b[1] as i64 - b[0] as i64 * a[1] as i64
        })
        .sum()
}

/// The 4-connected components of the cells for which `is_in(i, j)` holds, each a list of cells
/// in row-major order (y, then x), components ordered by their first cell.
fn components(
    width: usize,
    height: usize,
    is_in: impl Fn(usize, usize) -> bool,
) -> Vec<Vec<Corner>> {
    let mut label = vec![u32::MAX; width * height];
    let mut out: Vec<Vec<Corner>> = Vec::new();
    let mut stack = Vec::new();
    for j in 0..height {
        for i in 0..width {
            if label[j * width + i] != u32::MAX || !is_in(i, j) {
                continue;
            }
            let id = out.len() as u32;
            let mut cells = Vec::new();
            label[j * width + i] = id;
            stack.push((i, j));
            while let Some((ci, cj)) = stack.pop() {
                cells.push([ci as i32, cj as i32]);
                let mut visit = |ni: usize, nj: usize| {
                    if label[nj * width + ni] == u32::MAX && is_in(ni, nj) {
                        label[nj * width + ni] = id;
                        stack.push((ni, nj));
                    }
                };
                if ci > 0 {
                    visit(ci - 1, cj);
                }
                if ci + 1 < width {
                    visit(ci + 1, cj);
                }
                if cj > 0 {
                    visit(ci, cj - 1);
                }
                if cj + 1 < height {
                    visit(ci, cj + 1);
                }
            }
            cells.sort_by_key(|c| (c[1], c[0]));
            out.push(cells);
        }
    }
    out
}

/// The 4-connected components of a set of cells.
fn split_components(cells: &[Corner]) -> Vec<Vec<Corner>> {
    if cells.is_empty() {
        return Vec::new();
    }
    let min_x = cells.iter().map(|c| c[0]).min().unwrap_or(0);
    let min_y = cells.iter().map(|c| c[1]).min().unwrap_or(0);
    let max_x = cells.iter().map(|c| c[0]).max().unwrap_or(0);
    let max_y = cells.iter().map(|c| c[1]).max().unwrap_or(0);
    let (w, h) = ((max_x - min_x + 1) as usize, (max_y - min_y + 1) as usize);
    let mut inside = vec![false; w * h];
    for c in cells {
        inside[(c[1] - min_y) as usize * w + (c[0] - min_x) as usize] = true;
    }
    components(w, h, |i, j| inside[j * w + i])
        .into_iter()
        .map(|comp| {
            comp.into_iter()
                .map(|c| [c[0] + min_x, c[1] + min_y])
                .collect()
        })
        .collect()
}

/// Directions of boundary edges, counter-clockwise: east, north, west, south.
const STEP: [Corner; 4] = [[1, 0], [0, 1], [-1, 0], [0, -1]];

/// The boundary loops of a set of cells (blocked on the left), split at repeated corners into
/// simple loops, with collinear corners merged. Outer boundaries come out counter-clockwise,
/// pockets clockwise.
fn trace(cells: &[Corner]) -> Vec<Vec<Corner>> {
    let set: std::collections::HashSet<Corner> = cells.iter().copied().collect();
    let has = |i: i32, j: i32| set.contains(&[i, j]);
    // Directed edges (start corner, direction), in cell order.
    let mut edges: Vec<(Corner, usize)> = Vec::new();
    for &[i, j] in cells {
        if !has(i, j - 1) {
            edges.push(([i, j], 0));
        }
        if !has(i + 1, j) {
            edges.push(([i + 1, j], 1));
        }
        if !has(i, j + 1) {
            edges.push(([i + 1, j + 1], 2));
        }
        if !has(i - 1, j) {
            edges.push(([i, j + 1], 3));
        }
    }
    let mut outgoing: HashMap<Corner, [usize; 4]> = HashMap::with_capacity(edges.len());
    for (k, &(from, dir)) in edges.iter().enumerate() {
        outgoing.entry(from).or_insert([usize::MAX; 4])[dir] = k;
    }
    let mut used = vec![false; edges.len()];
    let mut loops = Vec::new();
    for first in 0..edges.len() {
        if used[first] {
            continue;
        }
        let mut walk = Vec::new();
        let mut e = first;
        while !used[e] {
            used[e] = true;
            let (from, dir) = edges[e];
            walk.push(from);
            let end = [from[0] + STEP[dir][0], from[1] + STEP[dir][1]];
            let out = outgoing.get(&end).copied().unwrap_or([usize::MAX; 4]);
            // Left, straight, right: the first that exists (there is always one).
            e = [(dir + 1) % 4, dir, (dir + 3) % 4]
                .into_iter()
                .map(|d| out[d])
                .find(|&k| k != usize::MAX)
                .unwrap_or(first);
        }
        for simple in split_at_repeats(walk) {
            let merged = merge_collinear(simple);
            if merged.len() >= 4 {
                loops.push(merged);
            }
        }
    }
    loops
}

/// Split a closed walk that visits some corners more than once into simple loops.
fn split_at_repeats(walk: Vec<Corner>) -> Vec<Vec<Corner>> {
    let mut out = Vec::new();
    let mut stack: Vec<Corner> = Vec::with_capacity(walk.len());
    let mut at: HashMap<Corner, usize> = HashMap::new();
    for c in walk {
        if let Some(&k) = at.get(&c) {
            let sub: Vec<Corner> = stack.drain(k + 1..).collect();
            let mut ring = Vec::with_capacity(sub.len() + 1);
            ring.push(c);
            ring.extend(sub);
            for r in &ring[1..] {
                at.remove(r);
            }
            out.push(ring);
        } else {
            at.insert(c, stack.len());
            stack.push(c);
        }
    }
    if !stack.is_empty() {
        out.push(stack);
    }
    out
}

/// Drop the corners where a loop goes straight on.
fn merge_collinear(ring: Vec<Corner>) -> Vec<Corner> {
    let n = ring.len();
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let (a, b, c) = (ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]);
        let cross = (b[0] - a[0]) as i64 * (c[1] - b[1]) as i64
            - (b[1] - a[1]) as i64 * (c[0] - b[0]) as i64;
        if cross != 0 {
            out.push(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows top to bottom, `#` blocked.
    fn grid(rows: &[&str]) -> (usize, usize, Vec<bool>) {
        let (w, h) = (rows[0].len(), rows.len());
        let mut blocked = vec![false; w * h];
        for (r, row) in rows.iter().enumerate() {
            for (i, ch) in row.chars().enumerate() {
                blocked[(h - 1 - r) * w + i] = ch == '#';
            }
        }
        (w, h, blocked)
    }

    fn total_area(polys: &[Vec<Corner>]) -> i64 {
        polys.iter().map(|p| area2(p)).sum::<i64>() / 2
    }

    fn is_simple(p: &[Corner]) -> bool {
        let mut seen = std::collections::HashSet::new();
        p.iter().all(|c| seen.insert(*c))
    }

    #[test]
    fn a_block_is_one_rectangle() {
        let (w, h, b) = grid(&["....", ".##.", ".##.", "...."]);
        let polys = blocked_polygons(w, h, &b);
        assert_eq!(polys, vec![vec![[1, 1], [3, 1], [3, 3], [1, 3]]]);
    }

    #[test]
    fn diagonal_neighbours_are_two_polygons_sharing_a_corner() {
        let (w, h, b) = grid(&["#.", ".#"]);
        let polys = blocked_polygons(w, h, &b);
        assert_eq!(polys.len(), 2);
        assert!(polys.iter().all(|p| p.len() == 4 && area2(p) == 2));
    }

    #[test]
    fn a_walled_room_is_cut_into_simple_pieces() {
        let (w, h, b) = grid(&["#####", "#...#", "#...#", "#####"]);
        let polys = blocked_polygons(w, h, &b);
        assert!(polys.len() >= 2);
        assert!(polys.iter().all(|p| area2(p) > 0 && is_simple(p)));
        assert_eq!(total_area(&polys), 20 - 6);
    }

    #[test]
    fn a_ring_touching_itself_at_a_corner_is_cut() {
        // A U whose tips touch at a corner: the free cell inside is closed off.
        let (w, h, b) = grid(&["##..", "#.#.", "###."]);
        let polys = blocked_polygons(w, h, &b);
        assert!(
            polys.iter().all(|p| area2(p) > 0 && is_simple(p)),
            "{polys:?}"
        );
        assert_eq!(total_area(&polys), 7);
    }

    #[test]
    fn nested_rooms_are_kept_free() {
        let (w, h, b) = grid(&[
            "#######", "#.....#", "#.###.#", "#.#.#.#", "#.###.#", "#.....#", "#######",
        ]);
        let polys = blocked_polygons(w, h, &b);
        assert!(polys.iter().all(|p| area2(p) > 0 && is_simple(p)));
        assert_eq!(total_area(&polys), 24 + 8);
    }
}
