//! Sliding windows over a spatial dimension, as TensorFlow Lite's convolutions and pools size
//! them (`padding.h`): the output size a padding gives, and the padding before the first
//! window.

use crate::model::Padding;

/// TensorFlow Lite's `ComputeOutSize`.
pub(crate) fn out_size(padding: Padding, size: u64, filter: u64, stride: u64, dil: u64) -> u64 {
    let effective = (filter.saturating_sub(1)) * dil + 1;
    match padding {
        Padding::Same => size.div_ceil(stride),
        _ => (size + stride).saturating_sub(effective) / stride,
    }
}

/// TensorFlow Lite's `ComputePaddingWithOffset` (the before-side padding; the odd extra pixel
/// goes after, which the kernels never read).
pub(crate) fn pad_before(stride: u64, dil: u64, size: u64, filter: u64, out: u64) -> u64 {
    let effective = (filter.saturating_sub(1)) * dil + 1;
    (out.saturating_sub(1) * stride + effective).saturating_sub(size) / 2
}
