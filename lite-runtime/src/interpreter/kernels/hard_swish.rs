//! HARD_SWISH, `x * relu6(x + 3) / 6`, as LiteRT's reference kernel computes it:
//!
//! - float32: `x * min(6, max(0, x + 3)) / 6`;
//! - int8 and uint8 (`reference_ops::HardSwish`): 16-bit fixed point. The offset input is
//!   put on a "high resolution" scale (`input_scale / 128`, a left shift by 7); a "relu-ish"
//!   factor in `[0, 1]` is that value rescaled so that 3 is 2^15 (saturating), shifted into
//!   `[0, 1]`; the output is the factor times the input on the output scale
//!   (`SaturatingDoublingHighMul`, rounding toward zero, which cancels the bias of the
//!   rounding multiplications before it), shifted right and offset. Both multipliers are
//!   `QuantizeMultiplier` of `f32` quotients, rounded to 16 bits.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check;
use super::base::elementwise::{self, FloatFn};
use super::base::qtype::QType;
use super::base::quant::{self, quantize_multiplier};
use super::base::quant::fixed_point::rounding_divide_by_pot_i16;
use super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// HARD_SWISH (float32, int8, uint8).
pub static HARD_SWISH: Kernel = Kernel {
    op: BuiltinOperator::HardSwish,
    prepare,
    init: None,
    eval,
};

struct HardSwish;
impl FloatFn for HardSwish {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        hard_swish(x)
    }
}

/// Float HARD_SWISH: `x * min(6, max(0, x + 3)) / 6`, in that order.
#[inline]
#[must_use]
pub(crate) fn hard_swish(x: f32) -> f32 {
    let t = x + 3.0;
    // std::max(0, t): t when 0 < t; std::min(6, that): that when it < 6.
    let relu = if 0.0 < t { t } else { 0.0 };
    let relu6 = if relu < 6.0 { relu } else { 6.0 };
    x * relu6 / 6.0
}

/// `HardSwishParams`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Params {
    pub elements: u32,
    pub input_zero_point: i32,
    pub output_zero_point: i32,
    pub reluish_multiplier_exponent: i32,
    pub output_multiplier_exponent: i32,
    pub reluish_multiplier_fixedpoint_int16: i16,
    pub output_multiplier_fixedpoint_int16: i16,
}

/// `DownScaleInt32ToInt16Multiplier`: a Q0.31 multiplier rounded to Q0.15.
#[must_use]
pub(crate) fn down_scale_multiplier(m: i32) -> i16 {
    const ROUNDING: i32 = 1 << 15;
    if m >= i32::MAX - ROUNDING {
        return i16::MAX;
    }
    ((m + ROUNDING) >> 16) as i16
}

/// The quantized parameters from the input's and output's scales, as `HardSwishPrepare`.
///
/// # Errors
/// A multiplier out of the fixed-point range, or an output exponent above 0 (the
/// reference's `TF_LITE_ENSURE`).
pub(crate) fn params(
    input_scale: f32,
    input_zero_point: i32,
    output_scale: f32,
    output_zero_point: i32,
) -> Result<Params, KernelError> {
    let bad = KernelError::Unsupported {
        what: "HARD_SWISH scales out of the fixed-point range",
    };
    let hires_input_scale = (1.0f32 / 128.0) * input_scale;
    let reluish_scale = 3.0f32 / 32768.0;
    let (output_m, output_e) =
        quantize_multiplier(f64::from(hires_input_scale / output_scale)).ok_or(bad)?;
    if output_e > 0 || output_m < 0 {
        return Err(KernelError::Unsupported {
            what: "HARD_SWISH output scale below input scale / 128",
        });
    }
    let (reluish_m, reluish_e) =
        quantize_multiplier(f64::from(hires_input_scale / reluish_scale)).ok_or(bad)?;
    if reluish_m < 0 {
        return Err(bad);
    }
    Ok(Params {
        elements: 0,
        input_zero_point,
        output_zero_point,
        reluish_multiplier_exponent: reluish_e,
        output_multiplier_exponent: output_e,
        reluish_multiplier_fixedpoint_int16: down_scale_multiplier(reluish_m),
        output_multiplier_fixedpoint_int16: down_scale_multiplier(output_m),
    })
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (input, output) = check::unary(ctx)?;
    match input.dtype {
        TensorType::Float32 => elementwise::prepare(ctx),
        TensorType::Int8 | TensorType::Uint8 => {
            let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
            let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
            let mut p = params(in_scale, in_zp, out_scale, out_zp)?;
            p.elements = check::dim(input.shape.elements())?;
            ctx.set_params(&p);
            Ok(())
        }
        _ => Err(check::TYPE),
    }
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Int8 => eval_quantized::<i8>(ctx),
        TensorType::Uint8 => eval_quantized::<u8>(ctx),
        _ => elementwise::eval::<HardSwish>(ctx),
    }
}

fn eval_quantized<T: QType>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<T>(ctx, 0, n)?;
    let y = output_n::<T>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        *y = T::clamped(i32::from(hard_swish_q(x.get(), &p)));
    }
    Ok(())
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul` on `int16`: the high half of `2 a b`,
/// rounded to nearest (ties away from zero), saturating `MIN * MIN`.
#[inline]
fn srdhm_i16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge: i32 = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// `SaturatingDoublingHighMul`: as [`srdhm_i16`] but truncating toward zero.
#[inline]
fn sdhm_i16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    ((i32::from(a) * i32::from(b)) / (1 << 15)) as i16
}

/// `SaturatingLeftShift` on `int16`.
#[inline]
fn saturating_left_shift(v: i16, amount: i32) -> i16 {
    let shifted = i64::from(v) << amount.clamp(0, 40);
    shifted.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

/// One quantized element, before the clamp to the output type: `x` is the stored value.
#[inline]
#[must_use]
pub(crate) fn hard_swish_q(x: i32, p: &Params) -> i16 {
    // C's int16 conversions truncate; an 8-bit value minus its zero point fits 9 bits, so
    // shifting it left by 7 fits 16.
    let input_value = x.wrapping_sub(p.input_zero_point) as i16;
    let hires = input_value.wrapping_mul(1 << 7);
    let preshift_output = srdhm_i16(hires, p.output_multiplier_fixedpoint_int16);
    let mut reluish = hires;
    let e = p.reluish_multiplier_exponent;
    if e > 0 {
        reluish = saturating_left_shift(reluish, e - 1);
    }
    reluish = srdhm_i16(reluish, p.reluish_multiplier_fixedpoint_int16);
    if e > 0 {
        reluish = saturating_left_shift(reluish, 1);
    }
    if e < 0 {
        reluish = rounding_divide_by_pot_i16(reluish, e.unsigned_abs().min(31));
    }
    // From [-1, 1] to [0, 1].
    let reluish = ((i32::from(reluish) + (1 << 15)) >> 1) as i16;
    let preshift_output_value = sdhm_i16(reluish, preshift_output);
    let out = rounding_divide_by_pot_i16(
        preshift_output_value,
        p.output_multiplier_exponent.unsigned_abs().min(31),
    );
    (i32::from(out) + p.output_zero_point) as i16
}
