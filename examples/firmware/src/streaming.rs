//! The `streaming` variant's job, in plain `no_std` code over caller interpreters, so that
//! `build.rs` runs the very same code on the host: a synthetic clip streams 10 ms at a time
//! through TensorFlow Lite Micro's audio front end (signal ops) into a ring of feature frames,
//! and every 20 ms an int8 SVDF keyword network, whose memory carries from invoke to invoke,
//! scores the ring.
//!
//! The models and the clip are fixtures of `tests/fixtures/signal` (`make_audio.py`,
//! `make_streaming.py`); that script records what TensorFlow Lite Micro's Python interpreter
//! and LiteRT's reference kernels give on the same stream.

use tessera_lite::interpreter::{Interpreter, InterpreterError, MutableOpResolver, kernels};
use tessera_lite::model::ModelError;

/// Samples per front-end invoke: 10 ms at 16 kHz.
pub const BLOCK: usize = 160;
/// Log filter-bank channels per frame (the front end's output 2).
pub const CHANNELS: usize = 32;
/// Frames in the network's input: the ring's length.
pub const FRAMES: usize = 3;
/// Blocks between network invokes (20 ms).
pub const STRIDE: usize = 2;
/// The network's scores (int16 softmax, zero point -32768).
pub const CLASSES: usize = 4;
/// Network invokes over the clip: blocks 3, 5, ..., 59 of its 60.
pub const INVOKES: usize = 29;

/// The front end's output that holds the log filter bank (int16 [32]).
const FEATURES_OUTPUT: usize = 2;

/// Bytes kept on a 16-byte boundary, so the models' constants are read in place.
#[repr(C, align(16))]
struct Aligned<B: ?Sized>(B);

/// The audio front end: SignalDelay, SignalFramer (25 ms frames), SignalWindow, RESHAPE,
/// SignalFftAutoScale, SignalRfft, SignalEnergy, SignalFilterBank and its square root,
/// spectral subtraction, PCAN and log, SignalStacker.
static FRONT_END: &Aligned<[u8]> = &Aligned(*include_bytes!(
    "../../../tests/fixtures/signal/front_end.tflite"
));

/// The keyword network: QUANTIZE, two int8 SVDF layers (int16 state) each followed by a
/// FULLY_CONNECTED, SOFTMAX to int16: the operators of TFLM's keyword benchmark.
static NETWORK: &Aligned<[u8]> = &Aligned(*include_bytes!(
    "../../../tests/fixtures/signal/kws_svdf.tflite"
));

/// The clip: 0.6 s of a tone sweep at 16 kHz, mono 16-bit PCM in a `.wav`.
pub static CLIP: &[u8] = include_bytes!("../../../tests/fixtures/signal/tone_sweep.wav");

/// The front-end model's bytes, 16-byte aligned in flash (checked in full on the host by
/// `build.rs`, which seals them).
pub fn front_end_bytes() -> &'static [u8] {
    &FRONT_END.0
}

/// The keyword network's bytes, 16-byte aligned in flash.
pub fn network_bytes() -> &'static [u8] {
    &NETWORK.0
}

/// The front end's kernels: its twelve signal ops and RESHAPE, no others linked.
pub fn front_end_ops() -> MutableOpResolver<13> {
    let mut ops = MutableOpResolver::new();
    for k in [
        &kernels::SIGNAL_DELAY,
        &kernels::SIGNAL_FRAMER,
        &kernels::SIGNAL_WINDOW,
        &kernels::SIGNAL_FFT_AUTO_SCALE,
        &kernels::SIGNAL_RFFT,
        &kernels::SIGNAL_ENERGY,
        &kernels::SIGNAL_FILTER_BANK,
        &kernels::SIGNAL_FILTER_BANK_SQUARE_ROOT,
        &kernels::SIGNAL_FILTER_BANK_SPECTRAL_SUBTRACTION,
        &kernels::SIGNAL_PCAN,
        &kernels::SIGNAL_FILTER_BANK_LOG,
        &kernels::SIGNAL_STACKER,
    ] {
        // Thirteen slots for thirteen kernels: never full.
        let _ = ops.add_custom(k);
    }
    let _ = ops.add(&kernels::RESHAPE);
    ops
}

/// The network's kernels, as TFLM's keyword benchmark registers them (FULLY_CONNECTED and
/// SOFTMAX for int8 inputs only).
pub fn network_ops() -> MutableOpResolver<4> {
    let mut ops = MutableOpResolver::new();
    for k in [
        &kernels::QUANTIZE,
        &kernels::SVDF,
        &kernels::FULLY_CONNECTED_INT8,
        &kernels::SOFTMAX_INT8,
    ] {
        // Four slots for four kernels: never full.
        let _ = ops.add(k);
    }
    ops
}

/// Why the stream stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamError {
    /// The clip is not a 16-bit PCM `.wav` with a data chunk.
    Clip,
    /// A model is bad (never, for the bundled ones).
    Model(ModelError),
    /// The front end failed (set-up or an invoke; the error names the operator).
    FrontEnd(InterpreterError),
    /// The network failed.
    Network(InterpreterError),
    /// A model's input or output is not the shape this job streams (never, for the bundled
    /// models).
    Shape,
    /// More network invokes than the caller's score buffer holds.
    Scores,
}

impl core::fmt::Display for StreamError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Clip => f.write_str("the clip is not 16-bit PCM in a .wav"),
            Self::Model(e) => write!(f, "a model: {e}"),
            Self::FrontEnd(e) => write!(f, "the front end: {e}"),
            Self::Network(e) => write!(f, "the network: {e}"),
            Self::Shape => f.write_str("a model's input or output has another shape"),
            Self::Scores => f.write_str("more network invokes than score rows"),
        }
    }
}

/// What one pass over the clip found, and the clock ticks it took (the caller's clock; the
/// host's reads 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcome {
    /// Front-end invokes (10 ms blocks).
    pub blocks: u32,
    /// Network invokes.
    pub invokes: u32,
    /// FNV-1a of every frame of features, as the front end gave them (little-endian).
    pub features_digest: u32,
    /// Ticks in the front end's invokes, all of them, and the most one took.
    pub front_end_ticks: u64,
    /// The most ticks one front-end invoke took.
    pub front_end_max: u32,
    /// Ticks in the network's invokes, all of them.
    pub network_ticks: u64,
    /// The most ticks one network invoke took.
    pub network_max: u32,
}

/// The PCM samples of a `.wav` file's `data` chunk (little-endian 16-bit), or `None` if there
/// is none or it runs past the file.
pub fn pcm(wav: &[u8]) -> Option<&[u8]> {
    if wav.get(0..4)? != b"RIFF" || wav.get(8..12)? != b"WAVE" {
        return None;
    }
    let mut at = 12usize;
    loop {
        let id = wav.get(at..at + 4)?;
        let size = u32::from_le_bytes(wav.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        let body = at.checked_add(8)?;
        if id == b"data" {
            return wav.get(body..body.checked_add(size & !1)?);
        }
        // Chunks are padded to an even length.
        at = body.checked_add(size)?.checked_add(size & 1)?;
    }
}

/// FNV-1a's starting value.
pub const FNV_START: u32 = 0x811c_9dc5;

/// FNV-1a over `bytes`, continuing from `hash` (from [`FNV_START`]).
pub fn fnv(hash: u32, bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(hash, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// Streams the clip's `samples` (16-bit little-endian PCM) through `front_end` 10 ms at a time
/// and `network` every 20 ms once the ring holds three frames, writing each network invoke's
/// scores to the next row of `scores`. `clock` is read before and after every invoke (the
/// firmware's instruction clock; the host's reads 0). The interpreters keep their state: a
/// second pass continues the stream unless the caller resets them.
///
/// # Errors
/// [`StreamError`]: the first failing invoke, a model of another shape, or too few rows.
pub fn run(
    samples: &[u8],
    front_end: &mut Interpreter<'_, '_>,
    network: &mut Interpreter<'_, '_>,
    scores: &mut [[i16; CLASSES]],
    clock: &mut dyn FnMut() -> u32,
) -> Result<Outcome, StreamError> {
    let mut ring = [[0i16; CHANNELS]; FRAMES];
    let mut o = Outcome {
        features_digest: FNV_START,
        ..Outcome::default()
    };
    for (k, block) in samples.chunks_exact(BLOCK * 2).enumerate() {
        {
            let mut input = front_end.input::<i16>(0).map_err(StreamError::FrontEnd)?;
            let input = input
                .as_slice_mut()
                .filter(|s| s.len() == BLOCK)
                .ok_or(StreamError::Shape)?;
            for (x, b) in input.iter_mut().zip(block.chunks_exact(2)) {
                *x = i16::from_le_bytes([b[0], b[1]]);
            }
        }
        let start = clock();
        front_end.invoke().map_err(StreamError::FrontEnd)?;
        let ticks = clock().wrapping_sub(start);
        o.front_end_ticks += u64::from(ticks);
        o.front_end_max = o.front_end_max.max(ticks);
        o.blocks += 1;

        // The ring's oldest frame gives way to the newest.
        ring.rotate_left(1);
        let features = front_end
            .output::<i16>(FEATURES_OUTPUT)
            .map_err(StreamError::FrontEnd)?;
        let features = features
            .as_slice()
            .filter(|s| s.len() == CHANNELS)
            .ok_or(StreamError::Shape)?;
        ring[FRAMES - 1].copy_from_slice(features);
        for &f in features {
            o.features_digest = fnv(o.features_digest, &f.to_le_bytes());
        }

        if k < FRAMES || (k - FRAMES) % STRIDE != 0 {
            continue;
        }
        {
            let mut input = network.input::<i16>(0).map_err(StreamError::Network)?;
            let input = input
                .as_slice_mut()
                .filter(|s| s.len() == FRAMES * CHANNELS)
                .ok_or(StreamError::Shape)?;
            for (chunk, frame) in input.chunks_exact_mut(CHANNELS).zip(&ring) {
                chunk.copy_from_slice(frame);
            }
        }
        let start = clock();
        network.invoke().map_err(StreamError::Network)?;
        let ticks = clock().wrapping_sub(start);
        o.network_ticks += u64::from(ticks);
        o.network_max = o.network_max.max(ticks);
        let row = scores
            .get_mut(o.invokes as usize)
            .ok_or(StreamError::Scores)?;
        let y = network.output::<i16>(0).map_err(StreamError::Network)?;
        let y = y
            .as_slice()
            .filter(|s| s.len() == CLASSES)
            .ok_or(StreamError::Shape)?;
        row.copy_from_slice(y);
        o.invokes += 1;
    }
    Ok(o)
}
