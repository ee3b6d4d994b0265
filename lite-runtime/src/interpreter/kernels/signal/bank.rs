//! `SignalFilterBank`, `SignalFilterBankSquareRoot`, `SignalFilterBankSpectralSubtraction`,
//! `SignalFilterBankLog` and `SignalPCAN` (`signal/micro/kernels/filter_bank*.cc`, `pcan.cc`).

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check::{self, SHORT};
use super::super::base::tensors::words_mut;
use super::fixed;
use super::spectral::{operands, rank, typed};
use super::{bool_option, missing, option_in, options, state};
use crate::interpreter::{Desc, Eval, Init, KernelError, Prepare};
use crate::model::TensorType;

/// `d` is a vector of `n` elements.
fn vector(d: &Desc<'_>, n: usize, what: &'static str) -> Result<(), KernelError> {
    rank(d, 1)?;
    if d.shape.dim(0) == Some(n) {
        Ok(())
    } else {
        Err(KernelError::Mismatch { what })
    }
}

/// The one-input, one-output vector ops: their types and the output shaped as the input.
fn vector_op(ctx: &Prepare<'_>, input: TensorType, output: TensorType) -> Result<u32, KernelError> {
    let (x, y) = (ctx.input(0)?, ctx.output(0)?);
    typed(&x, input)?;
    typed(&y, output)?;
    rank(&x, 1)?;
    check::output_shape(&y, &x.shape)?;
    check::dim(x.shape.elements())
}

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct Count {
    n: u32,
}

// -------------------------------------------------------------------------- SignalFilterBank

/// The filter bank's inputs after the spectrum: weights, unweights, and per channel (plus the
/// scratch channel 0) the first spectrum bin, the first weight and the width.
const WEIGHTS: usize = 1;
const UNWEIGHTS: usize = 2;
const FREQ_STARTS: usize = 3;
const WEIGHT_STARTS: usize = 4;
const WIDTHS: usize = 5;

pub(super) fn prepare_filter_bank(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 6, 1)?;
    let map = options(ctx)?;
    let channels = option_in!(map, "num_channels", 0..i32::MAX) as usize;
    let input = ctx.input(0)?;
    typed(&input, TensorType::Uint32)?;
    rank(&input, 1)?;
    let weights = ctx.input(WEIGHTS)?;
    for i in [WEIGHTS, UNWEIGHTS] {
        let d = ctx.input(i)?;
        typed(&d, TensorType::Int16)?;
        vector(
            &d,
            weights.shape.elements(),
            "SignalFilterBank weights and unweights differ in length",
        )?;
    }
    for i in [FREQ_STARTS, WEIGHT_STARTS, WIDTHS] {
        let d = ctx.input(i)?;
        typed(&d, TensorType::Int16)?;
        vector(
            &d,
            channels + 1,
            "SignalFilterBank channel tables must hold num_channels + 1 entries",
        )?;
    }
    let output = ctx.output(0)?;
    typed(&output, TensorType::Uint64)?;
    vector(
        &output,
        channels,
        "SignalFilterBank output must hold num_channels channels",
    )?;
    ctx.set_params(&Count {
        n: check::dim(channels)?,
    });
    Ok(())
}

/// `base + j` as an index below `limit`, or the error naming input `input`'s entry `position`.
fn at(base: i16, j: i32, limit: usize, input: usize, position: usize) -> Result<usize, KernelError> {
    let index = i32::from(base) + j;
    usize::try_from(index)
        .ok()
        .filter(|&k| k < limit)
        .ok_or(KernelError::IndexOutOfRange {
            input,
            position,
            index: i64::from(index),
            limit,
        })
}

pub(super) fn eval_filter_bank(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let channels = ctx.params::<Count>().n as usize;
    let input = ctx.input::<u32>(0)?;
    let weights = ctx.input::<i16>(WEIGHTS)?;
    let unweights = ctx.input::<i16>(UNWEIGHTS)?;
    let n_weights = weights.len().min(unweights.len());
    let table = |i: usize| ctx.input::<i16>(i).and_then(|t| t.get(..=channels).ok_or(SHORT));
    let (freq_starts, weight_starts, widths) =
        (table(FREQ_STARTS)?, table(WEIGHT_STARTS)?, table(WIDTHS)?);
    let output = ctx.output::<u64>(0)?.get_mut(..channels).ok_or(SHORT)?;
    // FilterbankAccumulateChannels: each bin's energy goes to two neighbouring channels, by
    // its weight to one and its unweight to the next; channel 0 is scratch.
    let mut weighted: u64 = 0;
    let mut unweighted: u64 = 0;
    for i in 0..=channels {
        for j in 0..i32::from(widths[i]) {
            let w = at(weight_starts[i], j, n_weights, WEIGHT_STARTS, i)?;
            let x = u64::from(input[at(freq_starts[i], j, input.len(), FREQ_STARTS, i)?]);
            // int16 × uint64 in C: the weight sign-extended to 64 bits, all modulo 2^64.
            weighted = weighted.wrapping_add((i64::from(weights[w]) as u64).wrapping_mul(x));
            unweighted = unweighted.wrapping_add((i64::from(unweights[w]) as u64).wrapping_mul(x));
        }
        if let Some(slot) = i.checked_sub(1).and_then(|c| output.get_mut(c)) {
            *slot = weighted;
        }
        weighted = unweighted;
        unweighted = 0;
    }
    Ok(())
}

// ---------------------------------------------------------------- SignalFilterBankSquareRoot

pub(super) fn prepare_square_root(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 2, 1)?;
    let n = vector_op(ctx, TensorType::Uint64, TensorType::Uint32)?;
    let bits = ctx.input(1)?;
    typed(&bits, TensorType::Int32)?;
    rank(&bits, 0)?;
    ctx.set_params(&Count { n });
    Ok(())
}

pub(super) fn eval_square_root(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let n = ctx.params::<Count>().n as usize;
    let input = ctx.input::<u64>(0)?.get(..n).ok_or(SHORT)?;
    let bits = *ctx.input::<i32>(1)?.first().ok_or(SHORT)?;
    // A uint32 shifted by 32 or more, or by a negative count, is undefined in C.
    let bits = u32::try_from(bits)
        .ok()
        .filter(|&b| b < 32)
        .ok_or(KernelError::Mismatch {
            what: "SignalFilterBankSquareRoot scale_bits outside 0..32",
        })?;
    let output = ctx.output::<u32>(0)?.get_mut(..n).ok_or(SHORT)?;
    for (y, &x) in output.iter_mut().zip(input) {
        *y = fixed::sqrt64(x) >> bits;
    }
    Ok(())
}

// ------------------------------------------------------- SignalFilterBankSpectralSubtraction

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct SubtractionParams {
    channels: u32,
    smoothing: u32,
    one_minus_smoothing: u32,
    alternate_smoothing: u32,
    alternate_one_minus_smoothing: u32,
    min_signal_remaining: u32,
    smoothing_bits: u32,
    spectral_subtraction_bits: u32,
    clamping: u32,
}

pub(super) fn prepare_spectral_subtraction(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 2)?;
    let map = options(ctx)?;
    let any = i32::MIN..=i32::MAX;
    // The config's fields are uint32_t, set from int32 options (C's conversion).
    let p = SubtractionParams {
        channels: option_in!(map, "num_channels", 0..=i32::MAX) as u32,
        smoothing: option_in!(map, "smoothing", any) as u32,
        one_minus_smoothing: option_in!(map, "one_minus_smoothing", any) as u32,
        alternate_smoothing: option_in!(map, "alternate_smoothing", any) as u32,
        alternate_one_minus_smoothing: option_in!(map, "alternate_one_minus_smoothing", any)
            as u32,
        min_signal_remaining: option_in!(map, "min_signal_remaining", any) as u32,
        // Shifts of uint32 (smoothing) and uint64 (subtraction) values.
        smoothing_bits: option_in!(map, "smoothing_bits", 0..=31) as u32,
        spectral_subtraction_bits: option_in!(map, "spectral_subtraction_bits", 0..=63) as u32,
        clamping: u32::from(bool_option(&map, "clamping", missing!("clamping"))?),
    };
    let n = p.channels as usize;
    let what = "SignalFilterBankSpectralSubtraction operands must hold num_channels channels";
    let input = ctx.input(0)?;
    typed(&input, TensorType::Uint32)?;
    vector(&input, n, what)?;
    for k in 0..2 {
        let d = ctx.output(k)?;
        typed(&d, TensorType::Uint32)?;
        vector(&d, n, what)?;
    }
    ctx.request_persistent(4 * n);
    ctx.set_params(&p);
    Ok(())
}

/// The noise estimate starts at zero (TFLM's prepare and reset).
pub(super) fn init_spectral_subtraction(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    ctx.persistent().fill(0);
    Ok(())
}

pub(super) fn eval_spectral_subtraction(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: SubtractionParams = ctx.params();
    let n = p.channels as usize;
    let noise = words_mut::<u32>(state(ctx, 4 * n)?)?
        .get_mut(..n)
        .ok_or(SHORT)?;
    let input = ctx.input::<u32>(0)?.get(..n).ok_or(SHORT)?;
    let output = ctx.output::<u32>(0)?.get_mut(..n).ok_or(SHORT)?;
    for (i, ((y, &x), estimate)) in output.iter_mut().zip(input).zip(noise.iter_mut()).enumerate() {
        // Odd channels take the alternate coefficients.
        let (smoothing, one_minus) = if i & 1 == 0 {
            (p.smoothing, p.one_minus_smoothing)
        } else {
            (p.alternate_smoothing, p.alternate_one_minus_smoothing)
        };
        let signal_scaled_up = x << p.smoothing_bits;
        *estimate = (u64::from(signal_scaled_up)
            .wrapping_mul(u64::from(smoothing))
            .wrapping_add(u64::from(*estimate).wrapping_mul(u64::from(one_minus)))
            >> p.spectral_subtraction_bits) as u32;
        let mut estimate_scaled_up = *estimate;
        // The signal less the estimate stays non-negative.
        if estimate_scaled_up > signal_scaled_up {
            estimate_scaled_up = signal_scaled_up;
            if p.clamping != 0 {
                *estimate = estimate_scaled_up;
            }
        }
        let floor = (u64::from(x).wrapping_mul(u64::from(p.min_signal_remaining))
            >> p.spectral_subtraction_bits) as u32;
        let subtracted = (signal_scaled_up - estimate_scaled_up) >> p.smoothing_bits;
        *y = subtracted.max(floor);
    }
    ctx.output::<u32>(1)?
        .get_mut(..n)
        .ok_or(SHORT)?
        .copy_from_slice(noise);
    Ok(())
}

// ----------------------------------------------------------------------- SignalFilterBankLog

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct LogParams {
    n: u32,
    correction_bits: u32,
    output_scale: u32,
}

pub(super) fn prepare_log(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 1)?;
    let map = options(ctx)?;
    // `input << input_correction_bits` of a uint32.
    let correction_bits = option_in!(map, "input_correction_bits", 0..=31) as u32;
    let output_scale = option_in!(map, "output_scale", i32::MIN..=i32::MAX) as u32;
    let n = vector_op(ctx, TensorType::Uint32, TensorType::Int16)?;
    ctx.set_params(&LogParams {
        n,
        correction_bits,
        output_scale,
    });
    Ok(())
}

pub(super) fn eval_log(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: LogParams = ctx.params();
    let n = p.n as usize;
    let input = ctx.input::<u32>(0)?.get(..n).ok_or(SHORT)?;
    let output = ctx.output::<i16>(0)?.get_mut(..n).ok_or(SHORT)?;
    for (y, &x) in output.iter_mut().zip(input) {
        let scaled = x << p.correction_bits;
        *y = if scaled > 1 {
            fixed::log32(scaled, p.output_scale).min(i16::MAX as u32) as i16
        } else {
            0
        };
    }
    Ok(())
}

// -------------------------------------------------------------------------------- SignalPCAN

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct PcanParams {
    n: u32,
    snr_shift: u32,
}

const NOISE: usize = 1;
const GAIN_LUT: usize = 2;

pub(super) fn prepare_pcan(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 3, 1)?;
    let map = options(ctx)?;
    // A uint64 shifted right.
    let snr_shift = option_in!(map, "snr_shift", 0..=63) as u32;
    let n = vector_op(ctx, TensorType::Uint32, TensorType::Uint32)?;
    let noise = ctx.input(NOISE)?;
    typed(&noise, TensorType::Uint32)?;
    vector(
        &noise,
        n as usize,
        "SignalPCAN noise estimate not as long as the input",
    )?;
    let lut = ctx.input(GAIN_LUT)?;
    typed(&lut, TensorType::Int16)?;
    rank(&lut, 1)?;
    ctx.set_params(&PcanParams { n, snr_shift });
    Ok(())
}

pub(super) fn eval_pcan(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: PcanParams = ctx.params();
    let n = p.n as usize;
    let input = ctx.input::<u32>(0)?.get(..n).ok_or(SHORT)?;
    let noise = ctx.input::<u32>(NOISE)?.get(..n).ok_or(SHORT)?;
    let lut = ctx.input::<i16>(GAIN_LUT)?;
    let output = ctx.output::<u32>(0)?.get_mut(..n).ok_or(SHORT)?;
    for (position, ((y, &x), &estimate)) in output.iter_mut().zip(input).zip(noise).enumerate() {
        let gain = fixed::wide_dynamic(estimate, lut).ok_or(KernelError::IndexOutOfRange {
            input: GAIN_LUT,
            position,
            // The last entry the estimate's octave reads.
            index: if estimate <= 2 {
                i64::from(estimate)
            } else {
                i64::from(4 * fixed::msb32(estimate)) - 4
            },
            limit: lut.len(),
        })?;
        // The int16 gain converted to uint32_t (sign-extended), as C does.
        let gain = i32::from(gain) as u32;
        let snr = ((u64::from(x) * u64::from(gain)) >> p.snr_shift) as u32;
        *y = fixed::pcan_shrink(snr);
    }
    Ok(())
}
