//! QUANTIZE and DEQUANTIZE (per-tensor), as TensorFlow Lite's reference kernels:
//! - float32 → int8 / uint8 / int16: `clamp(round(x / scale) + zero_point)`, the division in
//!   float and `round` half away from zero (`AffineQuantize`);
//! - int8 / uint8 / int16 → int8 / uint8 / int16 (requantization): `clamp(M(x - zp_in) +
//!   zp_out)` with `M` the fixed-point multiplier of `scale_in / scale_out` (`Requantize`);
//! - int8 / uint8 / int16 → float32: `(float)(double(scale) * (x - zero_point))`, and
//!   float16 → float32 (`Dequantize`).
//!
//! A float whose quotient is past `int32` (or NaN) converts saturating (NaN to 0) before the
//! clamp; the reference's C cast is undefined there.

use super::base::check::SHORT;
use super::base::quant::{self, f16_to_f32};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
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
    init: None,
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
    pub _reserved: u32,
}

fn code(t: TensorType) -> u32 {
    match t {
        TensorType::Float32 => 0,
        TensorType::Float16 => 1,
        TensorType::Uint8 => 3,
        TensorType::Int16 => 7,
        TensorType::Int8 => 9,
        _ => 255,
    }
}

const F32: u32 = 0;
const F16: u32 = 1;
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
    if !quantized(ot) {
        return Err(KernelError::Unsupported {
            what: "QUANTIZE to other types than INT8, UINT8, INT16",
        });
    }
    let (out_scale, out_zp) = quant::per_tensor(ctx.output(0)?.quantization(), ot)?;
    p.out_scale = out_scale;
    p.out_zp = out_zp;
    if it == TensorType::Float32 {
        // Per-tensor only: a per-channel output would have more than one scale.
    } else if quantized(it) {
        let (in_scale, in_zp) = quant::per_tensor(ctx.input(0)?.quantization(), it)?;
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
    if quantized(it) {
        let (scale, zp) = quant::per_tensor(ctx.input(0)?.quantization(), it)?;
        p.scale = f64::from(scale);
        p.in_zp = zp;
    } else if it != TensorType::Float16 {
        return Err(KernelError::Unsupported {
            what: "DEQUANTIZE from other types than INT8, UINT8, INT16, FLOAT16",
        });
    }
    ctx.set_params(&p);
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    match (p.types >> 8, p.types & 0xff) {
        (F32, I8) => from_float(&p, first(ctx.input::<f32>(0)?, n)?, ctx.output::<i8>(0)?),
        (F32, U8) => from_float(&p, first(ctx.input::<f32>(0)?, n)?, ctx.output::<u8>(0)?),
        (F32, I16) => from_float(&p, first(ctx.input::<f32>(0)?, n)?, ctx.output::<i16>(0)?),
        (I8, o) => requantize_to(ctx, &p, first(ctx.input::<i8>(0)?, n)?, o),
        (U8, o) => requantize_to(ctx, &p, first(ctx.input::<u8>(0)?, n)?, o),
        (I16, o) => requantize_to(ctx, &p, first(ctx.input::<i16>(0)?, n)?, o),
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
        let q = quant::multiply_by_quantized_multiplier(d, p.mult, p.shift).wrapping_add(p.out_zp);
        *y = Y::narrow(q.min(Y::MAX).max(Y::MIN));
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
