//! SOFTMAX and LOG_SOFTMAX over the last dimension (float32; SOFTMAX on int8 and int16 in
//! [`quantized`], LOG_SOFTMAX on int8 and uint8 in [`log_quantized`]), as TensorFlow Lite's
//! reference kernels compute them.

mod log_quantized;
mod quantized;
#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check;
use super::base::elementwise::check_float;
use super::base::math::exp;
use super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, SoftmaxOptions, TensorType};

/// SOFTMAX.
pub static SOFTMAX: Kernel = Kernel {
    op: BuiltinOperator::Softmax,
    prepare: prepare_softmax,
    init: Some(quantized::init),
    eval: eval_softmax,
};

/// SOFTMAX for int8 inputs only (as TensorFlow Lite Micro's `Register_SOFTMAX_INT8`): no
/// float32 or int16 body, and no `init` (it builds the int16 tables). Other types stop set-up
/// with [`KernelError::Unsupported`].
pub static SOFTMAX_INT8: Kernel = Kernel {
    op: BuiltinOperator::Softmax,
    prepare: prepare_softmax_int8,
    init: None,
    eval: quantized::eval::<false>,
};

/// LOG_SOFTMAX.
pub static LOG_SOFTMAX: Kernel = Kernel {
    op: BuiltinOperator::LogSoftmax,
    prepare: prepare_log_softmax,
    init: None,
    eval: eval_log_softmax,
};

/// The float kernels' parameters: the element count, the row length (last dimension) and
/// SOFTMAX's beta.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
    depth: u32,
    beta: f32,
}

fn prepare_softmax(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare(ctx);
    }
    let SoftmaxOptions { beta } = ctx.options()?;
    prepare_rows(ctx, beta)
}

fn prepare_softmax_int8(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input(0)?.dtype != TensorType::Int8 {
        return Err(check::NOT_INT8);
    }
    quantized::prepare(ctx)
}

fn prepare_log_softmax(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if log_quantized::handles(ctx.input(0)?.dtype) {
        return log_quantized::prepare(ctx);
    }
    // LOG_SOFTMAX has no beta (its options table is empty).
    prepare_rows(ctx, 1.0)
}

/// Checks a softmax over the last dimension and records the row length.
fn prepare_rows(ctx: &mut Prepare<'_>, beta: f32) -> Result<(), KernelError> {
    let elements = check_float(ctx)?;
    let shape = ctx.input(0)?.shape;
    // TensorFlow Lite's softmaxes need at least one dimension: they run over the last one.
    let depth = match shape.dims().last() {
        Some(&d) => d,
        None => {
            return Err(KernelError::Mismatch {
                what: "softmax of a scalar (rank 0)",
            });
        }
    };
    ctx.set_params(&Params {
        elements: check::dim(elements)?,
        depth: check::dim(depth)?,
        beta,
    });
    Ok(())
}

fn rows<'a>(ctx: &mut Eval<'a>) -> Result<(&'a [f32], &'a mut [f32], Params), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<f32>(ctx, 0, n)?;
    let y = output_n::<f32>(ctx, 0, n)?;
    Ok((x, y, p))
}

fn eval_softmax(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input_type(0)?) {
        return quantized::eval::<true>(ctx);
    }
    let (x, y, p) = rows(ctx)?;
    softmax_rows(x, y, p.depth as usize, p.beta);
    Ok(())
}

fn eval_log_softmax(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if log_quantized::handles(ctx.input_type(0)?) {
        return log_quantized::eval(ctx);
    }
    let (x, y, p) = rows(ctx)?;
    log_softmax_rows(x, y, p.depth as usize);
    Ok(())
}

/// The row's maximum as the reference kernels take it: from the lowest finite float, with
/// `std::max` (a NaN never replaces the maximum).
#[inline]
fn row_max(row: &[f32]) -> f32 {
    row.iter().fold(f32::MIN, |m, &v| if m < v { v } else { m })
}

/// SOFTMAX over rows of `depth` values: `exp((x - max) * beta) / sum`, the sum taken in
/// row order in f32, as TensorFlow Lite's reference kernel does. `x` and `y` have the same
/// length, a multiple of `depth` (a trailing partial row is left alone; depth 0 does nothing).
pub(crate) fn softmax_rows(x: &[f32], y: &mut [f32], depth: usize, beta: f32) {
    if depth == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        let max = row_max(x);
        // The exponentials first (a loop that vectorizes), then their sum in row order.
        for (y, &x) in y.iter_mut().zip(x) {
            *y = exp((x - max) * beta);
        }
        let sum = y.iter().fold(0.0f32, |s, &e| s + e);
        for y in y.iter_mut() {
            *y /= sum;
        }
    }
}

/// LOG_SOFTMAX over rows of `depth` values: `x - max - log(sum(exp(x - max)))`, as
/// TensorFlow Lite's reference kernel computes it (same layout rules as [`softmax_rows`]).
pub(crate) fn log_softmax_rows(x: &[f32], y: &mut [f32], depth: usize) {
    if depth == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        let max = row_max(x);
        // The exponentials in the output first (vectorized), then their sum in row order.
        for (y, &x) in y.iter_mut().zip(x) {
            *y = exp(x - max);
        }
        let sum = y.iter().fold(0.0f32, |s, &e| s + e);
        let log_sum = libm::logf(sum);
        for (y, &x) in y.iter_mut().zip(x) {
            *y = x - max - log_sum;
        }
    }
}
