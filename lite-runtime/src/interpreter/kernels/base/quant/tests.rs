//! The quantization arithmetic against its definitions (exact rationals in `i128` / `f64`)
//! and against values TensorFlow Lite's own tests and formulas give.

use super::*;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::super::proptest_config::cases(2048, 8)
}

/// `n / 2^e` rounded to nearest, ties away from zero, in exact integers.
fn round_div_pow2(n: i128, e: u32) -> i128 {
    let d = 1i128 << e;
    let q = n.abs() / d;
    let r = n.abs() % d;
    let q = if 2 * r >= d { q + 1 } else { q };
    if n < 0 { -q } else { q }
}

/// `n / 2^e` rounded to nearest, ties toward positive infinity (gemmlowp's nudge of
/// `1 - 2^30` for negative products makes `-x.5` round to `-x`).
fn round_half_up_pow2(n: i128, e: u32) -> i128 {
    (n + (1i128 << (e - 1))) >> e
}

#[test]
fn multipliers_from_scales() {
    assert_eq!(quantize_multiplier(0.0), Some((0, 0)));
    assert_eq!(quantize_multiplier(0.5), Some((1 << 30, 0)));
    assert_eq!(quantize_multiplier(1.0), Some((1 << 30, 1)));
    assert_eq!(quantize_multiplier(0.25), Some((1 << 30, -1)));
    assert_eq!(quantize_multiplier(0.75), Some((3 << 29, 0)));
    // A mantissa that rounds up to 2^31 is halved and the shift raised.
    assert_eq!(quantize_multiplier(1.0 - 1e-12), Some((1 << 30, 1)));
    // Below 2^-32 every bit would be shifted out: flushed to zero.
    assert_eq!(quantize_multiplier(1e-12), Some((0, 0)));
    assert_eq!(quantize_multiplier(f64::NAN), None);
    assert_eq!(quantize_multiplier(f64::INFINITY), None);
    // Round half away from zero on the mantissa: 0.5 + 2^-32 is 2^30 + 1/2 at 2^31.
    let m = 0.5 + 2f64.powi(-32);
    assert_eq!(quantize_multiplier(m), Some(((1 << 30) + 1, 0)));
}

#[test]
fn doubling_high_mul_saturates_and_rounds() {
    assert_eq!(
        saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
        i32::MAX
    );
    assert_eq!(
        saturating_rounding_doubling_high_mul(1 << 30, 1 << 30),
        1 << 29
    );
    // 2*3*2^30 / 2^32 = 1.5 rounds up to 2; -1.5 up to -1 (ties toward +infinity).
    assert_eq!(saturating_rounding_doubling_high_mul(3, 1 << 30), 2);
    assert_eq!(saturating_rounding_doubling_high_mul(-3, 1 << 30), -1);
    assert_eq!(saturating_rounding_doubling_high_mul(-1, 1 << 30), 0);
    assert_eq!(saturating_rounding_doubling_high_mul(1, 1 << 30), 1);
}

#[test]
fn wide_multiply_matches_the_reference_formula() {
    // multiplier 2^30 (0.5 at shift 0) reduces to 2^14; total shift 15.
    assert_eq!(multiply_by_quantized_multiplier_i64(100, 1 << 30, 0), 50);
    assert_eq!(multiply_by_quantized_multiplier_i64(-3, 1 << 30, 0), -1);
    assert_eq!(multiply_by_quantized_multiplier_i64(3, 1 << 30, 0), 2);
    // Multipliers at 0x7FFF0000 and above reduce to 0x7FFF.
    assert_eq!(
        multiply_by_quantized_multiplier_i64(1 << 20, i32::MAX, -5),
        32767
    );
    assert_eq!(
        multiply_by_quantized_multiplier_i64(1 << 40, 1 << 30, -10),
        1 << 29
    );
}

#[test]
fn activation_ranges() {
    use crate::model::{Activation as A, TensorType as T};
    assert_eq!(activation_range(A::None, T::Int8, 0.1, 3), Ok((-128, 127)));
    assert_eq!(activation_range(A::Relu, T::Int8, 0.1, -5), Ok((-5, 127)));
    assert_eq!(activation_range(A::Relu6, T::Int8, 0.1, -5), Ok((-5, 55)));
    assert_eq!(
        activation_range(A::Relu6, T::Int8, 0.01, -128),
        Ok((-128, 127))
    );
    assert_eq!(
        activation_range(A::ReluN1To1, T::Int16, 0.5, 0),
        Ok((-2, 2))
    );
    assert_eq!(activation_range(A::Relu, T::Uint8, 0.5, 7), Ok((7, 255)));
    assert!(activation_range(A::Tanh, T::Int8, 0.5, 0).is_err());
    assert!(activation_range(A::None, T::Int32, 0.5, 0).is_err());
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn multiplier_approximates_the_scale(m in 1e-9f64..1e6) {
        let (q, s) = quantize_multiplier(m).unwrap();
        prop_assert!((1 << 30..=i32::MAX).contains(&q));
        let back = f64::from(q) * 2f64.powi(s - 31);
        prop_assert!((back - m).abs() <= m * 2f64.powi(-30));
    }

    #[test]
    fn doubling_high_mul_is_rounded_2ab_over_2_32(a in any::<i32>(), b in any::<i32>(), tie in any::<bool>()) {
        // Half the cases exact ties, which random products almost never are.
        let b = if tie { 1 << 30 } else { b };
        prop_assume!(!(a == i32::MIN && b == i32::MIN));
        let exact = round_half_up_pow2(i128::from(a) * i128::from(b), 31);
        prop_assert_eq!(i128::from(saturating_rounding_doubling_high_mul(a, b)), exact);
    }

    #[test]
    fn divide_by_pot_rounds_half_away(x in any::<i32>(), e in 0u32..=31) {
        prop_assert_eq!(
            i128::from(rounding_divide_by_pot(x, e)),
            round_div_pow2(i128::from(x), e)
        );
    }

    #[test]
    fn multiply_is_two_roundings(x in any::<i32>(), q in (1i32 << 30)..=i32::MAX, s in -31i32..=8) {
        // The definition: x * 2^max(s,0) (wrapping), high-mul rounded, then divided rounded.
        let shifted = x.wrapping_mul(1 << s.max(0));
        let high = if shifted == i32::MIN && q == i32::MIN {
            i128::from(i32::MAX)
        } else {
            round_half_up_pow2(i128::from(shifted) * i128::from(q), 31)
        };
        let want = round_div_pow2(high, (-s).max(0) as u32);
        prop_assert_eq!(i128::from(multiply_by_quantized_multiplier(x, q, s)), want);
    }

    #[test]
    fn wide_multiply_is_one_rounding(x in -(1i64 << 47)..(1i64 << 47), q in (1i32 << 30)..0x7FFF_0000, s in -31i32..=7) {
        let reduced = i128::from((q + (1 << 15)) >> 16);
        let total = (15 - s) as u32;
        // Floor of (x r + 2^(t-1)) / 2^t: rounds half up.
        let v = (i128::from(x) * reduced + (1i128 << (total - 1))) >> total;
        prop_assert_eq!(i128::from(multiply_by_quantized_multiplier_i64(x, q, s)), i128::from(v as i32));
    }
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul` as written there: a sign-dependent nudge and
/// a division that truncates toward zero.
fn srdhm_as_gemmlowp(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = i64::from(a) * i64::from(b);
    let nudge: i64 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    ((ab + nudge) / (1i64 << 31)) as i32
}

proptest! {
    #![proptest_config(cases())]

    /// The shift form equals gemmlowp's division form everywhere.
    #[test]
    fn srdhm_shift_is_the_division(a in any::<i32>(), b in any::<i32>(), small in -70_000i32..70_000) {
        prop_assert_eq!(saturating_rounding_doubling_high_mul(a, b), srdhm_as_gemmlowp(a, b));
        // Products near the rounding ties and zero.
        prop_assert_eq!(saturating_rounding_doubling_high_mul(small, b), srdhm_as_gemmlowp(small, b));
        prop_assert_eq!(saturating_rounding_doubling_high_mul(small, 1 << 30), srdhm_as_gemmlowp(small, 1 << 30));
    }
}

#[test]
fn srdhm_shift_is_the_division_at_the_corners() {
    let v = [
        i32::MIN,
        i32::MIN + 1,
        -(1 << 30),
        -1,
        0,
        1,
        1 << 30,
        i32::MAX - 1,
        i32::MAX,
    ];
    for a in v {
        for b in v {
            assert_eq!(
                saturating_rounding_doubling_high_mul(a, b),
                srdhm_as_gemmlowp(a, b)
            );
        }
    }
}
