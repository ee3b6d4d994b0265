//! TensorFlow Lite's quantization arithmetic, bit for bit: how a real multiplier becomes a
//! 32-bit fixed-point multiplier and a shift (`QuantizeMultiplier`), how an accumulator is
//! scaled by one (`MultiplyByQuantizedMultiplier`, with gemmlowp's double rounding: the
//! reference build leaves `TFLITE_SINGLE_ROUNDING` off), and the clamps of fused activations
//! on quantized outputs; and the per-element conversions between floats and quantized values
//! (`AffineQuantize`, `Dequantize`, half to single precision), and the few requantizations the
//! reference kernels do in floating point rather than fixed point ([`requantize_float`]:
//! CONCATENATION's `ConcatenationWithScaling`; [`requantize_double`]: FULLY_CONNECTED since
//! 2025). Every quantized kernel goes through these, so they are the one place where
//! "bit-exact with LiteRT" is decided. [`fixed_point`] holds gemmlowp's fixed-point functions
//! (softmax's `exp` and reciprocal), [`lut`] the lookup tables (LOGISTIC, TANH, softmax).

pub(crate) mod fixed_point;
pub(crate) mod lut;

use crate::interpreter::KernelError;
use crate::model::{Activation, Quantization, TensorType};

/// `QuantizeMultiplier`: `m ≈ multiplier * 2^(shift - 31)`, `multiplier` in `[2^30, 2^31)`
/// (or 0). `frexp`, then `round` (half away from zero) of the mantissa times 2^31; a mantissa
/// that rounds up to 2^31 is halved with the shift raised; shifts below -31 flush to zero.
/// `None` for a multiplier TensorFlow Lite would abort on (NaN, infinite, negative below
/// what the fixed point holds).
#[must_use]
pub(crate) fn quantize_multiplier(m: f64) -> Option<(i32, i32)> {
    if m == 0.0 {
        return Some((0, 0));
    }
    if !m.is_finite() {
        return None;
    }
    let (q, mut shift) = libm::frexp(m);
    let mut fixed = libm::round(q * 2_147_483_648.0) as i64;
    if !(-(1 << 31)..=1 << 31).contains(&fixed) {
        return None;
    }
    if fixed == 1 << 31 {
        fixed /= 2;
        shift += 1;
    }
    if fixed > i64::from(i32::MAX) {
        return None;
    }
    if shift < -31 {
        shift = 0;
        fixed = 0;
    }
    Some((i32::try_from(fixed).ok()?, shift))
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul`: the high 32 bits of `2 a b`, rounded to
/// nearest (ties away from zero), saturating the one overflowing case `MIN * MIN`.
#[inline(always)]
#[must_use]
pub(crate) fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = i64::from(a) * i64::from(b);
    // The reference's `(ab + nudge) / 2^31` with C's division, which truncates toward zero,
    // and `nudge` 2^30, or 1 - 2^30 for a negative `ab`. For `ab < 0` the sum is negative and
    // truncating it is `floor((ab + 1 - 2^30 + 2^31 - 1) / 2^31)`: both cases are one
    // arithmetic shift of `ab + 2^30`, with no division and no branch on the sign (on a
    // Cortex-M4, SMLAL and two shifts in place of a 64-bit division's fix-ups; the old form is
    // kept in the tests as the reference).
    ((ab + (1 << 30)) >> 31) as i32
}

/// gemmlowp's `RoundingDivideByPOT`: `x / 2^exponent` rounded to nearest, ties away from
/// zero; `exponent` in `0..=31`.
#[inline(always)]
#[must_use]
pub(crate) fn rounding_divide_by_pot(x: i32, exponent: u32) -> i32 {
    let exponent = exponent.min(31);
    let mask = ((1i64 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from(remainder > threshold)
}

/// `MultiplyByQuantizedMultiplier` for an `int32` accumulator (double rounding). `shift` in
/// `-31..=30` (checked where the multiplier is made: [`checked_multiplier`]). The left shift
/// wraps as the reference's unchecked `x * (1 << left_shift)` does.
#[inline(always)]
#[must_use]
pub(crate) fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left = shift.clamp(0, 30) as u32;
    let right = (-shift).clamp(0, 31) as u32;
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(x.wrapping_mul(1 << left), multiplier),
        right,
    )
}

/// `MultiplyByQuantizedMultiplier` for an `int64` accumulator (the 16x8 kernels): the
/// multiplier reduced to 15 bits, one rounding shift. `shift` in `-31..=7`.
#[inline(always)]
#[must_use]
pub(crate) fn multiply_by_quantized_multiplier_i64(x: i64, multiplier: i32, shift: i32) -> i32 {
    let reduced: i64 = if multiplier < 0x7FFF_0000 {
        i64::from((multiplier + (1 << 15)) >> 16)
    } else {
        0x7FFF
    };
    let total = (15 - shift).clamp(1, 62) as u32;
    let v = x.wrapping_mul(reduced).wrapping_add(1i64 << (total - 1));
    (v >> total) as i32
}

/// A multiplier and shift for `m`, refused when `multiply_by_quantized_multiplier` (or its
/// 64-bit form, `wide`) could not apply it as the reference does: a negative multiplier, or
/// a shift past what its arithmetic holds (an effective scale at or over 2^30, or 2^7 wide).
pub(crate) fn checked_multiplier(m: f64, wide: bool) -> Result<(i32, i32), KernelError> {
    let bad = KernelError::Unsupported {
        what: "quantized scale ratio out of the fixed-point range",
    };
    let (q, s) = quantize_multiplier(m).ok_or(bad)?;
    if q < 0 || s > if wide { 7 } else { 30 } {
        return Err(bad);
    }
    Ok((q, s))
}

/// The integer range of a quantized type: `(min, max)`.
pub(crate) fn type_range(t: TensorType) -> Result<(i32, i32), KernelError> {
    Ok(match t {
        TensorType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        TensorType::Uint8 => (0, u8::MAX.into()),
        TensorType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        _ => {
            return Err(KernelError::Unsupported {
                what: "quantized type other than INT8, UINT8, INT16",
            });
        }
    })
}

/// `kernel_util`'s `Quantize`: `zero_point + round(f / scale)` in float, `None` past `int32`.
fn quantize_value(scale: f32, zero_point: i32, f: f32) -> Option<i32> {
    let t = libm::roundf(f / scale);
    if !(t >= i32::MIN as f32 && t <= i32::MAX as f32) {
        return None;
    }
    zero_point.checked_add(t as i32)
}

/// `CalculateActivationRangeQuantized`: the output clamp a fused activation gives a quantized
/// output of type `t`, scale `scale` and zero point `zero_point`.
pub(crate) fn activation_range(
    a: Activation,
    t: TensorType,
    scale: f32,
    zero_point: i32,
) -> Result<(i32, i32), KernelError> {
    let (qmin, qmax) = type_range(t)?;
    let q = |f: f32| {
        quantize_value(scale, zero_point, f).ok_or(KernelError::Unsupported {
            what: "activation bound not representable at the output's scale",
        })
    };
    Ok(match a {
        Activation::None => (qmin, qmax),
        Activation::Relu => (qmin.max(q(0.0)?), qmax),
        Activation::Relu6 => (qmin.max(q(0.0)?), qmax.min(q(6.0)?)),
        Activation::ReluN1To1 => (qmin.max(q(-1.0)?), qmax.min(q(1.0)?)),
        _ => {
            return Err(KernelError::Unsupported {
                what: "fused activation",
            });
        }
    })
}

/// A tensor's single scale and zero point (per-tensor affine quantization), checked: a
/// positive finite scale and a zero point inside `t`'s range.
pub(crate) fn per_tensor(
    q: Option<Quantization<'_>>,
    t: TensorType,
) -> Result<(f32, i32), KernelError> {
    per_tensor_in(q, type_range(t)?)
}

/// [`per_tensor`] of an int32 tensor (QUANTIZE's requantization to or from int32 only: the
/// other kernels refuse int32 as a quantized type).
pub(crate) fn per_tensor_i32(q: Option<Quantization<'_>>) -> Result<(f32, i32), KernelError> {
    per_tensor_in(q, (i32::MIN, i32::MAX))
}

fn per_tensor_in(
    q: Option<Quantization<'_>>,
    (lo, hi): (i32, i32),
) -> Result<(f32, i32), KernelError> {
    let missing = KernelError::Mismatch {
        what: "quantized tensor without one scale and zero point",
    };
    let q = q.ok_or(missing)?;
    if q.scale().len() != 1 {
        return Err(missing);
    }
    let scale = q.scale().get(0).ok_or(missing)?;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(KernelError::Mismatch {
            what: "quantization scale not positive and finite",
        });
    }
    let zp = q.zero_point().get(0).unwrap_or(0);
    let zp = i32::try_from(zp)
        .ok()
        .filter(|z| (lo..=hi).contains(z))
        .ok_or(KernelError::Mismatch {
            what: "zero point outside the type's range",
        })?;
    Ok((scale, zp))
}

/// `PopulateConvolutionQuantizationParams`'s per-channel part: for each of `channels` output
/// channels, the multiplier and shift of `input_scale * filter_scale[c] / output_scale`
/// (computed in double; a single filter scale is broadcast). Written into `out` as
/// `(multiplier, shift)` pairs.
pub(crate) fn channel_multipliers(
    input_scale: f32,
    filter: &Quantization<'_>,
    output_scale: f32,
    wide: bool,
    mut out: impl FnMut(usize, i32, i32),
    channels: usize,
) -> Result<(), KernelError> {
    let scales = filter.scale();
    if scales.len() != 1 && scales.len() != channels {
        return Err(KernelError::Mismatch {
            what: "filter scales neither one nor one per output channel",
        });
    }
    for c in 0..channels {
        let s = scales
            .get(if scales.len() == 1 { 0 } else { c })
            .unwrap_or(0.0);
        if !(s.is_finite() && s >= 0.0) {
            return Err(KernelError::Mismatch {
                what: "filter scale negative or not finite",
            });
        }
        let m = f64::from(input_scale) * f64::from(s) / f64::from(output_scale);
        let (q, shift) = checked_multiplier(m, wide)?;
        out(c, q, shift);
    }
    Ok(())
}

/// `AffineQuantize` of one value: `round(x / scale) + zero_point` (the division in float,
/// `round` half away from zero), saturating where C's conversion is undefined (NaN to 0);
/// the caller clamps to its type.
#[inline(always)]
#[must_use]
pub(crate) fn affine_quantize(x: f32, scale: f32, zero_point: i32) -> i32 {
    (libm::roundf(x / scale) as i32).saturating_add(zero_point)
}

/// `Dequantize` of one value: `(float)(double(scale) * (q - zero_point))`.
#[inline(always)]
#[must_use]
pub(crate) fn dequantize(q: i32, zero_point: i32, scale: f64) -> f32 {
    (scale * f64::from(q - zero_point)) as f32
}

/// CONCATENATION's int8 rescale (`ConcatenationWithScaling`, in float):
/// `round(q * scale + bias) + zero_point`, `scale = input_scale / output_scale`, `bias =
/// -input_zero_point * scale`; the caller clamps.
#[inline(always)]
#[must_use]
pub(crate) fn requantize_float(q: i32, scale: f32, bias: f32, zero_point: i32) -> i32 {
    let v = libm::roundf(q as f32 * scale + bias) as i32;
    v.wrapping_add(zero_point)
}

/// FULLY_CONNECTED's requantization (the reference kernel's since 2025): `round(acc *
/// scale)` in double (C's `round`, ties away from zero), saturated to `i32` as the reference's
/// cast, plus `zero_point` (wrapping); the caller clamps. The fixed-point
/// [`multiply_by_quantized_multiplier`] is what the optimized kernels do, and it rounds
/// differently on ties.
#[inline(always)]
#[must_use]
pub(crate) fn requantize_double(acc: f64, scale: f64, zero_point: i32) -> i32 {
    (libm::round(acc * scale) as i32).wrapping_add(zero_point)
}

/// IEEE half to single precision (exact: every half is a float).
#[must_use]
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from(h >> 10) & 0x1f;
    let man = u32::from(h) & 0x3ff;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise the mantissa.
            let shift = m.leading_zeros() - 21;
            let m = (m << shift) & 0x3ff;
            sign | ((113 - shift) << 23) | (m << 13)
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// The per-tensor multiplier of a uint8 convolution (`PopulateConvolutionQuantizationParams`
/// through `GetQuantizedConvolutionMultipler`): `input_scale * filter_scale` multiplied in
/// float, then divided by `output_scale` in double. With a bias, its scale must be that
/// product (in double) within 2% of the output scale, as the reference checks.
pub(crate) fn legacy_conv_multiplier(
    input_scale: f32,
    filter_scale: f32,
    bias_scale: Option<f32>,
    output_scale: f32,
) -> Result<(i32, i32), KernelError> {
    if let Some(b) = bias_scale {
        let product = f64::from(input_scale) * f64::from(filter_scale);
        let ratio = (product - f64::from(b)).abs() / f64::from(output_scale);
        if ratio.is_nan() || ratio > 0.02 {
            return Err(KernelError::Mismatch {
                what: "bias scale differs from input scale x filter scale",
            });
        }
    }
    let product = f64::from(input_scale * filter_scale);
    if product.is_nan() || product < 0.0 {
        return Err(KernelError::Mismatch {
            what: "input scale x filter scale negative",
        });
    }
    checked_multiplier(product / f64::from(output_scale), false)
}

#[cfg(test)]
mod tests;
