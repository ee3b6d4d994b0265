//! The quantized bodies of ABS, SQRT and RSQRT (int8; int16 with zero points 0), as
//! `elementwise.cc` computes them: ABS of the offset value, rescaled by `input_scale /
//! output_scale` when the scales differ; SQRT in float (`sqrt` of the dequantized value,
//! divided by the output scale and truncated toward zero); int8 RSQRT in fixed point,
//! `1 / sqrt(q - zp)` from `GetInvSqrtQuantizedMultiplierExp` then the output multiplier
//! `1 / (sqrt(input_scale) * output_scale)`, each applied with 20 bits of headroom.

use super::Params;
use super::super::base::check;
use super::super::base::qtype::QType;
use super::super::base::quant::fixed_point::inv_sqrt_quantized_multiplier_exp;
use super::super::base::quant::{self, multiply_by_quantized_multiplier};
use super::super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, KernelError, Prepare};
use crate::model::TensorType;

/// A negative value given to SQRT (LiteRT: "Sqrt is only defined for non-negative values").
pub(crate) const SQRT_NEGATIVE: KernelError = KernelError::Mismatch {
    what: "SQRT of a negative value",
};

/// A value below the zero point given to RSQRT (LiteRT: "Rsqrt is only defined for positive
/// values").
pub(crate) const RSQRT_NEGATIVE: KernelError = KernelError::Mismatch {
    what: "RSQRT of a negative value",
};

/// Checks the quantized tensors (`GenericPrepare`): one type and shape, per-tensor
/// quantization, int16 zero points 0. Returns the parameters with both quantizations.
fn prepare_quantized(ctx: &Prepare<'_>) -> Result<Params, KernelError> {
    let (input, output) = check::unary(ctx)?;
    if !matches!(input.dtype, TensorType::Int8 | TensorType::Int16) {
        return Err(check::TYPE);
    }
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if input.dtype == TensorType::Int16 && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "int16 quantized math with a non-zero zero point",
        });
    }
    Ok(Params {
        elements: check::dim(input.shape.elements())?,
        in_zp,
        out_zp,
        in_scale,
        out_scale,
        ..Params::default()
    })
}

/// ABS's set-up: the multiplier of `input_scale / output_scale` (a float quotient) where the
/// scales differ.
pub(crate) fn prepare_abs(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let mut p = prepare_quantized(ctx)?;
    if p.in_scale != p.out_scale {
        let (m, s) = quant::checked_multiplier(f64::from(p.in_scale / p.out_scale), false)?;
        p.multiplier = m;
        p.shift = s;
        p.rescale = 1;
    }
    ctx.set_params(&p);
    Ok(())
}

/// ABS: `|q - in_zp|`, rescaled if the scales differ, plus `out_zp`, clamped.
pub(crate) fn eval_abs<T: QType>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<T>(ctx, 0, n)?;
    let y = output_n::<T>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        let v = (x.get() - p.in_zp).abs();
        let v = if p.rescale == 1 {
            multiply_by_quantized_multiplier(v, p.multiplier, p.shift)
        } else {
            v
        };
        *y = T::clamped(v.saturating_add(p.out_zp));
    }
    Ok(())
}

/// SQRT's set-up.
pub(crate) fn prepare_sqrt(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let p = prepare_quantized(ctx)?;
    ctx.set_params(&p);
    Ok(())
}

/// SQRT: `trunc(sqrt(in_scale * (q - in_zp)) / out_scale) + out_zp`, clamped; an error on a
/// negative value (the elements before it are written, as in LiteRT).
pub(crate) fn eval_sqrt<T: QType>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<T>(ctx, 0, n)?;
    let y = output_n::<T>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        let dequantized = p.in_scale * (x.get() - p.in_zp) as f32;
        // A finite scale times an integer: never NaN.
        if dequantized < 0.0 {
            return Err(SQRT_NEGATIVE);
        }
        // `static_cast<int>`: truncation (saturating where C is undefined).
        let q = (libm::sqrtf(dequantized) / p.out_scale) as i32;
        *y = T::clamped(q.saturating_add(p.out_zp));
    }
    Ok(())
}

/// int8 RSQRT's set-up: the multiplier of `1 / (sqrt(input_scale) * output_scale)` (the
/// square root and product in float, the quotient in double).
pub(crate) fn prepare_rsqrt_i8(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let mut p = prepare_quantized(ctx)?;
    let scale = 1.0 / f64::from(libm::sqrtf(p.in_scale) * p.out_scale);
    let (m, s) = quant::quantize_multiplier(scale).ok_or(KernelError::Unsupported {
        what: "RSQRT scale out of the fixed-point range",
    })?;
    if m < 0 || !(-11..=30).contains(&s) {
        return Err(KernelError::Unsupported {
            what: "RSQRT scale out of the fixed-point range",
        });
    }
    p.multiplier = m;
    p.shift = s;
    ctx.set_params(&p);
    Ok(())
}

/// int8 RSQRT of one value: 127 for the zero point itself, else the fixed-point inverse
/// square root rescaled to the output.
#[inline]
pub(crate) fn rsqrt_i8(v: i32, p: &Params) -> i8 {
    // Bits of headroom the two multiplications keep the value in (`kShift`).
    const SHIFT: i32 = 20;
    let value = v - p.in_zp;
    if value == 0 {
        return i8::MAX;
    }
    let (inv_sqrt, inv_shift) = inv_sqrt_quantized_multiplier_exp(value, -1);
    let data = multiply_by_quantized_multiplier(1, inv_sqrt, inv_shift + SHIFT);
    let out = multiply_by_quantized_multiplier(data, p.multiplier, p.shift - SHIFT);
    i8::clamped(out.saturating_add(p.out_zp))
}

/// int8 RSQRT; an error if a value is below the zero point (checked element by element
/// before it is written, as LiteRT does).
pub(crate) fn eval_rsqrt_i8(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<i8>(ctx, 0, n)?;
    let y = output_n::<i8>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        if i32::from(x) < p.in_zp {
            return Err(RSQRT_NEGATIVE);
        }
        *y = rsqrt_i8(i32::from(x), &p);
    }
    Ok(())
}
