//! gemmlowp's fixed-point functions against their real-number meaning.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::super::super::proptest_config::cases(512, 8))]
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

#[test]
fn checked_log2_accepts_powers_of_two_and_near_ones() {
    for e in -40..=40 {
        assert_eq!(checked_log2(libm::exp2f(e as f32)), (e, true), "2^{e}");
    }
    // Calibrated int16 scales: max |x| / 32767 with max |x| a power of two.
    assert_eq!(checked_log2(8.0 / 32767.0), (-12, true));
    assert_eq!(checked_log2(0.5 / 32767.0), (-16, true));
    // 1e-3 of an octave is a factor of 1.000693.
    assert_eq!(checked_log2(1.0006), (0, true));
    assert!(!checked_log2(1.001).1);
    assert_eq!(checked_log2(3.0 / 32767.0), (-13, false));
    assert!(!checked_log2(0.75).1);
}

proptest! {
    #![proptest_config(super::super::super::super::proptest_config::cases(2048, 8))]
    #[test]
    fn int16_rounding_divide_is_the_rounded_quotient(x in any::<i16>(), e in 0u32..=15) {
        // Below 16 bits the int16 form is the exact quotient, ties away from zero.
        let want = (f64::from(x) / f64::from(1u32 << e)).round();
        prop_assert_eq!(f64::from(rounding_divide_by_pot_i16(x, e)), want);
        prop_assert_eq!(
            i32::from(rounding_divide_by_pot_i16(x, e)),
            rounding_divide_by_pot(i32::from(x), e)
        );
    }
}

#[test]
fn int16_rounding_divide_past_15_bits_is_cs() {
    // From 16 on, C truncates the mask `(1 << e) - 1` to int16's -1: every x >= 0 gives 1 and
    // every negative x -1, which is what the reference computes.
    for e in 16..=31 {
        for x in [0i16, 1, 12345, i16::MAX] {
            assert_eq!(rounding_divide_by_pot_i16(x, e), 1, "{x} >> {e}");
        }
        for x in [-1i16, -12345, i16::MIN] {
            assert_eq!(rounding_divide_by_pot_i16(x, e), -1, "{x} >> {e}");
        }
    }
}

proptest! {
    #![proptest_config(super::super::super::super::proptest_config::cases(512, 8))]

    #[test]
    fn log_is_close_to_ln(raw in (1i32 << 19)..=i32::MAX) {
        // Q12.19 in, Q5.26 out (LOG_SOFTMAX's formats).
        let x = f64::from(raw) / f64::from(1 << 19);
        let got = f64::from(log_x_for_x_greater_than_or_equal_to_1::<5, 12>(raw))
            / f64::from(1 << 26);
        prop_assert!((got - x.ln()).abs() < 1e-5, "{} {} {}", x, got, x.ln());
    }

    #[test]
    fn inv_sqrt_is_close_to_the_inverse_square_root(v in 2i32..=i32::MAX) {
        let (m, s) = inv_sqrt_quantized_multiplier_exp(v, -1);
        let got = f64::from(m) * 2f64.powi(s - 31);
        let want = 1.0 / f64::from(v).sqrt();
        prop_assert!((got - want).abs() <= 1e-5 * want, "{v}: {got} {want}");
    }
}

#[test]
fn inv_sqrt_of_zero_and_one_is_the_largest_multiplier() {
    assert_eq!(inv_sqrt_quantized_multiplier_exp(0, -1), (i32::MAX, 0));
    assert_eq!(inv_sqrt_quantized_multiplier_exp(1, -1), (i32::MAX, 0));
}
