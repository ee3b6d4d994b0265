//! Writing TFLite string tensors into caller buffers: size the buffer with
//! [`tflite_encoded_len`], then [`encode_tflite`] writes count, offsets and bytes.

use super::error::{EncodeError, StringTensorError};
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

/// Writes `value` as a little-endian `i32` at byte `at`; `false` if it is not an `i32` or does
/// not fit in `out`.
fn put_word(out: &mut [u8], at: usize, value: usize) -> bool {
    let Ok(value) = i32::try_from(value) else {
        return false;
    };
    match out
        .get_mut(at..)
        .and_then(|rest| rest.first_chunk_mut::<WORD>())
    {
        Some(word) => {
            *word = value.to_le_bytes();
            true
        }
        None => false,
    }
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
/// `strings` is walked twice, once to size the tensor and once to write it, so it must be
/// `Clone` (slices, arrays, `Vec`s and their iterators are). Nothing is written past the
/// returned length, and on error nothing is written at all.
///
/// # Errors
/// - [`EncodeError::TooLarge`] if the tensor would be longer than `i32::MAX` bytes.
/// - [`EncodeError::Capacity`] if `out` is shorter than the tensor, with the exact size needed.
///
/// If cloning `strings` does not give the same sequence twice (a misbehaving `Clone`), the
/// result is [`EncodeError::Capacity`] comparing what the second walk needed with what the first
/// one reserved, and `out[..reserved]` holds unspecified bytes. Nothing panics either way.
///
/// # Example
/// ```
/// use tessera_core::CapacityError;
/// use tessera_core::strings::{EncodeError, encode_tflite};
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
///     Err(EncodeError::Capacity(CapacityError { needed: 25, available: 10 })),
/// );
/// # Ok::<(), EncodeError>(())
/// ```
pub fn encode_tflite<I, B>(strings: I, out: &mut [u8]) -> Result<usize, EncodeError>
where
    I: IntoIterator<Item = B> + Clone,
    B: AsRef<[u8]>,
{
    let (count, needed) =
        measure(strings.clone()).map_err(|index| EncodeError::TooLarge { index })?;
    let available = out.len();
    let out = out
        .get_mut(..needed)
        .ok_or(EncodeError::Capacity(CapacityError { needed, available }))?;

    // From here every write lands in `out[..needed]` through split slices, so even a second
    // walk that disagrees with the first cannot write past `needed` or panic.
    let table_end = table_byte(count.saturating_add(1));
    let (head, mut rest) = out.split_at_mut(table_end.min(needed));
    let (count_word, table) = head.split_at_mut(WORD.min(head.len()));
    let mut slots = table.chunks_exact_mut(WORD);
    let mut ok = put_word(count_word, 0, count);
    let mut pos = table_end;
    let mut seen: usize = 0;
    let mut data: usize = 0;
    for s in strings {
        let s = s.as_ref();
        seen = seen.saturating_add(1);
        data = data.saturating_add(s.len());
        if !ok {
            continue;
        }
        match slots.next() {
            // `pos <= needed <= i32::MAX` (checked by `measure`), so the cast is exact.
            Some(slot) if s.len() <= rest.len() => {
                slot.copy_from_slice(&(pos as u32).to_le_bytes());
                let (dst, tail) = core::mem::take(&mut rest).split_at_mut(s.len());
                copy_bytes(dst, s);
                rest = tail;
                pos += s.len();
            }
            _ => ok = false,
        }
    }
    let last = slots.next();
    if let (true, Some(slot), None, true) = (ok, last, slots.next(), rest.is_empty()) {
        slot.copy_from_slice(&(pos as u32).to_le_bytes());
        Ok(needed)
    } else {
        let second = table_byte(seen.saturating_add(1)).saturating_add(data);
        Err(EncodeError::Capacity(CapacityError {
            needed: second,
            available: needed,
        }))
    }
}

/// Copies `src` into `dst` (same length). Short strings, the common case in string tensors,
/// are copied with two overlapping fixed-size moves instead of a call to `memcpy`.
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    debug_assert_eq!(n, dst.len());
    if n != dst.len() {
        // Unreachable (callers split `dst` to `src.len()`); lets the compiler drop the bounds
        // checks below.
        return;
    }
    if n > 32 {
        dst.copy_from_slice(src);
    } else if n >= 16 {
        dst[..16].copy_from_slice(&src[..16]);
        dst[n - 16..].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..].copy_from_slice(&src[n - 4..]);
    } else {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use core::cell::Cell;
    use std::vec;
    use std::vec::Vec;

    use super::super::EXAMPLE;
    use super::*;

    #[test]
    fn encodes_the_example_exactly() {
        let words: [&[u8]; 3] = [b"AB", b"", b"CDE"];
        assert_eq!(tflite_encoded_len(words), Ok(25));
        let mut buf = [0u8; 25];
        assert_eq!(encode_tflite(words, &mut buf), Ok(25));
        assert_eq!(buf, EXAMPLE);
        // Other shapes of input encode the same.
        let mut buf = [0u8; 25];
        assert_eq!(encode_tflite(&["AB", "", "CDE"], &mut buf), Ok(25));
        assert_eq!(buf, EXAMPLE);
        let owned: Vec<Vec<u8>> = vec![b"AB".to_vec(), vec![], b"CDE".to_vec()];
        let mut buf = [0u8; 25];
        assert_eq!(encode_tflite(&owned, &mut buf), Ok(25));
        assert_eq!(buf, EXAMPLE);
        let mut buf = [0u8; 25];
        assert_eq!(
            encode_tflite(owned.iter().map(Vec::as_slice), &mut buf),
            Ok(25)
        );
        assert_eq!(buf, EXAMPLE);
    }

    #[test]
    fn encodes_the_empty_tensor() {
        let none: [&[u8]; 0] = [];
        assert_eq!(tflite_encoded_len(none), Ok(8));
        let mut buf = [0xAAu8; 8];
        assert_eq!(encode_tflite(none, &mut buf), Ok(8));
        assert_eq!(buf, [0, 0, 0, 0, 8, 0, 0, 0]);
    }

    #[test]
    fn writes_nothing_past_the_returned_length() {
        let mut buf = [0xAAu8; 40];
        assert_eq!(encode_tflite(["AB", "", "CDE"], &mut buf), Ok(25));
        assert_eq!(buf[..25], EXAMPLE);
        assert!(buf[25..].iter().all(|&b| b == 0xAA));
    }

    #[test]
    fn too_small_writes_nothing() {
        for available in 0..25 {
            let mut buf = vec![0xAAu8; available];
            assert_eq!(
                encode_tflite(["AB", "", "CDE"], &mut buf),
                Err(EncodeError::Capacity(CapacityError {
                    needed: 25,
                    available
                }))
            );
            assert!(buf.iter().all(|&b| b == 0xAA));
        }
    }

    /// The offsets are `i32`: a tensor may be `i32::MAX` bytes long, not one more. The big
    /// string is calloc'ed and never touched, so this costs no real memory.
    #[test]
    #[cfg(all(not(miri), target_pointer_width = "64"))]
    fn too_large() {
        let max = i32::MAX as usize;
        let big = vec![0u8; max - 12 + 1];
        let fits = &big[..max - 12];
        assert_eq!(tflite_encoded_len([fits]), Ok(max));
        assert_eq!(
            tflite_encoded_len([&big[..]]),
            Err(StringTensorError::TooLarge { index: 0 })
        );
        assert_eq!(
            tflite_encoded_len([&b"a"[..], b"b", &big[..max - 20]]),
            Err(StringTensorError::TooLarge { index: 2 })
        );
        let mut small = [0xAAu8; 8];
        assert_eq!(
            encode_tflite([&b""[..], &big[..]], &mut small),
            Err(EncodeError::TooLarge { index: 1 })
        );
        assert_eq!(
            encode_tflite([fits], &mut small),
            Err(EncodeError::Capacity(CapacityError {
                needed: max,
                available: 8
            }))
        );
        assert!(small.iter().all(|&b| b == 0xAA));
    }

    /// A `Clone` that yields a different sequence on each walk.
    #[derive(Clone)]
    struct Fickle<'c> {
        walks: &'c Cell<usize>,
        seqs: &'c [&'c [&'c [u8]]],
    }

    impl<'c> IntoIterator for Fickle<'c> {
        type Item = &'c [u8];
        type IntoIter = core::iter::Copied<core::slice::Iter<'c, &'c [u8]>>;

        fn into_iter(self) -> Self::IntoIter {
            let walk = self.walks.get();
            self.walks.set(walk + 1);
            self.seqs[walk % self.seqs.len()].iter().copied()
        }
    }

    #[test]
    fn fickle_clone_neither_panics_nor_overruns() {
        let cases: [&[&[u8]]; 6] = [
            &[b"AB", b"", b"CDE"],
            &[b"AB", b"CDE"],
            &[b"AB", b"", b"CDE", b""],
            &[b"ABCDEFGH", b"", b"CDE"],
            &[b"A", b"", b"CDE"],
            &[],
        ];
        for first in cases {
            for second in cases {
                let walks = Cell::new(0);
                let seqs = [first, second];
                let fickle = Fickle {
                    walks: &walks,
                    seqs: &seqs,
                };
                let needed = tflite_encoded_len(first).unwrap();
                let mut buf = [0xAAu8; 64];
                let result = encode_tflite(fickle, &mut buf);
                assert!(buf[needed..].iter().all(|&b| b == 0xAA));
                let total_first: usize = first.iter().map(|s| s.len()).sum();
                let total_second: usize = second.iter().map(|s| s.len()).sum();
                if first.len() == second.len() && total_first == total_second {
                    assert_eq!(result, Ok(needed));
                } else {
                    assert_eq!(
                        result,
                        Err(EncodeError::Capacity(CapacityError {
                            needed: tflite_encoded_len(second).unwrap(),
                            available: needed
                        }))
                    );
                }
            }
        }
    }
}
