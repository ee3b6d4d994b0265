//! RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (NHWC), as TensorFlow Lite's reference kernels:
//! - bilinear, float32 and uint8 (`reference_ops::ResizeBilinear`: the interpolation in
//!   float, in the reference's order of operations; uint8 adds 0.5 and truncates), int8 and
//!   int16 (`ResizeBilinearInteger`: 10-bit fixed-point positions, products in 64 bits,
//!   rounded half away from zero at 2^20);
//! - nearest neighbour, any 1-, 2- or 4-byte element (`reference_ops::ResizeNearestNeighbor`
//!   copies elements, so quantized values keep the input's scale).
//!
//! Every `align_corners` / `half_pixel_centers` combination the reference accepts (bilinear
//! refuses both together). The size operand may be a constant (the model's output shape
//! must be `[batches, size[0], size[1], channels]`) or computed by the graph: the output
//! shape the model declares is what is planned, and `eval` checks the size against it.

use super::base::check::{self, SHORT};
use crate::interpreter::{Desc, Eval, Kernel, KernelError, Prepare};
use crate::model::{
    BuiltinOperator, ResizeBilinearOptions, ResizeNearestNeighborOptions, TensorType,
};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// RESIZE_BILINEAR.
pub static RESIZE_BILINEAR: Kernel = Kernel {
    op: BuiltinOperator::ResizeBilinear,
    prepare: prepare_bilinear,
    init: None,
    eval: eval_bilinear,
};

/// RESIZE_NEAREST_NEIGHBOR.
pub static RESIZE_NEAREST_NEIGHBOR: Kernel = Kernel {
    op: BuiltinOperator::ResizeNearestNeighbor,
    prepare: prepare_nearest,
    init: None,
    eval: eval_nearest,
};

/// A resize's sizes and options.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Geometry {
    /// Bilinear: [`kind`]; nearest: bytes per element.
    pub kind: u32,
    pub align_corners: u32,
    pub half_pixel_centers: u32,
    /// Non-zero: the size operand is computed by the graph; `eval` checks it.
    pub dynamic: u32,
    pub batches: u32,
    pub in_h: u32,
    pub in_w: u32,
    pub depth: u32,
    pub out_h: u32,
    pub out_w: u32,
}

/// Element kinds of RESIZE_BILINEAR.
pub(super) mod kind {
    /// float32, interpolated in float.
    pub const FLOAT: u32 = 0;
    /// uint8, interpolated in float, plus 0.5, truncated.
    pub const UINT8: u32 = 1;
    /// int8, fixed point.
    pub const INT8: u32 = 2;
    /// int16, fixed point.
    pub const INT16: u32 = 3;
}

/// Dimensions past this are refused: the reference's 32-bit position arithmetic
/// (`1024 * size`, `position * scale`) stays exact below it.
const MAX_DIM: usize = 1 << 20;

const SIZE_OPERAND: KernelError = KernelError::Mismatch {
    what: "size is not a 1-D INT32 tensor of 2 elements",
};

const SIZE_AT_INVOKE: KernelError = KernelError::Mismatch {
    what: "size at invoke differs from the planned output shape",
};

/// The checks both resizes make; returns the geometry less `kind`.
fn geometry(ctx: &Prepare<'_>, align: bool, half: bool) -> Result<Geometry, KernelError> {
    let input = ctx.input(0)?;
    let size = ctx.input(1)?;
    let output = ctx.output(0)?;
    if input.shape.rank() != 4 || output.shape.rank() != 4 {
        return Err(KernelError::Mismatch {
            what: "input or output not 4-D",
        });
    }
    if size.dtype != TensorType::Int32 || size.shape.dims() != [2] {
        return Err(SIZE_OPERAND);
    }
    check::output_type(&input, &output)?;
    let d = |t: &Desc<'_>, i: usize| t.shape.dim(i).unwrap_or(0);
    let (batches, in_h, in_w, depth) = (d(&input, 0), d(&input, 1), d(&input, 2), d(&input, 3));
    let (out_h, out_w) = (d(&output, 1), d(&output, 2));
    if d(&output, 0) != batches || d(&output, 3) != depth {
        return Err(check::OUTPUT_SHAPE);
    }
    let dynamic = match size.constant() {
        Some(_) => {
            let mut v = check::constant_ints(&size)?;
            let (h, w) = (v.next().unwrap_or(-1), v.next().unwrap_or(-1));
            if h < 0 || w < 0 {
                return Err(KernelError::Mismatch {
                    what: "negative output size",
                });
            }
            if (h as u64, w as u64) != (out_h as u64, out_w as u64) {
                return Err(check::OUTPUT_SHAPE);
            }
            false
        }
        None => true,
    };
    for v in [batches, in_h, in_w, depth, out_h, out_w] {
        if v >= MAX_DIM {
            return Err(KernelError::Unsupported {
                what: "resize dimension over 2^20",
            });
        }
    }
    check::dim(batches.saturating_mul(in_h).saturating_mul(in_w).saturating_mul(depth))?;
    check::dim(batches.saturating_mul(out_h).saturating_mul(out_w).saturating_mul(depth))?;
    Ok(Geometry {
        kind: 0,
        align_corners: u32::from(align),
        half_pixel_centers: u32::from(half),
        dynamic: u32::from(dynamic),
        batches: batches as u32,
        in_h: in_h as u32,
        in_w: in_w as u32,
        depth: depth as u32,
        out_h: out_h as u32,
        out_w: out_w as u32,
    })
}

fn prepare_bilinear(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: ResizeBilinearOptions = ctx.options()?;
    if o.align_corners && o.half_pixel_centers {
        return Err(KernelError::Mismatch {
            what: "align_corners and half_pixel_centers both set",
        });
    }
    let mut g = geometry(ctx, o.align_corners, o.half_pixel_centers)?;
    if g.dynamic == 0 && (g.out_h == 0 || g.out_w == 0) {
        // The reference refuses a size that is not positive.
        return Err(KernelError::Mismatch {
            what: "output size not positive",
        });
    }
    g.kind = match ctx.input(0)?.dtype {
        TensorType::Float32 => kind::FLOAT,
        TensorType::Uint8 => kind::UINT8,
        TensorType::Int8 => kind::INT8,
        TensorType::Int16 => kind::INT16,
        _ => {
            return Err(KernelError::Unsupported {
                what: "RESIZE_BILINEAR of other types than FLOAT32, UINT8, INT8, INT16",
            });
        }
    };
    ctx.set_params(&g);
    Ok(())
}

fn prepare_nearest(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: ResizeNearestNeighborOptions = ctx.options()?;
    let mut g = geometry(ctx, o.align_corners, o.half_pixel_centers)?;
    g.kind = match ctx.input(0)?.dtype.bits() {
        Some(8) => 1,
        Some(16) => 2,
        Some(32) => 4,
        _ => {
            return Err(KernelError::Unsupported {
                what: "RESIZE_NEAREST_NEIGHBOR of elements other than 8, 16 or 32 bits",
            });
        }
    };
    ctx.set_params(&g);
    Ok(())
}

/// A graph-computed size must be the planned output's.
fn check_size(ctx: &Eval<'_>, g: &Geometry) -> Result<(), KernelError> {
    if g.dynamic == 0 {
        return Ok(());
    }
    match ctx.input::<i32>(1)? {
        [h, w] if i64::from(*h) == i64::from(g.out_h) && i64::from(*w) == i64::from(g.out_w) => {
            Ok(())
        }
        _ => Err(SIZE_AT_INVOKE),
    }
}

fn eval_bilinear(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let g: Geometry = ctx.params();
    check_size(ctx, &g)?;
    if g.out_h == 0 || g.out_w == 0 {
        return Err(KernelError::Mismatch {
            what: "output size not positive",
        });
    }
    match g.kind {
        kind::FLOAT => bilinear_float(&g, ctx.input::<f32>(0)?, ctx.output::<f32>(0)?),
        kind::UINT8 => bilinear_float(&g, ctx.input::<u8>(0)?, ctx.output::<u8>(0)?),
        kind::INT8 => bilinear_integer(&g, ctx.input::<i8>(0)?, ctx.output::<i8>(0)?),
        _ => bilinear_integer(&g, ctx.input::<i16>(0)?, ctx.output::<i16>(0)?),
    }
}

fn eval_nearest(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let g: Geometry = ctx.params();
    check_size(ctx, &g)?;
    let x = ctx.input_bytes(0)?;
    let y = ctx.output_bytes(0)?;
    nearest(&g, x, y)
}

/// The input and output lengths (elements) of `g`.
fn lengths(g: &Geometry) -> (usize, usize) {
    let (b, c) = (g.batches as usize, g.depth as usize);
    (
        b * g.in_h as usize * g.in_w as usize * c,
        b * g.out_h as usize * g.out_w as usize * c,
    )
}

/// `reference_ops::GetNearestNeighbor`.
#[inline]
pub(super) fn nearest_index(v: usize, input: u32, output: u32, align: bool, half: bool) -> usize {
    let scale = if align && output > 1 {
        (input as i32 - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    };
    let offset = if half { 0.5f32 } else { 0.0 };
    let at = (v as f32 + offset) * scale;
    let r = if align {
        libm::roundf(at) as i32
    } else {
        libm::floorf(at) as i32
    };
    let mut r = r.min(input as i32 - 1);
    if half {
        r = r.max(0);
    }
    // A non-empty input has r in 0..input; an empty one gives no copies (checked by caller).
    r.max(0) as usize
}

/// RESIZE_NEAREST_NEIGHBOR on raw elements of `g.kind` bytes.
pub(super) fn nearest(g: &Geometry, x: &[u8], y: &mut [u8]) -> Result<(), KernelError> {
    let w = g.kind as usize;
    let (n_in, n_out) = lengths(g);
    let x = x.get(..n_in * w).ok_or(SHORT)?;
    let y = y.get_mut(..n_out * w).ok_or(SHORT)?;
    if n_out == 0 {
        return Ok(());
    }
    if n_in == 0 {
        return Err(KernelError::Mismatch {
            what: "resize of an empty image to a non-empty one",
        });
    }
    let run = g.depth as usize * w;
    let (align, half) = (g.align_corners != 0, g.half_pixel_centers != 0);
    let row = g.in_w as usize * run;
    let image = g.in_h as usize * row;
    let mut pixels = y.chunks_exact_mut(run);
    for b in 0..g.batches as usize {
        for oy in 0..g.out_h as usize {
            let iy = nearest_index(oy, g.in_h, g.out_h, align, half);
            for ox in 0..g.out_w as usize {
                let ix = nearest_index(ox, g.in_w, g.out_w, align, half);
                let at = b * image + iy * row + ix * run;
                let src = x.get(at..at + run).ok_or(SHORT)?;
                pixels.next().ok_or(SHORT)?.copy_from_slice(src);
            }
        }
    }
    Ok(())
}

/// A bilinear element read and written through `f32` (float32 and uint8).
pub(super) trait FloatResize: Copy {
    /// What the reference adds before the cast (0.5 for integers).
    const ROUNDING: f32;
    fn to_f32(self) -> f32;
    fn from_f32(v: f32) -> Self;
}

impl FloatResize for f32 {
    const ROUNDING: f32 = 0.0;
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        v
    }
}

impl FloatResize for u8 {
    const ROUNDING: f32 = 0.5;
    #[inline(always)]
    fn to_f32(self) -> f32 {
        f32::from(self)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        // C's conversion truncates; the values lie in (-1, 256).
        v as u8
    }
}

/// `ComputeInterpolationValues`: the source position and the two rows (or columns) around
/// it, clamped to the image.
#[inline]
pub(super) fn interpolation(v: usize, scale: f32, half: bool, size: u32) -> (f32, usize, usize) {
    let v = v as f32;
    let at = if half { (v + 0.5) * scale - 0.5 } else { v * scale };
    let lo = (libm::floorf(at) as i32).max(0);
    let hi = (libm::ceilf(at) as i32).min(size as i32 - 1);
    (at, lo.max(0) as usize, hi.max(0) as usize)
}

/// The reference's scale of one axis: `in / out`, or `(in - 1) / (out - 1)` with aligned
/// corners.
fn float_scale(input: u32, output: u32, align: bool) -> f32 {
    if align && output > 1 {
        (input as i32 - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    }
}

/// RESIZE_BILINEAR in float: each output the four neighbours weighted in the reference's
/// order, `((((a wy') wx' + (b wy) wx') + (c wy') wx) + (d wy) wx) + rounding`.
pub(super) fn bilinear_float<T: FloatResize>(
    g: &Geometry,
    x: &[T],
    y: &mut [T],
) -> Result<(), KernelError> {
    let (n_in, n_out) = lengths(g);
    let x = x.get(..n_in).ok_or(SHORT)?;
    let y = y.get_mut(..n_out).ok_or(SHORT)?;
    if n_out == 0 {
        return Ok(());
    }
    if n_in == 0 {
        return Err(KernelError::Mismatch {
            what: "resize of an empty image to a non-empty one",
        });
    }
    let align = g.align_corners != 0;
    let half = g.half_pixel_centers != 0;
    let hs = float_scale(g.in_h, g.out_h, align);
    let ws = float_scale(g.in_w, g.out_w, align);
    let c = g.depth as usize;
    let row = g.in_w as usize * c;
    let image = g.in_h as usize * row;
    let mut pixels = y.chunks_exact_mut(c);
    for b in 0..g.batches as usize {
        for oy in 0..g.out_h as usize {
            let (iy, y0, y1) = interpolation(oy, hs, half, g.in_h);
            let dy = iy - y0 as f32;
            let (r0, r1) = (b * image + y0 * row, b * image + y1 * row);
            for ox in 0..g.out_w as usize {
                let (ix, x0, x1) = interpolation(ox, ws, half, g.in_w);
                let dx = ix - x0 as f32;
                let p00 = x.get(r0 + x0 * c..r0 + x0 * c + c).ok_or(SHORT)?;
                let p10 = x.get(r1 + x0 * c..r1 + x0 * c + c).ok_or(SHORT)?;
                let p01 = x.get(r0 + x1 * c..r0 + x1 * c + c).ok_or(SHORT)?;
                let p11 = x.get(r1 + x1 * c..r1 + x1 * c + c).ok_or(SHORT)?;
                let out = pixels.next().ok_or(SHORT)?;
                let (ndy, ndx) = (1.0 - dy, 1.0 - dx);
                let corners = p00.iter().zip(p10).zip(p01).zip(p11);
                for (o, (((&p, &q), &r), &s)) in out.iter_mut().zip(corners) {
                    let v = p.to_f32() * ndy * ndx
                        + q.to_f32() * dy * ndx
                        + r.to_f32() * ndy * dx
                        + s.to_f32() * dy * dx
                        + T::ROUNDING;
                    *o = T::from_f32(v);
                }
            }
        }
    }
    Ok(())
}

/// An element of the fixed-point bilinear resize.
pub(super) trait IntResize: Copy + Into<i64> {
    /// `v` narrowed as C's cast (the reference's values are in range).
    fn narrow(v: i64) -> Self;
}

impl IntResize for i8 {
    #[inline(always)]
    fn narrow(v: i64) -> Self {
        v as i8
    }
}

impl IntResize for i16 {
    #[inline(always)]
    fn narrow(v: i64) -> Self {
        v as i16
    }
}

/// The reference's 10-bit fixed-point scale of one axis, rounded.
fn scale_10(input: u32, output: u32, align: bool) -> i64 {
    let (i, o) = if align && output > 1 {
        (i64::from(input) - 1, i64::from(output) - 1)
    } else {
        (i64::from(input), i64::from(output))
    };
    (1024 * i + o / 2) / o
}

/// `ComputeInterpolationValuesInteger`: the position in 1/1024 of a pixel and the two rows
/// (or columns) around it.
#[inline]
pub(super) fn interpolation_10(v: usize, scale: i64, half: bool, size: u32) -> (i64, usize, usize) {
    let v = v as i64;
    let at = if half {
        v * scale + scale / 2 - 512
    } else {
        v * scale
    };
    // C's division truncates toward zero, as Rust's does.
    let lo = (at / 1024).max(0);
    let hi = ((at + 1023) / 1024).min(i64::from(size) - 1);
    (at, lo as usize, hi.max(0) as usize)
}

/// RESIZE_BILINEAR in fixed point (`ResizeBilinearInteger`): weights in 1/1024, the four
/// products summed in 64 bits, rounded half away from zero at 2^20.
pub(super) fn bilinear_integer<T: IntResize>(
    g: &Geometry,
    x: &[T],
    y: &mut [T],
) -> Result<(), KernelError> {
    let (n_in, n_out) = lengths(g);
    let x = x.get(..n_in).ok_or(SHORT)?;
    let y = y.get_mut(..n_out).ok_or(SHORT)?;
    if n_out == 0 {
        return Ok(());
    }
    if n_in == 0 {
        return Err(KernelError::Mismatch {
            what: "resize of an empty image to a non-empty one",
        });
    }
    let align = g.align_corners != 0;
    let half = g.half_pixel_centers != 0;
    let hs = scale_10(g.in_h, g.out_h, align);
    let ws = scale_10(g.in_w, g.out_w, align);
    let c = g.depth as usize;
    let row = g.in_w as usize * c;
    let image = g.in_h as usize * row;
    let mut pixels = y.chunks_exact_mut(c);
    for b in 0..g.batches as usize {
        for oy in 0..g.out_h as usize {
            let (iy, y0, y1) = interpolation_10(oy, hs, half, g.in_h);
            let dy = iy - 1024 * y0 as i64;
            let (r0, r1) = (b * image + y0 * row, b * image + y1 * row);
            for ox in 0..g.out_w as usize {
                let (ix, x0, x1) = interpolation_10(ox, ws, half, g.in_w);
                let dx = ix - 1024 * x0 as i64;
                let p00 = x.get(r0 + x0 * c..r0 + x0 * c + c).ok_or(SHORT)?;
                let p10 = x.get(r1 + x0 * c..r1 + x0 * c + c).ok_or(SHORT)?;
                let p01 = x.get(r0 + x1 * c..r0 + x1 * c + c).ok_or(SHORT)?;
                let p11 = x.get(r1 + x1 * c..r1 + x1 * c + c).ok_or(SHORT)?;
                let out = pixels.next().ok_or(SHORT)?;
                let (w00, w10) = ((1024 - dy) * (1024 - dx), dy * (1024 - dx));
                let (w01, w11) = ((1024 - dy) * dx, dy * dx);
                let corners = p00.iter().zip(p10).zip(p01).zip(p11);
                for (o, (((&p, &q), &r), &s)) in out.iter_mut().zip(corners) {
                    let sum = p.into() * w00 + q.into() * w10 + r.into() * w01 + s.into() * w11;
                    let round = if sum > 0 { 1 << 19 } else { -(1 << 19) };
                    *o = T::narrow((sum + round) / (1 << 20));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
