//! BROADCAST_TO and BROADCAST_ARGS, as TensorFlow Lite's `broadcast_to.cc` and
//! `broadcast_args.cc` compute them.
//!
//! - BROADCAST_TO copies its input into the shape its second operand names (1-D int32 or
//!   int64; every input dimension 1 or equal to the matching one, counted from the right).
//!   Elements are copied as bytes, so every fixed-width type runs, quantized ones included;
//!   strings are refused, as in LiteRT. With a constant shape, setup checks it against the
//!   model's output shape; a shape computed by the graph is checked at every invoke (tessera's
//!   shapes are static: a shape other than the output's is an error, where LiteRT resizes).
//! - BROADCAST_ARGS gives the shape two shapes (1-D int32 or int64 tensors of one type)
//!   broadcast to, right-aligned; shapes that do not broadcast fail the invoke (LiteRT
//!   aborts). Like the reference, it reads the entries as `int`.
//!
//! Up to 6 dimensions.

#[cfg(test)]
mod tests;

use super::base::broadcast::Broadcast;
use super::base::check::{self, SHORT};
use super::base::tensors::{words, words_mut};
use crate::interpreter::{Desc, Eval, Kernel, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::{BuiltinOperator, TensorType};

/// BROADCAST_TO (every fixed-width type; the shape int32 or int64).
pub static BROADCAST_TO: Kernel = Kernel {
    op: BuiltinOperator::BroadcastTo,
    prepare: prepare_to,
    init: None,
    eval: eval_to,
};

/// BROADCAST_ARGS (int32, int64).
pub static BROADCAST_ARGS: Kernel = Kernel {
    op: BuiltinOperator::BroadcastArgs,
    prepare: prepare_args,
    init: None,
    eval: eval_args,
};

const NOT_A_SHAPE: KernelError = KernelError::Mismatch {
    what: "shape operand is not a 1-D int32 or int64 tensor",
};

const SHAPE_DIFFERS: KernelError = KernelError::Mismatch {
    what: "BROADCAST_TO shape differs from the output's shape",
};

/// A 1-D int32 or int64 shape operand of at most [`MAX_DIMS`] entries: its entry count.
fn shape_operand(d: &Desc<'_>) -> Result<usize, KernelError> {
    if !matches!(d.dtype, TensorType::Int32 | TensorType::Int64) || d.shape.rank() != 1 {
        return Err(NOT_A_SHAPE);
    }
    let n = d.shape.elements();
    if n > MAX_DIMS {
        return Err(KernelError::Unsupported {
            what: "shape of more than 6 dimensions",
        });
    }
    Ok(n)
}

/// The entries of shape operand `i` at invoke, into `out`; their count.
fn read_shape(ctx: &Eval<'_>, i: usize, out: &mut [i64; MAX_DIMS]) -> Result<usize, KernelError> {
    let n = ctx.input_shape(i)?.elements();
    let slots = out.get_mut(..n).ok_or(NOT_A_SHAPE)?;
    if n == 0 {
        return Ok(0);
    }
    let bytes = ctx.input_bytes(i)?;
    if ctx.input_type(i)? == TensorType::Int64 {
        let v = words::<i64>(bytes)?.get(..n).ok_or(SHORT)?;
        slots.copy_from_slice(v);
    } else {
        let v = words::<i32>(bytes)?.get(..n).ok_or(SHORT)?;
        for (s, &x) in slots.iter_mut().zip(v) {
            *s = i64::from(x);
        }
    }
    Ok(n)
}

/// Whether `values` name exactly `shape`.
fn names(values: &[i64], shape: &Shape) -> bool {
    values.len() == shape.rank()
        && values
            .iter()
            .zip(shape.dims())
            .all(|(&v, &d)| usize::try_from(v).ok() == Some(d))
}

/// Bytes per element of a type BROADCAST_TO copies.
fn element_bytes(t: TensorType) -> Result<usize, KernelError> {
    match t.bits() {
        Some(bits) if bits % 8 == 0 && !t.is_string() => Ok(bits as usize / 8),
        _ => Err(KernelError::Unsupported {
            what: "element type (fixed-width types of whole bytes run; strings do not)",
        }),
    }
}

fn prepare_to(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let shape = ctx.input(1)?;
    let out = ctx.output(0)?;
    check::output_type(&input, &out)?;
    element_bytes(input.dtype)?;
    let n = shape_operand(&shape)?;
    if n < input.shape.rank() || n != out.shape.rank() {
        return Err(KernelError::Mismatch {
            what: "BROADCAST_TO shape of fewer dimensions than its input, or of another rank \
                   than its output",
        });
    }
    // The input must broadcast to the output: the plan checks it (dimensions 1 or equal).
    Broadcast::new(&out.shape, [&input.shape])?;
    if shape.constant().is_some() {
        let mut values = [0i64; MAX_DIMS];
        for (slot, v) in values.iter_mut().zip(check::constant_ints(&shape)?) {
            *slot = v;
        }
        if !names(values.get(..n).ok_or(NOT_A_SHAPE)?, &out.shape) {
            return Err(SHAPE_DIFFERS);
        }
    }
    Ok(())
}

fn eval_to(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let mut values = [0i64; MAX_DIMS];
    let n = read_shape(ctx, 1, &mut values)?;
    let (si, so) = (ctx.input_shape(0)?, ctx.output_shape(0)?);
    if !names(values.get(..n).ok_or(SHORT)?, &so) {
        return Err(SHAPE_DIFFERS);
    }
    if so.elements() == 0 {
        return Ok(());
    }
    let w = element_bytes(ctx.input_type(0)?)?;
    let plan = Broadcast::new(&so, [&si])?;
    let src = ctx.input_bytes(0)?;
    let dst = ctx.output_bytes(0)?;
    let row = plan.row();
    let [stride] = plan.row_strides();
    let row_bytes = row.checked_mul(w).ok_or(SHORT)?;
    plan.rows(|[at_in], at_out| {
        let start = at_out.checked_mul(w).ok_or(SHORT)?;
        let o = dst.get_mut(start..start + row_bytes).ok_or(SHORT)?;
        let from = at_in.checked_mul(w).ok_or(SHORT)?;
        if stride == 1 {
            o.copy_from_slice(src.get(from..from + row_bytes).ok_or(SHORT)?);
        } else {
            let e = src.get(from..from + w).ok_or(SHORT)?;
            for chunk in o.chunks_exact_mut(w) {
                chunk.copy_from_slice(e);
            }
        }
        Ok(())
    })
}

fn prepare_args(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let s1 = ctx.input(0)?;
    let s2 = ctx.input(1)?;
    let out = ctx.output(0)?;
    let n1 = shape_operand(&s1)?;
    let n2 = shape_operand(&s2)?;
    check::same_type(&s1, &s2)?;
    check::output_type(&s1, &out)?;
    let want = Shape::new(&[n1.max(n2)]).ok_or(NOT_A_SHAPE)?;
    check::output_shape(&out, &want)
}

fn eval_args(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let mut a = [0i64; MAX_DIMS];
    let mut b = [0i64; MAX_DIMS];
    let na = read_shape(ctx, 0, &mut a)?;
    let nb = read_shape(ctx, 1, &mut b)?;
    let n = na.max(nb);
    let mut dims = [0i64; MAX_DIMS];
    // Entry `i` from the right of a shape, 1 past its length, read as `int` as the reference
    // does.
    let from_right = |s: &[i64; MAX_DIMS], len: usize, i: usize| -> i64 {
        len.checked_sub(i + 1)
            .and_then(|k| s.get(k))
            .map_or(1, |&v| i64::from(v as i32))
    };
    for i in 0..n {
        let (x, y) = (from_right(&a, na, i), from_right(&b, nb, i));
        let d = if x == 1 {
            y
        } else if y == 1 || x == y {
            x
        } else {
            return Err(KernelError::Mismatch {
                what: "BROADCAST_ARGS shapes do not broadcast",
            });
        };
        if let Some(slot) = n.checked_sub(i + 1).and_then(|k| dims.get_mut(k)) {
            *slot = d;
        }
    }
    let dims = dims.get(..n).ok_or(SHORT)?;
    if n == 0 {
        return Ok(());
    }
    let bytes = ctx.output_bytes(0)?;
    if ctx.output_type(0)? == TensorType::Int64 {
        words_mut::<i64>(bytes)?
            .get_mut(..n)
            .ok_or(SHORT)?
            .copy_from_slice(dims);
    } else {
        for (o, &d) in words_mut::<i32>(bytes)?.get_mut(..n).ok_or(SHORT)?.iter_mut().zip(dims) {
            *o = d as i32;
        }
    }
    Ok(())
}
