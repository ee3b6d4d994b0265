//! REVERSE_V2 (float32, int32, int64, bool and the quantized int8, uint8, int16; values
//! copied as bytes): the input with the dimensions named by the INT32 `axis` operand walked
//! backwards, one strided read. The axes are read at every invoke, so a computed operand works
//! as well as a constant; negative axes count from the end. LiteRT refuses axes that are not
//! contiguous ("not supported"); tessera reverses any set of distinct axes, and refuses a
//! repeated one, as LiteRT does.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check;
use super::base::strided::{Plan, copy_plan, strides};
use super::base::tensors::{element_bytes, words};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// REVERSE_V2.
pub static REVERSE_V2: Kernel = Kernel {
    op: BuiltinOperator::ReverseV2,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    element: u32,
}

const AXES: KernelError = KernelError::Mismatch {
    what: "REVERSE_V2 axis outside the input's dimensions or repeated",
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let axis = ctx.input(1)?;
    let output = ctx.output(0)?;
    if !matches!(
        input.dtype,
        TensorType::Float32
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Bool
            | TensorType::Int8
            | TensorType::Uint8
            | TensorType::Int16
    ) {
        return Err(check::TYPE);
    }
    check::output_type(&input, &output)?;
    check::output_shape(&output, &input.shape)?;
    if axis.dtype != TensorType::Int32 || axis.shape.rank() != 1 {
        return Err(KernelError::Mismatch {
            what: "REVERSE_V2 axis is not a 1-D INT32 tensor",
        });
    }
    if axis.shape.elements() > input.shape.rank() {
        return Err(AXES);
    }
    if axis.constant().is_some() {
        let mut values = [0i64; MAX_DIMS];
        for (slot, a) in values.iter_mut().zip(check::constant_ints(&axis)?) {
            *slot = a;
        }
        mask(&values[..axis.shape.elements()], input.shape.rank())?;
    }
    ctx.set_params(&Params {
        element: check::dim(element_bytes(input.dtype)?)?,
    });
    Ok(())
}

/// The reversed dimensions as a bit mask.
pub(crate) fn mask(axes: &[i64], rank: usize) -> Result<u32, KernelError> {
    let mut m = 0u32;
    for &a in axes {
        let a = check::axis(a, rank).map_err(|_| AXES)?;
        if m & (1 << a) != 0 {
            return Err(AXES);
        }
        m |= 1 << a;
    }
    Ok(m)
}

/// The read of a tensor of `dims` with the dimensions in `mask` reversed.
pub(crate) fn plan(dims: &[usize], mask: u32) -> Result<Plan, KernelError> {
    let st = strides(dims);
    let mut p = Plan::new();
    let mut base = 0usize;
    for (k, &d) in dims.iter().enumerate() {
        let s = st[k];
        if mask >> k & 1 == 1 && d > 0 {
            p.push(d, -s)?;
            base += (d - 1) * s as usize;
        } else {
            p.push(d, s)?;
        }
    }
    if p.elements() > 0 {
        p.base = base;
    }
    Ok(p)
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let shape = ctx.input_shape(0)?;
    let axes = words::<i32>(ctx.input_bytes(1)?)?;
    let mut values = [0i64; MAX_DIMS];
    if axes.len() > MAX_DIMS {
        return Err(AXES);
    }
    for (slot, &a) in values.iter_mut().zip(axes) {
        *slot = i64::from(a);
    }
    let m = mask(&values[..axes.len()], shape.rank())?;
    let plan = plan(shape.dims(), m)?;
    let src = ctx.input_bytes(0)?;
    let dst = ctx.output_bytes(0)?;
    copy_plan(&plan, p.element as usize, src, dst)
}
