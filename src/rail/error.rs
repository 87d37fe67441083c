//! The error type of rail construction and editing.

/// Why a [`Rail`](crate::Rail) could not be built or edited.
///
/// Segment indices are positions in the segment list that was being validated (for
/// [`Rail::splice`](crate::Rail::splice), the replacement list, see there).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RailError {
    /// The rail (or a splice replacement) has no segments.
    #[error("a rail needs at least one segment, but none were given")]
    Empty,
    /// A control point of the segment is NaN or infinite.
    #[error("segment {segment} has a control point that is not a finite number")]
    NonFinite {
        /// Index of the offending segment.
        segment: usize,
    },
    /// The segment is shorter than 1e-9 m.
    #[error("segment {segment} has zero length (shorter than 1e-9 m)")]
    ZeroLength {
        /// Index of the offending segment.
        segment: usize,
    },
    /// The segment reverses direction at an interior point where its derivative vanishes.
    #[error("segment {segment} has a cusp (it stops and reverses direction) at t = {t:.6}")]
    Cusp {
        /// Index of the offending segment.
        segment: usize,
        /// Bézier parameter of the cusp, in (0, 1).
        t: f64,
    },
    /// The segment does not start where the previous one ends (gap larger than 1e-6 m).
    #[error("segment {segment} does not start where the previous segment ends (gap of {gap:e} m, tolerance 1e-6 m)")]
    Disconnected {
        /// Index of the segment whose start is off.
        segment: usize,
        /// Distance between the previous segment's end and this segment's start, metres.
        gap: f64,
    },
    /// An arclength argument is NaN or outside `[0, length]`.
    #[error("arclength s = {s} m is outside the rail, which spans [0, {length}] m")]
    OutOfRange {
        /// The offending arclength, metres.
        s: f64,
        /// The rail's length, metres.
        length: f64,
    },
    /// A splice replacement does not start (or end) at the rail point it replaces.
    #[error("the splice replacement's {end} is {gap:e} m away from the rail (tolerance 1e-4 m)")]
    SpliceMismatch {
        /// Which end of the replacement is off: `"start"` or `"end"`.
        end: &'static str,
        /// Distance between the replacement's end point and the rail point, metres.
        gap: f64,
    },
    /// Splitting at `s` would leave one side empty (s within 1e-6 m of either end).
    #[error("splitting at s = {s} m would leave an empty part (too close to an end of the rail)")]
    EmptySplit {
        /// The requested split arclength, metres.
        s: f64,
    },
    /// A sub-range `[s0, s1]` is reversed, or too short (under 1e-6 m) to form a rail.
    #[error("the range [{s0}, {s1}] m is reversed or shorter than 1e-6 m")]
    EmptyRange {
        /// Start of the range, metres.
        s0: f64,
        /// End of the range, metres.
        s1: f64,
    },
}
