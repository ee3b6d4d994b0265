//! What the data-movement kernels share: which element types they move (and how wide), the
//! small integer operands (begin, size, perm, dims) read from a constant at setup or from the
//! tensor at invoke, and string outputs written into their byte budget.

use tessera_core::strings::{TfliteEncodeError, encode_tflite};
use zerocopy::{FromBytes, Immutable, IntoBytes};

use crate::interpreter::{Desc, Eval, KernelError, MAX_DIMS};
use crate::model::TensorType;

/// The most entries an index operand (begin, end, strides, size, perm, dims) may hold: a
/// strided slice's spec can name an ellipsis and new axes besides the input's dimensions.
pub(crate) const MAX_SPEC: usize = MAX_DIMS + 2;

/// Bytes per element of a type these kernels move as plain numbers: float32, int32, int64
/// and bool. Quantized types are issue 16's kernels; strings go through
/// [`write_strings`].
pub(crate) fn element_bytes(t: TensorType) -> Result<usize, KernelError> {
    match t {
        TensorType::Float32 | TensorType::Int32 => Ok(4),
        TensorType::Int64 => Ok(8),
        TensorType::Bool => Ok(1),
        TensorType::Int8 | TensorType::Uint8 | TensorType::Int16 => Err(KernelError::Unsupported {
            what: "quantized data movement (issue 16's kernels)",
        }),
        _ => Err(KernelError::Unsupported {
            what: "element type (float32, int32, int64, bool only)",
        }),
    }
}

/// A `u32` from a size the model gave (setup already bounded tensors to 4 GiB).
pub(crate) fn small(v: usize) -> Result<u32, KernelError> {
    u32::try_from(v).map_err(|_| KernelError::Unsupported {
        what: "dimension over u32",
    })
}

/// An index operand: 1-D (or scalar), int32 or int64, at most [`MAX_SPEC`] entries. Returns
/// the entry count.
pub(crate) fn check_spec(d: &Desc<'_>, what: &'static str) -> Result<usize, KernelError> {
    if !matches!(d.dtype, TensorType::Int32 | TensorType::Int64) {
        return Err(KernelError::Unsupported { what });
    }
    let n = d.shape.elements();
    if d.shape.rank() > 1 || n > MAX_SPEC {
        return Err(KernelError::Mismatch { what });
    }
    Ok(n)
}

/// The entries of a constant index operand (little-endian in the model), or `None` if the
/// operand is computed at invoke.
pub(crate) fn const_spec(
    d: &Desc<'_>,
    out: &mut [i64; MAX_SPEC],
) -> Result<Option<usize>, KernelError> {
    let Some(bytes) = d.constant() else {
        return Ok(None);
    };
    let n = d.shape.elements().min(MAX_SPEC);
    let width = if d.dtype == TensorType::Int64 { 8 } else { 4 };
    let short = KernelError::Mismatch {
        what: "constant shorter than its shape",
    };
    for (i, slot) in out.iter_mut().take(n).enumerate() {
        let at = i * width;
        let b = bytes.get(at..at + width).ok_or(short)?;
        *slot = if width == 8 {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            i64::from_le_bytes(w)
        } else {
            let mut w = [0u8; 4];
            w.copy_from_slice(b);
            i64::from(i32::from_le_bytes(w))
        };
    }
    Ok(Some(n))
}

/// The entries of index operand `i` at invoke (its type was checked at setup).
pub(crate) fn eval_spec(
    ctx: &Eval<'_>,
    i: usize,
    out: &mut [i64; MAX_SPEC],
) -> Result<usize, KernelError> {
    let long = KernelError::Mismatch {
        what: "index operand longer than its shape",
    };
    let bytes = ctx.input_bytes(i)?;
    if ctx.input_type(i)? == TensorType::Int64 {
        let v = words::<i64>(bytes)?;
        out.get_mut(..v.len()).ok_or(long)?.copy_from_slice(v);
        Ok(v.len())
    } else {
        let v = words::<i32>(bytes)?;
        for (slot, &x) in out.get_mut(..v.len()).ok_or(long)?.iter_mut().zip(v) {
            *slot = i64::from(x);
        }
        Ok(v.len())
    }
}

/// Writes `strings` as a TFLite string tensor into output `output`'s bytes and records its
/// length.
///
/// # Errors
/// [`KernelError::StringBudget`] if they do not fit.
pub(crate) fn write_strings<I, B>(
    ctx: &mut Eval<'_>,
    output: usize,
    strings: I,
) -> Result<(), KernelError>
where
    I: IntoIterator<Item = B> + Clone,
    B: AsRef<[u8]>,
{
    let dst = ctx.output_bytes(output)?;
    let budget = dst.len();
    let n = encode_tflite(strings, dst).map_err(|e| match e {
        TfliteEncodeError::Capacity(c) => KernelError::StringBudget {
            output,
            needed: c.needed,
            budget,
        },
        TfliteEncodeError::TooLarge { .. } => KernelError::StringBudget {
            output,
            needed: usize::MAX,
            budget,
        },
    })?;
    ctx.set_output_len(output, n);
    Ok(())
}

/// `bytes` as a slice of `W` (tensor bytes are aligned for their element type).
pub(crate) fn words<W: FromBytes + Immutable>(bytes: &[u8]) -> Result<&[W], KernelError> {
    if bytes.is_empty() {
        // An empty tensor's bytes may be a bare `&[]`, aligned for bytes only.
        return Ok(&[]);
    }
    <[W]>::ref_from_bytes(bytes).map_err(|_| MISALIGNED)
}

/// `bytes` as a mutable slice of `W`.
pub(crate) fn words_mut<W: FromBytes + IntoBytes>(
    bytes: &mut [u8],
) -> Result<&mut [W], KernelError> {
    if bytes.is_empty() {
        return Ok(&mut []);
    }
    <[W]>::mut_from_bytes(bytes).map_err(|_| MISALIGNED)
}

const MISALIGNED: KernelError = KernelError::Mismatch {
    what: "tensor bytes misaligned for their element type",
};
