//! Writing TFLite string tensors into caller buffers: size the buffer with
//! [`tflite_encoded_len`], then [`encode_tflite`] writes count, offsets and bytes.

use super::error::{StringTensorError, TfliteEncodeError};
use crate::error::CapacityError;

/// Size of the `int32 N` count, and of each offset-table entry.
const WORD: usize = 4;

/// The longest tensor: every offset, the last being the length, must fit an `i32`.
const MAX_LEN: usize = if usize::BITS > 31 {
    i32::MAX as usize
} else {
    usize::MAX
};

/// Byte position of offset-table entry `i` (`4 + 4 * i`), saturating.
fn table_byte(i: usize) -> usize {
    i.saturating_mul(WORD).saturating_add(WORD)
}

/// The number of strings and the encoded length of a tensor holding them, or the index of the
/// first string that takes the length past [`MAX_LEN`].
fn measure<I, B>(strings: I) -> Result<(usize, usize), usize>
where
    I: IntoIterator<Item = B>,
    B: AsRef<[u8]>,
{
    let mut count = 0;
    // The count and offset[N]; each string adds its own offset and its bytes.
    let mut total = 2 * WORD;
    for (index, s) in strings.into_iter().enumerate() {
        total = total
            .checked_add(WORD)
            .and_then(|t| t.checked_add(s.as_ref().len()))
            .filter(|&t| t <= MAX_LEN)
            .ok_or(index)?;
        // Cannot overflow: each string took at least 4 of the at most `usize::MAX` bytes.
        count = index + 1;
    }
    Ok((count, total))
}

/// Bytes needed to encode `strings` as a TFLite string tensor: `4 * (N + 2)` plus the sum of
/// the string lengths.
///
/// # Errors
/// [`StringTensorError::TooLarge`] if the tensor would be longer than `i32::MAX` bytes, the
/// largest offset the format can hold.
///
/// # Example
/// ```
/// use tessera_core::strings::tflite_encoded_len;
///
/// assert_eq!(tflite_encoded_len(["AB", "", "CDE"]), Ok(25));
/// assert_eq!(tflite_encoded_len::<[&str; 0], &str>([]), Ok(8));
/// ```
pub fn tflite_encoded_len<I, B>(strings: I) -> Result<usize, StringTensorError>
where
    I: IntoIterator<Item = B>,
    B: AsRef<[u8]>,
{
    measure(strings)
        .map(|(_, len)| len)
        .map_err(|index| StringTensorError::TooLarge { index })
}

/// Encodes `strings` as a TFLite string tensor at the start of `out`; returns the bytes
/// written, which is [`tflite_encoded_len`]`(strings)`.
///
/// `strings` must be `Clone` (slices, arrays, `Vec`s and their iterators are). When its
/// iterator knows its exact length (`size_hint`), as those do, the tensor is written in one
/// walk, checking the room left before each string. Otherwise, or if that walk does not fit,
/// `strings` is measured first and walked again to write. On success nothing is written past
/// the returned length; on error `out` may hold part of a tensor, which is not a valid one.
///
/// # Errors
/// - [`TfliteEncodeError::TooLarge`] if the tensor would be longer than `i32::MAX` bytes.
/// - [`TfliteEncodeError::Capacity`] if `out` is shorter than the tensor, with the exact size
///   needed.
///
/// If cloning `strings` does not give the same sequence each time (a misbehaving `Clone`), the
/// result is either a tensor of one of the sequences or [`TfliteEncodeError::Capacity`] comparing
/// what the last walk needed with what the walk before it measured. Nothing panics either way,
/// and nothing is written past `out`.
///
/// # Example
/// ```
/// use tessera_core::CapacityError;
/// use tessera_core::strings::{TfliteEncodeError, encode_tflite};
///
/// let mut buf = [0u8; 32];
/// let used = encode_tflite(["AB", "", "CDE"], &mut buf)?;
/// assert_eq!(used, 25);
/// assert_eq!(&buf[..8], &[3, 0, 0, 0, 20, 0, 0, 0]);
/// assert_eq!(&buf[20..25], b"ABCDE");
///
/// let mut small = [0u8; 10];
/// assert_eq!(
///     encode_tflite(["AB", "", "CDE"], &mut small),
///     Err(TfliteEncodeError::Capacity(CapacityError { needed: 25, available: 10 })),
/// );
/// # Ok::<(), TfliteEncodeError>(())
/// ```
pub fn encode_tflite<I, B>(strings: I, out: &mut [u8]) -> Result<usize, TfliteEncodeError>
where
    I: IntoIterator<Item = B> + Clone,
    B: AsRef<[u8]>,
{
    let walk = strings.clone().into_iter();
    if let (lower, Some(upper)) = walk.size_hint() {
        if lower == upper {
            if let Ok(written) = write_tensor(walk, lower, out) {
                return Ok(written);
            }
        }
    }
    // The count is unknown, or the tensor did not fit (or the hint was wrong): measure, so
    // that the error says exactly what is needed.
    let (count, needed) =
        measure(strings.clone()).map_err(|index| TfliteEncodeError::TooLarge { index })?;
    let available = out.len();
    let out = out
        .get_mut(..needed)
        .ok_or(TfliteEncodeError::Capacity(CapacityError {
            needed,
            available,
        }))?;
    write_tensor(strings.into_iter(), count, out).map_err(|second| {
        TfliteEncodeError::Capacity(CapacityError {
            needed: second,
            available: needed,
        })
    })
}

/// Writes a tensor of `count` strings, the first `count` items of `strings`, into `out`; the
/// bytes written, or (if `strings` has another length or the tensor does not fit in `out` or
/// in `i32` offsets) the encoded length of this walk of `strings`, saturating.
///
/// Every write lands in `out` through split slices, so a wrong `count` can neither panic nor
/// write past `out`.
fn write_tensor<I, B>(mut strings: I, count: usize, out: &mut [u8]) -> Result<usize, usize>
where
    I: Iterator<Item = B>,
    B: AsRef<[u8]>,
{
    let table_end = table_byte(count.saturating_add(1));
    let limit = out.len().min(MAX_LEN);
    let Some((head, data)) = out[..limit].split_at_mut_checked(table_end) else {
        return Err(walk_len(0, 0, strings));
    };
    let Some((count_word, table)) = head.split_first_chunk_mut::<WORD>() else {
        return Err(walk_len(0, 0, strings));
    };
    let Some((slots, last)) = table.split_last_chunk_mut::<WORD>() else {
        return Err(walk_len(0, 0, strings));
    };
    let mut slots = slots.chunks_exact_mut(WORD);
    // Bytes of `data` used; `table_end + used <= limit <= MAX_LEN`, so offsets fit an `i32`.
    let mut used = 0;
    let mut walked = 0;
    // Slots first: once they run out, `zip` stops without taking a string from the walk.
    for (slot, s) in (&mut slots).zip(strings.by_ref()) {
        let s = s.as_ref();
        // Cannot overflow: both are sizes of objects in memory, at most `isize::MAX` each.
        let end = used + s.len();
        let Some(dst) = data.get_mut(used..end) else {
            return Err(walk_len(walked + 1, end, strings));
        };
        slot.copy_from_slice(&((table_end + used) as u32).to_le_bytes());
        copy_bytes(dst, s);
        used = end;
        walked += 1;
    }
    match (walked == count, strings.next(), i32::try_from(count)) {
        (true, None, Ok(n)) => {
            *count_word = n.to_le_bytes();
            *last = ((table_end + used) as u32).to_le_bytes();
            Ok(table_end + used)
        }
        // A walk shorter or longer than `count`.
        (_, extra, _) => {
            let (more, bytes) = extra.map_or((0, 0), |s| (1, s.as_ref().len()));
            Err(walk_len(walked + more, used + bytes, strings))
        }
    }
}

/// The encoded length of a walk that has seen `walked` strings of `data` bytes and has `rest`
/// to go, saturating at `usize::MAX`.
#[cold]
fn walk_len<I, B>(walked: usize, data: usize, rest: I) -> usize
where
    I: Iterator<Item = B>,
    B: AsRef<[u8]>,
{
    let (walked, data) = rest.fold((walked, data), |(n, d), s| {
        (n.saturating_add(1), d.saturating_add(s.as_ref().len()))
    });
    table_byte(walked.saturating_add(1)).saturating_add(data)
}

/// Copies `src` into `dst` (same length). Short strings, the common case in string tensors,
/// are copied with two overlapping fixed-size moves instead of a call to `memcpy` (whose call
/// and dispatch cost more than the copy).
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    debug_assert_eq!(n, dst.len());
    if n != dst.len() {
        // Unreachable (callers split `dst` to `src.len()`); lets the compiler drop the bounds
        // checks below.
        return;
    }
    if n > 64 {
        dst.copy_from_slice(src);
    } else if n >= 32 {
        move_ends::<32>(dst, src);
    } else if n >= 16 {
        move_ends::<16>(dst, src);
    } else if n >= 8 {
        move_ends::<8>(dst, src);
    } else if n >= 4 {
        move_ends::<4>(dst, src);
    } else if n > 0 {
        // First, middle and last byte: all of 1 to 3 bytes.
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/// Copies `src` into `dst` (same length, `K..=2 * K` bytes) as its first and its last `K`
/// bytes.
#[inline(always)]
fn move_ends<const K: usize>(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if let (Some(d), Some(s)) = (dst.first_chunk_mut::<K>(), src.first_chunk::<K>()) {
        *d = *s;
    }
    if let (Some(d), Some(s)) = (dst.last_chunk_mut::<K>(), src.last_chunk::<K>()) {
        *d = *s;
    }
    debug_assert!((K..=2 * K).contains(&n));
}

#[cfg(test)]
mod tests;
