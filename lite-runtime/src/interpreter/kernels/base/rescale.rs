//! The rescaling the quantized element-wise kernels share (ADD, SUB, SQUARED_DIFFERENCE,
//! DIV, the comparisons), as LiteRT's reference build computes it, including where its C++
//! leaves the arithmetic undefined and the x86 build that gives `BUILTIN_REF` its answers
//! does something definite:
//!
//! - `MultiplyByQuantizedMultiplierSmallerThanOneExp` (double rounding: the reference build
//!   leaves `TFLITE_SINGLE_ROUNDING` off) is `RoundingDivideByPOT(SaturatingRounding
//!   DoublingHighMul(x, m), -shift)` for any shift. SUB (an output multiplier above one),
//!   the comparisons (an input scale above one) and quantized DIV (a numerator near zero) hand
//!   it shifts outside `0..=31`; gemmlowp's `RoundingDivideByPOT` then shifts by a negative or
//!   too large count, which x86 masks (to 6 bits for the 64-bit mask, to 5 for the 32-bit
//!   shift). [`rounding_divide_by_pot_any`] computes exactly that, on every target.
//! - `MultiplyByQuantizedMultiplier` shifts `x * (1 << shift)` left first; a multiplier of
//!   2^31 or more (a degenerate output scale, as in Coral's traffic model, whose MUL outputs
//!   have scales near 1e-35) makes that shift pass 31, and x86 takes its count modulo 32:
//!   [`multiply_by_quantized_multiplier_any`] with [`multiplier_any`].
//! - `QuantizeMultiplierSmallerThanOneExp` / `QuantizeMultiplierGreaterThanOne` abort
//!   (`TFLITE_CHECK`) outside `(0, 1)` / above one: [`multiplier_below_one`] and
//!   [`multiplier_above_one`] refuse those at set-up.

use super::quant::{
    checked_multiplier, quantize_multiplier, saturating_rounding_doubling_high_mul,
};
use crate::interpreter::{Desc, KernelError};

/// gemmlowp's `RoundingDivideByPOT(x, exponent)` for any `exponent`, as the x86 build runs
/// it: `mask = (int32)((1ll << exponent) - 1)` with the shift count taken modulo 64,
/// `x >> exponent` with it taken modulo 32. For `exponent` in `0..=31` this is `x / 2^exponent`
/// rounded to nearest, ties away from zero (base's `rounding_divide_by_pot`).
#[inline(always)]
#[must_use]
pub(crate) fn rounding_divide_by_pot_any(x: i32, exponent: i32) -> i32 {
    let mask = (1i64 << (exponent & 63)).wrapping_sub(1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1).wrapping_add(i32::from(x < 0));
    (x >> (exponent & 31)).wrapping_add(i32::from(remainder > threshold))
}

/// `MultiplyByQuantizedMultiplierSmallerThanOneExp(x, multiplier, shift)` (double rounding),
/// for any `shift` (see [`rounding_divide_by_pot_any`]).
#[inline(always)]
#[must_use]
pub(crate) fn multiply_smaller_than_one_exp(x: i32, multiplier: i32, shift: i32) -> i32 {
    rounding_divide_by_pot_any(
        saturating_rounding_doubling_high_mul(x, multiplier),
        shift.wrapping_neg(),
    )
}

/// `MultiplyByQuantizedMultiplier(x, multiplier, shift)` (double rounding) for any `shift`
/// [`multiplier_any`] gives: `x * (1 << shift)` for a positive one, the shift count modulo 32
/// and the product wrapping, as x86 runs it; equal to base's
/// `multiply_by_quantized_multiplier` for shifts in `-31..=30`.
#[inline(always)]
#[must_use]
pub(crate) fn multiply_by_quantized_multiplier_any(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left = shift.max(0).unsigned_abs();
    let right = shift.min(0).wrapping_neg();
    rounding_divide_by_pot_any(
        saturating_rounding_doubling_high_mul(x.wrapping_mul(1i32.wrapping_shl(left)), multiplier),
        right,
    )
}

/// `QuantizeMultiplier` of `m >= 0` with any shift (see
/// [`multiply_by_quantized_multiplier_any`]).
///
/// # Errors
/// [`KernelError::Unsupported`] where the reference aborts (NaN, infinite or negative).
pub(crate) fn multiplier_any(m: f64) -> Result<(i32, i32), KernelError> {
    match quantize_multiplier(m) {
        Some((q, s)) if q >= 0 => Ok((q, s)),
        _ => Err(KernelError::Unsupported {
            what: "quantized scale ratio not finite and non-negative",
        }),
    }
}

/// `x` offset, shifted left by `left_shift` (wrapping, as C's `int32` product does in
/// practice) and scaled: the per-operand step of the quantized ADD, SUB, SQUARED_DIFFERENCE
/// and comparisons.
#[inline(always)]
#[must_use]
pub(crate) fn shift_and_scale(
    x: i32,
    offset: i32,
    left_shift: u32,
    multiplier: i32,
    shift: i32,
) -> i32 {
    let shifted = offset
        .wrapping_add(x)
        .wrapping_mul(1i32.wrapping_shl(left_shift));
    multiply_smaller_than_one_exp(shifted, multiplier, shift)
}

/// `QuantizeMultiplierSmallerThanOneExp`: the multiplier and (non-positive) shift of `m` in
/// `(0, 1)`.
///
/// # Errors
/// [`KernelError::Unsupported`] outside `(0, 1)`, where LiteRT aborts.
pub(crate) fn multiplier_below_one(m: f64) -> Result<(i32, i32), KernelError> {
    let out_of_range = KernelError::Unsupported {
        what: "quantized scale ratio outside (0, 1) where the reference needs it below one",
    };
    if !(m > 0.0 && m < 1.0) {
        return Err(out_of_range);
    }
    let (q, s) = checked_multiplier(m, false)?;
    if s > 0 {
        return Err(out_of_range);
    }
    Ok((q, s))
}

/// `QuantizeMultiplierGreaterThanOne`: the multiplier and (non-negative) shift of `m > 1`.
///
/// # Errors
/// [`KernelError::Unsupported`] for `m <= 1`, where LiteRT aborts, or a shift past 30.
pub(crate) fn multiplier_above_one(m: f64) -> Result<(i32, i32), KernelError> {
    if m.partial_cmp(&1.0) != Some(core::cmp::Ordering::Greater) {
        return Err(KernelError::Unsupported {
            what: "quantized scale ratio of exactly one where the reference needs it above one",
        });
    }
    checked_multiplier(m, false)
}

/// Whether `t` carries quantization parameters (at least one scale): LiteRT's
/// `quantization.type != kTfLiteNoQuantization`.
#[must_use]
pub(crate) fn is_quantized(t: &Desc<'_>) -> bool {
    t.quantization().is_some_and(|q| !q.scale().is_empty())
}

#[cfg(test)]
mod tests;
