//! Portable arrays of OFFSET strings inside a caller's byte buffer: `N` consecutive 24-byte
//! `TF_TString`s whose bytes lie at little-endian offsets from each string's own position.
//! Read by position, never by pointer, so every access is bounds checked against the buffer
//! and the buffer may come from a file, flash or the network.

use core::fmt;
use core::iter::FusedIterator;

use crate::error::CapacityError;
use crate::strings::{StringTensorError, TfliteStrings};

use super::repr::{MAX_OFFSET_LEN, SMALL_CAPACITY, TStringType};

/// Bytes of one `TF_TString` header.
pub const HEADER_BYTES: usize = 24;

/// Why a buffer does not hold a valid OFFSET string array, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum OffsetError {
    /// The `count` headers starting at `start` do not fit in the buffer.
    HeadersOutOfBounds {
        /// Byte offset of the first header.
        start: usize,
        /// Number of headers asked for.
        count: usize,
        /// Buffer length.
        len: usize,
    },
    /// A LARGE or VIEW string holds a host pointer, which means nothing inside a buffer.
    PointerType {
        /// Index of the string.
        index: usize,
        /// Byte offset of its header.
        byte_offset: usize,
        /// Its type.
        string_type: TStringType,
    },
    /// A SMALL string's size byte says more than 22 bytes.
    SmallTooLong {
        /// Index of the string.
        index: usize,
        /// Byte offset of its header.
        byte_offset: usize,
        /// The length it claims.
        len: usize,
    },
    /// An OFFSET string's bytes run past the end of the buffer.
    DataOutOfBounds {
        /// Index of the string.
        index: usize,
        /// Byte offset (in the buffer) where its bytes would start.
        byte_offset: usize,
        /// Its length.
        len: usize,
        /// Buffer length.
        buffer_len: usize,
    },
    /// A string, or the distance from its header to its bytes, does not fit the `u32` fields.
    TooLarge {
        /// Index of the string.
        index: usize,
    },
    /// The output buffer is too small.
    Capacity(CapacityError),
    /// The TFLite tensor to map is malformed.
    Tflite(StringTensorError),
}

impl fmt::Display for OffsetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            OffsetError::HeadersOutOfBounds { start, count, len } => write!(
                f,
                "{count} string headers at byte {start} do not fit a buffer of {len} bytes"
            ),
            OffsetError::PointerType {
                index,
                byte_offset,
                string_type,
            } => write!(
                f,
                "string {index} (byte {byte_offset}) is {string_type:?}: it holds a host \
                 pointer, not portable bytes"
            ),
            OffsetError::SmallTooLong {
                index,
                byte_offset,
                len,
            } => write!(
                f,
                "string {index} (byte {byte_offset}) is SMALL with length {len} > 22"
            ),
            OffsetError::DataOutOfBounds {
                index,
                byte_offset,
                len,
                buffer_len,
            } => write!(
                f,
                "string {index}: {len} bytes at byte {byte_offset} run past the buffer end \
                 ({buffer_len})"
            ),
            OffsetError::TooLarge { index } => {
                write!(f, "string {index} does not fit the 32-bit OFFSET fields")
            }
            OffsetError::Capacity(e) => write!(f, "{e}"),
            OffsetError::Tflite(e) => write!(f, "TFLite string tensor: {e}"),
        }
    }
}

impl core::error::Error for OffsetError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            OffsetError::Capacity(e) => Some(e),
            OffsetError::Tflite(e) => Some(e),
            _ => None,
        }
    }
}

impl From<CapacityError> for OffsetError {
    fn from(e: CapacityError) -> Self {
        OffsetError::Capacity(e)
    }
}

impl From<StringTensorError> for OffsetError {
    fn from(e: StringTensorError) -> Self {
        OffsetError::Tflite(e)
    }
}

#[inline]
fn le32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

/// Where one validated string lies: `(data start, length)` in buffer positions.
fn locate(buf: &[u8], header: usize, index: usize) -> Result<(usize, usize), OffsetError> {
    let byte0 = buf[header];
    match TStringType::from_tag(byte0) {
        TStringType::Small => {
            let len = (byte0 >> 2) as usize;
            if len > SMALL_CAPACITY {
                return Err(OffsetError::SmallTooLong {
                    index,
                    byte_offset: header,
                    len,
                });
            }
            Ok((header + 1, len))
        }
        TStringType::Offset => {
            let len = (le32(buf, header) >> 2) as usize;
            let rel = le32(buf, header + 4) as usize;
            let start = header.checked_add(rel);
            match start.and_then(|s| s.checked_add(len).map(|e| (s, e))) {
                Some((s, e)) if e <= buf.len() => Ok((s, len)),
                _ => Err(OffsetError::DataOutOfBounds {
                    index,
                    byte_offset: header.saturating_add(rel),
                    len,
                    buffer_len: buf.len(),
                }),
            }
        }
        ty => Err(OffsetError::PointerType {
            index,
            byte_offset: header,
            string_type: ty,
        }),
    }
}

/// A validated array of `TF_TString`s (OFFSET or SMALL) inside a byte buffer.
///
/// ```
/// use tessera_core::tstring::OffsetStrings;
///
/// let words: [&[u8]; 3] = [b"AB", b"", b"a string longer than twenty-two bytes"];
/// let mut buf = [0u8; 128];
/// let array = OffsetStrings::encode(&words, &mut buf).unwrap();
/// assert_eq!(array.get(2), Some(&words[2][..]));
///
/// // Reading it back from bytes checks every header against the buffer once.
/// let used = OffsetStrings::encoded_len(&words).unwrap();
/// let again = OffsetStrings::new(&buf[..used], 0, 3).unwrap();
/// assert!(again.iter().eq(words.iter().copied()));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct OffsetStrings<'a> {
    buf: &'a [u8],
    start: usize,
    count: usize,
}

impl<'a> OffsetStrings<'a> {
    /// Validates `count` headers starting at byte `start` of `buf`: each must be SMALL (at
    /// most 22 bytes) or OFFSET with its bytes inside `buf`. O(count), once.
    pub fn new(buf: &'a [u8], start: usize, count: usize) -> Result<Self, OffsetError> {
        let end = count
            .checked_mul(HEADER_BYTES)
            .and_then(|n| n.checked_add(start));
        if end.is_none_or(|e| e > buf.len()) {
            return Err(OffsetError::HeadersOutOfBounds {
                start,
                count,
                len: buf.len(),
            });
        }
        for index in 0..count {
            locate(buf, start + index * HEADER_BYTES, index)?;
        }
        Ok(OffsetStrings { buf, start, count })
    }

    /// Number of strings.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are no strings.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// String `i`, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        if i >= self.count {
            return None;
        }
        // Validated in `new`; `locate` cannot fail here and the range is in bounds.
        let (s, n) = locate(self.buf, self.start + i * HEADER_BYTES, i).ok()?;
        self.buf.get(s..s + n)
    }

    /// The strings in order.
    pub fn iter(&self) -> OffsetStringsIter<'a> {
        OffsetStringsIter {
            array: *self,
            front: 0,
            back: self.count,
        }
    }

    /// The whole buffer the array lives in.
    pub fn buffer(&self) -> &'a [u8] {
        self.buf
    }

    /// Bytes [`encode`](Self::encode) needs for `strings`: 24 per header plus every string's
    /// bytes.
    pub fn encoded_len<I, B>(strings: I) -> Result<usize, OffsetError>
    where
        I: IntoIterator<Item = B>,
        B: AsRef<[u8]>,
    {
        let mut total = 0usize;
        for (index, s) in strings.into_iter().enumerate() {
            let n = s.as_ref().len();
            if n > MAX_OFFSET_LEN {
                return Err(OffsetError::TooLarge { index });
            }
            total = total
                .checked_add(HEADER_BYTES)
                .and_then(|t| t.checked_add(n))
                .ok_or(OffsetError::TooLarge { index })?;
        }
        Ok(total)
    }

    /// Writes `strings` as OFFSET headers followed by their bytes back to back, into the
    /// start of `out`, and returns the array over it. Too small an `out` is an error giving
    /// the bytes needed; nothing is written then.
    pub fn encode<I, B>(strings: I, out: &'a mut [u8]) -> Result<Self, OffsetError>
    where
        I: IntoIterator<Item = B> + Clone,
        B: AsRef<[u8]>,
    {
        let needed = Self::encoded_len(strings.clone())?;
        if needed > out.len() {
            return Err(CapacityError {
                needed,
                available: out.len(),
            }
            .into());
        }
        let count = strings.clone().into_iter().count();
        let mut data = count * HEADER_BYTES;
        for (index, s) in strings.into_iter().enumerate() {
            let s = s.as_ref();
            let header = index * HEADER_BYTES;
            let rel = u32::try_from(data - header).map_err(|_| OffsetError::TooLarge { index })?;
            write_offset_header(&mut out[header..header + HEADER_BYTES], s.len(), rel);
            out[data..data + s.len()].copy_from_slice(s);
            data += s.len();
        }
        Ok(OffsetStrings {
            buf: out,
            start: 0,
            count,
        })
    }

    /// Maps a TFLite string tensor stored at `buf[tflite_start..]` as OFFSET strings without
    /// copying a string byte: writes one header per string into `buf[..24 * N]`, each pointing
    /// at its string inside the tensor. `tflite_start` must leave room for the headers.
    ///
    /// ```
    /// use tessera_core::tstring::OffsetStrings;
    ///
    /// let tflite = b"\x03\0\0\0\x14\0\0\0\x16\0\0\0\x16\0\0\0\x19\0\0\0ABCDE";
    /// let mut buf = [0u8; 3 * 24 + 25];
    /// buf[72..].copy_from_slice(tflite);
    /// let array = OffsetStrings::from_tflite(&mut buf, 72).unwrap();
    /// assert!(array.iter().eq([&b"AB"[..], b"", b"CDE"]));
    /// ```
    pub fn from_tflite(buf: &'a mut [u8], tflite_start: usize) -> Result<Self, OffsetError> {
        if tflite_start > buf.len() {
            return Err(OffsetError::HeadersOutOfBounds {
                start: tflite_start,
                count: 0,
                len: buf.len(),
            });
        }
        let (headers, tensor) = buf.split_at_mut(tflite_start);
        let strings = TfliteStrings::new(tensor)?;
        let count = strings.len();
        let needed = count
            .checked_mul(HEADER_BYTES)
            .ok_or(OffsetError::TooLarge { index: count })?;
        if needed > headers.len() {
            return Err(CapacityError {
                needed,
                available: headers.len(),
            }
            .into());
        }
        let base = tensor.as_ptr().addr();
        for (index, s) in strings.iter().enumerate() {
            if s.len() > MAX_OFFSET_LEN {
                return Err(OffsetError::TooLarge { index });
            }
            // Position of the string inside the tensor, from the validated view.
            let in_tensor = s.as_ptr().addr() - base;
            let header = index * HEADER_BYTES;
            let rel = u32::try_from(tflite_start + in_tensor - header)
                .map_err(|_| OffsetError::TooLarge { index })?;
            write_offset_header(&mut headers[header..header + HEADER_BYTES], s.len(), rel);
        }
        Ok(OffsetStrings {
            buf,
            start: 0,
            count,
        })
    }
}

/// One OFFSET header: size and offset little-endian, `count` 1 (TensorFlow never reads it).
fn write_offset_header(header: &mut [u8], len: usize, rel: u32) {
    header.fill(0);
    let size = ((len as u32) << 2) | TStringType::Offset as u32;
    header[0..4].copy_from_slice(&size.to_le_bytes());
    header[4..8].copy_from_slice(&rel.to_le_bytes());
    header[8..12].copy_from_slice(&1u32.to_le_bytes());
}

impl<'a> IntoIterator for OffsetStrings<'a> {
    type Item = &'a [u8];
    type IntoIter = OffsetStringsIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &OffsetStrings<'a> {
    type Item = &'a [u8];
    type IntoIter = OffsetStringsIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over an [`OffsetStrings`] array.
#[derive(Debug, Clone)]
pub struct OffsetStringsIter<'a> {
    array: OffsetStrings<'a>,
    front: usize,
    back: usize,
}

impl<'a> Iterator for OffsetStringsIter<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.array.get(self.front - 1)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for OffsetStringsIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.array.get(self.back)
    }
}

impl ExactSizeIterator for OffsetStringsIter<'_> {}
impl FusedIterator for OffsetStringsIter<'_> {}
