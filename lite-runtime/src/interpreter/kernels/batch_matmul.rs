//! BATCH_MATMUL: `out[..., i, j] = sum_k lhs[..., i, k] * rhs[..., k, j]`, either operand
//! transposed first (`adj_x`, `adj_y`), the batch dimensions broadcast (ranks 2 to 5), as
//! TensorFlow Lite's `batch_matmul.cc` and `reference_ops::BatchMatMul` compute it.
//!
//! LiteRT transposes the right-hand side into a scratch (once, when it is a constant) so its
//! kernel reads both operands along the depth; the transposition only moves values, so
//! tessera reads the operands in place with the transposition's strides and gets the same
//! sums: each output element accumulates `k = 0, 1, ...` in order from 0, in `float` for
//! float32, in `int32` for int8 (wrapping) and in `int64` for int16.
//!
//! Types, as LiteRT dispatches them:
//! - float32 x float32 into float32;
//! - int8 x int8 into int8: `(lhs - lhs_zp) * (rhs - rhs_zp)` summed, scaled by
//!   `float(lhs_scale * rhs_scale) / out_scale` (`MultiplyByQuantizedMultiplier`, double
//!   rounding), plus the output zero point, clamped to int8;
//! - int8 x int8 into int32: the raw products summed, zero points ignored (as the reference);
//! - int16 x int16 and int16 x int8 into int16: zero points 0, the sum in `int64` scaled by
//!   the 64-bit `MultiplyByQuantizedMultiplier`.
//!
//! The hybrid form (float32 x int8, quantizing the left-hand side per batch at invoke) is
//! refused. Per-channel scales are refused (LiteRT's kernel reads one scale per tensor).

#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::broadcast::{Broadcast, broadcast_shape};
use super::base::check::{self, SHORT};
use super::base::quant::{self, multiply_by_quantized_multiplier as mbqm};
use super::base::quant::multiply_by_quantized_multiplier_i64 as mbqm64;
use super::base::tensors::words_mut;
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare, Shape};
use crate::model::{BatchMatMulOptions, BuiltinOperator, TensorType};

/// BATCH_MATMUL (float32; int8 into int8 or int32; int16 x int16 and int16 x int8 into int16).
pub static BATCH_MATMUL: Kernel = Kernel {
    op: BuiltinOperator::BatchMatmul,
    prepare,
    init: None,
    eval,
};

/// `Params::kind`: float32.
const FLOAT: u32 = 0;
/// `Params::kind`: int8 x int8 into int8.
const INT8: u32 = 1;
/// `Params::kind`: int8 x int8 into int32, raw.
const INT8_INT32: u32 = 2;
/// `Params::kind`: int16 x int16 into int16.
const INT16: u32 = 3;
/// `Params::kind`: int16 x int8 into int16.
const INT16_INT8: u32 = 4;

/// What setup keeps.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Params {
    kind: u32,
    adj_x: u32,
    adj_y: u32,
    lhs_offset: i32,
    rhs_offset: i32,
    output_offset: i32,
    multiplier: i32,
    shift: i32,
    lo: i32,
    hi: i32,
}

/// The matrices of one BATCH_MATMUL: batch shapes (each operand's, and the output's), rows,
/// depth, columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dims {
    /// The left-hand side's batch dimensions (its leading ones).
    pub(crate) lhs_batch: Shape,
    /// The right-hand side's.
    pub(crate) rhs_batch: Shape,
    /// The output's (the two broadcast).
    pub(crate) out_batch: Shape,
    /// Rows of each output matrix.
    pub(crate) m: usize,
    /// The depth summed over.
    pub(crate) k: usize,
    /// Columns of each output matrix.
    pub(crate) n: usize,
}

const BAD_RANK: KernelError = KernelError::Unsupported {
    what: "BATCH_MATMUL operand of rank outside 2..=5",
};

/// The batch part (all but the last two dimensions) and the last two of `s`.
fn split(s: &Shape) -> Result<(Shape, usize, usize), KernelError> {
    let r = s.rank();
    if !(2..=5).contains(&r) {
        return Err(BAD_RANK);
    }
    let d = s.dims();
    let batch = Shape::new(d.get(..r - 2).ok_or(BAD_RANK)?).ok_or(BAD_RANK)?;
    Ok((batch, d[r - 2], d[r - 1]))
}

/// The matrices of `lhs x rhs` with the options, and the output shape.
///
/// # Errors
/// A refusal for ranks outside 2..=5, batch dimensions that do not broadcast, or depths
/// that differ.
pub(crate) fn dims(
    lhs: &Shape,
    rhs: &Shape,
    adj_x: bool,
    adj_y: bool,
) -> Result<(Dims, Shape), KernelError> {
    let (lhs_batch, l0, l1) = split(lhs)?;
    let (rhs_batch, r0, r1) = split(rhs)?;
    let (m, k) = if adj_x { (l1, l0) } else { (l0, l1) };
    let (k2, n) = if adj_y { (r1, r0) } else { (r0, r1) };
    if k != k2 {
        return Err(KernelError::Mismatch {
            what: "BATCH_MATMUL depths differ",
        });
    }
    let out_batch = broadcast_shape(&lhs_batch, &rhs_batch).ok_or(KernelError::Mismatch {
        what: "BATCH_MATMUL batch dimensions do not broadcast",
    })?;
    let mut out = [0usize; MAX_DIMS];
    let b = out_batch.rank();
    out[..b].copy_from_slice(out_batch.dims());
    out[b] = m;
    out[b + 1] = n;
    let shape = Shape::new(&out[..b + 2]).ok_or(BAD_RANK)?;
    Ok((
        Dims {
            lhs_batch,
            rhs_batch,
            out_batch,
            m,
            k,
            n,
        },
        shape,
    ))
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let lhs = ctx.input(0)?;
    let rhs = ctx.input(1)?;
    let out = ctx.output(0)?;
    let o: BatchMatMulOptions = ctx.options()?;
    let (d, shape) = dims(&lhs.shape, &rhs.shape, o.adj_x, o.adj_y)?;
    check::output_shape(&out, &shape)?;
    let kind = match (lhs.dtype, rhs.dtype, out.dtype) {
        (TensorType::Float32, TensorType::Float32, TensorType::Float32) => FLOAT,
        (TensorType::Int8, TensorType::Int8, TensorType::Int8) => INT8,
        (TensorType::Int8, TensorType::Int8, TensorType::Int32) => INT8_INT32,
        (TensorType::Int16, TensorType::Int16, TensorType::Int16) => INT16,
        (TensorType::Int16, TensorType::Int8, TensorType::Int16) => INT16_INT8,
        (TensorType::Float32, TensorType::Int8, _) => {
            return Err(KernelError::Unsupported {
                what: "hybrid BATCH_MATMUL (float32 x int8)",
            });
        }
        _ => {
            return Err(KernelError::Unsupported {
                what: "BATCH_MATMUL types (float32; int8 into int8 or int32; int16 x int16 or \
                       int8 into int16 run)",
            });
        }
    };
    let mut p = Params {
        kind,
        adj_x: o.adj_x.into(),
        adj_y: o.adj_y.into(),
        lhs_offset: 0,
        rhs_offset: 0,
        output_offset: 0,
        multiplier: 0,
        shift: 0,
        lo: 0,
        hi: 0,
    };
    if matches!(kind, INT8 | INT16 | INT16_INT8) {
        let (sl, zl) = quant::per_tensor(lhs.quantization(), lhs.dtype)?;
        let (sr, zr) = quant::per_tensor(rhs.quantization(), rhs.dtype)?;
        let (so, zo) = quant::per_tensor(out.quantization(), out.dtype)?;
        let wide = kind != INT8;
        if wide && (zl != 0 || zr != 0 || zo != 0) {
            return Err(KernelError::Unsupported {
                what: "int16 BATCH_MATMUL with a non-zero zero point",
            });
        }
        // `double(float(lhs_scale * rhs_scale)) / double(out_scale)`.
        let m = f64::from(sl * sr) / f64::from(so);
        (p.multiplier, p.shift) = quant::checked_multiplier(m, wide)?;
        (p.lhs_offset, p.rhs_offset, p.output_offset) = (-zl, -zr, zo);
        (p.lo, p.hi) = quant::type_range(out.dtype)?;
    }
    // One row of accumulators (at most 8 bytes each).
    ctx.request_scratch(d.n.checked_mul(8).ok_or(check::DIM_OVER_U32)?);
    ctx.set_params(&p);
    Ok(())
}

/// Each output matrix of `lhs x rhs` over the broadcast batches: `emit(batch, row, acc)`
/// gets the accumulators of output row `row` of output matrix `batch`. `mac(acc, l, r)` adds
/// one product; every accumulator starts at `zero` and sums `k = 0, 1, ...` in order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul<L: Copy, R: Copy, A: Copy>(
    d: &Dims,
    lhs: &[L],
    rhs: &[R],
    adj_x: bool,
    adj_y: bool,
    acc: &mut [A],
    zero: A,
    mac: impl Fn(A, L, R) -> A,
    mut emit: impl FnMut(usize, usize, &[A]) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let (m, k, n) = (d.m, d.k, d.n);
    let lhs_size = m.checked_mul(k).ok_or(SHORT)?;
    let rhs_size = k.checked_mul(n).ok_or(SHORT)?;
    let acc = acc.get_mut(..n).ok_or(SHORT)?;
    let plan = Broadcast::new(&d.out_batch, [&d.lhs_batch, &d.rhs_batch])?;
    let row = plan.row();
    let [sl, sr] = plan.row_strides();
    plan.rows(|[bl, br], at| {
        for t in 0..row {
            let lb = bl.checked_add(t * sl).and_then(|b| b.checked_mul(lhs_size));
            let rb = br.checked_add(t * sr).and_then(|b| b.checked_mul(rhs_size));
            let (lb, rb) = (lb.ok_or(SHORT)?, rb.ok_or(SHORT)?);
            let a = lhs.get(lb..lb.checked_add(lhs_size).ok_or(SHORT)?).ok_or(SHORT)?;
            let b = rhs.get(rb..rb.checked_add(rhs_size).ok_or(SHORT)?).ok_or(SHORT)?;
            for i in 0..m {
                acc.fill(zero);
                // The left-hand side's row i, element by element along the depth (a column
                // of the stored matrix when it is transposed).
                let (start, step) = if adj_x { (i, m) } else { (i * k, 1) };
                let left = || a.iter().copied().skip(start).step_by(step).take(k);
                if k == 0 || n == 0 {
                    // Nothing to sum: every accumulator stays at zero.
                } else if adj_y {
                    // rhs is [n, k]: a dot product along each of its rows.
                    for (slot, r) in acc.iter_mut().zip(b.chunks_exact(k)) {
                        *slot = left().zip(r).fold(*slot, |s, (x, &y)| mac(s, x, y));
                    }
                } else {
                    // rhs is [k, n]: each depth adds one of its rows to the accumulators.
                    for (x, r) in left().zip(b.chunks_exact(n)) {
                        for (slot, &y) in acc.iter_mut().zip(r) {
                            *slot = mac(*slot, x, y);
                        }
                    }
                }
                emit(at + t, i, acc)?;
            }
        }
        Ok(())
    })
}

/// The operands' shapes and the matrices at invoke.
fn eval_dims(ctx: &Eval<'_>, p: &Params) -> Result<Dims, KernelError> {
    let (d, _) = dims(
        &ctx.input_shape(0)?,
        &ctx.input_shape(1)?,
        p.adj_x != 0,
        p.adj_y != 0,
    )?;
    Ok(d)
}

/// Runs the matmul of typed operands, each output row written by `store(row_slice, acc)`.
fn run<L, R, A, O>(
    ctx: &mut Eval<'_>,
    p: &Params,
    zero: A,
    mac: impl Fn(A, L, R) -> A,
    store: impl Fn(A) -> O,
) -> Result<(), KernelError>
where
    L: tessera_core::tensor::Element,
    R: tessera_core::tensor::Element,
    A: Copy + FromBytes + IntoBytes + KnownLayout,
    O: tessera_core::tensor::Element,
{
    let d = eval_dims(ctx, p)?;
    let so = ctx.output_shape(0)?;
    let total = so.elements();
    if total == 0 {
        return Ok(());
    }
    // Empty operands (a depth of 0) have no typed view: their sums are 0.
    let lhs = if d.m * d.k == 0 { &[][..] } else { ctx.input::<L>(0)? };
    let rhs = if d.k * d.n == 0 { &[][..] } else { ctx.input::<R>(1)? };
    let out = ctx.output::<O>(0)?.get_mut(..total).ok_or(SHORT)?;
    let scratch = ctx.scratch();
    let acc = words_mut::<A>(scratch)?;
    let (m, n) = (d.m, d.n);
    matmul(&d, lhs, rhs, p.adj_x != 0, p.adj_y != 0, acc, zero, mac, |batch, i, row| {
        let at = batch
            .checked_mul(m)
            .and_then(|b| b.checked_add(i))
            .and_then(|r| r.checked_mul(n))
            .ok_or(SHORT)?;
        let o = out.get_mut(at..at + n).ok_or(SHORT)?;
        for (o, &a) in o.iter_mut().zip(row) {
            *o = store(a);
        }
        Ok(())
    })
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (lo, hi, zo) = (p.lo, p.hi, p.output_offset);
    let (ol, or) = (p.lhs_offset, p.rhs_offset);
    let (qm, qs) = (p.multiplier, p.shift);
    match p.kind {
        FLOAT => run::<f32, f32, f32, f32>(ctx, &p, 0.0, |a, x, y| a + x * y, |a| a),
        INT8 => run::<i8, i8, i32, i8>(
            ctx,
            &p,
            0,
            |a, x, y| {
                let x = i32::from(x).wrapping_add(ol);
                let y = i32::from(y).wrapping_add(or);
                a.wrapping_add(y.wrapping_mul(x))
            },
            |a| mbqm(a, qm, qs).wrapping_add(zo).max(lo).min(hi) as i8,
        ),
        INT8_INT32 => run::<i8, i8, i32, i32>(
            ctx,
            &p,
            0,
            |a, x, y| a.wrapping_add(i32::from(x) * i32::from(y)),
            |a| a,
        ),
        INT16 => run::<i16, i16, i64, i16>(
            ctx,
            &p,
            0,
            |a, x, y| a.wrapping_add(i64::from(x) * i64::from(y)),
            |a| mbqm64(a, qm, qs).wrapping_add(zo).max(lo).min(hi) as i16,
        ),
        INT16_INT8 => run::<i16, i8, i64, i16>(
            ctx,
            &p,
            0,
            |a, x, y| a.wrapping_add(i64::from(x) * i64::from(y)),
            |a| mbqm64(a, qm, qs).wrapping_add(zo).max(lo).min(hi) as i16,
        ),
        _ => Err(check::TYPE),
    }
}
