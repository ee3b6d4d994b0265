//! PAD and PADV2 (float32, int32, int64, bool, int8, uint8, int16): the input surrounded by a constant, `paddings` (int32 or int64, `[rank, 2]`:
//! before and after per dimension) giving how much. The constant is 0 for float32, int32 and
//! int64 (false for bool), the output zero point for quantized int8 / uint8 / int16 (PAD), or the scalar
//! third input (PADV2). Values are copied verbatim, so the kernel works on bytes: the output is
//! filled with the constant, then each innermost input row is copied into place.

use super::base::check::{self, SHORT};
use super::base::tensors::legacy_params;
use crate::interpreter::{Eval, Kernel, KernelError, MAX_DIMS, Prepare};
use crate::model::{BuiltinOperator, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// PAD.
pub static PAD: Kernel = Kernel {
    op: BuiltinOperator::Pad,
    prepare,
    init: None,
    eval,
};

/// PADV2: PAD with the constant as a third input (a scalar of the input's type, quantized
/// values as stored), read at set-up when it is a constant and at every invoke otherwise.
pub static PADV2: Kernel = Kernel {
    op: BuiltinOperator::Padv2,
    prepare,
    init: None,
    eval,
};

#[derive(Clone, Copy, Debug, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    /// The constant's bytes (native order), the first `size` of them used.
    value: [u8; 8],
    /// Element size in bytes.
    size: u32,
    /// Whether the constant comes from input 2 at eval (a non-constant PADV2 value).
    value_input: u32,
    /// Whether the paddings are int64.
    wide: u32,
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    let paddings = ctx.input(1)?;
    let output = ctx.output(0)?;
    check::output_type(&input, &output)?;
    let size = match input.dtype {
        TensorType::Int8 | TensorType::Uint8 | TensorType::Bool => 1,
        TensorType::Int16 => 2,
        TensorType::Float32 | TensorType::Int32 => 4,
        TensorType::Int64 => 8,
        _ => {
            return Err(KernelError::Unsupported {
                what: "PAD of other types than FLOAT32, INT32, INT64, INT8, UINT8, INT16, BOOL",
            });
        }
    };
    let rank = input.shape.rank();
    if output.shape.rank() != rank || paddings.shape.dims() != [rank, 2] {
        return Err(KernelError::Mismatch {
            what: "paddings not [rank, 2] or output of another rank",
        });
    }
    let wide = match paddings.dtype {
        TensorType::Int32 => false,
        TensorType::Int64 => true,
        _ => {
            return Err(KernelError::Unsupported {
                what: "paddings of other types than INT32, INT64",
            });
        }
    };
    let quantized = matches!(
        input.dtype,
        TensorType::Int8 | TensorType::Uint8 | TensorType::Int16
    ) && input.quantization().is_some_and(|q| q.is_affine());
    let mut p = Params {
        size,
        wide: u32::from(wide),
        ..Params::default()
    };
    if quantized {
        // LiteRT pads with the output's zero point and copies the input's bytes whatever its
        // scale: no check that the two match.
        let (_, zo) = super::base::quant::per_tensor(output.quantization(), output.dtype)?;
        let b = if size == 1 {
            [zo as u8, 0]
        } else {
            (zo as i16).to_ne_bytes()
        };
        p.value[..2].copy_from_slice(&b);
    }
    if let Some(v) = ctx.optional_input(2) {
        if v.dtype != input.dtype || v.shape.elements() != 1 {
            return Err(KernelError::Mismatch {
                what: "pad value not one element of the input's type",
            });
        }
        if quantized && legacy_params(&v) != legacy_params(&output) {
            return Err(KernelError::Mismatch {
                what: "pad value quantized otherwise than the output",
            });
        }
        match v.constant() {
            Some(bytes) => {
                let bytes = bytes.get(..size as usize).ok_or(KernelError::Mismatch {
                    what: "pad value shorter than its type",
                })?;
                // Constants are little-endian in the file.
                let mut b = [0u8; 8];
                b[..bytes.len()].copy_from_slice(bytes);
                if cfg!(target_endian = "big") {
                    b[..bytes.len()].reverse();
                }
                p.value = b;
            }
            None => p.value_input = 1,
        }
    }
    if let Some(bytes) = paddings.constant() {
        let pads = read_paddings(bytes, wide, rank, true)?;
        check_shape(input.shape.dims(), output.shape.dims(), &pads)?;
    }
    ctx.set_params(&p);
    Ok(())
}

/// `(before, after)` per dimension from the paddings' bytes (`little`: the model's
/// little-endian constant; else native order). Negative paddings are refused.
fn read_paddings(
    bytes: &[u8],
    wide: bool,
    rank: usize,
    little: bool,
) -> Result<[(usize, usize); MAX_DIMS], KernelError> {
    let w = if wide { 8 } else { 4 };
    let bad = KernelError::Mismatch {
        what: "paddings negative or shorter than [rank, 2]",
    };
    let mut out = [(0, 0); MAX_DIMS];
    let bytes = bytes.get(..rank * 2 * w).ok_or(bad)?;
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2 * w)) {
        let mut v = [0usize; 2];
        for (dst, b) in v.iter_mut().zip(pair.chunks_exact(w)) {
            let x: i64 = if wide {
                let a: [u8; 8] = b.try_into().map_err(|_| bad)?;
                if little {
                    i64::from_le_bytes(a)
                } else {
                    i64::from_ne_bytes(a)
                }
            } else {
                let a: [u8; 4] = b.try_into().map_err(|_| bad)?;
                i64::from(if little {
                    i32::from_le_bytes(a)
                } else {
                    i32::from_ne_bytes(a)
                })
            };
            *dst = usize::try_from(x).map_err(|_| bad)?;
        }
        *slot = (v[0], v[1]);
    }
    Ok(out)
}

fn check_shape(
    input: &[usize],
    output: &[usize],
    pads: &[(usize, usize); MAX_DIMS],
) -> Result<(), KernelError> {
    for ((&i, &o), &(b, a)) in input.iter().zip(output).zip(pads) {
        if i.checked_add(b).and_then(|v| v.checked_add(a)) != Some(o) {
            return Err(KernelError::Mismatch {
                what: "output shape is not the input's plus the paddings",
            });
        }
    }
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let in_shape = ctx.input_shape(0)?;
    let out_shape = ctx.output_shape(0)?;
    let rank = in_shape.rank();
    let pads = read_paddings(ctx.input_bytes(1)?, p.wide != 0, rank, false)?;
    check_shape(in_shape.dims(), out_shape.dims(), &pads)?;
    let size = p.size as usize;
    let mut value = p.value;
    if p.value_input != 0 {
        let v = ctx.input_bytes(2)?.get(..size).ok_or(SHORT)?;
        value[..size].copy_from_slice(v);
    }
    let x = ctx.input_bytes(0)?;
    let y = ctx.output_bytes(0)?;
    pad_bytes(
        x,
        in_shape.dims(),
        y,
        out_shape.dims(),
        &pads,
        value.get(..size).ok_or(SHORT)?,
    )
}

/// Pads `x` (shape `in_dims`, elements of `value.len()` bytes) into `y` (shape `out_dims`),
/// `pads[d]` before and after dimension `d`, filling with `value`.
pub(super) fn pad_bytes(
    x: &[u8],
    in_dims: &[usize],
    y: &mut [u8],
    out_dims: &[usize],
    pads: &[(usize, usize); MAX_DIMS],
    value: &[u8],
) -> Result<(), KernelError> {
    let size = value.len();
    let rank = in_dims.len();
    if size == 0 || out_dims.len() != rank || rank > MAX_DIMS {
        return Err(KernelError::Mismatch {
            what: "pad: element size or rank",
        });
    }
    let out_len = out_dims.iter().product::<usize>() * size;
    let in_len = in_dims.iter().product::<usize>() * size;
    let y = y.get_mut(..out_len).ok_or(SHORT)?;
    let x = x.get(..in_len).ok_or(SHORT)?;
    if value.iter().all(|&b| b == value[0]) {
        y.fill(value[0]);
    } else {
        for e in y.chunks_exact_mut(size) {
            e.copy_from_slice(value);
        }
    }
    if in_len == 0 {
        return Ok(());
    }
    if rank == 0 {
        y.copy_from_slice(x);
        return Ok(());
    }
    // Output strides (in elements).
    let mut stride = [0usize; MAX_DIMS];
    let mut s = 1;
    for d in (0..rank).rev() {
        stride[d] = s;
        s *= out_dims[d];
    }
    let row = in_dims[rank - 1] * size;
    let last_before = pads[rank - 1].0;
    // Walk the input's rows: an odometer over the leading dimensions.
    let mut idx = [0usize; MAX_DIMS];
    for src in x.chunks_exact(row) {
        let mut at = last_before;
        for d in 0..rank - 1 {
            at += (idx[d] + pads[d].0) * stride[d];
        }
        let at = at * size;
        y.get_mut(at..at + row).ok_or(SHORT)?.copy_from_slice(src);
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            if idx[d] < in_dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
