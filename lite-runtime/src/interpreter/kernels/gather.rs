//! GATHER and EMBEDDING_LOOKUP over float32, int32, int64, bool, strings and the quantized
//! int8, uint8 and int16 (bytes copied, as TensorFlow Lite does), with int16, int32 or int64
//! indices (EMBEDDING_LOOKUP: int32), every index checked: an index outside its axis is a
//! [`KernelError::IndexOutOfRange`] naming its position, never a read (TensorFlow Lite's
//! GATHER also fails there; TensorFlow Lite Micro only asserts in debug builds).
//!
//! Both are one gather: `batch` blocks of `outer` rows, each row holding `axis` slices of
//! `inner` elements, from which `coord` indices per batch pick slices. Numbers are copied
//! slice by slice; string data is written into the output's byte budget by iterating the
//! picked strings (no copy of the table, no allocation).

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, dim as small};
use super::base::tensors::{element_bytes, words, words_mut, write_strings};
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::{BuiltinOperator, GatherOptions, TensorType};

/// GATHER.
pub static GATHER: Kernel = Kernel {
    op: BuiltinOperator::Gather,
    prepare: prepare_gather,
    init: None,
    eval,
};

/// EMBEDDING_LOOKUP.
pub static EMBEDDING_LOOKUP: Kernel = Kernel {
    op: BuiltinOperator::EmbeddingLookup,
    prepare: prepare_embedding,
    init: None,
    eval,
};

/// The geometry of a gather.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Geometry {
    /// Leading batch blocks (`batch_dims` dimensions).
    pub batch: u32,
    /// Rows per batch block before the axis.
    pub outer: u32,
    /// Length of the gathered axis.
    pub axis: u32,
    /// Elements per gathered slice.
    pub inner: u32,
    /// Indices per batch block.
    pub coord: u32,
}

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    geometry: Geometry,
    /// Element bytes, 0 for strings.
    element: u32,
    /// Operator input holding the data.
    data: u32,
    /// Operator input holding the indices.
    indices: u32,
}

fn unsupported_indices() -> KernelError {
    KernelError::Unsupported {
        what: "indices other than int16, int32 or int64",
    }
}

fn data_bytes(t: TensorType) -> Result<usize, KernelError> {
    if t == TensorType::String {
        Ok(0)
    } else {
        element_bytes(t)
    }
}

fn prepare_gather(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let GatherOptions { axis, batch_dims } = ctx.options()?;
    let data = ctx.input(0)?;
    let indices = ctx.input(1)?;
    let output = ctx.output(0)?;
    let element = data_bytes(data.dtype)?;
    if !matches!(
        indices.dtype,
        TensorType::Int16 | TensorType::Int32 | TensorType::Int64
    ) {
        return Err(unsupported_indices());
    }
    check::output_type(&data, &output)?;
    let (geometry, shape) = gather_geometry(&data.shape, &indices.shape, axis, batch_dims)?;
    if shape != output.shape {
        return Err(KernelError::Mismatch {
            what: "output shape differs from what the op computes",
        });
    }
    ctx.set_params(&Params {
        geometry,
        element: small(element)?,
        data: 0,
        indices: 1,
    });
    Ok(())
}

/// GATHER's geometry and output shape, checked as TensorFlow Lite checks them (axis and
/// `batch_dims` negative from the end, `batch_dims <= axis`, leading dimensions equal).
pub(crate) fn gather_geometry(
    data: &Shape,
    indices: &Shape,
    axis: i32,
    batch_dims: i32,
) -> Result<(Geometry, Shape), KernelError> {
    let bad = |what| KernelError::Mismatch { what };
    let (dr, ir) = (data.rank() as i64, indices.rank() as i64);
    let axis = if axis < 0 {
        i64::from(axis) + dr
    } else {
        i64::from(axis)
    };
    let batch = if batch_dims < 0 {
        i64::from(batch_dims) + ir
    } else {
        i64::from(batch_dims)
    };
    if !(0..dr).contains(&axis) {
        return Err(bad("axis outside the data's dimensions"));
    }
    if batch < 0 || batch > axis || batch > ir {
        return Err(bad("batch_dims outside 0..=axis or past the indices' rank"));
    }
    let (axis, batch) = (axis as usize, batch as usize);
    let (dd, id) = (data.dims(), indices.dims());
    if dd[..batch] != id[..batch] {
        return Err(bad("batch dimensions of data and indices differ"));
    }
    let mut out = [0usize; 2 * MAX_DIMS];
    let mut n = 0;
    for &d in dd[..axis].iter().chain(&id[batch..]).chain(&dd[axis + 1..]) {
        out[n] = d;
        n += 1;
    }
    let shape = Shape::new(&out[..n]).ok_or(KernelError::Unsupported {
        what: "output of more than 6 dimensions",
    })?;
    let p = |s: &[usize]| small(s.iter().product());
    Ok((
        Geometry {
            batch: p(&dd[..batch])?,
            outer: p(&dd[batch..axis])?,
            axis: small(dd[axis])?,
            inner: p(&dd[axis + 1..])?,
            coord: p(&id[batch..])?,
        },
        shape,
    ))
}

fn prepare_embedding(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let ids = ctx.input(0)?;
    let value = ctx.input(1)?;
    let output = ctx.output(0)?;
    if ids.dtype != TensorType::Int32 || ids.shape.rank() != 1 {
        return Err(KernelError::Unsupported {
            what: "ids other than a 1-D int32 tensor",
        });
    }
    let element = element_bytes(value.dtype)?;
    if value.shape.rank() < 2 {
        return Err(KernelError::Mismatch {
            what: "value has fewer than 2 dimensions",
        });
    }
    check::output_type(&value, &output)?;
    let (geometry, shape) = gather_geometry(&value.shape, &ids.shape, 0, 0)?;
    if shape != output.shape {
        return Err(KernelError::Mismatch {
            what: "output shape differs from what the op computes",
        });
    }
    ctx.set_params(&Params {
        geometry,
        element: small(element)?,
        data: 1,
        indices: 0,
    });
    Ok(())
}

/// An index tensor's element.
pub(crate) trait Index: Copy {
    /// Its value.
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

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let indices = p.indices as usize;
    let bytes = ctx.input_bytes(indices)?;
    match ctx.input_type(indices)? {
        TensorType::Int64 => run(ctx, &p, words::<i64>(bytes)?),
        TensorType::Int16 => run(ctx, &p, words::<i16>(bytes)?),
        _ => run(ctx, &p, words::<i32>(bytes)?),
    }
}

fn run<I: Index>(ctx: &mut Eval<'_>, p: &Params, idx: &[I]) -> Result<(), KernelError> {
    let g = p.geometry;
    let (data, input) = (p.data as usize, p.indices as usize);
    if p.element == 0 {
        let strings = ctx.input_strings(data)?;
        let expect = g.batch as usize * g.outer as usize * g.axis as usize * g.inner as usize;
        if strings.len() != expect {
            return Err(KernelError::Mismatch {
                what: "string count differs from the data's shape",
            });
        }
        // TensorFlow Lite checks an index as it copies, so not at all when there are no rows.
        if g.outer != 0 {
            check_indices(idx, &g, input)?;
        }
        let total = g.batch as usize * g.outer as usize * g.coord as usize * g.inner as usize;
        let picked = (0..total).map(move |k| {
            let i = source(&g, idx, k).unwrap_or(usize::MAX);
            strings.get(i).unwrap_or_default()
        });
        return write_strings(ctx, 0, picked);
    }
    let src = ctx.input_bytes(data)?;
    let dst = ctx.output_bytes(0)?;
    match p.element {
        1 => gather(src, idx, dst, &g, input),
        2 => gather(words::<u16>(src)?, idx, words_mut::<u16>(dst)?, &g, input),
        4 => gather(words::<u32>(src)?, idx, words_mut::<u32>(dst)?, &g, input),
        8 => gather(words::<u64>(src)?, idx, words_mut::<u64>(dst)?, &g, input),
        _ => Err(KernelError::Unsupported {
            what: "element size",
        }),
    }
}

fn out_of_range(input: usize, position: usize, index: i64, limit: usize) -> KernelError {
    KernelError::IndexOutOfRange {
        input,
        position,
        index,
        limit,
    }
}

/// Every index of `idx`, checked against the axis.
fn check_indices<I: Index>(idx: &[I], g: &Geometry, input: usize) -> Result<(), KernelError> {
    let limit = g.axis as usize;
    for (position, &i) in idx.iter().enumerate() {
        let v = i.value();
        if usize::try_from(v).map_or(true, |u| u >= limit) {
            return Err(out_of_range(input, position, v, limit));
        }
    }
    Ok(())
}

/// The source element of output element `k` (indices already checked).
fn source<I: Index>(g: &Geometry, idx: &[I], k: usize) -> Option<usize> {
    let (inner, coord, outer) = (g.inner as usize, g.coord as usize, g.outer as usize);
    let j = k % inner.max(1);
    let t = k / inner.max(1);
    let c = t % coord.max(1);
    let t = t / coord.max(1);
    let b = t / outer.max(1);
    let i = usize::try_from(idx.get(b * coord + c)?.value()).ok()?;
    Some((t * g.axis as usize + i) * inner + j)
}

/// The numeric gather: for each batch block and outer row, the slices the indices pick.
pub(crate) fn gather<W: Copy, I: Index>(
    src: &[W],
    idx: &[I],
    dst: &mut [W],
    g: &Geometry,
    input: usize,
) -> Result<(), KernelError> {
    let (outer, axis, inner, coord) = (
        g.outer as usize,
        g.axis as usize,
        g.inner as usize,
        g.coord as usize,
    );
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    let slab = axis * inner;
    let mut d = 0;
    for b in 0..g.batch as usize {
        let ids = idx.get(b * coord..(b + 1) * coord).ok_or(short)?;
        for o in 0..outer {
            let row = src
                .get((b * outer + o) * slab..(b * outer + o + 1) * slab)
                .ok_or(short)?;
            for (c, &i) in ids.iter().enumerate() {
                let v = i.value();
                let at = usize::try_from(v)
                    .ok()
                    .filter(|&u| u < axis)
                    .ok_or(out_of_range(input, b * coord + c, v, axis))?;
                if inner == 1 {
                    *dst.get_mut(d).ok_or(short)? = row[at];
                } else {
                    dst.get_mut(d..d + inner)
                        .ok_or(short)?
                        .copy_from_slice(&row[at * inner..(at + 1) * inner]);
                }
                d += inner;
            }
        }
    }
    Ok(())
}
