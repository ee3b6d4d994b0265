//! `TransformTensorBilinear` and `TransformLandmarks`, version 2. Both read the first two rows
//! of a 4x4 matrix `m`. The tensor transform samples the first image of its input at
//! `(m0 x + m1 y + m2 0 + m3', m4 x + m5 y + m6 0 + m7')` for each output pixel `(x, y)`,
//! where `m3' = m3 + (m0 / 2 + m1 / 2 - 1 / 2)` (the align-corners correction, in double);
//! outside `[0, size - 1]` the pixel is 0, else the bilinear mix of its four neighbours
//! (a neighbour past the edge reads 0) with MediaPipe's float / double promotions. The
//! landmark transform maps each landmark's `(x, y, 0, 1)` the same way (without the
//! correction) and copies its `z`.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check;
use super::super::base::tensors::{input_n, output_n};
use super::{arity, dot, float, matrix_operand, rank, version_2};
use crate::interpreter::{Eval, KernelError, Prepare};

#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Tensor {
    in_h: u32,
    in_w: u32,
    in_c: u32,
    out_h: u32,
    out_w: u32,
    out_c: u32,
}

/// The first two rows of the matrix operand (input 1).
fn rows(ctx: &Eval<'_>) -> Result<([f32; 4], [f32; 4]), KernelError> {
    let m = input_n::<f32>(ctx, 1, 8)?;
    Ok(([m[0], m[1], m[2], m[3]], [m[4], m[5], m[6], m[7]]))
}

pub(super) fn prepare_tensor(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    arity(ctx, 2, 1)?;
    version_2(ctx)?;
    let (input, matrix, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    float(&input)?;
    float(&output)?;
    rank(&input, 4)?;
    rank(&output, 4)?;
    matrix_operand(&matrix)?;
    let d = |s: &crate::interpreter::Shape, i| s.dim(i).unwrap_or(0);
    let (out_h, out_w, out_c) = (d(&output.shape, 1), d(&output.shape, 2), d(&output.shape, 3));
    let (in_h, in_w, in_c) = (d(&input.shape, 1), d(&input.shape, 2), d(&input.shape, 3));
    // MediaPipe fills the first output image from the first input image, its channels from
    // the input's first ones: anything else is left unwritten or read out of bounds.
    let filled = out_h * out_w * out_c == 0 || (d(&input.shape, 0) >= 1 && out_c <= in_c);
    if d(&output.shape, 0) != 1 || !filled {
        return Err(KernelError::Unsupported {
            what: "TransformTensorBilinear output other than one image of at most the input's channels",
        });
    }
    ctx.set_params(&Tensor {
        in_h: check::dim(in_h)?,
        in_w: check::dim(in_w)?,
        in_c: check::dim(in_c)?,
        out_h: check::dim(out_h)?,
        out_w: check::dim(out_w)?,
        out_c: check::dim(out_c)?,
    });
    Ok(())
}

pub(super) fn eval_tensor(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Tensor = ctx.params();
    let (ih, iw, ic) = (p.in_h as usize, p.in_w as usize, p.in_c as usize);
    let (oh, ow, oc) = (p.out_h as usize, p.out_w as usize, p.out_c as usize);
    let (mut xt, mut yt) = rows(ctx)?;
    let x = input_n::<f32>(ctx, 0, ih * iw * ic)?;
    let out = output_n::<f32>(ctx, 0, oh * ow * oc)?;
    if oc == 0 {
        return Ok(());
    }
    // x_transform[3] += x_transform[0] * 0.5 + x_transform[1] * 0.5 - 0.5, in double.
    let f = f64::from;
    xt[3] = (f(xt[3]) + (f(xt[0]) * 0.5 + f(xt[1]) * 0.5 - 0.5)) as f32;
    yt[3] = (f(yt[3]) + (f(yt[0]) * 0.5 + f(yt[1]) * 0.5 - 0.5)) as f32;
    let (max_x, max_y) = ((iw as i64 - 1) as f32, (ih as i64 - 1) as f32);
    let read = |h: i64, w: i64, z: usize| -> f32 {
        if h < 0 || w < 0 || h >= ih as i64 || w >= iw as i64 {
            0.0
        } else {
            x[(h as usize * iw + w as usize) * ic + z]
        }
    };
    for (k, pixel) in out.chunks_exact_mut(oc).enumerate() {
        let coord = [(k % ow) as f32, (k / ow) as f32, 0.0, 1.0];
        let (tx, ty) = (dot(xt, coord), dot(yt, coord));
        if tx < 0.0 || tx > max_x || ty < 0.0 || ty > max_y {
            pixel.fill(0.0);
            continue;
        }
        let (fx, fy) = (libm::floorf(tx), libm::floorf(ty));
        // Whole numbers inside the image (or NaN, which makes every result NaN).
        let (cx, cy) = (fx as i64, fy as i64);
        let (right, lower) = (tx - fx, ty - fy);
        for (z, o) in pixel.iter_mut().enumerate() {
            let (q11, q21) = (read(cy, cx, z), read(cy, cx + 1, z));
            let (q12, q22) = (read(cy + 1, cx, z), read(cy + 1, cx + 1, z));
            let upper_mix = ((1.0 - f(right)) * f(q11) + f(right * q21)) as f32;
            let lower_mix = ((1.0 - f(right)) * f(q12) + f(right * q22)) as f32;
            *o = (f(lower * lower_mix) + (1.0 - f(lower)) * f(upper_mix)) as f32;
        }
    }
    Ok(())
}

#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Landmarks {
    count: u32,
    /// 2 or 3 values per landmark.
    dims: u32,
}

pub(super) fn prepare_landmarks(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    arity(ctx, 2, 1)?;
    version_2(ctx)?;
    let (input, matrix, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    float(&input)?;
    float(&output)?;
    rank(&input, 3)?;
    matrix_operand(&matrix)?;
    check::output_shape(&output, &input.shape)?;
    let d = |i| input.shape.dim(i).unwrap_or(0);
    // The landmark's values (the output's last dimension) are its `dimensions`.
    if !matches!(d(2), 2 | 3) {
        return Err(KernelError::Mismatch {
            what: "TransformLandmarks with other than 2 or 3 values per landmark",
        });
    }
    // MediaPipe transforms the first row of landmarks only.
    if d(0) > 1 {
        return Err(KernelError::Unsupported {
            what: "TransformLandmarks over more than one row of landmarks",
        });
    }
    let count = if d(0) == 0 { 0 } else { d(1) };
    ctx.set_params(&Landmarks {
        count: check::dim(count)?,
        dims: check::dim(d(2))?,
    });
    Ok(())
}

pub(super) fn eval_landmarks(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Landmarks = ctx.params();
    let n = p.count as usize * p.dims as usize;
    let (xt, yt) = rows(ctx)?;
    let lm = input_n::<f32>(ctx, 0, n)?;
    let out = output_n::<f32>(ctx, 0, n)?;
    if n == 0 {
        return Ok(());
    }
    for (o, l) in out
        .chunks_exact_mut(p.dims as usize)
        .zip(lm.chunks_exact(p.dims as usize))
    {
        let v = [l[0], l[1], 0.0, 1.0];
        o[0] = dot(xt, v);
        o[1] = dot(yt, v);
        if let (Some(z), Some(&lz)) = (o.get_mut(2), l.get(2)) {
            *z = lz;
        }
    }
    Ok(())
}
