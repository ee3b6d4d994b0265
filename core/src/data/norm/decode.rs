//! The streaming Norm decoder.

use core::marker::PhantomData;

use zerocopy::FromBytes;

use super::header::NormHeader;
use super::{Check, FRAME, NormConfig, checksum};
use crate::data::batch::{BatchError, SampleBatch};
use crate::data::error::{DataError, DataErrorKind, DecodeStats, ErrorPolicy};
use crate::data::key::Key;
use crate::data::progress::{Progress, Status};

/// Decodes a Norm stream into [`SampleBatch`]es, as its bytes arrive.
///
/// Feed it the unconsumed bytes; it decodes the whole records among them (never half of
/// one) and says how many bytes it used. Whole-file input (a memory map) is one call per
/// batch; a chunked source keeps a buffer of at least
/// [`NormConfig::max_record_bytes`]`(K::WIDTH)` bytes. At the end of the stream,
/// [`finish`](Self::finish) checks that nothing is missing or left over.
///
/// ```
/// use tessera_core::data::{Dims, NormConfig, NormDecoder, NormEncoder, SampleBatch, Status};
///
/// let config = NormConfig::new(Dims::new(1, 1, 2), 4);
/// // A file of two samples, written by the encoder.
/// let mut file = [0u8; 256];
/// let mut enc = NormEncoder::<u32>::new(config);
/// let mut n = enc.header(2, &mut file).unwrap();
/// n += enc.sample(&[1.0], &[0.5], &[&[10, 11], &[20]], &mut file[n..]).unwrap();
/// n += enc.sample(&[0.0], &[0.25], &[&[], &[21]], &mut file[n..]).unwrap();
///
/// let (mut ld, mut offsets, mut keys) = ([0f32; 4], [0u32; 5], [0u32; 8]);
/// let mut batch = SampleBatch::new(config.dims, &mut ld, &mut offsets, &mut keys).unwrap();
/// let mut dec = NormDecoder::<u32>::new(config);
/// let p = dec.decode(&file[..n], &mut batch).unwrap();
/// assert_eq!(p.status, Status::Done);
/// assert_eq!(batch.keys(0, 0), Some(&[10, 11][..]));
/// assert_eq!(batch.csr().row_offsets(), &[0, 2, 3, 3, 4]);
/// let stats = dec.finish(&file[p.consumed..n]).unwrap();
/// assert_eq!(stats.decoded, 2);
/// ```
#[derive(Debug, Clone)]
pub struct NormDecoder<K> {
    config: NormConfig,
    /// `number_of_records`, once the header is read.
    records: Option<u64>,
    /// Stream offset of the first unconsumed byte.
    offset: u64,
    /// Index of the next sample.
    sample: u64,
    stats: DecodeStats,
    /// The error that stopped the decoder; every later call returns it.
    failed: Option<DataError>,
    _key: PhantomData<K>,
}

/// Why a record could not be decoded now.
enum Fail {
    /// The record needs this many bytes from its start.
    Incomplete(usize),
    /// The batch has no room for it (in samples or keys).
    Full(BatchError),
    /// Bad bytes at `at` (from the record start); `skip` is the record length if known.
    Bad {
        kind: DataErrorKind,
        at: usize,
        skip: Option<usize>,
    },
}

impl<K: Key> NormDecoder<K> {
    /// A decoder at the start of a stream.
    pub fn new(config: NormConfig) -> Self {
        Self {
            config,
            records: None,
            offset: 0,
            sample: 0,
            stats: DecodeStats::default(),
            failed: None,
            _key: PhantomData,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &NormConfig {
        &self.config
    }

    /// `number_of_records` from the header, once read.
    pub fn records(&self) -> Option<u64> {
        self.records
    }

    /// Stream offset of the next unconsumed byte.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Moves forward to record `sample`, which starts at stream offset `offset`, as if
    /// the records in between had been passed over. Ignored unless the header has been
    /// read and both move forward; a failed decoder stays failed.
    ///
    /// `offset` must be where an earlier walk of the same stream found record `sample`
    /// (a [`BatchIndex`](crate::data::BatchIndex) knows such places, and so does a caller
    /// that noted [`offset`](Self::offset) at [`position`](Self::position) `sample`). At
    /// any other offset the decoder reads whatever bytes are there as records: their
    /// errors or wrong samples, never a read out of bounds.
    pub fn skip_to(&mut self, sample: u64, offset: u64) {
        let ready = self.records.is_some() && self.failed.is_none();
        if ready && sample >= self.sample && offset >= self.offset {
            self.sample = sample;
            self.offset = offset;
        }
    }

    /// Samples decoded and skipped so far.
    pub fn stats(&self) -> DecodeStats {
        self.stats
    }

    /// Decodes whole records from `input` (the stream's unconsumed bytes) into `batch`.
    ///
    /// Under [`ErrorPolicy::Stop`] a bad sample is an error, and the decoder stays stopped
    /// (every later call returns the same error); under [`ErrorPolicy::Skip`] it is counted
    /// in [`stats`](Self::stats) and left out, unless the next record cannot be found after
    /// it. A sample whose keys alone exceed an empty batch is an error either way. Samples
    /// decoded before an error stay in `batch`, whole and valid.
    pub fn decode(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Progress, DataError> {
        self.decode_records(input, batch, u64::MAX)
    }

    /// [`decode`](Self::decode), stopping with [`Status::BatchFull`] after `max` records
    /// (decoded or skipped), so batches can follow record numbers whatever is skipped.
    pub fn decode_records(
        &mut self,
        input: &[u8],
        batch: &mut SampleBatch<'_, K>,
        max: u64,
    ) -> Result<Progress, DataError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let (records, mut pos) = match self.ensure_header(input)? {
            Ok(r) => r,
            Err(needed) => {
                return Ok(Progress {
                    consumed: 0,
                    status: Status::NeedMore { needed },
                });
            }
        };
        let stop = self.sample.saturating_add(max);
        loop {
            if self.sample >= records {
                return Ok(Progress {
                    consumed: pos,
                    status: Status::Done,
                });
            }
            if batch.is_full() || self.sample >= stop {
                return Ok(Progress {
                    consumed: pos,
                    status: Status::BatchFull,
                });
            }
            let rest = &input[pos..];
            let result = match self.config.check {
                Check::None => payload(rest, &self.config, batch, false),
                Check::Sum => framed(rest, &self.config, batch),
            };
            let (kind, at, skip) = match result {
                Ok(len) => {
                    pos += len;
                    self.offset += len as u64;
                    self.sample += 1;
                    self.stats.decoded += 1;
                    continue;
                }
                Err(Fail::Incomplete(needed)) => {
                    return Ok(Progress {
                        consumed: pos,
                        status: Status::NeedMore { needed },
                    });
                }
                Err(Fail::Full(e)) => {
                    if batch.samples() > 0 {
                        return Ok(Progress {
                            consumed: pos,
                            status: Status::BatchFull,
                        });
                    }
                    (DataErrorKind::Batch(e), 0, None)
                }
                Err(Fail::Bad { kind, at, skip }) => (kind, at, skip),
            };
            let error = DataError {
                kind,
                sample: Some(self.sample),
                offset: self.offset + at as u64,
            };
            let skippable = self.config.policy == ErrorPolicy::Skip
                && !matches!(
                    kind,
                    DataErrorKind::Batch(_) | DataErrorKind::NegativeNnz { .. }
                );
            let skip = match (skippable, skip, self.config.check) {
                (false, _, _) => None,
                (true, Some(len), _) => Some(len),
                (true, None, Check::None) => match measure::<K>(rest, &self.config) {
                    Ok(len) => Some(len),
                    Err(Fail::Incomplete(needed)) => {
                        return Ok(Progress {
                            consumed: pos,
                            status: Status::NeedMore { needed },
                        });
                    }
                    Err(_) => None,
                },
                (true, None, Check::Sum) => None,
            };
            let Some(len) = skip else {
                self.failed = Some(error);
                return Err(error);
            };
            pos += len;
            self.offset += len as u64;
            self.sample += 1;
            self.stats.skipped += 1;
            self.stats.first_skipped.get_or_insert(error);
        }
    }

    /// Ends the stream: `rest` is whatever [`decode`](Self::decode) did not consume.
    ///
    /// Errors if the header or announced records are missing (under
    /// [`ErrorPolicy::Skip`], missing records are counted as skipped instead) or if bytes
    /// follow the last record.
    pub fn finish(&mut self, rest: &[u8]) -> Result<DecodeStats, DataError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let at = |kind, sample| DataError {
            kind,
            sample,
            offset: self.offset,
        };
        let Some(records) = self.records else {
            let kind = DataErrorKind::Truncated {
                needed: self.config.header_bytes() as u64,
                available: rest.len() as u64,
            };
            return Err(self.stop(at(kind, None)));
        };
        if self.sample < records {
            let kind = if rest.is_empty() {
                DataErrorKind::MissingRecords {
                    expected: records,
                    found: self.sample,
                }
            } else {
                let needed = match self.config.check {
                    Check::None => measure::<K>(rest, &self.config),
                    Check::Sum => frame_len(rest, &self.config, K::WIDTH).map(|(n, _)| n),
                };
                let needed = match needed {
                    Err(Fail::Incomplete(n)) | Ok(n) => n,
                    _ => rest.len() + 1,
                };
                DataErrorKind::Truncated {
                    needed: needed as u64,
                    available: rest.len() as u64,
                }
            };
            let error = at(kind, Some(self.sample));
            if self.config.policy == ErrorPolicy::Stop {
                return Err(self.stop(error));
            }
            self.stats.skipped += records - self.sample;
            self.stats.first_skipped.get_or_insert(error);
            self.sample = records;
            self.offset += rest.len() as u64;
            return Ok(self.stats);
        }
        if !rest.is_empty() {
            let kind = DataErrorKind::TrailingBytes {
                count: rest.len() as u64,
            };
            return Err(self.stop(at(kind, None)));
        }
        Ok(self.stats)
    }

    /// Index of the next record (records decoded, skipped and passed over so far).
    pub fn position(&self) -> u64 {
        self.sample
    }

    /// Passes over up to `n` whole records at the start of `input` without decoding them,
    /// for a reader that owns only some of the stream's records (a cursor set's worker).
    /// Framed records are passed by their length alone (checking them is their owner's job);
    /// unframed ones by reading their `nnz` fields. Passed records are not counted in
    /// [`stats`](Self::stats). Status: [`BatchFull`](Status::BatchFull) once `n` records are
    /// passed, else as for [`decode`](Self::decode).
    pub fn pass_over(&mut self, input: &[u8], n: u64) -> Result<Progress, DataError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let (records, mut pos) = match self.ensure_header(input)? {
            Ok(r) => r,
            Err(needed) => {
                return Ok(Progress {
                    consumed: 0,
                    status: Status::NeedMore { needed },
                });
            }
        };
        let end = self.sample.saturating_add(n).min(records);
        let mut ahead = pos;
        while self.sample < end {
            let rest = &input[pos..];
            ahead = touch_ahead(input, pos, ahead);
            let len = match self.config.check {
                Check::None => measure::<K>(rest, &self.config),
                Check::Sum => frame_len(rest, &self.config, K::WIDTH).map(|(total, _)| total),
            };
            let (kind, at) = match len {
                Ok(len) if len <= rest.len() => {
                    pos += len;
                    self.offset += len as u64;
                    self.sample += 1;
                    continue;
                }
                Ok(needed) | Err(Fail::Incomplete(needed)) => {
                    return Ok(Progress {
                        consumed: pos,
                        status: Status::NeedMore { needed },
                    });
                }
                Err(Fail::Bad { kind, at, .. }) => (kind, at),
                // Measuring touches no batch, so this cannot happen; it would stop, not spin.
                Err(Fail::Full(e)) => (DataErrorKind::Batch(e), 0),
            };
            let e = DataError {
                kind,
                sample: Some(self.sample),
                offset: self.offset + at as u64,
            };
            return Err(self.stop(e));
        }
        let status = if self.sample >= records {
            Status::Done
        } else {
            Status::BatchFull
        };
        Ok(Progress {
            consumed: pos,
            status,
        })
    }

    /// The number of records and the bytes of `input` the header took (0 if read before), or
    /// the bytes the header needs.
    fn ensure_header(&mut self, input: &[u8]) -> Result<Result<(u64, usize), usize>, DataError> {
        if let Some(r) = self.records {
            return Ok(Ok((r, 0)));
        }
        let needed = self.config.header_bytes();
        if input.len() < needed {
            return Ok(Err(needed));
        }
        let r = self.header(input).inspect_err(|&e| self.failed = Some(e))?;
        self.records = Some(r);
        self.offset += needed as u64;
        Ok(Ok((r, needed)))
    }

    fn stop(&mut self, e: DataError) -> DataError {
        self.failed = Some(e);
        e
    }

    /// Reads and checks the header at the start of `input` (long enough for it).
    fn header(&self, input: &[u8]) -> Result<u64, DataError> {
        let at = |kind, offset| DataError {
            kind,
            sample: None,
            offset,
        };
        let payload = match self.config.check {
            Check::None => &input[..NormHeader::LEN],
            Check::Sum => {
                let len = read_i32(input, 0);
                if len != NormHeader::LEN as i32 {
                    let kind = DataErrorKind::FrameLength {
                        found: len.into(),
                        expected: NormHeader::LEN as u64,
                    };
                    return Err(at(kind, 0));
                }
                let payload = &input[4..4 + NormHeader::LEN];
                let stored = input[4 + NormHeader::LEN];
                let computed = checksum(payload);
                if stored != computed {
                    return Err(at(DataErrorKind::Checksum { stored, computed }, 0));
                }
                payload
            }
        };
        let offset = match self.config.check {
            Check::None => 0,
            Check::Sum => 4,
        };
        // Cannot fail: `payload` is exactly 64 bytes and the header has no alignment.
        let header = NormHeader::read_from_bytes(payload).map_err(|_| {
            at(
                DataErrorKind::Truncated {
                    needed: 64,
                    available: payload.len() as u64,
                },
                0,
            )
        })?;
        header.validate(&self.config, offset)
    }
}

#[inline(always)]
fn read_i32(bytes: &[u8], at: usize) -> i32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    i32::from_le_bytes(b)
}

/// The length and `nnz` checks of the slot whose `nnz` field starts at `p`.
#[inline(always)]
fn slot_nnz(bytes: &[u8], p: usize, slot: usize, max: u32) -> Result<u32, Fail> {
    if bytes.len() < p + 4 {
        return Err(Fail::Incomplete(p + 4));
    }
    let nnz = read_i32(bytes, p);
    let slot = u32::try_from(slot).unwrap_or(u32::MAX);
    let Ok(n) = u32::try_from(nnz) else {
        return Err(Fail::Bad {
            kind: DataErrorKind::NegativeNnz { slot, nnz },
            at: p,
            skip: None,
        });
    };
    if n > max {
        let kind = DataErrorKind::NnzTooLarge { slot, nnz: n, max };
        return Err(Fail::Bad {
            kind,
            at: p,
            skip: None,
        });
    }
    Ok(n)
}

/// Keys the fast path copies per slot in one fixed-size move (16 bytes for `u32`), whatever
/// the slot's `nnz`: copying exactly `nnz` keys compiled to a `memcpy` call per slot, 38 % of
/// decode time under `perf` (`BENCHMARKS.md`, Data path).
const CHUNK: usize = 4;

/// Decodes one unframed sample at the start of `bytes` into `batch`; returns its length.
///
/// With `exact`, the sample must fill `bytes` (a checksum frame's payload): a sample that
/// ends early is refused before it is added.
#[inline]
fn payload<K: Key>(
    bytes: &[u8],
    config: &NormConfig,
    batch: &mut SampleBatch<'_, K>,
    exact: bool,
) -> Result<usize, Fail> {
    match payload_fast(bytes, config, batch, exact) {
        Some(len) => Ok(len),
        None => payload_checked(bytes, config, batch, exact),
    }
}

/// The common case of [`payload`]: a well-formed sample, and room in the batch for the most
/// keys a sample can have plus a [`CHUNK`] of slack. Capacity is then checked once per
/// sample instead of once per slot, and each slot's keys are copied as one fixed-size chunk
/// into the free values (past the sample's end is scratch until committed). Anything else
/// (a bad or short sample, a nearly full batch) returns `None` having changed nothing, and
/// [`payload_checked`] decodes it and names the error.
#[inline]
fn payload_fast<K: Key>(
    bytes: &[u8],
    config: &NormConfig,
    batch: &mut SampleBatch<'_, K>,
    exact: bool,
) -> Option<usize> {
    let head = config.dims.label_dense() * 4;
    let max = config.max_nnz;
    let room = config
        .dims
        .slot_num
        .checked_mul(max as usize)?
        .checked_add(CHUNK)?;
    let head_bytes = bytes.get(..head)?;
    let mut w = batch.begin().ok()?;
    for (d, c) in w.label_dense().iter_mut().zip(head_bytes.chunks_exact(4)) {
        let mut b = [0u8; 4];
        b.copy_from_slice(c);
        *d = f32::from_le_bytes(b);
    }
    let (base, offsets, values) = w.spare_slots(room)?;
    // Every end offset of this sample is at most `base + room`: if that fits the key type,
    // the conversions below cannot fail.
    K::from_usize(base + room)?;
    let mut p = head;
    let mut k = 0;
    for end_offset in offsets.iter_mut() {
        let nnz = bytes.get(p..p + 4)?;
        // A negative `nnz` wraps above any `u32` maximum: one comparison refuses both.
        let n = u32::from_le_bytes([nnz[0], nnz[1], nnz[2], nnz[3]]);
        if n > max {
            return None;
        }
        let n = n as usize;
        let start = p + 4;
        // No overflow: n <= max_nnz (u32) and WIDTH <= 8.
        p = start + n * K::WIDTH;
        // In range: `k` is at most `room - CHUNK` before the last slot's keys.
        let dst = values.get_mut(k..k + CHUNK)?;
        match bytes.get(start..start + CHUNK * K::WIDTH) {
            Some(src) => copy_keys(dst, src),
            // The input ends within a chunk (the last sample, or a frame's last slot).
            None => copy_keys(dst, bytes.get(start..p)?),
        }
        if n > CHUNK {
            copy_keys(values.get_mut(k..k + n)?, bytes.get(start..p)?);
        }
        // `p <= bytes.len()` now: one of the copies above checked it.
        k += n;
        *end_offset = K::from_usize(base + k).unwrap_or_default();
    }
    if exact && p != bytes.len() {
        return None;
    }
    w.commit_spare_slots(k);
    w.finish().ok()?;
    Some(p)
}

/// Keys from their little-endian bytes, as many as both sides hold.
#[inline(always)]
fn copy_keys<K: Key>(dst: &mut [K], src: &[u8]) {
    for (d, c) in dst.iter_mut().zip(src.chunks_exact(K::WIDTH)) {
        *d = K::from_le_slice(c);
    }
}

/// [`payload`] one slot at a time, with every check where it applies: the path that names
/// errors.
fn payload_checked<K: Key>(
    bytes: &[u8],
    config: &NormConfig,
    batch: &mut SampleBatch<'_, K>,
    exact: bool,
) -> Result<usize, Fail> {
    let head = config.dims.label_dense() * 4;
    if bytes.len() < head {
        return Err(Fail::Incomplete(head));
    }
    let mut w = batch.begin().map_err(Fail::Full)?;
    for (d, c) in w
        .label_dense()
        .iter_mut()
        .zip(bytes[..head].chunks_exact(4))
    {
        let mut b = [0u8; 4];
        b.copy_from_slice(c);
        *d = f32::from_le_bytes(b);
    }
    let mut p = head;
    for slot in 0..config.dims.slot_num {
        let n = slot_nnz(bytes, p, slot, config.max_nnz)? as usize;
        let start = p + 4;
        // No overflow: n <= max_nnz (u32) and WIDTH <= 8.
        let end = start + n * K::WIDTH;
        if bytes.len() < end {
            return Err(Fail::Incomplete(end));
        }
        let dst = w.reserve_slot(n).map_err(Fail::Full)?;
        for (d, c) in dst.iter_mut().zip(bytes[start..end].chunks_exact(K::WIDTH)) {
            *d = K::from_le_slice(c);
        }
        w.commit_slot(n).map_err(Fail::Full)?;
        p = end;
    }
    if exact && p != bytes.len() {
        let kind = DataErrorKind::FrameLength {
            found: bytes.len() as i64,
            expected: p as u64,
        };
        return Err(Fail::Bad {
            kind,
            at: 0,
            skip: None,
        });
    }
    w.finish().map_err(Fail::Full)?;
    Ok(p)
}

/// The length of the unframed sample at the start of `bytes`, without decoding it or
/// checking `nnz` against the maximum (to skip a sample whose `nnz` is too large).
fn measure<K: Key>(bytes: &[u8], config: &NormConfig) -> Result<usize, Fail> {
    let mut p = config.dims.label_dense() * 4;
    for slot in 0..config.dims.slot_num {
        let n = slot_nnz(bytes, p, slot, u32::MAX)? as usize;
        p = (p + 4).saturating_add(n.saturating_mul(K::WIDTH));
    }
    if bytes.len() < p {
        Err(Fail::Incomplete(p))
    } else {
        Ok(p)
    }
}

/// The framed record at the start of `bytes`: (record length, payload length).
fn frame_len(bytes: &[u8], config: &NormConfig, width: usize) -> Result<(usize, usize), Fail> {
    if bytes.len() < 4 {
        return Err(Fail::Incomplete(4));
    }
    let len = read_i32(bytes, 0);
    let max = config.max_payload_bytes(width);
    match usize::try_from(len) {
        Ok(n) if n <= max => Ok((n + FRAME, n)),
        _ => {
            let kind = DataErrorKind::FrameLength {
                found: len.into(),
                expected: max as u64,
            };
            Err(Fail::Bad {
                kind,
                at: 0,
                skip: None,
            })
        }
    }
}

/// How far ahead of a framed pass [`touch_ahead`] reads: a few records, enough to cover
/// the latency of a miss to memory at the pace lengths are read.
const AHEAD: usize = 4096;

/// Reads one byte of every cache line from `touched` up to `pos + AHEAD`, and returns the
/// new end. Passing over records reads a chain of lengths (frame lengths, or `nnz`s), each
/// load waiting for the one before, so from memory a framed pass costs a full miss per
/// record; reads that no length depends on run in parallel and bring the lines in first (a
/// prefetch, without `unsafe`).
#[inline]
fn touch_ahead(input: &[u8], pos: usize, touched: usize) -> usize {
    let until = pos.saturating_add(AHEAD).min(input.len());
    let mut at = touched.max(pos);
    while at < until {
        core::hint::black_box(input[at]);
        at += 64;
    }
    at
}

/// Decodes one framed record at the start of `bytes`; returns its length.
///
/// One record at a time, although each frame's length says where the next record starts and
/// how many keys this one holds: two records decoded side by side (their `nnz` chains
/// interleaved in one slot loop; in git history, "norm: two-at-a-time decode") ran 0.74x and
/// 0.92x as fast on records of 1..=3 keys per slot, 0.89x and 0.75x on one-key records (two
/// runs, fastest passes over three alternated rounds each). The loop is bound by its work per slot (bounds checks, a key
/// chunk's load and store, an end offset's conversion and store: about twice the bare `nnz`
/// chain's time, `BENCHMARKS.md`), not by the chain's latency, and the pair adds work.
#[inline]
fn framed<K: Key>(
    bytes: &[u8],
    config: &NormConfig,
    batch: &mut SampleBatch<'_, K>,
) -> Result<usize, Fail> {
    let (total, len) = frame_len(bytes, config, K::WIDTH)?;
    if bytes.len() < total {
        return Err(Fail::Incomplete(total));
    }
    let body = &bytes[4..4 + len];
    let stored = bytes[4 + len];
    let computed = checksum(body);
    let skip = Some(total);
    if stored != computed {
        let kind = DataErrorKind::Checksum { stored, computed };
        return Err(Fail::Bad { kind, at: 0, skip });
    }
    match payload(body, config, batch, true) {
        Ok(_) => Ok(total),
        Err(Fail::Incomplete(n)) => {
            let kind = DataErrorKind::FrameLength {
                found: len as i64,
                expected: n as u64,
            };
            Err(Fail::Bad { kind, at: 0, skip })
        }
        Err(Fail::Bad {
            kind: kind @ DataErrorKind::FrameLength { .. },
            ..
        }) => Err(Fail::Bad { kind, at: 0, skip }),
        Err(Fail::Bad { kind, at, .. }) => Err(Fail::Bad {
            kind,
            at: at + 4,
            skip,
        }),
        Err(full @ Fail::Full(_)) => Err(full),
    }
}

#[cfg(test)]
mod tests;
