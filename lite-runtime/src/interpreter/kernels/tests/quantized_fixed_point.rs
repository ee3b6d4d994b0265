//! gemmlowp's fixed-point functions against their real-number meaning.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 512 }))]
    #[test]
    fn exp_is_close_to_exp(raw in -(31i32 << 26)..=0) {
        let x = f64::from(raw) / f64::from(1 << 26);
        let got = f64::from(exp_on_negative_values::<5>(raw)) / 2_147_483_648.0;
        prop_assert!((got - x.exp()).abs() < 1e-6, "{} {} {}", x, got, x.exp());
    }

    #[test]
    fn reciprocal_is_close(x in 1i32..i32::MAX) {
        let one_plus = 1.0 + f64::from(x) / 2_147_483_648.0;
        let got = f64::from(one_over_one_plus_x_for_x_in_0_1(x)) / 2_147_483_648.0;
        prop_assert!((got - 1.0 / one_plus).abs() < 1e-6);
    }
}

#[test]
fn exp_of_zero_is_one() {
    assert_eq!(exp_on_negative_values::<5>(0), i32::MAX);
}

#[test]
fn saturating_shift_saturates() {
    assert_eq!(saturating_rounding_multiply_by_pot(1 << 30, 2), i32::MAX);
    assert_eq!(saturating_rounding_multiply_by_pot(-(1 << 30), 2), i32::MIN);
    assert_eq!(saturating_rounding_multiply_by_pot(5, -1), 3);
}
