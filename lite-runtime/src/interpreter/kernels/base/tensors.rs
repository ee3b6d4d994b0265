//! Typed access to an operator's tensors at invoke: the first `n` elements of an input or
//! output, raw tensor bytes as words, the element width of the types data movement copies,
//! and string outputs encoded into their byte budget.

use tessera_core::strings::{TfliteEncodeError, encode_tflite};
use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::check::SHORT;
use crate::interpreter::cast::{slice_of, slice_of_mut};
use crate::interpreter::{Desc, Eval, KernelError};
use crate::model::TensorType;

/// Input `i`'s first `n` elements.
///
/// # Errors
/// [`SHORT`] if it holds fewer; a mismatch if its type is not `T`.
pub(crate) fn input_n<'a, T: Element>(
    ctx: &Eval<'a>,
    i: usize,
    n: usize,
) -> Result<&'a [T], KernelError> {
    if n == 0 {
        return Ok(&[]);
    }
    ctx.input::<T>(i)?.get(..n).ok_or(SHORT)
}

/// Output `i`'s first `n` elements, to write.
///
/// # Errors
/// As [`input_n`].
pub(crate) fn output_n<'a, T: Element>(
    ctx: &mut Eval<'a>,
    i: usize,
    n: usize,
) -> Result<&'a mut [T], KernelError> {
    if n == 0 {
        return Ok(&mut []);
    }
    ctx.output::<T>(i)?.get_mut(..n).ok_or(SHORT)
}

/// Bytes per element of a type the data-movement kernels move as plain numbers: float32,
/// int32, int64, bool, and the quantized int8, uint8 and int16 (their bytes are copied, as
/// TensorFlow Lite copies them; a kernel that needs the output's quantization to match the
/// input's checks it with [`same_quantization`]). Strings go through [`write_strings`].
///
/// # Errors
/// [`KernelError::Unsupported`] for other types.
pub(crate) fn element_bytes(t: TensorType) -> Result<usize, KernelError> {
    match t {
        TensorType::Float32 | TensorType::Int32 => Ok(4),
        TensorType::Int64 => Ok(8),
        TensorType::Bool | TensorType::Int8 | TensorType::Uint8 => Ok(1),
        TensorType::Int16 => Ok(2),
        _ => Err(KernelError::Unsupported {
            what: "element type (float32, int32, int64, bool, int8, uint8, int16 only)",
        }),
    }
}

/// TensorFlow Lite's legacy per-tensor parameters of a tensor (`params.scale`,
/// `params.zero_point`): the one scale and zero point of a per-tensor quantization, `(0, 0)`
/// otherwise (no quantization, or one per channel).
#[must_use]
pub(crate) fn legacy_params(d: &Desc<'_>) -> (f32, i64) {
    match d.quantization() {
        Some(q) if q.scale().len() == 1 => (
            q.scale().get(0).unwrap_or(0.0),
            q.zero_point().get(0).unwrap_or(0),
        ),
        _ => (0.0, 0),
    }
}

/// The output's quantization is the input's (TensorFlow Lite's `TF_LITE_ENSURE_EQ` on
/// `params.scale` and `params.zero_point`, which kernels that copy quantized bytes make),
/// and an int16 tensor's zero point is 0 when `int16_zero` (the symmetric int16 scheme).
///
/// # Errors
/// A mismatch naming which.
pub(crate) fn same_quantization(
    input: &Desc<'_>,
    output: &Desc<'_>,
    int16_zero: bool,
) -> Result<(), KernelError> {
    let (a, b) = (legacy_params(input), legacy_params(output));
    if a != b {
        return Err(KernelError::Mismatch {
            what: "output scale or zero point other than the input's",
        });
    }
    if int16_zero && input.dtype == TensorType::Int16 && a.1 != 0 {
        return Err(KernelError::Unsupported {
            what: "int16 tensor with a non-zero zero point",
        });
    }
    Ok(())
}

const MISALIGNED: KernelError = KernelError::Mismatch {
    what: "tensor bytes misaligned for their element type",
};

/// `bytes` as a slice of `W` (tensor bytes are aligned for their element type).
///
/// # Errors
/// A mismatch if they are not.
pub(crate) fn words<W: FromBytes + Immutable + KnownLayout>(
    bytes: &[u8],
) -> Result<&[W], KernelError> {
    slice_of(bytes).ok_or(MISALIGNED)
}

/// `bytes` as a mutable slice of `W`.
///
/// # Errors
/// A mismatch if they are misaligned.
pub(crate) fn words_mut<W: FromBytes + IntoBytes + KnownLayout>(
    bytes: &mut [u8],
) -> Result<&mut [W], KernelError> {
    slice_of_mut(bytes).ok_or(MISALIGNED)
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
