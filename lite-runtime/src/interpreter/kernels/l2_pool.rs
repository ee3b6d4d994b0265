//! L2_POOL_2D (NHWC, float32), as TensorFlow Lite's reference kernel (`reference_ops::L2Pool`):
//! per output value, `sqrt(sum x^2 / count)` over the window clipped to the image (padding
//! never counted), the squares summed row by row, then the fused activation. LiteRT has no
//! quantized L2 pool.

use super::base::check::{self, SHORT};
use super::base::fused::{clamp, float_range};
use super::base::window::{PoolWindow, pool_window};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, Padding, Pool2DOptions, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// L2_POOL_2D.
pub static L2_POOL_2D: Kernel = Kernel {
    op: BuiltinOperator::L2Pool2D,
    prepare,
    init: None,
    eval,
};

/// The pool's window and clamp.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Geometry {
    pub window: PoolWindow,
    pub lo: f32,
    pub hi: f32,
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: Pool2DOptions = ctx.options()?;
    if !matches!(o.padding, Padding::Same | Padding::Valid) {
        return Err(KernelError::Unsupported { what: "padding" });
    }
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    if input.shape.rank() != 4 || output.shape.rank() != 4 {
        return Err(KernelError::Mismatch {
            what: "input or output not 4-D",
        });
    }
    check::output_type(&input, &output)?;
    if input.dtype != TensorType::Float32 {
        return Err(KernelError::Unsupported {
            what: "L2_POOL_2D of other types than FLOAT32",
        });
    }
    let window = pool_window(&o, &input.shape, &output.shape)?;
    let (lo, hi) = float_range(o.activation)?;
    ctx.set_params(&Geometry { window, lo, hi });
    Ok(())
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let g: Geometry = ctx.params();
    let x = ctx.input::<f32>(0)?;
    let y = ctx.output::<f32>(0)?;
    l2_pool(&g, x, y)
}

/// L2_POOL_2D over `g`: for each output value its window's squares in row order.
pub(super) fn l2_pool(g: &Geometry, input: &[f32], output: &mut [f32]) -> Result<(), KernelError> {
    let (w, c) = (&g.window, g.window.channels as usize);
    let (b_n, ih, iw, oh, ow) = (
        w.batches as usize,
        w.in_h as usize,
        w.in_w as usize,
        w.out_h as usize,
        w.out_w as usize,
    );
    let input = input.get(..b_n * ih * iw * c).ok_or(SHORT)?;
    let output = output.get_mut(..b_n * oh * ow * c).ok_or(SHORT)?;
    if c == 0 {
        return Ok(());
    }
    let mut pixels = output.chunks_exact_mut(c);
    for b in 0..b_n {
        for oy in 0..oh {
            let y0 = (oy * w.stride_h as usize) as i64 - i64::from(w.pad_h);
            let ys = y0.max(0) as usize;
            let ye = (y0 + i64::from(w.f_h)).clamp(0, ih as i64) as usize;
            for ox in 0..ow {
                let x0 = (ox * w.stride_w as usize) as i64 - i64::from(w.pad_w);
                let xs = x0.max(0) as usize;
                let xe = (x0 + i64::from(w.f_w)).clamp(0, iw as i64) as usize;
                let y = pixels.next().ok_or(SHORT)?;
                // An empty window divides 0 by 0, as the reference does: NaN.
                let count = (ye.saturating_sub(ys) * xe.saturating_sub(xs)) as f32;
                for (ch, y) in y.iter_mut().enumerate() {
                    let mut sum = 0.0f32;
                    for iy in ys..ye {
                        for ix in xs..xe {
                            let v = *input
                                .get(((b * ih + iy) * iw + ix) * c + ch)
                                .ok_or(SHORT)?;
                            sum += v * v;
                        }
                    }
                    *y = clamp(libm::sqrtf(sum / count), g.lo, g.hi);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
