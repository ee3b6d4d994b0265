//! TOPK_V2 (float32, int32, int64 and the quantized int8, uint8, int16 values; int32 or int16
//! `k` and indices): the `k` largest values of each last-dimension row, largest first, ties
//! broken toward the lower index and NaNs ranked below every number (LiteRT's `TopContainer`
//! order, a strict total order, so the result is unique). The rows are ranked by insertion
//! into the output itself: no scratch, no allocation. The outputs' shape depends on `k`:
//! tessera plans the shapes the model declares, so a computed `k` is read at every invoke and
//! must give them.

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check::{self, OUTPUT_SHAPE, SHORT};
use super::base::tensors::{input_n, output_n, words};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare, Shape};
use crate::model::{BuiltinOperator, TensorType};
use tessera_core::tensor::Element;

/// TOPK_V2.
pub static TOPK_V2: Kernel = Kernel {
    op: BuiltinOperator::TopkV2,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    rows: u32,
    row: u32,
}

const K: KernelError = KernelError::Mismatch {
    what: "TOPK_V2 k negative or past the last dimension",
};

/// The outputs' shape for `k`.
fn shape_for(input: &Shape, k: i64) -> Result<Shape, KernelError> {
    let dims = input.dims();
    let last = *dims.last().ok_or(KernelError::Mismatch {
        what: "TOPK_V2 of a scalar",
    })?;
    let k = usize::try_from(k).ok().filter(|&k| k <= last).ok_or(K)?;
    let mut out = [0usize; crate::interpreter::MAX_DIMS];
    out[..dims.len()].copy_from_slice(dims);
    out[dims.len() - 1] = k;
    Shape::new(&out[..dims.len()]).ok_or(OUTPUT_SHAPE)
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let k = ctx.input(1)?;
    let values = ctx.output(0)?;
    let indices = ctx.output(1)?;
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
            what: "TOPK_V2 of other types than FLOAT32, INT32, INT64, INT8, UINT8, INT16",
        });
    }
    check::output_type(&input, &values)?;
    if !matches!(k.dtype, TensorType::Int32 | TensorType::Int16) || k.shape.elements() != 1 {
        return Err(KernelError::Mismatch {
            what: "TOPK_V2 k not one INT32 or INT16 value",
        });
    }
    if !matches!(indices.dtype, TensorType::Int32 | TensorType::Int16) {
        return Err(KernelError::Unsupported {
            what: "TOPK_V2 indices other than INT32 or INT16",
        });
    }
    let dims = input.shape.dims();
    let row = *dims.last().ok_or(KernelError::Mismatch {
        what: "TOPK_V2 of a scalar",
    })?;
    if indices.dtype == TensorType::Int16 && row > 32768 {
        return Err(KernelError::Unsupported {
            what: "TOPK_V2 row longer than INT16 indices reach",
        });
    }
    if let Some(v) = k.constant() {
        let k = if k.dtype == TensorType::Int16 {
            i64::from(i16::from_le_bytes([v[0], *v.get(1).ok_or(SHORT)?]))
        } else {
            check::constant_ints(&k)?.next().ok_or(SHORT)?
        };
        let shape = shape_for(&input.shape, k)?;
        check::output_shape(&values, &shape)?;
        check::output_shape(&indices, &shape)?;
    } else if values.shape.dims().len() != dims.len() || indices.shape != values.shape {
        return Err(OUTPUT_SHAPE);
    }
    ctx.set_params(&Params {
        rows: check::dim(dims[..dims.len() - 1].iter().product())?,
        row: check::dim(row)?,
    });
    Ok(())
}

/// A value TOPK_V2 ranks.
pub(crate) trait Ranked: Element + PartialOrd {
    /// Whether it is a NaN (never for integers).
    fn nan(self) -> bool {
        false
    }
}

impl Ranked for f32 {
    fn nan(self) -> bool {
        self.is_nan()
    }
}
impl Ranked for i32 {}
impl Ranked for i64 {}
impl Ranked for i8 {}
impl Ranked for u8 {}
impl Ranked for i16 {}

/// Whether element `a` of `row` ranks before element `b` (LiteRT's `compare_fun`).
#[inline]
fn before<T: Ranked>(row: &[T], a: usize, b: usize) -> bool {
    let (x, y) = (row[a], row[b]);
    if x.nan() != y.nan() {
        return y.nan();
    }
    if y < x {
        true
    } else if y > x {
        false
    } else {
        a < b
    }
}

/// The indices of the `top.len()` highest-ranked elements of `row`, in rank order.
pub(crate) fn top<T: Ranked>(row: &[T], top: &mut [usize]) {
    let k = top.len().min(row.len());
    let mut n = 0;
    for c in 0..row.len() {
        if n == k && (k == 0 || !before(row, c, top[k - 1])) {
            continue;
        }
        // Insert c, dropping the last when full.
        let mut at = n.min(k.saturating_sub(1));
        if n < k {
            n += 1;
        }
        while at > 0 && before(row, c, top[at - 1]) {
            top[at] = top[at - 1];
            at -= 1;
        }
        top[at] = c;
    }
}

/// One invoke over values of `T`: `rows` rows of `row`, the top `k` of each.
fn run<T: Ranked>(
    ctx: &mut Eval<'_>,
    rows: usize,
    row: usize,
    k: usize,
) -> Result<(), KernelError> {
    let x = input_n::<T>(ctx, 0, rows * row)?;
    let values = output_n::<T>(ctx, 0, rows * k)?;
    let wide = ctx.output_type(1)? == TensorType::Int32;
    let mut best = [0usize; 64];
    let (i32s, i16s): (&mut [i32], &mut [i16]) = if wide {
        (output_n::<i32>(ctx, 1, rows * k)?, &mut [])
    } else {
        (&mut [], output_n::<i16>(ctx, 1, rows * k)?)
    };
    if k == 0 {
        return Ok(());
    }
    for (r, xs) in x.chunks_exact(row.max(1)).enumerate().take(rows) {
        // Ranked in chunks of 64 by repeated selection when k is larger.
        let mut done = 0;
        let mut last: Option<usize> = None;
        while done < k {
            let take = (k - done).min(best.len());
            select_after(xs, last, &mut best[..take]);
            for (j, &i) in best[..take].iter().enumerate() {
                let at = r * k + done + j;
                *values.get_mut(at).ok_or(SHORT)? = xs[i];
                if wide {
                    *i32s.get_mut(at).ok_or(SHORT)? = i as i32;
                } else {
                    *i16s.get_mut(at).ok_or(SHORT)? = i as i16;
                }
            }
            last = best[..take].last().copied();
            done += take;
        }
    }
    Ok(())
}

/// The `out.len()` highest-ranked elements of `row` that rank after element `after`.
fn select_after<T: Ranked>(row: &[T], after: Option<usize>, out: &mut [usize]) {
    match after {
        None => top(row, out),
        Some(a) => {
            let k = out.len();
            let mut n = 0;
            for c in 0..row.len() {
                if !before(row, a, c) {
                    continue;
                }
                if n == k && (k == 0 || !before(row, c, out[k - 1])) {
                    continue;
                }
                let mut at = n.min(k.saturating_sub(1));
                if n < k {
                    n += 1;
                }
                while at > 0 && before(row, c, out[at - 1]) {
                    out[at] = out[at - 1];
                    at -= 1;
                }
                out[at] = c;
            }
        }
    }
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (rows, row) = (p.rows as usize, p.row as usize);
    let kb = ctx.input_bytes(1)?;
    let k = if ctx.input_type(1)? == TensorType::Int16 {
        i64::from(*words::<i16>(kb)?.first().ok_or(SHORT)?)
    } else {
        i64::from(*words::<i32>(kb)?.first().ok_or(SHORT)?)
    };
    let shape = shape_for(&ctx.input_shape(0)?, k)?;
    if ctx.output_shape(0)? != shape || ctx.output_shape(1)? != shape {
        return Err(KernelError::Mismatch {
            what: "TOPK_V2 k gives another shape than the outputs' (computed k)",
        });
    }
    let k = k as usize;
    match ctx.input_type(0)? {
        TensorType::Float32 => run::<f32>(ctx, rows, row, k),
        TensorType::Int32 => run::<i32>(ctx, rows, row, k),
        TensorType::Int64 => run::<i64>(ctx, rows, row, k),
        TensorType::Int8 => run::<i8>(ctx, rows, row, k),
        TensorType::Uint8 => run::<u8>(ctx, rows, row, k),
        _ => run::<i16>(ctx, rows, row, k),
    }
}
