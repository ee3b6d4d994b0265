use super::{taps, taps_dilated};
use proptest::prelude::*;

proptest! {
    /// The undilated shortcut lists the same taps as the general division.
    #[test]
    fn undilated_taps_are_the_general_ones(
        origin in -40i64..40, size in 0i64..40, filter in 1i64..12,
    ) {
        prop_assert_eq!(taps(origin, 1, size, filter), taps_dilated(origin, 1, size, filter));
    }
}
