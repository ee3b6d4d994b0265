//! DYNAMIC_UPDATE_SLICE (every type of 1, 2, 4 or 8 bytes, as LiteRT's kernel: float32,
//! int32, int64, bool, int8, uint8, int16; values copied as bytes): the operand with the
//! `update` tensor written over it from `start_indices` (int32 or int64, one per dimension,
//! read at every invoke). Each start is clamped into `0..=dim - update_dim`, as LiteRT and
//! XLA clamp, so no index from data can write outside the output.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, SHORT};
use super::base::tensors::{element_bytes, words};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// DYNAMIC_UPDATE_SLICE.
pub static DYNAMIC_UPDATE_SLICE: Kernel = Kernel {
    op: BuiltinOperator::DynamicUpdateSlice,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    element: u32,
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let operand = ctx.input(0)?;
    let update = ctx.input(1)?;
    let start = ctx.input(2)?;
    let output = ctx.output(0)?;
    check::same_type(&operand, &update)?;
    check::output_type(&operand, &output)?;
    check::output_shape(&output, &operand.shape)?;
    let element = element_bytes(operand.dtype)?;
    if !matches!(start.dtype, TensorType::Int32 | TensorType::Int64)
        || start.shape.rank() != 1
        || start.shape.elements() != operand.shape.rank()
    {
        return Err(KernelError::Mismatch {
            what: "start_indices not a 1-D INT32 or INT64 tensor of one index per dimension",
        });
    }
    let fits = update.shape.rank() == operand.shape.rank()
        && update
            .shape
            .dims()
            .iter()
            .zip(operand.shape.dims())
            .all(|(u, o)| u <= o);
    if !fits {
        return Err(KernelError::Mismatch {
            what: "update larger than the operand or of another rank",
        });
    }
    ctx.set_params(&Params {
        element: check::dim(element)?,
    });
    Ok(())
}

/// Writes `update` (shape `ud`) into `out` (shape `od`) from `start` (clamped already), in
/// bytes of elements of `element` bytes.
pub(crate) fn update_into(
    out: &mut [u8],
    od: &[usize],
    update: &[u8],
    ud: &[usize],
    start: &[usize],
    element: usize,
) -> Result<(), KernelError> {
    let rank = od.len();
    let total: usize = ud.iter().product();
    if total == 0 {
        return Ok(());
    }
    let update = update.get(..total * element).ok_or(SHORT)?;
    if rank == 0 {
        out.get_mut(..element)
            .ok_or(SHORT)?
            .copy_from_slice(update);
        return Ok(());
    }
    let mut stride = [1usize; MAX_DIMS];
    for k in (0..rank - 1).rev() {
        stride[k] = stride[k + 1] * od[k + 1];
    }
    let row = ud[rank - 1] * element;
    let mut idx = [0usize; MAX_DIMS];
    for src in update.chunks_exact(row) {
        let at: usize = (0..rank).map(|k| (idx[k] + start[k]) * stride[k]).sum();
        let at = at * element;
        out.get_mut(at..at + row).ok_or(SHORT)?.copy_from_slice(src);
        for k in (0..rank - 1).rev() {
            idx[k] += 1;
            if idx[k] < ud[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let od = ctx.input_shape(0)?;
    let ud = ctx.input_shape(1)?;
    let rank = od.rank();
    let bytes = ctx.input_bytes(2)?;
    let mut raw = [0i64; MAX_DIMS];
    if ctx.input_type(2)? == TensorType::Int64 {
        raw[..rank].copy_from_slice(words::<i64>(bytes)?.get(..rank).ok_or(SHORT)?);
    } else {
        for (slot, &v) in raw[..rank]
            .iter_mut()
            .zip(words::<i32>(bytes)?.get(..rank).ok_or(SHORT)?)
        {
            *slot = i64::from(v);
        }
    }
    let mut start = [0usize; MAX_DIMS];
    for k in 0..rank {
        let hi = od.dims()[k].saturating_sub(ud.dims()[k]);
        start[k] = usize::try_from(raw[k].max(0)).unwrap_or(usize::MAX).min(hi);
    }
    let element = p.element as usize;
    let operand = ctx.input_bytes(0)?;
    let update = ctx.input_bytes(1)?;
    let out = ctx.output_bytes(0)?;
    let n = od.elements() * element;
    out.get_mut(..n)
        .ok_or(SHORT)?
        .copy_from_slice(operand.get(..n).ok_or(SHORT)?);
    update_into(out, od.dims(), update, ud.dims(), &start[..rank], element)
}
