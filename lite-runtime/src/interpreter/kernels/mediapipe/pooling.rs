//! `MaxPoolingWithArgmax2D` and `MaxUnpooling2D`. The pool walks each window (clipped to the
//! image) row by row from `f32::MIN`, a later value replacing the maximum only when greater,
//! and gives the maximum clamped by the fused activation (`CalculateActivationRange<float>`:
//! no activation clamps to the finite floats) and its place in the unclipped window,
//! `y * filter_width + x + 0.1` as a float. The unpooling zeroes its output and writes each
//! input where its index points (`(int)index`: `x = i % filter_width`, `y = i /
//! filter_width`, from the input's window origin `(row * stride - padding, ...)`), later
//! inputs over earlier ones.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check::{self, DIM_OVER_U32};
use super::super::base::fused::clamp;
use super::super::base::tensors::{input_n, output_n};
use super::{arity, float, positive, rank, raw_ints};
use crate::interpreter::{Eval, KernelError, Prepare, Shape};

#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Params {
    batches: u32,
    in_h: u32,
    in_w: u32,
    channels: u32,
    out_h: u32,
    out_w: u32,
    f_h: u32,
    f_w: u32,
    stride_h: u32,
    stride_w: u32,
    pad_h: u32,
    pad_w: u32,
    /// The activation's clamp (the pool).
    lo: f32,
    hi: f32,
}

const SAME: i32 = 1;
const VALID: i32 = 2;

/// `TfLitePoolParams`' first six fields: padding, stride w, stride h, filter w, filter h,
/// activation; strides and filter sizes at least 1.
fn options(ctx: &Prepare<'_>) -> Result<(i32, [u32; 4], i32), KernelError> {
    let [padding, sw, sh, fw, fh, activation] = raw_ints::<6>(ctx.custom_options())?;
    Ok((
        padding,
        [positive(sh)?, positive(sw)?, positive(fh)?, positive(fw)?],
        activation,
    ))
}

/// `tflite::ComputePadding` (dilation 1), with C's truncating division.
fn compute_padding(stride: u32, in_size: usize, filter: u32, out_size: usize) -> Result<u32, KernelError> {
    let v = (out_size as i64 - 1) * i64::from(stride) + i64::from(filter) - in_size as i64;
    u32::try_from((v / 2).max(0)).map_err(|_| DIM_OVER_U32)
}

/// `CalculateActivationRange<float>` of a `TfLiteFusedActivation` code: RELU, RELU_N1_TO_1,
/// RELU6, and the finite floats for every other code.
fn activation_range(code: i32) -> (f32, f32) {
    match code {
        1 => (0.0, f32::MAX),
        2 => (-1.0, 1.0),
        3 => (0.0, 6.0),
        _ => (f32::MIN, f32::MAX),
    }
}

fn dims(s: &Shape) -> [usize; 4] {
    let d = |i| s.dim(i).unwrap_or(0);
    [d(0), d(1), d(2), d(3)]
}

pub(super) fn prepare_argmax(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    arity(ctx, 1, 2)?;
    let (padding, [sh, sw, fh, fw], activation) = options(ctx)?;
    let (input, output, indices) = (ctx.input(0)?, ctx.output(0)?, ctx.output(1)?);
    for d in [&input, &output, &indices] {
        float(d)?;
    }
    rank(&input, 4)?;
    let [b, ih, iw, c] = dims(&input.shape);
    // MediaPipe's output size: an unknown padding gives an empty output.
    let size = |n: usize, f: u32, s: u32| match padding {
        SAME => n.div_ceil(s as usize),
        VALID => (n + s as usize).saturating_sub(f as usize) / s as usize,
        _ => 0,
    };
    let (oh, ow) = (size(ih, fh, sh), size(iw, fw, sw));
    let out = Shape::new(&[b, oh, ow, c]).ok_or(DIM_OVER_U32)?;
    check::output_shape(&output, &out)?;
    check::output_shape(&indices, &out)?;
    let (lo, hi) = activation_range(activation);
    ctx.set_params(&Params {
        batches: check::dim(b)?,
        in_h: check::dim(ih)?,
        in_w: check::dim(iw)?,
        channels: check::dim(c)?,
        out_h: check::dim(oh)?,
        out_w: check::dim(ow)?,
        f_h: fh,
        f_w: fw,
        stride_h: sh,
        stride_w: sw,
        pad_h: compute_padding(sh, ih, fh, oh)?,
        pad_w: compute_padding(sw, iw, fw, ow)?,
        lo,
        hi,
    });
    Ok(())
}

pub(super) fn eval_argmax(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (b, ih, iw, c) = (
        p.batches as usize,
        p.in_h as usize,
        p.in_w as usize,
        p.channels as usize,
    );
    let (oh, ow) = (p.out_h as usize, p.out_w as usize);
    let n = b * oh * ow * c;
    let x = input_n::<f32>(ctx, 0, b * ih * iw * c)?;
    let out = output_n::<f32>(ctx, 0, n)?;
    let idx = output_n::<f32>(ctx, 1, n)?;
    let (fh, fw) = (p.f_h as i64, p.f_w as i64);
    let mut at = 0;
    for batch in 0..b {
        for oy in 0..oh {
            for ox in 0..ow {
                let y0 = oy as i64 * i64::from(p.stride_h) - i64::from(p.pad_h);
                let x0 = ox as i64 * i64::from(p.stride_w) - i64::from(p.pad_w);
                // The window clipped to the image, as filter offsets.
                let (fy0, fy1) = ((-y0).max(0), fh.min(ih as i64 - y0));
                let (fx0, fx1) = ((-x0).max(0), fw.min(iw as i64 - x0));
                for ch in 0..c {
                    let (mut best, mut by, mut bx) = (f32::MIN, 0, 0);
                    for fy in fy0..fy1 {
                        let row = (batch * ih + (y0 + fy) as usize) * iw;
                        for fx in fx0..fx1 {
                            let v = x[(row + (x0 + fx) as usize) * c + ch];
                            if v > best {
                                (best, by, bx) = (v, fy, fx);
                            }
                        }
                    }
                    out[at] = clamp(best, p.lo, p.hi);
                    idx[at] = (by * fw + bx) as f32 + 0.1;
                    at += 1;
                }
            }
        }
    }
    Ok(())
}

pub(super) fn prepare_unpool(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    arity(ctx, 2, 1)?;
    let (_, [sh, sw, fh, fw], _) = options(ctx)?;
    let (input, indices, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    for d in [&input, &indices, &output] {
        float(d)?;
    }
    rank(&input, 4)?;
    rank(&indices, 4)?;
    if indices.shape != input.shape {
        return Err(KernelError::Mismatch {
            what: "MaxUnpooling2D indices of another shape than its input",
        });
    }
    let [b, ih, iw, c] = dims(&input.shape);
    let oh = ih.checked_mul(fh as usize).ok_or(DIM_OVER_U32)?;
    let ow = iw.checked_mul(fw as usize).ok_or(DIM_OVER_U32)?;
    check::output_shape(&output, &Shape::new(&[b, oh, ow, c]).ok_or(DIM_OVER_U32)?)?;
    ctx.set_params(&Params {
        batches: check::dim(b)?,
        in_h: check::dim(ih)?,
        in_w: check::dim(iw)?,
        channels: check::dim(c)?,
        out_h: check::dim(oh)?,
        out_w: check::dim(ow)?,
        f_h: fh,
        f_w: fw,
        stride_h: sh,
        stride_w: sw,
        // MediaPipe's unpooling padding: the pool's, with the output as its input.
        pad_h: compute_padding(sh, oh, fh, ih)?,
        pad_w: compute_padding(sw, ow, fw, iw)?,
        lo: 0.0,
        hi: 0.0,
    });
    Ok(())
}

pub(super) fn eval_unpool(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (b, ih, iw, c) = (
        p.batches as usize,
        p.in_h as usize,
        p.in_w as usize,
        p.channels as usize,
    );
    let (oh, ow) = (p.out_h as usize, p.out_w as usize);
    let n = b * ih * iw * c;
    let x = input_n::<f32>(ctx, 0, n)?;
    let indices = input_n::<f32>(ctx, 1, n)?;
    let out = output_n::<f32>(ctx, 0, b * oh * ow * c)?;
    out.fill(0.0);
    let fw = i64::from(p.f_w);
    let mut at = 0;
    for batch in 0..b {
        for y in 0..ih {
            for xx in 0..iw {
                for ch in 0..c {
                    let v = indices[at];
                    // C's float-to-int conversion truncates; outside int it is undefined,
                    // and refused here with what lands outside the output.
                    let outside = KernelError::IndexOutOfRange {
                        input: 1,
                        position: at,
                        index: if v.is_nan() { i64::MIN } else { v as i64 },
                        limit: (p.f_h * p.f_w) as usize,
                    };
                    if !(v > -2_147_483_649.0 && v < 2_147_483_648.0) {
                        return Err(outside);
                    }
                    let i = v as i64;
                    let oy = y as i64 * i64::from(p.stride_h) - i64::from(p.pad_h) + i / fw;
                    let ox = xx as i64 * i64::from(p.stride_w) - i64::from(p.pad_w) + i % fw;
                    if !(0..oh as i64).contains(&oy) || !(0..ow as i64).contains(&ox) {
                        return Err(outside);
                    }
                    out[((batch * oh + oy as usize) * ow + ox as usize) * c + ch] = x[at];
                    at += 1;
                }
            }
        }
    }
    Ok(())
}
