//! LOG_SOFTMAX on int8 and uint8 tensors as LiteRT's reference kernels compute it
//! (`reference_integer_ops::LogSoftmax`, `reference_ops::LogSoftmax(uint8)`): the output is
//! fixed at scale 16/256 with zero point 127 (int8) or 255 (uint8), so `[-16, 0]` fills the
//! type. Per row: the differences from the maximum scaled into Q5.26 (as SOFTMAX does), the
//! sum of their exponentials in Q12.19, its logarithm (`log_x_for_x_greater_than_or_equal_to_1`)
//! in Q5.26, then each `diff - log(sum)` rounded to Q4 steps; differences at or below the
//! point where that would leave the range give the type's minimum.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check;
use super::super::base::qtype::QType;
use super::super::base::quant::fixed_point::{
    exp_on_negative_values, log_x_for_x_greater_than_or_equal_to_1,
    saturating_rounding_multiply_by_pot,
};
use super::super::base::quant::{self, multiply_by_quantized_multiplier, rounding_divide_by_pot};
use super::super::base::tensors::{input_n, output_n};
use super::quantized::{ACCUMULATION_INTEGER_BITS, SCALED_DIFF_INTEGER_BITS, int8_scaling};
use crate::interpreter::{Eval, KernelError, Prepare};
use crate::model::TensorType;

/// Integer bits of the output (`kOutputIntegerBits`): steps of 1/16.
const OUTPUT_INTEGER_BITS: i32 = 4;

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    outer: u32,
    depth: u32,
    input_multiplier: i32,
    input_left_shift: i32,
    reverse_multiplier: i32,
    /// The reverse scaling's right shift (`0..=31`).
    reverse_right_shift: i32,
    diff_min: i32,
    output_zero_point: i32,
}

/// Whether this file runs LOG_SOFTMAX for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Uint8)
}

/// The set-up of `LogSoftmaxPrepare` (reference kernel): the output's fixed quantization,
/// `PreprocessLogSoftmaxScalingExp` with beta 1, `CalculateInputRadius`.
pub(crate) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (input, output) = check::unary(ctx)?;
    if !handles(input.dtype) {
        return Err(check::TYPE);
    }
    let rank = input.shape.rank();
    if rank == 0 {
        return Err(KernelError::Mismatch {
            what: "softmax of a scalar (rank 0)",
        });
    }
    let (in_scale, _) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    let zero_point = if input.dtype == TensorType::Int8 { 127 } else { 255 };
    if f64::from(out_scale) != 16.0 / 256.0 || out_zp != zero_point {
        return Err(KernelError::Unsupported {
            what: "quantized LOG_SOFTMAX output not scale 16/256 at the type's top zero point",
        });
    }
    let (input_multiplier, input_left_shift, diff_min) = int8_scaling(1.0, f64::from(in_scale))?;
    // The reference's `1 << (31 - left_shift)` is an int: at shift 0 it overflows.
    if input_left_shift == 0 {
        return Err(KernelError::Unsupported {
            what: "LOG_SOFTMAX input scale of 16 or more",
        });
    }
    // The inverse of the input scaling, below one (`QuantizeMultiplierSmallerThanOneExp`).
    let reverse = f64::from(1u32 << (31 - input_left_shift)) / f64::from(input_multiplier);
    let (reverse_multiplier, reverse_shift) =
        quant::quantize_multiplier(reverse).ok_or(KernelError::Unsupported {
            what: "LOG_SOFTMAX input scale out of the fixed-point range",
        })?;
    if !(-31..=0).contains(&reverse_shift) || reverse_multiplier < 0 {
        return Err(KernelError::Unsupported {
            what: "LOG_SOFTMAX input scale out of the fixed-point range",
        });
    }
    let depth = *input.shape.dims().last().unwrap_or(&1);
    let outer = input.shape.elements().checked_div(depth).unwrap_or(0);
    ctx.set_params(&Params {
        outer: check::dim(outer)?,
        depth: check::dim(depth)?,
        input_multiplier,
        input_left_shift,
        reverse_multiplier,
        reverse_right_shift: -reverse_shift,
        diff_min,
        output_zero_point: zero_point,
    });
    Ok(())
}

/// Runs the body for the input's type.
pub(crate) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if ctx.input_type(0)? == TensorType::Int8 {
        eval_typed::<i8>(ctx)
    } else {
        eval_typed::<u8>(ctx)
    }
}

fn eval_typed<T: QType>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (outer, depth) = (p.outer as usize, p.depth as usize);
    let total = outer.checked_mul(depth).ok_or(check::SHORT)?;
    if total == 0 {
        return Ok(());
    }
    let x = input_n::<T>(ctx, 0, total)?;
    let y = output_n::<T>(ctx, 0, total)?;
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        log_softmax_row(&p, x, y);
    }
    Ok(())
}

/// One row.
fn log_softmax_row<T: QType>(p: &Params, x: &[T], y: &mut [T]) {
    let max = x.iter().map(|v| v.get()).max().unwrap_or(T::MIN);
    let scaled =
        |diff: i32| multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift);
    let mut sum: i32 = 0;
    for v in x {
        let diff = v.get() - max;
        if diff >= p.diff_min {
            let e = exp_on_negative_values::<SCALED_DIFF_INTEGER_BITS>(scaled(diff));
            sum = sum.wrapping_add(saturating_rounding_multiply_by_pot(
                e,
                -ACCUMULATION_INTEGER_BITS,
            ));
        }
    }
    let log_sum = log_x_for_x_greater_than_or_equal_to_1::<
        SCALED_DIFF_INTEGER_BITS,
        ACCUMULATION_INTEGER_BITS,
    >(sum);
    // The lowest Q5.26 value plus the log: differences at or below it leave the range.
    let shifted = log_sum.wrapping_add(i32::MIN);
    let adjusted_diff_min = (p.diff_min - 1).max(multiply_by_quantized_multiplier(
        shifted,
        p.reverse_multiplier,
        -p.reverse_right_shift,
    ));
    let exponent = (31 - SCALED_DIFF_INTEGER_BITS - OUTPUT_INTEGER_BITS) as u32;
    for (v, out) in x.iter().zip(y.iter_mut()) {
        let diff = v.get() - max;
        *out = if diff > adjusted_diff_min {
            let o = rounding_divide_by_pot(scaled(diff).wrapping_sub(log_sum), exponent)
                .wrapping_add(p.output_zero_point);
            T::clamped(o)
        } else {
            T::clamped(T::MIN)
        };
    }
}
