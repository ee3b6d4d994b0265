//! GATHER_ND (float32, int32, int64, bool, strings and the quantized int8, uint8, int16; int16,
//! int32 or int64 indices): the slices of `params` that the index tuples in the last
//! dimension of `indices` name. Output shape `indices.shape[:-1] + params.shape[k:]` with `k`
//! the tuples' length. Every index is checked before anything is copied: a negative one or one
//! past its dimension is a [`KernelError::IndexOutOfRange`] (LiteRT refuses both too).

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE, SHORT};
use super::base::tensors::{element_bytes, words, words_mut, write_strings};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::{BuiltinOperator, TensorType};

/// GATHER_ND.
pub static GATHER_ND: Kernel = Kernel {
    op: BuiltinOperator::GatherNd,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    /// Element bytes, 0 for strings.
    element: u32,
}

/// The output shape of GATHER_ND.
pub(crate) fn output_shape(params: &Shape, indices: &Shape) -> Result<Shape, KernelError> {
    let (pd, id) = (params.dims(), indices.dims());
    let Some((&k, lead)) = id.split_last() else {
        return Err(KernelError::Mismatch {
            what: "GATHER_ND indices are a scalar",
        });
    };
    if pd.is_empty() || k > pd.len() {
        return Err(KernelError::Mismatch {
            what: "GATHER_ND index tuples longer than the params' rank (or params a scalar)",
        });
    }
    let mut out = [0usize; 2 * MAX_DIMS];
    let mut n = 0;
    for &d in lead.iter().chain(&pd[k..]) {
        out[n] = d;
        n += 1;
    }
    Shape::new(&out[..n]).ok_or(KernelError::Unsupported {
        what: "output of more than 6 dimensions",
    })
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let params = ctx.input(0)?;
    let indices = ctx.input(1)?;
    let output = ctx.output(0)?;
    if !matches!(
        indices.dtype,
        TensorType::Int16 | TensorType::Int32 | TensorType::Int64
    ) {
        return Err(KernelError::Unsupported {
            what: "GATHER_ND indices other than INT16, INT32, INT64",
        });
    }
    let element = if params.dtype == TensorType::String {
        0
    } else {
        element_bytes(params.dtype)?
    };
    check::output_type(&params, &output)?;
    check::output_shape(&output, &output_shape(&params.shape, &indices.shape)?)?;
    ctx.set_params(&Params {
        element: check::dim(element)?,
    });
    Ok(())
}

/// An index element.
trait Index: Copy {
    fn value(self) -> i64;
}

impl Index for i16 {
    fn value(self) -> i64 {
        i64::from(self)
    }
}

impl Index for i32 {
    fn value(self) -> i64 {
        i64::from(self)
    }
}

impl Index for i64 {
    fn value(self) -> i64 {
        self
    }
}

/// The geometry: `count` tuples of `k` indices, each naming a slice of `slice` elements.
struct Geometry {
    count: usize,
    k: usize,
    slice: usize,
    /// Elements per step of each indexed dimension.
    stride: [usize; MAX_DIMS],
    dims: [usize; MAX_DIMS],
}

fn geometry(params: &Shape, indices: &Shape) -> Geometry {
    let (pd, id) = (params.dims(), indices.dims());
    let k = id.last().copied().unwrap_or(0).min(pd.len());
    let count = id[..id.len().saturating_sub(1)].iter().product();
    let slice = pd[k..].iter().product();
    let mut stride = [0usize; MAX_DIMS];
    let mut dims = [0usize; MAX_DIMS];
    let mut acc = slice;
    for j in (0..k).rev() {
        stride[j] = acc;
        dims[j] = pd[j];
        acc = acc.saturating_mul(pd[j]);
    }
    Geometry {
        count,
        k,
        slice,
        stride,
        dims,
    }
}

/// Checks every index; the first element of each tuple's slice.
fn starts<'a, I: Index>(
    g: &'a Geometry,
    idx: &'a [I],
) -> Result<impl Iterator<Item = usize> + Clone + 'a, KernelError> {
    let idx = idx.get(..g.count * g.k).ok_or(SHORT)?;
    for (position, &i) in idx.iter().enumerate() {
        let limit = g.dims[position % g.k.max(1)];
        let v = i.value();
        if usize::try_from(v).map_or(true, |u| u >= limit) {
            return Err(KernelError::IndexOutOfRange {
                input: 1,
                position,
                index: v,
                limit,
            });
        }
    }
    Ok((0..g.count).map(move |t| {
        (0..g.k)
            .map(|j| idx[t * g.k + j].value() as usize * g.stride[j])
            .sum()
    }))
}

fn copy<W: Copy>(
    src: &[W],
    dst: &mut [W],
    slice: usize,
    starts: impl Iterator<Item = usize>,
) -> Result<(), KernelError> {
    if slice == 0 {
        return Ok(());
    }
    for (d, s) in dst.chunks_exact_mut(slice).zip(starts) {
        d.copy_from_slice(src.get(s..s + slice).ok_or(SHORT)?);
    }
    Ok(())
}

fn run<I: Index>(ctx: &mut Eval<'_>, idx: &[I]) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (ps, is) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    if output_shape(&ps, &is)? != ctx.output_shape(0)? {
        return Err(OUTPUT_SHAPE);
    }
    let g = geometry(&ps, &is);
    let starts = starts(&g, idx)?;
    if p.element == 0 {
        let strings = ctx.input_strings(0)?;
        if strings.len() != ps.elements() {
            return Err(KernelError::Mismatch {
                what: "string count differs from the params' shape",
            });
        }
        let slice = g.slice;
        let picked = starts
            .flat_map(move |s| s..s + slice)
            .map(move |i| strings.get(i).unwrap_or_default());
        return write_strings(ctx, 0, picked);
    }
    let total = g.count * g.slice;
    let src = ctx.input_bytes(0)?;
    let dst = ctx.output_bytes(0)?;
    match p.element {
        1 => copy(src, dst.get_mut(..total).ok_or(SHORT)?, g.slice, starts),
        2 => copy(
            words::<u16>(src)?,
            words_mut::<u16>(dst)?.get_mut(..total).ok_or(SHORT)?,
            g.slice,
            starts,
        ),
        4 => copy(
            words::<u32>(src)?,
            words_mut::<u32>(dst)?.get_mut(..total).ok_or(SHORT)?,
            g.slice,
            starts,
        ),
        _ => copy(
            words::<u64>(src)?,
            words_mut::<u64>(dst)?.get_mut(..total).ok_or(SHORT)?,
            g.slice,
            starts,
        ),
    }
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let bytes = ctx.input_bytes(1)?;
    match ctx.input_type(1)? {
        TensorType::Int64 => run(ctx, words::<i64>(bytes)?),
        TensorType::Int16 => run(ctx, words::<i16>(bytes)?),
        _ => run(ctx, words::<i32>(bytes)?),
    }
}
