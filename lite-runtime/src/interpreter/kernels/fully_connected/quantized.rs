//! FULLY_CONNECTED on quantized tensors: int8 activations (int32 bias), 16x8 (int16
//! activations, int8 weights, int64 or int32 bias) and uint8 (uint8 weights with a zero
//! point, int32 bias), weights per tensor or per output channel, as LiteRT's reference
//! kernel (`reference_integer_ops::FullyConnected` / `FullyConnectedPerChannel`, and
//! `reference_ops::FullyConnected` for uint8, the overloads taking the scales) computes them:
//!
//! `acc = bias[n] + sum_k (w[n, k] + w_offset) * (x[b, k] + x_offset)` in the bias's integer
//! type, then `round(acc * (input_scale * filter_scale[n] / output_scale))` in double, plus
//! the output zero point, clamped to the fused activation's range. (The reference kernel
//! requantizes in floating point since 2025; the fixed-point `MultiplyByQuantizedMultiplier`
//! is what the optimized kernels do, and it rounds differently on ties.)
//!
//! The sum is split so the inner loop is a plain `i8 x i8` (or `i16 x i8`, `u8 x u8`) dot
//! product: `sum w x + x_offset * sum w + w_offset * sum x + depth * w_offset * x_offset`.
//! With constant weights and bias everything but `sum w x` and `w_offset * sum x` is folded
//! into a per-unit constant at `init`; the integers are the same (two's-complement sums are
//! associative), so the result is bit for bit the reference's.
//!
//! Sparse int8 weights are read in their stored form, never densified, with the arithmetic of
//! what LiteRT runs for them:
//! - weights stored sparse in the operand itself: LiteRT's `FullyConnectedSparseWeight1x16`
//!   (which its reference resolver runs too): symmetric weights, `sum w (x + x_offset) +
//!   bias` over the stored values, requantized in fixed point (`MultiplyByQuantizedMultiplier`,
//!   the per-tensor multiplier from `input_scale * filter_scale` in float). LiteRT takes only
//!   1x16 blocks there; any stored order gives the same integers, so every format the sparse
//!   float path reads is read;
//! - weights from a DENSIFY the interpreter folds away: LiteRT densifies, then runs the dense
//!   kernel above, so this is the dense arithmetic with `sum w x` taken over the stored
//!   values (the zeros add nothing to an integer sum).
//!
//! LiteRT has no sparse 16x8 or uint8 FULLY_CONNECTED.

use super::super::base::check;
use super::super::base::quant;
use super::super::base::threads::{self, Threads};
use super::sparse_weights::{self, Plan, RowIndex};
use crate::interpreter::{Desc, Eval, Init, KernelError, Prepare};
use crate::model::{FullyConnectedOptions, TensorType};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

/// What eval needs, besides the per-unit table in the persistent block.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    batches: u32,
    depth: u32,
    units: u32,
    /// [`flag`] bits.
    flags: u32,
    input_offset: i32,
    weights_offset: i32,
    output_offset: i32,
    lo: i32,
    hi: i32,
    /// The sparse weights' tensor index plus one; 0: dense weights.
    sparse: u32,
    /// The sparse weights' row index layout (after the per-unit table).
    plan: Plan,
    /// The input's and output's scales ([`flag::NARROW`] computes each unit's scale from
    /// them).
    in_scale: f32,
    out_scale: f32,
}

/// Bits of [`Params::flags`].
mod flag {
    /// int16 activations (16x8).
    pub const WIDE: u32 = 1;
    /// The accumulator is int32 (int8 and uint8 activations, or a 16x8 int32 bias): it wraps
    /// there.
    pub const ACC32: u32 = 2;
    /// The per-unit constants were folded at init (constant weights and bias).
    pub const FOLDED: u32 = 4;
    /// A bias input is present.
    pub const BIAS: u32 = 8;
    /// uint8 activations and weights.
    pub const UINT8: u32 = 16;
    /// Sparse weights stored in the operand itself (LiteRT's fixed-point sparse kernel);
    /// without it, sparse weights come from a folded DENSIFY (the dense arithmetic).
    pub const DIRECT: u32 = 32;
    /// Dense weights, int32 accumulator, folded constants: the per-unit table holds
    /// [`Narrow`](super::Narrow) rows (8 bytes a unit, as TensorFlow Lite Micro's per-channel
    /// multiplier and shift) instead of [`Unit`](super::Unit) rows (16).
    pub const NARROW: u32 = 64;
    /// With [`NARROW`]: the weights have one scale, kept once before the units' folded
    /// constants (4 bytes a unit).
    pub const ONE_SCALE: u32 = 128;
}

impl Params {
    fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }
}

/// One unit's row of the persistent table: its effective scale and folded constant.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Unit {
    scale: f64,
    folded: i64,
}

/// One unit's row for sparse weights: fixed-point multiplier and shift, and `bias +
/// x_offset * sum of its stored weights` (the bias only when constant).
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct SparseUnit {
    multiplier: i32,
    shift: i32,
    folded: i32,
    _reserved: i32,
}

/// One unit's row for dense weights with an int32 accumulator: its weights' scale (the
/// unit's scale, `input_scale * w_scale / output_scale` in double, is worked out at eval, as
/// init would) and its folded constant wrapped to 32 bits (the accumulator wraps there, so
/// the sums agree modulo 2^32, which is all the reference keeps).
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Narrow {
    w_scale: f32,
    folded: i32,
}

const UNIT: usize = core::mem::size_of::<Unit>();
const NARROW: usize = core::mem::size_of::<Narrow>();
/// [`flag::ONE_SCALE`]'s head: the weights' scale (f32), padded to 8 bytes.
const ONE_SCALE_HEAD: usize = 8;

/// Bytes of the dense per-unit table `p` keeps.
fn dense_table_bytes(p: &Params) -> usize {
    let units = p.units as usize;
    if p.has(flag::ONE_SCALE) {
        ONE_SCALE_HEAD + 4 * units
    } else if p.has(flag::NARROW) {
        NARROW * units
    } else {
        UNIT * units
    }
}
const _: () = assert!(core::mem::size_of::<SparseUnit>() == UNIT);

/// Whether `ctx` is a quantized FULLY_CONNECTED (its input int8, int16 or uint8).
pub(super) fn is_quantized(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16 | TensorType::Uint8)
}

fn u32_of(v: usize) -> Result<u32, KernelError> {
    u32::try_from(v).map_err(|_| KernelError::Unsupported {
        what: "dimension over u32",
    })
}

const NO_SCALES: KernelError = KernelError::Mismatch {
    what: "quantized weights without scales",
};

/// Checks the operator; `FULL` false (the int8-only registration) refuses sparse weights,
/// and recognises no uint8 or 16x8 form, so none of their set-up is linked there.
pub(super) fn prepare<const FULL: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: FullyConnectedOptions = ctx.options()?;
    if o.weights_format != 0 {
        return Err(KernelError::Unsupported {
            what: "shuffled weights",
        });
    }
    let input = ctx.input(0)?;
    let sparse = ctx.sparse_source(1);
    if !FULL && sparse.is_some() {
        return Err(KernelError::Unsupported {
            what: "sparse weights (the _INT8 registration reads dense ones only)",
        });
    }
    let weights = match &sparse {
        Some(s) => *s,
        None => ctx.input(1)?,
    };
    let bias = ctx.optional_input(2);
    let output = ctx.output(0)?;
    let wide = FULL && input.dtype == TensorType::Int16;
    let unsigned = FULL && input.dtype == TensorType::Uint8;
    let weights_type = if unsigned {
        TensorType::Uint8
    } else {
        TensorType::Int8
    };
    if output.dtype != input.dtype || weights.dtype != weights_type {
        return Err(KernelError::Unsupported {
            what: "quantized FULLY_CONNECTED other than int8 or int16 activations with int8 weights, or uint8 throughout",
        });
    }
    // The operand itself stored sparse (rather than a DENSIFY's output).
    let direct = FULL && sparse.is_some() && ctx.input(1)?.constant().is_some();
    // LiteRT reads no sparse 16x8 weights, and densifies no uint8 ones; a DENSIFY in front
    // of a 16x8 operator runs its dense kernel, which the densified path follows.
    if sparse.is_some() && (unsigned || (wide && direct)) {
        return Err(KernelError::Unsupported {
            what: "sparse FULLY_CONNECTED weights stored in a 16x8 operator, or with uint8 activations",
        });
    }
    let acc32 = match (&bias, wide) {
        (None, false) | (Some(_), false) => {
            if let Some(b) = &bias {
                if b.dtype != TensorType::Int32 {
                    return Err(KernelError::Mismatch {
                        what: "int8 / uint8 FULLY_CONNECTED bias is not INT32",
                    });
                }
            }
            true
        }
        (Some(b), true) => match b.dtype {
            TensorType::Int64 => false,
            TensorType::Int32 => true,
            _ => {
                return Err(KernelError::Mismatch {
                    what: "16x8 FULLY_CONNECTED bias neither INT64 nor INT32",
                });
            }
        },
        // Without a bias the reference accumulates in int64 (no quantized_bias_type read).
        (None, true) => false,
    };
    let (batches, units, depth) = super::matrix(&input, &weights, &output)?;
    if let Some(s) = &sparse {
        if let Ok(dense) = ctx.input(1) {
            if dense.shape.dims() != s.shape.dims() {
                return Err(KernelError::Mismatch {
                    what: "densified weights' shape differs from the sparse constant's",
                });
            }
        }
    }
    if let Some(b) = &bias {
        if b.shape.elements() != units {
            return Err(KernelError::Mismatch {
                what: "bias is not one value per unit",
            });
        }
    }
    let (_, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if wide && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "16x8 FULLY_CONNECTED with a non-zero zero point",
        });
    }
    let wq = weights.quantization().ok_or(NO_SCALES)?;
    let per_channel = wq.scale().len() > 1;
    let weights_offset = if per_channel {
        if unsigned || wq.quantized_dimension() != 0 || wq.scale().len() != units {
            return Err(KernelError::Mismatch {
                what: "per-channel weight scales not one per unit along dimension 0 (int8 / int16 only)",
            });
        }
        0
    } else {
        let (_, zp) = quant::per_tensor(Some(wq), weights_type)?;
        -zp
    };
    // Scales are checked positive and finite here so that init cannot fail on them.
    for i in 0..wq.scale().len() {
        let s = wq.scale().get(i).unwrap_or(f32::NAN);
        if !(s.is_finite() && s >= 0.0) {
            return Err(KernelError::Mismatch {
                what: "weight scale negative or not finite",
            });
        }
    }
    let (lo, hi) = quant::activation_range(o.activation, output.dtype, out_scale, out_zp)?;
    let folded =
        weights.constant().is_some() && bias.as_ref().is_none_or(|b| b.constant().is_some());
    let table = units.checked_mul(UNIT).ok_or(KernelError::Unsupported {
        what: "per-unit table over the address space",
    })?;
    let mut plan = Plan::new_zeroed();
    let mut source = 0;
    if let Some(s) = sparse.as_ref().filter(|_| FULL) {
        if direct && weights_offset != 0 {
            return Err(KernelError::Unsupported {
                what: "sparse FULLY_CONNECTED weights with a zero point (LiteRT takes symmetric ones only)",
            });
        }
        let (format, values) = super::sparse_format(ctx, 1)?;
        plan = Plan::new(&format, units, depth, values)?;
        let index = plan.bytes(units).ok_or(KernelError::Unsupported {
            what: "sparse weights' index over the address space",
        })?;
        source = u32_of(s.index)?.checked_add(1).ok_or(check::DIM_OVER_U32)?;
        ctx.request_persistent(table.checked_add(index).ok_or(check::DIM_OVER_U32)?);
        if direct {
            // The multipliers now, so a bad scale fails at setup.
            sparse_multipliers(&input, &weights, bias.as_ref(), &output, |_, _, _| {}, units)?;
        }
    } else if folded && acc32 {
        let bytes = if per_channel {
            units.checked_mul(NARROW)
        } else {
            units.checked_mul(4).and_then(|b| b.checked_add(ONE_SCALE_HEAD))
        };
        ctx.request_persistent(bytes.ok_or(check::DIM_OVER_U32)?);
    } else {
        ctx.request_persistent(table);
    }
    let narrow = sparse.is_none() && folded && acc32;
    let (in_scale, _) = quant::per_tensor(input.quantization(), input.dtype)?;
    let flags = [
        (wide, flag::WIDE),
        (acc32, flag::ACC32),
        (folded, flag::FOLDED),
        (bias.is_some(), flag::BIAS),
        (unsigned, flag::UINT8),
        (direct, flag::DIRECT),
        (narrow, flag::NARROW),
        (narrow && !per_channel, flag::ONE_SCALE),
    ]
    .iter()
    .fold(0, |a, &(on, f)| if on { a | f } else { a });
    ctx.set_params(&Params {
        batches: u32_of(batches)?,
        depth: u32_of(depth)?,
        units: u32_of(units)?,
        flags,
        input_offset: -in_zp,
        weights_offset,
        output_offset: out_zp,
        lo,
        hi,
        sparse: source,
        plan,
        in_scale,
        out_scale,
    });
    Ok(())
}

/// The fixed-point multipliers of sparse int8 weights, `f(unit, multiplier, shift)`: per
/// channel from the scales in double, per tensor from `input_scale * filter_scale` in float
/// (`GetQuantizedConvolutionMultipler`, with its check of the bias scale).
fn sparse_multipliers(
    input: &Desc<'_>,
    weights: &Desc<'_>,
    bias: Option<&Desc<'_>>,
    output: &Desc<'_>,
    mut f: impl FnMut(usize, i32, i32),
    units: usize,
) -> Result<(), KernelError> {
    let (in_scale, _) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, _) = quant::per_tensor(output.quantization(), output.dtype)?;
    let wq = weights.quantization().ok_or(NO_SCALES)?;
    if wq.is_per_channel() {
        return quant::channel_multipliers(in_scale, &wq, out_scale, false, f, units);
    }
    let w_scale = wq.scale().get(0).ok_or(NO_SCALES)?;
    let bias_scale = bias.map(|b| {
        b.quantization()
            .and_then(|q| q.scale().get(0))
            .unwrap_or(0.0)
    });
    let (m, s) = quant::legacy_conv_multiplier(in_scale, w_scale, bias_scale, out_scale)?;
    (0..units).for_each(|n| f(n, m, s));
    Ok(())
}

/// The bias of unit `n` from its little-endian bytes (int32 or int64).
fn bias_at(bytes: &[u8], n: usize, wide_bias: bool) -> Option<i64> {
    if wide_bias {
        let b = bytes.get(n * 8..n * 8 + 8)?;
        Some(i64::from_le_bytes(b.try_into().ok()?))
    } else {
        let b = bytes.get(n * 4..n * 4 + 4)?;
        Some(i64::from(i32::from_le_bytes(b.try_into().ok()?)))
    }
}

/// `x_offset * sum w + depth * w_offset * x_offset`: the part of the sum that does not depend
/// on the input, for one unit's weights.
fn weights_term<W: Copy + Into<i64>>(w: &[W], input_offset: i32, weights_offset: i32) -> i64 {
    let sum: i64 = w.iter().map(|&v| v.into()).sum();
    let depth = w.len() as i64;
    i64::from(input_offset) * sum + depth * i64::from(weights_offset) * i64::from(input_offset)
}

const SHORT_CONSTANT: KernelError = KernelError::Mismatch {
    what: "constant shorter than its shape",
};

const TABLE: KernelError = KernelError::Mismatch {
    what: "persistent block not as init wrote it",
};

pub(super) fn init<const FULL: bool>(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let prep = ctx.prepared();
    let input = prep.input(0)?;
    let output = prep.output(0)?;
    let bias = prep.optional_input(2);
    if FULL && p.sparse != 0 && p.has(flag::DIRECT) {
        return init_sparse(ctx, &p, input, output, bias);
    }
    if FULL && p.sparse != 0 {
        return init_densified(ctx, &p, input, output, bias);
    }
    let weights = prep.input(1)?;
    let (in_scale, _) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, _) = quant::per_tensor(output.quantization(), output.dtype)?;
    let wq = weights.quantization().ok_or(NO_SCALES)?;
    let scales = wq.scale();
    let (units, depth) = (p.units as usize, p.depth as usize);
    let wbytes = weights.constant();
    let bbytes = bias.as_ref().and_then(|b| b.constant());
    let wide_bias = bias.as_ref().is_some_and(|b| b.dtype == TensorType::Int64);
    if p.has(flag::NARROW) {
        return init_narrow(ctx.persistent(), &p, scales, wbytes, bbytes);
    }
    let table = <[Unit]>::mut_from_bytes(ctx.persistent().get_mut(..units * UNIT).ok_or(
        KernelError::Mismatch {
            what: "persistent block smaller than asked",
        },
    )?)
    .map_err(|_| KernelError::Mismatch {
        what: "persistent block misaligned",
    })?;
    for (n, u) in table.iter_mut().enumerate() {
        let s = scales
            .get(if scales.len() == 1 { 0 } else { n })
            .unwrap_or(0.0);
        // As the reference: each factor widened to double, multiplied, then divided.
        u.scale = f64::from(in_scale) * f64::from(s) / f64::from(out_scale);
        u.folded = 0;
        if p.has(flag::FOLDED) {
            let w = wbytes
                .and_then(|b| b.get(n * depth..(n + 1) * depth))
                .ok_or(SHORT_CONSTANT)?;
            let b = match bbytes {
                Some(bytes) => bias_at(bytes, n, wide_bias).ok_or(SHORT_CONSTANT)?,
                None => 0,
            };
            let term = if FULL && p.has(flag::UINT8) {
                weights_term(w, p.input_offset, p.weights_offset)
            } else {
                let w = <[i8]>::ref_from_bytes(w).map_err(|_| SHORT_CONSTANT)?;
                weights_term(w, p.input_offset, p.weights_offset)
            };
            u.folded = b + term;
        }
    }
    Ok(())
}

/// The [`Narrow`] table: each unit's weight scale and folded constant.
fn init_narrow(
    persistent: &mut [u8],
    p: &Params,
    scales: crate::model::F32s<'_>,
    wbytes: Option<&[u8]>,
    bbytes: Option<&[u8]>,
) -> Result<(), KernelError> {
    let (units, depth) = (p.units as usize, p.depth as usize);
    let small = KernelError::Mismatch {
        what: "persistent block smaller than asked",
    };
    let misaligned = KernelError::Mismatch {
        what: "persistent block misaligned",
    };
    let folded = |n: usize| -> Result<i32, KernelError> {
        let w = wbytes
            .and_then(|b| b.get(n * depth..(n + 1) * depth))
            .ok_or(SHORT_CONSTANT)?;
        let b = match bbytes {
            Some(bytes) => bias_at(bytes, n, false).ok_or(SHORT_CONSTANT)?,
            None => 0,
        };
        let term = if p.has(flag::UINT8) {
            weights_term(w, p.input_offset, p.weights_offset)
        } else {
            let w = <[i8]>::ref_from_bytes(w).map_err(|_| SHORT_CONSTANT)?;
            weights_term(w, p.input_offset, p.weights_offset)
        };
        Ok((b + term) as i32)
    };
    if p.has(flag::ONE_SCALE) {
        let (head, rest) = persistent
            .get_mut(..dense_table_bytes(p))
            .ok_or(small)?
            .split_at_mut(ONE_SCALE_HEAD);
        head[..4].copy_from_slice(&scales.get(0).unwrap_or(0.0).to_ne_bytes());
        let table = <[i32]>::mut_from_bytes(rest).map_err(|_| misaligned)?;
        for (n, c) in table.iter_mut().enumerate() {
            *c = folded(n)?;
        }
        return Ok(());
    }
    let table = <[Narrow]>::mut_from_bytes(persistent.get_mut(..units * NARROW).ok_or(small)?)
        .map_err(|_| misaligned)?;
    for (n, u) in table.iter_mut().enumerate() {
        u.w_scale = scales
            .get(if scales.len() == 1 { 0 } else { n })
            .unwrap_or(0.0);
        u.folded = folded(n)?;
    }
    Ok(())
}

/// Sparse weights behind a folded DENSIFY: the dense per-unit table (scale; bias and the
/// offsets' terms over the stored weights), then the row index.
fn init_densified(
    ctx: &mut Init<'_, '_>,
    p: &Params,
    input: Desc<'_>,
    output: Desc<'_>,
    bias: Option<Desc<'_>>,
) -> Result<(), KernelError> {
    let units = p.units as usize;
    let source = ctx
        .prepared()
        .sparse_source(1)
        .ok_or(KernelError::Mismatch {
            what: "weights are not a sparse constant",
        })?;
    let (format, _) = super::sparse_format(ctx.prepared(), 1)?;
    let values = source.constant().ok_or(SHORT_CONSTANT)?;
    let values = <[i8]>::ref_from_bytes(values).map_err(|_| SHORT_CONSTANT)?;
    let (in_scale, _) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, _) = quant::per_tensor(output.quantization(), output.dtype)?;
    let wq = source.quantization().ok_or(NO_SCALES)?;
    let scales = wq.scale();
    let bias_bytes = bias.as_ref().and_then(Desc::constant);
    let wide_bias = bias.as_ref().is_some_and(|b| b.dtype == TensorType::Int64);
    let (table, index) = ctx
        .persistent()
        .split_at_mut_checked(units * UNIT)
        .ok_or(TABLE)?;
    let table = <[Unit]>::mut_from_bytes(table).map_err(|_| TABLE)?;
    let depth = p.depth as usize;
    for (n, u) in table.iter_mut().enumerate() {
        let s = scales
            .get(if scales.len() == 1 { 0 } else { n })
            .unwrap_or(0.0);
        u.scale = f64::from(in_scale) * f64::from(s) / f64::from(out_scale);
        // depth * w_offset * x_offset, then x_offset * the stored weights below.
        u.folded = depth as i64 * i64::from(p.weights_offset) * i64::from(p.input_offset);
        if let Some(bytes) = bias_bytes {
            u.folded += bias_at(bytes, n, wide_bias).ok_or(SHORT_CONSTANT)?;
        }
    }
    let mut bad = false;
    format.walk(|leaf, flat| {
        match (table.get_mut(flat / depth.max(1)), values.get(leaf)) {
            (Some(u), Some(&w)) => u.folded += i64::from(p.input_offset) * i64::from(w),
            _ => bad = true,
        }
        Ok(())
    })?;
    if bad {
        return Err(SHORT_CONSTANT);
    }
    sparse_weights::build(&format, p.plan, units, depth, index)
}

/// Sparse weights stored in the operand: the per-unit multipliers and folded constants, then
/// the row index.
fn init_sparse(
    ctx: &mut Init<'_, '_>,
    p: &Params,
    input: Desc<'_>,
    output: Desc<'_>,
    bias: Option<Desc<'_>>,
) -> Result<(), KernelError> {
    let units = p.units as usize;
    let source = ctx
        .prepared()
        .sparse_source(1)
        .ok_or(KernelError::Mismatch {
            what: "weights are not a sparse constant",
        })?;
    let (format, _) = super::sparse_format(ctx.prepared(), 1)?;
    let values = source.constant().ok_or(SHORT_CONSTANT)?;
    let values = <[i8]>::ref_from_bytes(values).map_err(|_| SHORT_CONSTANT)?;
    let bias_bytes = bias.as_ref().and_then(Desc::constant);
    let (table, index) = ctx
        .persistent()
        .split_at_mut_checked(units * UNIT)
        .ok_or(TABLE)?;
    let table = <[SparseUnit]>::mut_from_bytes(table).map_err(|_| TABLE)?;
    for u in table.iter_mut() {
        *u = SparseUnit::new_zeroed();
    }
    sparse_multipliers(
        &input,
        &source,
        bias.as_ref(),
        &output,
        |n, m, s| {
            if let Some(u) = table.get_mut(n) {
                (u.multiplier, u.shift) = (m, s);
            }
        },
        units,
    )?;
    // x_offset * sum of each unit's stored weights, and its bias when constant.
    let depth = p.depth as usize;
    let mut bad = false;
    format.walk(|leaf, flat| {
        match (table.get_mut(flat / depth.max(1)), values.get(leaf)) {
            (Some(u), Some(&w)) => {
                u.folded = u
                    .folded
                    .wrapping_add(p.input_offset.wrapping_mul(i32::from(w)));
            }
            _ => bad = true,
        }
        Ok(())
    })?;
    if bad {
        return Err(SHORT_CONSTANT);
    }
    if let Some(bytes) = bias_bytes {
        for (n, u) in table.iter_mut().enumerate() {
            let b = bias_at(bytes, n, false).ok_or(SHORT_CONSTANT)? as i32;
            u.folded = u.folded.wrapping_add(b);
        }
    }
    sparse_weights::build(&format, p.plan, units, depth, index)
}

/// The requantization ([`quant::requantize_double`]), clamped.
#[inline]
fn requantize(acc: i64, acc32: bool, scale: f64, out_offset: i32, lo: i32, hi: i32) -> i32 {
    let acc = if acc32 {
        f64::from(acc as i32)
    } else {
        acc as f64
    };
    quant::requantize_double(acc, scale, out_offset).clamp(lo, hi)
}

/// `sum w x` of one unit's weights and one input row, int8 activations.
#[inline]
fn dot8(x: &[i8], w: &[i8]) -> i32 {
    // Products fit in i16 x i8 widened to i32; the sum wraps as the reference's int32 does.
    x.iter().zip(w).fold(0i32, |a, (&x, &w)| {
        a.wrapping_add(i32::from(x) * i32::from(w))
    })
}

/// `sum w x` of one unit's weights and one input row, uint8.
#[inline]
fn dot_u8(x: &[u8], w: &[u8]) -> i32 {
    x.iter().zip(w).fold(0i32, |a, (&x, &w)| {
        a.wrapping_add(i32::from(x) * i32::from(w))
    })
}

/// `sum w x` for int16 activations, in 64 bits.
#[inline]
fn dot16(x: &[i16], w: &[i8]) -> i64 {
    // Chunks of 256 keep each partial sum inside i32 (|x w| <= 2^22).
    x.chunks(256)
        .zip(w.chunks(256))
        .map(|(x, w)| {
            i64::from(
                x.iter()
                    .zip(w)
                    .fold(0i32, |a, (&x, &w)| a + i32::from(x) * i32::from(w)),
            )
        })
        .sum()
}

/// One unit's constant part when it was not folded at init (weights or bias not constant).
fn unfolded<W: Copy + Into<i64>>(
    p: &Params,
    w: &[W],
    bias: Option<&[u8]>,
    n: usize,
) -> Result<i64, KernelError> {
    let b = match bias {
        Some(bytes) => {
            let wide = p.has(flag::WIDE) && !p.has(flag::ACC32);
            let size = if wide { 8 } else { 4 };
            let raw = bytes
                .get(n * size..(n + 1) * size)
                .ok_or(KernelError::Mismatch {
                    what: "bias shorter than its shape",
                })?;
            if wide {
                i64::from_ne_bytes(raw.try_into().unwrap_or([0; 8]))
            } else {
                i64::from(i32::from_ne_bytes(raw.try_into().unwrap_or([0; 4])))
            }
        }
        None => 0,
    };
    Ok(b + weights_term(w, p.input_offset, p.weights_offset))
}

const SHORT: KernelError = KernelError::Mismatch {
    what: "tensor shorter than its shape",
};

/// The dense product for one element type: `dot` of a row and a unit's weights, then the
/// unit's constant and the requantization.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn dense<X: Copy + Into<i64> + Sync, W: Copy + Into<i64> + Sync, Y: Send>(
    threads: Threads<'_>,
    p: &Params,
    input: &[X],
    weights: &[W],
    table: &[u8],
    bias: Option<&[u8]>,
    out: &mut [Y],
    dot: impl Fn(&[X], &[W]) -> i64 + Sync,
    narrow: impl Fn(i32) -> Y + Sync,
) -> Result<(), KernelError> {
    let table = Table::of(p, table)?;
    let (batches, depth, units) = (p.batches as usize, p.depth as usize, p.units as usize);
    let input = input.get(..batches * depth).ok_or(SHORT)?;
    let out = out.get_mut(..batches * units).ok_or(SHORT)?;
    let acc32 = p.has(flag::ACC32);
    let work = out.len().saturating_mul(depth);
    threads::by_rows(threads, out, units, work, &|b, n0, ys| {
        let x = input.get(b * depth..(b + 1) * depth).ok_or(SHORT)?;
        let ws = weights.get(n0 * depth..).ok_or(SHORT)?;
        let run = Run {
            p,
            table: &table,
            bias,
            acc32,
        };
        #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
            return unsafe { dense_units_avx2(&run, x, ws, n0, ys, &dot, &narrow) };
        }
        dense_units(&run, x, ws, n0, ys, &dot, &narrow)
    })
}

/// What [`dense_units`] reads besides the values.
struct Run<'a> {
    p: &'a Params,
    table: &'a Table<'a>,
    bias: Option<&'a [u8]>,
    acc32: bool,
}

/// [`dense_units`] compiled for AVX2: the same integers, twice SSE2's lanes.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn dense_units_avx2<X: Copy + Into<i64>, W: Copy + Into<i64>, Y>(
    run: &Run<'_>,
    x: &[X],
    ws: &[W],
    n0: usize,
    ys: &mut [Y],
    dot: &impl Fn(&[X], &[W]) -> i64,
    narrow: &impl Fn(i32) -> Y,
) -> Result<(), KernelError> {
    dense_units(run, x, ws, n0, ys, dot, narrow)
}

/// Units `n0..` of one input row `x`: each unit's dot product, constant and requantization.
#[inline(always)]
fn dense_units<X: Copy + Into<i64>, W: Copy + Into<i64>, Y>(
    run: &Run<'_>,
    x: &[X],
    ws: &[W],
    n0: usize,
    ys: &mut [Y],
    dot: &impl Fn(&[X], &[W]) -> i64,
    narrow: &impl Fn(i32) -> Y,
) -> Result<(), KernelError> {
    let p = run.p;
    let depth = x.len().max(1);
    let xsum = i64::from(p.weights_offset) * x.iter().map(|&v| v.into()).sum::<i64>();
    for (n, (w, y)) in (n0..).zip(ws.chunks_exact(depth).zip(ys.iter_mut())) {
        let (scale, c) = match run.table.unit(n)? {
            (scale, Some(c)) => (scale, c),
            (scale, None) => (scale, unfolded(p, w, run.bias, n)?),
        };
        let acc = dot(x, w) + xsum + c;
        *y = narrow(requantize(acc, run.acc32, scale, p.output_offset, p.lo, p.hi));
    }
    Ok(())
}

/// The dense per-unit table in its three layouts, read through one accessor so that
/// [`dense`]'s loop is compiled once per element type (three copies cost 2.2 KB of Cortex-M4
/// flash in the keyword-spotting image).
enum Table<'a> {
    /// [`flag::ONE_SCALE`]: the units' scale and their folded constants.
    One { scale: f64, folded: &'a [i32] },
    /// [`flag::NARROW`]: the input and output scales, and each unit's weight scale and
    /// folded constant.
    Narrow { si: f64, so: f64, units: &'a [Narrow] },
    /// Each unit's scale and (with [`flag::FOLDED`]) folded constant.
    Wide { folded: bool, units: &'a [Unit] },
}

impl<'a> Table<'a> {
    fn of(p: &Params, table: &'a [u8]) -> Result<Self, KernelError> {
        // As init computes a unit's scale: each factor widened to double.
        let (si, so) = (f64::from(p.in_scale), f64::from(p.out_scale));
        Ok(if p.has(flag::ONE_SCALE) {
            let (head, rest) = table.split_at_checked(ONE_SCALE_HEAD).ok_or(TABLE)?;
            let w_scale = f32::from_ne_bytes(head[..4].try_into().map_err(|_| TABLE)?);
            Self::One {
                scale: si * f64::from(w_scale) / so,
                folded: <[i32]>::ref_from_bytes(rest).map_err(|_| TABLE)?,
            }
        } else if p.has(flag::NARROW) {
            Self::Narrow {
                si,
                so,
                units: <[Narrow]>::ref_from_bytes(table).map_err(|_| TABLE)?,
            }
        } else {
            Self::Wide {
                folded: p.has(flag::FOLDED),
                units: <[Unit]>::ref_from_bytes(table).map_err(|_| TABLE)?,
            }
        })
    }

    /// Unit `n`'s scale, and its folded constant unless it must be worked out.
    #[inline]
    fn unit(&self, n: usize) -> Result<(f64, Option<i64>), KernelError> {
        Ok(match self {
            Self::One { scale, folded } => (*scale, Some(i64::from(*folded.get(n).ok_or(TABLE)?))),
            Self::Narrow { si, so, units } => {
                let u = units.get(n).ok_or(TABLE)?;
                (si * f64::from(u.w_scale) / so, Some(i64::from(u.folded)))
            }
            Self::Wide { folded, units } => {
                let u = units.get(n).ok_or(TABLE)?;
                (u.scale, folded.then_some(u.folded))
            }
        })
    }
}

/// Sparse weights behind a folded DENSIFY: the dense arithmetic, `sum w x` over the stored
/// weights (int8 activations, or 16x8).
fn eval_densified(
    ctx: &mut Eval<'_>,
    p: &Params,
    values: &[i8],
    table: &[u8],
    index: &RowIndex<'_>,
) -> Result<(), KernelError> {
    let (batches, depth, units) = (p.batches as usize, p.depth as usize, p.units as usize);
    let table = <[Unit]>::ref_from_bytes(table).map_err(|_| TABLE)?;
    let bias = if !p.has(flag::FOLDED) && p.has(flag::BIAS) {
        Some(ctx.input_bytes(2)?)
    } else {
        None
    };
    if depth == 0 {
        return Err(SHORT);
    }
    let acc32 = p.has(flag::ACC32);
    // One unit's constant: folded at init, plus the bias when it is not a constant.
    let constant = |n: usize, u: &Unit| -> Result<i64, KernelError> {
        let b = match bias {
            None => 0,
            Some(bytes) => {
                let wide = p.has(flag::WIDE) && !acc32;
                let size = if wide { 8 } else { 4 };
                let raw = bytes.get(n * size..(n + 1) * size).ok_or(SHORT)?;
                if wide {
                    i64::from_ne_bytes(raw.try_into().unwrap_or([0; 8]))
                } else {
                    i64::from(i32::from_ne_bytes(raw.try_into().unwrap_or([0; 4])))
                }
            }
        };
        Ok(u.folded + b)
    };
    if p.has(flag::WIDE) {
        let input = ctx.input::<i16>(0)?.get(..batches * depth).ok_or(SHORT)?;
        let out = ctx.output::<i16>(0)?.get_mut(..batches * units).ok_or(SHORT)?;
        for (x, y) in input.chunks_exact(depth).zip(out.chunks_exact_mut(units)) {
            sparse_weights::unit_dots(index, values, x, units, 0i64, |n, dot| {
                let u = table.get(n).ok_or(TABLE)?;
                let acc = dot + constant(n, u)?;
                *y.get_mut(n).ok_or(SHORT)? =
                    requantize(acc, acc32, u.scale, p.output_offset, p.lo, p.hi) as i16;
                Ok(())
            })?;
        }
        return Ok(());
    }
    let input = ctx.input::<i8>(0)?.get(..batches * depth).ok_or(SHORT)?;
    let out = ctx.output::<i8>(0)?.get_mut(..batches * units).ok_or(SHORT)?;
    for (x, y) in input.chunks_exact(depth).zip(out.chunks_exact_mut(units)) {
        let xsum = i64::from(p.weights_offset) * x.iter().map(|&v| i64::from(v)).sum::<i64>();
        sparse_weights::unit_dots(index, values, x, units, 0i32, |n, dot| {
            let u = table.get(n).ok_or(TABLE)?;
            let acc = i64::from(dot) + xsum + constant(n, u)?;
            *y.get_mut(n).ok_or(SHORT)? =
                requantize(acc, true, u.scale, p.output_offset, p.lo, p.hi) as i8;
            Ok(())
        })?;
    }
    Ok(())
}

/// Runs the int8 dense body (`FULL` false) or every body (`FULL` true: a 16x8, uint8 or
/// sparse operator reaches this only through `prepare`, so an int8-only registration links
/// none of those bodies).
pub(super) fn eval<const FULL: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    if !FULL && (p.has(flag::WIDE) || p.has(flag::UINT8) || p.sparse != 0) {
        return Err(check::NOT_INT8);
    }
    if FULL && p.sparse != 0 {
        return eval_sparse(ctx, &p);
    }
    let (depth, units) = (p.depth as usize, p.units as usize);
    let threads = threads::threads(ctx);
    let table = ctx.persistent().get(..dense_table_bytes(&p)).ok_or(TABLE)?;
    let bias = if !p.has(flag::FOLDED) && p.has(flag::BIAS) {
        Some(ctx.input_bytes(2)?)
    } else {
        None
    };
    if FULL && p.has(flag::UINT8) {
        let weights = ctx.input::<u8>(1)?.get(..units * depth).ok_or(SHORT)?;
        let input = ctx.input::<u8>(0)?;
        let out = ctx.output::<u8>(0)?;
        let dot = |x: &[u8], w: &[u8]| i64::from(dot_u8(x, w));
        return dense(threads, &p, input, weights, table, bias, out, dot, |v| v as u8);
    }
    let weights = ctx.input::<i8>(1)?.get(..units * depth).ok_or(SHORT)?;
    if !p.has(flag::WIDE) {
        let input = ctx.input::<i8>(0)?;
        let out = ctx.output::<i8>(0)?;
        let dot = |x: &[i8], w: &[i8]| i64::from(dot8(x, w));
        dense(threads, &p, input, weights, table, bias, out, dot, |v| v as i8)
    } else {
        let input = ctx.input::<i16>(0)?;
        let out = ctx.output::<i16>(0)?;
        dense(threads, &p, input, weights, table, bias, out, dot16, |v| v as i16)
    }
}

/// Sparse int8 weights: `sum w x` over the stored values, plus the unit's constant (and its
/// bias if not constant), requantized in fixed point.
fn eval_sparse(ctx: &mut Eval<'_>, p: &Params) -> Result<(), KernelError> {
    let (batches, depth, units) = (p.batches as usize, p.depth as usize, p.units as usize);
    let values = ctx.constant(p.sparse as usize - 1)?;
    let values = <[i8]>::ref_from_bytes(values).map_err(|_| TABLE)?;
    let (table, index) = ctx
        .persistent()
        .split_at_checked(units * UNIT)
        .ok_or(TABLE)?;
    let index = RowIndex::view(p.plan, units, index)?;
    if !p.has(flag::DIRECT) {
        return eval_densified(ctx, p, values, table, &index);
    }
    let table = <[SparseUnit]>::ref_from_bytes(table).map_err(|_| TABLE)?;
    let bias = if !p.has(flag::FOLDED) && p.has(flag::BIAS) {
        Some(ctx.input::<i32>(2)?.get(..units).ok_or(SHORT)?)
    } else {
        None
    };
    let input = ctx.input::<i8>(0)?.get(..batches * depth).ok_or(SHORT)?;
    let out = ctx.output::<i8>(0)?.get_mut(..batches * units).ok_or(SHORT)?;
    if depth == 0 {
        return Err(SHORT);
    }
    for (x, y) in input.chunks_exact(depth).zip(out.chunks_exact_mut(units)) {
        sparse_weights::unit_dots(&index, values, x, units, 0i32, |n, acc| {
            let u = table.get(n).ok_or(TABLE)?;
            let b = bias.and_then(|b| b.get(n)).copied().unwrap_or(0);
            let acc = acc.wrapping_add(u.folded).wrapping_add(b);
            let v = quant::multiply_by_quantized_multiplier(acc, u.multiplier, u.shift)
                .wrapping_add(p.output_offset)
                .clamp(p.lo, p.hi);
            *y.get_mut(n).ok_or(SHORT)? = v as i8;
            Ok(())
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
