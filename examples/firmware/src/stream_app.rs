//! The `streaming` variant on the device: sets up the audio front end and the SVDF keyword
//! network over static arenas sized on the host, streams the clip through them
//! (`src/streaming.rs`), and exits non-zero unless every frame's features and every network
//! invoke's scores equal the host's run of the same code, the features equal TensorFlow Lite
//! Micro's Python interpreter's (the signal ops are TFLM's) and the scores LiteRT's reference
//! kernels'. TFLM's int8 -> int16 SOFTMAX differs from LiteRT's by 1 in some scores: the scores
//! must differ from TFLM's in those invokes and no others.
//!
//! Both models are loaded by their seals (`Model::load_sealed`): `build.rs` checked them in
//! full on the host, and the verifier is not linked.
//!
//! Instructions per frame: QEMU has no cycle counter, but under `-icount shift=0` (as
//! `run.sh streaming` runs it) its virtual clock advances exactly 1 ns per instruction, and
//! SysTick on the processor clock (25 MHz on the mps2-an386) ticks once every 40 ns: ticks
//! times 40 are instructions, to 40 either way. Without `-icount` the same ticks follow the
//! host's wall clock and the counts mean nothing.

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;
use tessera_lite::interpreter::{Interpreter, Options};
use tessera_lite::model::Model;

use crate::expected::{
    STREAM_BLOCKS, STREAM_FEATURES_DIGEST, STREAM_FRONT_END_ARENA, STREAM_FRONT_END_SEAL,
    STREAM_HOST_SCORES, STREAM_NETWORK_ARENA, STREAM_NETWORK_SEAL, STREAM_REF_SCORES,
    STREAM_TFLM_FEATURES_DIGEST, STREAM_TFLM_SCORES,
};
use crate::streaming::{self, CLASSES, INVOKES, StreamError};

/// Instructions per SysTick tick under `qemu -icount shift=0` on the mps2-an386: 1 ns per
/// instruction, a 25 MHz processor clock.
const INSTRUCTIONS_PER_TICK: u64 = 40;
/// SysTick's counter is 24 bits wide.
const SYST_MASK: u32 = 0x00ff_ffff;

/// A clock over SysTick, counting up in ticks: each read adds the ticks since the last, so
/// the 24-bit counter may wrap between reads (every 0.67 s of virtual time), never within one
/// invoke.
struct Ticks {
    /// Held, so that nothing else reprograms the timer.
    _syst: SYST,
    last: u32,
    total: u32,
}

impl Ticks {
    fn start(mut syst: SYST) -> Self {
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(SYST_MASK);
        syst.clear_current();
        syst.enable_counter();
        let last = SYST::get_current();
        Self {
            _syst: syst,
            last,
            total: 0,
        }
    }

    fn read(&mut self) -> u32 {
        let now = SYST::get_current();
        // It counts down.
        self.total = self
            .total
            .wrapping_add(self.last.wrapping_sub(now) & SYST_MASK);
        self.last = now;
        self.total
    }
}

/// Runs the stream; `true` if it equals the host's and TensorFlow Lite Micro's.
pub fn run(syst: SYST) -> bool {
    let fe_arena =
        cortex_m::singleton!(: [u8; STREAM_FRONT_END_ARENA] = [0; STREAM_FRONT_END_ARENA])
            .expect("once");
    let net_arena = cortex_m::singleton!(: [u8; STREAM_NETWORK_ARENA] = [0; STREAM_NETWORK_ARENA])
        .expect("once");
    let scores =
        cortex_m::singleton!(: [[i16; CLASSES]; INVOKES] = [[0; CLASSES]; INVOKES]).expect("once");
    let mut ticks = Ticks::start(syst);
    match stream(fe_arena, net_arena, scores, &mut ticks) {
        Ok(ok) => ok,
        Err(e) => {
            say!("error: {}", e);
            false
        }
    }
}

/// Sets both interpreters up and streams the clip; prints what it found.
fn stream(
    fe_arena: &'static mut [u8],
    net_arena: &'static mut [u8],
    scores: &'static mut [[i16; CLASSES]; INVOKES],
    ticks: &mut Ticks,
) -> Result<bool, StreamError> {
    let options = Options::default();
    let (fe_ops, net_ops) = (streaming::front_end_ops(), streaming::network_ops());
    let setup_start = ticks.read();
    // Both models are in the image: recognised by the seals `build.rs` made when it checked
    // them on the host, not walked again (no verifier linked).
    let fe_model = Model::load_sealed(streaming::front_end_bytes(), &STREAM_FRONT_END_SEAL)
        .map_err(StreamError::Model)?;
    let net_model = Model::load_sealed(streaming::network_bytes(), &STREAM_NETWORK_SEAL)
        .map_err(StreamError::Model)?;
    let mut fe =
        Interpreter::new(fe_model, &fe_ops, fe_arena, &options).map_err(StreamError::FrontEnd)?;
    let mut net =
        Interpreter::new(net_model, &net_ops, net_arena, &options).map_err(StreamError::Network)?;
    let setup = ticks.read().wrapping_sub(setup_start);
    say!(
        "streaming: front end {} operators, arena {} of {} bytes; network {} operators, arena {} of {} bytes (.bss)",
        fe.subgraph().operators().len(),
        fe.arena_used_bytes(),
        STREAM_FRONT_END_ARENA,
        net.subgraph().operators().len(),
        net.arena_used_bytes(),
        STREAM_NETWORK_ARENA
    );
    let samples = streaming::pcm(streaming::CLIP).ok_or(StreamError::Clip)?;
    let o = streaming::run(samples, &mut fe, &mut net, scores, &mut || ticks.read())?;

    let features_ok = o.blocks == STREAM_BLOCKS
        && o.features_digest == STREAM_FEATURES_DIGEST
        && o.features_digest == STREAM_TFLM_FEATURES_DIGEST;
    let host_ok = *scores == STREAM_HOST_SCORES;
    let ref_ok = *scores == STREAM_REF_SCORES;
    // Where TFLM's softmax and LiteRT's reference agree, tessera must equal TFLM too.
    let tflm_equal = scores
        .iter()
        .zip(&STREAM_TFLM_SCORES)
        .filter(|(a, b)| a == b)
        .count();
    let tflm_ok = scores
        .iter()
        .zip(&STREAM_TFLM_SCORES)
        .zip(&STREAM_REF_SCORES)
        .all(|((s, t), r)| (s == t) == (t == r));
    say!(
        "streaming: {} blocks of 10 ms, {} network invokes; features {} the host's and TensorFlow Lite Micro's (FNV-1a {:#x})",
        o.blocks,
        o.invokes,
        if features_ok { "equal" } else { "DIFFER from" },
        o.features_digest
    );
    say!(
        "streaming: scores {} the host's, {} LiteRT's reference kernels', equal TensorFlow Lite Micro's in {} of {} invokes ({})",
        if host_ok { "equal" } else { "DIFFER from" },
        if ref_ok { "equal" } else { "DIFFER from" },
        tflm_equal,
        INVOKES,
        if tflm_ok {
            "the others are where TFLM's int8 -> int16 SOFTMAX differs from LiteRT's reference"
        } else {
            "NOT only where TFLM's SOFTMAX differs from LiteRT's"
        }
    );
    let classes = scores.map(|row| {
        row.iter()
            .enumerate()
            .max_by_key(|&(i, v)| (*v, core::cmp::Reverse(i)))
            .map_or(0, |(i, _)| i as u8)
    });
    say!("streaming: class per invoke {:?}", classes);
    let blocks = u64::from(o.blocks.max(1));
    let invokes = u64::from(o.invokes.max(1));
    say!(
        "streaming: instructions (qemu -icount shift=0, SysTick x {}): set-up {}, front end per 10 ms block {} (max {}), network per invoke {} (max {}), per 20 ms stride {}",
        INSTRUCTIONS_PER_TICK,
        u64::from(setup) * INSTRUCTIONS_PER_TICK,
        o.front_end_ticks * INSTRUCTIONS_PER_TICK / blocks,
        u64::from(o.front_end_max) * INSTRUCTIONS_PER_TICK,
        o.network_ticks * INSTRUCTIONS_PER_TICK / invokes,
        u64::from(o.network_max) * INSTRUCTIONS_PER_TICK,
        (2 * o.front_end_ticks / blocks + o.network_ticks / invokes) * INSTRUCTIONS_PER_TICK
    );
    Ok(features_ok && host_ok && ref_ok && tflm_ok)
}
