//! LOGISTIC and TANH on int8 tensors, as LiteRT's reference kernels run them: a 256-entry
//! table (`LUTPopulate<int8_t>`) filled by evaluating the float function on every
//! dequantized input value and quantizing the result, then one lookup per element. The table
//! is built at each invoke in scratch memory (256 bytes shared by every operator, where a
//! persistent table costs 256 bytes per operator: 16.6 KB over EfficientNet-B0's 65 swish
//! activations); a tensor of at most 256 elements skips it and evaluates each element as its
//! table entry would be.
//!
//! On int16 tensors (zero points 0, output scale 2^-15) they interpolate in TensorFlow
//! Lite's fixed sigmoid table (`lut::logistic_i16`) after
//! rescaling the input to 1/(3 * 4096) per step: by `3 << shift` when the input scale is the
//! power of two the table expects (2^-12; TANH also 2^-11), otherwise by a multiplier of
//! 15 significant bits and a rounding right shift, as `activations.cc`'s Prepare derives
//! them.
//!
//! The float functions are `1 / (1 + expf(-x))` and `tanhf(x)`; `expf` and `tanhf` are
//! taken as the correctly rounded `f32` of the double result, which is what current C
//! libraries return (a last-bit difference could only matter where the quantized value sits
//! exactly on a rounding tie).

use super::super::base::check;
use super::super::base::quant;
use super::super::base::quant::fixed_point::checked_log2;
use super::super::base::quant::lut::{
    Function, entry_i8, int16_input_scaling, logistic_i16, tanh_i16,
};
use crate::interpreter::{Eval, KernelError, Prepare};
use crate::model::TensorType;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
    /// [`TABLE_I8`], [`LOGISTIC_I16`] or [`TANH_I16`].
    kind: u32,
    /// int16: the input's multiplier and right shift (`0..=31`).
    multiplier: i32,
    shift: u32,
    /// int8: the function (0 LOGISTIC, 1 TANH) and the scales and zero points of its table.
    function: u32,
    in_scale: f32,
    in_zp: i32,
    out_scale: f32,
    out_zp: i32,
}

/// `Params::kind`: int8, through the 256-entry table (in scratch, or evaluated per element).
const TABLE_I8: u32 = 0;
/// int8 tensors of more elements than this build the table.
const TABLE_FROM: u32 = 256;
/// `Params::kind`: int16 LOGISTIC.
const LOGISTIC_I16: u32 = 1;
/// `Params::kind`: int16 TANH.
const TANH_I16: u32 = 2;

/// Whether this file runs LOGISTIC / TANH for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16)
}

fn prepare(ctx: &mut Prepare<'_>, f: Function) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    check::output_type(&input, &output)?;
    if output.shape.dims() != input.shape.dims() {
        return Err(KernelError::Mismatch {
            what: "output shape differs from the input's",
        });
    }
    let elements = u32::try_from(input.shape.elements()).map_err(|_| KernelError::Unsupported {
        what: "tensor over u32 elements",
    })?;
    if input.dtype == TensorType::Int16 {
        return prepare_i16(ctx, f, elements);
    }
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if f == Function::Logistic && f64::from(out_scale) != 1.0 / 256.0 {
        return Err(KernelError::Unsupported {
            what: "int8 LOGISTIC output scale other than 1/256",
        });
    }
    if elements > TABLE_FROM {
        ctx.request_scratch(256);
    }
    ctx.set_params(&Params {
        elements,
        kind: TABLE_I8,
        multiplier: 0,
        shift: 0,
        function: u32::from(f == Function::Tanh),
        in_scale,
        in_zp,
        out_scale,
        out_zp,
    });
    Ok(())
}

/// int16: zero points 0 and an output scale of 2^-15 (LOGISTIC: exactly), as the reference's
/// Prepare requires; the input's scaling.
fn prepare_i16(ctx: &mut Prepare<'_>, f: Function, elements: u32) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if in_zp != 0 || out_zp != 0 {
        return Err(KernelError::Unsupported {
            what: "int16 LOGISTIC / TANH with a non-zero zero point",
        });
    }
    let exact = f64::from(out_scale) == 1.0 / 32768.0;
    if checked_log2(out_scale) != (-15, true) || (f == Function::Logistic && !exact) {
        return Err(KernelError::Unsupported {
            what: "int16 LOGISTIC / TANH output scale other than 2^-15",
        });
    }
    let (multiplier, shift) = int16_input_scaling(f, in_scale)?;
    ctx.set_params(&Params {
        elements,
        kind: match f {
            Function::Logistic => LOGISTIC_I16,
            Function::Tanh => TANH_I16,
        },
        multiplier,
        shift,
        function: 0,
        in_scale: 0.0,
        in_zp: 0,
        out_scale: 0.0,
        out_zp: 0,
    });
    Ok(())
}

/// The int8 function of `p`, on one input value, as its table entry.
fn entry(p: &Params, v: i8) -> i8 {
    let f = |x: f32| {
        if p.function == 0 {
            1.0 / (1.0 + libm::exp(f64::from(-x)) as f32)
        } else {
            libm::tanh(f64::from(x)) as f32
        }
    };
    entry_i8(p.in_scale, p.in_zp, p.out_scale, p.out_zp, f, v)
}

/// Looks every element up in the table (indexed by the input's byte), or runs the int16
/// interpolation.
pub(crate) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    if p.kind != TABLE_I8 {
        let f = if p.kind == LOGISTIC_I16 {
            logistic_i16
        } else {
            tanh_i16
        };
        let x = ctx.input::<i16>(0)?;
        let y = ctx.output::<i16>(0)?;
        if x.len() < n || y.len() < n {
            return Err(KernelError::Mismatch {
                what: "tensor shorter than its shape",
            });
        }
        for (x, y) in x.iter().zip(y.iter_mut()).take(n) {
            *y = f(*x, p.multiplier, p.shift);
        }
        return Ok(());
    }
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    let x = ctx.input::<i8>(0)?.get(..n).ok_or(short)?;
    let y = ctx.output::<i8>(0)?.get_mut(..n).ok_or(short)?;
    if p.elements <= TABLE_FROM {
        for (x, y) in x.iter().zip(y.iter_mut()) {
            *y = entry(&p, *x);
        }
        return Ok(());
    }
    let table: &mut [u8; 256] = ctx
        .scratch()
        .get_mut(..256)
        .and_then(|t| t.try_into().ok())
        .ok_or(KernelError::Mismatch {
            what: "scratch smaller than asked",
        })?;
    for v in i8::MIN..=i8::MAX {
        table[usize::from(v as u8)] = entry(&p, v) as u8;
    }
    for (x, y) in x.iter().zip(y.iter_mut()) {
        *y = table[usize::from(*x as u8)] as i8;
    }
    Ok(())
}

/// LOGISTIC's prepare.
pub(crate) fn prepare_logistic(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare(ctx, Function::Logistic)
}

/// TANH's prepare.
pub(crate) fn prepare_tanh(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare(ctx, Function::Tanh)
}


#[cfg(test)]
mod tests;
