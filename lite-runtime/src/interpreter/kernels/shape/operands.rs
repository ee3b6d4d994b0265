//! The small integer operands of the data-movement kernels (begin, size, perm, dims), read
//! from a constant at set-up or from the tensor at invoke.

use super::super::base::tensors::words;
use crate::interpreter::{Desc, Eval, KernelError, MAX_DIMS};
use crate::model::TensorType;

/// The most entries an index operand (begin, end, strides, size, perm, dims) may hold: a
/// strided slice's spec can name an ellipsis and new axes besides the input's dimensions.
pub(crate) const MAX_SPEC: usize = MAX_DIMS + 2;

/// An index operand: 1-D (or scalar), int32 or int64, at most [`MAX_SPEC`] entries. Returns
/// the entry count.
pub(crate) fn check_spec(d: &Desc<'_>, what: &'static str) -> Result<usize, KernelError> {
    if !matches!(d.dtype, TensorType::Int32 | TensorType::Int64) {
        return Err(KernelError::Unsupported { what });
    }
    let n = d.shape.elements();
    if d.shape.rank() > 1 || n > MAX_SPEC {
        return Err(KernelError::Mismatch { what });
    }
    Ok(n)
}

/// The entries of a constant index operand (little-endian in the model), or `None` if the
/// operand is computed at invoke.
pub(crate) fn const_spec(
    d: &Desc<'_>,
    out: &mut [i64; MAX_SPEC],
) -> Result<Option<usize>, KernelError> {
    let Some(bytes) = d.constant() else {
        return Ok(None);
    };
    let n = d.shape.elements().min(MAX_SPEC);
    let width = if d.dtype == TensorType::Int64 { 8 } else { 4 };
    let short = KernelError::Mismatch {
        what: "constant shorter than its shape",
    };
    for (i, slot) in out.iter_mut().take(n).enumerate() {
        let at = i * width;
        let b = bytes.get(at..at + width).ok_or(short)?;
        *slot = if width == 8 {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            i64::from_le_bytes(w)
        } else {
            let mut w = [0u8; 4];
            w.copy_from_slice(b);
            i64::from(i32::from_le_bytes(w))
        };
    }
    Ok(Some(n))
}

/// The entries of index operand `i` at invoke (its type was checked at setup).
pub(crate) fn eval_spec(
    ctx: &Eval<'_>,
    i: usize,
    out: &mut [i64; MAX_SPEC],
) -> Result<usize, KernelError> {
    let long = KernelError::Mismatch {
        what: "index operand longer than its shape",
    };
    let bytes = ctx.input_bytes(i)?;
    if ctx.input_type(i)? == TensorType::Int64 {
        let v = words::<i64>(bytes)?;
        out.get_mut(..v.len()).ok_or(long)?.copy_from_slice(v);
        Ok(v.len())
    } else {
        let v = words::<i32>(bytes)?;
        for (slot, &x) in out.get_mut(..v.len()).ok_or(long)?.iter_mut().zip(v) {
            *slot = i64::from(x);
        }
        Ok(v.len())
    }
}

