//! SPLIT and SPLIT_V (float32, int32, int64 and the quantized int8, uint8, int16, the types
//! LiteRT's kernels take; values copied as bytes): the input cut along one axis into
//! `num_splits` outputs, of equal sizes (SPLIT) or of the sizes in `size_splits` (SPLIT_V, one
//! entry may be -1: the rest). The axis and sizes are read at set-up when they are constants
//! (the outputs' shapes checked then) and at every invoke otherwise; every invoke checks the
//! outputs' shapes against them before copying.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE, OUTPUT_TYPE, SHORT};
use super::base::tensors::{element_bytes, words};
use crate::interpreter::{Desc, Eval, Kernel, KernelError, MAX_OUTPUTS, Prepare, Shape};
use crate::model::{BuiltinOperator, SplitOptions, SplitVOptions, TensorType};

/// SPLIT.
pub static SPLIT: Kernel = Kernel {
    op: BuiltinOperator::Split,
    prepare: prepare_split,
    init: None,
    eval: eval_split,
};

/// SPLIT_V.
pub static SPLIT_V: Kernel = Kernel {
    op: BuiltinOperator::SplitV,
    prepare: prepare_split_v,
    init: None,
    eval: eval_split_v,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    element: u32,
}

const AXIS_OPERAND: KernelError = KernelError::Mismatch {
    what: "split axis is not one INT32 value",
};

const SIZES: KernelError = KernelError::Mismatch {
    what: "size_splits negative (other than one -1) or not summing to the axis' length",
};

/// Checks the data input `data` against the outputs (type, count `n`) and returns the
/// element size.
fn check_operands(ctx: &Prepare<'_>, data: usize, n: i32) -> Result<u32, KernelError> {
    let input = ctx.input(data)?;
    if !matches!(
        input.dtype,
        TensorType::Float32
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Int8
            | TensorType::Uint8
            | TensorType::Int16
    ) {
        return Err(KernelError::Unsupported {
            what: "SPLIT of other types than FLOAT32, INT32, INT64, INT8, UINT8, INT16",
        });
    }
    let outputs = ctx.output_count();
    if usize::try_from(n).ok() != Some(outputs) || outputs == 0 || outputs > MAX_OUTPUTS {
        return Err(KernelError::Mismatch {
            what: "num_splits differs from the number of outputs",
        });
    }
    for k in 0..outputs {
        if ctx.output(k)?.dtype != input.dtype {
            return Err(OUTPUT_TYPE);
        }
    }
    check::dim(element_bytes(input.dtype)?)
}

fn axis_desc(d: &Desc<'_>) -> Result<(), KernelError> {
    if d.dtype != TensorType::Int32 || d.shape.elements() != 1 {
        return Err(AXIS_OPERAND);
    }
    Ok(())
}

fn constant_axis(d: &Desc<'_>) -> Result<Option<i64>, KernelError> {
    if d.constant().is_none() {
        return Ok(None);
    }
    Ok(check::constant_ints(d)?.next())
}

/// The sizes along the axis: `n` equal parts (`sizes` empty) or `sizes` with a -1 resolved.
fn resolve(
    length: usize,
    n: usize,
    sizes: Option<&[i64]>,
    out: &mut [usize; MAX_OUTPUTS],
) -> Result<(), KernelError> {
    let out = out.get_mut(..n).ok_or(SIZES)?;
    match sizes {
        None => {
            if n == 0 || length % n != 0 {
                return Err(KernelError::Mismatch {
                    what: "SPLIT of an axis not a multiple of num_splits",
                });
            }
            out.fill(length / n);
        }
        Some(sizes) => {
            if sizes.len() != n {
                return Err(KernelError::Mismatch {
                    what: "size_splits has another count than the outputs",
                });
            }
            let mut rest: Option<usize> = None;
            let mut sum = 0usize;
            for (k, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
                if s == -1 && rest.is_none() {
                    rest = Some(k);
                } else {
                    *o = usize::try_from(s).map_err(|_| SIZES)?;
                    sum = sum.checked_add(*o).ok_or(SIZES)?;
                }
            }
            match rest {
                Some(k) => out[k] = length.checked_sub(sum).ok_or(SIZES)?,
                None if sum != length => return Err(SIZES),
                None => {}
            }
        }
    }
    Ok(())
}

/// Checks each output's shape (the input's with `sizes[k]` on `axis`).
fn check_shapes(
    input: &Shape,
    axis: usize,
    sizes: &[usize],
    output: impl Fn(usize) -> Result<Shape, KernelError>,
) -> Result<(), KernelError> {
    let mut dims = [0usize; crate::interpreter::MAX_DIMS];
    let rank = input.rank();
    dims[..rank].copy_from_slice(input.dims());
    for (k, &s) in sizes.iter().enumerate() {
        dims[axis] = s;
        if output(k)?.dims() != &dims[..rank] {
            return Err(OUTPUT_SHAPE);
        }
    }
    Ok(())
}

fn prepare_split(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let SplitOptions { num_splits } = ctx.options()?;
    let element = check_operands(ctx, 1, num_splits)?;
    let axis = ctx.input(0)?;
    axis_desc(&axis)?;
    let input = ctx.input(1)?;
    if let Some(a) = constant_axis(&axis)? {
        let a = check::axis(a, input.shape.rank())?;
        let mut sizes = [0usize; MAX_OUTPUTS];
        let n = ctx.output_count();
        resolve(input.shape.dims()[a], n, None, &mut sizes)?;
        check_shapes(&input.shape, a, &sizes[..n], |k| Ok(ctx.output(k)?.shape))?;
    }
    ctx.set_params(&Params { element });
    Ok(())
}

fn prepare_split_v(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let SplitVOptions { num_splits } = ctx.options()?;
    let element = check_operands(ctx, 0, num_splits)?;
    let input = ctx.input(0)?;
    let sizes = ctx.input(1)?;
    let axis = ctx.input(2)?;
    axis_desc(&axis)?;
    if !matches!(sizes.dtype, TensorType::Int32 | TensorType::Int64) || sizes.shape.rank() != 1
    {
        return Err(KernelError::Mismatch {
            what: "size_splits is not a 1-D INT32 or INT64 tensor",
        });
    }
    let n = ctx.output_count();
    if sizes.shape.elements() != n {
        return Err(KernelError::Mismatch {
            what: "size_splits has another count than the outputs",
        });
    }
    if let (Some(a), Some(_)) = (constant_axis(&axis)?, sizes.constant()) {
        let a = check::axis(a, input.shape.rank())?;
        let mut v = [0i64; MAX_OUTPUTS];
        for (slot, s) in v.iter_mut().zip(check::constant_ints(&sizes)?) {
            *slot = s;
        }
        let mut resolved = [0usize; MAX_OUTPUTS];
        resolve(input.shape.dims()[a], n, Some(&v[..n]), &mut resolved)?;
        check_shapes(&input.shape, a, &resolved[..n], |k| Ok(ctx.output(k)?.shape))?;
    }
    ctx.set_params(&Params { element });
    Ok(())
}

/// Input `i`'s one INT32 value.
fn read_axis(ctx: &Eval<'_>, i: usize) -> Result<i64, KernelError> {
    let v = words::<i32>(ctx.input_bytes(i)?)?;
    v.first().map(|&a| i64::from(a)).ok_or(AXIS_OPERAND)
}

fn eval_split(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let shape = ctx.input_shape(1)?;
    let axis = check::axis(read_axis(ctx, 0)?, shape.rank())?;
    let n = ctx.output_count();
    let mut sizes = [0usize; MAX_OUTPUTS];
    resolve(shape.dims()[axis], n, None, &mut sizes)?;
    run(ctx, 1, axis, &sizes[..n])
}

fn eval_split_v(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let shape = ctx.input_shape(0)?;
    let axis = check::axis(read_axis(ctx, 2)?, shape.rank())?;
    let n = ctx.output_count();
    let bytes = ctx.input_bytes(1)?;
    let mut v = [0i64; MAX_OUTPUTS];
    let count = if ctx.input_type(1)? == TensorType::Int64 {
        let w = words::<i64>(bytes)?;
        v.get_mut(..w.len()).ok_or(SIZES)?.copy_from_slice(w);
        w.len()
    } else {
        let w = words::<i32>(bytes)?;
        for (slot, &x) in v.get_mut(..w.len()).ok_or(SIZES)?.iter_mut().zip(w) {
            *slot = i64::from(x);
        }
        w.len()
    };
    let mut sizes = [0usize; MAX_OUTPUTS];
    resolve(shape.dims()[axis], n, Some(&v[..count]), &mut sizes)?;
    run(ctx, 0, axis, &sizes[..n])
}

/// Checks the outputs' shapes and copies each one's runs out of input `data`.
fn run(ctx: &mut Eval<'_>, data: usize, axis: usize, sizes: &[usize]) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let shape = ctx.input_shape(data)?;
    check_shapes(&shape, axis, sizes, |k| ctx.output_shape(k))?;
    let dims = shape.dims();
    let outer: usize = dims[..axis].iter().product();
    let inner: usize = dims[axis + 1..].iter().product::<usize>() * p.element as usize;
    let row = dims[axis] * inner;
    let src = ctx.input_bytes(data)?;
    let src = src.get(..outer * row).ok_or(SHORT)?;
    let mut at = 0;
    for (k, &s) in sizes.iter().enumerate() {
        let chunk = s * inner;
        let dst = ctx.output_bytes(k)?;
        if chunk > 0 && row > 0 {
            let dst = dst.get_mut(..outer * chunk).ok_or(SHORT)?;
            for (d, r) in dst.chunks_exact_mut(chunk).zip(src.chunks_exact(row)) {
                d.copy_from_slice(r.get(at..at + chunk).ok_or(SHORT)?);
            }
        }
        at += chunk;
    }
    Ok(())
}
