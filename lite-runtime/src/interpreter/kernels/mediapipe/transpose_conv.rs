//! `Convolution2DTransposeBias`: each output starts at its bias, then every input value times
//! every filter tap is added where it lands, in MediaPipe's order (input row, column,
//! channel, filter row, column), so each output's float sum is the reference's. The filter
//! (`[out, h, w, in]`, constant or computed) is copied output-channel-innermost into the
//! scratch at each invoke, so the innermost loop runs over contiguous output channels.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check::{self, SHORT};
use super::super::base::tensors::{input_n, output_n, words_mut};
use super::{arity, float, positive, rank, raw_ints};
use crate::interpreter::{Eval, KernelError, Prepare};

#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Params {
    batches: u32,
    in_h: u32,
    in_w: u32,
    in_c: u32,
    out_h: u32,
    out_w: u32,
    out_c: u32,
    f_h: u32,
    f_w: u32,
    stride_h: u32,
    stride_w: u32,
    pad_h: u32,
    pad_w: u32,
}

const SAME: i32 = 1;

pub(super) fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    arity(ctx, 3, 1)?;
    let [padding, stride_w, stride_h] = raw_ints::<3>(ctx.custom_options())?;
    let (stride_w, stride_h) = (positive(stride_w)?, positive(stride_h)?);
    let (input, weights, bias, output) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.output(0)?);
    for d in [&input, &weights, &bias, &output] {
        float(d)?;
    }
    rank(&input, 4)?;
    rank(&weights, 4)?;
    rank(&bias, 1)?;
    let d = |s: &crate::interpreter::Shape, i| s.dim(i).unwrap_or(0);
    let (batches, in_h, in_w, in_c) = (
        d(&input.shape, 0),
        d(&input.shape, 1),
        d(&input.shape, 2),
        d(&input.shape, 3),
    );
    let (out_c, f_h, f_w) = (d(&weights.shape, 0), d(&weights.shape, 1), d(&weights.shape, 2));
    if d(&weights.shape, 3) != in_c || d(&bias.shape, 0) != out_c {
        return Err(KernelError::Mismatch {
            what: "filter channels differ from the input's, or bias length from the filter's",
        });
    }
    if in_h == 0 || in_w == 0 {
        return Err(KernelError::Unsupported {
            what: "Convolution2DTransposeBias of an empty image",
        });
    }
    // The padding a SAME transposed convolution trims (`filter - (in - 1) % stride - 1`), its
    // first half before.
    let (sh, sw) = (stride_h as usize, stride_w as usize);
    let trim = |f: usize, size: usize, s: usize| {
        if padding == SAME {
            f.saturating_sub((size - 1) % s + 1)
        } else {
            0
        }
    };
    let (trim_h, trim_w) = (trim(f_h, in_h, sh), trim(f_w, in_w, sw));
    let big = check::DIM_OVER_U32;
    let out_h = sh
        .checked_mul(in_h - 1)
        .and_then(|v| v.checked_add(f_h))
        .ok_or(big)?
        - trim_h;
    let out_w = sw
        .checked_mul(in_w - 1)
        .and_then(|v| v.checked_add(f_w))
        .ok_or(big)?
        - trim_w;
    check::output_shape(
        &output,
        &crate::interpreter::Shape::new(&[batches, out_h, out_w, out_c]).ok_or(big)?,
    )?;
    let p = Params {
        batches: check::dim(batches)?,
        in_h: check::dim(in_h)?,
        in_w: check::dim(in_w)?,
        in_c: check::dim(in_c)?,
        out_h: check::dim(out_h)?,
        out_w: check::dim(out_w)?,
        out_c: check::dim(out_c)?,
        f_h: check::dim(f_h)?,
        f_w: check::dim(f_w)?,
        stride_h,
        stride_w,
        pad_h: check::dim(trim_h / 2)?,
        pad_w: check::dim(trim_w / 2)?,
    };
    let taps = weights.shape.elements();
    ctx.request_scratch(taps.checked_mul(4).ok_or(big)?);
    ctx.set_params(&p);
    Ok(())
}

pub(super) fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let (b, ih, iw, ic) = (
        p.batches as usize,
        p.in_h as usize,
        p.in_w as usize,
        p.in_c as usize,
    );
    let (oh, ow, oc) = (p.out_h as usize, p.out_w as usize, p.out_c as usize);
    let (fh, fw) = (p.f_h as usize, p.f_w as usize);
    let taps = oc * fh * fw * ic;
    let x = input_n::<f32>(ctx, 0, b * ih * iw * ic)?;
    let w = input_n::<f32>(ctx, 1, taps)?;
    let bias = input_n::<f32>(ctx, 2, oc)?;
    let out = output_n::<f32>(ctx, 0, b * oh * ow * oc)?;
    if oh * ow * oc == 0 {
        return Ok(());
    }
    if taps == 0 {
        // No channel in, or an empty filter: the bias alone.
        for row in out.chunks_exact_mut(oc) {
            row.copy_from_slice(bias);
        }
        return Ok(());
    }
    let wt: &mut [f32] = words_mut(ctx.scratch().get_mut(..taps * 4).ok_or(SHORT)?)?;
    // [out, h, w, in] to [h, w, in, out].
    for (o, per_out) in w.chunks_exact(fh * fw * ic).enumerate() {
        for (tap, &v) in per_out.iter().enumerate() {
            wt[tap * oc + o] = v;
        }
    }
    let (pad_h, pad_w) = (p.pad_h as usize, p.pad_w as usize);
    let (sh, sw) = (p.stride_h as usize, p.stride_w as usize);
    for (image, x) in out.chunks_exact_mut(oh * ow * oc).zip(x.chunks_exact(ih * iw * ic)) {
        for row in image.chunks_exact_mut(oc) {
            row.copy_from_slice(bias);
        }
        for y in 0..ih {
            for xx in 0..iw {
                let pixel = &x[(y * iw + xx) * ic..][..ic];
                for (c, &v) in pixel.iter().enumerate() {
                    for fy in 0..fh {
                        // out_y = y * stride - pad + fy, skipped outside the output.
                        let Some(oy) = (y * sh + fy).checked_sub(pad_h).filter(|&o| o < oh)
                        else {
                            continue;
                        };
                        for fx in 0..fw {
                            let Some(ox) = (xx * sw + fx).checked_sub(pad_w).filter(|&o| o < ow)
                            else {
                                continue;
                            };
                            let at = (oy * ow + ox) * oc;
                            let dst = &mut image[at..at + oc];
                            let taps = &wt[((fy * fw + fx) * ic + c) * oc..][..oc];
                            for (o, &t) in dst.iter_mut().zip(taps) {
                                *o += v * t;
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
