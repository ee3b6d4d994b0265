//! Sliding windows over a spatial dimension, as TensorFlow Lite's convolutions and pools size
//! them (`padding.h`): the output size a padding gives, and the padding before the first
//! window; and a 2-D pool's window, checked, which every pool kernel shares.

use crate::interpreter::{KernelError, Shape};
use crate::model::{Padding, Pool2DOptions};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

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

/// A 2-D pool's window over an NHWC input (sizes under 2^30, filter sizes and strides in
/// `1..65536`); plain bytes, so a kernel may keep it in its parameters.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable,
)]
#[repr(C)]
pub(crate) struct PoolWindow {
    pub batches: u32,
    pub in_h: u32,
    pub in_w: u32,
    pub channels: u32,
    pub out_h: u32,
    pub out_w: u32,
    pub f_h: u32,
    pub f_w: u32,
    pub stride_h: u32,
    pub stride_w: u32,
    pub pad_h: u32,
    pub pad_w: u32,
}

/// The window `o` slides over the 4-D `input`, checked: filter sizes and strides in
/// `1..65536`, `output` the shape the pool computes, every size under 2^30.
// Inlined: each pool's `prepare` then folds it with its own checks (a call cost 264 B of
// Cortex-M4 flash in the keyword-spotting image).
#[inline(always)]
pub(crate) fn pool_window(
    o: &Pool2DOptions,
    input: &Shape,
    output: &Shape,
) -> Result<PoolWindow, KernelError> {
    let small16 = |v: i32| {
        u16::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .map(u32::from)
            .ok_or(KernelError::Mismatch {
                what: "filter size or stride not in 1..65536",
            })
    };
    let (f_h, f_w) = (small16(o.filter_height)?, small16(o.filter_width)?);
    let (s_h, s_w) = (small16(o.stride_h)?, small16(o.stride_w)?);
    let d = |i: usize| input.dim(i).unwrap_or(0) as u64;
    let (batches, in_h, in_w, c) = (d(0), d(1), d(2), d(3));
    let out_h = out_size(o.padding, in_h, f_h.into(), s_h.into(), 1);
    let out_w = out_size(o.padding, in_w, f_w.into(), s_w.into(), 1);
    let od = |i: usize| output.dim(i).unwrap_or(0) as u64;
    if [od(0), od(1), od(2), od(3)] != [batches, out_h, out_w, c] {
        return Err(KernelError::Mismatch {
            what: "output shape is not what the pool computes",
        });
    }
    let big = KernelError::Unsupported {
        what: "pool dimension over 2^30",
    };
    let n = |v: u64| u32::try_from(v).ok().filter(|&v| v < 1 << 30).ok_or(big);
    n(batches * in_h * in_w * c)?;
    n(batches * out_h * out_w * c)?;
    Ok(PoolWindow {
        batches: n(batches)?,
        in_h: n(in_h)?,
        in_w: n(in_w)?,
        channels: n(c)?,
        out_h: n(out_h)?,
        out_w: n(out_w)?,
        f_h,
        f_w,
        stride_h: s_h,
        stride_w: s_w,
        pad_h: n(pad_before(s_h.into(), 1, in_h, f_h.into(), out_h))?,
        pad_w: n(pad_before(s_w.into(), 1, in_w, f_w.into(), out_w))?,
    })
}
