//! TILE (float32, int32, int64, bool and the quantized int8, uint8, int16; values copied as
//! bytes, as LiteRT's kernel copies them): the input repeated `multiples[k]` times along each
//! dimension `k`, `multiples` a 1-D INT32 or INT64 operand of one value per dimension. As
//! LiteRT's `TileOneDimension`: the innermost row is written `multiples` times, then each
//! outer block, once built, is copied after itself. The multiples are read at every invoke
//! (a computed operand works) and the output's planned shape must be the one they give.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, SHORT};
use super::base::tensors::{element_bytes, words};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::{BuiltinOperator, TensorType};

/// TILE.
pub static TILE: Kernel = Kernel {
    op: BuiltinOperator::Tile,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    element: u32,
    /// The multiples' type: 0 INT32, 1 INT64.
    wide: u32,
}

const MULTIPLES: KernelError = KernelError::Mismatch {
    what: "TILE multiples not one non-negative value per input dimension",
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let multiples = ctx.input(1)?;
    let output = ctx.output(0)?;
    let element = element_bytes(input.dtype)?;
    check::output_type(&input, &output)?;
    let wide = match multiples.dtype {
        TensorType::Int32 => 0,
        TensorType::Int64 => 1,
        _ => {
            return Err(KernelError::Mismatch {
                what: "TILE multiples neither INT32 nor INT64",
            });
        }
    };
    if multiples.shape.rank() != 1 || multiples.shape.elements() != input.shape.rank() {
        return Err(MULTIPLES);
    }
    if multiples.constant().is_some() {
        let mut m = [0i64; MAX_DIMS];
        for (slot, v) in m.iter_mut().zip(check::constant_ints(&multiples)?) {
            *slot = v;
        }
        let dims = tiled(input.shape.dims(), &m[..input.shape.rank()])?;
        check::output_shape(&output, &Shape::new(&dims[..input.shape.rank()]).ok_or(MULTIPLES)?)?;
    }
    ctx.set_params(&Params {
        element: check::dim(element)?,
        wide,
    });
    Ok(())
}

/// The output's dimensions: `dims[k] * multiples[k]`.
fn tiled(dims: &[usize], multiples: &[i64]) -> Result<[usize; MAX_DIMS], KernelError> {
    let mut out = [0usize; MAX_DIMS];
    if dims.len() != multiples.len() || dims.len() > MAX_DIMS {
        return Err(MULTIPLES);
    }
    for ((o, &d), &m) in out.iter_mut().zip(dims).zip(multiples) {
        let m = usize::try_from(m).map_err(|_| MULTIPLES)?;
        *o = d.checked_mul(m).ok_or(check::DIM_OVER_U32)?;
    }
    Ok(out)
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let shape = ctx.input_shape(0)?;
    let rank = shape.rank();
    let mut m = [0i64; MAX_DIMS];
    let bytes = ctx.input_bytes(1)?;
    if p.wide == 1 {
        let w = words::<i64>(bytes)?.get(..rank).ok_or(MULTIPLES)?;
        m[..rank].copy_from_slice(w);
    } else {
        for (slot, &v) in m.iter_mut().zip(words::<i32>(bytes)?.get(..rank).ok_or(MULTIPLES)?) {
            *slot = i64::from(v);
        }
    }
    let dims = tiled(shape.dims(), &m[..rank])?;
    // A computed operand must give the shape the output was planned with.
    if ctx.output_shape(0)?.dims() != &dims[..rank] {
        return Err(check::OUTPUT_SHAPE);
    }
    let mut counts = [0usize; MAX_DIMS];
    for (c, &v) in counts.iter_mut().zip(&m[..rank]) {
        *c = v as usize; // checked non-negative by `tiled`
    }
    if dims[..rank].contains(&0) {
        return Ok(()); // an empty output (a non-empty one has no zero dimension or multiple)
    }
    let src = ctx.input_bytes(0)?;
    let dst = ctx.output_bytes(0)?;
    tile(shape.dims(), &counts[..rank], p.element as usize, src, dst)?;
    Ok(())
}

/// Writes `src` (dimensions `dims`, elements of `e` bytes) tiled `multiples` times into
/// `dst`; returns the bytes read and written. Recursion depth: the rank (at most
/// [`MAX_DIMS`]).
fn tile(
    dims: &[usize],
    multiples: &[usize],
    e: usize,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(usize, usize), KernelError> {
    let (Some((&d, inner)), Some((&m, inner_m))) = (dims.split_first(), multiples.split_first())
    else {
        // A scalar: one element.
        let v = src.get(..e).ok_or(SHORT)?;
        dst.get_mut(..e).ok_or(SHORT)?.copy_from_slice(v);
        return Ok((e, e));
    };
    let (mut read, mut written) = (0usize, 0usize);
    if inner.is_empty() {
        let row = d.checked_mul(e).ok_or(SHORT)?;
        let v = src.get(..row).ok_or(SHORT)?;
        read = row;
        written = row;
        dst.get_mut(..row).ok_or(SHORT)?.copy_from_slice(v);
    } else {
        for _ in 0..d {
            let (r, w) = tile(
                inner,
                inner_m,
                e,
                src.get(read..).ok_or(SHORT)?,
                dst.get_mut(written..).ok_or(SHORT)?,
            )?;
            read += r;
            written += w;
        }
    }
    // `dst[..written]` is dimension 0's block once; the other copies follow it.
    let total = written.checked_mul(m).ok_or(SHORT)?;
    if m == 0 {
        return Ok((read, 0));
    }
    if dst.len() < total {
        return Err(SHORT);
    }
    for k in 1..m {
        dst.copy_within(..written, k * written);
    }
    Ok((read, total))
}
