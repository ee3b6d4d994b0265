//! QUANTIZE and DEQUANTIZE (per-tensor), as TensorFlow Lite's reference kernels:
//! - float32 → int8 / uint8 / int16: `clamp(round(x / scale) + zero_point)`, the division in
//!   float and `round` half away from zero (`AffineQuantize`);
//! - int8 / uint8 / int16 → int8 / uint8 / int16 (requantization): `clamp(M(x - zp_in) +
//!   zp_out)` with `M` the fixed-point multiplier of `scale_in / scale_out` (`Requantize`);
//!   the same from int16 to int32 and from int32 to int8 / int16, which LiteRT's reference
//!   and TFLM run for models that hand int32 to or from the application (TFLM's
//!   `keyword_scrambled` benchmark ends in an int16 → int32 QUANTIZE);
//! - int8 / uint8 / int16 → float32: `(float)(double(scale) * (x - zero_point))`, and
//!   float16 → float32 (`Dequantize`);
//! - int8 / uint8 with one scale (and zero point) per channel along `quantized_dimension`
//!   → float32: `scale[c] * (float)(x - zero_point[c])`, in float (`PerChannelDequantize`);
//!   the scales and zero points are copied to persistent bytes at `init`.
//!
//! A float whose quotient is past `int32` (or NaN) converts saturating (NaN to 0) before the
//! clamp; the reference's C cast is undefined there.

use super::base::check::{self, SHORT};
use super::base::quant::{self, f16_to_f32};
use crate::interpreter::{Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// QUANTIZE.
pub static QUANTIZE: Kernel = Kernel {
    op: BuiltinOperator::Quantize,
    prepare: prepare_quantize,
    init: None,
    eval,
};

/// DEQUANTIZE.
pub static DEQUANTIZE: Kernel = Kernel {
    op: BuiltinOperator::Dequantize,
    prepare: prepare_dequantize,
    init: Some(init_dequantize),
    eval,
};

/// How one element converts, and with which constants.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Params {
    /// Dequantize: the scale, as TensorFlow Lite widens it (double).
    pub scale: f64,
    /// `input type code << 8 | output type code` (TensorType codes).
    pub types: u32,
    /// Quantize from float: the output scale.
    pub out_scale: f32,
    pub in_zp: i32,
    pub out_zp: i32,
    /// Requantize: fixed-point multiplier and shift.
    pub mult: i32,
    pub shift: i32,
    pub elements: u32,
    /// Per-channel DEQUANTIZE: the channels along the quantized dimension (0: per tensor).
    pub channels: u32,
    /// Per-channel DEQUANTIZE: elements per step of the quantized dimension.
    pub inner: u32,
    /// DEQUANTIZE of a constant: 1, and a flag after the channel table in the persistent
    /// bytes says whether the output (set-up's persistent bytes, with
    /// [`Options::fold_constants`](crate::interpreter::Options)) holds it already.
    pub once: u32,
}

fn code(t: TensorType) -> u32 {
    match t {
        TensorType::Float32 => 0,
        TensorType::Float16 => 1,
        TensorType::Uint8 => 3,
        TensorType::Int32 => 2,
        TensorType::Int16 => 7,
        TensorType::Int8 => 9,
        _ => 255,
    }
}

const F32: u32 = 0;
const F16: u32 = 1;
const I32: u32 = 2;
const U8: u32 = 3;
const I16: u32 = 7;
const I8: u32 = 9;

fn quantized(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Uint8 | TensorType::Int16)
}

fn common(ctx: &Prepare<'_>) -> Result<(TensorType, TensorType, Params), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    if input.shape.dims() != output.shape.dims() {
        return Err(KernelError::Mismatch {
            what: "output shape differs from the input's",
        });
    }
    let elements = u32::try_from(input.shape.elements()).map_err(|_| KernelError::Unsupported {
        what: "more than 2^32 elements",
    })?;
    Ok((
        input.dtype,
        output.dtype,
        Params {
            types: code(input.dtype) << 8 | code(output.dtype),
            elements,
            ..Params::default()
        },
    ))
}

fn prepare_quantize(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (it, ot, mut p) = common(ctx)?;
    // As LiteRT's reference: int32 only from int16, and to int8 / int16.
    let wide = match (it, ot) {
        (TensorType::Int16, TensorType::Int32) => true,
        (TensorType::Int32, TensorType::Int8 | TensorType::Int16) => true,
        (TensorType::Int32, _) | (_, TensorType::Int32) => {
            return Err(KernelError::Unsupported {
                what: "int32 QUANTIZE other than from int16, or to int8 / int16",
            });
        }
        _ => false,
    };
    if !quantized(ot) && !wide {
        return Err(KernelError::Unsupported {
            what: "QUANTIZE to other types than INT8, UINT8, INT16",
        });
    }
    let params = |d: crate::interpreter::Desc<'_>, t| match t {
        TensorType::Int32 => quant::per_tensor_i32(d.quantization()),
        _ => quant::per_tensor(d.quantization(), t),
    };
    let (out_scale, out_zp) = params(ctx.output(0)?, ot)?;
    p.out_scale = out_scale;
    p.out_zp = out_zp;
    if it == TensorType::Float32 {
        // Per-tensor only: a per-channel output would have more than one scale.
    } else if quantized(it) || wide {
        let (in_scale, in_zp) = params(ctx.input(0)?, it)?;
        p.in_zp = in_zp;
        (p.mult, p.shift) =
            quant::checked_multiplier(f64::from(in_scale) / f64::from(out_scale), false)?;
    } else {
        return Err(KernelError::Unsupported {
            what: "QUANTIZE from other types than FLOAT32, INT8, UINT8, INT16",
        });
    }
    ctx.set_params(&p);
    Ok(())
}

fn prepare_dequantize(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (it, ot, mut p) = common(ctx)?;
    if ot != TensorType::Float32 {
        return Err(KernelError::Unsupported {
            what: "DEQUANTIZE to other types than FLOAT32",
        });
    }
    let input = ctx.input(0)?;
    let per_channel = input.quantization().is_some_and(|q| q.is_per_channel());
    if per_channel {
        // LiteRT dequantizes per channel from int8 and uint8 only.
        if !matches!(it, TensorType::Int8 | TensorType::Uint8) {
            return Err(KernelError::Unsupported {
                what: "per-channel DEQUANTIZE from other types than INT8, UINT8",
            });
        }
        let (channels, inner) = per_channel_layout(&input)?;
        p.channels = channels;
        p.inner = inner;
    } else if quantized(it) {
        let (scale, zp) = quant::per_tensor(input.quantization(), it)?;
        if it == TensorType::Int16 && zp != 0 {
            return Err(KernelError::Mismatch {
                what: "int16 DEQUANTIZE with a non-zero zero point",
            });
        }
        p.scale = f64::from(scale);
        p.in_zp = zp;
    } else if it != TensorType::Float16 {
        return Err(KernelError::Unsupported {
            what: "DEQUANTIZE from other types than INT8, UINT8, INT16, FLOAT16",
        });
    }
    // A constant's dequantized values never change: computed at the first invoke into an
    // output set-up keeps (float16 and int8 weights), as LiteRT's DEQUANTIZE does. The flag
    // needs the `state` feature; without it the output is computed at every invoke.
    if cfg!(feature = "state") && input.constant().is_some() && !input.tensor.is_variable() {
        p.once = 1;
        ctx.request_persistent(8 * p.channels as usize + 4);
    } else if p.channels != 0 {
        ctx.request_persistent(8 * p.channels as usize);
    }
    ctx.set_params(&p);
    Ok(())
}

/// The channels along the input's quantized dimension and the elements per step of it,
/// checked against its scales and zero points.
fn per_channel_layout(input: &crate::interpreter::Desc<'_>) -> Result<(u32, u32), KernelError> {
    let q = input.quantization().ok_or(KernelError::Mismatch {
        what: "per-channel tensor without scales",
    })?;
    let dims = input.shape.dims();
    let axis = q.quantized_dimension();
    let channels = *dims.get(axis).ok_or(check::AXIS)?;
    if q.scale().len() != channels {
        return Err(KernelError::Mismatch {
            what: "per-channel scales not one per channel of the quantized dimension",
        });
    }
    let zps = q.zero_point().len();
    if zps != channels && zps > 1 {
        return Err(KernelError::Mismatch {
            what: "per-channel zero points neither one nor one per channel",
        });
    }
    let (lo, hi) = quant::type_range(input.dtype)?;
    for c in 0..channels {
        let s = q.scale().get(c).unwrap_or(f32::NAN);
        if !s.is_finite() {
            return Err(KernelError::Mismatch {
                what: "quantization scale not finite",
            });
        }
        let zp = q.zero_point().get(if zps == channels { c } else { 0 }).unwrap_or(0);
        if !(i64::from(lo)..=i64::from(hi)).contains(&zp) {
            return Err(KernelError::Mismatch {
                what: "zero point outside the type's range",
            });
        }
    }
    let inner = dims
        .get(axis + 1..)
        .unwrap_or(&[])
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or(check::DIM_OVER_U32)?;
    Ok((check::dim(channels)?, check::dim(inner)?))
}

/// Per-channel DEQUANTIZE: copies the scales and zero points into the persistent bytes.
fn init_dequantize(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    if p.channels == 0 {
        return Ok(());
    }
    let q = ctx
        .prepared()
        .input(0)?
        .quantization()
        .ok_or(KernelError::Mismatch {
            what: "per-channel tensor without scales",
        })?;
    let n = p.channels as usize;
    let bad = KernelError::Mismatch {
        what: "persistent block smaller than asked",
    };
    let words = <[u32]>::mut_from_bytes(ctx.persistent().get_mut(..8 * n).ok_or(bad)?)
        .map_err(|_| bad)?;
    let (scales, zps) = words.split_at_mut(n);
    let one = q.zero_point().len() != n;
    for c in 0..n {
        if let (Some(s), Some(z)) = (scales.get_mut(c), zps.get_mut(c)) {
            *s = q.scale().get(c).unwrap_or(0.0).to_bits();
            *z = q.zero_point().get(if one { 0 } else { c }).unwrap_or(0) as i32 as u32;
        }
    }
    Ok(())
}

/// The per-channel scales and zero points `init` wrote.
fn channel_table(table: &[u8], n: usize) -> Result<(&[f32], &[i32]), KernelError> {
    let bad = KernelError::Mismatch {
        what: "persistent block not as init wrote it",
    };
    let bytes = table.get(..8 * n).ok_or(bad)?;
    let (s, z) = bytes.split_at(4 * n);
    Ok((
        <[f32]>::ref_from_bytes(s).map_err(|_| bad)?,
        <[i32]>::ref_from_bytes(z).map_err(|_| bad)?,
    ))
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    if p.once != 0 && ctx.output_kept(0) {
        // Taken first, as `persistent_mut` asks; the flag follows the channel table.
        let state = ctx.persistent_mut()?;
        let (table, done) = state.split_at_mut(8 * p.channels as usize);
        let done = done.first_mut().ok_or(SHORT)?;
        if *done == 0 {
            convert(ctx, &p, table)?;
            *done = 1;
        }
        return Ok(());
    }
    convert(ctx, &p, ctx.persistent())
}

/// QUANTIZE / DEQUANTIZE's conversion of the input into the output (`table`: a per-channel
/// DEQUANTIZE's scales and zero points).
fn convert(ctx: &mut Eval<'_>, p: &Params, table: &[u8]) -> Result<(), KernelError> {
    let p = *p;
    let n = p.elements as usize;
    if p.channels != 0 {
        let (scales, zps) = channel_table(table, p.channels as usize)?;
        return match p.types >> 8 {
            I8 => dequantize_per_channel(&p, scales, zps, first(ctx.input::<i8>(0)?, n)?, ctx.output::<f32>(0)?),
            _ => dequantize_per_channel(&p, scales, zps, first(ctx.input::<u8>(0)?, n)?, ctx.output::<f32>(0)?),
        };
    }
    match (p.types >> 8, p.types & 0xff) {
        (F32, I8) => from_float(&p, first(ctx.input::<f32>(0)?, n)?, ctx.output::<i8>(0)?),
        (F32, U8) => from_float(&p, first(ctx.input::<f32>(0)?, n)?, ctx.output::<u8>(0)?),
        (F32, I16) => from_float(&p, first(ctx.input::<f32>(0)?, n)?, ctx.output::<i16>(0)?),
        (I8, o) => requantize_to(ctx, &p, first(ctx.input::<i8>(0)?, n)?, o),
        (U8, o) => requantize_to(ctx, &p, first(ctx.input::<u8>(0)?, n)?, o),
        (I16, o) => requantize_to(ctx, &p, first(ctx.input::<i16>(0)?, n)?, o),
        (I32, o) => requantize_to(ctx, &p, first(ctx.input::<i32>(0)?, n)?, o),
        (F16, F32) => {
            let x = ctx.input_bytes(0)?;
            let x = x.get(..2 * n).ok_or(SHORT)?;
            let y = ctx.output::<f32>(0)?;
            for (y, h) in y.iter_mut().zip(x.chunks_exact(2)) {
                *y = f16_to_f32(u16::from_ne_bytes([h[0], h[1]]));
            }
            Ok(())
        }
        _ => Err(KernelError::Unsupported {
            what: "QUANTIZE / DEQUANTIZE types",
        }),
    }
}

fn first<T>(s: &[T], n: usize) -> Result<&[T], KernelError> {
    s.get(..n).ok_or(SHORT)
}

/// A quantized element type.
pub(super) trait Q: Copy + Into<i32> {
    const MIN: i32;
    const MAX: i32;
    fn narrow(v: i32) -> Self;
}

macro_rules! q {
    ($t:ty) => {
        impl Q for $t {
            const MIN: i32 = <$t>::MIN as i32;
            const MAX: i32 = <$t>::MAX as i32;
            #[inline]
            fn narrow(v: i32) -> Self {
                v as $t
            }
        }
    };
}
q!(i8);
q!(u8);
q!(i16);
q!(i32);

fn requantize_to<X: Q>(
    ctx: &mut Eval<'_>,
    p: &Params,
    x: &[X],
    out: u32,
) -> Result<(), KernelError> {
    match out {
        I8 => requantize(p, x, ctx.output::<i8>(0)?),
        U8 => requantize(p, x, ctx.output::<u8>(0)?),
        I16 => requantize(p, x, ctx.output::<i16>(0)?),
        I32 => requantize(p, x, ctx.output::<i32>(0)?),
        F32 => {
            dequantize(p, x, ctx.output::<f32>(0)?);
            Ok(())
        }
        _ => Err(KernelError::Unsupported {
            what: "QUANTIZE / DEQUANTIZE types",
        }),
    }
}

/// `AffineQuantize`.
pub(super) fn from_float<Y: Q>(p: &Params, x: &[f32], y: &mut [Y]) -> Result<(), KernelError> {
    if y.len() < x.len() {
        return Err(SHORT);
    }
    for (y, &v) in y.iter_mut().zip(x) {
        let q = quant::affine_quantize(v, p.out_scale, p.out_zp);
        *y = Y::narrow(q.max(Y::MIN).min(Y::MAX));
    }
    Ok(())
}

/// `Requantize`.
pub(super) fn requantize<X: Q, Y: Q>(p: &Params, x: &[X], y: &mut [Y]) -> Result<(), KernelError> {
    if y.len() < x.len() {
        return Err(SHORT);
    }
    for (y, &v) in y.iter_mut().zip(x) {
        let d = v.into().wrapping_sub(p.in_zp);
        // In 64 bits: an int32 output's zero point may carry the sum past 32 (undefined in
        // the reference's C++; the clamp it means is kept).
        let q = i64::from(quant::multiply_by_quantized_multiplier(d, p.mult, p.shift))
            + i64::from(p.out_zp);
        *y = Y::narrow(q.clamp(i64::from(Y::MIN), i64::from(Y::MAX)) as i32);
    }
    Ok(())
}

/// `PerChannelDequantize`: element `i` is in channel `(i / inner) % channels`.
pub(super) fn dequantize_per_channel<X: Q>(
    p: &Params,
    scales: &[f32],
    zero_points: &[i32],
    x: &[X],
    y: &mut [f32],
) -> Result<(), KernelError> {
    let y = y.get_mut(..x.len()).ok_or(SHORT)?;
    let (channels, inner) = (p.channels as usize, p.inner as usize);
    if x.is_empty() {
        return Ok(());
    }
    if inner == 0 || scales.len() < channels || zero_points.len() < channels {
        return Err(SHORT);
    }
    // Runs of `inner` elements share a channel; channels repeat every `channels` runs.
    let channel_of = scales.iter().zip(zero_points).take(channels).cycle();
    for ((x, y), (&s, &z)) in x.chunks(inner).zip(y.chunks_mut(inner)).zip(channel_of)
    {
        for (y, &v) in y.iter_mut().zip(x) {
            *y = s * (v.into() - z) as f32;
        }
    }
    Ok(())
}

/// `Dequantize`.
pub(super) fn dequantize<X: Q>(p: &Params, x: &[X], y: &mut [f32]) {
    for (y, &v) in y.iter_mut().zip(x) {
        *y = quant::dequantize(v.into(), p.in_zp, p.scale);
    }
}

#[cfg(test)]
mod tests;
