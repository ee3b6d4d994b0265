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
/// committed. Each slot copies a fixed [`CHUNK`] of keys, spilling past its own; the first
/// record's last slots, whose spill would cover the second's first keys, copy exactly.
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
    let max = config.max_nnz;
    // Both chains read positions in the whole input (a record read past its own body fails
    // the length check after the loop), so a chunk of keys rarely lacks bytes to copy.
    let (end_a, end_b) = (a.total - 1, a.total + b.total - 1);
    let start_b = a.total + 4 + head;
    let ends = Ends {
        base,
        a: offsets_a,
        b: offsets_b,
    };
    let (pa, pb, ja) = both_slots(bytes, max, keys, ends, 4 + head, start_b, a.keys)?;
    if pa != end_a || pb != end_b || ja != a.keys {
        return None;
    }
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

/// Where the two records' end offsets go, and the value count before them.
struct Ends<'o, K> {
    base: usize,
    a: &'o mut [K],
    b: &'o mut [K],
}

/// The interleaved slot loop: the first record's slots from byte `pa` with keys from 0, the
/// second's from `pb` with keys from `jb`. Returns where each ended and the first's keys.
///
/// Not inlined: alone it keeps both chains' positions in registers; inlined into the decode
/// loop they were spilled to the stack, and each step waited on a store and a reload.
#[inline(never)]
fn both_slots<K: Key>(
    bytes: &[u8],
    max: u32,
    keys: &mut [K],
    ends: Ends<'_, K>,
    mut pa: usize,
    mut pb: usize,
    mut jb: usize,
) -> Option<(usize, usize, usize)> {
    let mut ja = 0;
    // The first record's keys end where the second's begin: its last slots copy exactly.
    let exact_a = jb;
    for (oa, ob) in ends.a.iter_mut().zip(ends.b.iter_mut()) {
        ja = slot(bytes, &mut pa, max, keys, ja, exact_a)?;
        jb = slot(bytes, &mut pb, max, keys, jb, usize::MAX)?;
        *oa = K::from_usize(ends.base + ja).unwrap_or_default();
        *ob = K::from_usize(ends.base + jb).unwrap_or_default();
    }
    Some((pa, pb, ja))
}

/// The `nnz` at `p`, as `u32` (a negative one wraps above any maximum).
#[inline(always)]
fn read_nnz(bytes: &[u8], p: usize) -> Option<u32> {
    let nnz = bytes.get(p..p + 4)?;
    Some(u32::from_le_bytes([nnz[0], nnz[1], nnz[2], nnz[3]]))
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

/// The slot whose `nnz` is at `*p` in `bytes`: copies its keys to `keys[j..]` (a whole
/// [`CHUNK`] at least, spilling past the slot), moves `*p` past it, and returns the new key
/// count; `None` if `nnz` is negative or above `max`, or `bytes` or `keys` ends too soon.
/// A chunk that would reach `limit` or past it copies exactly `nnz` keys instead.
#[inline(always)]
fn slot<K: Key>(
    bytes: &[u8],
    p: &mut usize,
    max: u32,
    keys: &mut [K],
    j: usize,
    limit: usize,
) -> Option<usize> {
    let n = read_nnz(bytes, *p)?;
    if n > max {
        return None;
    }
    let n = n as usize;
    let start = *p + 4;
    // No overflow: `keys` holds two records of `max` keys per slot, so `max * WIDTH` is at
    // most half of `isize::MAX`, and `start` is within `bytes`.
    let end = start + n * K::WIDTH;
    if j + CHUNK > limit {
        let src = bytes.get(start..end)?;
        let dst = keys.get_mut(j..j + n)?;
        // Fixed lengths, so that no `memcpy` call is made for a few keys.
        match n {
            1 => copy_keys(dst.get_mut(..1)?, src.get(..K::WIDTH)?),
            2 => copy_keys(dst.get_mut(..2)?, src.get(..2 * K::WIDTH)?),
            3 => copy_keys(dst.get_mut(..3)?, src.get(..3 * K::WIDTH)?),
            _ => copy_keys(dst, src),
        }
        *p = end;
        return Some(j + n);
    }
    let dst = keys.get_mut(j..j + CHUNK)?;
    match bytes.get(start..start + CHUNK * K::WIDTH) {
        Some(src) => copy_keys(dst, src),
        // The input ends within a chunk (the stream's last slot).
        None => copy_keys(dst, bytes.get(start..end)?),
    }
    if n > CHUNK {
        copy_keys(keys.get_mut(j..j + n)?, bytes.get(start..end)?);
    }
    *p = end;
    Some(j + n)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::data::batch::Dims;
    use crate::data::norm::{Check, NormEncoder};

    /// Records of `slots` slots with the given key counts, checksummed, header left out.
    fn records(dims: Dims, counts: &[&[usize]]) -> Vec<u8> {
        let config = NormConfig::new(dims, 3).with_check(Check::Sum);
        let enc = NormEncoder::<u32>::new(config);
        let mut out = Vec::new();
        for (r, counts) in counts.iter().enumerate() {
            let keys: Vec<Vec<u32>> = counts
                .iter()
                .enumerate()
                .map(|(s, &n)| {
                    (0..n as u32)
                        .map(|k| 1000 * r as u32 + 10 * s as u32 + k)
                        .collect()
                })
                .collect();
            let slots: Vec<&[u32]> = keys.iter().map(Vec::as_slice).collect();
            let ld = vec![r as f32; dims.label_dense()];
            let mut buf = vec![0u8; config.max_record_bytes(4)];
            let n = enc
                .sample(
                    &ld[..dims.label_dim],
                    &ld[dims.label_dim..],
                    &slots,
                    &mut buf,
                )
                .unwrap();
            out.extend_from_slice(&buf[..n]);
        }
        out
    }

    #[test]
    fn a_good_pair_is_decoded_together_and_the_spill_is_undone() {
        // The first record ends in empty slots, so its chunks spill over the second's first
        // keys, which come in one-key slots.
        let dims = Dims::new(1, 1, 4);
        let config = NormConfig::new(dims, 3).with_check(Check::Sum);
        let bytes = records(dims, &[&[3, 1, 0, 0], &[1, 1, 2, 0]]);
        let (mut ld, mut off, mut val) = ([0f32; 4], [0u32; 9], [0u32; 64]);
        let mut batch = SampleBatch::new(dims, &mut ld, &mut off, &mut val).unwrap();
        assert!(matches!(
            framed_pair(&bytes, &config, &mut batch),
            Pair::Two(a, b) if a + b == bytes.len()
        ));
        assert_eq!(batch.samples(), 2);
        assert_eq!(batch.csr().row_offsets(), &[0, 3, 4, 4, 4, 5, 6, 8, 8]);
        assert_eq!(batch.csr().values(), &[0, 1, 2, 10, 1000, 1010, 1020, 1021]);
        assert_eq!(batch.label_dense(), &[0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn no_pair_without_room_for_two() {
        let dims = Dims::new(1, 1, 4);
        let config = NormConfig::new(dims, 3).with_check(Check::Sum);
        let bytes = records(dims, &[&[3, 1, 0, 0], &[1, 1, 2, 0]]);
        // Room for two samples' rows, not for the keys of two full ones plus slack.
        let (mut ld, mut off, mut val) = ([0f32; 4], [0u32; 9], [0u32; 16]);
        let mut batch = SampleBatch::new(dims, &mut ld, &mut off, &mut val).unwrap();
        assert!(matches!(
            framed_pair(&bytes, &config, &mut batch),
            Pair::None
        ));
        assert_eq!(batch.samples(), 0);
        // One sample's rows only.
        let (mut ld, mut off, mut val) = ([0f32; 2], [0u32; 5], [0u32; 64]);
        let mut batch = SampleBatch::new(dims, &mut ld, &mut off, &mut val).unwrap();
        assert!(matches!(
            framed_pair(&bytes, &config, &mut batch),
            Pair::None
        ));
    }

    #[test]
    fn criteo_shaped_records_pair() {
        let dims = Dims::new(1, 13, 26);
        let config = NormConfig::new(dims, 3).with_check(Check::Sum);
        let counts: Vec<Vec<usize>> = (0..8)
            .map(|r| (0..26).map(|s| 1 + (r * 7 + s * 3) % 3).collect())
            .collect();
        let refs: Vec<&[usize]> = counts.iter().map(Vec::as_slice).collect();
        let bytes = records(dims, &refs);
        let (ld, off, val) = dims.buffer_lens(8, 8 * 26 * 3).unwrap();
        let (mut ld, mut off, mut val) = (vec![0f32; ld], vec![0u32; off], vec![0u32; val]);
        let mut batch = SampleBatch::new(dims, &mut ld, &mut off, &mut val).unwrap();
        let mut pos = 0;
        while let Pair::Two(a, b) = framed_pair(&bytes[pos..], &config, &mut batch) {
            pos += a + b;
        }
        assert_eq!((pos, batch.samples()), (bytes.len(), 8));
    }
}
