//! FULLY_CONNECTED on quantized tensors: int8 activations (int32 bias) and 16x8 (int16
//! activations, int8 weights, int64 or int32 bias), weights per tensor or per output channel,
//! as LiteRT's reference kernel (`reference_integer_ops::FullyConnected` /
//! `FullyConnectedPerChannel`, the overloads taking the scales) computes them:
//!
//! `acc = bias[n] + sum_k (w[n, k] + w_offset) * (x[b, k] + x_offset)` in the bias's integer
//! type, then `round(acc * (input_scale * filter_scale[n] / output_scale))` in double, plus
//! the output zero point, clamped to the fused activation's range. (The reference kernel
//! requantizes in floating point since 2025; the fixed-point `MultiplyByQuantizedMultiplier`
//! is what the optimized kernels do, and it rounds differently on ties.)
//!
//! The sum is split so the inner loop is a plain `i8 x i8` (or `i16 x i8`) dot product:
//! `sum w x + x_offset * sum w + w_offset * sum x + depth * w_offset * x_offset`. With
//! constant weights and bias everything but `sum w x` and `w_offset * sum x` is folded into a
//! per-unit constant at `init`; the integers are the same (two's-complement sums are
//! associative), so the result is bit for bit the reference's.

use super::super::base::check;
use super::super::base::quant;
use crate::interpreter::{Eval, Init, KernelError, Prepare};
use crate::model::{FullyConnectedOptions, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// What eval needs, besides the per-unit table in the persistent block.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    batches: u32,
    depth: u32,
    units: u32,
    /// 1: int16 activations (16x8); 0: int8.
    wide: u32,
    /// 1: the accumulator is int32 (int8 activations, or a 16x8 int32 bias): wraps there.
    acc32: u32,
    /// 1: the per-unit constants were folded at init (constant weights and bias).
    folded: u32,
    /// 1: a bias input is present.
    has_bias: u32,
    input_offset: i32,
    weights_offset: i32,
    output_offset: i32,
    lo: i32,
    hi: i32,
}

/// One unit's row of the persistent table: its effective scale and folded constant.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Unit {
    scale: f64,
    folded: i64,
}

const UNIT: usize = core::mem::size_of::<Unit>();

/// Whether `ctx` is a quantized FULLY_CONNECTED (its input int8 or int16).
pub(super) fn is_quantized(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16)
}

fn u32_of(v: usize) -> Result<u32, KernelError> {
    u32::try_from(v).map_err(|_| KernelError::Unsupported {
        what: "dimension over u32",
    })
}

pub(super) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: FullyConnectedOptions = ctx.options()?;
    if o.weights_format != 0 {
        return Err(KernelError::Unsupported {
            what: "shuffled weights",
        });
    }
    if ctx.sparse_source(1).is_some() {
        return Err(KernelError::Unsupported {
            what: "sparse quantized FULLY_CONNECTED weights",
        });
    }
    let input = ctx.input(0)?;
    let weights = ctx.input(1)?;
    let bias = ctx.optional_input(2);
    let output = ctx.output(0)?;
    let wide = input.dtype == TensorType::Int16;
    if output.dtype != input.dtype || weights.dtype != TensorType::Int8 {
        return Err(KernelError::Unsupported {
            what: "quantized FULLY_CONNECTED other than int8 or int16 activations with int8 weights",
        });
    }
    let acc32 = match (&bias, wide) {
        (None, false) | (Some(_), false) => {
            if let Some(b) = &bias {
                if b.dtype != TensorType::Int32 {
                    return Err(KernelError::Mismatch {
                        what: "int8 FULLY_CONNECTED bias is not INT32",
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
    if let Some(b) = &bias {
        if b.shape.elements() != units {
            return Err(KernelError::Mismatch {
                what: "bias is not one value per unit",
            });
        }
    }
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if wide && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "16x8 FULLY_CONNECTED with a non-zero zero point",
        });
    }
    let wq = weights.quantization().ok_or(KernelError::Mismatch {
        what: "quantized weights without scales",
    })?;
    let per_channel = wq.scale().len() > 1;
    let weights_offset = if per_channel {
        if wq.quantized_dimension() != 0 || wq.scale().len() != units {
            return Err(KernelError::Mismatch {
                what: "per-channel weight scales not one per unit along dimension 0",
            });
        }
        0
    } else {
        let (_, zp) = quant::per_tensor(Some(wq), TensorType::Int8)?;
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
    let _ = in_scale;
    let (lo, hi) = quant::activation_range(o.activation, output.dtype, out_scale, out_zp)?;
    let folded =
        weights.constant().is_some() && bias.as_ref().is_none_or(|b| b.constant().is_some());
    ctx.request_persistent(units.checked_mul(UNIT).ok_or(KernelError::Unsupported {
        what: "per-unit table over the address space",
    })?);
    ctx.set_params(&Params {
        batches: u32_of(batches)?,
        depth: u32_of(depth)?,
        units: u32_of(units)?,
        wide: u32::from(wide),
        acc32: u32::from(acc32),
        folded: u32::from(folded),
        has_bias: u32::from(bias.is_some()),
        input_offset: -in_zp,
        weights_offset,
        output_offset: out_zp,
        lo,
        hi,
    });
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
fn weights_term(w: &[i8], input_offset: i32, weights_offset: i32) -> i64 {
    let sum: i64 = w.iter().map(|&v| i64::from(v)).sum();
    let depth = w.len() as i64;
    i64::from(input_offset) * sum + depth * i64::from(weights_offset) * i64::from(input_offset)
}

pub(super) fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let prep = ctx.prepared();
    let input = prep.input(0)?;
    let weights = prep.input(1)?;
    let output = prep.output(0)?;
    let bias = prep.optional_input(2);
    let (in_scale, _) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, _) = quant::per_tensor(output.quantization(), output.dtype)?;
    let wq = weights.quantization().ok_or(KernelError::Mismatch {
        what: "quantized weights without scales",
    })?;
    let scales = wq.scale();
    let (units, depth) = (p.units as usize, p.depth as usize);
    let wbytes = weights.constant();
    let bbytes = bias.as_ref().and_then(|b| b.constant());
    let wide_bias = bias.as_ref().is_some_and(|b| b.dtype == TensorType::Int64);
    let short = KernelError::Mismatch {
        what: "constant shorter than its shape",
    };
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
        if p.folded != 0 {
            let w = wbytes
                .and_then(|b| b.get(n * depth..(n + 1) * depth))
                .ok_or(short)?;
            let w = <[i8]>::ref_from_bytes(w).map_err(|_| short)?;
            let b = match bbytes {
                Some(bytes) => bias_at(bytes, n, wide_bias).ok_or(short)?,
                None => 0,
            };
            u.folded = b + weights_term(w, p.input_offset, p.weights_offset);
        }
    }
    Ok(())
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
fn unfolded(p: &Params, w: &[i8], bias: Option<&[u8]>, n: usize) -> Result<i64, KernelError> {
    let b = match bias {
        Some(bytes) => {
            let wide = p.wide != 0 && p.acc32 == 0;
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

/// Runs the int8 body (`WIDE` false) or both the int8 and 16x8 ones (`WIDE` true: a 16x8
/// operator reaches this only through `prepare`, so an int8-only registration links no
/// 16x8 body).
pub(super) fn eval<const WIDE: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (batches, depth, units) = (p.batches as usize, p.depth as usize, p.units as usize);
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    let table = ctx
        .persistent()
        .get(..units * UNIT)
        .and_then(|b| <[Unit]>::ref_from_bytes(b).ok())
        .ok_or(KernelError::Mismatch {
            what: "persistent block not as init wrote it",
        })?;
    let weights = ctx.input::<i8>(1)?.get(..units * depth).ok_or(short)?;
    let bias = if p.folded == 0 && p.has_bias != 0 {
        Some(ctx.input_bytes(2)?)
    } else {
        None
    };
    let acc32 = p.acc32 != 0;
    if !WIDE && p.wide != 0 {
        return Err(check::NOT_INT8);
    }
    if p.wide == 0 {
        let input = ctx.input::<i8>(0)?.get(..batches * depth).ok_or(short)?;
        let out = ctx
            .output::<i8>(0)?
            .get_mut(..batches * units)
            .ok_or(short)?;
        for (x, y) in input.chunks_exact(depth).zip(out.chunks_exact_mut(units)) {
            let xsum = i64::from(p.weights_offset) * x.iter().map(|&v| i64::from(v)).sum::<i64>();
            for (n, ((w, y), u)) in weights
                .chunks_exact(depth)
                .zip(y.iter_mut())
                .zip(table)
                .enumerate()
            {
                let c = if p.folded != 0 {
                    u.folded
                } else {
                    unfolded(&p, w, bias, n)?
                };
                let acc = i64::from(dot8(x, w)) + xsum + c;
                *y = requantize(acc, acc32, u.scale, p.output_offset, p.lo, p.hi) as i8;
            }
        }
    } else {
        let input = ctx.input::<i16>(0)?.get(..batches * depth).ok_or(short)?;
        let out = ctx
            .output::<i16>(0)?
            .get_mut(..batches * units)
            .ok_or(short)?;
        for (x, y) in input.chunks_exact(depth).zip(out.chunks_exact_mut(units)) {
            let xsum = i64::from(p.weights_offset) * x.iter().map(|&v| i64::from(v)).sum::<i64>();
            for (n, ((w, y), u)) in weights
                .chunks_exact(depth)
                .zip(y.iter_mut())
                .zip(table)
                .enumerate()
            {
                let c = if p.folded != 0 {
                    u.folded
                } else {
                    unfolded(&p, w, bias, n)?
                };
                let acc = dot16(x, w) + xsum + c;
                *y = requantize(acc, acc32, u.scale, p.output_offset, p.lo, p.hi) as i16;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
