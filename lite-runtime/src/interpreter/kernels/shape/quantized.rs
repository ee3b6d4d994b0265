//! CONCATENATION of quantized tensors: each input's rows copied side by side, as the float
//! kernel does with bytes. An int8 or uint8 input whose scale or zero point differs from the
//! output's is requantized on the way (`ConcatenationWithScaling`'s formula: `round(q * s + b) +
//! zero_point` with `s = input_scale / output_scale`, `b = -input_zero_point * s` in
//! `float`; LiteRT's int8 kernel refuses such inputs, its uint8 kernel computes this). Int16
//! inputs must have zero point 0 and are copied as they are, as LiteRT does. A fused
//! activation is ignored on quantized tensors, as LiteRT ignores it.

use super::super::base::check;
use super::super::base::quant;
use crate::interpreter::{Eval, Init, KernelError, Prepare};
use crate::model::{ConcatenationOptions, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    outer: u32,
    /// Bytes per element (1 or 2).
    element: u32,
    output_zero_point: i32,
    /// 1: uint8.
    unsigned: u32,
}

/// Per input: how its values map to the output's (`same` 1: copied).
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Rescale {
    scale: f32,
    bias: f32,
    same: u32,
    _pad: u32,
}

const RESCALE: usize = core::mem::size_of::<Rescale>();

/// Whether this file runs CONCATENATION for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Uint8 | TensorType::Int16)
}

pub(crate) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let ConcatenationOptions { axis, .. } = ctx.options()?;
    let first = ctx.input(0)?;
    let output = ctx.output(0)?;
    let element = match first.dtype {
        TensorType::Int8 | TensorType::Uint8 => 1,
        TensorType::Int16 => 2,
        _ => {
            return Err(KernelError::Unsupported {
                what: "quantized CONCATENATION other than int8, uint8 or int16",
            });
        }
    };
    let axis = check::concatenation(ctx, axis)?;
    let (_, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    for k in 0..ctx.input_count() {
        let d = ctx.input(k)?;
        let (_, zp) = quant::per_tensor(d.quantization(), d.dtype)?;
        if element == 2 && zp != 0 {
            return Err(KernelError::Unsupported {
                what: "int16 CONCATENATION with a non-zero zero point",
            });
        }
    }
    if element == 2 && out_zp != 0 {
        return Err(KernelError::Unsupported {
            what: "int16 CONCATENATION with a non-zero zero point",
        });
    }
    let outer: usize = first.shape.dims()[..axis].iter().product();
    ctx.request_persistent(ctx.input_count() * RESCALE);
    ctx.set_params(&Params {
        outer: check::dim(outer)?,
        element,
        output_zero_point: out_zp,
        unsigned: u32::from(first.dtype == TensorType::Uint8),
    });
    Ok(())
}

/// Fills the per-input table; nothing for other types (the float kernel shares this step).
pub(crate) fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let prep = ctx.prepared();
    if !handles(prep.input(0)?.dtype) {
        return Ok(());
    }
    let output = prep.output(0)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    let n = prep.input_count();
    let mut rows = [Rescale {
        scale: 0.0,
        bias: 0.0,
        same: 1,
        _pad: 0,
    }; crate::interpreter::MAX_INPUTS];
    for (k, row) in rows.iter_mut().enumerate().take(n) {
        let d = prep.input(k)?;
        let (s, zp) = quant::per_tensor(d.quantization(), d.dtype)?;
        // int16 inputs are copied whatever their scale, as LiteRT does.
        let same = d.dtype == TensorType::Int16 || (s == out_scale && zp == out_zp);
        let scale = s * (1.0 / out_scale);
        *row = Rescale {
            scale,
            bias: -(zp as f32) * scale,
            same: u32::from(same),
            _pad: 0,
        };
    }
    let bytes = rows.get(..n).ok_or(KernelError::Arity {
        what: "more inputs than an operator holds",
    })?;
    ctx.persistent()
        .get_mut(..n * RESCALE)
        .ok_or(KernelError::Mismatch {
            what: "persistent block smaller than asked",
        })?
        .copy_from_slice(bytes.as_bytes());
    Ok(())
}

/// One value at the output's scale, clamped to `lo..=hi`.
#[inline]
fn requantize(q: i32, r: &Rescale, output_zero_point: i32, lo: i32, hi: i32) -> i32 {
    quant::requantize_float(q, r.scale, r.bias, output_zero_point).clamp(lo, hi)
}

pub(crate) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let outer = p.outer as usize;
    let n = ctx.input_count();
    let table = ctx
        .persistent()
        .get(..n * RESCALE)
        .and_then(|b| <[Rescale]>::ref_from_bytes(b).ok())
        .ok_or(KernelError::Mismatch {
            what: "persistent block not as init wrote it",
        })?;
    let dst = ctx.output_bytes(0)?;
    if outer == 0 || dst.is_empty() {
        return Ok(());
    }
    let row = dst.len() / outer;
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    let mut at = 0;
    for (k, rescale) in table.iter().enumerate() {
        let bytes = ctx.input_shape(k)?.elements() * p.element as usize;
        let chunk = bytes / outer;
        if chunk == 0 {
            continue;
        }
        let src = ctx.input_bytes(k)?.get(..bytes).ok_or(short)?;
        for (o, src) in src.chunks_exact(chunk).enumerate() {
            let d = dst
                .get_mut(o * row + at..o * row + at + chunk)
                .ok_or(short)?;
            if rescale.same != 0 {
                d.copy_from_slice(src);
            } else {
                let zp = p.output_zero_point;
                if p.unsigned != 0 {
                    for (d, &s) in d.iter_mut().zip(src) {
                        *d = requantize(i32::from(s), rescale, zp, 0, 255) as u8;
                    }
                } else {
                    for (d, &s) in d.iter_mut().zip(src) {
                        *d = requantize(i32::from(s as i8), rescale, zp, -128, 127) as u8;
                    }
                }
            }
        }
        at += chunk;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
