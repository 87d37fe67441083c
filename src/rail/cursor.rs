//! A monotone sampler that remembers where along the rail its last lookup was.

use glam::DVec2;

use super::{sample_at, Rail, RailLocation, RailSample};

/// How many segments or table intervals a cursor steps forward before it falls back to a
/// binary search.
const MAX_STEPS: usize = 4;

/// A sampler for sweeps along a [`Rail`]: it remembers the segment and arclength-table
/// interval of its last lookup, so a sweep with increasing `s` costs O(1) per sample (a
/// couple of comparisons instead of two binary searches). Decreasing `s`, or a jump far
/// ahead, still works: it falls back to the binary search of [`Rail::locate`].
///
/// Results are bit-identical to [`Rail::position`] and [`Rail::sample`] for the same `s`.
/// Like those, `s` outside `[0, length]` is clamped and NaN is treated as 0.
#[derive(Clone, Debug)]
pub struct RailCursor<'a> {
    rail: &'a Rail,
    segment: usize,
    piece: usize,
}

impl<'a> RailCursor<'a> {
    pub(crate) fn new(rail: &'a Rail) -> Self {
        let span = &rail.table.spans[0];
        RailCursor {
            rail,
            segment: 0,
            piece: span.first as usize,
        }
    }

    /// The rail this cursor samples.
    pub fn rail(&self) -> &'a Rail {
        self.rail
    }

    /// The point at arclength `s`, metres (clamped to `[0, length]`; NaN is treated as 0).
    #[inline]
    pub fn position(&mut self, s: f64) -> DVec2 {
        let loc = self.locate(self.rail.clamp_s(s));
        self.rail.segments[loc.segment].point(loc.t)
    }

    /// Position, tangent and curvature at arclength `s` (clamped to `[0, length]`; NaN is
    /// treated as 0), as [`Rail::sample`].
    #[inline]
    pub fn sample(&mut self, s: f64) -> RailSample {
        let s = self.rail.clamp_s(s);
        let loc = self.locate(s);
        sample_at(&self.rail.segments[loc.segment], s, loc.t)
    }

    /// Segment and `t` at the clamped arclength `s`, as [`Rail::locate`] (same tie-breaking:
    /// the last segment and interval starting at or before `s`).
    #[inline]
    fn locate(&mut self, s: f64) -> RailLocation {
        if s >= self.rail.table.length {
            return self.rail.end_location();
        }
        let table = &self.rail.table;
        let spans = &table.spans;
        let mut i = self.segment;
        let mut moved = false;
        if s < spans[i].start {
            i = table.find_span(s);
            moved = true;
        } else {
            let mut steps = 0;
            while i + 1 < spans.len() && spans[i + 1].start <= s {
                i += 1;
                moved = true;
                steps += 1;
                if steps == MAX_STEPS {
                    i = table.find_span(s);
                    break;
                }
            }
        }
        let span = &spans[i];
        let ls = s - span.start;
        if span.first == span.end {
            self.segment = i;
            return RailLocation {
                segment: i,
                t: table.t_at(span, 0, ls),
            };
        }
        let end = span.end as usize;
        let mut j = if moved {
            span.first as usize
        } else {
            self.piece
        };
        if ls < table.pieces[j].s {
            j = table.find_piece(span, ls);
        } else {
            let mut steps = 0;
            while j + 1 < end && table.pieces[j + 1].s <= ls {
                j += 1;
                steps += 1;
                if steps == MAX_STEPS {
                    j = table.find_piece(span, ls);
                    break;
                }
            }
        }
        self.segment = i;
        self.piece = j;
        RailLocation {
            segment: i,
            t: table.pieces[j].t_at(ls),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RailSegment;
    use proptest::prelude::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    fn rail() -> Rail {
        Rail::new(vec![
            RailSegment::line(v(0.0, 0.0), v(8.0, 0.0)),
            RailSegment::quad(v(8.0, 0.0), v(10.0, 0.0), v(10.0, 2.0)),
            RailSegment::cubic(v(10.0, 2.0), v(10.0, 2.0), v(10.0, 6.0), v(6.0, 6.0)),
            RailSegment::cubic(v(6.0, 6.0), v(2.0, 6.0), v(2.0, 8.0), v(6.0, 8.0)),
            RailSegment::line(v(6.0, 8.0), v(7.0, 8.0)),
            RailSegment::line(v(7.0, 8.0), v(7.5, 8.0)),
            RailSegment::quad(v(7.5, 8.0), v(12.0, 8.0), v(12.0, 12.0)),
        ])
        .unwrap()
    }

    fn assert_same(cursor: &mut RailCursor<'_>, rail: &Rail, s: f64) {
        assert_eq!(cursor.position(s), rail.position(s), "s = {s}");
        assert_eq!(cursor.sample(s), rail.sample(s), "s = {s}");
    }

    #[test]
    fn increasing_sweeps_are_bit_identical() {
        let rail = rail();
        for step in [0.4, 0.05, 1.7, 9.0, 1e-4] {
            let mut cursor = rail.cursor();
            let mut s = 0.0;
            while s <= rail.length() + step {
                assert_same(&mut cursor, &rail, s);
                s += step;
            }
        }
    }

    #[test]
    fn decreasing_sweeps_are_bit_identical() {
        let rail = rail();
        for step in [0.4, 0.05, 3.3] {
            let mut cursor = rail.cursor();
            let mut s = rail.length() + 1.0;
            while s >= -step {
                assert_same(&mut cursor, &rail, s);
                s -= step;
            }
        }
    }

    #[test]
    fn boundaries_and_knots_are_bit_identical() {
        let rail = rail();
        let mut cursor = rail.cursor();
        for i in 0..rail.segments().len() {
            let s = rail.segment_start(i);
            for x in [s, s.next_down(), s.next_up()] {
                assert_same(&mut cursor, &rail, x);
            }
        }
        for span in &rail.table.spans {
            for piece in &rail.table.pieces[span.first as usize..span.end as usize] {
                let s = span.start + piece.s;
                for x in [s, s.next_down(), s.next_up()] {
                    assert_same(&mut cursor, &rail, x);
                }
            }
        }
        assert_eq!(cursor.rail().length(), rail.length());
    }

    #[test]
    fn bad_s_is_clamped() {
        let rail = rail();
        let mut cursor = rail.cursor();
        for s in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1.0,
            1e300,
            3.0,
            f64::NAN,
        ] {
            assert_same(&mut cursor, &rail, s);
        }
        assert_eq!(cursor.position(f64::NAN), rail.start());
        assert_eq!(cursor.position(1e9), rail.end());
    }

    proptest! {
        #[test]
        fn any_sequence_is_bit_identical(seq in prop::collection::vec(
            prop_oneof![
                4 => -5.0f64..60.0,
                1 => any::<f64>(),
            ],
            1..60,
        )) {
            let rail = rail();
            let mut cursor = rail.cursor();
            for s in seq {
                prop_assert_eq!(cursor.sample(s), rail.sample(s));
                let p = cursor.position(s);
                prop_assert!(p.is_finite());
                prop_assert_eq!(p, rail.position(s));
            }
        }
    }
}
