//! ADD_N: the element-wise sum of two or more tensors of one shape and type (float32, int32),
//! as TensorFlow Lite's `add_n.cc` computes it with one thread (its only registration runs
//! `optimized_ops::AddN`): the first input copied, then each next one added in order through
//! `optimized_ops::Add`, whose float path clamps every sum to the finite range (so an
//! overflow gives `f32::MAX`, not infinity, while a NaN stays NaN). int32 sums wrap.

#[cfg(test)]
mod tests;

use super::base::check::{self, SHORT};
use super::base::fused::clamp;
use super::base::tensors::output_n;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// ADD_N (float32, int32).
pub static ADD_N: Kernel = Kernel {
    op: BuiltinOperator::AddN,
    prepare,
    init: None,
    eval,
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input_count() < 2 {
        return Err(KernelError::Arity {
            what: "two or more inputs",
        });
    }
    let first = ctx.input(0)?;
    for k in 1..ctx.input_count() {
        let d = ctx.input(k)?;
        check::same_type(&first, &d)?;
        if d.shape.dims() != first.shape.dims() {
            return Err(KernelError::Mismatch {
                what: "ADD_N inputs differ in shape",
            });
        }
    }
    let (_, out) = check::unary(ctx)?;
    if !matches!(out.dtype, TensorType::Float32 | TensorType::Int32) {
        return Err(KernelError::Unsupported {
            what: "element type (float32, int32 run)",
        });
    }
    Ok(())
}

/// The sum into `out` of every input, as `T`, each step by `add`.
fn sum<T: tessera_core::tensor::Element>(
    ctx: &mut Eval<'_>,
    add: impl Fn(T, T) -> T,
) -> Result<(), KernelError> {
    let n = ctx.output_shape(0)?.elements();
    if n == 0 {
        return Ok(());
    }
    let out = output_n::<T>(ctx, 0, n)?;
    out.copy_from_slice(ctx.input::<T>(0)?.get(..n).ok_or(SHORT)?);
    for k in 1..ctx.input_count() {
        let x = ctx.input::<T>(k)?.get(..n).ok_or(SHORT)?;
        for (o, &v) in out.iter_mut().zip(x) {
            *o = add(*o, v);
        }
    }
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.output_type(0)? {
        TensorType::Float32 => sum::<f32>(ctx, |a, b| clamp(a + b, f32::MIN, f32::MAX)),
        TensorType::Int32 => sum::<i32>(ctx, i32::wrapping_add),
        _ => Err(check::TYPE),
    }
}
