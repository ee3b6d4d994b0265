//! `SignalWindow`, `SignalFftAutoScale`, `SignalRfft`, `SignalIrfft` and `SignalEnergy`
//! (`signal/micro/kernels/{window,fft_auto_scale_kernel,rfft,irfft,energy}.cc`).

use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check::{self, SHORT};
use super::super::base::tensors::{words, words_mut};
use super::fixed;
use super::kiss::{self, Plan, Scalar};
use super::{option_in, options, type_option};
use crate::interpreter::{Desc, Eval, Init, KernelError, Prepare, Shape};
use crate::model::TensorType;

/// The operator has other operand counts than the op's.
pub(super) fn operands(ctx: &Prepare<'_>, inputs: usize, outputs: usize) -> Result<(), KernelError> {
    if ctx.input_count() != inputs || ctx.output_count() != outputs {
        return Err(KernelError::Arity {
            what: "the op's number of inputs and outputs",
        });
    }
    Ok(())
}

/// `d` has type `t`.
pub(super) fn typed(d: &Desc<'_>, t: TensorType) -> Result<(), KernelError> {
    if d.dtype == t { Ok(()) } else { Err(check::TYPE) }
}

/// `d` has rank `r`.
pub(super) fn rank(d: &Desc<'_>, r: usize) -> Result<(), KernelError> {
    if d.shape.rank() == r {
        Ok(())
    } else {
        Err(KernelError::Mismatch {
            what: "an operand of another rank than the op's",
        })
    }
}

/// `shape` with its innermost dimension replaced by `dims` (its rank is at least 1).
pub(super) fn replace_last(shape: &Shape, dims: &[usize]) -> Result<Shape, KernelError> {
    let d = shape.dims();
    let outer = d.get(..d.len().saturating_sub(1)).unwrap_or(&[]);
    let mut buf = [0usize; crate::interpreter::MAX_DIMS];
    let n = outer.len() + dims.len();
    let slot = buf.get_mut(..n).ok_or(check::OUTPUT_SHAPE)?;
    slot[..outer.len()].copy_from_slice(outer);
    slot[outer.len()..].copy_from_slice(dims);
    Shape::new(slot).ok_or(check::OUTPUT_SHAPE)
}

/// The innermost dimension, and how many runs of it the tensor holds (0 when it is 0).
pub(super) fn rows(shape: &Shape) -> Result<(usize, usize), KernelError> {
    let inner = shape.dims().last().copied().ok_or(KernelError::Mismatch {
        what: "a scalar where the op needs at least one dimension",
    })?;
    let outer = shape.elements().checked_div(inner).unwrap_or(0);
    Ok((inner, outer))
}

// ------------------------------------------------------------------------------ SignalWindow

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct WindowParams {
    shift: u32,
    frame: u32,
    frames: u32,
}

pub(super) fn prepare_window(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 2, 1)?;
    let map = options(ctx)?;
    // A right shift of an int32 by 32 or more (or a negative count) is undefined in C.
    let shift = option_in!(map, "shift", 0..=31);
    let (input, weights, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    for d in [&input, &weights, &output] {
        typed(d, TensorType::Int16)?;
    }
    rank(&weights, 1)?;
    let (frame, frames) = rows(&input.shape)?;
    // TFLM steps through the input by the window's length: the window must be a frame.
    if weights.shape.dim(0) != Some(frame) {
        return Err(KernelError::Mismatch {
            what: "SignalWindow weights not as long as the input's innermost dimension",
        });
    }
    check::output_shape(&output, &input.shape)?;
    ctx.set_params(&WindowParams {
        shift: shift as u32,
        frame: check::dim(frame)?,
        frames: check::dim(frames)?,
    });
    Ok(())
}

pub(super) fn eval_window(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: WindowParams = ctx.params();
    let (frame, n) = (p.frame as usize, (p.frame as usize) * (p.frames as usize));
    let input = ctx.input::<i16>(0)?.get(..n).ok_or(SHORT)?;
    let window = ctx.input::<i16>(1)?.get(..frame).ok_or(SHORT)?;
    let output = ctx.output::<i16>(0)?.get_mut(..n).ok_or(SHORT)?;
    if frame == 0 {
        return Ok(());
    }
    for (x, y) in input.chunks_exact(frame).zip(output.chunks_exact_mut(frame)) {
        fixed::apply_window(x, window, p.shift, y);
    }
    Ok(())
}

// ------------------------------------------------------------------------ SignalFftAutoScale

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct Count {
    n: u32,
}

pub(super) fn prepare_auto_scale(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 2)?;
    let (input, output, bits) = (ctx.input(0)?, ctx.output(0)?, ctx.output(1)?);
    typed(&input, TensorType::Int16)?;
    typed(&output, TensorType::Int16)?;
    typed(&bits, TensorType::Int32)?;
    rank(&input, 1)?;
    rank(&bits, 0)?;
    check::output_shape(&output, &input.shape)?;
    ctx.set_params(&Count {
        n: check::dim(input.shape.elements())?,
    });
    Ok(())
}

pub(super) fn eval_auto_scale(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let n = ctx.params::<Count>().n as usize;
    let input = ctx.input::<i16>(0)?.get(..n).ok_or(SHORT)?;
    let output = ctx.output::<i16>(0)?.get_mut(..n).ok_or(SHORT)?;
    let bits = fixed::auto_scale_bits(fixed::max_abs16(input));
    for (y, &x) in output.iter_mut().zip(input) {
        // `input[i] * (1 << scale_bits)` in int, stored in int16.
        *y = i32::from(x).wrapping_mul(1 << bits) as i16;
    }
    *ctx.output::<i32>(1)?.first_mut().ok_or(SHORT)? = bits as i32;
    Ok(())
}

// ------------------------------------------------------------------ SignalRfft / SignalIrfft

/// The FFT ops' element types.
const F32: u32 = 0;
const I16: u32 = 1;
const I32: u32 = 2;

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct FftParams {
    /// F32, I16 or I32.
    kind: u32,
    /// 1 for the inverse.
    inverse: u32,
    fft_length: u32,
    /// Real samples per run of the input the RFFT reads (zero-padded to `fft_length`); the
    /// stride of the IRFFT's input in scalars.
    input_length: u32,
    /// Runs of the innermost dimension.
    batches: u32,
}

impl FftParams {
    /// The complex FFT's length: half the real one.
    fn nfft(&self) -> usize {
        self.fft_length as usize / 2
    }

    /// Scalars of twiddles kept: `nfft` complex ones and `nfft / 2` super-twiddles.
    fn twiddle_scalars(&self) -> usize {
        2 * self.nfft() + 2 * (self.nfft() / 2)
    }
}

fn element_size(kind: u32) -> usize {
    if kind == I16 { 2 } else { 4 }
}

/// The longest FFT set up.
const MAX_FFT_LENGTH: i32 = 1 << 26;

const FFT_LENGTH: KernelError = KernelError::Unsupported {
    what: "fft_length: must be even, at least 4, with half of it a product of 2, 3 and 5 \
           (TFLM's KISS FFT build has no scratch for other radices)",
};

/// The options and operands both FFTs share: `T`, `fft_length`, one input and one output of
/// type `T` and equal rank.
fn prepare_fft<'m>(ctx: &Prepare<'m>) -> Result<(FftParams, Desc<'m>, Desc<'m>), KernelError> {
    operands(ctx, 1, 1)?;
    let map = options(ctx)?;
    let t = type_option(&map)?;
    // 2^26 bounds every size below (twiddles, scratch) well inside 32 bits.
    let fft_length = option_in!(map, "fft_length", 2..=MAX_FFT_LENGTH) as usize;
    if fft_length % 2 != 0 || kiss::factor(fft_length / 2).is_none() {
        return Err(FFT_LENGTH);
    }
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    typed(&input, t)?;
    typed(&output, t)?;
    if input.shape.rank() != output.shape.rank() {
        return Err(check::OUTPUT_SHAPE);
    }
    let kind = match t {
        TensorType::Int16 => I16,
        TensorType::Int32 => I32,
        _ => F32,
    };
    let p = FftParams {
        kind,
        inverse: 0,
        fft_length: check::dim(fft_length)?,
        input_length: 0,
        batches: 0,
    };
    Ok((p, input, output))
}

/// Asks for the twiddles' persistent bytes and `scratch_scalars` of scratch.
fn request_fft(ctx: &mut Prepare<'_>, p: &FftParams, scratch_scalars: usize) {
    let size = element_size(p.kind);
    ctx.request_persistent(p.twiddle_scalars() * size);
    ctx.request_scratch(scratch_scalars * size);
    ctx.set_params(p);
}

pub(super) fn prepare_rfft(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (mut p, input, output) = prepare_fft(ctx)?;
    let (length, batches) = rows(&input.shape)?;
    let fft_length = p.fft_length as usize;
    if length > fft_length {
        return Err(KernelError::Mismatch {
            what: "SignalRfft input longer than fft_length",
        });
    }
    check::output_shape(&output, &replace_last(&input.shape, &[fft_length + 2])?)?;
    p.input_length = check::dim(length)?;
    p.batches = check::dim(batches)?;
    // The zero-padded frame and the complex FFT's output.
    request_fft(ctx, &p, 2 * fft_length);
    Ok(())
}

pub(super) fn prepare_irfft(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (mut p, input, output) = prepare_fft(ctx)?;
    let (length, batches) = rows(&input.shape)?;
    let fft_length = p.fft_length as usize;
    // TFLM steps through the input by half its innermost dimension (complex values) and reads
    // fft_length / 2 + 1 of them.
    if length % 2 != 0 || length < fft_length + 2 {
        return Err(KernelError::Mismatch {
            what: "SignalIrfft input: its innermost dimension must hold fft_length / 2 + 1 \
                   complex values",
        });
    }
    check::output_shape(&output, &replace_last(&input.shape, &[fft_length])?)?;
    p.inverse = 1;
    p.input_length = check::dim(length)?;
    p.batches = check::dim(batches)?;
    request_fft(ctx, &p, fft_length);
    Ok(())
}

const TWIDDLES: KernelError = KernelError::Mismatch {
    what: "FFT twiddles not as init wrote them",
};

pub(super) fn init_fft(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: FftParams = ctx.params();
    match p.kind {
        I16 => fill_twiddles::<i16>(&p, ctx.persistent()),
        I32 => fill_twiddles::<i32>(&p, ctx.persistent()),
        _ => fill_twiddles::<f32>(&p, ctx.persistent()),
    }
}

fn fill_twiddles<T: Scalar + FromBytes + IntoBytes + KnownLayout>(
    p: &FftParams,
    bytes: &mut [u8],
) -> Result<(), KernelError> {
    let all = words_mut::<T>(bytes)?;
    let all = all.get_mut(..p.twiddle_scalars()).ok_or(TWIDDLES)?;
    let (tw, sup) = all.split_at_mut(2 * p.nfft());
    kiss::twiddles(p.nfft(), p.inverse != 0, tw);
    kiss::super_twiddles(p.nfft(), p.inverse != 0, sup);
    Ok(())
}

/// The twiddles `init` wrote and the radices of `p`'s FFT.
fn plan_parts<'a, T: Scalar + FromBytes + Immutable + KnownLayout>(
    p: &FftParams,
    bytes: &'a [u8],
) -> Result<(&'a [T], &'a [T]), KernelError> {
    let all = words::<T>(bytes)?
        .get(..p.twiddle_scalars())
        .ok_or(TWIDDLES)?;
    Ok(all.split_at(2 * p.nfft()))
}

pub(super) fn eval_rfft(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: FftParams = ctx.params();
    match p.kind {
        I16 => rfft::<i16>(ctx, &p),
        I32 => rfft::<i32>(ctx, &p),
        _ => rfft::<f32>(ctx, &p),
    }
}

fn rfft<T: Scalar + Element + FromBytes>(ctx: &mut Eval<'_>, p: &FftParams) -> Result<(), KernelError> {
    let (fft_length, nfft) = (p.fft_length as usize, p.nfft());
    let (length, batches) = (p.input_length as usize, p.batches as usize);
    let out_length = fft_length + 2;
    let input = ctx.input::<T>(0)?;
    let input = input.get(..length * batches).ok_or(SHORT)?;
    let output = ctx.output::<T>(0)?;
    let output = output.get_mut(..out_length * batches).ok_or(SHORT)?;
    let (twiddles, sup) = plan_parts::<T>(p, ctx.persistent())?;
    let (factors, count) = kiss::factor(nfft).ok_or(FFT_LENGTH)?;
    let plan = Plan {
        nfft,
        inverse: false,
        factors: &factors[..count],
        twiddles,
    };
    let scratch = words_mut::<T>(ctx.scratch())?;
    let scratch = scratch.get_mut(..2 * fft_length).ok_or(SHORT)?;
    let (frame, tmp) = scratch.split_at_mut(fft_length);
    for b in 0..batches {
        let (x, y) = (b * length, b * out_length);
        frame[..length].copy_from_slice(&input[x..x + length]);
        frame[length..].fill(T::default());
        if !kiss::fftr(&plan, sup, frame, &mut output[y..y + out_length], tmp) {
            return Err(SHORT);
        }
    }
    Ok(())
}

pub(super) fn eval_irfft(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: FftParams = ctx.params();
    match p.kind {
        I16 => irfft::<i16>(ctx, &p, |_| {}),
        I32 => irfft::<i32>(ctx, &p, |_| {}),
        _ => irfft::<f32>(ctx, &p, |out: &mut [f32]| {
            // KISS FFT's inverse is scaled by its length: TFLM's float IRFFT divides.
            let n = out.len() as f32;
            for v in out {
                *v /= n;
            }
        }),
    }
}

fn irfft<T: Scalar + Element + FromBytes>(
    ctx: &mut Eval<'_>,
    p: &FftParams,
    scale: impl Fn(&mut [T]),
) -> Result<(), KernelError> {
    let (fft_length, nfft) = (p.fft_length as usize, p.nfft());
    let (length, batches) = (p.input_length as usize, p.batches as usize);
    let input = ctx.input::<T>(0)?;
    let input = input.get(..length * batches).ok_or(SHORT)?;
    let output = ctx.output::<T>(0)?;
    let output = output.get_mut(..fft_length * batches).ok_or(SHORT)?;
    let (twiddles, sup) = plan_parts::<T>(p, ctx.persistent())?;
    let (factors, count) = kiss::factor(nfft).ok_or(FFT_LENGTH)?;
    let plan = Plan {
        nfft,
        inverse: true,
        factors: &factors[..count],
        twiddles,
    };
    let tmp = words_mut::<T>(ctx.scratch())?;
    let tmp = tmp.get_mut(..fft_length).ok_or(SHORT)?;
    for b in 0..batches {
        let (x, y) = (b * length, b * fft_length);
        let out = &mut output[y..y + fft_length];
        if !kiss::fftri(&plan, sup, &input[x..x + fft_length + 2], out, tmp) {
            return Err(SHORT);
        }
        scale(out);
    }
    Ok(())
}

// ------------------------------------------------------------------------------ SignalEnergy

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct EnergyParams {
    start: u32,
    end: u32,
    n: u32,
}

pub(super) fn prepare_energy(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 1)?;
    let map = options(ctx)?;
    let start = option_in!(map, "start_index", i32::MIN..=i32::MAX);
    let end = option_in!(map, "end_index", i32::MIN..=i32::MAX);
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    typed(&input, TensorType::Int16)?;
    typed(&output, TensorType::Uint32)?;
    rank(&input, 1)?;
    let n = input.shape.elements() / 2;
    check::output_shape(&output, &Shape::new(&[n]).ok_or(check::OUTPUT_SHAPE)?)?;
    // TFLM computes start..end unchecked: an empty range computes nothing, any other must lie
    // within the spectrum.
    let (start, end) = if start >= end {
        (0, 0)
    } else if start < 0 || end as usize > n {
        return Err(KernelError::Mismatch {
            what: "SignalEnergy start_index..end_index outside the spectrum",
        });
    } else {
        (start as u32, end as u32)
    };
    ctx.set_params(&EnergyParams {
        start,
        end,
        n: check::dim(n)?,
    });
    Ok(())
}

pub(super) fn eval_energy(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: EnergyParams = ctx.params();
    let n = p.n as usize;
    let input = ctx.input::<i16>(0)?.get(..2 * n).ok_or(SHORT)?;
    let output = ctx.output::<u32>(0)?.get_mut(..n).ok_or(SHORT)?;
    output.fill(0);
    let range = p.start as usize..p.end as usize;
    let bins = output.get_mut(range.clone()).ok_or(SHORT)?;
    let values = input.get(2 * range.start..2 * range.end).ok_or(SHORT)?;
    for (e, c) in bins.iter_mut().zip(values.chunks_exact(2)) {
        let (re, im) = (i32::from(c[0]), i32::from(c[1]));
        // int32 in C: (-32768)² + (-32768)² wraps to INT32_MIN, read back as 2^31.
        *e = re.wrapping_mul(re).wrapping_add(im.wrapping_mul(im)) as u32;
    }
    Ok(())
}
