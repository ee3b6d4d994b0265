//! HugeCTR's Norm data path across the C ABI: a decoder whose state lives in a fixed-size
//! struct the caller owns, decoding Norm bytes into CSR batches in the caller's arrays.
//! Nothing here allocates; every pointer and length from C is checked before it is used.

use core::mem::{MaybeUninit, align_of, size_of};

use tessera_core::data::{
    BatchError, Check, CsrCapacity, DataError, DataErrorKind, Dims, ErrorPolicy, Key, NormConfig,
    NormDecoder, Progress, SampleBatch, Status,
};

use crate::interpreter::{TesseraError, blank, report, write_message};
use crate::status::TesseraStatus;

/// How to read a Norm file: the sample shape (the header must agree), the most keys a slot
/// may have, checksums and what to do with a bad sample.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TesseraNormConfig {
    /// Labels per sample.
    pub label_dim: u32,
    /// Dense features per sample.
    pub dense_dim: u32,
    /// Categorical slots per sample.
    pub slot_num: u32,
    /// The most keys a slot may have; a larger `nnz` in the file is an error.
    pub max_nnz: u32,
    /// 1: records carry HugeCTR's checksum frame (`error_check = 1`); 0: they do not.
    pub check: u32,
    /// 0: stop at a bad sample; 1: skip it and count it in `TesseraNormProgress::skipped`.
    pub skip_bad: u32,
}

/// The key type of a Norm file.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum TesseraKeyType {
    /// `uint32_t` keys: decode with [`tessera_norm_decode_u32`].
    TESSERA_KEY_U32 = 0,
    /// `int64_t` keys: decode with [`tessera_norm_decode_i64`].
    TESSERA_KEY_I64 = 1,
}

/// A Norm decoder's state, in memory the caller owns (on the stack, in a struct, anywhere
/// aligned to 8). Opaque: set it up with [`tessera_norm_decoder_init`], then leave it alone.
/// It holds no pointer, to itself or anything else, so C may copy it (`memcpy`, assignment)
/// to move it or to keep a checkpoint of where a stream was.
#[repr(C)]
pub struct TesseraNormDecoder {
    // The decoder's Rust state is written into these bytes, padding and all, so some of them
    // are uninitialised: as plain `u64`s a Rust move of the struct would read them, which is
    // undefined behaviour; `MaybeUninit` has the same layout (and the same C declaration)
    // and may hold any bytes.
    _private: MaybeUninit<[u64; 32]>,
}

/// Why a decode call returned.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum TesseraDecodeStatus {
    /// Every record the header announced is decoded: call [`tessera_norm_decoder_finish`].
    TESSERA_DECODE_DONE = 0,
    /// The batch is full (in samples or in keys): use it, then decode again into the same
    /// (or other) arrays from the first unconsumed byte.
    TESSERA_DECODE_BATCH_FULL = 1,
    /// The input holds no whole record: call again with at least `needed` bytes from the
    /// first unconsumed one, or call [`tessera_norm_decoder_finish`] if the stream ended.
    TESSERA_DECODE_NEED_MORE = 2,
}

/// What one decode call did.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TesseraNormProgress {
    /// Bytes of the input used: drop them and pass the rest next time.
    pub consumed: usize,
    /// Why the call returned.
    pub status: TesseraDecodeStatus,
    /// With `TESSERA_DECODE_NEED_MORE`: the bytes the next record needs; else 0.
    pub needed: usize,
    /// Samples in the batch (rows `0 .. samples * slot_num` of the CSR).
    pub samples: usize,
    /// Keys in the batch: `row_offsets[samples * slot_num]`.
    pub nnz: usize,
    /// Samples decoded since the decoder was set up.
    pub decoded: u64,
    /// Samples skipped since the decoder was set up (with `skip_bad = 1`).
    pub skipped: u64,
}

/// A batch in the caller's arrays, `uint32_t` keys. Sample `s`'s labels and dense features
/// are `label_dense[s * (label_dim + dense_dim) ..]`; the keys of slot `j` of sample `s` are
/// `keys[row_offsets[r] .. row_offsets[r + 1]]` with `r = s * slot_num + j`. Lengths are in
/// elements; size them with [`tessera_norm_batch_lens`]. The arrays must not overlap each
/// other or the input bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TesseraBatchU32 {
    /// `samples x (label_dim + dense_dim)` floats.
    pub label_dense: *mut f32,
    /// Floats `label_dense` holds.
    pub label_dense_len: usize,
    /// `samples x slot_num + 1` offsets into `keys`.
    pub row_offsets: *mut u32,
    /// Offsets `row_offsets` holds.
    pub row_offsets_len: usize,
    /// The keys of every row, one after the other.
    pub keys: *mut u32,
    /// Keys `keys` holds.
    pub keys_len: usize,
}

/// [`TesseraBatchU32`] with `int64_t` keys (and offsets).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TesseraBatchI64 {
    /// `samples x (label_dim + dense_dim)` floats.
    pub label_dense: *mut f32,
    /// Floats `label_dense` holds.
    pub label_dense_len: usize,
    /// `samples x slot_num + 1` offsets into `keys`.
    pub row_offsets: *mut i64,
    /// Offsets `row_offsets` holds.
    pub row_offsets_len: usize,
    /// The keys of every row, one after the other.
    pub keys: *mut i64,
    /// Keys `keys` holds.
    pub keys_len: usize,
}

/// Marks a set-up decoder, so that one never set up (or zeroed, or garbage) is refused
/// before any of its other bytes are read.
const MAGIC: u64 = 0x7465_7373_6e6f_726d; // "tessnorm"

enum Decoder {
    U32(NormDecoder<u32>),
    I64(NormDecoder<i64>),
}

impl Decoder {
    fn u32(&mut self) -> Option<&mut NormDecoder<u32>> {
        match self {
            Self::U32(d) => Some(d),
            Self::I64(_) => None,
        }
    }

    fn i64(&mut self) -> Option<&mut NormDecoder<i64>> {
        match self {
            Self::I64(d) => Some(d),
            Self::U32(_) => None,
        }
    }
}

#[repr(C)]
struct State {
    magic: u64,
    decoder: Decoder,
}

// The state must fit the struct C allocates, on every target (checked at compile time).
const _: () = assert!(size_of::<State>() <= size_of::<TesseraNormDecoder>());
const _: () = assert!(align_of::<State>() <= align_of::<TesseraNormDecoder>());

fn bad_argument(err: *mut TesseraError, what: &dyn core::fmt::Display) -> TesseraStatus {
    let mut r = blank();
    write_message(&mut r, what);
    // SAFETY: `err` is null or writable (every caller's contract).
    unsafe { report(err, r) };
    TesseraStatus::TESSERA_BAD_ARGUMENT
}

fn norm_config(c: &TesseraNormConfig) -> Result<NormConfig, &'static str> {
    let check = match c.check {
        0 => Check::None,
        1 => Check::Sum,
        _ => return Err("config.check must be 0 or 1"),
    };
    let policy = match c.skip_bad {
        0 => ErrorPolicy::Stop,
        1 => ErrorPolicy::Skip,
        _ => return Err("config.skip_bad must be 0 or 1"),
    };
    let dims = Dims::new(
        c.label_dim as usize,
        c.dense_dim as usize,
        c.slot_num as usize,
    );
    Ok(NormConfig::new(dims, c.max_nnz)
        .with_check(check)
        .with_policy(policy))
}

/// Writes to `*label_dense_len`, `*row_offsets_len` and `*keys_len` the elements the arrays
/// of a batch of `samples` samples need, every slot holding up to `max_nnz` keys (a batch
/// with fewer keys fills up early and says so with `TESSERA_DECODE_BATCH_FULL`, so
/// `keys_len` may be chosen smaller). `TESSERA_TOO_LARGE` if a count overflows `size_t`.
///
/// # Safety
/// `config` is readable; the three lengths writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_norm_batch_lens(
    config: *const TesseraNormConfig,
    samples: usize,
    label_dense_len: *mut usize,
    row_offsets_len: *mut usize,
    keys_len: *mut usize,
) -> TesseraStatus {
    if config.is_null()
        || label_dense_len.is_null()
        || row_offsets_len.is_null()
        || keys_len.is_null()
    {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    // SAFETY: non-null, readable (caller contract); plain integers, any bits valid.
    let c = unsafe { config.read() };
    let dims = Dims::new(
        c.label_dim as usize,
        c.dense_dim as usize,
        c.slot_num as usize,
    );
    let keys = samples
        .checked_mul(dims.slot_num)
        .and_then(|rows| rows.checked_mul(c.max_nnz as usize));
    let Some((ld, offsets, keys)) = keys.and_then(|k| dims.buffer_lens(samples, k)) else {
        return TesseraStatus::TESSERA_TOO_LARGE;
    };
    // SAFETY: each checked non-null, writable (caller contract).
    unsafe { label_dense_len.write(ld) };
    // SAFETY: as above.
    unsafe { row_offsets_len.write(offsets) };
    // SAFETY: as above.
    unsafe { keys_len.write(keys) };
    TesseraStatus::TESSERA_OK
}

/// Sets up a decoder in `decoder` at the start of a Norm stream (its header comes first).
/// `TESSERA_BAD_ARGUMENT` (with the reason in `err`) for a `check`, `skip_bad` or
/// `key_type` out of range.
///
/// # Safety
/// `decoder` and `config` are null or valid for writing / reading; `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_norm_decoder_init(
    decoder: *mut TesseraNormDecoder,
    config: *const TesseraNormConfig,
    key_type: u32,
    err: *mut TesseraError,
) -> TesseraStatus {
    if decoder.is_null() || config.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    if !decoder.cast::<u64>().is_aligned() {
        return bad_argument(err, &"the decoder is not aligned to 8 bytes");
    }
    // SAFETY: non-null, readable (caller contract); plain integers, any bits valid.
    let c = unsafe { config.read() };
    let c = match norm_config(&c) {
        Ok(c) => c,
        Err(why) => return bad_argument(err, &why),
    };
    let state = State {
        magic: MAGIC,
        decoder: match key_type {
            0 => Decoder::U32(NormDecoder::new(c)),
            1 => Decoder::I64(NormDecoder::new(c)),
            _ => return bad_argument(err, &"key_type must be TESSERA_KEY_U32 or TESSERA_KEY_I64"),
        },
    };
    // SAFETY: non-null, aligned (checked), large enough (compile-time assertion), writable.
    unsafe { decoder.cast::<State>().write(state) };
    TesseraStatus::TESSERA_OK
}

/// The decoder's state, if `decoder` was set up by [`tessera_norm_decoder_init`].
///
/// # Safety
/// `decoder` is null or valid for reads and writes of a [`TesseraNormDecoder`], and not
/// otherwise used meanwhile.
unsafe fn state<'a>(decoder: *mut TesseraNormDecoder) -> Option<&'a mut State> {
    if decoder.is_null() || !decoder.cast::<u64>().is_aligned() {
        return None;
    }
    // SAFETY: non-null, aligned, readable (caller contract); any bits are a valid u64.
    let magic = unsafe { decoder.cast::<u64>().read() };
    if magic != MAGIC {
        return None;
    }
    // SAFETY: the magic says `tessera_norm_decoder_init` wrote a `State` here, which C does
    // not touch (contract); exclusive for this call.
    Some(unsafe { &mut *decoder.cast::<State>() })
}

/// A caller array as a slice: `len` elements at `p`, checked non-null (unless empty), aligned
/// and within `isize::MAX` bytes.
///
/// # Safety
/// `p` is null or valid for reads and writes of `len` elements, used by no one else meanwhile.
unsafe fn array<'a, T>(p: *mut T, len: usize, name: &'static str) -> Result<&'a mut [T], Refusal> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Refusal::Null);
    }
    if !p.is_aligned() {
        return Err(Refusal::Bad(Why::Misaligned(name)));
    }
    if len
        .checked_mul(size_of::<T>())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(Refusal::Bad(Why::TooLong(name)));
    }
    // SAFETY: non-null, aligned, in bounds of one allocation (caller contract), exclusive.
    Ok(unsafe { core::slice::from_raw_parts_mut(p, len) })
}

enum Refusal {
    Null,
    Bad(Why),
}

enum Why {
    Misaligned(&'static str),
    TooLong(&'static str),
    Overlap,
    KeyType,
}

impl core::fmt::Display for Why {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Misaligned(a) => write!(f, "batch.{a} is not aligned to its element type"),
            Self::TooLong(a) => write!(f, "batch.{a}: the length exceeds the address space"),
            Self::Overlap => f.write_str("the batch arrays overlap each other or the input"),
            Self::KeyType => f.write_str("the decoder was set up for the other key type"),
        }
    }
}

/// Byte ranges `[start, end)` of the caller's regions, to refuse overlapping ones: the
/// arrays are written while the input is read, which Rust (and sanity) forbid to alias.
fn disjoint(ranges: &[(usize, usize)]) -> bool {
    ranges.iter().enumerate().all(|(i, a)| {
        ranges[i + 1..]
            .iter()
            .all(|b| a.0 == a.1 || b.0 == b.1 || a.1 <= b.0 || b.1 <= a.0)
    })
}

fn range<T>(p: *const T, len: usize) -> (usize, usize) {
    let start = p.addr();
    (
        start,
        start.saturating_add(len.saturating_mul(size_of::<T>())),
    )
}

fn data_error<K>(e: &DataError) -> (TesseraStatus, TesseraError) {
    let mut r = blank();
    r.byte_offset = i64::try_from(e.offset).unwrap_or(-1);
    r.sample = e.sample.and_then(|s| i64::try_from(s).ok()).unwrap_or(-1);
    let status = match e.kind {
        DataErrorKind::Batch(BatchError::Csr(CsrCapacity::Values(c))) => {
            r.needed = (c.needed as u64).saturating_mul(size_of::<K>() as u64);
            TesseraStatus::TESSERA_BUFFER_TOO_SMALL
        }
        DataErrorKind::Batch(_) => TesseraStatus::TESSERA_BUFFER_TOO_SMALL,
        _ => TesseraStatus::TESSERA_MALFORMED,
    };
    write_message(&mut r, e);
    (status, r)
}

fn progress(p: Progress, batch: &SampleBatch<'_, impl Key>, d: &dyn Stats) -> TesseraNormProgress {
    let (status, needed) = match p.status {
        Status::Done => (TesseraDecodeStatus::TESSERA_DECODE_DONE, 0),
        Status::BatchFull => (TesseraDecodeStatus::TESSERA_DECODE_BATCH_FULL, 0),
        Status::NeedMore { needed } => (TesseraDecodeStatus::TESSERA_DECODE_NEED_MORE, needed),
    };
    let (decoded, skipped) = d.counts();
    TesseraNormProgress {
        consumed: p.consumed,
        status,
        needed,
        samples: batch.samples(),
        nnz: batch.csr().nnz(),
        decoded,
        skipped,
    }
}

trait Stats {
    fn counts(&self) -> (u64, u64);
}

impl<K: Key> Stats for NormDecoder<K> {
    fn counts(&self) -> (u64, u64) {
        let s = self.stats();
        (s.decoded, s.skipped)
    }
}

/// The caller's arrays of a batch with keys `K`: (label_dense, its length, row_offsets, its
/// length, keys, its length).
type Arrays<K> = (*mut f32, usize, *mut K, usize, *mut K, usize);

/// The two C batch structs, one per key type.
trait BatchArrays: Copy {
    /// The key (and offset) type.
    type Key: Key;
    /// Which of a decoder's typed decoders reads these keys.
    fn pick(d: &mut Decoder) -> Option<&mut NormDecoder<Self::Key>>;
    /// The arrays, as pointers and lengths.
    fn arrays(self) -> Arrays<Self::Key>;
}

impl BatchArrays for TesseraBatchU32 {
    type Key = u32;
    fn pick(d: &mut Decoder) -> Option<&mut NormDecoder<u32>> {
        d.u32()
    }
    fn arrays(self) -> Arrays<u32> {
        let b = self;
        let (l, o, k) = (b.label_dense_len, b.row_offsets_len, b.keys_len);
        (b.label_dense, l, b.row_offsets, o, b.keys, k)
    }
}

impl BatchArrays for TesseraBatchI64 {
    type Key = i64;
    fn pick(d: &mut Decoder) -> Option<&mut NormDecoder<i64>> {
        d.i64()
    }
    fn arrays(self) -> Arrays<i64> {
        let b = self;
        let (l, o, k) = (b.label_dense_len, b.row_offsets_len, b.keys_len);
        (b.label_dense, l, b.row_offsets, o, b.keys, k)
    }
}

/// The shared body of the two typed decode functions.
///
/// # Safety
/// As [`tessera_norm_decode_u32`], with `B` the batch struct of the decoder's key type.
unsafe fn decode<B: BatchArrays>(
    decoder: *mut TesseraNormDecoder,
    input: *const u8,
    input_len: usize,
    batch: *const B,
    out: *mut TesseraNormProgress,
    err: *mut TesseraError,
) -> TesseraStatus {
    type K<B> = <B as BatchArrays>::Key;
    let pick = B::pick;
    if batch.is_null() || out.is_null() || (input.is_null() && input_len > 0) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    // SAFETY: `batch` is non-null (checked) and readable (the function's precondition); its
    // fields are pointers and integers, for which any bits are valid.
    let arrays = unsafe { batch.read() }.arrays();
    // SAFETY: `decoder` is null or valid for reads and writes of a `TesseraNormDecoder` that
    // nothing else uses during this call (the function's precondition).
    let Some(state) = (unsafe { state(decoder) }) else {
        return if decoder.is_null() {
            TesseraStatus::TESSERA_NULL_ARGUMENT
        } else {
            bad_argument(
                err,
                &"the decoder was not set up by tessera_norm_decoder_init",
            )
        };
    };
    let Some(dec) = pick(&mut state.decoder) else {
        return bad_argument(err, &Why::KeyType);
    };
    let (ld, ld_len, offsets, offsets_len, keys, keys_len) = arrays;
    let regions = [
        range(input, input_len),
        range(ld, ld_len),
        range(offsets, offsets_len),
        range(keys, keys_len),
    ];
    if !disjoint(&regions) {
        return bad_argument(err, &Why::Overlap);
    }
    // SAFETY: each array is valid for its length (caller contract) and, checked above,
    // overlaps neither the others nor the input.
    let arrays = unsafe { array(ld, ld_len, "label_dense") }.and_then(|ld| {
        // SAFETY: as above.
        let o = unsafe { array(offsets, offsets_len, "row_offsets") }?;
        // SAFETY: as above.
        let k = unsafe { array(keys, keys_len, "keys") }?;
        Ok((ld, o, k))
    });
    let (ld, offsets, keys) = match arrays {
        Ok(a) => a,
        Err(Refusal::Null) => return TesseraStatus::TESSERA_NULL_ARGUMENT,
        Err(Refusal::Bad(why)) => return bad_argument(err, &why),
    };
    let input: &[u8] = if input_len == 0 {
        &[]
    } else {
        // SAFETY: non-null (checked), readable for `input_len` bytes (caller contract), and
        // written by no one meanwhile (it overlaps none of the arrays, checked).
        unsafe { core::slice::from_raw_parts(input, input_len) }
    };
    let mut batch = match SampleBatch::new(dec.config().dims, ld, offsets, keys) {
        Ok(b) => b,
        Err(e) => {
            let mut r = blank();
            let dims = dec.config().dims;
            // One sample's rows: the least that makes progress possible.
            r.needed = (dims.label_dense() as u64)
                .saturating_mul(4)
                .saturating_add(
                    (dims.slot_num as u64 + 1).saturating_mul(size_of::<K<B>>() as u64),
                );
            write_message(&mut r, &e);
            // SAFETY: `err` is null or writable (the function's precondition).
            unsafe { report(err, r) };
            return TesseraStatus::TESSERA_BUFFER_TOO_SMALL;
        }
    };
    match dec.decode(input, &mut batch) {
        Ok(p) => {
            let p = progress(p, &batch, dec);
            // SAFETY: checked non-null; writable (caller contract).
            unsafe { out.write(p) };
            TesseraStatus::TESSERA_OK
        }
        Err(e) => {
            let (s, r) = data_error::<K<B>>(&e);
            // SAFETY: `err` is null or writable (the function's precondition).
            unsafe { report(err, r) };
            s
        }
    }
}

/// Decodes the whole records in `input` (the stream's unconsumed bytes: a whole file in
/// memory, or a chunk) into `batch`, which is emptied first, and writes what happened to
/// `*progress`. A bad record is `TESSERA_MALFORMED` with its sample (`err->sample`) and byte
/// offset from the stream's start (`err->byte_offset`); the samples before it stay in the
/// arrays, but `*progress` is not written. Batch arrays too small for one sample:
/// `TESSERA_BUFFER_TOO_SMALL` with `err->needed` the bytes of the array that ran out (for
/// `keys`: what the sample needed up to the slot that did not fit, so a lower bound).
///
/// # Safety
/// `decoder` is set up for `TESSERA_KEY_U32` keys; `input` readable for `input_len` bytes;
/// `batch` readable and each of its arrays valid for its length; `progress` writable; `err`
/// null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_norm_decode_u32(
    decoder: *mut TesseraNormDecoder,
    input: *const u8,
    input_len: usize,
    batch: *const TesseraBatchU32,
    progress: *mut TesseraNormProgress,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: this function's precondition is `decode`'s, with the batch struct of the
    // decoder's key type.
    unsafe { decode(decoder, input, input_len, batch, progress, err) }
}

/// [`tessera_norm_decode_u32`] for a decoder set up for `TESSERA_KEY_I64` keys.
///
/// # Safety
/// As [`tessera_norm_decode_u32`], with `int64_t` arrays.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_norm_decode_i64(
    decoder: *mut TesseraNormDecoder,
    input: *const u8,
    input_len: usize,
    batch: *const TesseraBatchI64,
    progress: *mut TesseraNormProgress,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: this function's precondition is `decode`'s, with the batch struct of the
    // decoder's key type.
    unsafe { decode(decoder, input, input_len, batch, progress, err) }
}

/// At the end of the stream: checks that `rest` (the bytes not consumed) is empty and that
/// every record the header announced was there (`TESSERA_MALFORMED` naming what is missing
/// or left over), and writes the samples decoded and skipped to `*decoded` / `*skipped`
/// (either may be null).
///
/// # Safety
/// `decoder` set up by [`tessera_norm_decoder_init`]; `rest` readable for `rest_len` bytes;
/// `decoded`, `skipped` and `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_norm_decoder_finish(
    decoder: *mut TesseraNormDecoder,
    rest: *const u8,
    rest_len: usize,
    decoded: *mut u64,
    skipped: *mut u64,
    err: *mut TesseraError,
) -> TesseraStatus {
    if decoder.is_null() || (rest.is_null() && rest_len > 0) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    // SAFETY: `decoder` is valid for reads and writes of a `TesseraNormDecoder` that nothing
    // else uses during this call (the function's precondition; null was checked).
    let Some(state) = (unsafe { state(decoder) }) else {
        return bad_argument(
            err,
            &"the decoder was not set up by tessera_norm_decoder_init",
        );
    };
    let rest: &[u8] = if rest_len == 0 {
        &[]
    } else {
        // SAFETY: non-null (checked), readable for `rest_len` bytes (caller contract).
        unsafe { core::slice::from_raw_parts(rest, rest_len) }
    };
    let (result, width) = match &mut state.decoder {
        Decoder::U32(d) => (d.finish(rest), size_of::<u32>()),
        Decoder::I64(d) => (d.finish(rest), size_of::<i64>()),
    };
    match result {
        Ok(stats) => {
            if !decoded.is_null() {
                // SAFETY: non-null, writable (caller contract).
                unsafe { decoded.write(stats.decoded) };
            }
            if !skipped.is_null() {
                // SAFETY: non-null, writable (caller contract).
                unsafe { skipped.write(stats.skipped) };
            }
            TesseraStatus::TESSERA_OK
        }
        Err(e) => {
            let (s, r) = if width == 4 {
                data_error::<u32>(&e)
            } else {
                data_error::<i64>(&e)
            };
            // SAFETY: `err` is null or writable (the function's precondition).
            unsafe { report(err, r) };
            s
        }
    }
}

#[cfg(test)]
mod tests;
