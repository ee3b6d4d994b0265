//! The any-exponent rounding shift against the standard one where they agree, and against
//! values the x86 reference build gives where C leaves them undefined.

use super::super::quant::rounding_divide_by_pot;
use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(1024, 8))]

    #[test]
    fn agrees_with_the_defined_range(x in any::<i32>(), e in 0i32..=31) {
        prop_assert_eq!(rounding_divide_by_pot_any(x, e), rounding_divide_by_pot(x, e as u32));
    }

    #[test]
    fn shifts_mask_as_x86_does(x in any::<i32>(), e in 32i32..=63) {
        // The 64-bit mask is all ones in its low 32 bits, the 32-bit shift by `e - 32`.
        let mask = -1i32;
        let threshold = (mask >> 1) + i32::from(x < 0);
        let want = (x >> (e - 32)).wrapping_add(i32::from((x & mask) > threshold));
        prop_assert_eq!(rounding_divide_by_pot_any(x, e), want);
    }
}

#[test]
fn undefined_exponents() {
    // Quantized DIV of a zero numerator reaches exponents over 31: LiteRT's x86 build gives
    // 1, not 0 (measured on its DIV, int8).
    assert_eq!(rounding_divide_by_pot_any(0, 40), 1);
    assert_eq!(rounding_divide_by_pot_any(0, 31), 0);
    // A negative exponent (a multiplier above one): the shift count wraps.
    assert_eq!(rounding_divide_by_pot_any(100, -1), 1);
    assert_eq!(rounding_divide_by_pot_any(-100, -1), -1);
    assert_eq!(
        multiply_smaller_than_one_exp(1 << 20, 1 << 30, -3),
        (1 << 19) >> 3
    );
}

#[test]
fn multipliers_refuse_what_the_reference_aborts_on() {
    assert!(multiplier_below_one(0.5).is_ok());
    assert!(multiplier_below_one(1.0).is_err());
    assert!(multiplier_below_one(0.0).is_err());
    assert!(multiplier_below_one(f64::NAN).is_err());
    assert_eq!(multiplier_above_one(2.0).unwrap(), (1 << 30, 2));
    assert!(multiplier_above_one(1.0).is_err());
    assert_eq!(shift_and_scale(3, -1, 20, 1 << 30, 0), 1 << 20);
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(1024, 8))]

    #[test]
    fn any_shift_multiply_agrees_where_defined(x in any::<i32>(), m in 1i32 << 30..i32::MAX, s in -31i32..=30) {
        prop_assert_eq!(
            multiply_by_quantized_multiplier_any(x, m, s),
            super::super::quant::multiply_by_quantized_multiplier(x, m, s)
        );
    }
}

#[test]
fn shifts_past_31_wrap_their_count() {
    // 1 << 102 is 1 << 6 on x86.
    let m = 1 << 30;
    assert_eq!(multiply_by_quantized_multiplier_any(3, m, 102), 3 * 64 / 2);
    assert_eq!(multiplier_any(3e30).unwrap().1, 102);
    assert!(multiplier_any(f64::NAN).is_err());
}
