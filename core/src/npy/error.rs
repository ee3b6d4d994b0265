//! [`NpyError`]: why bytes are not a `.npy` file tessera reads, and at which byte.

use core::fmt;

use super::MAX_DIMS;

/// Why a `.npy` file was rejected, and where: `offset` is the byte of the file at fault (0 for
/// the magic, 6 the version, 8 the header length, the header's first byte for anything in the
/// header, the data's first byte for its length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NpyError {
    /// What is wrong.
    pub kind: NpyErrorKind,
    /// Byte offset in the file.
    pub offset: usize,
}

/// What is wrong with a `.npy` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum NpyErrorKind {
    /// The file does not start with `\x93NUMPY`.
    NotNpy,
    /// The file ends inside the version or the header length.
    TruncatedHeader,
    /// The header length does not fit `usize`.
    HeaderTooLong,
    /// A format version other than 1, 2 or 3.
    UnknownVersion(u8),
    /// The header runs past the end of the file.
    HeaderPastEnd {
        /// The header's length, as the file gives it.
        len: usize,
    },
    /// The header is not UTF-8.
    HeaderNotText,
    /// The header has no `'descr'` key.
    NoDescr,
    /// A type tessera does not read (big-endian, objects, unicode, structured …).
    UnsupportedDtype(DescrText),
    /// `fortran_order` is not `False`.
    FortranOrder,
    /// The header has no `'shape'` key.
    NoShape,
    /// The shape is not a tuple of non-negative integers.
    BadShape,
    /// The shape has more than [`MAX_DIMS`] dimensions.
    TooManyDims,
    /// The element count, or the data's bytes, overflow `usize`.
    ShapeOverflows,
    /// The data is not as long as the type and shape say.
    DataLength {
        /// Bytes after the header.
        found: usize,
        /// Bytes the type and shape need.
        needed: usize,
    },
}

impl fmt::Display for NpyErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotNpy => f.write_str("not a .npy file (no \\x93NUMPY magic)"),
            Self::TruncatedHeader => f.write_str("truncated header"),
            Self::HeaderTooLong => f.write_str("header too long"),
            Self::UnknownVersion(v) => write!(f, "unknown .npy format version {v}"),
            Self::HeaderPastEnd { len } => write!(f, "header of {len} bytes past the end"),
            Self::HeaderNotText => f.write_str("header is not text"),
            Self::NoDescr => f.write_str("header has no 'descr'"),
            Self::UnsupportedDtype(d) => write!(f, "unsupported dtype '{d}'"),
            Self::FortranOrder => f.write_str("Fortran order is not supported"),
            Self::NoShape => f.write_str("header has no 'shape'"),
            Self::BadShape => f.write_str("bad 'shape'"),
            Self::TooManyDims => write!(f, "more than {MAX_DIMS} dimensions"),
            Self::ShapeOverflows => f.write_str("shape overflows"),
            Self::DataLength { found, needed } => {
                write!(f, "{found} data bytes, the shape needs {needed}")
            }
        }
    }
}

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, at byte {}", self.kind, self.offset)
    }
}

impl core::error::Error for NpyError {}

/// The start of a `descr` the reader refused, copied into the error (no allocation): up to
/// [`DescrText::CAPACITY`] bytes, cut at a character boundary, shown with `...` when cut.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DescrText {
    bytes: [u8; Self::CAPACITY],
    len: u8,
    cut: bool,
}

impl DescrText {
    /// Bytes kept; numpy's own type strings (`>f4`, `<U10`, `<M8[ns]`) are all shorter.
    pub const CAPACITY: usize = 32;

    pub(super) fn new(text: &str) -> Self {
        let mut len = text.len().min(Self::CAPACITY);
        while !text.is_char_boundary(len) {
            len -= 1;
        }
        let mut bytes = [0; Self::CAPACITY];
        bytes[..len].copy_from_slice(&text.as_bytes()[..len]);
        Self {
            bytes,
            len: len as u8, // at most CAPACITY
            cut: len < text.len(),
        }
    }

    /// The text kept.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // A prefix of a `&str` cut at a character boundary: always UTF-8.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }

    /// Whether the `descr` was longer than what is kept.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.cut
    }
}

impl fmt::Display for DescrText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if self.cut {
            f.write_str("...")?;
        }
        Ok(())
    }
}

impl fmt::Debug for DescrText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())?;
        if self.cut {
            f.write_str("...")?;
        }
        Ok(())
    }
}
