//! LOGISTIC and TANH on int8 tensors, as LiteRT's reference kernels run them: a 256-entry
//! table (`LUTPopulate<int8_t>`) filled at init by evaluating the float function on every
//! dequantized input value and quantizing the result, then one lookup per element.
//!
//! The float functions are `1 / (1 + expf(-x))` and `tanhf(x)`; `expf` and `tanhf` are
//! taken as the correctly rounded `f32` of the double result, which is what current C
//! libraries return (a last-bit difference could only matter where the quantized value sits
//! exactly on a rounding tie).

use super::super::quant;
use super::lut::populate_i8;
use crate::interpreter::{Eval, Init, KernelError, Prepare};
use crate::model::TensorType;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// Which function a table holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    /// LOGISTIC.
    Logistic,
    /// TANH.
    Tanh,
}

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
}

/// Whether this file runs LOGISTIC / TANH for an input of type `t`.
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Int16)
}

fn prepare(ctx: &mut Prepare<'_, '_>, f: Function) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    if input.dtype != TensorType::Int8 || output.dtype != TensorType::Int8 {
        return Err(KernelError::Unsupported {
            what: "quantized LOGISTIC / TANH other than int8 (int16 is not implemented)",
        });
    }
    if output.shape.dims() != input.shape.dims() {
        return Err(KernelError::Mismatch {
            what: "output shape differs from the input's",
        });
    }
    quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, _) = quant::per_tensor(output.quantization(), output.dtype)?;
    if f == Function::Logistic && f64::from(out_scale) != 1.0 / 256.0 {
        return Err(KernelError::Unsupported {
            what: "int8 LOGISTIC output scale other than 1/256",
        });
    }
    ctx.request_persistent(256);
    ctx.set_params(&Params {
        elements: u32::try_from(input.shape.elements()).map_err(|_| KernelError::Unsupported {
            what: "tensor over u32 elements",
        })?,
    })
}

fn init(ctx: &mut Init<'_, '_>, f: Function) -> Result<(), KernelError> {
    let prep = ctx.prepared();
    // The float kernel shares this step and has nothing to fill.
    if prep.input(0)?.dtype != TensorType::Int8 {
        return Ok(());
    }
    let input = prep.input(0)?;
    let output = prep.output(0)?;
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    let mut table = [0i8; 256];
    match f {
        Function::Logistic => populate_i8(
            in_scale,
            in_zp,
            out_scale,
            out_zp,
            |v| 1.0 / (1.0 + libm::exp(f64::from(-v)) as f32),
            &mut table,
        ),
        Function::Tanh => populate_i8(
            in_scale,
            in_zp,
            out_scale,
            out_zp,
            |v| libm::tanh(f64::from(v)) as f32,
            &mut table,
        ),
    }
    ctx.persistent()
        .get_mut(..256)
        .ok_or(KernelError::Mismatch {
            what: "persistent block smaller than asked",
        })?
        .copy_from_slice(table.as_bytes());
    Ok(())
}

/// Looks every element up in the table (indexed by the input's byte).
pub(crate) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let table: &[u8; 256] = ctx
        .persistent()
        .get(..256)
        .and_then(|t| t.try_into().ok())
        .ok_or(KernelError::Mismatch {
            what: "persistent block not as init wrote it",
        })?;
    let short = KernelError::Mismatch {
        what: "tensor shorter than its shape",
    };
    let x = ctx.input_bytes(0)?.get(..n).ok_or(short)?;
    let y = ctx.output_bytes(0)?.get_mut(..n).ok_or(short)?;
    for (x, y) in x.iter().zip(y.iter_mut()) {
        *y = table[usize::from(*x)];
    }
    Ok(())
}

/// LOGISTIC's prepare.
pub(crate) fn prepare_logistic(ctx: &mut Prepare<'_, '_>) -> Result<(), KernelError> {
    prepare(ctx, Function::Logistic)
}

/// TANH's prepare.
pub(crate) fn prepare_tanh(ctx: &mut Prepare<'_, '_>) -> Result<(), KernelError> {
    prepare(ctx, Function::Tanh)
}

/// LOGISTIC's init.
pub(crate) fn init_logistic(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    init(ctx, Function::Logistic)
}

/// TANH's init.
pub(crate) fn init_tanh(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    init(ctx, Function::Tanh)
}
