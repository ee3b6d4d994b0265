//! RELU, RELU6, RELU_N1_TO_1 and LEAKY_RELU on quantized tensors (uint8, int8; int16 with
//! zero points 0 for all but RELU_N1_TO_1), as `activations.cc` computes them:
//!
//! - the ReLUs (`QuantizedReluX`): the offset input rescaled by `input_scale / output_scale`
//!   (`MultiplyByQuantizedMultiplier`), plus the output zero point, clamped to the
//!   activation's bounds quantized at the output's scale (`zero_point + roundf(bound /
//!   scale)`, within the type);
//! - LEAKY_RELU (`QuantizeLeakyRelu`): non-negative offset inputs rescaled by `input_scale /
//!   output_scale`, negative ones by `input_scale * alpha / output_scale` (a negative alpha
//!   applied as the negated product of its magnitude), plus the output zero point, clamped.
//!
//! The multipliers are the reference's: the scale ratios are `f32` quotients, then
//! `QuantizeMultiplier` in double.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check;
use super::super::base::qtype::QType;
use super::super::base::quant::{self, multiply_by_quantized_multiplier, quantize_multiplier};
use super::super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, KernelError, Prepare};
use crate::model::TensorType;

/// Which op.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// RELU: `[0, inf)`.
    Relu,
    /// RELU6: `[0, 6]`.
    Relu6,
    /// RELU_N1_TO_1: `[-1, 1]`.
    ReluN1To1,
}

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
    in_zp: i32,
    out_zp: i32,
    /// The identity multiplier (`input_scale / output_scale`).
    multiplier: i32,
    shift: i32,
    /// LEAKY_RELU: alpha's multiplier (negative for a negative alpha) and shift.
    alpha_multiplier: i32,
    alpha_shift: i32,
    /// The ReLUs: the output clamp.
    min: i32,
    max: i32,
}

/// Whether this file runs the ReLUs for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Uint8 | TensorType::Int8 | TensorType::Int16)
}

const MULTIPLIER: KernelError = KernelError::Unsupported {
    what: "quantized scale ratio out of the fixed-point range",
};

/// `QuantizeMultiplier`, refused where `MultiplyByQuantizedMultiplier` could not apply it.
fn multiplier(m: f64) -> Result<(i32, i32), KernelError> {
    let (q, s) = quantize_multiplier(m).ok_or(MULTIPLIER)?;
    if s > 30 {
        return Err(MULTIPLIER);
    }
    Ok((q, s))
}

/// The common checks: one type and shape, per-tensor quantization, int16 zero points 0.
/// Returns the parameters with the zero points and the identity multiplier.
fn prepare_common(ctx: &Prepare<'_>) -> Result<(Params, TensorType, f32, f32), KernelError> {
    let (input, output) = check::unary(ctx)?;
    if !handles(input.dtype) {
        return Err(check::TYPE);
    }
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if input.dtype == TensorType::Int16 && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "int16 ReLU with a non-zero zero point",
        });
    }
    let (m, s) = multiplier(f64::from(in_scale / out_scale))?;
    let (min, max) = quant::type_range(input.dtype)?;
    Ok((
        Params {
            elements: check::dim(input.shape.elements())?,
            in_zp,
            out_zp,
            multiplier: m,
            shift: s,
            alpha_multiplier: 0,
            alpha_shift: 0,
            min,
            max,
        },
        input.dtype,
        in_scale,
        out_scale,
    ))
}

/// A ReLU's set-up: the clamp of `QuantizedReluX`.
pub(crate) fn prepare(ctx: &mut Prepare<'_>, relu: Kind) -> Result<(), KernelError> {
    let (mut p, dtype, _, out_scale) = prepare_common(ctx)?;
    if relu == Kind::ReluN1To1 && dtype == TensorType::Int16 {
        return Err(check::TYPE);
    }
    // `zero_point + static_cast<int32>(roundf(bound / scale))`, in float.
    let bound = |b: f32| {
        let r = libm::roundf(b / out_scale);
        if !(r >= i32::MIN as f32 && r < i32::MAX as f32) {
            return Err(KernelError::Unsupported {
                what: "activation bound not representable at the output's scale",
            });
        }
        Ok(p.out_zp.saturating_add(r as i32))
    };
    let (lo, hi) = match relu {
        Kind::Relu => (0.0, None),
        Kind::Relu6 => (0.0, Some(6.0)),
        Kind::ReluN1To1 => (-1.0, Some(1.0)),
    };
    p.min = p.min.max(bound(lo)?);
    if let Some(hi) = hi {
        p.max = p.max.min(bound(hi)?);
    }
    ctx.set_params(&p);
    Ok(())
}

/// LEAKY_RELU's set-up: the identity and alpha multipliers.
pub(crate) fn prepare_leaky(ctx: &mut Prepare<'_>, alpha: f32) -> Result<(), KernelError> {
    let (mut p, _, in_scale, out_scale) = prepare_common(ctx)?;
    let (m, s) = multiplier(f64::from(in_scale * alpha / out_scale))?;
    p.alpha_multiplier = m;
    p.alpha_shift = s;
    ctx.set_params(&p);
    Ok(())
}

/// A ReLU over type `T`.
pub(crate) fn eval<T: QType>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<T>(ctx, 0, n)?;
    let y = output_n::<T>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        let v = multiply_by_quantized_multiplier(x.get() - p.in_zp, p.multiplier, p.shift);
        let v = p.out_zp.wrapping_add(v).max(p.min).min(p.max);
        *y = T::clamped(v);
    }
    Ok(())
}

/// LEAKY_RELU over type `T`.
pub(crate) fn eval_leaky<T: QType>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<T>(ctx, 0, n)?;
    let y = output_n::<T>(ctx, 0, n)?;
    let negative = p.alpha_multiplier < 0;
    let alpha = p.alpha_multiplier.wrapping_abs();
    for (y, &x) in y.iter_mut().zip(x) {
        let v = x.get() - p.in_zp;
        let out = if v >= 0 {
            multiply_by_quantized_multiplier(v, p.multiplier, p.shift)
        } else {
            let scaled = multiply_by_quantized_multiplier(v, alpha, p.alpha_shift);
            if negative { scaled.wrapping_neg() } else { scaled }
        };
        *y = T::clamped(p.out_zp.wrapping_add(out));
    }
    Ok(())
}

/// Runs a ReLU on the input's type.
pub(crate) fn eval_any(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Uint8 => eval::<u8>(ctx),
        TensorType::Int8 => eval::<i8>(ctx),
        _ => eval::<i16>(ctx),
    }
}

/// Runs LEAKY_RELU on the input's type.
pub(crate) fn eval_leaky_any(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Uint8 => eval_leaky::<u8>(ctx),
        TensorType::Int8 => eval_leaky::<i8>(ctx),
        _ => eval_leaky::<i16>(ctx),
    }
}
