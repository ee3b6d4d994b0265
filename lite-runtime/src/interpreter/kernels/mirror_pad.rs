//! MIRROR_PAD, REFLECT and SYMMETRIC (every type of 1, 2, 4 or 8 bytes, as LiteRT's kernel,
//! which moves values by their width: float32, int32, int64, bool, int8, uint8, int16): the
//! input surrounded by its own mirror image. Each output element is read from the input
//! position LiteRT's `GetInputDimension` gives, dimension by dimension. The paddings (int32 or
//! int64, `[rank, 2]`, each at most the dimension less 1 for REFLECT, the dimension for
//! SYMMETRIC) are checked at set-up when constant and at every invoke.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE, SHORT};
use super::base::tensors::{element_bytes, words, words_mut};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare};
use crate::model::{BuiltinOperator, MirrorPadOptions, TensorType};

/// MIRROR_PAD.
pub static MIRROR_PAD: Kernel = Kernel {
    op: BuiltinOperator::MirrorPad,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    element: u32,
    /// 1 for REFLECT (the edge is not repeated), 0 for SYMMETRIC.
    offset: u32,
}

const PADDINGS: KernelError = KernelError::Mismatch {
    what: "MIRROR_PAD paddings negative or wider than the input allows",
};

/// `(before, after)` per dimension, checked against the input's dimensions and `offset`.
fn paddings(
    values: &[i64],
    input: &[usize],
    offset: usize,
) -> Result<[(usize, usize); MAX_DIMS], KernelError> {
    let mut out = [(0, 0); MAX_DIMS];
    if values.len() != input.len() * 2 {
        return Err(PADDINGS);
    }
    for ((slot, pair), &d) in out.iter_mut().zip(values.chunks_exact(2)).zip(input) {
        let max = d.checked_sub(offset).ok_or(PADDINGS)?;
        let b = usize::try_from(pair[0]).map_err(|_| PADDINGS)?;
        let a = usize::try_from(pair[1]).map_err(|_| PADDINGS)?;
        if b > max || a > max {
            return Err(PADDINGS);
        }
        *slot = (b, a);
    }
    Ok(out)
}

fn check_output(
    input: &[usize],
    output: &[usize],
    pads: &[(usize, usize); MAX_DIMS],
) -> Result<(), KernelError> {
    if input.len() != output.len() {
        return Err(OUTPUT_SHAPE);
    }
    for ((&i, &o), &(b, a)) in input.iter().zip(output).zip(pads) {
        if i.checked_add(b).and_then(|v| v.checked_add(a)) != Some(o) {
            return Err(OUTPUT_SHAPE);
        }
    }
    Ok(())
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let MirrorPadOptions { mode } = ctx.options()?;
    let offset = match mode {
        0 => 1,
        1 => 0,
        _ => {
            return Err(KernelError::Unsupported {
                what: "MIRROR_PAD mode other than REFLECT or SYMMETRIC",
            });
        }
    };
    let input = ctx.input(0)?;
    let pads = ctx.input(1)?;
    let output = ctx.output(0)?;
    check::output_type(&input, &output)?;
    let element = element_bytes(input.dtype)?;
    let rank = input.shape.rank();
    if !matches!(pads.dtype, TensorType::Int32 | TensorType::Int64)
        || pads.shape.dims() != [rank, 2]
    {
        return Err(KernelError::Mismatch {
            what: "MIRROR_PAD paddings not an INT32 or INT64 [rank, 2] tensor",
        });
    }
    if pads.constant().is_some() {
        let mut v = [0i64; 2 * MAX_DIMS];
        for (slot, x) in v.iter_mut().zip(check::constant_ints(&pads)?) {
            *slot = x;
        }
        let p = paddings(&v[..2 * rank], input.shape.dims(), offset)?;
        check_output(input.shape.dims(), output.shape.dims(), &p)?;
    }
    ctx.set_params(&Params {
        element: check::dim(element)?,
        offset: offset as u32,
    });
    Ok(())
}

/// LiteRT's `GetInputDimension`: the input index that output index `i` of a dimension of
/// `size` padded by `before` reads.
#[inline]
pub(crate) fn source_index(i: usize, before: usize, size: usize, offset: usize) -> usize {
    if i < before {
        let original = before + offset - 1;
        return original - i.min(original - offset);
    }
    let i = i - before;
    if i >= size {
        let original = size - (1 + offset);
        return original - (i - size).min(original);
    }
    i
}

/// Fills `y` (shape `out`) from `x` (shape `dims`).
pub(crate) fn mirror<W: Copy>(
    x: &[W],
    dims: &[usize],
    y: &mut [W],
    out: &[usize],
    pads: &[(usize, usize); MAX_DIMS],
    offset: usize,
) -> Result<(), KernelError> {
    let rank = dims.len();
    let total: usize = out.iter().product();
    let y = y.get_mut(..total).ok_or(SHORT)?;
    if total == 0 {
        return Ok(());
    }
    let mut stride = [1usize; MAX_DIMS];
    for k in (0..rank.saturating_sub(1)).rev() {
        stride[k] = stride[k + 1] * dims[k + 1];
    }
    let mut idx = [0usize; MAX_DIMS];
    for slot in y.iter_mut() {
        let mut at = 0;
        for k in 0..rank {
            at += source_index(idx[k], pads[k].0, dims[k], offset) * stride[k];
        }
        *slot = *x.get(at).ok_or(SHORT)?;
        for k in (0..rank).rev() {
            idx[k] += 1;
            if idx[k] < out[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let shape = ctx.input_shape(0)?;
    let out = ctx.output_shape(0)?;
    let rank = shape.rank();
    let bytes = ctx.input_bytes(1)?;
    let mut v = [0i64; 2 * MAX_DIMS];
    let n = 2 * rank;
    if ctx.input_type(1)? == TensorType::Int64 {
        let w = words::<i64>(bytes)?;
        v[..n].copy_from_slice(w.get(..n).ok_or(PADDINGS)?);
    } else {
        let w = words::<i32>(bytes)?;
        for (slot, &x) in v[..n].iter_mut().zip(w.get(..n).ok_or(PADDINGS)?) {
            *slot = i64::from(x);
        }
    }
    let offset = p.offset as usize;
    let pads = paddings(&v[..n], shape.dims(), offset)?;
    check_output(shape.dims(), out.dims(), &pads)?;
    let (d, o) = (shape.dims(), out.dims());
    let x = ctx.input_bytes(0)?;
    let y = ctx.output_bytes(0)?;
    match p.element {
        1 => mirror(x, d, y, o, &pads, offset),
        2 => mirror(words::<u16>(x)?, d, words_mut::<u16>(y)?, o, &pads, offset),
        4 => mirror(words::<u32>(x)?, d, words_mut::<u32>(y)?, o, &pads, offset),
        _ => mirror(words::<u64>(x)?, d, words_mut::<u64>(y)?, o, &pads, offset),
    }
}
