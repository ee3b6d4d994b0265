//! Fused activations (`ActivationFunctionType`), as TensorFlow Lite applies them after an
//! op: clamps for float (`CalculateActivationRange`).

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
/// (`min(max(x, lo), hi)`: a NaN stays NaN... as `std::max` / `std::min` order it).
#[inline]
pub(crate) fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    // std::max(x, lo) returns x unless x < lo; std::min(v, hi) returns v unless hi < v.
    let v = if x < lo { lo } else { x };
    if hi < v { hi } else { v }
}
