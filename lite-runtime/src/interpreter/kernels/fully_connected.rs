//! FULLY_CONNECTED, float32 (int8 and 16x8 in [`quantized`]): `output[b, n] = act(sum_k input[b, k] * weights[n, k] + bias[n])`,
//! summed in `k` order as TensorFlow Lite's reference kernel does.
//!
//! When the weights are a sparse constant (stored sparse, or expanded by a DENSIFY the
//! interpreter folds away), the kernel reads them in their stored form through a compact row
//! index built at `init` ([`sparse_weights`]): the dense matrix never takes arena bytes.

mod quantized;
mod sparse_weights;

use self::sparse_weights::{Dims, Plan, RowIndex};
use super::base::check;
use super::base::fused::{clamp, float_range};
use super::base::math;
use super::base::sparsity::SparseFormat;
use super::base::threads;
use crate::interpreter::{Desc, Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, FullyConnectedOptions, TensorType};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

/// FULLY_CONNECTED.
pub static FULLY_CONNECTED: Kernel = Kernel {
    op: BuiltinOperator::FullyConnected,
    prepare,
    init: Some(init),
    eval,
};

/// FULLY_CONNECTED for int8 models only (as TensorFlow Lite Micro's
/// `Register_FULLY_CONNECTED_INT8`): dense int8 weights, no float32, 16x8 or sparse body
/// linked. Other types stop set-up with [`KernelError::Unsupported`].
pub static FULLY_CONNECTED_INT8: Kernel = Kernel {
    op: BuiltinOperator::FullyConnected,
    prepare: prepare_int8,
    init: Some(quantized::init::<false>),
    eval: quantized::eval::<false>,
};

fn prepare_int8(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input(0)?.dtype != TensorType::Int8 {
        return Err(check::NOT_INT8);
    }
    quantized::prepare::<false>(ctx)
}

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    batches: u32,
    depth: u32,
    units: u32,
    has_bias: u32,
    lo: f32,
    hi: f32,
    /// The sparse weights' tensor index plus one; 0: dense weights.
    sparse: u32,
    /// The sparse weights' row index layout.
    plan: Plan,
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::is_quantized(ctx.input(0)?.dtype) {
        return quantized::prepare::<true>(ctx);
    }
    let o: FullyConnectedOptions = ctx.options()?;
    if o.weights_format != 0 {
        return Err(KernelError::Unsupported {
            what: "shuffled weights",
        });
    }
    let input = ctx.input(0)?;
    let sparse = ctx.sparse_source(1);
    let weights = match sparse {
        Some(s) => s,
        None => ctx.input(1)?,
    };
    let bias = ctx.optional_input(2);
    let output = ctx.output(0)?;
    for d in [&input, &weights, &output] {
        if d.dtype != TensorType::Float32 {
            return Err(KernelError::Unsupported {
                what: "FULLY_CONNECTED of other types than FLOAT32",
            });
        }
    }
    let (batches, units, depth) = matrix(&input, &weights, &output)?;
    if let Some(b) = &bias {
        if b.dtype != TensorType::Float32 || b.shape.elements() != units {
            return Err(KernelError::Mismatch {
                what: "bias is not FLOAT32 of one value per unit",
            });
        }
    }
    let (lo, hi) = float_range(o.activation)?;
    let n = |v: usize| {
        u32::try_from(v).map_err(|_| KernelError::Unsupported {
            what: "dimension over u32",
        })
    };
    let mut plan = Plan::new_zeroed();
    let mut source = 0;
    if let Some(s) = &sparse {
        if let Ok(dense) = ctx.input(1) {
            if dense.shape.dims() != s.shape.dims() {
                return Err(KernelError::Mismatch {
                    what: "densified weights' shape differs from the sparse constant's",
                });
            }
        }
        let (format, values) = sparse_format(ctx, 1)?;
        plan = Plan::new(&format, units, depth, values)?;
        ctx.request_persistent(plan.bytes(units).ok_or(KernelError::Unsupported {
            what: "sparse weights' index over the address space",
        })?);
        source = n(s.index)?.checked_add(1).ok_or(KernelError::Unsupported {
            what: "tensor index over u32",
        })?;
    }
    ctx.set_params(&Params {
        sparse: source,
        plan,
        batches: n(batches)?,
        depth: n(depth)?,
        units: n(units)?,
        has_bias: u32::from(bias.is_some()),
        lo,
        hi,
    });
    Ok(())
}

/// The format of the sparse weights behind input `i` and how many values they store.
fn sparse_format<'m>(ctx: &Prepare<'m>, i: usize) -> Result<(SparseFormat<'m>, usize), KernelError> {
    let not_sparse = KernelError::Mismatch {
        what: "weights are not a sparse constant",
    };
    let s = ctx.sparse_source(i).ok_or(not_sparse)?;
    let sparsity = s.sparsity().ok_or(not_sparse)?;
    let width = match s.dtype.bits() {
        Some(b) if b >= 8 => b as usize / 8,
        _ => return Err(not_sparse),
    };
    let values = s.constant().ok_or(not_sparse)?.len() / width;
    Ok((
        SparseFormat::from_sparsity(s.shape.dims(), &sparsity)?,
        values,
    ))
}

fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    if quantized::is_quantized(ctx.prepared().input(0)?.dtype) {
        return quantized::init::<true>(ctx);
    }
    let p: Params = ctx.params();
    if p.sparse == 0 {
        return Ok(());
    }
    let (format, _) = sparse_format(ctx.prepared(), 1)?;
    sparse_weights::build(
        &format,
        p.plan,
        p.units as usize,
        p.depth as usize,
        ctx.persistent(),
    )
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::is_quantized(ctx.input_type(0)?) {
        return quantized::eval::<true>(ctx);
    }
    let p: Params = ctx.params();
    if p.sparse != 0 {
        return eval_sparse(ctx, &p);
    }
    let (batches, depth, units) = (p.batches as usize, p.depth as usize, p.units as usize);
    let input = ctx.input::<f32>(0)?;
    let weights = ctx.input::<f32>(1)?;
    let bias = if p.has_bias != 0 {
        Some(ctx.input::<f32>(2)?)
    } else {
        None
    };
    let out = ctx.output::<f32>(0)?;
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    let input = input.get(..batches * depth).ok_or(short)?;
    let weights = weights.get(..units * depth).ok_or(short)?;
    let out = out.get_mut(..batches * units).ok_or(short)?;
    let work = out.len().saturating_mul(depth);
    threads::by_rows(threads::threads(ctx), out, units, work, &|b, u0, ys| {
        let x = input.get(b * depth..(b + 1) * depth).ok_or(short)?;
        let ws = weights
            .get(u0 * depth..(u0 + ys.len()) * depth)
            .ok_or(short)?;
        let bias = bias.map(|b| b.get(u0..).unwrap_or_default());
        #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
            unsafe { dense_avx2(x, ws, bias, ys, (p.lo, p.hi)) };
            return Ok(());
        }
        dense(x, ws, bias, ys, (p.lo, p.hi));
        Ok(())
    })
}

/// [`dense`] compiled for AVX2: the same operations, eight lanes to a register.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn dense_avx2(
    x: &[f32],
    weights: &[f32],
    bias: Option<&[f32]>,
    ys: &mut [f32],
    range: (f32, f32),
) {
    dense(x, weights, bias, ys, range);
}

/// `ys[u] = clamp(dot(x, weights row u) + bias[u])` (`weights` one row per value of `ys`),
/// four units at a time. Eight lanes per sum, as LiteRT's optimized kernels and XNNPACK
/// reorder it.
#[inline(always)]
fn dense(x: &[f32], weights: &[f32], bias: Option<&[f32]>, ys: &mut [f32], (lo, hi): (f32, f32)) {
    let depth = x.len();
    let finish = |u: usize, acc: f32| {
        let b = bias.and_then(|b| b.get(u)).copied();
        clamp(b.map_or(acc, |b| acc + b), lo, hi)
    };
    if depth == 0 {
        for (u, y) in ys.iter_mut().enumerate() {
            *y = finish(u, 0.0);
        }
        return;
    }
    let mut quads = weights.chunks_exact(4 * depth);
    let mut outs = ys.chunks_exact_mut(4);
    let mut u = 0;
    for (w, y) in (&mut quads).zip(&mut outs) {
        let (w0, rest) = w.split_at(depth);
        let (w1, rest) = rest.split_at(depth);
        let (w2, w3) = rest.split_at(depth);
        for (y, acc) in y.iter_mut().zip(math::dot4(x, [w0, w1, w2, w3])) {
            *y = finish(u, acc);
            u += 1;
        }
    }
    for (w, y) in quads.remainder().chunks_exact(depth).zip(outs.into_remainder()) {
        *y = finish(u, math::dot(x, w));
        u += 1;
    }
}

fn eval_sparse(ctx: &mut Eval<'_>, p: &Params) -> Result<(), KernelError> {
    let units = p.units as usize;
    let values = ctx.constant(p.sparse as usize - 1)?;
    let values = <[f32]>::ref_from_bytes(values).map_err(|_| KernelError::Mismatch {
        what: "sparse weights misaligned",
    })?;
    let index = RowIndex::view(p.plan, units, ctx.persistent())?;
    let input = ctx.input::<f32>(0)?;
    let bias = if p.has_bias != 0 {
        Some(ctx.input::<f32>(2)?)
    } else {
        None
    };
    let out = ctx.output::<f32>(0)?;
    sparse_weights::matvec(
        &index,
        values,
        input,
        bias,
        out,
        Dims {
            batches: p.batches as usize,
            depth: p.depth as usize,
            units,
            lo: p.lo,
            hi: p.hi,
        },
    )
}

/// The product every FULLY_CONNECTED computes, from its operands' shapes: `(batches, units,
/// depth)` with 2-D weights `[units, depth]`, the input `batches` rows of `depth` (whatever
/// its shape) and the output `batches x units` elements.
#[inline(always)] // one copy per kernel: the _INT8 registration links only its own
fn matrix(input: &Desc<'_>, weights: &Desc<'_>, output: &Desc<'_>) -> Result<(usize, usize, usize), KernelError> {
    if weights.shape.rank() != 2 {
        return Err(KernelError::Mismatch {
            what: "weights are not 2-D",
        });
    }
    let units = weights.shape.dims()[0];
    let depth = weights.shape.dims()[1];
    let elements = input.shape.elements();
    if depth == 0 || elements % depth != 0 {
        return Err(KernelError::Mismatch {
            what: "input size is not a multiple of the weights' depth",
        });
    }
    let batches = elements / depth;
    if output.shape.elements() != batches * units {
        return Err(KernelError::Mismatch {
            what: "output is not batches x units",
        });
    }
    Ok((batches, units, depth))
}
