//! Two checksummed records decoded side by side: each frame's length says where the next
//! record starts and how many keys this one holds, so both parses can run at once.
//!
//! One record's parse is a chain of dependent loads (each slot's `nnz` says where the next
//! slot starts); two records give two independent chains the core can overlap. This is only
//! a fast path: it takes the pair when both records are good and fit, and otherwise changes
//! nothing, so [`framed`](super::framed) decodes (or names the fault of) the first alone.

use super::{CHUNK, copy_keys, frame_len};
use crate::data::batch::SampleBatch;
use crate::data::key::Key;
use crate::data::norm::{NormConfig, checksum};

/// What [`framed_pair`] decoded.
pub(super) enum Pair {
    /// Both records, of these lengths (frames included).
    Two(usize, usize),
    /// Only the first, of this length: the batch refused the second after the first was in
    /// (not expected: the room for both is checked first).
    One(usize),
    /// Nothing; the batch is as it was.
    None,
}

/// One checked frame: its body and the keys it must hold if well formed.
struct Frame<'b> {
    body: &'b [u8],
    /// Record length, frame included.
    total: usize,
    keys: usize,
}

/// The framed record at the start of `bytes`, if complete, with a good checksum and a length
/// that a sample of `fixed` bytes plus whole keys can have.
#[inline(always)]
fn frame<'b, K: Key>(bytes: &'b [u8], config: &NormConfig, fixed: usize) -> Option<Frame<'b>> {
    let (total, len) = frame_len(bytes, config, K::WIDTH).ok()?;
    let record = bytes.get(..total)?;
    let body = record.get(4..4 + len)?;
    let key_bytes = len.checked_sub(fixed)?;
    if key_bytes % K::WIDTH != 0 {
        return None;
    }
    let stored = *record.last()?;
    if checksum(body) != stored {
        return None;
    }
    Some(Frame {
        body,
        total,
        keys: key_bytes / K::WIDTH,
    })
}

/// Decodes the two framed records at the start of `bytes` into `batch`, interleaving their
/// slot loops; anything [`framed`](super::framed) would not decode the same way (a bad,
/// short or incomplete record, a batch without room for both plus slack) gives
/// [`Pair::None`] with `batch` unchanged.
///
/// The first record's keys go where [`payload_fast`](super::payload_fast) would put them;
/// the second's start right after, at the key count its frame length implies (a well-formed
/// body is `fixed + keys * WIDTH` bytes, and both bodies are checked to be parsed exactly).
/// The second's end offsets are kept in free values past both records until the first is
/// committed. Each slot copies a fixed [`CHUNK`] of keys, so the first record's last slots
/// spill up to `CHUNK` keys over the second's first ones; those are kept aside and put back.
#[inline]
pub(super) fn framed_pair<K: Key>(
    bytes: &[u8],
    config: &NormConfig,
    batch: &mut SampleBatch<'_, K>,
) -> Pair {
    match decode_pair(bytes, config, batch) {
        Some(Ok((a, b))) => Pair::Two(a, b),
        Some(Err(a)) => Pair::One(a),
        None => Pair::None,
    }
}

/// [`framed_pair`]: `Some(Ok)` both, `Some(Err(len))` the first only, `None` nothing.
#[inline(always)]
fn decode_pair<K: Key>(
    bytes: &[u8],
    config: &NormConfig,
    batch: &mut SampleBatch<'_, K>,
) -> Option<Result<(usize, usize), usize>> {
    let slots = config.dims.slot_num;
    if batch.capacity().checked_sub(batch.samples())? < 2 {
        return None;
    }
    let head = config.dims.label_dense().checked_mul(4)?;
    let fixed = slots.checked_mul(4)?.checked_add(head)?;
    // Both records' most keys, a chunk of slack, then the second's end offsets.
    let keys_room = slots
        .checked_mul(config.max_nnz as usize)?
        .checked_mul(2)?
        .checked_add(CHUNK)?;
    let room = keys_room.checked_add(slots)?;
    let a = frame::<K>(bytes, config, fixed)?;
    let b = frame::<K>(bytes.get(a.total..)?, config, fixed)?;

    let mut wa = batch.begin().ok()?;
    let (base, offsets_a, values) = wa.spare_slots(room)?;
    // Every end offset of both samples is at most `base + keys_room`: if that fits the key
    // type, the conversions below cannot fail.
    K::from_usize(base + keys_room)?;
    let (keys, offsets_b) = values.split_at_mut(keys_room);
    let offsets_b = offsets_b.get_mut(..slots)?;
    // The second record's first keys, safe from the first's spill: index `j - a.keys`.
    let mut first_b = [K::default(); 2 * CHUNK];
    let max = config.max_nnz;
    let (mut pa, mut pb) = (head, head);
    let (mut ja, mut jb) = (0, a.keys);
    for (end_a, end_b) in offsets_a.iter_mut().zip(offsets_b.iter_mut()) {
        ja = slot(a.body, &mut pa, max, keys, ja)?;
        *end_a = K::from_usize(base + ja).unwrap_or_default();
        let start = jb;
        jb = slot(b.body, &mut pb, max, keys, jb)?;
        *end_b = K::from_usize(base + jb).unwrap_or_default();
        let at = start - a.keys;
        if at < CHUNK {
            // The chunk just written, before a later spill of the first record covers it.
            first_b
                .get_mut(at..at + CHUNK)?
                .copy_from_slice(keys.get(start..start + CHUNK)?);
        }
    }
    if pa != a.body.len() || pb != b.body.len() || ja != a.keys {
        return None;
    }
    // Past the second record's keys this writes scratch, so a whole chunk can go.
    keys.get_mut(a.keys..a.keys + CHUNK)?
        .copy_from_slice(first_b.get(..CHUNK)?);
    let ld = wa.label_dense();
    read_head(ld, a.body);
    wa.commit_spare_slots(a.keys);
    wa.finish().ok()?;

    let second = |batch: &mut SampleBatch<'_, K>| -> Option<()> {
        let mut wb = batch.begin().ok()?;
        read_head(wb.label_dense(), b.body);
        let (base_b, offsets, values) = wb.spare_slots(0)?;
        if base_b != base + a.keys {
            return None;
        }
        let at = keys_room.checked_sub(a.keys)?;
        offsets.copy_from_slice(values.get(at..at + slots)?);
        wb.commit_spare_slots(b.keys);
        wb.finish().ok()
    };
    Some(match second(batch) {
        Some(()) => Ok((a.total, b.total)),
        None => Err(a.total),
    })
}

/// Labels and dense features from the first `4 * ld.len()` bytes of `body`.
#[inline(always)]
fn read_head(ld: &mut [f32], body: &[u8]) {
    for (d, c) in ld.iter_mut().zip(body.chunks_exact(4)) {
        let mut b = [0u8; 4];
        b.copy_from_slice(c);
        *d = f32::from_le_bytes(b);
    }
}

/// The slot whose `nnz` is at `*p` in `body`: copies its keys to `keys[j..]` (a whole
/// [`CHUNK`] at least, spilling past the slot), moves `*p` past it, and returns the new key
/// count; `None` if `nnz` is negative or above `max`, or the body or `keys` ends too soon.
#[inline(always)]
fn slot<K: Key>(body: &[u8], p: &mut usize, max: u32, keys: &mut [K], j: usize) -> Option<usize> {
    let nnz = body.get(*p..*p + 4)?;
    // A negative `nnz` wraps above any `u32` maximum: one comparison refuses both.
    let n = u32::from_le_bytes([nnz[0], nnz[1], nnz[2], nnz[3]]);
    if n > max {
        return None;
    }
    let n = n as usize;
    let start = *p + 4;
    // No overflow: n <= max_nnz (u32) and WIDTH <= 8.
    let end = start + n * K::WIDTH;
    let dst = keys.get_mut(j..j + CHUNK)?;
    match body.get(start..start + CHUNK * K::WIDTH) {
        Some(src) => copy_keys(dst, src),
        // The body ends within a chunk (its last slot).
        None => copy_keys(dst, body.get(start..end)?),
    }
    if n > CHUNK {
        copy_keys(keys.get_mut(j..j + n)?, body.get(start..end)?);
    }
    *p = end;
    Some(j + n)
}
