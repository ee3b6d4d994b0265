//! Fused activations (`ActivationFunctionType`), as TensorFlow Lite applies them after an
//! op: clamps for floats and integers (`CalculateActivationRange`); the quantized clamps are
//! [`quant::activation_range`](super::quant::activation_range).

use crate::interpreter::KernelError;
use crate::model::Activation;

/// The float range a fused activation clamps to (TensorFlow Lite's
/// `CalculateActivationRange`): `(min, max)`.
///
/// # Errors
/// [`KernelError::Unsupported`] for TANH and SIGN_BIT, which no float kernel fuses.
pub(crate) fn float_range(a: Activation) -> Result<(f32, f32), KernelError> {
    Ok(match a {
        Activation::None => (f32::NEG_INFINITY, f32::INFINITY),
        Activation::Relu => (0.0, f32::INFINITY),
        Activation::ReluN1To1 => (-1.0, 1.0),
        Activation::Relu6 => (0.0, 6.0),
        _ => {
            return Err(KernelError::Unsupported {
                what: "fused activation",
            });
        }
    })
}

/// `x` clamped to `[lo, hi]` as TensorFlow Lite's `ActivationFunctionWithMinMax` does
/// (`min(max(x, lo), hi)` as `std::max` / `std::min` order it: a NaN stays NaN).
#[inline(always)]
pub(crate) fn clamp<T: PartialOrd>(x: T, lo: T, hi: T) -> T {
    // std::max(x, lo) returns x unless x < lo; std::min(v, hi) returns v unless hi < v.
    let v = if x < lo { lo } else { x };
    if hi < v { hi } else { v }
}

/// The integer range a fused activation clamps to (`CalculateActivationRange<T>`), `None`
/// for no activation.
pub(crate) fn int_range(a: Activation, max: i64) -> Result<Option<(i64, i64)>, KernelError> {
    Ok(match a {
        Activation::None => None,
        Activation::Relu => Some((0, max)),
        Activation::ReluN1To1 => Some((-1, 1)),
        Activation::Relu6 => Some((0, 6)),
        _ => {
            return Err(KernelError::Unsupported {
                what: "fused activation",
            });
        }
    })
}
