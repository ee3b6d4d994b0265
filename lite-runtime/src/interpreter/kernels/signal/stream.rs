//! The ops that keep samples between invokes: `SignalFramer`, `SignalStacker`,
//! `SignalOverlapAdd`, `SignalDelay` (`signal/micro/kernels/{framer,stacker,overlap_add,
//! delay}.cc`). Their buffers are the operator's persistent bytes: `init` sets them up as
//! TFLM's prepare and reset do, `eval` carries them on.
//!
//! TFLM keeps samples in its `CircularBuffer` (a mirrored ring of int16); [`Ring`] is the same
//! first-in first-out queue without the mirror. The configurations on which TFLM's ring would
//! overflow or underflow (where its asserts are compiled out) are refused at set-up, so the
//! queue's own checks never fire on a model that sets up.

use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::check::{self, SHORT};
use super::super::base::tensors::words_mut;
use super::spectral::{operands, rank, replace_last, rows, typed};
use super::{bool_option, missing, option_in, options, state, type_option};
use crate::interpreter::{Eval, Init, KernelError, Prepare, Shape};
use crate::model::TensorType;

const STATE: KernelError = KernelError::Mismatch {
    what: "signal op state not as init set it up",
};
const TOO_LARGE: KernelError = KernelError::Unsupported {
    what: "signal op state over 4 GiB",
};

/// A FIFO of int16 samples over borrowed words: the read position and the count in
/// `head[0]`, `head[1]`, the samples in `data` (its capacity).
struct Ring<'a> {
    head: &'a mut [u32],
    data: &'a mut [i16],
}

impl Ring<'_> {
    fn read(&self) -> usize {
        self.head.first().copied().unwrap_or(0) as usize
    }

    /// Samples queued (`CircularBufferAvailable`).
    fn len(&self) -> usize {
        self.head.get(1).copied().unwrap_or(0) as usize
    }

    fn set(&mut self, read: usize, len: usize) {
        if let [r, n, ..] = self.head {
            *r = read as u32;
            *n = len as u32;
        }
    }

    /// Empties it and zeroes the samples (`CircularBufferReset`).
    fn reset(&mut self) {
        self.set(0, 0);
        self.data.fill(0);
    }

    /// The slot of queued sample `k` (below the capacity: `read` and `k` are).
    fn slot(&self, k: usize) -> usize {
        let cap = self.data.len();
        let at = self.read() + k;
        if at >= cap { at - cap } else { at }
    }

    /// Queues `n` samples from `value(j)` (`CircularBufferWrite`), or fails if they do not fit.
    fn push(&mut self, n: usize, value: impl Fn(&Self, usize) -> i16) -> Result<(), KernelError> {
        let (len, cap) = (self.len(), self.data.len());
        if n > cap - len.min(cap) {
            return Err(STATE);
        }
        for j in 0..n {
            let v = value(self, j);
            let at = self.slot(len + j);
            *self.data.get_mut(at).ok_or(STATE)? = v;
        }
        self.set(self.read(), len + n);
        Ok(())
    }

    fn write(&mut self, values: &[i16]) -> Result<(), KernelError> {
        self.push(values.len(), |_, j| values[j])
    }

    fn write_zeros(&mut self, n: usize) -> Result<(), KernelError> {
        self.push(n, |_, _| 0)
    }

    /// Queues the last `count` samples again, `times` times (`CircularBufferExtend`).
    fn extend(&mut self, count: usize, times: usize) -> Result<(), KernelError> {
        let len = self.len();
        let first = len.checked_sub(count).ok_or(STATE)?;
        for _ in 0..times {
            self.push(count, |ring, j| {
                ring.data.get(ring.slot(first + j)).copied().unwrap_or(0)
            })?;
        }
        Ok(())
    }

    /// Copies the first `out.len()` queued samples out, leaving them queued
    /// (`CircularBufferGet`).
    fn get(&self, out: &mut [i16]) -> Result<(), KernelError> {
        if out.len() > self.len() {
            return Err(STATE);
        }
        for (k, o) in out.iter_mut().enumerate() {
            *o = *self.data.get(self.slot(k)).ok_or(STATE)?;
        }
        Ok(())
    }

    /// Drops the first `n` queued samples (`CircularBufferDiscard`).
    fn discard(&mut self, n: usize) -> Result<(), KernelError> {
        let len = self.len();
        if n > len {
            return Err(STATE);
        }
        let read = self.slot(n);
        self.set(read, len - n);
        Ok(())
    }
}

/// Persistent bytes of `count` rings of `capacity` samples, with `head` words of head each.
fn ring_bytes(count: usize, capacity: usize, head: usize) -> Result<usize, KernelError> {
    let per = capacity
        .checked_mul(2)
        .and_then(|d| d.checked_add(4 * head))
        .ok_or(TOO_LARGE)?;
    count
        .checked_mul(per)
        .filter(|&b| b <= u32::MAX as usize)
        .ok_or(TOO_LARGE)
}

/// The heads (`head` words each) and samples of `count` rings of `capacity` in `bytes`.
fn ring_parts(
    bytes: &mut [u8],
    count: usize,
    capacity: usize,
    head: usize,
) -> Result<(&mut [u32], &mut [i16]), KernelError> {
    let (heads, data) = bytes
        .split_at_mut_checked(4 * head * count)
        .ok_or(STATE)?;
    let heads = words_mut::<u32>(heads)?;
    let data = words_mut::<i16>(data)?
        .get_mut(..count * capacity)
        .ok_or(STATE)?;
    Ok((heads, data))
}

/// Ring `i` of the parts [`ring_parts`] split.
fn ring<'a>(
    heads: &'a mut [u32],
    data: &'a mut [i16],
    i: usize,
    capacity: usize,
    head: usize,
) -> Result<Ring<'a>, KernelError> {
    Ok(Ring {
        head: heads.get_mut(i * head..(i + 1) * head).ok_or(STATE)?,
        data: data
            .get_mut(i * capacity..(i + 1) * capacity)
            .ok_or(STATE)?,
    })
}

/// The flag outputs (`output_valid`): a bool scalar.
fn valid_output(ctx: &Prepare<'_>, i: usize) -> Result<(), KernelError> {
    let d = ctx.output(i)?;
    typed(&d, TensorType::Bool)?;
    rank(&d, 0)
}

// ------------------------------------------------------------------------------ SignalFramer

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct FramerParams {
    frame_size: u32,
    frame_step: u32,
    prefill: u32,
    /// Runs of the innermost dimension: one ring each.
    outer: u32,
    /// Frames per run and invoke.
    frames: u32,
    /// Each ring's capacity: `frame_size` rounded up to a multiple of `frame_step`.
    capacity: u32,
}

pub(super) fn prepare_framer(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 2)?;
    let map = options(ctx)?;
    let frame_size = option_in!(map, "frame_size", 1..=i32::MAX) as usize;
    let frame_step = option_in!(map, "frame_step", 1..=i32::MAX) as usize;
    let prefill = bool_option(&map, "prefill", missing!("prefill"))?;
    if prefill && frame_size < frame_step {
        // TFLM would prefill frame_size - frame_step (negative) zeros.
        return Err(KernelError::Unsupported {
            what: "SignalFramer prefill with frame_step over frame_size",
        });
    }
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    typed(&input, TensorType::Int16)?;
    typed(&output, TensorType::Int16)?;
    valid_output(ctx, 1)?;
    let (inner, outer) = rows(&input.shape)?;
    if inner < frame_step || inner % frame_step != 0 {
        return Err(KernelError::Mismatch {
            what: "SignalFramer input's innermost dimension not a multiple of frame_step",
        });
    }
    let frames = inner / frame_step;
    check::output_shape(&output, &replace_last(&input.shape, &[frames, frame_size])?)?;
    let capacity = frame_size.div_ceil(frame_step) * frame_step;
    ctx.request_persistent(ring_bytes(outer, capacity, 2)?);
    ctx.set_params(&FramerParams {
        frame_size: check::dim(frame_size)?,
        frame_step: check::dim(frame_step)?,
        prefill: u32::from(prefill),
        outer: check::dim(outer)?,
        frames: check::dim(frames)?,
        capacity: check::dim(capacity)?,
    });
    Ok(())
}

/// Empty rings, `frame_size - frame_step` zeros in each with `prefill`.
pub(super) fn init_framer(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: FramerParams = ctx.params();
    let (outer, cap) = (p.outer as usize, p.capacity as usize);
    let (heads, data) = ring_parts(ctx.persistent(), outer, cap, 2)?;
    for i in 0..outer {
        let mut r = ring(heads, data, i, cap, 2)?;
        r.reset();
        if p.prefill != 0 {
            r.write_zeros((p.frame_size - p.frame_step) as usize)?;
        }
    }
    Ok(())
}

pub(super) fn eval_framer(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: FramerParams = ctx.params();
    let (outer, cap, frames) = (p.outer as usize, p.capacity as usize, p.frames as usize);
    let (size, step) = (p.frame_size as usize, p.frame_step as usize);
    let state = state(ctx, ring_bytes(outer, cap, 2)?)?;
    let input = ctx.input::<i16>(0)?;
    let input = input.get(..outer * frames * step).ok_or(SHORT)?;
    let output = ctx.output::<i16>(0)?;
    let output = output.get_mut(..outer * frames * size).ok_or(SHORT)?;
    let (heads, data) = ring_parts(state, outer, cap, 2)?;
    let mut valid = true;
    for i in 0..outer {
        let mut r = ring(heads, data, i, cap, 2)?;
        for f in 0..frames {
            let k = i * frames + f;
            r.write(&input[k * step..(k + 1) * step])?;
            let out = &mut output[k * size..(k + 1) * size];
            if r.len() >= size {
                r.get(out)?;
                r.discard(step)?;
            } else {
                // TFLM leaves the frame as it was; the op's documentation says zeros.
                out.fill(0);
                valid = false;
            }
        }
    }
    *ctx.output::<bool>(1)?.first_mut().ok_or(SHORT)? = valid;
    Ok(())
}

// ----------------------------------------------------------------------------- SignalStacker

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct StackerParams {
    channels: u32,
    left_context: u32,
    /// `channels × (left + 1 + right)`: the output and the ring's capacity.
    buffer: u32,
    /// `channels × stacker_step`.
    step: u32,
}

/// The stacker's head: read, count, and whether the first frame came.
const STACKER_HEAD: usize = 4;

pub(super) fn prepare_stacker(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 2)?;
    let map = options(ctx)?;
    let channels = option_in!(map, "num_channels", 1..=i32::MAX) as usize;
    let left = option_in!(map, "stacker_left_context", 0..=i32::MAX) as usize;
    let right = option_in!(map, "stacker_right_context", 0..=i32::MAX) as usize;
    let frames = left
        .checked_add(right)
        .and_then(|f| f.checked_add(1))
        .ok_or(TOO_LARGE)?;
    // A step past the stacked frames would discard samples TFLM's ring does not hold.
    let step = option_in!(map, "stacker_step", 1..=i32::MAX) as usize;
    if step > frames {
        return Err(KernelError::Unsupported {
            what: "SignalStacker stacker_step over the frames it stacks",
        });
    }
    let buffer = channels.checked_mul(frames).ok_or(TOO_LARGE)?;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    typed(&input, TensorType::Int16)?;
    typed(&output, TensorType::Int16)?;
    valid_output(ctx, 1)?;
    rank(&input, 1)?;
    if input.shape.dim(0) != Some(channels) {
        return Err(KernelError::Mismatch {
            what: "SignalStacker input not num_channels long",
        });
    }
    check::output_shape(&output, &Shape::new(&[buffer]).ok_or(check::OUTPUT_SHAPE)?)?;
    ctx.request_persistent(ring_bytes(1, buffer, STACKER_HEAD)?);
    ctx.set_params(&StackerParams {
        channels: check::dim(channels)?,
        left_context: check::dim(left)?,
        buffer: check::dim(buffer)?,
        step: check::dim(channels * step)?,
    });
    Ok(())
}

pub(super) fn init_stacker(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: StackerParams = ctx.params();
    let (heads, data) = ring_parts(ctx.persistent(), 1, p.buffer as usize, STACKER_HEAD)?;
    heads.fill(0);
    data.fill(0);
    Ok(())
}

pub(super) fn eval_stacker(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: StackerParams = ctx.params();
    let (channels, buffer) = (p.channels as usize, p.buffer as usize);
    let state = state(ctx, ring_bytes(1, buffer, STACKER_HEAD)?)?;
    let input = ctx.input::<i16>(0)?.get(..channels).ok_or(SHORT)?;
    let output = ctx.output::<i16>(0)?.get_mut(..buffer).ok_or(SHORT)?;
    let (heads, data) = ring_parts(state, 1, buffer, STACKER_HEAD)?;
    let (head, flag) = heads.split_at_mut(2);
    let first_frame = flag.first_mut().ok_or(STATE)?;
    let mut r = Ring { head, data };
    r.write(input)?;
    if *first_frame == 0 {
        // The first frame stands in for the left context it has not seen.
        r.extend(channels, p.left_context as usize)?;
        *first_frame = 1;
    }
    let valid = r.len() >= buffer;
    if valid {
        r.get(output)?;
        r.discard(p.step as usize)?;
    } else {
        output.fill(0);
    }
    *ctx.output::<bool>(1)?.first_mut().ok_or(SHORT)? = valid;
    Ok(())
}

// -------------------------------------------------------------------------- SignalOverlapAdd

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct OverlapAddParams {
    /// 1 for int16, 0 for float32.
    int16: u32,
    frame_size: u32,
    frame_step: u32,
    frames: u32,
    outer: u32,
}

pub(super) fn prepare_overlap_add(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 1)?;
    let map = options(ctx)?;
    let t = type_option(&map)?;
    if !matches!(t, TensorType::Int16 | TensorType::Float32) {
        return Err(check::TYPE);
    }
    let step = option_in!(map, "frame_step", 1..=i32::MAX) as usize;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    typed(&input, t)?;
    typed(&output, t)?;
    let dims = input.shape.dims();
    let [.., frames, size] = *dims else {
        return Err(KernelError::Mismatch {
            what: "SignalOverlapAdd input of rank below 2",
        });
    };
    if step > size {
        // TFLM would shift its buffer by a negative count.
        return Err(KernelError::Unsupported {
            what: "SignalOverlapAdd frame_step over the frame size",
        });
    }
    let outer = if frames == 0 || size == 0 {
        0
    } else {
        input.shape.elements() / (frames * size)
    };
    let out_shape = Shape::new(&dims[..dims.len() - 1]).ok_or(check::OUTPUT_SHAPE)?;
    let out_shape = replace_last(&out_shape, &[frames.checked_mul(step).ok_or(TOO_LARGE)?])?;
    check::output_shape(&output, &out_shape)?;
    let bytes = outer
        .checked_mul(size)
        .and_then(|n| n.checked_mul(if t == TensorType::Int16 { 2 } else { 4 }))
        .filter(|&b| b <= u32::MAX as usize)
        .ok_or(TOO_LARGE)?;
    ctx.request_persistent(bytes);
    ctx.set_params(&OverlapAddParams {
        int16: u32::from(t == TensorType::Int16),
        frame_size: check::dim(size)?,
        frame_step: check::dim(step)?,
        frames: check::dim(frames)?,
        outer: check::dim(outer)?,
    });
    Ok(())
}

/// Zeroed buffers (0.0 is all zero bits too).
pub(super) fn init_overlap_add(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    ctx.persistent().fill(0);
    Ok(())
}

pub(super) fn eval_overlap_add(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: OverlapAddParams = ctx.params();
    if p.int16 != 0 {
        overlap_add::<i16>(ctx, &p, |x, b| {
            (i32::from(x) + i32::from(b)).clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
        })
    } else {
        overlap_add::<f32>(ctx, &p, |x, b| b + x)
    }
}

fn overlap_add<T: Element + FromBytes + IntoBytes + KnownLayout>(
    ctx: &mut Eval<'_>,
    p: &OverlapAddParams,
    add: impl Fn(T, T) -> T,
) -> Result<(), KernelError> {
    let (size, step) = (p.frame_size as usize, p.frame_step as usize);
    let (frames, outer) = (p.frames as usize, p.outer as usize);
    let state = words_mut::<T>(state(ctx, outer * size * size_of::<T>())?)?;
    let state = state.get_mut(..outer * size).ok_or(STATE)?;
    let input = ctx.input::<T>(0)?.get(..outer * frames * size).ok_or(SHORT)?;
    let output = ctx.output::<T>(0)?;
    let output = output.get_mut(..outer * frames * step).ok_or(SHORT)?;
    if size == 0 {
        return Ok(());
    }
    for (i, buffer) in state.chunks_exact_mut(size).enumerate() {
        for f in 0..frames {
            let k = i * frames + f;
            // OverlapAdd: the frame added in, frame_step samples out, the rest moved up.
            for (b, &x) in buffer.iter_mut().zip(&input[k * size..(k + 1) * size]) {
                *b = add(x, *b);
            }
            output[k * step..(k + 1) * step].copy_from_slice(&buffer[..step]);
            buffer.copy_within(step.., 0);
            buffer[size - step..].fill(T::default());
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------- SignalDelay

#[derive(Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
struct DelayParams {
    frame: u32,
    delay: u32,
    outer: u32,
}

impl DelayParams {
    fn capacity(&self) -> usize {
        self.frame as usize + self.delay as usize
    }
}

pub(super) fn prepare_delay(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    operands(ctx, 1, 1)?;
    let map = options(ctx)?;
    let delay = option_in!(map, "delay_length", 0..=i32::MAX) as usize;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    typed(&input, TensorType::Int16)?;
    check::output_type(&input, &output)?;
    check::output_shape(&output, &input.shape)?;
    let (frame, outer) = rows(&input.shape)?;
    let p = DelayParams {
        frame: check::dim(frame)?,
        delay: check::dim(delay)?,
        outer: check::dim(outer)?,
    };
    check::dim(frame.checked_add(delay).ok_or(TOO_LARGE)?)?;
    ctx.request_persistent(ring_bytes(outer, p.capacity(), 2)?);
    ctx.set_params(&p);
    Ok(())
}

/// Each ring holds `delay_length` zeros.
pub(super) fn init_delay(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let p: DelayParams = ctx.params();
    let (outer, cap) = (p.outer as usize, p.capacity());
    let (heads, data) = ring_parts(ctx.persistent(), outer, cap, 2)?;
    for i in 0..outer {
        let mut r = ring(heads, data, i, cap, 2)?;
        r.reset();
        r.write_zeros(p.delay as usize)?;
    }
    Ok(())
}

pub(super) fn eval_delay(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: DelayParams = ctx.params();
    let (outer, frame, cap) = (p.outer as usize, p.frame as usize, p.capacity());
    let state = state(ctx, ring_bytes(outer, cap, 2)?)?;
    let input = ctx.input::<i16>(0)?.get(..outer * frame).ok_or(SHORT)?;
    let output = ctx.output::<i16>(0)?.get_mut(..outer * frame).ok_or(SHORT)?;
    let (heads, data) = ring_parts(state, outer, cap, 2)?;
    for i in 0..outer {
        let mut r = ring(heads, data, i, cap, 2)?;
        let span = i * frame..(i + 1) * frame;
        r.write(&input[span.clone()])?;
        r.get(&mut output[span])?;
        r.discard(frame)?;
    }
    Ok(())
}
