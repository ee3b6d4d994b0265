//! ONE_HOT (float32, int32, int64, bool, int8, uint8, int16 values; int32 or int64 indices):
//! output `(i, j, k)` is `on_value` where index `(i, k)` equals `j`, `off_value` elsewhere,
//! with the `depth` dimension inserted at `axis` (-1: last). As LiteRT, an int64 index is
//! compared after truncation to 32 bits, and an index outside `0..depth` gives a row of
//! `off_value`. The output's shape depends on `depth`: tessera plans the shape the model
//! declares, so a computed `depth` is read at every invoke and must give that shape.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE, SHORT};
use super::base::tensors::{element_bytes, words, words_mut};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::{BuiltinOperator, OneHotOptions, TensorType};

/// ONE_HOT.
pub static ONE_HOT: Kernel = Kernel {
    op: BuiltinOperator::OneHot,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    element: u32,
    axis: u32,
}

/// The output's shape for `depth`.
fn shape_for(indices: &Shape, axis: usize, depth: i64) -> Result<Shape, KernelError> {
    let depth = usize::try_from(depth).map_err(|_| KernelError::Mismatch {
        what: "ONE_HOT depth negative",
    })?;
    let d = indices.dims();
    let mut out = [0usize; MAX_DIMS + 1];
    out[..axis].copy_from_slice(&d[..axis]);
    out[axis] = depth;
    out[axis + 1..=d.len()].copy_from_slice(&d[axis..]);
    Shape::new(&out[..=d.len()]).ok_or(KernelError::Unsupported {
        what: "output of more than 6 dimensions",
    })
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let OneHotOptions { axis } = ctx.options()?;
    let indices = ctx.input(0)?;
    let depth = ctx.input(1)?;
    let on = ctx.input(2)?;
    let off = ctx.input(3)?;
    let output = ctx.output(0)?;
    if !matches!(indices.dtype, TensorType::Int32 | TensorType::Int64) {
        return Err(KernelError::Unsupported {
            what: "ONE_HOT indices other than INT32 or INT64",
        });
    }
    let element = element_bytes(on.dtype)?;
    check::same_type(&on, &off)?;
    check::output_type(&on, &output)?;
    if on.shape.elements() != 1 || off.shape.elements() != 1 {
        return Err(KernelError::Mismatch {
            what: "ONE_HOT on_value or off_value not one element",
        });
    }
    if depth.dtype != TensorType::Int32 || depth.shape.elements() != 1 {
        return Err(KernelError::Mismatch {
            what: "ONE_HOT depth not one INT32 value",
        });
    }
    let rank = indices.shape.rank();
    let axis = if axis == -1 {
        rank
    } else {
        usize::try_from(axis)
            .ok()
            .filter(|&a| a <= rank)
            .ok_or(check::AXIS)?
    };
    if let Some(d) = check::constant_ints(&depth).ok().and_then(|mut v| v.next()) {
        check::output_shape(&output, &shape_for(&indices.shape, axis, d)?)?;
    } else if output.shape.rank() != rank + 1 {
        return Err(OUTPUT_SHAPE);
    }
    ctx.set_params(&Params {
        element: check::dim(element)?,
        axis: check::dim(axis)?,
    });
    Ok(())
}

/// An index, as LiteRT compares it (`static_cast<int>`).
trait Index: Copy {
    fn as_i32(self) -> i32;
}

impl Index for i32 {
    fn as_i32(self) -> i32 {
        self
    }
}

impl Index for i64 {
    fn as_i32(self) -> i32 {
        self as i32
    }
}

fn fill<W: Copy, I: Index>(
    y: &mut [W],
    idx: &[I],
    (prefix, depth, suffix): (usize, usize, usize),
    on: W,
    off: W,
) -> Result<(), KernelError> {
    let y = y.get_mut(..prefix * depth * suffix).ok_or(SHORT)?;
    let idx = idx.get(..prefix * suffix).ok_or(SHORT)?;
    let mut out = y.iter_mut();
    for i in 0..prefix {
        for j in 0..depth {
            for k in 0..suffix {
                let hit = i64::from(idx[i * suffix + k].as_i32()) == j as i64;
                if let Some(slot) = out.next() {
                    *slot = if hit { on } else { off };
                }
            }
        }
    }
    Ok(())
}

fn run<I: Index>(
    ctx: &mut Eval<'_>,
    idx: &[I],
    geometry: (usize, usize, usize),
    element: usize,
) -> Result<(), KernelError> {
    let on = ctx.input_bytes(2)?;
    let off = ctx.input_bytes(3)?;
    let y = ctx.output_bytes(0)?;
    match element {
        1 => fill(y, idx, geometry, *on.first().ok_or(SHORT)?, *off.first().ok_or(SHORT)?),
        2 => {
            let (on, off) = (words::<u16>(on)?, words::<u16>(off)?);
            let v = (*on.first().ok_or(SHORT)?, *off.first().ok_or(SHORT)?);
            fill(words_mut::<u16>(y)?, idx, geometry, v.0, v.1)
        }
        4 => {
            let (on, off) = (words::<u32>(on)?, words::<u32>(off)?);
            let v = (*on.first().ok_or(SHORT)?, *off.first().ok_or(SHORT)?);
            fill(words_mut::<u32>(y)?, idx, geometry, v.0, v.1)
        }
        _ => {
            let (on, off) = (words::<u64>(on)?, words::<u64>(off)?);
            let v = (*on.first().ok_or(SHORT)?, *off.first().ok_or(SHORT)?);
            fill(words_mut::<u64>(y)?, idx, geometry, v.0, v.1)
        }
    }
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let shape = ctx.input_shape(0)?;
    let axis = p.axis as usize;
    let depth = words::<i32>(ctx.input_bytes(1)?)?
        .first()
        .copied()
        .ok_or(SHORT)?;
    if shape_for(&shape, axis, i64::from(depth))? != ctx.output_shape(0)? {
        return Err(KernelError::Mismatch {
            what: "ONE_HOT depth gives another shape than the output's (computed depth)",
        });
    }
    let dims = shape.dims();
    let geometry = (
        dims[..axis].iter().product::<usize>(),
        depth as usize,
        dims[axis..].iter().product::<usize>(),
    );
    let bytes = ctx.input_bytes(0)?;
    let element = p.element as usize;
    if ctx.input_type(0)? == TensorType::Int64 {
        run(ctx, words::<i64>(bytes)?, geometry, element)
    } else {
        run(ctx, words::<i32>(bytes)?, geometry, element)
    }
}
