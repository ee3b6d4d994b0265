//! TRANSPOSE_CONV (NHWC; weights `[output channels, h, w, input channels]`), float32, uint8
//! (per-tensor, with weight zero points), int8 (per-channel weights, int32 bias) and 16x8
//! (int16 activations, int8 weights, int64 or int32 bias), with or without the bias (the 4th
//! input), SAME or VALID padding, any strides and the fused activation, bit-exact with
//! TensorFlow Lite's reference kernels (`reference_ops::TransposeConv`,
//! `reference_integer_ops::TransposeConv`).
//!
//! The reference scatters each input pixel into the outputs it touches; this kernel gathers
//! instead: each output value walks the input pixels that reach it in the reference's order
//! (input row, column, channel, ascending), so even the float sums are the reference's bit
//! for bit, and it needs no scratch the size of the output.
//!
//! Operand 0 is the output shape: a constant must equal the model's output shape; a shape the
//! graph computes is checked against it at invoke (the planned shape is the model's).

use super::base::check::{self, SHORT};
use super::base::fused::{clamp, float_range};
use super::base::quant::{self, multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64};
use super::base::window::{out_size, pad_before};
use crate::interpreter::{Desc, Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType, TransposeConvOptions};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// TRANSPOSE_CONV.
pub static TRANSPOSE_CONV: Kernel = Kernel {
    op: BuiltinOperator::TransposeConv,
    prepare,
    init: Some(init),
    eval,
};

/// Element types of a transposed convolution.
pub(super) mod kind {
    /// float32 throughout.
    pub const FLOAT: u32 = 0;
    /// uint8 activations and weights (per tensor, zero points), int32 bias.
    pub const UINT8: u32 = 1;
    /// int8 activations and weights (per channel), int32 bias.
    pub const INT8: u32 = 2;
    /// int16 activations, int8 weights, 64-bit accumulators (int64 bias or none).
    pub const INT16: u32 = 3;
    /// int16 activations, int8 weights, 32-bit accumulators (int32 bias).
    pub const INT16_ACC32: u32 = 4;
}

const OUTPUT_SHAPE: usize = 0;
const WEIGHTS: usize = 1;
const INPUT: usize = 2;
const BIAS: usize = 3;

/// What `eval` needs beyond the operands' shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct Params {
    /// [`kind`].
    pub kind: u8,
    pub has_bias: u8,
    /// Non-zero: the output shape operand is computed by the graph.
    pub dynamic: u8,
    pub _reserved: u8,
    pub stride_h: u32,
    pub stride_w: u32,
    pub pad_h: u32,
    pub pad_w: u32,
    pub act_min: i32,
    pub act_max: i32,
    pub lo: f32,
    pub hi: f32,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// Minus the weights' zero point (uint8).
    pub weights_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
}

/// [`Params`] with the operands' sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Geometry {
    pub p: Params,
    pub batches: usize,
    pub in_h: usize,
    pub in_w: usize,
    pub in_c: usize,
    pub out_h: usize,
    pub out_w: usize,
    pub out_c: usize,
    pub f_h: usize,
    pub f_w: usize,
}

impl Geometry {
    fn of(p: Params, input: &[usize], weights: &[usize], output: &[usize]) -> Self {
        let d = |s: &[usize], i: usize| s.get(i).copied().unwrap_or(0);
        Self {
            p,
            batches: d(input, 0),
            in_h: d(input, 1),
            in_w: d(input, 2),
            in_c: d(input, 3),
            out_h: d(output, 1),
            out_w: d(output, 2),
            out_c: d(output, 3),
            f_h: d(weights, 1),
            f_w: d(weights, 2),
        }
    }
}

const NOT_4D: KernelError = KernelError::Mismatch {
    what: "input, weights or output not 4-D",
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let o: TransposeConvOptions = ctx.options()?;
    if ctx.input_count() != 3 && ctx.input_count() != 4 {
        return Err(KernelError::Arity {
            what: "3 or 4 inputs",
        });
    }
    let shape = ctx.input(OUTPUT_SHAPE)?;
    let weights = ctx.input(WEIGHTS)?;
    let input = ctx.input(INPUT)?;
    let bias = ctx.optional_input(BIAS);
    let output = ctx.output(0)?;
    if input.shape.rank() != 4 || weights.shape.rank() != 4 || output.shape.rank() != 4 {
        return Err(NOT_4D);
    }
    if shape.dtype != TensorType::Int32 || shape.shape.dims() != [4] {
        return Err(KernelError::Mismatch {
            what: "output shape operand is not a 1-D INT32 tensor of 4 elements",
        });
    }
    let dynamic = match shape.constant() {
        Some(_) => {
            let planned = output.shape.dims();
            let given = check::constant_ints(&shape)?;
            if !given.zip(planned).all(|(a, &b)| a >= 0 && a as u64 == b as u64) {
                return Err(check::OUTPUT_SHAPE);
            }
            false
        }
        None => true,
    };
    let stride = |v: i32| {
        u32::try_from(v)
            .ok()
            .filter(|&v| v > 0 && v <= i16::MAX as u32)
            .ok_or(KernelError::Mismatch {
                what: "stride not in 1..=32767",
            })
    };
    let (sh, sw) = (stride(o.stride_h)?, stride(o.stride_w)?);
    let (i, w, y) = (input.shape.dims(), weights.shape.dims(), output.shape.dims());
    if i[1] == 0 || i[2] == 0 || i[3] == 0 || w[0] == 0 || w[1] == 0 || w[2] == 0 {
        return Err(KernelError::Mismatch {
            what: "empty input image or weights",
        });
    }
    if i[3] != w[3] {
        return Err(KernelError::Mismatch {
            what: "input channels differ from the weights'",
        });
    }
    if y[0] != i[0] || y[3] != w[0] || y[1] == 0 || y[2] == 0 {
        return Err(check::OUTPUT_SHAPE);
    }
    let big = KernelError::Unsupported {
        what: "transposed convolution dimension over 2^30",
    };
    for v in [i[0], i[1], i[2], i[3], w[0], w[1], w[2], y[1], y[2]] {
        if v >= 1 << 30 {
            return Err(big);
        }
    }
    let elements = |s: &[usize]| s.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    for s in [i, w, y] {
        if elements(s).is_none_or(|n| n >= 1 << 30) {
            return Err(big);
        }
    }
    // The output is the input of the convolution this one transposes.
    let (oh, ow) = (y[1] as u64, y[2] as u64);
    let (fh, fw) = (w[1] as u64, w[2] as u64);
    if out_size(o.padding, oh, fh, sh.into(), 1) != i[1] as u64
        || out_size(o.padding, ow, fw, sw.into(), 1) != i[2] as u64
    {
        return Err(KernelError::Mismatch {
            what: "input size is not what the output size and padding give",
        });
    }
    let pad = |v: u64| u32::try_from(v).map_err(|_| big);
    let mut p = Params {
        has_bias: u8::from(bias.is_some()),
        dynamic: u8::from(dynamic),
        stride_h: sh,
        stride_w: sw,
        pad_h: pad(pad_before(sh.into(), 1, oh, fh, i[1] as u64))?,
        pad_w: pad(pad_before(sw.into(), 1, ow, fw, i[2] as u64))?,
        ..Params::default()
    };
    if let Some(b) = &bias {
        if b.shape.elements() != w[0] {
            return Err(KernelError::Mismatch {
                what: "bias is not one value per output channel",
            });
        }
    }
    use TensorType as T;
    let bias_type = bias.as_ref().map(|b| b.dtype);
    p.kind = match (input.dtype, weights.dtype, output.dtype, bias_type) {
        (T::Float32, T::Float32, T::Float32, None | Some(T::Float32)) => kind::FLOAT,
        (T::Uint8, T::Uint8, T::Uint8, None | Some(T::Int32)) => kind::UINT8,
        (T::Int8, T::Int8, T::Int8, None | Some(T::Int32)) => kind::INT8,
        (T::Int16, T::Int8, T::Int16, Some(T::Int64)) => kind::INT16,
        (T::Int16, T::Int8, T::Int16, Some(T::Int32)) => kind::INT16_ACC32,
        // Without a bias the accumulators are what the options name (int64 by default).
        (T::Int16, T::Int8, T::Int16, None) if o.quantized_bias_type == T::Int32 => {
            kind::INT16_ACC32
        }
        (T::Int16, T::Int8, T::Int16, None) => kind::INT16,
        (T::Float32, T::Int8, ..) => {
            return Err(KernelError::Unsupported {
                what: "hybrid TRANSPOSE_CONV (float32 input, int8 weights)",
            });
        }
        _ => {
            return Err(KernelError::Unsupported {
                what: "TRANSPOSE_CONV types (float32; uint8; int8 with int32 bias; int16 x int8 with int64 or int32 bias)",
            });
        }
    } as u8;
    if u32::from(p.kind) == kind::FLOAT {
        (p.lo, p.hi) = float_range(o.activation)?;
    } else {
        let (_, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
        let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
        if input.dtype == T::Int16 && (in_zp != 0 || out_zp != 0) {
            return Err(KernelError::Unsupported {
                what: "int16 activations with a non-zero zero point",
            });
        }
        if let Some(b) = &bias {
            let zp = b.quantization().and_then(|q| q.zero_point().get(0)).unwrap_or(0);
            if input.dtype != T::Uint8 && zp != 0 {
                return Err(KernelError::Mismatch {
                    what: "bias zero point not 0",
                });
            }
        }
        p.input_offset = -in_zp;
        p.output_offset = out_zp;
        (p.act_min, p.act_max) = quant::activation_range(o.activation, output.dtype, out_scale, out_zp)?;
        let wq = weights.quantization().ok_or(KernelError::Mismatch {
            what: "quantized weights without scales",
        })?;
        if input.dtype == T::Uint8 {
            let (_, wzp) = quant::per_tensor(Some(wq), T::Uint8)?;
            p.weights_offset = -wzp;
        } else if wq.is_per_channel() && wq.quantized_dimension() != 0 {
            return Err(KernelError::Mismatch {
                what: "weight scales not along the output channels",
            });
        }
        // Derive the multipliers now, so a bad scale fails at setup, not at init.
        channel_params(&Operands::of(ctx)?, u32::from(p.kind), |_, _, _| {})?;
        ctx.request_persistent(8 * w[0]);
    }
    ctx.set_params(&p);
    Ok(())
}

/// The operands the multipliers come from (no borrow of the context kept).
struct Operands<'m> {
    input: Desc<'m>,
    weights: Desc<'m>,
    bias: Option<Desc<'m>>,
    output: Desc<'m>,
}

impl<'m> Operands<'m> {
    fn of(ctx: &Prepare<'m>) -> Result<Self, KernelError> {
        Ok(Self {
            input: ctx.input(INPUT)?,
            weights: ctx.input(WEIGHTS)?,
            bias: ctx.optional_input(BIAS),
            output: ctx.output(0)?,
        })
    }
}

/// Calls `f(channel, multiplier, shift)` for every output channel
/// (`PopulateConvolutionQuantizationParams`: per channel in double for int8 and 16x8; one
/// per-tensor multiplier for uint8).
fn channel_params(
    ops: &Operands<'_>,
    kind: u32,
    mut f: impl FnMut(usize, i32, i32),
) -> Result<(), KernelError> {
    let (in_scale, _) = quant::per_tensor(ops.input.quantization(), ops.input.dtype)?;
    let (out_scale, _) = quant::per_tensor(ops.output.quantization(), ops.output.dtype)?;
    let wq = ops.weights.quantization().ok_or(KernelError::Mismatch {
        what: "quantized weights without scales",
    })?;
    let channels = ops.weights.shape.dim(0).unwrap_or(0);
    if kind == kind::UINT8 {
        let (w_scale, _) = quant::per_tensor(Some(wq), TensorType::Uint8)?;
        let bias_scale = ops.bias.as_ref().map(|b| {
            b.quantization()
                .and_then(|q| q.scale().get(0))
                .unwrap_or(0.0)
        });
        let (m, s) = quant::legacy_conv_multiplier(in_scale, w_scale, bias_scale, out_scale)?;
        (0..channels).for_each(|c| f(c, m, s));
        return Ok(());
    }
    quant::channel_multipliers(in_scale, &wq, out_scale, kind == kind::INT16, f, channels)
}

fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    if u32::from(p.kind) == kind::FLOAT {
        return Ok(());
    }
    let ops = Operands::of(ctx.prepared())?;
    let channels = ops.weights.shape.dim(0).unwrap_or(0);
    let bad = KernelError::Mismatch {
        what: "persistent block smaller than asked",
    };
    let words = <[i32]>::mut_from_bytes(ctx.persistent().get_mut(..8 * channels).ok_or(bad)?)
        .map_err(|_| bad)?;
    let (mult, shift) = words.split_at_mut(channels);
    channel_params(&ops, u32::from(p.kind), |c, m, s| {
        if let (Some(pm), Some(ps)) = (mult.get_mut(c), shift.get_mut(c)) {
            (*pm, *ps) = (m, s);
        }
    })
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let output_shape = ctx.output_shape(0)?;
    if p.dynamic != 0 {
        let given = ctx.input::<i32>(OUTPUT_SHAPE)?;
        let planned = output_shape.dims();
        if given.len() != planned.len()
            || !given
                .iter()
                .zip(planned)
                .all(|(&a, &b)| i64::from(a) == b as i64)
        {
            return Err(KernelError::Mismatch {
                what: "output shape at invoke differs from the planned one",
            });
        }
    }
    let g = Geometry::of(
        p,
        ctx.input_shape(INPUT)?.dims(),
        ctx.input_shape(WEIGHTS)?.dims(),
        output_shape.dims(),
    );
    let table = ctx.persistent();
    let bias = p.has_bias != 0;
    match u32::from(p.kind) {
        kind::FLOAT => {
            let x = ctx.input::<f32>(INPUT)?;
            let w = ctx.input::<f32>(WEIGHTS)?;
            let b = if bias { Some(ctx.input::<f32>(BIAS)?) } else { None };
            let y = ctx.output::<f32>(0)?;
            transpose_conv_f32(&g, x, w, b, y)
        }
        k => {
            let (mult, shift) = channels(table, g.out_c)?;
            let q = Requant { mult, shift };
            match k {
                kind::UINT8 => {
                    let x = ctx.input::<u8>(INPUT)?;
                    let w = ctx.input::<u8>(WEIGHTS)?;
                    let b = if bias { Some(ctx.input::<i32>(BIAS)?) } else { None };
                    let y = ctx.output::<u8>(0)?;
                    transpose_conv_u8(&g, x, w, b, &q, y)
                }
                kind::INT8 => {
                    let x = ctx.input::<i8>(INPUT)?;
                    let w = ctx.input::<i8>(WEIGHTS)?;
                    let b = if bias { Some(ctx.input::<i32>(BIAS)?) } else { None };
                    let y = ctx.output::<i8>(0)?;
                    transpose_conv_i8(&g, x, w, b, &q, y)
                }
                kind::INT16 => {
                    let x = ctx.input::<i16>(INPUT)?;
                    let w = ctx.input::<i8>(WEIGHTS)?;
                    let b = if bias { Some(ctx.input::<i64>(BIAS)?) } else { None };
                    let y = ctx.output::<i16>(0)?;
                    transpose_conv_i16(&g, x, w, b, &q, y)
                }
                _ => {
                    let x = ctx.input::<i16>(INPUT)?;
                    let w = ctx.input::<i8>(WEIGHTS)?;
                    let b = if bias { Some(ctx.input::<i32>(BIAS)?) } else { None };
                    let y = ctx.output::<i16>(0)?;
                    transpose_conv_i16_acc32(&g, x, w, b, &q, y)
                }
            }
        }
    }
}

/// The per-channel multipliers and shifts `init` wrote.
fn channels(table: &[u8], n: usize) -> Result<(&[i32], &[i32]), KernelError> {
    let bad = KernelError::Mismatch {
        what: "persistent block not as init wrote it",
    };
    let words = <[i32]>::ref_from_bytes(table.get(..8 * n).ok_or(bad)?).map_err(|_| bad)?;
    Ok(words.split_at(n))
}

/// Per-channel requantization.
pub(super) struct Requant<'a> {
    pub mult: &'a [i32],
    pub shift: &'a [i32],
}

/// The input rows (or columns) that reach output row `o`: `(first, last + 1)` of `i` with
/// `i * stride + f = o + pad` for a tap `f` in `0..filter`, inside `0..size`.
#[inline]
fn sources(o: usize, pad: usize, stride: usize, filter: usize, size: usize) -> (usize, usize) {
    let t = o + pad;
    let lo = (t + 1).saturating_sub(filter).div_ceil(stride);
    let hi = (t / stride + 1).min(size);
    (lo, hi.max(lo))
}

/// The gather every kernel shares: for each output value, `tap(acc, input pixel, weights of
/// the tap)` over the input pixels that reach it in the reference's order, from `zero`, then
/// `finish(channel, acc)`.
#[inline(always)]
fn gather<X: Copy, K: Copy, A: Copy, Y>(
    g: &Geometry,
    input: &[X],
    weights: &[K],
    output: &mut [Y],
    zero: A,
    mut tap: impl FnMut(A, &[X], &[K]) -> A,
    mut finish: impl FnMut(usize, A) -> Y,
) -> Result<(), KernelError> {
    let (ic, oc) = (g.in_c, g.out_c);
    let input = input
        .get(..g.batches * g.in_h * g.in_w * ic)
        .ok_or(SHORT)?;
    let weights = weights.get(..oc * g.f_h * g.f_w * ic).ok_or(SHORT)?;
    let output = output
        .get_mut(..g.batches * g.out_h * g.out_w * oc)
        .ok_or(SHORT)?;
    if ic == 0 || oc == 0 {
        return Err(KernelError::Mismatch {
            what: "transposed convolution without channels",
        });
    }
    let (sh, sw) = (g.p.stride_h as usize, g.p.stride_w as usize);
    let (ph, pw) = (g.p.pad_h as usize, g.p.pad_w as usize);
    if sh == 0 || sw == 0 {
        return Err(KernelError::Mismatch {
            what: "stride not positive",
        });
    }
    let mut pixels = output.chunks_exact_mut(oc);
    for b in 0..g.batches {
        for oy in 0..g.out_h {
            let ys = sources(oy, ph, sh, g.f_h, g.in_h);
            for ox in 0..g.out_w {
                let xs = sources(ox, pw, sw, g.f_w, g.in_w);
                let y = pixels.next().ok_or(SHORT)?;
                for (c, y) in y.iter_mut().enumerate() {
                    let mut acc = zero;
                    for iy in ys.0..ys.1 {
                        let fy = oy + ph - iy * sh;
                        for ix in xs.0..xs.1 {
                            let fx = ox + pw - ix * sw;
                            let at = ((b * g.in_h + iy) * g.in_w + ix) * ic;
                            let wat = ((c * g.f_h + fy) * g.f_w + fx) * ic;
                            let x = input.get(at..at + ic).ok_or(SHORT)?;
                            let k = weights.get(wat..wat + ic).ok_or(SHORT)?;
                            acc = tap(acc, x, k);
                        }
                    }
                    *y = finish(c, acc);
                }
            }
        }
    }
    Ok(())
}

/// float32: each product added in turn, as the reference's scatter adds them.
pub(super) fn transpose_conv_f32(
    g: &Geometry,
    input: &[f32],
    weights: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    let bias = bias.map(|b| b.get(..g.out_c).ok_or(SHORT)).transpose()?;
    gather(
        g,
        input,
        weights,
        output,
        0.0f32,
        |mut acc, x, k| {
            for (&x, &k) in x.iter().zip(k) {
                acc += x * k;
            }
            acc
        },
        |c, mut acc| {
            if let Some(b) = bias {
                acc += b.get(c).copied().unwrap_or(0.0);
            }
            clamp(acc, g.p.lo, g.p.hi)
        },
    )
}

fn check_requant(q: &Requant<'_>, n: usize) -> Result<(), KernelError> {
    if q.mult.len() < n || q.shift.len() < n {
        return Err(SHORT);
    }
    Ok(())
}

/// The 32-bit requantization: bias, multiplier, output zero point, clamp.
#[inline(always)]
fn finish32(g: &Geometry, q: &Requant<'_>, bias: Option<&[i32]>, c: usize, acc: i32) -> i32 {
    let acc = acc.wrapping_add(bias.and_then(|b| b.get(c)).copied().unwrap_or(0));
    let m = q.mult.get(c).copied().unwrap_or(0);
    let s = q.shift.get(c).copied().unwrap_or(0);
    multiply_by_quantized_multiplier(acc, m, s)
        .wrapping_add(g.p.output_offset)
        .max(g.p.act_min)
        .min(g.p.act_max)
}

/// uint8: `sum (x + input_offset) (w + weights_offset)`, per-tensor requantization.
pub(super) fn transpose_conv_u8(
    g: &Geometry,
    input: &[u8],
    weights: &[u8],
    bias: Option<&[i32]>,
    q: &Requant<'_>,
    output: &mut [u8],
) -> Result<(), KernelError> {
    check_requant(q, g.out_c)?;
    let (xo, wo) = (g.p.input_offset, g.p.weights_offset);
    gather(
        g,
        input,
        weights,
        output,
        0i32,
        |acc, x, k| {
            x.iter().zip(k).fold(acc, |a, (&x, &k)| {
                a.wrapping_add((i32::from(x) + xo).wrapping_mul(i32::from(k) + wo))
            })
        },
        |c, acc| finish32(g, q, bias, c, acc) as u8,
    )
}

/// int8: `sum (x + input_offset) w`, per-channel requantization.
pub(super) fn transpose_conv_i8(
    g: &Geometry,
    input: &[i8],
    weights: &[i8],
    bias: Option<&[i32]>,
    q: &Requant<'_>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_requant(q, g.out_c)?;
    let xo = g.p.input_offset;
    gather(
        g,
        input,
        weights,
        output,
        0i32,
        |acc, x, k| {
            x.iter().zip(k).fold(acc, |a, (&x, &k)| {
                a.wrapping_add((i32::from(x) + xo) * i32::from(k))
            })
        },
        |c, acc| finish32(g, q, bias, c, acc) as i8,
    )
}

/// 16x8 with 64-bit accumulators (an int64 bias, or none).
pub(super) fn transpose_conv_i16(
    g: &Geometry,
    input: &[i16],
    weights: &[i8],
    bias: Option<&[i64]>,
    q: &Requant<'_>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_requant(q, g.out_c)?;
    gather(
        g,
        input,
        weights,
        output,
        0i64,
        |acc, x, k| {
            // Products fit in 23 bits: chunks of 256 sum exactly in 32.
            x.chunks(256).zip(k.chunks(256)).fold(acc, |a, (x, k)| {
                let s = x
                    .iter()
                    .zip(k)
                    .fold(0i32, |s, (&x, &k)| s + i32::from(x) * i32::from(k));
                a.wrapping_add(i64::from(s))
            })
        },
        |c, acc| {
            let acc = acc.wrapping_add(bias.and_then(|b| b.get(c)).copied().unwrap_or(0));
            let m = q.mult.get(c).copied().unwrap_or(0);
            let s = q.shift.get(c).copied().unwrap_or(0);
            multiply_by_quantized_multiplier_i64(acc, m, s)
                .max(g.p.act_min)
                .min(g.p.act_max) as i16
        },
    )
}

/// 16x8 with 32-bit accumulators (an int32 bias): sums wrap in 32 bits as the reference's.
pub(super) fn transpose_conv_i16_acc32(
    g: &Geometry,
    input: &[i16],
    weights: &[i8],
    bias: Option<&[i32]>,
    q: &Requant<'_>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_requant(q, g.out_c)?;
    gather(
        g,
        input,
        weights,
        output,
        0i32,
        |acc, x, k| {
            x.iter().zip(k).fold(acc, |a, (&x, &k)| {
                a.wrapping_add(i32::from(x) * i32::from(k))
            })
        },
        |c, acc| {
            let acc = acc.wrapping_add(bias.and_then(|b| b.get(c)).copied().unwrap_or(0));
            let m = q.mult.get(c).copied().unwrap_or(0);
            let s = q.shift.get(c).copied().unwrap_or(0);
            multiply_by_quantized_multiplier(acc, m, s)
                .max(g.p.act_min)
                .min(g.p.act_max) as i16
        },
    )
}

#[cfg(test)]
mod tests;
