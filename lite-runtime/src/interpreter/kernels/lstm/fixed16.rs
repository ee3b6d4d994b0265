//! gemmlowp's 16-bit fixed-point `logistic` and `tanh` (`fixedpoint.h` over `int16_t`), bit
//! for bit: what LiteRT's integer LSTM applies to its gates (`ApplySigmoid`: Q3.12 in, Q0.15
//! out; `ApplyTanh<integer_bits>`) and to its cell state.
//!
//! A `FixedPoint<int16_t, I>` is a raw `i16` with `15 - I` fractional bits. Sums and negations
//! wrap as C's `int16_t` conversions of `int` results do; products are the 16-bit
//! `SaturatingRoundingDoublingHighMul`; constants are gemmlowp's 32-bit ones rounded down to
//! 16 bits (`RescaleConstantInitializer`).
//!
//! The kernels apply them to whole slices ([`logistic_all`], [`tanh_all`]: the same steps on
//! lanes, vectorized); the scalar functions here are gemmlowp's text, kept as the reference the
//! slice functions equal on every input.

#[cfg(test)]
use super::super::base::quant::fixed_point::rounding_divide_by_pot_i16;

mod lanes;
pub(crate) use lanes::{logistic_all, tanh_all};

/// gemmlowp's 32-bit constant `v` as a 16-bit one: `RoundingDivideByPOT(v, 16)`.
const fn constant(v: i32) -> i16 {
    // (v + 2^15 - (v < 0)) >> 16, the rounding of RoundingDivideByPOT for exponent 16.
    let mask = (1i64 << 16) - 1;
    let remainder = (v as i64) & mask;
    let threshold = (mask >> 1) + if v < 0 { 1 } else { 0 };
    ((v >> 16) + if remainder > threshold { 1 } else { 0 }) as i16
}

/// `SaturatingRoundingDoublingHighMul` on `int16_t`: the high 16 bits of `2 a b`, rounded to
/// nearest, `MIN * MIN` saturated.
#[inline]
#[cfg(test)]
pub(crate) fn mul(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge: i32 = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    // C's division truncates toward zero, as Rust's does.
    ((ab + nudge) / (1 << 15)) as i16
}

/// `SaturatingRoundingMultiplyByPOT<e>` on `int16_t`: a saturating left shift for `e > 0`, a
/// rounding right shift for `e < 0`.
#[inline]
#[cfg(test)]
fn mul_pot(x: i16, e: i32) -> i16 {
    if e > 0 {
        let threshold = (1i32 << (15 - e)) - 1;
        let x32 = i32::from(x);
        if x32 > threshold {
            i16::MAX
        } else if x32 < -threshold {
            i16::MIN
        } else {
            (x32 << e) as i16
        }
    } else if e < 0 {
        rounding_divide_by_pot_i16(x, e.unsigned_abs())
    } else {
        x
    }
}

/// `SaturatingAdd` on `int16_t`.
#[inline]
#[cfg(test)]
fn saturating_add(a: i16, b: i16) -> i16 {
    a.saturating_add(b)
}

/// `RoundingHalfSum` on `int16_t`.
#[inline]
#[cfg(test)]
fn rounding_half_sum(a: i16, b: i16) -> i16 {
    let sum = i32::from(a) + i32::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i16
}

/// One in Q0.15 (the largest raw value).
const ONE_Q0: i16 = i16::MAX;
/// One in Q2.13.
const ONE_Q2: i16 = 1 << 13;

/// `exp_on_interval_between_negative_one_quarter_and_0_excl`, Q0.15.
#[inline]
#[cfg(test)]
fn exp_on_interval(a: i16) -> i16 {
    const CONSTANT_TERM: i16 = constant(1_895_147_668);
    const ONE_THIRD: i16 = constant(715_827_883);
    let x = a.wrapping_add(1 << 12); // a + 1/8
    let x2 = mul(x, x);
    let x3 = mul(x2, x);
    let x4 = mul(x2, x2);
    let x4_over_4 = mul_pot(x4, -2);
    let poly = mul_pot(mul(x4_over_4.wrapping_add(x3), ONE_THIRD).wrapping_add(x2), -1);
    saturating_add(CONSTANT_TERM, mul(CONSTANT_TERM, x.wrapping_add(poly)))
}

/// `exp_on_negative_values` of a `FixedPoint<int16_t, integer_bits>` (`a <= 0`), Q0.15.
/// `integer_bits` in `0..=7`.
#[inline]
#[cfg(test)]
fn exp_on_negative_values(a: i16, integer_bits: i32) -> i16 {
    let fractional_bits = 15 - integer_bits;
    let one_quarter: i16 = 1 << (fractional_bits - 2);
    let mask = one_quarter.wrapping_sub(1);
    let a_mod_quarter_minus_one_quarter = (a & mask).wrapping_sub(one_quarter);
    let mut result = exp_on_interval(mul_pot(a_mod_quarter_minus_one_quarter, integer_bits));
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);
    // exp(-2^e) for e in -2..=4, gemmlowp's Q0.31 constants rounded to Q0.15.
    const BARREL: [(i32, i16); 7] = [
        (-2, constant(1_672_461_947)),
        (-1, constant(1_302_514_674)),
        (0, constant(790_015_084)),
        (1, constant(290_630_308)),
        (2, constant(39_332_535)),
        (3, constant(720_401)),
        (4, constant(242)),
    ];
    for (exponent, multiplier) in BARREL {
        if integer_bits > exponent {
            let shift = fractional_bits + exponent;
            // `1 << shift` as an int16 mask (bit 15 is the sign bit).
            if (i32::from(remainder) >> shift) & 1 != 0 {
                result = mul(result, multiplier);
            }
        }
    }
    if integer_bits > 5 {
        // -32.0 in Q(integer_bits).
        let clamp = constant(-(1i32 << (36 - integer_bits)));
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 { ONE_Q0 } else { result }
}

/// The Newton-Raphson reciprocal both `1 / (1 + a)` and `(1 - a) / (1 + a)` start from, Q2.13.
#[inline]
#[cfg(test)]
fn newton(half_denominator: i16) -> i16 {
    const C48_OVER_17: i16 = constant(1_515_870_810);
    const CNEG32_OVER_17: i16 = constant(-1_010_580_540);
    let mut x = C48_OVER_17.wrapping_add(mul(half_denominator, CNEG32_OVER_17));
    for _ in 0..3 {
        let half_denominator_times_x = mul(half_denominator, x);
        let one_minus = ONE_Q2.wrapping_sub(half_denominator_times_x);
        // Q2 * Q2 = Q4, rescaled to Q2.
        x = x.wrapping_add(mul_pot(mul(x, one_minus), 2));
    }
    x
}

/// `one_over_one_plus_x_for_x_in_0_1`, Q0.15.
#[inline]
#[cfg(test)]
fn one_over_one_plus_x(a: i16) -> i16 {
    let x = newton(rounding_half_sum(a, ONE_Q0));
    // ExactMulByPot<-1> (Q1), then Rescale<0>.
    mul_pot(x, 1)
}

/// `one_minus_x_over_one_plus_x_for_x_in_0_1`, Q0.15.
#[inline]
#[cfg(test)]
fn one_minus_x_over_one_plus_x(a: i16) -> i16 {
    let x = newton(rounding_half_sum(a, ONE_Q0));
    mul_pot(x.wrapping_sub(ONE_Q2), 2)
}

/// gemmlowp's `logistic` of a `FixedPoint<int16_t, integer_bits>`, Q0.15. `integer_bits` in
/// `0..=7`.
#[must_use]
#[cfg(test)]
pub(crate) fn logistic(a: i16, integer_bits: i32) -> i16 {
    if a == 0 {
        return constant(1 << 30);
    }
    let positive = a > 0;
    let abs = if positive { a } else { a.wrapping_neg() };
    let result_if_positive =
        one_over_one_plus_x(exp_on_negative_values(abs.wrapping_neg(), integer_bits));
    if positive {
        result_if_positive
    } else {
        ONE_Q0.wrapping_sub(result_if_positive)
    }
}

/// gemmlowp's `tanh` of a `FixedPoint<int16_t, integer_bits>`, Q0.15. `integer_bits` in
/// `0..=6`.
#[must_use]
#[cfg(test)]
pub(crate) fn tanh(a: i16, integer_bits: i32) -> i16 {
    if a == 0 {
        return 0;
    }
    let negative = a < 0;
    let n = if negative { a } else { a.wrapping_neg() };
    // neg_tanh_on_negative_values: ExactMulByPot<1> adds an integer bit.
    let t = one_minus_x_over_one_plus_x(exp_on_negative_values(n, integer_bits + 1));
    if negative { t.wrapping_neg() } else { t }
}
