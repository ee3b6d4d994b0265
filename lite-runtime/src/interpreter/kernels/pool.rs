//! AVERAGE_POOL_2D and MAX_POOL_2D (NHWC), float32, int8, int16 and uint8, as TensorFlow Lite's
//! reference kernels: windows clipped to the image (padding never counted), the quantized
//! average rounded half away from zero (`(sum ± count / 2) / count`), quantized outputs in the
//! input's scale and zero point. Per output pixel the window's rows are summed (or maxed)
//! channel-wise over contiguous runs, which keeps each channel's order the reference's.

use super::base::check::{self, SHORT};
use super::base::fused::{clamp, float_range};
use super::base::quant;
use super::base::window::pool_window;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, Padding, Pool2DOptions, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// AVERAGE_POOL_2D.
pub static AVERAGE_POOL_2D: Kernel = Kernel {
    op: BuiltinOperator::AveragePool2D,
    prepare: prepare::<false>,
    init: None,
    eval: eval_average::<false>,
};

/// MAX_POOL_2D.
pub static MAX_POOL_2D: Kernel = Kernel {
    op: BuiltinOperator::MaxPool2D,
    prepare: prepare::<false>,
    init: None,
    eval: eval_max::<false>,
};

/// AVERAGE_POOL_2D for int8 models only (as TensorFlow Lite Micro's
/// `Register_AVERAGE_POOL_2D_INT8`): no float32 or int16 body linked. Other types stop
/// set-up with [`KernelError::Unsupported`].
pub static AVERAGE_POOL_2D_INT8: Kernel = Kernel {
    op: BuiltinOperator::AveragePool2D,
    prepare: prepare::<true>,
    init: None,
    eval: eval_average::<true>,
};

/// MAX_POOL_2D for int8 models only, as [`AVERAGE_POOL_2D_INT8`].
pub static MAX_POOL_2D_INT8: Kernel = Kernel {
    op: BuiltinOperator::MaxPool2D,
    prepare: prepare::<true>,
    init: None,
    eval: eval_max::<true>,
};

/// A pool's sizes and output clamp.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct PoolGeometry {
    /// The element type's code (`TensorType`).
    pub dtype: u32,
    pub batches: u32,
    pub in_h: u32,
    pub in_w: u32,
    pub channels: u32,
    pub out_h: u32,
    pub out_w: u32,
    pub f_h: u16,
    pub f_w: u16,
    pub stride_h: u16,
    pub stride_w: u16,
    pub pad_h: u16,
    pub pad_w: u16,
    /// Quantized clamp.
    pub act_min: i32,
    pub act_max: i32,
    /// Float clamp.
    pub lo: f32,
    pub hi: f32,
}

const FLOAT: u32 = 0;
const INT8: u32 = 1;
const INT16: u32 = 2;
const UINT8: u32 = 3;

/// Checks the operator; `INT8_ONLY`: refuses other types.
fn prepare<const INT8_ONLY: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if INT8_ONLY && ctx.input(0)?.dtype != TensorType::Int8 {
        return Err(check::NOT_INT8);
    }
    // Every 2-D pool takes Pool2DOptions.
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
    let w = pool_window(&o, &input.shape, &output.shape)?;
    // Exact: `pool_window` keeps filter sizes and strides under 2^16, and a padding is less
    // than its filter size (SAME pads under half the filter, VALID none).
    let small = |v: u32| v as u16;
    let mut g = PoolGeometry {
        dtype: FLOAT,
        batches: w.batches,
        in_h: w.in_h,
        in_w: w.in_w,
        channels: w.channels,
        out_h: w.out_h,
        out_w: w.out_w,
        f_h: small(w.f_h),
        f_w: small(w.f_w),
        stride_h: small(w.stride_h),
        stride_w: small(w.stride_w),
        pad_h: small(w.pad_h),
        pad_w: small(w.pad_w),
        ..PoolGeometry::default()
    };
    match input.dtype {
        TensorType::Float32 => (g.lo, g.hi) = float_range(o.activation)?,
        TensorType::Int8 | TensorType::Int16 | TensorType::Uint8 => {
            g.dtype = match input.dtype {
                TensorType::Int8 => INT8,
                TensorType::Uint8 => UINT8,
                _ => INT16,
            };
            let (si, zi) = quant::per_tensor(input.quantization(), input.dtype)?;
            let (so, zo) = quant::per_tensor(output.quantization(), output.dtype)?;
            if si != so || zi != zo {
                return Err(KernelError::Mismatch {
                    what: "quantized pool with output scale or zero point other than the input's",
                });
            }
            (g.act_min, g.act_max) = quant::activation_range(o.activation, output.dtype, so, zo)?;
        }
        _ => {
            return Err(KernelError::Unsupported {
                what: "pool of other types than FLOAT32, INT8, INT16, UINT8",
            });
        }
    }
    ctx.set_params(&g);
    ctx.request_scratch(4 * g.channels as usize);
    Ok(())
}

/// `INT8_ONLY`: links the int8 body alone (`prepare::<true>` let no other type through).
fn eval_average<const INT8_ONLY: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let g: PoolGeometry = ctx.params();
    match g.dtype {
        INT8 => {
            let x = ctx.input::<i8>(0)?;
            let y = ctx.output::<i8>(0)?;
            let acc = scratch(ctx.scratch(), g.channels as usize)?;
            average_q(&g, x, y, acc)
        }
        _ if INT8_ONLY => Err(check::NOT_INT8),
        FLOAT => {
            let x = ctx.input::<f32>(0)?;
            let y = ctx.output::<f32>(0)?;
            let acc = scratch(ctx.scratch(), g.channels as usize)?;
            average_f32(&g, x, y, acc)
        }
        UINT8 => {
            let x = ctx.input::<u8>(0)?;
            let y = ctx.output::<u8>(0)?;
            let acc = scratch(ctx.scratch(), g.channels as usize)?;
            average_q(&g, x, y, acc)
        }
        _ => {
            let x = ctx.input::<i16>(0)?;
            let y = ctx.output::<i16>(0)?;
            let acc = scratch(ctx.scratch(), g.channels as usize)?;
            average_q(&g, x, y, acc)
        }
    }
}

/// As [`eval_average`].
fn eval_max<const INT8_ONLY: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let g: PoolGeometry = ctx.params();
    match g.dtype {
        INT8 => {
            let x = ctx.input::<i8>(0)?;
            let y = ctx.output::<i8>(0)?;
            max_q(&g, x, y)
        }
        _ if INT8_ONLY => Err(check::NOT_INT8),
        FLOAT => {
            let x = ctx.input::<f32>(0)?;
            let y = ctx.output::<f32>(0)?;
            max_f32(&g, x, y)
        }
        UINT8 => {
            let x = ctx.input::<u8>(0)?;
            let y = ctx.output::<u8>(0)?;
            max_q(&g, x, y)
        }
        _ => {
            let x = ctx.input::<i16>(0)?;
            let y = ctx.output::<i16>(0)?;
            max_q(&g, x, y)
        }
    }
}

fn scratch<T: FromBytes + IntoBytes + KnownLayout + Immutable>(
    bytes: &mut [u8],
    n: usize,
) -> Result<&mut [T], KernelError> {
    let bad = KernelError::Mismatch {
        what: "scratch smaller than asked",
    };
    <[T]>::mut_from_bytes(bytes.get_mut(..n * core::mem::size_of::<T>()).ok_or(bad)?)
        .map_err(|_| bad)
}

const EMPTY_WINDOW: KernelError = KernelError::Mismatch {
    what: "pooling window outside the input",
};

/// Calls `f(output pixel, input rows of its window)` for every output pixel: each row the
/// window's run of `width * channels` values, rows in order.
fn windows<T>(
    g: &PoolGeometry,
    input: &[T],
    output: &mut [T],
    mut f: impl FnMut(&mut [T], &mut dyn Iterator<Item = &[T]>, usize) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let c = g.channels as usize;
    if c == 0 {
        return Ok(());
    }
    let (b_n, ih, iw, oh, ow) = (
        g.batches as usize,
        g.in_h as usize,
        g.in_w as usize,
        g.out_h as usize,
        g.out_w as usize,
    );
    let input = input.get(..b_n * ih * iw * c).ok_or(SHORT)?;
    let output = output.get_mut(..b_n * oh * ow * c).ok_or(SHORT)?;
    let mut pixels = output.chunks_exact_mut(c);
    for b in 0..b_n {
        for oy in 0..oh {
            let y0 = (oy * usize::from(g.stride_h)) as i64 - i64::from(g.pad_h);
            let ys = y0.max(0) as usize;
            let ye = (y0 + i64::from(g.f_h)).clamp(0, ih as i64) as usize;
            for ox in 0..ow {
                let x0 = (ox * usize::from(g.stride_w)) as i64 - i64::from(g.pad_w);
                let xs = x0.max(0) as usize;
                let xe = (x0 + i64::from(g.f_w)).clamp(0, iw as i64) as usize;
                let y = pixels.next().ok_or(SHORT)?;
                if ys >= ye || xs >= xe {
                    return Err(EMPTY_WINDOW);
                }
                let count = (ye - ys) * (xe - xs);
                let mut rows = (ys..ye).filter_map(|iy| {
                    let at = (b * ih + iy) * iw;
                    input.get((at + xs) * c..(at + xe) * c)
                });
                f(y, &mut rows, count)?;
            }
        }
    }
    Ok(())
}

/// AVERAGE_POOL_2D, float32: the window's sum in row order, divided by its count.
pub(super) fn average_f32(
    g: &PoolGeometry,
    input: &[f32],
    output: &mut [f32],
    acc: &mut [f32],
) -> Result<(), KernelError> {
    let c = g.channels as usize;
    let acc = acc.get_mut(..c).ok_or(SHORT)?;
    windows(g, input, output, |y, rows, count| {
        acc.fill(0.0);
        for row in rows {
            for px in row.chunks_exact(c) {
                for (a, &x) in acc.iter_mut().zip(px) {
                    *a += x;
                }
            }
        }
        let n = count as f32;
        for (y, &a) in y.iter_mut().zip(acc.iter()) {
            *y = clamp(a / n, g.lo, g.hi);
        }
        Ok(())
    })
}

/// MAX_POOL_2D, float32 (`std::max` from the lowest float: NaN inputs are passed over).
pub(super) fn max_f32(
    g: &PoolGeometry,
    input: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    let c = g.channels as usize;
    windows(g, input, output, |y, rows, _| {
        y.fill(f32::MIN);
        for row in rows {
            for px in row.chunks_exact(c) {
                for (m, &x) in y.iter_mut().zip(px) {
                    // A select, not a branch (a branch mispredicts on image data, and does
                    // not vectorize): the same value, `std::max(m, x)`.
                    *m = if *m < x { x } else { *m };
                }
            }
        }
        for m in y.iter_mut() {
            *m = clamp(*m, g.lo, g.hi);
        }
        Ok(())
    })
}

/// A quantized element: int8, int16 or uint8 (its sums are never negative, where the
/// reference's uint8 average `(sum + count / 2) / count` is the signed one's).
pub(super) trait Quantized: Copy + Into<i32> {
    /// The type's lowest value.
    const LOWEST: Self;
    /// `v` narrowed (already clamped into range).
    fn narrow(v: i32) -> Self;
}

impl Quantized for i8 {
    const LOWEST: Self = i8::MIN;
    fn narrow(v: i32) -> Self {
        v as i8
    }
}

impl Quantized for u8 {
    const LOWEST: Self = 0;
    fn narrow(v: i32) -> Self {
        v as u8
    }
}

impl Quantized for i16 {
    const LOWEST: Self = i16::MIN;
    fn narrow(v: i32) -> Self {
        v as i16
    }
}

/// AVERAGE_POOL_2D, int8 / int16: `(sum ± count / 2) / count`, truncating, then clamped.
pub(super) fn average_q<T: Quantized>(
    g: &PoolGeometry,
    input: &[T],
    output: &mut [T],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    let c = g.channels as usize;
    let acc = acc.get_mut(..c).ok_or(SHORT)?;
    windows(g, input, output, |y, rows, count| {
        acc.fill(0);
        for row in rows {
            for px in row.chunks_exact(c) {
                for (a, &x) in acc.iter_mut().zip(px) {
                    *a = a.wrapping_add(x.into());
                }
            }
        }
        let n = count as i32;
        for (y, &a) in y.iter_mut().zip(acc.iter()) {
            let v = if a > 0 {
                a.wrapping_add(n / 2) / n
            } else {
                a.wrapping_sub(n / 2) / n
            };
            *y = T::narrow(v.max(g.act_min).min(g.act_max));
        }
        Ok(())
    })
}

/// MAX_POOL_2D, int8 / int16.
pub(super) fn max_q<T: Quantized + Ord>(
    g: &PoolGeometry,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    let c = g.channels as usize;
    windows(g, input, output, |y, rows, _| {
        y.fill(T::LOWEST);
        for row in rows {
            for px in row.chunks_exact(c) {
                for (m, &x) in y.iter_mut().zip(px) {
                    *m = (*m).max(x);
                }
            }
        }
        for m in y.iter_mut() {
            *m = T::narrow((*m).into().max(g.act_min).min(g.act_max));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests;
