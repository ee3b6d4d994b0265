//! CONV_2D and DEPTHWISE_CONV_2D (NHWC), float32, int8 (per-tensor or per-channel weights,
//! int32 bias), 16x8 (int16 activations, int8 weights, int64 or int32 bias) and uint8 (the
//! older asymmetric models: per-tensor weights with a zero point, int32 bias, the multiplier
//! of `input_scale * filter_scale` taken in float as the reference's), bit-exact with
//! TensorFlow Lite's reference kernels.
//!
//! Everything `eval` needs is worked out at setup: `prepare` checks the operator and keeps
//! what the operands' shapes do not say ([`Params`]: strides, dilations, padding, clamps, zero
//! points) in the operator's parameters; `init` writes the per-channel multipliers and shifts
//! into the persistent block (8 bytes a channel, as TensorFlow Lite Micro keeps them). The
//! int8 and uint8 bias, with the input offset folded in for CONV_2D (`bias + input_offset *
//! sum(filter row)`), is worked out per invoke in scratch memory: one pass over the filter,
//! which costs as much as one output pixel, where keeping it would hold 4 more bytes per
//! channel of every convolution for the model's life. `eval` rebuilds the full
//! [`Geometry`] from the parameters and the shapes in the tensor records: a few loads per
//! invoke, against 112 bytes of arena per operator if it were stored (TensorFlow Lite Micro's
//! smallest arenas are the bar). Folding the
//! offset out of the inner loop is exact: the reference skips taps outside the image, which is
//! the same as reading the input zero point there (`zp + input_offset = 0`), and `i32`
//! wrapping arithmetic is associative, so any summation order gives the reference's bits.
//! Float sums keep the reference's order (filter row, column, input channel). uint8 CONV_2D
//! folds the same way with the weights' offset: `sum (w + w_off)(x + x_off)` over the patch
//! padded with the input zero point is `sum w x + w_off sum x + (bias + x_off sum w + n w_off
//! x_off)`, the last term kept per channel.

use super::base::check;
use super::base::packed::packed_once;
use super::base::fused::float_range;
use super::base::quant;
use super::base::window::{out_size, pad_before};
use crate::interpreter::{Desc, Eval, Init, Kernel, KernelError, Prepare, Shape};
use crate::model::{BuiltinOperator, BuiltinOptions, Padding, TensorType};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

#[cfg(test)]
pub(crate) mod cases;
mod bands;
mod compute;
use compute::*;

/// CONV_2D.
pub static CONV_2D: Kernel = Kernel {
    op: BuiltinOperator::Conv2D,
    prepare: prepare::<ANY_KIND>,
    init: Some(init::<ANY_KIND>),
    eval: eval::<ANY_KIND, ANY_SHAPE>,
};

/// DEPTHWISE_CONV_2D.
pub static DEPTHWISE_CONV_2D: Kernel = Kernel {
    op: BuiltinOperator::DepthwiseConv2D,
    prepare: prepare::<ANY_KIND>,
    init: Some(init::<ANY_KIND>),
    eval: eval::<ANY_KIND, ANY_SHAPE>,
};

/// CONV_2D for int8 models only (as TensorFlow Lite Micro's `Register_CONV_2D_INT8`): it
/// links the int8 body alone, not the float32 and 16x8 ones (11.1 KB less Cortex-M4 flash
/// with [`DEPTHWISE_CONV_2D_INT8`]). Other types stop set-up with
/// [`KernelError::Unsupported`].
pub static CONV_2D_INT8: Kernel = Kernel {
    op: BuiltinOperator::Conv2D,
    prepare: prepare::<{ 1 << kind::INT8 }>,
    init: Some(init::<{ 1 << kind::INT8 }>),
    eval: eval::<{ 1 << kind::INT8 }, CONV>,
};

/// DEPTHWISE_CONV_2D for int8 models only, as [`CONV_2D_INT8`].
pub static DEPTHWISE_CONV_2D_INT8: Kernel = Kernel {
    op: BuiltinOperator::DepthwiseConv2D,
    prepare: prepare::<{ 1 << kind::INT8 }>,
    init: Some(init::<{ 1 << kind::INT8 }>),
    eval: eval::<{ 1 << kind::INT8 }, DEPTHWISE>,
};

/// Every [`kind`], as a set of bits `1 << kind`: what a registration runs.
const ANY_KIND: u32 = 0b11111;
/// The shapes of convolution an `eval` runs (bits): CONV_2D's, DEPTHWISE_CONV_2D's, or both
/// (the two full kernels share one `eval`).
const CONV: u32 = 1;
const DEPTHWISE: u32 = 2;
const ANY_SHAPE: u32 = CONV | DEPTHWISE;

/// Element types of a convolution.
pub(super) mod kind {
    /// float32 throughout.
    pub const FLOAT: u32 = 0;
    /// int8 activations and weights, int32 bias.
    pub const INT8: u32 = 1;
    /// int16 activations, int8 weights, int64 bias (or none).
    pub const INT16: u32 = 2;
    /// int16 activations, int8 weights, int32 bias.
    pub const INT16_BIAS32: u32 = 3;
    /// uint8 activations and weights (per tensor, with zero points), int32 bias.
    pub const UINT8: u32 = 4;
}

/// What a convolution needs beyond its operands' shapes: the operator's parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    /// [`kind`].
    kind: u8,
    depthwise: u8,
    has_bias: u8,
    /// 1: float 1x1 weights packed into panels at the first invoke ([`compute::packed`]);
    /// int8 / uint8 CONV_2D weights packed into int16 panels at `init` ([`packed_q`]).
    packed: u8,
    stride_h: u32,
    stride_w: u32,
    dil_h: u32,
    dil_w: u32,
    pad_h: u32,
    pad_w: u32,
    act_min: i32,
    act_max: i32,
    lo: f32,
    hi: f32,
    input_offset: i32,
    output_offset: i32,
    weights_offset: i32,
}

/// A convolution's sizes and quantization: [`Params`] with the operands' shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Geometry {
    pub kind: u32,
    pub depthwise: u32,
    pub batches: u32,
    pub in_h: u32,
    pub in_w: u32,
    pub in_c: u32,
    pub out_h: u32,
    pub out_w: u32,
    pub out_c: u32,
    pub f_h: u32,
    pub f_w: u32,
    pub depth_mult: u32,
    pub stride_h: u32,
    pub stride_w: u32,
    pub dil_h: u32,
    pub dil_w: u32,
    pub pad_h: u32,
    pub pad_w: u32,
    /// Quantized output clamp.
    pub act_min: i32,
    pub act_max: i32,
    /// Float output clamp.
    pub lo: f32,
    pub hi: f32,
    /// Minus the input zero point (int8).
    pub input_offset: i32,
    /// The output zero point (int8).
    pub output_offset: i32,
    /// Minus the weights' zero point (uint8).
    pub weights_offset: i32,
    pub has_bias: u32,
}

impl Geometry {
    /// The parameters `prepare` keeps.
    fn params(&self) -> Params {
        // `geometry` checked every value against 2^30 (and the kinds are small).
        Params {
            kind: self.kind as u8,
            depthwise: self.depthwise as u8,
            has_bias: self.has_bias as u8,
            packed: 0,
            stride_h: self.stride_h,
            stride_w: self.stride_w,
            dil_h: self.dil_h,
            dil_w: self.dil_w,
            pad_h: self.pad_h,
            pad_w: self.pad_w,
            act_min: self.act_min,
            act_max: self.act_max,
            lo: self.lo,
            hi: self.hi,
            input_offset: self.input_offset,
            output_offset: self.output_offset,
            weights_offset: self.weights_offset,
        }
    }

    /// The geometry `prepare` checked, from its parameters and the operands' shapes (which
    /// `prepare` checked against each other: 4-D, sizes under 2^30).
    fn rebuild(p: &Params, input: &Shape, filter: &Shape, output: &Shape) -> Self {
        let d = |s: &Shape, i: usize| s.dim(i).unwrap_or(0) as u32;
        let (in_c, out_c) = (d(input, 3), d(output, 3));
        Self {
            kind: u32::from(p.kind),
            depthwise: u32::from(p.depthwise),
            batches: d(input, 0),
            in_h: d(input, 1),
            in_w: d(input, 2),
            in_c,
            out_h: d(output, 1),
            out_w: d(output, 2),
            out_c,
            f_h: d(filter, 1),
            f_w: d(filter, 2),
            depth_mult: if p.depthwise != 0 {
                out_c.checked_div(in_c).unwrap_or(0)
            } else {
                1
            },
            stride_h: p.stride_h,
            stride_w: p.stride_w,
            dil_h: p.dil_h,
            dil_w: p.dil_w,
            pad_h: p.pad_h,
            pad_w: p.pad_w,
            act_min: p.act_min,
            act_max: p.act_max,
            lo: p.lo,
            hi: p.hi,
            input_offset: p.input_offset,
            output_offset: p.output_offset,
            weights_offset: p.weights_offset,
            has_bias: u32::from(p.has_bias),
        }
    }

    /// Values of one filter row of CONV_2D (`f_h * f_w * in_c`).
    #[must_use]
    pub fn row(&self) -> usize {
        self.f_h as usize * self.f_w as usize * self.in_c as usize
    }

    fn quantized(&self) -> bool {
        self.kind != kind::FLOAT
    }

    /// Whether every window lies inside the image and a filter row's taps are adjacent (no
    /// padding, column dilation 1): each filter row then reads one contiguous input run, so
    /// the 16x8 CONV_2D sums over the input in place and needs no im2col patch (TFLM's
    /// streaming SEANet layers: 1 536 bytes of scratch less than its peak).
    pub(crate) fn windows_inside(&self) -> bool {
        let span = |out: u32, stride: u32, f: u32, dil: u32| {
            u64::from(out.saturating_sub(1)) * u64::from(stride)
                + u64::from(f.saturating_sub(1)) * u64::from(dil)
        };
        self.pad_h == 0
            && self.pad_w == 0
            && self.dil_w == 1
            && span(self.out_h, self.stride_h, self.f_h, self.dil_h) < u64::from(self.in_h)
            && span(self.out_w, self.stride_w, self.f_w, self.dil_w) < u64::from(self.in_w)
    }

    /// Words kept per output channel: multiplier and shift.
    fn channel_words(&self) -> usize {
        if self.quantized() { 2 } else { 0 }
    }

    /// Scratch bytes for the int8 / uint8 per-channel bias `eval` works out (before the rest).
    fn bias_bytes(&self) -> usize {
        match self.kind {
            kind::INT8 | kind::UINT8 => 4 * self.out_c as usize,
            _ => 0,
        }
    }

    /// Persistent bytes: [`channel_words`](Self::channel_words) per output channel.
    fn persistent_bytes(&self) -> usize {
        4 * self.channel_words() * self.out_c as usize
    }

    /// Scratch bytes `eval` uses after the int8 / uint8 bias ([`bias_bytes`](Self::bias_bytes)),
    /// per thread: an im2col patch (CONV_2D) or per-channel accumulators (DEPTHWISE_CONV_2D).
    fn work_bytes(&self) -> usize {
        let c = self.out_c as usize;
        if self.depthwise != 0 {
            match self.kind {
                kind::INT16 | kind::INT16_BIAS32 => 8 * c,
                _ => 4 * c,
            }
        } else {
            match self.kind {
                kind::INT8 => 4 * c + self.row(),
                kind::UINT8 => self.row(),
                kind::INT16 | kind::INT16_BIAS32 if self.windows_inside() => 0,
                kind::INT16 | kind::INT16_BIAS32 => 2 * self.row(),
                _ => 4 * self.row(),
            }
        }
    }
}

fn dim(d: &Desc<'_>, i: usize) -> u64 {
    d.shape.dim(i).unwrap_or(0) as u64
}

fn small(v: u64) -> Result<u32, KernelError> {
    // Every size and product eval computes stays far inside usize (32-bit targets too).
    u32::try_from(v)
        .ok()
        .filter(|&v| v < 1 << 30)
        .ok_or(KernelError::Unsupported {
            what: "convolution dimension over 2^30",
        })
}

fn positive(v: i32, what: &'static str) -> Result<u64, KernelError> {
    u64::try_from(v)
        .ok()
        .filter(|&v| v > 0 && v < 1 << 16)
        .ok_or(KernelError::Mismatch { what })
}

/// Reads the operator and checks it: the geometry (without per-channel data); only the kinds
/// in `KINDS` are recognised (the others are refused as `NOT_INT8` by `prepare`).
fn geometry<const KINDS: u32>(ctx: &Prepare<'_>) -> Result<Geometry, KernelError> {
    // Only the two convolutions' option decoders, not the whole union's; the operator's own
    // op picks which (a depthwise operator storing no options gets its own type's defaults).
    // One decode of the operator's own type (a runtime choice between the two decoders is
    // smaller on firmware than two typed reads).
    let op = match ctx.operator().builtin() {
        Some(BuiltinOperator::DepthwiseConv2D) => BuiltinOperator::DepthwiseConv2D,
        _ => BuiltinOperator::Conv2D,
    };
    let (depthwise, padding, sh, sw, dh, dw, act, dm_option) =
        match ctx.operator().options_for(op) {
            BuiltinOptions::Conv2D(o) => {
                let (p, a) = (o.padding, o.activation);
                (false, p, o.stride_h, o.stride_w, o.dilation_h, o.dilation_w, a, 0)
            }
            BuiltinOptions::DepthwiseConv2D(o) => {
                let (p, a, m) = (o.padding, o.activation, o.depth_multiplier);
                (true, p, o.stride_h, o.stride_w, o.dilation_h, o.dilation_w, a, m)
            }
            _ => return Err(crate::interpreter::kernel::WRONG_OPTIONS),
        };
    if !matches!(padding, Padding::Same | Padding::Valid) {
        return Err(KernelError::Unsupported { what: "padding" });
    }
    let (sh, sw) = (
        positive(sh, "stride not positive")?,
        positive(sw, "stride not positive")?,
    );
    let (dh, dw) = (
        positive(dh, "dilation not positive")?,
        positive(dw, "dilation not positive")?,
    );
    let input = ctx.input(0)?;
    let filter = ctx.input(1)?;
    let bias = ctx.optional_input(2);
    let output = ctx.output(0)?;
    for d in [&input, &filter, &output] {
        if d.shape.rank() != 4 {
            return Err(KernelError::Mismatch {
                what: "input, filter or output not 4-D",
            });
        }
    }
    let (batches, in_h, in_w, in_c) = (
        dim(&input, 0),
        dim(&input, 1),
        dim(&input, 2),
        dim(&input, 3),
    );
    let (f_h, f_w) = (dim(&filter, 1), dim(&filter, 2));
    let out_c = dim(&output, 3);
    let depth_mult = if depthwise {
        if dim(&filter, 0) != 1 || dim(&filter, 3) != out_c {
            return Err(KernelError::Mismatch {
                what: "depthwise filter is not [1, h, w, output channels]",
            });
        }
        if in_c == 0 || out_c % in_c != 0 {
            return Err(KernelError::Mismatch {
                what: "output channels not a multiple of the input channels",
            });
        }
        let dm = out_c / in_c;
        if dm_option > 0 && dm_option as u64 != dm {
            return Err(KernelError::Mismatch {
                what: "depth multiplier differs from output / input channels",
            });
        }
        dm
    } else {
        if dim(&filter, 0) != out_c || dim(&filter, 3) != in_c {
            return Err(KernelError::Unsupported {
                what: "filter not [output channels, h, w, input channels] (grouped convolution)",
            });
        }
        1
    };
    if f_h == 0 || f_w == 0 || in_c == 0 || out_c == 0 {
        return Err(KernelError::Unsupported {
            what: "convolution with an empty filter or no channels",
        });
    }
    let out_h = out_size(padding, in_h, f_h, sh, dh);
    let out_w = out_size(padding, in_w, f_w, sw, dw);
    if [dim(&output, 0), dim(&output, 1), dim(&output, 2)] != [batches, out_h, out_w] {
        return Err(KernelError::Mismatch {
            what: "output shape is not what the convolution computes",
        });
    }
    let mut g = Geometry {
        depthwise: u32::from(depthwise),
        batches: small(batches)?,
        in_h: small(in_h)?,
        in_w: small(in_w)?,
        in_c: small(in_c)?,
        out_h: small(out_h)?,
        out_w: small(out_w)?,
        out_c: small(out_c)?,
        f_h: small(f_h)?,
        f_w: small(f_w)?,
        depth_mult: small(depth_mult)?,
        stride_h: small(sh)?,
        stride_w: small(sw)?,
        dil_h: small(dh)?,
        dil_w: small(dw)?,
        pad_h: small(pad_before(sh, dh, in_h, f_h, out_h))?,
        pad_w: small(pad_before(sw, dw, in_w, f_w, out_w))?,
        has_bias: u32::from(bias.is_some()),
        ..Geometry::default()
    };
    small(f_h * f_w * in_c)?;
    small(batches * in_h * in_w * in_c)?;
    small(batches * out_h * out_w * out_c)?;
    let bias_type = bias.as_ref().map(|b| b.dtype);
    if let Some(b) = &bias {
        if b.shape.elements() != out_c as usize {
            return Err(KernelError::Mismatch {
                what: "bias is not one value per output channel",
            });
        }
    }
    let types = (input.dtype, filter.dtype, output.dtype, bias_type);
    use TensorType as T;
    g.kind = match types {
        (T::Float32, T::Float32, T::Float32, None | Some(T::Float32)) => kind::FLOAT,
        (T::Int8, T::Int8, T::Int8, None | Some(T::Int32)) => kind::INT8,
        (T::Int16, T::Int8, T::Int16, None | Some(T::Int64)) => kind::INT16,
        (T::Int16, T::Int8, T::Int16, Some(T::Int32)) if !depthwise => kind::INT16_BIAS32,
        (T::Uint8, T::Uint8, T::Uint8, None | Some(T::Int32)) if KINDS & (1 << kind::UINT8) != 0 => {
            kind::UINT8
        }
        _ => {
            return Err(KernelError::Unsupported {
                what: "convolution types (float32; int8 or uint8 with int32 bias; int16 x int8 with int64 or int32 bias)",
            });
        }
    };
    if g.kind == kind::FLOAT {
        (g.lo, g.hi) = float_range(act)?;
    } else {
        let (_, in_zp) = quant::per_tensor(input.quantization(), input.dtype)?;
        let (out_scale, out_zp) = quant::per_tensor(output.quantization(), output.dtype)?;
        if matches!(g.kind, kind::INT16 | kind::INT16_BIAS32) && (in_zp != 0 || out_zp != 0) {
            return Err(KernelError::Unsupported {
                what: "int16 activations with a non-zero zero point",
            });
        }
        g.input_offset = -in_zp;
        g.output_offset = out_zp;
        (g.act_min, g.act_max) = quant::activation_range(act, output.dtype, out_scale, out_zp)?;
        let fq = filter.quantization().ok_or(KernelError::Mismatch {
            what: "quantized filter without scales",
        })?;
        let per_channel_dim = if depthwise { 3 } else { 0 };
        if KINDS & (1 << kind::UINT8) != 0 && g.kind == kind::UINT8 {
            // uint8 weights are per tensor, with a zero point.
            let (_, w_zp) = quant::per_tensor(Some(fq), T::Uint8)?;
            g.weights_offset = -w_zp;
        } else if fq.is_per_channel() && fq.quantized_dimension() != per_channel_dim {
            return Err(KernelError::Mismatch {
                what: "filter scales not along the output channels",
            });
        }
        if filter.constant().is_none() || bias.as_ref().is_some_and(|b| b.constant().is_none()) {
            return Err(KernelError::Unsupported {
                what: "quantized convolution with a non-constant filter or bias",
            });
        }
    }
    Ok(g)
}

/// Checks the operator, for the element kinds in `KINDS` (bits `1 << kind`).
fn prepare<const KINDS: u32>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let g = geometry::<KINDS>(ctx)?;
    if KINDS & (1 << g.kind) == 0 {
        return Err(check::NOT_INT8);
    }
    if g.quantized() {
        // Derive the multipliers now, so a bad scale fails at setup, not at init.
        channel_params::<KINDS>(&Operands::of(ctx)?, &g, |_, _, _| {})?;
    }
    let mut params = g.params();
    // One set of work bytes per thread (`bands`).
    let threads = ctx.threads();
    let (mut persistent, mut scratch) = (
        g.persistent_bytes(),
        g.bias_bytes() + bands::per_band(g.work_bytes(), threads) * threads,
    );
    if let Some(bytes) = packing(ctx, &g) {
        params.packed = 1;
        // One set of patches per thread.
        (persistent, scratch) = (bytes, 4 * packed::patch_len(&g) * ctx.threads());
    } else if let Some(values) = packing_q(ctx, &g) {
        params.packed = 1;
        // The channel table, then the panels at a 16-byte boundary. The scratch also fits
        // the unpacked body, which runs where the CPU lacks AVX2.
        persistent = table_end(&g) + 2 * values;
        let work = g.work_bytes().max(packed_q::work_bytes(&g));
        scratch = g.bias_bytes() + bands::per_band(work, threads) * threads;
    }
    ctx.request_persistent(persistent);
    ctx.request_scratch(scratch);
    ctx.set_params(&params);
    Ok(())
}

/// The persistent bytes of a float CONV_2D's packed weights (a 16-byte flag, then the
/// panels), when the options ask for packing and the weights cannot change: a constant, or a
/// DEQUANTIZE of one (its float16 or int8 weights).
fn packing(ctx: &Prepare<'_>, g: &Geometry) -> Option<usize> {
    let float_conv = g.kind == kind::FLOAT && g.depthwise == 0;
    if !(cfg!(feature = "state") && ctx.pack_weights() && float_conv) {
        return None;
    }
    let filter = ctx.input(1).ok()?;
    let fixed = filter.constant().is_some() && !filter.tensor.is_variable()
        || ctx.dequantizes_a_constant(filter.index);
    let values = packed::packed_len(g.out_c as usize, g.row())?;
    fixed.then_some(16 + 4 * values)
}

/// The int16 values of an int8 or uint8 CONV_2D's packed weights ([`packed_q`]), when this
/// build has the body that reads them and the options ask for packing (the filter is a
/// constant: `geometry` checked), stored dense.
fn packing_q(ctx: &Prepare<'_>, g: &Geometry) -> Option<usize> {
    let int_conv = matches!(g.kind, kind::INT8 | kind::UINT8) && g.depthwise == 0;
    if !(packed_q::PACKS && ctx.pack_weights() && int_conv) {
        return None;
    }
    let filter = ctx.input(1).ok()?;
    let dense = filter.sparsity().is_none()
        && filter.constant()?.len() == (g.out_c as usize).checked_mul(g.row())?;
    dense.then(|| packed_q::packed_len(g.out_c as usize, g.row()))?
}

/// Where an int8 / uint8 CONV_2D's packed weights start in its persistent bytes: after the
/// channel table, at a 16-byte boundary.
fn table_end(g: &Geometry) -> usize {
    g.persistent_bytes().next_multiple_of(16)
}

/// The operator's tensors, as the model describes them (no borrow of the context kept).
struct Operands<'m> {
    input: Desc<'m>,
    filter: Desc<'m>,
    bias: Option<Desc<'m>>,
    output: Desc<'m>,
}

impl<'m> Operands<'m> {
    fn of(ctx: &Prepare<'m>) -> Result<Self, KernelError> {
        Ok(Self {
            input: ctx.input(0)?,
            filter: ctx.input(1)?,
            bias: ctx.optional_input(2),
            output: ctx.output(0)?,
        })
    }
}

/// Calls `f(channel, multiplier, shift)` for every output channel.
fn channel_params<const KINDS: u32>(
    ops: &Operands<'_>,
    g: &Geometry,
    mut f: impl FnMut(usize, i32, i32),
) -> Result<(), KernelError> {
    let (in_scale, _) = quant::per_tensor(ops.input.quantization(), ops.input.dtype)?;
    let (out_scale, _) = quant::per_tensor(ops.output.quantization(), ops.output.dtype)?;
    let fq = ops.filter.quantization().ok_or(KernelError::Mismatch {
        what: "quantized filter without scales",
    })?;
    let oc = g.out_c as usize;
    if KINDS & (1 << kind::UINT8) != 0 && g.kind == kind::UINT8 {
        let (w_scale, _) = quant::per_tensor(Some(fq), TensorType::Uint8)?;
        let bias_scale = ops.bias.as_ref().map(|b| {
            b.quantization()
                .and_then(|q| q.scale().get(0))
                .unwrap_or(0.0)
        });
        let (m, s) = quant::legacy_conv_multiplier(in_scale, w_scale, bias_scale, out_scale)?;
        for c in 0..oc {
            f(c, m, s);
        }
        return Ok(());
    }
    quant::channel_multipliers(in_scale, &fq, out_scale, g.kind != kind::INT8, f, oc)
}

/// The int32 bias of each output channel into `dst`: the model's (zero without one), for
/// CONV_2D with the offsets folded in (`fold(channel, bias)`).
fn channel_bias(
    dst: &mut [i32],
    bias: Option<&[i32]>,
    fold: impl Fn(usize, i32) -> Option<i32>,
) -> Result<(), KernelError> {
    let short = KernelError::Mismatch {
        what: "constant shorter than its shape",
    };
    if bias.is_some_and(|b| b.len() < dst.len()) {
        return Err(short);
    }
    for (c, d) in dst.iter_mut().enumerate() {
        let b = bias.and_then(|b| b.get(c)).copied().unwrap_or(0);
        *d = fold(c, b).ok_or(short)?;
    }
    Ok(())
}

fn init<const KINDS: u32>(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let g = geometry::<KINDS>(ctx.prepared())?;
    let ops = Operands::of(ctx.prepared())?;
    let rest = ctx.persistent();
    let small = KernelError::Mismatch {
        what: "persistent block smaller than asked",
    };
    if g.quantized() {
        let oc = g.out_c as usize;
        let words = g.channel_words() * oc;
        let table =
            <[i32]>::mut_from_bytes(rest.get_mut(..4 * words).ok_or(small)?).map_err(|_| small)?;
        let (mult, shift) = table.split_at_mut(oc);
        channel_params::<KINDS>(&ops, &g, |c, m, s| {
            if let (Some(pm), Some(ps)) = (mult.get_mut(c), shift.get_mut(c)) {
                (*pm, *ps) = (m, s);
            }
        })?;
        if ctx.params::<Params>().packed != 0 {
            // The filter is a dense constant (`packing_q`), read where it lies.
            let filter = ops.filter.constant().ok_or(small)?;
            let (oc, row) = (g.out_c as usize, g.row());
            let values = packed_q::packed_len(oc, row).ok_or(small)?;
            let at = table_end(&g);
            let panels = ctx.persistent().get_mut(at..at + 2 * values).ok_or(small)?;
            let panels = <[i16]>::mut_from_bytes(panels).map_err(|_| small)?;
            if g.kind == kind::UINT8 {
                packed_q::pack(filter, oc, row, g.weights_offset, panels)?;
            } else {
                let filter = <[i8]>::ref_from_bytes(filter).map_err(|_| small)?;
                packed_q::pack(filter, oc, row, 0, panels)?;
            }
        }
    }
    Ok(())
}

/// An int8 / uint8 CONV_2D's packed weights, when `init` packed them and the CPU runs the
/// body that reads them.
fn packed_weights<'b>(
    g: &Geometry,
    packed: u8,
    rest: &'b [u8],
) -> Result<Option<&'b [i16]>, KernelError> {
    if packed == 0 || g.depthwise != 0 || !packed_q_runs() {
        return Ok(None);
    }
    let bad = KernelError::Mismatch {
        what: "persistent block not as init wrote it",
    };
    let values = packed_q::packed_len(g.out_c as usize, g.row()).ok_or(bad)?;
    let at = table_end(g);
    let bytes = rest.get(at..at + 2 * values).ok_or(bad)?;
    Ok(Some(<[i16]>::ref_from_bytes(bytes).map_err(|_| bad)?))
}

/// Multipliers and shifts, one per output channel.
type Channels<'a> = (&'a [i32], &'a [i32]);

/// The persistent block's parts: multipliers and shifts (empty for float32).
fn parts<'b>(g: &Geometry, rest: &'b [u8]) -> Result<Channels<'b>, KernelError> {
    let bad = KernelError::Mismatch {
        what: "persistent block not as init wrote it",
    };
    if !g.quantized() {
        return Ok((&[], &[]));
    }
    let oc = g.out_c as usize;
    let words = g.channel_words() * oc;
    let table = <[i32]>::ref_from_bytes(rest.get(..4 * words).ok_or(bad)?).map_err(|_| bad)?;
    Ok(table.split_at(oc))
}

/// Runs the convolution; only the bodies of the kinds in `KINDS` and the shapes in `SHAPES`
/// are linked (the others cannot pass `prepare::<KINDS>`, or come from another op).
fn eval<const KINDS: u32, const SHAPES: u32>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let runs = |kind: u32, dw: bool| {
        KINDS & (1 << kind) != 0 && SHAPES & if dw { DEPTHWISE } else { CONV } != 0
    };
    let g = Geometry::rebuild(
        &ctx.params(),
        &ctx.input_shape(0)?,
        &ctx.input_shape(1)?,
        &ctx.output_shape(0)?,
    );
    let packed = ctx.params::<Params>().packed;
    if KINDS & (1 << kind::FLOAT) != 0 && g.kind == kind::FLOAT && packed != 0 {
        return eval_packed(ctx, &g);
    }
    let (mult, shift) = parts(&g, ctx.persistent())?;
    let packed_q = packed_weights(&g, packed, ctx.persistent())?;
    let model_bias = if g.has_bias != 0 && g.bias_bytes() != 0 {
        Some(ctx.input::<i32>(2)?)
    } else {
        None
    };
    let row = g.row();
    let threads = bands::threads(ctx);
    // Multiply-adds per output value, for whether to split.
    let taps = if g.depthwise != 0 {
        g.f_h as usize * g.f_w as usize
    } else {
        row
    };
    let oc = g.out_c as usize;
    // The packed body's scratch is asked for beside the unpacked one's (`prepare`).
    let work_bytes = if packed != 0 && g.quantized() {
        g.work_bytes().max(packed_q::work_bytes(&g))
    } else {
        g.work_bytes()
    };
    // Each band's scratch (with one thread, the whole work region).
    let per = bands::per_band(work_bytes, super::base::threads::count(threads));
    let short = KernelError::Mismatch {
        what: "scratch smaller than asked",
    };
    match (g.kind, g.depthwise != 0) {
        (kind::FLOAT, dw) if runs(kind::FLOAT, dw) => {
            let input = ctx.input::<f32>(0)?;
            let filter = ctx.input::<f32>(1)?;
            let bias = if g.has_bias != 0 {
                Some(ctx.input::<f32>(2)?)
            } else {
                None
            };
            let out = ctx.output::<f32>(0)?;
            let work = out.len().saturating_mul(taps);
            bands::in_bands(threads, &g, input, out, ctx.scratch(), per, work, &|g, x, y, s| {
                if dw {
                    depthwise_f32(g, x, filter, bias, y, scratch_of::<f32>(s, oc)?)
                } else {
                    conv_f32(g, x, filter, bias, y, scratch_of::<f32>(s, row)?)
                }
            })
        }
        (kind::INT8, dw) if runs(kind::INT8, dw) => {
            let input = ctx.input::<i8>(0)?;
            let filter = ctx.input::<i8>(1)?;
            let out = ctx.output::<i8>(0)?;
            let (bias, work) = bias_and_work(&g, ctx.scratch())?;
            channel_bias(bias, model_bias, |c, b| {
                if dw {
                    return Some(b);
                }
                let r = filter.get(c * row..(c + 1) * row)?;
                Some(folded_bias(b, g.input_offset, r))
            })?;
            let q = Requant { mult, shift, bias };
            let macs = out.len().saturating_mul(taps);
            bands::in_bands(threads, &g, input, out, work, per, macs, &|g, x, y, s| {
                if dw {
                    depthwise_i8(g, x, filter, &q, y, scratch_of::<i32>(s, oc)?)
                } else if let Some(pw) = packed_q {
                    conv_q_packed::<false>(g, x.as_bytes(), pw, &q, y.as_mut_bytes(), s)
                } else {
                    let (acc, patch) = s.split_at_mut_checked(4 * oc).ok_or(short)?;
                    let acc = scratch_of::<i32>(acc, oc)?;
                    let patch = scratch_of::<i8>(patch, row)?;
                    conv_i8(g, x, filter, &q, y, patch, acc)
                }
            })
        }
        (kind::UINT8, dw) if runs(kind::UINT8, dw) => {
            let input = ctx.input::<u8>(0)?;
            let filter = ctx.input::<u8>(1)?;
            let out = ctx.output::<u8>(0)?;
            let (bias, work) = bias_and_work(&g, ctx.scratch())?;
            channel_bias(bias, model_bias, |c, b| {
                if dw {
                    return Some(b);
                }
                let r = filter.get(c * row..(c + 1) * row)?;
                Some(folded_bias_u8(b, g.input_offset, g.weights_offset, r))
            })?;
            let q = Requant { mult, shift, bias };
            let macs = out.len().saturating_mul(taps);
            bands::in_bands(threads, &g, input, out, work, per, macs, &|g, x, y, s| {
                if dw {
                    depthwise_u8(g, x, filter, &q, y, scratch_of::<i32>(s, oc)?)
                } else if let Some(pw) = packed_q {
                    conv_q_packed::<true>(g, x, pw, &q, y, s)
                } else {
                    conv_u8(g, x, filter, &q, y, scratch_of::<u8>(s, row)?)
                }
            })
        }
        (k @ (kind::INT16 | kind::INT16_BIAS32), dw) if runs(k, dw) => {
            let input = ctx.input::<i16>(0)?;
            let filter = ctx.input::<i8>(1)?;
            // The 16x8 kernels read their bias from the model.
            let q = Requant {
                mult,
                shift,
                bias: &[],
            };
            let bias = match (g.has_bias != 0, g.kind) {
                (false, _) => Bias::None,
                (true, kind::INT16) => Bias::Wide(ctx.input::<i64>(2)?),
                (true, _) => Bias::Narrow(ctx.input::<i32>(2)?),
            };
            let out = ctx.output::<i16>(0)?;
            let macs = out.len().saturating_mul(taps);
            bands::in_bands(threads, &g, input, out, ctx.scratch(), per, macs, &|g, x, y, s| {
                if dw {
                    depthwise_i16(g, x, filter, &q, bias, y, scratch_of::<i64>(s, oc)?)
                } else {
                    // No patch where the windows are inside the image (`work_bytes`).
                    let n = if g.windows_inside() { 0 } else { g.row() };
                    conv_i16(g, x, filter, &q, bias, y, scratch_of::<i16>(s, n)?)
                }
            })
        }
        _ => Err(KernelError::Unsupported {
            what: "convolution kind",
        }),
    }
}

/// A float CONV_2D over its packed weights, packed at the first invoke (and after a reset)
/// from the filter, which `prepare` saw cannot change.
fn eval_packed(ctx: &mut Eval<'_>, g: &Geometry) -> Result<(), KernelError> {
    let small = KernelError::Mismatch {
        what: "persistent block smaller than asked",
    };
    let (oc, row) = (g.out_c as usize, g.row());
    let values = packed::packed_len(oc, row).ok_or(small)?;
    let filter = ctx.input::<f32>(1)?;
    let panels = packed_once(ctx.persistent_mut()?, values, small, |panels| {
        packed::pack(filter, oc, row, panels)
    })?;
    let input = ctx.input::<f32>(0)?;
    let bias = if g.has_bias != 0 {
        Some(ctx.input::<f32>(2)?)
    } else {
        None
    };
    let per_part = packed::patch_len(g);
    #[cfg(feature = "std")]
    {
        let workers = ctx.workers();
        let out = ctx.output::<f32>(0)?;
        let scratch = ctx.scratch();
        let threads = match per_part {
            0 => workers.threads(),
            n => scratch.len() / 4 / n,
        };
        let patches = scratch_of::<f32>(scratch, per_part * threads)?;
        let oc = (g.out_c as usize).max(1);
        let work = out.len().saturating_mul(row);
        crate::interpreter::workers::split(
            workers,
            out,
            packed::TILE * oc,
            patches,
            per_part,
            work,
            &|first, out, patches| {
                packed::conv_packed_part(g, input, panels, bias, first / oc, out, patches)
            },
        )
    }
    #[cfg(not(feature = "std"))]
    {
        let out = ctx.output::<f32>(0)?;
        let patches = scratch_of::<f32>(ctx.scratch(), per_part)?;
        packed::conv_packed_f32(g, input, panels, bias, out, patches)
    }
}

/// The scratch split into the int8 / uint8 per-channel bias and the bytes after it.
fn bias_and_work<'s>(
    g: &Geometry,
    scratch: &'s mut [u8],
) -> Result<(&'s mut [i32], &'s mut [u8]), KernelError> {
    let (bias, work) = scratch
        .split_at_mut_checked(g.bias_bytes())
        .ok_or(KernelError::Mismatch {
            what: "scratch smaller than asked",
        })?;
    Ok((scratch_of::<i32>(bias, g.bias_bytes() / 4)?, work))
}

fn scratch_of<T: FromBytes + IntoBytes + KnownLayout + Immutable>(
    bytes: &mut [u8],
    n: usize,
) -> Result<&mut [T], KernelError> {
    let bad = KernelError::Mismatch {
        what: "scratch smaller than asked",
    };
    if n == 0 {
        // An empty scratch is a dangling `u8` pointer, which need not be aligned for `T`.
        return Ok(&mut []);
    }
    let bytes = bytes.get_mut(..n * core::mem::size_of::<T>()).ok_or(bad)?;
    <[T]>::mut_from_bytes(bytes).map_err(|_| bad)
}

#[cfg(test)]
mod tests;
