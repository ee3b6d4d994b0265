//! PRELU, `x >= 0 ? x : x * alpha` with alpha broadcast against the input (the output has
//! the input's shape), as LiteRT's reference kernel computes it (`activations.cc`,
//! `reference_ops::BroadcastPrelu4DSlow`):
//!
//! - float32;
//! - uint8 and int8 (alpha of the input's type) and int16 (alpha int8): a non-negative offset
//!   input is rescaled by `input_scale / output_scale`, a negative one times the offset alpha
//!   by `input_scale * alpha_scale / output_scale` (both `f32` products and quotients, then
//!   `QuantizeMultiplier`), plus the output zero point, clamped.
//!
//! Broadcasting goes to 6 dimensions (LiteRT's float reference path stops at 4; within 4
//! the results are the same).

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::broadcast::{Broadcast, broadcast_shape, map2};
use super::base::check;
use super::base::qtype::QType;
use super::base::quant::{self, multiply_by_quantized_multiplier};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// PRELU (float32, uint8, int8, int16 with int8 alpha).
pub static PRELU: Kernel = Kernel {
    op: BuiltinOperator::Prelu,
    prepare,
    init: None,
    eval,
};

/// The quantized parameters (`PreluParams`): offsets and the two multipliers.
#[derive(Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Params {
    pub input_offset: i32,
    pub alpha_offset: i32,
    pub output_offset: i32,
    pub multiplier_1: i32,
    pub shift_1: i32,
    pub multiplier_2: i32,
    pub shift_2: i32,
}

/// Float PRELU of one element.
#[inline]
#[must_use]
pub(crate) fn prelu(x: f32, alpha: f32) -> f32 {
    if x >= 0.0 { x } else { x * alpha }
}

/// Quantized PRELU of one element, before the clamp to the output type.
#[inline]
#[must_use]
pub(crate) fn prelu_q(x: i32, alpha: i32, p: &Params) -> i32 {
    let input = p.input_offset.wrapping_add(x);
    let out = if input >= 0 {
        multiply_by_quantized_multiplier(input, p.multiplier_1, p.shift_1)
    } else {
        let a = p.alpha_offset.wrapping_add(alpha);
        multiply_by_quantized_multiplier(input.wrapping_mul(a), p.multiplier_2, p.shift_2)
    };
    out.wrapping_add(p.output_offset)
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let alpha = ctx.input(1)?;
    let output = ctx.output(0)?;
    check::output_type(&input, &output)?;
    let alpha_type = match input.dtype {
        TensorType::Float32 | TensorType::Uint8 | TensorType::Int8 => input.dtype,
        TensorType::Int16 => TensorType::Int8,
        _ => return Err(check::TYPE),
    };
    if alpha.dtype != alpha_type {
        return Err(KernelError::Mismatch {
            what: "PRELU alpha not of the type its input needs",
        });
    }
    let shape = broadcast_shape(&input.shape, &alpha.shape).ok_or(KernelError::Mismatch {
        what: "PRELU alpha does not broadcast against the input",
    })?;
    // After broadcasting the output must still have the input's shape.
    if shape.dims() != input.shape.dims() {
        return Err(KernelError::Mismatch {
            what: "PRELU alpha broadcasts the input to a larger shape",
        });
    }
    check::output_shape(&output, &input.shape)?;
    if input.dtype == TensorType::Float32 {
        return Ok(());
    }
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (alpha_scale, alpha_zp) = quant::per_tensor(alpha.quantization(), alpha.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    let (multiplier_1, shift_1) = quant::checked_multiplier(f64::from(in_scale / out_scale), false)?;
    let (multiplier_2, shift_2) =
        quant::checked_multiplier(f64::from(in_scale * alpha_scale / out_scale), false)?;
    ctx.set_params(&Params {
        input_offset: -in_zp,
        alpha_offset: -alpha_zp,
        output_offset: out_zp,
        multiplier_1,
        shift_1,
        multiplier_2,
        shift_2,
    });
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let plan = Broadcast::new(
        &ctx.output_shape(0)?,
        [&ctx.input_shape(0)?, &ctx.input_shape(1)?],
    )?;
    match ctx.input_type(0)? {
        TensorType::Float32 => run::<f32, f32>(ctx, &plan, prelu),
        TensorType::Uint8 => run_q::<u8, u8>(ctx, &plan),
        TensorType::Int8 => run_q::<i8, i8>(ctx, &plan),
        _ => run_q::<i16, i8>(ctx, &plan),
    }
}

fn run<T: tessera_core::tensor::Element + Copy, A: tessera_core::tensor::Element + Copy>(
    ctx: &mut Eval<'_>,
    plan: &Broadcast<2>,
    f: impl Fn(T, A) -> T,
) -> Result<(), KernelError> {
    let x = ctx.input::<T>(0)?;
    let a = ctx.input::<A>(1)?;
    let y = ctx.output::<T>(0)?;
    map2(plan, x, a, y, f)
}

fn run_q<T: QType, A: QType>(ctx: &mut Eval<'_>, plan: &Broadcast<2>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    run::<T, A>(ctx, plan, |x, a| T::clamped(prelu_q(x.get(), a.get(), &p)))
}
