//! The fully integer LSTM: int8 input, output state and weights, int16 cell state, int32
//! biases, int16 peephole and layer normalization weights. LiteRT's `EvalInteger8x8_16`
//! (`lstm_eval.cc`) and its set-up `PopulateQuantizedLstmParams8x8_16` and
//! `PopulatePrecomputedZPTimesWeightsWithBias` (`unidirectional_sequence_lstm.cc`), bit for
//! bit.
//!
//! Each gate is accumulated in int16: zero, plus the rescaled input product, plus the rescaled
//! recurrent product, each sum saturated; then the peephole product, layer normalization,
//! and gemmlowp's Q3.12 sigmoid or tanh ([`fixed16`](super::fixed16)). The cell state is a
//! power-of-two scale (`2^cell_scale`, `cell_scale` in `-15..=-9`).
//!
//! LiteRT folds each product's bias and zero-point share into an "effective bias" at set-up
//! (`bias + zp * sum(row)`); this kernel adds the zero point to each operand instead
//! (`bias + sum(w (x + zp))`), the same int32 value (wrapping sums distribute), without the
//! `8 * cell + output` words of persistent memory the folded biases would take.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check::SHORT;
use super::super::base::quant::fixed_point::checked_log2;
use super::super::base::quant::{
    checked_multiplier, multiply_by_quantized_multiplier as mbqm, per_tensor, rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
};
use super::super::base::recurrent::panel::pair_dots;
use super::super::base::recurrent::{Walk, state_mut, Carve, carved_bytes, first, first_mut, single_scale, total_bytes};
use super::fixed16;
use super::{Dir, Sizes, UNI, flag};
use crate::interpreter::{Desc, Eval, KernelError, Prepare};
use crate::model::TensorType;

/// The quantization `init` works out (`IntegerLstmParameter`), kept in the persistent block.
#[derive(Clone, Copy, Default, Debug, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(super) struct IntegerParams {
    /// Input-to-gate multiplier and shift, per gate (input, forget, cell, output).
    input_mul: [[i32; 2]; 4],
    recurrent_mul: [[i32; 2]; 4],
    /// Cell-to-gate (peephole); the cell gate's unused.
    cell_mul: [[i32; 2]; 4],
    layer_norm_mul: [[i32; 2]; 4],
    variance_guard: [i32; 4],
    projection_mul: [i32; 2],
    hidden_mul: [i32; 2],
    hidden_zp: i32,
    output_state_zp: i32,
    cell_scale: i32,
    cell_clip: i32,
    proj_clip: i32,
    input_zp: i32,
    _pad: [i32; 2],
}

/// Bytes of the persistent block: the parameters.
pub(super) const PERSISTENT_BYTES: usize = size_of::<IntegerParams>();

/// Scratch bytes: four int16 gates and the int8 hidden state, `batches * cell` each.
pub(super) fn scratch_bytes(s: &Sizes) -> Option<usize> {
    let n = s.batches.checked_mul(s.cell)?;
    let gate = carved_bytes::<i16>(n)?;
    total_bytes(&[gate.checked_mul(4), carved_bytes::<i8>(n)])
}

const QUANT: KernelError = KernelError::Mismatch {
    what: "an integer LSTM operand without one scale and zero point",
};

fn scale_zp(d: &Desc<'_>) -> Result<(f32, i32), KernelError> {
    per_tensor(d.quantization(), d.dtype).map_err(|_| QUANT)
}

/// A multiplier for `scale`, refused past what the fixed-point arithmetic holds.
fn multiplier(scale: f32, extra_shift: i32) -> Result<[i32; 2], KernelError> {
    let (m, s) = checked_multiplier(f64::from(scale), false)?;
    if s.saturating_add(extra_shift) > 30 {
        return Err(KernelError::Unsupported {
            what: "quantized scale ratio out of the fixed-point range",
        });
    }
    Ok([m, s])
}

/// The scale and zero point of intermediate tensor `k` (the gates' pre-activation scales
/// with layer normalization, the hidden state's always).
fn intermediate(ctx: &Prepare<'_>, k: usize) -> Result<(f32, i32), KernelError> {
    let missing = KernelError::Mismatch {
        what: "integer LSTM without its five quantized intermediate tensors",
    };
    let im = ctx.operator().intermediates();
    if im.len() != 5 {
        return Err(missing);
    }
    let t = im.get(k).flatten().ok_or(missing)?;
    let tensor = ctx.graph.tensor(t).ok_or(missing)?;
    let q = tensor.quantization().ok_or(missing)?;
    let scale = q.scale().get(0).ok_or(missing)?;
    let zp = q.zero_point().get(0).unwrap_or(0);
    let zp = i32::try_from(zp).map_err(|_| missing)?;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(missing);
    }
    Ok((scale, zp))
}

/// `PopulateQuantizedLstmParams8x8_16`: every multiplier, clip and guard, in the reference's
/// float and double arithmetic.
#[allow(clippy::needless_range_loop)] // the gate indexes several arrays and operands
pub(super) fn params(
    ctx: &Prepare<'_>,
    d: &Dir,
    cell_clip: f32,
    proj_clip: f32,
) -> Result<IntegerParams, KernelError> {
    let s = UNI;
    let ln = d.has(flag::LAYER_NORM);
    let cifg = d.has(flag::CIFG);
    let peephole = d.has(flag::PEEPHOLE);
    let (input_scale, input_zp) = scale_zp(&ctx.input(0)?)?;
    let state = ctx.input(s.output_state)?;
    let (state_scale, state_zp) = scale_zp(&state)?;
    let (cell_state_scale, _) = scale_zp(&ctx.input(s.cell_state)?)?;
    let (output_scale, _) = scale_zp(&ctx.output(0)?)?;
    let (log2, pot) = checked_log2(cell_state_scale);
    if !pot {
        return Err(KernelError::Unsupported {
            what: "integer LSTM cell state scale not a power of two",
        });
    }
    if !(-15..=-9).contains(&log2) {
        return Err(KernelError::Unsupported {
            what: "integer LSTM cell state scale outside 2^-15..=2^-9",
        });
    }
    let scale_of = |k: usize| -> Result<f32, KernelError> {
        ctx.optional_input(k).map_or(Ok(1.0), |t| single_scale(&t))
    };
    let mut inter = [(0.0f32, 0i32); 5];
    for (k, v) in inter.iter_mut().enumerate().take(4) {
        *v = if ln {
            intermediate(ctx, k)?
        } else {
            // Q3.12 for the activations.
            (1.0 / 4096.0, 0)
        };
    }
    inter[4] = intermediate(ctx, 4)?;
    let mut p = IntegerParams {
        cell_scale: log2,
        hidden_zp: inter[4].1,
        output_state_zp: state_zp,
        input_zp,
        ..IntegerParams::default()
    };
    for g in 0..4 {
        let used = !(g == 0 && cifg);
        let (wi, wr) = if used {
            (scale_of(s.input_to(g))?, scale_of(s.recurrent_to(g))?)
        } else {
            (1.0, 1.0)
        };
        let (ie, re) = if used {
            (
                wi * input_scale / inter[g].0,
                wr * state_scale / inter[g].0,
            )
        } else {
            (1.0, 1.0)
        };
        p.input_mul[g] = multiplier(ie, 0)?;
        p.recurrent_mul[g] = multiplier(re, 0)?;
        let ce = if peephole && used && g != 2 {
            let w = scale_of(s.cell_to(g))?;
            (libm::pow(2.0, f64::from(log2)) * f64::from(w) / f64::from(inter[g].0)) as f32
        } else {
            1.0
        };
        p.cell_mul[g] = multiplier(ce, 0)?;
        let ln_scale = match s.layer_norm {
            Some(at) if ln && used => scale_of(at + g)?,
            _ => 1.0,
        };
        // The layer norm multiplier is applied with its shift raised by 12.
        p.layer_norm_mul[g] = multiplier(ln_scale, 12)?;
        // 10000 keeps the variance's fixed point from overflowing.
        p.variance_guard[g] = ((10000.0 * ln_scale) as i32).max(1);
    }
    const TWO_TO_MINUS_15: f64 = 1.0 / 32768.0;
    let hidden = (TWO_TO_MINUS_15 / f64::from(inter[4].0) * TWO_TO_MINUS_15) as f32;
    p.hidden_mul = multiplier(hidden, 0)?;
    let proj_w = if d.has(flag::PROJECTION) {
        scale_of(s.projection())?
    } else {
        1.0
    };
    p.projection_mul = multiplier(proj_w * inter[4].0 / state_scale, 0)?;
    p.cell_clip = if cell_clip > 0.0 {
        i32::from(((cell_clip / cell_state_scale).clamp(-32768.0, 32767.0)) as i16)
    } else {
        0
    };
    p.proj_clip = if proj_clip > 0.0 {
        i32::from(((proj_clip / output_scale).clamp(-128.0, 127.0)) as i8)
    } else {
        0
    };
    // Operand types the integer body reads.
    if state.dtype != TensorType::Int8 || ctx.output(0)?.dtype != TensorType::Int8 {
        return Err(QUANT);
    }
    Ok(p)
}

/// `MatrixBatchVectorMultiplyAccumulate` (int8 into int16 or int8): `out = clamp(out + zp +
/// rescale(bias[r] + sum w (x + offset)))`, the bias 0 when absent; the sums from `panel`
/// (`w` packed by [`pack_pairs`](super::super::base::recurrent::panel::pack_pairs)) where
/// given.
#[allow(clippy::too_many_arguments)]
fn matmul_acc<T: Copy + Into<i32>>(
    x: &[i8],
    offset: i32,
    bias: Option<&[i32]>,
    w: &[i8],
    panel: Option<&[i8]>,
    mul: [i32; 2],
    batches: usize,
    cols: usize,
    rows: usize,
    zp: i32,
    out: &mut [T],
    narrow: impl Fn(i32) -> T,
    (lo, hi): (i32, i32),
) -> Result<(), KernelError> {
    let x = first(x, batches * cols)?;
    let w = first(w, rows * cols)?;
    let bias = match bias {
        Some(b) => Some(first(b, rows)?),
        None => None,
    };
    let out = first_mut(out, batches * rows)?;
    // `x + offset` fits 16 bits (an int8 value plus minus an int8 zero point): 16-bit
    // operands multiply-add pairwise into 32 bits (SSE2's `pmaddwd`), where 32-bit products
    // have no SSE2 instruction; the integers are the same.
    let offset16 = i16::try_from(offset)
        .ok()
        .filter(|o| (-128..=128).contains(o));
    if rows == 0 {
        return Ok(());
    }
    // The dot products of up to BLOCK rows first, then their rescaling: each in a copy
    // compiled for AVX2, rather than the rescaling a call per row from inside the dots.
    const BLOCK: usize = 64;
    let rescale = Rescale { mul, zp, lo, hi };
    let mut sums = [0i32; BLOCK];
    for b in 0..batches {
        let xv = &x[b * cols..b * cols + cols];
        let o = &mut out[b * rows..b * rows + rows];
        for at in (0..rows).step_by(BLOCK) {
            let n = BLOCK.min(rows - at);
            let sums = &mut sums[..n];
            match (panel, offset16) {
                // No products: each row's sum is its bias.
                _ if cols == 0 => sums.fill(0),
                (Some(p), Some(o16)) => pair_dots(xv, o16, p, rows, at, sums)?,
                _ => dots(xv, &w[at * cols..(at + n) * cols], offset, offset16, sums),
            }
            let bias = bias.map(|v| &v[at..at + n]);
            rescale.add_into(sums, bias, &mut o[at..at + n], &narrow);
        }
    }
    Ok(())
}

/// The rescaling of a block of rows' sums into the output: `out = clamp(out + zp +
/// rescale(bias + sum))`.
#[derive(Clone, Copy)]
struct Rescale {
    mul: [i32; 2],
    zp: i32,
    lo: i32,
    hi: i32,
}

impl Rescale {
    /// Every row of the block, compiled for AVX2 where the CPU has it (the 64-bit products
    /// of the rescaling four or eight at a time).
    fn add_into<T: Copy + Into<i32>>(
        self,
        sums: &[i32],
        bias: Option<&[i32]>,
        out: &mut [T],
        narrow: &impl Fn(i32) -> T,
    ) {
        #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
            return unsafe { self.add_into_avx2(sums, bias, out, narrow) };
        }
        self.add_into_portable(sums, bias, out, narrow);
    }

    /// [`add_into_portable`](Self::add_into_portable) compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    #[target_feature(enable = "avx2")]
    unsafe fn add_into_avx2<T: Copy + Into<i32>>(
        self,
        sums: &[i32],
        bias: Option<&[i32]>,
        out: &mut [T],
        narrow: &impl Fn(i32) -> T,
    ) {
        self.add_into_portable(sums, bias, out, narrow);
    }

    #[inline(always)]
    fn add_into_portable<T: Copy + Into<i32>>(
        self,
        sums: &[i32],
        bias: Option<&[i32]>,
        out: &mut [T],
        narrow: &impl Fn(i32) -> T,
    ) {
        let one = |o: &mut T, acc: i32| {
            let v = mbqm(acc, self.mul[0], self.mul[1])
                .wrapping_add(self.zp)
                .wrapping_add((*o).into())
                .clamp(self.lo, self.hi);
            *o = narrow(v);
        };
        match bias {
            Some(b) => {
                for ((o, &d), &bv) in out.iter_mut().zip(sums).zip(b) {
                    one(o, bv.wrapping_add(d));
                }
            }
            None => {
                for (o, &d) in out.iter_mut().zip(sums) {
                    one(o, d);
                }
            }
        }
    }
}

/// `sums[r] = sum (x + offset) w_r` for every row `w_r` of `w` (rows of `x.len()` values, at
/// least one; as many as `sums` holds), in wrapping 32-bit arithmetic (any order: the same
/// integers): in 16-bit products where `x + offset` fits (`offset16`), compiled for AVX2
/// where the CPU has it (twice SSE2's lanes).
fn dots(x: &[i8], w: &[i8], offset: i32, offset16: Option<i16>, sums: &mut [i32]) {
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
        return unsafe { dots_avx2(x, w, offset, offset16, sums) };
    }
    dots_portable(x, w, offset, offset16, sums);
}

/// [`dots_portable`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn dots_avx2(x: &[i8], w: &[i8], offset: i32, offset16: Option<i16>, sums: &mut [i32]) {
    dots_portable(x, w, offset, offset16, sums);
}

#[inline(always)]
fn dots_portable(x: &[i8], w: &[i8], offset: i32, offset16: Option<i16>, sums: &mut [i32]) {
    for (sum, row) in sums.iter_mut().zip(w.chunks_exact(x.len().max(1))) {
        let mut acc = 0i32;
        match offset16 {
            Some(o16) => {
                for (&a, &c) in x.iter().zip(row) {
                    let v = i16::from(a) + o16;
                    acc = acc.wrapping_add(i32::from(v) * i32::from(i16::from(c)));
                }
            }
            None => {
                for (&a, &c) in x.iter().zip(row) {
                    let v = i32::from(a).wrapping_add(offset);
                    acc = acc.wrapping_add(v.wrapping_mul(i32::from(c)));
                }
            }
        }
        *sum = acc;
    }
}

const I16: (i32, i32) = (i16::MIN as i32, i16::MAX as i32);
const I8: (i32, i32) = (i8::MIN as i32, i8::MAX as i32);

/// `GetInvSqrtQuantizedMultiplierExp` with `reverse_shift = -1`: `1 / sqrt(input)` as a
/// multiplier and shift (Newton-Raphson in Q3.28, five steps).
fn inv_sqrt(input: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift: i32 = 11;
    while input >= (1 << 29) {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() - 1;
    let pairs = max_left_shift_bits / 2 - 1;
    shift -= pairs as i32;
    input <<= 2 * pairs;
    let mul = saturating_rounding_doubling_high_mul;
    // Q3.28.
    let fixed_input = input >> 1;
    let half_input = rounding_divide_by_pot(fixed_input, 1);
    let half_three: i32 = (1 << 28) + (1 << 27);
    let rescale3 = |x: i32, from: i32| {
        super::super::base::quant::fixed_point::saturating_rounding_multiply_by_pot(x, from - 3)
    };
    let mut x: i32 = 1 << 28; // one
    for _ in 0..5 {
        let x3 = rescale3(mul(mul(x, x), x), 9);
        x = rescale3(mul(half_three, x).wrapping_sub(mul(half_input, x3)), 6);
    }
    const HALF_SQRT_2: i32 = 1_518_500_250;
    x = mul(x, HALF_SQRT_2);
    if shift < 0 {
        x = x.wrapping_shl((-shift) as u32);
        shift = 0;
    }
    (x, -shift)
}

/// `ApplyLayerNorm` (integer) of each of `batches` rows of `n`.
#[allow(clippy::too_many_arguments)]
fn layer_norm(
    gate: &mut [i16],
    weights: &[i16],
    bias: &[i32],
    mul: [i32; 2],
    guard: i32,
    batches: usize,
    n: usize,
) -> Result<(), KernelError> {
    const TWO_TO_20: i64 = 1 << 20;
    let weights = first(weights, n)?;
    let bias = first(bias, n)?;
    let gate = first_mut(gate, batches * n)?;
    if n == 0 {
        return Ok(());
    }
    let n_i64 = n as i64;
    for row in gate.chunks_exact_mut(n) {
        let (mut sum, mut sum_sq) = (0i64, 0i64);
        for &v in row.iter() {
            let v = i64::from(v);
            sum += v;
            sum_sq += v * v;
        }
        let mean = (sum * 1024 / n_i64) as i32;
        let temp = (TWO_TO_20 / n_i64) as i32;
        let variance = sum_sq
            .wrapping_mul(i64::from(temp))
            .wrapping_sub(i64::from(mean) * i64::from(mean));
        let mut variance2 = (variance / TWO_TO_20) as i32;
        if variance2 < 1 {
            variance2 = guard;
        }
        let (inv_a, inv_b) = inv_sqrt(variance2);
        for ((v, &w), &b) in row.iter_mut().zip(weights).zip(bias) {
            let shifted = (1024i32).wrapping_mul(i32::from(*v)).wrapping_sub(mean);
            let rescaled = mbqm(shifted, inv_a, inv_b);
            // int32 arithmetic, then widened (as the reference's expression).
            let val3 = i64::from(rescaled.wrapping_mul(i32::from(w)).wrapping_add(b));
            let val4 = (if val3 > 0 { val3 + 512 } else { val3 - 512 } / 1024) as i32;
            let val5 = mbqm(val4, mul[0], mul[1] + 12);
            *v = val5.clamp(I16.0, I16.1) as i16;
        }
    }
    Ok(())
}

/// The integer step's operands.
struct Operands<'a> {
    input_w: [&'a [i8]; 4],
    recurrent_w: [&'a [i8]; 4],
    peephole: [Option<&'a [i16]>; 4],
    layer_norm: [Option<&'a [i16]>; 4],
    bias: [&'a [i32]; 4],
    projection: Option<&'a [i8]>,
    projection_bias: Option<&'a [i32]>,
    /// The weights packed in pair panels, indexed as [`super::packed::int_matrices`].
    panels: [Option<&'a [i8]>; 9],
}

/// Runs the sequence: `EvalInteger8x8_16`.
pub(super) fn run<'e>(
    ctx: &mut Eval<'e>,
    persistent: &[u8],
    panels: [Option<&'e [i8]>; 9],
    d: &Dir,
    walk: Walk,
    total_batches: usize,
    s: &Sizes,
) -> Result<(), KernelError> {
    let bad = KernelError::Mismatch {
        what: "LSTM persistent block not as init wrote it",
    };
    let (q, _) = IntegerParams::read_from_prefix(persistent).map_err(|_| bad)?;
    let sl = UNI;
    let cifg = d.has(flag::CIFG);
    let mut w = Operands {
        input_w: [&[]; 4],
        recurrent_w: [&[]; 4],
        peephole: [None; 4],
        layer_norm: [None; 4],
        bias: [&[]; 4],
        projection: None,
        projection_bias: None,
        panels,
    };
    for g in 0..4 {
        if g == 0 && cifg {
            continue;
        }
        w.input_w[g] = ctx.input::<i8>(sl.input_to(g))?;
        w.recurrent_w[g] = ctx.input::<i8>(sl.recurrent_to(g))?;
        if d.has(flag::PEEPHOLE) && g != 2 {
            w.peephole[g] = Some(ctx.input::<i16>(sl.cell_to(g))?);
        }
        w.bias[g] = ctx.input::<i32>(sl.bias(g))?;
        if d.has(flag::LAYER_NORM) {
            if let Some(at) = sl.layer_norm {
                w.layer_norm[g] = Some(ctx.input::<i16>(at + g)?);
            }
        }
    }
    if d.has(flag::PROJECTION) {
        w.projection = Some(ctx.input::<i8>(sl.projection())?);
        if d.has(flag::PROJECTION_BIAS) {
            w.projection_bias = Some(ctx.input::<i32>(sl.projection_bias())?);
        }
    }
    let input = ctx.input::<i8>(0)?;
    let h = state_mut::<i8>(ctx, sl.output_state, total_batches * s.output)?;
    let c = state_mut::<i16>(ctx, sl.cell_state, total_batches * s.cell)?;
    let out = ctx.output::<i8>(0)?;
    let mut carve = Carve::new(ctx.scratch());
    let n = s.batches * s.cell;
    let mut gates: [&mut [i16]; 4] = [
        carve.take(n)?,
        carve.take(n)?,
        carve.take(n)?,
        carve.take(n)?,
    ];
    let hidden = carve.take::<i8>(n)?;
    let h = first_mut(h, total_batches * s.output)?;
    let c = first_mut(c, total_batches * s.cell)?;
    for (b, t) in walk.steps() {
        let x_at = walk.at(b, t, s.input).ok_or(SHORT)?;
        let x = input
            .get(x_at..)
            .and_then(|v| v.get(..s.batches * s.input))
            .ok_or(SHORT)?;
        let (hs, cs) = (b * s.output, b * s.cell);
        let hb = h.get_mut(hs..hs + s.batches * s.output).ok_or(SHORT)?;
        let cb = c.get_mut(cs..cs + s.batches * s.cell).ok_or(SHORT)?;
        step(&w, &q, d, s, x, hb, cb, &mut gates, hidden)?;
        let at = walk.at(b, t, s.output).ok_or(SHORT)?;
        let dst = out
            .get_mut(at..)
            .and_then(|v| v.get_mut(..s.batches * s.output))
            .ok_or(SHORT)?;
        dst.copy_from_slice(hb);
    }
    Ok(())
}

/// `CalculateLstmGateInteger8x8_16` of gate `g`.
#[allow(clippy::too_many_arguments)]
fn gate(
    w: &Operands<'_>,
    q: &IntegerParams,
    g: usize,
    s: &Sizes,
    x: &[i8],
    h: &[i8],
    c: &[i16],
    out: &mut [i16],
) -> Result<(), KernelError> {
    let cell = s.cell;
    let out = first_mut(out, s.batches * cell)?;
    out.fill(0);
    let narrow = |v: i32| v as i16;
    // With layer normalization the bias is added after it, not to the products.
    let bias = if w.layer_norm[g].is_some() {
        None
    } else {
        Some(w.bias[g])
    };
    matmul_acc(
        x,
        q.input_zp.wrapping_neg(),
        bias,
        w.input_w[g],
        w.panels[g],
        q.input_mul[g],
        s.batches,
        s.input,
        cell,
        0,
        out,
        narrow,
        I16,
    )?;
    matmul_acc(
        h,
        q.output_state_zp.wrapping_neg(),
        None,
        w.recurrent_w[g],
        w.panels[4 + g],
        q.recurrent_mul[g],
        s.batches,
        s.output,
        cell,
        0,
        out,
        narrow,
        I16,
    )?;
    if let Some(p) = w.peephole[g] {
        // VectorBatchVectorCwiseProductAccumulate with v_size = n_output, as the reference
        // calls it (set-up keeps n_output <= n_cell).
        let v = s.output;
        let p = first(p, v)?;
        let c = first(c, s.batches * v)?;
        let [m, sh] = q.cell_mul[g];
        for b in 0..s.batches {
            for k in 0..v {
                let prod = mbqm(i32::from(p[k]) * i32::from(c[b * v + k]), m, sh);
                let o = &mut out[b * v + k];
                *o = prod.wrapping_add(i32::from(*o)).clamp(I16.0, I16.1) as i16;
            }
        }
    }
    if let Some(ln) = w.layer_norm[g] {
        let guard = q.variance_guard[g];
        layer_norm(out, ln, w.bias[g], q.layer_norm_mul[g], guard, s.batches, cell)?;
    }
    if g == 2 {
        fixed16::tanh_all(out, 3);
    } else {
        fixed16::logistic_all(out, 3);
    }
    Ok(())
}

/// `CwiseMul` (int16 by int16, shifted): `rdbp(a b, shift)` truncated to int16.
fn cwise_mul_shift(a: &[i16], b: &[i16], shift: u32, out: &mut [i16]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = rounding_divide_by_pot(i32::from(x) * i32::from(y), shift) as i16;
    }
}

/// One step (`LstmStepInteger8x8_16`).
#[allow(clippy::too_many_arguments)]
fn step(
    w: &Operands<'_>,
    q: &IntegerParams,
    d: &Dir,
    s: &Sizes,
    x: &[i8],
    h: &mut [i8],
    c: &mut [i16],
    gates: &mut [&mut [i16]; 4],
    hidden: &mut [i8],
) -> Result<(), KernelError> {
    let cifg = d.has(flag::CIFG);
    let n = s.batches * s.cell;
    if !cifg {
        gate(w, q, 0, s, x, h, c, gates[0])?;
    }
    gate(w, q, 1, s, x, h, c, gates[1])?;
    gate(w, q, 2, s, x, h, c, gates[2])?;
    // UpdateLstmCellInteger.
    {
        let [i, f, g, _] = gates;
        let (i, f, g) = (first(i, n)?, first_mut(f, n)?, first(g, n)?);
        let c = first_mut(c, n)?;
        for (cv, &fv) in c.iter_mut().zip(f.iter()) {
            *cv = rounding_divide_by_pot(i32::from(fv) * i32::from(*cv), 15) as i16;
        }
        let shift = u32::try_from(30 + q.cell_scale).map_err(|_| SHORT)?;
        if cifg {
            for v in f.iter_mut() {
                *v = i16::MAX.wrapping_sub(*v);
            }
            let scratch: &mut [i16] = f;
            for (sv, &gv) in scratch.iter_mut().zip(g) {
                *sv = rounding_divide_by_pot(i32::from(*sv) * i32::from(gv), shift) as i16;
            }
        } else {
            cwise_mul_shift(i, g, shift, f);
        }
        for (cv, &sv) in c.iter_mut().zip(f.iter()) {
            *cv = (i32::from(*cv) + i32::from(sv)).clamp(I16.0, I16.1) as i16;
        }
        if q.cell_clip > 0 {
            let clip = q.cell_clip as i16;
            for cv in c.iter_mut() {
                *cv = (*cv).min(clip).max(-clip);
            }
        }
    }
    gate(w, q, 3, s, x, h, c, gates[3])?;
    // CalculateLstmOutputInteger8x8_16: tanh of the cell into the input gate's buffer.
    let [t, _, _, o] = gates;
    let (t, o) = (first_mut(t, n)?, first(o, n)?);
    let bits = 15 + q.cell_scale;
    t.copy_from_slice(first(c, n)?);
    fixed16::tanh_all(t, bits);
    let [hm, hs] = q.hidden_mul;
    let hidden_of = |ov: i16, tv: i16, zp: i32| {
        mbqm(i32::from(ov) * i32::from(tv), hm, hs)
            .wrapping_add(zp)
            .clamp(I8.0, I8.1) as i8
    };
    match w.projection {
        Some(p) => {
            let hidden = first_mut(hidden, n)?;
            for ((hv, &ov), &tv) in hidden.iter_mut().zip(o).zip(t.iter()) {
                *hv = hidden_of(ov, tv, q.hidden_zp.wrapping_neg());
            }
            h.fill(0);
            // The hidden zero point was subtracted above and is added back here (the
            // reference's effective bias uses +hidden_zp).
            matmul_acc(
                hidden,
                q.hidden_zp,
                w.projection_bias,
                p,
                w.panels[8],
                q.projection_mul,
                s.batches,
                s.cell,
                s.output,
                q.output_state_zp,
                h,
                |v| v as i8,
                I8,
            )?;
            if q.proj_clip > 0 {
                let clip = q.proj_clip as i8;
                for v in h.iter_mut() {
                    *v = (*v).min(clip).max(-clip);
                }
            }
        }
        None => {
            let h = first_mut(h, n)?;
            for ((hv, &ov), &tv) in h.iter_mut().zip(o).zip(t.iter()) {
                *hv = hidden_of(ov, tv, q.hidden_zp);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) fn test_inv_sqrt(x: i32) -> (i32, i32) {
    inv_sqrt(x)
}
