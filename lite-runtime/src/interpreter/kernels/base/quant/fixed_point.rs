//! The parts of gemmlowp's 32-bit fixed-point arithmetic (`fixedpoint.h`) that TensorFlow
//! Lite's reference integer softmax runs on, bit for bit: a `FixedPoint<int32, I>` is a raw
//! `i32` with `31 - I` fractional bits; products are [`saturating_rounding_doubling_high_mul`]
//! (`Q(a) * Q(b) = Q(a + b)`), sums wrap as C's `int32` addition does in practice.
//!
//! The basic rounding operations live in [`quant`](super); this file builds
//! `exp` on negative values and `1 / (1 + x)` on them.

use super::{rounding_divide_by_pot, saturating_rounding_doubling_high_mul};

/// `a * b` of two fixed-point numbers (any integer bits: the result has their sum).
#[inline]
fn mul(a: i32, b: i32) -> i32 {
    saturating_rounding_doubling_high_mul(a, b)
}

/// `SaturatingRoundingMultiplyByPOT<exponent>`: a saturating left shift for `exponent > 0`,
/// a rounding right shift for `exponent < 0`.
#[inline]
pub(crate) fn saturating_rounding_multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent > 0 {
        let threshold = (1i32 << (31 - exponent)) - 1;
        if x > threshold {
            i32::MAX
        } else if x < -threshold {
            i32::MIN
        } else {
            x << exponent
        }
    } else if exponent < 0 {
        rounding_divide_by_pot(x, exponent.unsigned_abs())
    } else {
        x
    }
}

/// `CheckedLog2`: `log2(x)` rounded, and whether `x` is a power of two by TensorFlow Lite's
/// test (the `f32` logarithm within 1e-3 of that integer). Scales that pass are read as exact
/// fixed-point formats by the int16 kernels (ADD's power-of-two path, LOGISTIC, TANH).
pub(crate) fn checked_log2(x: f32) -> (i32, bool) {
    // `std::log(x) * (1.0f / std::log(2.0f))` in float, rounded half away from zero.
    let log2 = libm::logf(x) * (1.0 / libm::logf(2.0));
    let rounded = libm::roundf(log2);
    // C's float-to-int conversion; saturating here where C is undefined (no finite positive
    // f32 has a log2 outside +-150 anyway).
    (rounded as i32, (log2 - rounded).abs() < 1e-3)
}

/// `gemmlowp::RoundingDivideByPOT` on an `int16_t`: `x / 2^exponent` rounded to nearest, ties
/// away from zero, for `exponent` in `0..=31`, with C's int16 truncations (from 16 on the
/// mask wraps to -1 and the result is 1 for `x >= 0`, -1 below, as the reference computes).
#[inline]
pub(crate) fn rounding_divide_by_pot_i16(x: i16, exponent: u32) -> i16 {
    let mask = ((1i64 << exponent) - 1) as i16;
    let remainder = x & mask;
    let threshold = (mask >> 1).wrapping_add(i16::from(x < 0));
    let shifted = (i32::from(x) >> exponent) as i16;
    shifted.wrapping_add(i16::from(remainder > threshold))
}

/// `RoundingHalfSum`: `(a + b) / 2` rounded to nearest, ties away from zero.
#[inline]
fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = i64::from(a) + i64::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// `exp_on_interval_between_negative_one_quarter_and_0_excl`, Q0.31 in and out.
#[inline]
fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    const CONSTANT_TERM: i32 = 1_895_147_668; // exp(-1/8)
    const ONE_THIRD: i32 = 715_827_883;
    let x = a.wrapping_add(1 << 28); // a + 1/8
    let x2 = mul(x, x);
    let x3 = mul(x2, x);
    let x4 = mul(x2, x2);
    let x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2);
    let poly = saturating_rounding_multiply_by_pot(
        mul(x4_over_4.wrapping_add(x3), ONE_THIRD).wrapping_add(x2),
        -1,
    );
    CONSTANT_TERM.wrapping_add(mul(CONSTANT_TERM, x.wrapping_add(poly)))
}

/// `exp_on_negative_values` of a `FixedPoint<int32, INTEGER_BITS>` (`a <= 0`), as Q0.31.
#[inline]
pub(crate) fn exp_on_negative_values<const INTEGER_BITS: i32>(a: i32) -> i32 {
    let fractional_bits = 31 - INTEGER_BITS;
    let one_quarter = 1i32 << (fractional_bits - 2);
    let mask = one_quarter - 1;
    let a_mod_quarter_minus_one_quarter = (a & mask).wrapping_sub(one_quarter);
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        saturating_rounding_multiply_by_pot(a_mod_quarter_minus_one_quarter, INTEGER_BITS),
    );
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);
    // exp(-2^e) for e in -2..=4, Q0.31.
    const BARREL: [(i32, i32); 7] = [
        (-2, 1_672_461_947),
        (-1, 1_302_514_674),
        (0, 790_015_084),
        (1, 290_630_308),
        (2, 39_332_535),
        (3, 720_401),
        (4, 242),
    ];
    for (exponent, multiplier) in BARREL {
        if INTEGER_BITS > exponent {
            let shift = fractional_bits + exponent;
            if remainder & (1 << shift) != 0 {
                result = mul(result, multiplier);
            }
        }
    }
    if INTEGER_BITS > 5 {
        let clamp = -(1i32 << (36 - INTEGER_BITS)); // -32.0
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 { i32::MAX } else { result }
}

/// `one_over_one_plus_x_for_x_in_0_1`: `1 / (1 + a)` for `a` in Q0.31 in `[0, 1)`, Q0.31
/// (Newton-Raphson, three steps).
#[inline]
pub(crate) fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    const C48_OVER_17: i32 = 1_515_870_810; // Q2.29
    const CNEG32_OVER_17: i32 = -1_010_580_540; // Q2.29
    const ONE_Q2: i32 = 1 << 29;
    let half_denominator = rounding_half_sum(a, i32::MAX);
    let mut x = C48_OVER_17.wrapping_add(mul(half_denominator, CNEG32_OVER_17));
    for _ in 0..3 {
        let half_denominator_times_x = mul(half_denominator, x);
        let one_minus = ONE_Q2.wrapping_sub(half_denominator_times_x);
        x = x.wrapping_add(saturating_rounding_multiply_by_pot(mul(x, one_minus), 2));
    }
    // ExactMulByPot<-1> then Rescale<0> from two integer bits.
    saturating_rounding_multiply_by_pot(x >> 1, 2)
}

/// `GetReciprocal`: for `x > 0` with `integer_digits` integer bits, a Q0.31 `1 / x` scaled
/// into `[0.5, 1)` and the number of bits `x` has above one (the caller's extra shift).
#[inline]
pub(crate) fn reciprocal(x: i32, integer_digits: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let bits_over_unit = integer_digits - headroom_plus_one as i32;
    let shifted_minus_one = ((x as u32)
        .checked_shl(headroom_plus_one)
        .unwrap_or(0)
        .wrapping_sub(1 << 31)) as i32;
    (
        one_over_one_plus_x_for_x_in_0_1(shifted_minus_one),
        bits_over_unit,
    )
}

/// `SaturatingAddNonGemmlowp` on `int32`.
#[inline]
fn saturating_add(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// `SaturatingSub` on `int32`.
#[inline]
fn saturating_sub(a: i32, b: i32) -> i32 {
    a.saturating_sub(b)
}

/// `SaturatingRoundingMultiplyByPOTParam` for the exponents `log_x` uses (`0..=31`): a
/// saturating left shift.
#[inline]
fn saturating_shift_left(x: i32, exponent: i32) -> i32 {
    saturating_rounding_multiply_by_pot(x, exponent.clamp(0, 31))
}

/// `log_x_for_x_greater_than_or_equal_to_1<OUT, IN>` (TensorFlow Lite's `common.h`): `ln(x)`
/// of a fixed-point `x >= 1` with `IN` integer bits, as a fixed-point number with `OUT`
/// integer bits (LOG_SOFTMAX's log of the sum of exponentials).
#[must_use]
pub(crate) fn log_x_for_x_greater_than_or_equal_to_1<const OUT: i32, const IN: i32>(
    input: i32,
) -> i32 {
    const LOG_2: i32 = 1_488_522_236;
    const SQRT_SQRT_HALF: i32 = 1_805_811_301;
    const SQRT_HALF: i32 = 1_518_500_250;
    const ONE_QUARTER: i32 = 536_870_912;
    const ALPHA_N: i32 = 117_049_297;
    const ALPHA_D: i32 = 127_690_142;
    const ALPHA_I: i32 = 1_057_819_769;
    const ALPHA_F: i32 = 638_450_708;
    // One bit of headroom over the output (`kAccumIntegerBits`).
    let accum = OUT + 1;
    // Rescale<accum> of a Q0.31 value.
    let shifted_quarter = saturating_rounding_multiply_by_pot(ONE_QUARTER, -accum);
    let z_a = input;
    let z_a_headroom_plus_1 = (z_a as u32).leading_zeros() as i32;
    let r_a_tmp = saturating_shift_left(z_a, z_a_headroom_plus_1 - 1);
    let r_a_raw = saturating_shift_left(mul(r_a_tmp, SQRT_HALF), 1);
    let z_a_pow_2_adj = saturating_add(
        saturating_shift_left(IN - z_a_headroom_plus_1, 31 - accum),
        shifted_quarter,
    );
    let z_b = mul(z_a, SQRT_HALF);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b_raw = saturating_shift_left(z_a, z_b_headroom);
    let z_b_pow_2_adj = saturating_sub(
        saturating_shift_left(IN - z_b_headroom, 31 - accum),
        shifted_quarter,
    );
    let r = r_a_raw.min(r_b_raw);
    let z_pow_2_adj = z_a_pow_2_adj.max(z_b_pow_2_adj);
    let p = rounding_half_sum(r, SQRT_SQRT_HALF);
    let q = r.wrapping_sub(SQRT_SQRT_HALF);
    let q = q.wrapping_add(q);
    let common_sq = mul(q, q);
    let num = mul(q, r).wrapping_add(mul(mul(q, common_sq), ALPHA_N));
    let denom_minus_one = mul(
        p,
        ALPHA_I
            .wrapping_add(q)
            .wrapping_add(mul(ALPHA_D, common_sq)),
    )
    .wrapping_add(mul(ALPHA_F, q));
    let recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    let num_scaled = saturating_rounding_multiply_by_pot(num, -accum);
    let sum = mul(z_pow_2_adj, LOG_2).wrapping_add(mul(num_scaled, recip_denom));
    // Rescale<OUT> from `accum` integer bits.
    saturating_rounding_multiply_by_pot(sum, accum - OUT)
}

/// `GetInvSqrtQuantizedMultiplierExp`: `1 / sqrt(input)` as a Q0.31 multiplier and a shift
/// (times `reverse_shift`: -1 gives a left shift as `MultiplyByQuantizedMultiplier` takes
/// it), by five Newton-Raphson steps in Q3.28. Inputs 0 and 1 give `(i32::MAX, 0)`.
#[must_use]
pub(crate) fn inv_sqrt_quantized_multiplier_exp(input: i32, reverse_shift: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift = 11i32;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() - 1;
    let pairs = (max_left_shift_bits / 2).saturating_sub(1);
    shift -= pairs as i32;
    input <<= 2 * pairs;
    let fixed_input = input >> 1;
    let half_input = saturating_rounding_multiply_by_pot(fixed_input, -1);
    const HALF_THREE: i32 = (1 << 28) + (1 << 27);
    const HALF_SQRT_2: i32 = 1_518_500_250;
    let mut x: i32 = 1 << 28;
    for _ in 0..5 {
        // Q3 * Q3 * Q3 is Q9; back to Q3.
        let x3 = saturating_rounding_multiply_by_pot(mul(mul(x, x), x), 6);
        // Q3 * Q3 is Q6; back to Q3.
        x = saturating_rounding_multiply_by_pot(
            mul(HALF_THREE, x).wrapping_sub(mul(half_input, x3)),
            3,
        );
    }
    let mut out = mul(x, HALF_SQRT_2);
    if shift < 0 {
        out = out.wrapping_shl(shift.unsigned_abs());
        shift = 0;
    }
    (out, shift.wrapping_mul(reverse_shift))
}

#[cfg(test)]
mod tests;
