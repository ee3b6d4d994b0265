//! `logistic` and `tanh` over whole slices, bit for bit:
//! the same gemmlowp steps on `i32` lanes holding `int16_t` values, with every branch a
//! select and `integer_bits` a constant, so that the loop vectorizes (8 values to an AVX2
//! register) where the scalar functions branch per value. An integer LSTM applies one of
//! them to every gate value of every step.

use super::{ONE_Q0, ONE_Q2, constant};

/// The `int16_t` an `int` converts to (wrapping), as an `i32`.
#[inline(always)]
fn w(x: i32) -> i32 {
    i32::from(x as i16)
}

/// `SaturatingRoundingDoublingHighMul`: only `MIN * MIN` reaches 32 768, which saturates.
#[inline(always)]
fn mul(a: i32, b: i32) -> i32 {
    let ab = a * b;
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)).min(i32::from(i16::MAX))
}

/// `SaturatingRoundingMultiplyByPOT<E>`.
#[inline(always)]
fn mul_pot<const E: i32>(x: i32) -> i32 {
    if E > 0 {
        let threshold = (1i32 << (15 - E)) - 1;
        let shifted = x << E;
        if x > threshold {
            i32::from(i16::MAX)
        } else if x < -threshold {
            i32::from(i16::MIN)
        } else {
            shifted
        }
    } else if E < 0 {
        let k = -E;
        let mask = (1i32 << k) - 1;
        let remainder = x & mask;
        let threshold = (mask >> 1) + i32::from(x < 0);
        (x >> k) + i32::from(remainder > threshold)
    } else {
        x
    }
}

/// `RoundingHalfSum`.
#[inline(always)]
fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = a + b;
    let sign = if sum >= 0 { 1 } else { -1 };
    (sum + sign) / 2
}

#[inline(always)]
fn exp_on_interval(a: i32) -> i32 {
    const CONSTANT_TERM: i32 = constant(1_895_147_668) as i32;
    const ONE_THIRD: i32 = constant(715_827_883) as i32;
    let x = w(a + (1 << 12));
    let x2 = mul(x, x);
    let x3 = mul(x2, x);
    let x4 = mul(x2, x2);
    let x4_over_4 = mul_pot::<-2>(x4);
    let poly = mul_pot::<-1>(w(mul(w(x4_over_4 + x3), ONE_THIRD) + x2));
    (CONSTANT_TERM + mul(CONSTANT_TERM, w(x + poly))).clamp(i32::from(i16::MIN), i32::from(i16::MAX))
}

/// `x * exp(-2^E)` where bit `15 - I + E` of `remainder` is set.
#[inline(always)]
fn barrel<const I: i32, const E: i32>(result: i32, remainder: i32, multiplier: i16) -> i32 {
    if I > E && (remainder >> (15 - I + E)) & 1 != 0 {
        mul(result, i32::from(multiplier))
    } else {
        result
    }
}

#[inline(always)]
fn exp_on_negative_values<const I: i32>(a: i32) -> i32 {
    let one_quarter: i32 = 1 << (15 - I - 2);
    let mask = one_quarter - 1;
    let amq = w((a & mask) - one_quarter);
    let scaled = mul_pot::<I>(amq);
    let mut result = exp_on_interval(scaled);
    let remainder = w(amq - a);
    result = barrel::<I, -2>(result, remainder, constant(1_672_461_947));
    result = barrel::<I, -1>(result, remainder, constant(1_302_514_674));
    result = barrel::<I, 0>(result, remainder, constant(790_015_084));
    result = barrel::<I, 1>(result, remainder, constant(290_630_308));
    result = barrel::<I, 2>(result, remainder, constant(39_332_535));
    result = barrel::<I, 3>(result, remainder, constant(720_401));
    result = barrel::<I, 4>(result, remainder, constant(242));
    if I > 5 {
        let clamp = i32::from(constant(-(1i32 << (36 - I.clamp(6, 7)))));
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 { i32::from(ONE_Q0) } else { result }
}

#[inline(always)]
fn newton(half_denominator: i32) -> i32 {
    const C48_OVER_17: i32 = constant(1_515_870_810) as i32;
    const CNEG32_OVER_17: i32 = constant(-1_010_580_540) as i32;
    let mut x = w(C48_OVER_17 + mul(half_denominator, CNEG32_OVER_17));
    for _ in 0..3 {
        let one_minus = w(i32::from(ONE_Q2) - mul(half_denominator, x));
        x = w(x + mul_pot::<2>(mul(x, one_minus)));
    }
    x
}

/// `-|a|` as gemmlowp's sign flips compute it (`-(-32768)` wraps to itself).
#[inline(always)]
fn negative(a: i32) -> i32 {
    if a > 0 { -a } else { a }
}

#[inline(always)]
fn logistic_lane<const I: i32>(a: i32) -> i32 {
    let e = exp_on_negative_values::<I>(negative(a));
    let r = mul_pot::<1>(newton(rounding_half_sum(e, i32::from(ONE_Q0))));
    let v = if a > 0 { r } else { w(i32::from(ONE_Q0) - r) };
    if a == 0 { i32::from(constant(1 << 30)) } else { v }
}

#[inline(always)]
fn tanh_lane<const I: i32>(a: i32) -> i32 {
    // neg_tanh_on_negative_values: ExactMulByPot<1> adds an integer bit.
    let e = exp_on_negative_values::<I>(negative(a));
    let t = mul_pot::<2>(w(newton(rounding_half_sum(e, i32::from(ONE_Q0))) - i32::from(ONE_Q2)));
    let v = if a < 0 { w(-t) } else { t };
    if a == 0 { 0 } else { v }
}

#[inline(always)]
fn logistic_slice<const I: i32>(v: &mut [i16]) {
    for x in v.iter_mut() {
        *x = logistic_lane::<I>(i32::from(*x)) as i16;
    }
}

#[inline(always)]
fn tanh_slice<const I: i32>(v: &mut [i16]) {
    for x in v.iter_mut() {
        *x = tanh_lane::<I>(i32::from(*x)) as i16;
    }
}

/// Every value's `logistic` with `integer_bits` (`0..=7`; others clamp).
#[inline(always)]
fn logistic_portable(v: &mut [i16], integer_bits: i32) {
    match integer_bits {
        ..=0 => logistic_slice::<0>(v),
        1 => logistic_slice::<1>(v),
        2 => logistic_slice::<2>(v),
        3 => logistic_slice::<3>(v),
        4 => logistic_slice::<4>(v),
        5 => logistic_slice::<5>(v),
        6 => logistic_slice::<6>(v),
        _ => logistic_slice::<7>(v),
    }
}

/// Every value's `tanh` with `integer_bits` (`0..=6`; others clamp): its
/// exponential runs with one integer bit more.
#[inline(always)]
fn tanh_portable(v: &mut [i16], integer_bits: i32) {
    match integer_bits {
        ..=0 => tanh_slice::<1>(v),
        1 => tanh_slice::<2>(v),
        2 => tanh_slice::<3>(v),
        3 => tanh_slice::<4>(v),
        4 => tanh_slice::<5>(v),
        5 => tanh_slice::<6>(v),
        _ => tanh_slice::<7>(v),
    }
}

/// [`logistic_portable`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn logistic_avx2(v: &mut [i16], integer_bits: i32) {
    logistic_portable(v, integer_bits);
}

/// [`tanh_portable`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn tanh_avx2(v: &mut [i16], integer_bits: i32) {
    tanh_portable(v, integer_bits);
}

/// Replaces every value with its `logistic` (`integer_bits` in `0..=7`).
pub(crate) fn logistic_all(v: &mut [i16], integer_bits: i32) {
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
        return unsafe { logistic_avx2(v, integer_bits) };
    }
    logistic_portable(v, integer_bits);
}

/// Replaces every value with its `tanh` (`integer_bits` in `0..=6`).
pub(crate) fn tanh_all(v: &mut [i16], integer_bits: i32) {
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
        return unsafe { tanh_avx2(v, integer_bits) };
    }
    tanh_portable(v, integer_bits);
}

#[cfg(test)]
mod tests;
