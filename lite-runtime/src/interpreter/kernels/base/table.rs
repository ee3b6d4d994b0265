//! The scaffold of a quantized element-wise op that LiteRT computes with a lookup table
//! (`LUTPopulate` at prepare, `LookupTable` / `LUTLookup` at eval): EXP, LOG, ELU, GELU,
//! RSQRT on int16, LOGISTIC and TANH on uint8. Set-up checks the tensors and asks for the
//! table's persistent bytes (256 for an 8-bit input, 513 `i16` for int16); init fills the
//! table from the op's float function; eval looks every element up.
//!
//! ```ignore
//! fn init_exp(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
//!     table::init(ctx, |x, _| (libm::exp(f64::from(x))) as f32)
//! }
//! ```

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::check;
use super::quant;
use super::quant::lut::{LUT16, lookup_i16_slice, populate_i8, populate_i16_f32, populate_u8};
use super::tensors::{input_n, output_n};
use crate::interpreter::{Eval, Init, KernelError, Prepare};
use crate::model::TensorType;

/// The types an op's table takes, and whether int16 needs zero points of 0.
#[derive(Clone, Copy)]
pub(crate) struct Accept {
    /// UINT8 tensors.
    pub uint8: bool,
    /// INT8 tensors.
    pub int8: bool,
    /// INT16 tensors.
    pub int16: bool,
    /// INT16 input and output must have zero point 0 (the reference's Prepare checks it).
    pub int16_zero_points: bool,
}

/// What the table's function may depend on: the output's quantization.
#[derive(Clone, Copy)]
pub(crate) struct Output {
    /// The output type.
    pub dtype: TensorType,
    /// Its scale.
    pub scale: f32,
    /// Its zero point.
    pub zero_point: i32,
}

#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
    /// 8 or 16: the input's bits.
    bits: u32,
}

/// The persistent bytes a table of `t` needs.
fn table_bytes(t: TensorType) -> usize {
    if t == TensorType::Int16 {
        2 * LUT16
    } else {
        256
    }
}

/// Whether `t` is a quantized type a table could run (the op's [`Accept`] decides).
pub(crate) fn handles(t: TensorType) -> bool {
    matches!(t, TensorType::Int8 | TensorType::Uint8 | TensorType::Int16)
}

/// Set-up: input 0 and output 0 of one type and shape, a type `accept` takes, per-tensor
/// quantization on both.
///
/// # Errors
/// [`check::TYPE`] for a type `accept` leaves out; the [`check::unary`] errors; a missing or
/// bad quantization; non-zero int16 zero points where `accept` requires 0.
pub(crate) fn prepare(ctx: &mut Prepare<'_>, accept: Accept) -> Result<(), KernelError> {
    let (input, output) = check::unary(ctx)?;
    let ok = match input.dtype {
        TensorType::Uint8 => accept.uint8,
        TensorType::Int8 => accept.int8,
        TensorType::Int16 => accept.int16,
        _ => false,
    };
    if !ok {
        return Err(check::TYPE);
    }
    let (_, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (_, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    if input.dtype == TensorType::Int16 && accept.int16_zero_points && (in_zp != 0 || out_zp != 0) {
        return Err(KernelError::Unsupported {
            what: "int16 table op with a non-zero zero point",
        });
    }
    ctx.request_persistent(table_bytes(input.dtype));
    ctx.set_params(&Params {
        elements: check::dim(input.shape.elements())?,
        bits: if input.dtype == TensorType::Int16 {
            16
        } else {
            8
        },
    });
    Ok(())
}

const BLOCK: KernelError = KernelError::Mismatch {
    what: "persistent block not as set-up asked",
};

/// Init: fills the table with `f(x, output)` over every input value (LiteRT's
/// `LUTPopulate` for the type, in `f32`). Nothing for a float input (the float kernel
/// shares this step).
///
/// # Errors
/// A missing or bad quantization; a persistent block smaller than set-up asked.
pub(crate) fn init(
    ctx: &mut Init<'_, '_>,
    f: impl Fn(f32, &Output) -> f32,
) -> Result<(), KernelError> {
    let prep = ctx.prepared();
    let input = prep.input(0)?;
    if !handles(input.dtype) {
        return Ok(());
    }
    let output = prep.output(0)?;
    let (in_scale, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
    let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
    let out = Output {
        dtype: output.dtype,
        scale: out_scale,
        zero_point: out_zp,
    };
    let g = |x: f32| f(x, &out);
    let dtype = input.dtype;
    let block = ctx
        .persistent()
        .get_mut(..table_bytes(dtype))
        .ok_or(BLOCK)?;
    match dtype {
        TensorType::Int16 => {
            let mut lut = [0i16; LUT16];
            populate_i16_f32(in_scale, in_zp, out_scale, out_zp, g, &mut lut);
            block.copy_from_slice(lut.as_bytes());
        }
        TensorType::Int8 => {
            let mut table = [0i8; 256];
            populate_i8(in_scale, in_zp, out_scale, out_zp, g, &mut table);
            block.copy_from_slice(table.as_bytes());
        }
        _ => {
            let mut table = [0u8; 256];
            populate_u8(in_scale, in_zp, out_scale, out_zp, g, &mut table);
            block.copy_from_slice(&table);
        }
    }
    Ok(())
}

/// Eval: every element looked up (8-bit: indexed by its byte; int16: interpolated).
///
/// # Errors
/// A tensor shorter than its shape; a persistent block not as init wrote it.
pub(crate) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    if p.bits == 16 {
        let lut: &[i16; LUT16] = ctx
            .persistent()
            .get(..2 * LUT16)
            .and_then(|b| <[i16]>::ref_from_bytes(b).ok())
            .and_then(|t| t.try_into().ok())
            .ok_or(BLOCK)?;
        let x = input_n::<i16>(ctx, 0, n)?;
        let y = output_n::<i16>(ctx, 0, n)?;
        lookup_i16_slice(x, y, lut);
        return Ok(());
    }
    let table: &[u8; 256] = ctx
        .persistent()
        .get(..256)
        .and_then(|t| t.try_into().ok())
        .ok_or(BLOCK)?;
    let x = ctx.input_bytes(0)?.get(..n).ok_or(check::SHORT)?;
    let y = ctx.output_bytes(0)?.get_mut(..n).ok_or(check::SHORT)?;
    for (y, x) in y.iter_mut().zip(x) {
        *y = table[usize::from(*x)];
    }
    Ok(())
}
