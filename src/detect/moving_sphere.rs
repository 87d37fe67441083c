//! The moving-sphere test: when, over one step, two linearly moving discs first touch.
//!
//! Ericson, *Real-Time Collision Detection* (2005), §5.5.8 "Intersecting moving sphere against
//! sphere": work in the frame of the first disc, so the second moves by the relative
//! displacement, and solve |s + v t| = r for the smallest t in [0, 1]. Exact up to floating
//! point (one square root); the initial-overlap, no-relative-motion and moving-apart cases are
//! handled explicitly.

use glam::DVec2;

/// Relative squared speeds below this (m² per step²) count as no relative motion.
const STILL: f64 = 1e-18;

/// How two moving discs meet during a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Contact {
    /// They do not touch during the step (or they start overlapping and are moving apart).
    None,
    /// They first touch at fraction `u` of the step, in `[0, 1]`; `u = 0` when they start
    /// overlapping and are not moving apart.
    At(f64),
}

/// First contact of disc A (centre `a`, moving by `da` over the step) and disc B (centre `b`,
/// moving by `db`), with radii summing to `radii`.
///
/// Discs that start overlapping count as touching at `u = 0` unless their distance is growing
/// (so agents already in contact may separate); discs with no relative motion touch only if
/// they overlap.
pub fn first_contact(a: DVec2, da: DVec2, b: DVec2, db: DVec2, radii: f64) -> Contact {
    let s = b - a;
    let v = db - da;
    let c = s.length_squared() - radii * radii;
    let bv = s.dot(v);
    if c <= 0.0 {
        // Initial overlap (or touching): a contact now, unless they are moving apart.
        return if bv > 0.0 {
            Contact::None
        } else {
            Contact::At(0.0)
        };
    }
    let aa = v.length_squared();
    if aa < STILL || bv >= 0.0 {
        // No relative motion, or moving apart: the distance never shrinks.
        return Contact::None;
    }
    let d = bv * bv - aa * c;
    if d < 0.0 {
        return Contact::None;
    }
    let u = (-bv - d.sqrt()) / aa;
    if u <= 1.0 {
        Contact::At(u.max(0.0))
    } else {
        Contact::None
    }
}

/// Smallest distance between the centres over the step (both moving linearly), and the
/// fraction `u` in `[0, 1]` where it occurs.
pub fn closest_approach(a: DVec2, da: DVec2, b: DVec2, db: DVec2) -> (f64, f64) {
    let s = b - a;
    let v = db - da;
    let aa = v.length_squared();
    let u = if aa < STILL {
        0.0
    } else {
        (-s.dot(v) / aa).clamp(0.0, 1.0)
    };
    ((s + v * u).length(), u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    #[test]
    fn head_on_discs_touch_when_the_gap_closes() {
        // 4 m apart, radii 1, closing at 4 m per step: touch after 2 m, at u = 0.5.
        let c = first_contact(v(0.0, 0.0), v(2.0, 0.0), v(4.0, 0.0), v(-2.0, 0.0), 2.0);
        assert_eq!(c, Contact::At(0.5));
    }

    #[test]
    fn overlapping_discs_touch_at_zero_unless_separating() {
        let a = v(0.0, 0.0);
        let b = v(0.5, 0.0);
        assert_eq!(
            first_contact(a, v(1.0, 0.0), b, DVec2::ZERO, 1.0),
            Contact::At(0.0)
        );
        assert_eq!(
            first_contact(a, DVec2::ZERO, b, DVec2::ZERO, 1.0),
            Contact::At(0.0)
        );
        assert_eq!(
            first_contact(a, v(-1.0, 0.0), b, DVec2::ZERO, 1.0),
            Contact::None
        );
    }

    #[test]
    fn parallel_motion_and_moving_apart_never_touch() {
        let a = v(0.0, 0.0);
        let b = v(3.0, 0.0);
        assert_eq!(
            first_contact(a, v(1.0, 1.0), b, v(1.0, 1.0), 1.0),
            Contact::None
        );
        assert_eq!(
            first_contact(a, v(-1.0, 0.0), b, v(1.0, 0.0), 1.0),
            Contact::None
        );
    }

    #[test]
    fn passing_by_beyond_the_radii_does_not_touch() {
        // B crosses 1.5 m to the side; radii sum 1.
        let c = first_contact(v(0.0, 0.0), DVec2::ZERO, v(-5.0, 1.5), v(10.0, 0.0), 1.0);
        assert_eq!(c, Contact::None);
        let (d, u) = closest_approach(v(0.0, 0.0), DVec2::ZERO, v(-5.0, 1.5), v(10.0, 0.0));
        assert!((d - 1.5).abs() < 1e-12 && (u - 0.5).abs() < 1e-12);
    }

    #[test]
    fn contact_beyond_the_step_is_not_reported() {
        let c = first_contact(v(0.0, 0.0), v(1.0, 0.0), v(10.0, 0.0), DVec2::ZERO, 1.0);
        assert_eq!(c, Contact::None);
    }

    /// Distance at fraction u by direct evaluation.
    fn distance(a: DVec2, da: DVec2, b: DVec2, db: DVec2, u: f64) -> f64 {
        ((b + db * u) - (a + da * u)).length()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, rng_seed: proptest::test_runner::RngSeed::Fixed(20261122), ..ProptestConfig::default() })]

        /// Against dense sampling of the two motions: a reported contact is a touching point
        /// and nothing touches before it; no contact means no sample touches.
        #[test]
        fn agrees_with_dense_sampling(
            ax in -5.0..5.0f64, ay in -5.0..5.0f64, dax in -4.0..4.0f64, day in -4.0..4.0f64,
            bx in -5.0..5.0f64, by in -5.0..5.0f64, dbx in -4.0..4.0f64, dby in -4.0..4.0f64,
            radii in 0.1..2.0f64,
        ) {
            let (a, da, b, db) = (v(ax, ay), v(dax, day), v(bx, by), v(dbx, dby));
            let contact = first_contact(a, da, b, db, radii);
            let n = 4000;
            let first_sample = (0..=n).map(|i| i as f64 / n as f64)
                .find(|&u| distance(a, da, b, db, u) < radii - 1e-9);
            let start_overlap = distance(a, da, b, db, 0.0) <= radii;
            match contact {
                Contact::At(u) => {
                    prop_assert!((0.0..=1.0).contains(&u));
                    let d = distance(a, da, b, db, u);
                    if u > 0.0 {
                        prop_assert!((d - radii).abs() < 1e-7, "distance {d} at contact, radii {radii}");
                    } else {
                        prop_assert!(d <= radii + 1e-9);
                    }
                    if let Some(us) = first_sample {
                        prop_assert!(u <= us + 1e-9, "sampled contact {us} before reported {u}");
                    }
                }
                Contact::None => {
                    if start_overlap {
                        // Only allowed when separating: the distance grows right away.
                        prop_assert!(distance(a, da, b, db, 1e-6) >= distance(a, da, b, db, 0.0));
                    } else {
                        prop_assert!(first_sample.is_none(), "sampled contact at {:?} but none reported", first_sample);
                    }
                }
            }
            let (dmin, umin) = closest_approach(a, da, b, db);
            prop_assert!((distance(a, da, b, db, umin) - dmin).abs() < 1e-9);
            for i in 0..=200 {
                prop_assert!(distance(a, da, b, db, i as f64 / 200.0) >= dmin - 1e-9);
            }
        }
    }
}
