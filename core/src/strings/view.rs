//! A zero-copy view of a TFLite string tensor: the buffer is validated once in
//! [`TfliteStrings::new`], after which strings are sliced out without re-checking the offsets.

use core::fmt;
use core::iter::FusedIterator;

use zerocopy::FromBytes;
use zerocopy::little_endian::I32;

use super::error::StringTensorError;

/// Size of the `int32 N` count, and of each offset-table entry.
const WORD: usize = 4;

/// A validated TFLite string tensor borrowed from its bytes.
///
/// The layout is `int32 N`, `int32 offset[N + 1]`, then the string bytes back to back, all
/// little-endian; offsets count from the start of the buffer and string `i` is
/// `bytes[offset[i]..offset[i + 1]]`. This is also what a `.tflite` model stores in the buffer
/// of a constant STRING tensor.
///
/// [`new`](Self::new) checks the whole offset table once, in O(N), more strictly than TFLite's
/// verifier (offsets must not decrease, the first must follow the table and the last must be the
/// buffer length). After that [`get`](Self::get) and [`iter`](Self::iter) only slice. Strings
/// are raw bytes: TFLite does not promise UTF-8.
///
/// # Example
/// ```
/// use tessera_core::strings::{StringTensorError, TfliteStrings};
///
/// // ["AB", "", "CDE"]
/// let bytes = [
///     3, 0, 0, 0, // N
///     20, 0, 0, 0, 22, 0, 0, 0, 22, 0, 0, 0, 25, 0, 0, 0, // offset[0..=3]
///     b'A', b'B', b'C', b'D', b'E',
/// ];
/// let strings = TfliteStrings::new(&bytes)?;
/// assert_eq!(strings.len(), 3);
/// assert_eq!(strings.get(0), Some(&b"AB"[..]));
/// assert_eq!(strings.get(1), Some(&b""[..]));
/// assert_eq!(strings.get(3), None);
/// assert!(strings.iter().rev().eq([&b"CDE"[..], b"", b"AB"]));
/// assert_eq!(strings.data_bytes(), 5);
///
/// // One byte short: the last offset no longer matches the buffer.
/// assert_eq!(
///     TfliteStrings::new(&bytes[..24]).unwrap_err(),
///     StringTensorError::OffsetOutOfBounds { index: 3, value: 25, len: 24 },
/// );
/// # Ok::<(), StringTensorError>(())
/// ```
#[derive(Clone, Copy)]
pub struct TfliteStrings<'a> {
    /// The whole tensor, count and table included.
    bytes: &'a [u8],
    /// `offset[0..=N]`, checked by `new`: `offset[0]` ends the table, no entry is smaller than
    /// the one before it, `offset[N] == bytes.len()`. Never empty.
    offsets: &'a [I32],
}

impl<'a> TfliteStrings<'a> {
    /// Validates `bytes` as a TFLite string tensor and wraps it. O(N), no copy.
    ///
    /// # Errors
    /// A [`StringTensorError`] naming the first problem found: the count, then the offset table
    /// entry by entry in order (each entry is checked for being negative, then for its value
    /// against the table end (entry 0) or the buffer end and the previous entry), then the last
    /// offset against the buffer length. Never panics, whatever the bytes.
    pub fn new(bytes: &'a [u8]) -> Result<Self, StringTensorError> {
        let len = bytes.len();
        let Some((count, rest)) = bytes.split_first_chunk::<WORD>() else {
            return Err(StringTensorError::Truncated { needed: WORD, len });
        };
        let count = i32::from_le_bytes(*count);
        if count < 0 {
            return Err(StringTensorError::NegativeCount { count });
        }
        let too_large = StringTensorError::CountTooLarge { count, len };
        // N + 1 offsets, and the table ends at byte 4 * (N + 2). Checked: on 16- and 32-bit
        // targets a large N overflows `usize`.
        let n = usize::try_from(count).map_err(|_| too_large)?;
        let entries = n.checked_add(1).ok_or(too_large)?;
        let table_end = n
            .checked_add(2)
            .and_then(|words| words.checked_mul(WORD))
            .filter(|&end| end <= len)
            .ok_or(too_large)?;
        let (offsets, _) =
            <[I32]>::ref_from_prefix_with_elems(rest, entries).map_err(|_| too_large)?;

        let mut previous: Option<i32> = None;
        for (index, entry) in offsets.iter().enumerate() {
            let value = entry.get();
            if value < 0 {
                return Err(StringTensorError::NegativeOffset { index, value });
            }
            // Non-negative, so this only fails where `usize` is narrower than 31 bits, for an
            // offset that is then certainly past the buffer.
            let at = usize::try_from(value).ok();
            match previous {
                None => {
                    if at != Some(table_end) {
                        return Err(StringTensorError::FirstOffset {
                            expected: table_end,
                            found: value,
                        });
                    }
                }
                Some(previous) => {
                    if at.is_none_or(|at| at > len) {
                        return Err(StringTensorError::OffsetOutOfBounds { index, value, len });
                    }
                    if value < previous {
                        return Err(StringTensorError::Decreasing {
                            index,
                            previous,
                            value,
                        });
                    }
                }
            }
            previous = Some(value);
        }
        // `entries >= 1`, so `previous` holds offset[N]; it is already known to be <= len.
        if let Some(last) = previous {
            if usize::try_from(last).ok() != Some(len) {
                return Err(StringTensorError::LastOffset {
                    expected: len,
                    found: last,
                });
            }
        }
        Ok(Self { bytes, offsets })
    }

    /// Number of strings, `N`.
    #[must_use]
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the tensor holds no strings.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// String `i`, or `None` if `i >= len()`. O(1): reads two offsets and slices.
    #[must_use]
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        string_at(self.bytes, self.offsets, i)
    }

    /// Iterates over the strings in order (and backwards, and with an exact length).
    #[must_use]
    #[inline]
    pub fn iter(&self) -> TfliteIter<'a> {
        TfliteIter {
            bytes: self.bytes,
            offsets: self.offsets,
            front: 0,
            back: self.len(),
        }
    }

    /// The whole tensor as it was given to [`new`](Self::new): count, offsets and strings.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Total bytes of string payload: the sum of all string lengths, i.e. the buffer length
    /// minus the `4 * (N + 2)` bytes of count and offset table.
    #[must_use]
    pub fn data_bytes(&self) -> usize {
        let table_end = self.offsets.len().saturating_add(1).saturating_mul(WORD);
        self.bytes.len().saturating_sub(table_end)
    }
}

/// Slices string `i` out of a validated tensor; `None` past the end.
///
/// Only bounds-checked slicing, no ordering checks: `new` established those. On a validated
/// tensor this is `None` exactly when `i >= N`.
#[inline]
fn string_at<'a>(bytes: &'a [u8], offsets: &[I32], i: usize) -> Option<&'a [u8]> {
    // `new` checked every offset is non-negative, so the casts are exact.
    let start = offsets.get(i)?.get() as u32 as usize;
    let end = offsets.get(i.checked_add(1)?)?.get() as u32 as usize;
    bytes.get(start..end)
}

impl fmt::Debug for TfliteStrings<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TfliteStrings")
            .field("len", &self.len())
            .field("data_bytes", &self.data_bytes())
            .finish()
    }
}

impl<'a> IntoIterator for TfliteStrings<'a> {
    type Item = &'a [u8];
    type IntoIter = TfliteIter<'a>;

    fn into_iter(self) -> TfliteIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &TfliteStrings<'a> {
    type Item = &'a [u8];
    type IntoIter = TfliteIter<'a>;

    fn into_iter(self) -> TfliteIter<'a> {
        self.iter()
    }
}

/// Iterator over the strings of a [`TfliteStrings`], from [`TfliteStrings::iter`].
///
/// Double-ended and exact-size; each step reads two offsets and slices.
///
/// # Example
/// ```
/// use tessera_core::strings::{TfliteStrings, encode_tflite};
///
/// let mut buf = [0u8; 32];
/// let used = encode_tflite(["x", "yz"], &mut buf).unwrap();
/// let mut it = TfliteStrings::new(&buf[..used]).unwrap().iter();
/// assert_eq!(it.len(), 2);
/// assert_eq!(it.next_back(), Some(&b"yz"[..]));
/// assert_eq!(it.next(), Some(&b"x"[..]));
/// assert_eq!(it.next(), None);
/// ```
#[derive(Clone)]
pub struct TfliteIter<'a> {
    bytes: &'a [u8],
    offsets: &'a [I32],
    /// Next string from the front.
    front: usize,
    /// One past the next string from the back; `front <= back <= N`.
    back: usize,
}

impl<'a> TfliteIter<'a> {
    /// String `i` of the validated tensor this iterator came from (`i < N`).
    #[inline]
    fn string(&self, i: usize) -> &'a [u8] {
        let s = string_at(self.bytes, self.offsets, i);
        debug_assert!(s.is_some(), "validated tensor lost string {i}");
        s.unwrap_or_default()
    }
}

impl<'a> Iterator for TfliteIter<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.front >= self.back {
            return None;
        }
        let s = self.string(self.front);
        self.front += 1;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back.saturating_sub(self.front);
        (n, Some(n))
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<&'a [u8]> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }

    fn count(self) -> usize {
        self.len()
    }

    fn last(mut self) -> Option<&'a [u8]> {
        self.next_back()
    }
}

impl DoubleEndedIterator for TfliteIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        Some(self.string(self.back))
    }

    #[inline]
    fn nth_back(&mut self, n: usize) -> Option<Self::Item> {
        self.back = self.back.saturating_sub(n).max(self.front);
        self.next_back()
    }
}

impl ExactSizeIterator for TfliteIter<'_> {}

impl FusedIterator for TfliteIter<'_> {}

impl fmt::Debug for TfliteIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TfliteIter")
            .field("front", &self.front)
            .field("back", &self.back)
            .finish()
    }
}

#[cfg(test)]
mod tests;
