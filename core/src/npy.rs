//! numpy's `.npy` files (format versions 1, 2 and 3) over caller bytes: [`NpyView`] reads one
//! in place — little-endian numbers and booleans in C order, and byte strings (`S<n>`,
//! NUL-padded to the longest) — and [`write_npy_header`] writes a header into a caller
//! buffer, after which the caller appends the data. Every size in a header is checked against
//! the file before it is used; a bad file is an [`NpyError`] saying what and at which byte.
//!
//! ```
//! use tessera_core::npy::{NpyType, NpyView, npy_header_len, write_npy_header};
//!
//! // A 2 x 3 array of i16, written as numpy writes it: header, then the little-endian data.
//! let data: Vec<u8> = (0..6i16).flat_map(i16::to_le_bytes).collect();
//! let mut file = vec![0u8; npy_header_len(NpyType::I16, &[2, 3]) + data.len()];
//! let n = write_npy_header(NpyType::I16, &[2, 3], &mut file)?;
//! file[n..].copy_from_slice(&data);
//!
//! let a = NpyView::parse(&file)?; // nothing copied: `data()` borrows `file`
//! assert_eq!((a.dtype(), a.shape(), a.elements()), (NpyType::I16, &[2, 3][..], 6));
//! assert_eq!(a.data(), &data[..]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod header;

use core::fmt;

use crate::tensor::DType;

pub use error::{DescrText, NpyError, NpyErrorKind};
pub use header::{npy_header_len, write_npy_header};

/// The most dimensions a [`NpyView`] holds (numpy's `NPY_MAXDIMS` before numpy 2); a header
/// with more is [`NpyErrorKind::TooManyDims`].
pub const MAX_DIMS: usize = 32;

/// An element type of a `.npy` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NpyType {
    /// `<f4`.
    F32,
    /// `<f8`.
    F64,
    /// `|i1`.
    I8,
    /// `<i2`.
    I16,
    /// `<i4`.
    I32,
    /// `<i8`.
    I64,
    /// `|u1`.
    U8,
    /// `<u2`.
    U16,
    /// `<u4`.
    U32,
    /// `<u8`.
    U64,
    /// `|b1`.
    Bool,
    /// `|S<n>`: byte strings of `n` bytes, NUL-padded.
    Bytes(usize),
}

impl NpyType {
    /// Bytes per element.
    #[must_use]
    pub const fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 | Self::Bool => 1,
            Self::I16 | Self::U16 => 2,
            Self::F32 | Self::I32 | Self::U32 => 4,
            Self::F64 | Self::I64 | Self::U64 => 8,
            Self::Bytes(n) => n,
        }
    }

    /// The tensor dtype of these elements (`None` for byte strings, which have none).
    #[must_use]
    pub const fn dtype(self) -> Option<DType> {
        Some(match self {
            Self::F32 => DType::F32,
            Self::F64 => DType::F64,
            Self::I8 => DType::I8,
            Self::I16 => DType::I16,
            Self::I32 => DType::I32,
            Self::I64 => DType::I64,
            Self::U8 => DType::U8,
            Self::U16 => DType::U16,
            Self::U32 => DType::U32,
            Self::U64 => DType::U64,
            Self::Bool => DType::Bool,
            Self::Bytes(_) => return None,
        })
    }

    /// Converts elements of this type between `.npy`'s little-endian order and the host's
    /// (the same swap both ways; nothing on a little-endian host, nothing for bytes).
    pub fn swap_to_host(self, bytes: &mut [u8]) {
        let size = self.size();
        if cfg!(target_endian = "big") && size > 1 && !matches!(self, Self::Bytes(_)) {
            for w in bytes.chunks_exact_mut(size) {
                w.reverse();
            }
        }
    }

    /// The type numpy's `descr` names, if tessera reads it.
    fn parse(descr: &str) -> Option<Self> {
        Some(match descr {
            "<f4" => Self::F32,
            "<f8" => Self::F64,
            "|i1" | "<i1" => Self::I8,
            "<i2" => Self::I16,
            "<i4" => Self::I32,
            "<i8" => Self::I64,
            "|u1" | "<u1" => Self::U8,
            "<u2" => Self::U16,
            "<u4" => Self::U32,
            "<u8" => Self::U64,
            "|b1" => Self::Bool,
            s => {
                let n = s.strip_prefix("|S")?.parse::<usize>().ok()?;
                Self::Bytes(n)
            }
        })
    }
}

impl From<DType> for NpyType {
    fn from(d: DType) -> Self {
        match d {
            DType::F32 => Self::F32,
            DType::F64 => Self::F64,
            DType::I8 => Self::I8,
            DType::I16 => Self::I16,
            DType::I32 => Self::I32,
            DType::I64 => Self::I64,
            DType::U8 => Self::U8,
            DType::U16 => Self::U16,
            DType::U32 => Self::U32,
            DType::U64 => Self::U64,
            DType::Bool => Self::Bool,
        }
    }
}

/// numpy's `descr` string (`<f4`, `|S12`, …).
impl fmt::Display for NpyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match *self {
            Self::F32 => "<f4",
            Self::F64 => "<f8",
            Self::I8 => "|i1",
            Self::I16 => "<i2",
            Self::I32 => "<i4",
            Self::I64 => "<i8",
            Self::U8 => "|u1",
            Self::U16 => "<u2",
            Self::U32 => "<u4",
            Self::U64 => "<u8",
            Self::Bool => "|b1",
            Self::Bytes(n) => return write!(f, "|S{n}"),
        })
    }
}

/// A `.npy` array read in place: element type, shape, and its bytes (little-endian, C order),
/// borrowed from the file. [`parse`](Self::parse) checks the whole file once; the accessors
/// then only read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NpyView<'a> {
    dtype: NpyType,
    rank: usize,
    /// The shape in `dims[..rank]`; the rest stay 0, so that equal shapes compare equal.
    dims: [usize; MAX_DIMS],
    data: &'a [u8],
}

const MAGIC: &[u8] = b"\x93NUMPY";

impl<'a> NpyView<'a> {
    /// Checks a whole `.npy` file and views it.
    ///
    /// # Errors
    /// An [`NpyError`]: not a `.npy` file, an unsupported type (big-endian, objects, unicode),
    /// Fortran order, more than [`MAX_DIMS`] dimensions, or data shorter or longer than the
    /// header says.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, NpyError> {
        use NpyErrorKind as K;
        let err = |kind, offset| NpyError { kind, offset };
        if bytes.get(..6) != Some(MAGIC) {
            return Err(err(K::NotNpy, 0));
        }
        let major = *bytes.get(6).ok_or(err(K::TruncatedHeader, 6))?;
        let (len, start): (usize, usize) = match major {
            1 => {
                let b = bytes.get(8..10).ok_or(err(K::TruncatedHeader, 8))?;
                (usize::from(u16::from_le_bytes([b[0], b[1]])), 10)
            }
            2 | 3 => {
                let b = bytes.get(8..12).ok_or(err(K::TruncatedHeader, 8))?;
                let n = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                (
                    usize::try_from(n).map_err(|_| err(K::HeaderTooLong, 8))?,
                    12,
                )
            }
            v => return Err(err(K::UnknownVersion(v), 6)),
        };
        let end = start.checked_add(len).ok_or(err(K::HeaderTooLong, start))?;
        let header = bytes
            .get(start..end)
            .ok_or(err(K::HeaderPastEnd { len }, start))?;
        let header = core::str::from_utf8(header).map_err(|_| err(K::HeaderNotText, start))?;
        let descr = header::dict_value(header, "descr").ok_or(err(K::NoDescr, start))?;
        let descr = descr.trim_matches(|c| c == '\'' || c == '"');
        let dtype = NpyType::parse(descr)
            .ok_or_else(|| err(K::UnsupportedDtype(DescrText::new(descr)), start))?;
        if let Some(f) = header::dict_value(header, "fortran_order") {
            if f.trim() != "False" {
                return Err(err(K::FortranOrder, start));
            }
        }
        let shape = header::dict_value(header, "shape").ok_or(err(K::NoShape, start))?;
        let mut dims = [0usize; MAX_DIMS];
        let rank = header::parse_shape(shape, &mut dims).map_err(|kind| err(kind, start))?;
        // The element count on its own too: with zero-byte elements (`S0`) the bytes never
        // overflow, but `elements()` would.
        let expected = dims[..rank]
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .and_then(|n| n.checked_mul(dtype.size()))
            .ok_or(err(K::ShapeOverflows, start))?;
        let data = &bytes[end..];
        if data.len() != expected {
            let kind = K::DataLength {
                found: data.len(),
                needed: expected,
            };
            return Err(err(kind, end));
        }
        Ok(Self {
            dtype,
            rank,
            dims,
            data,
        })
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> NpyType {
        self.dtype
    }

    /// The shape (empty for a scalar).
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.dims[..self.rank]
    }

    /// The elements' bytes, little-endian, in C order.
    #[must_use]
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Elements (the product of the shape; 1 for a scalar). [`parse`](Self::parse) checked
    /// that it fits `usize`.
    #[must_use]
    pub fn elements(&self) -> usize {
        self.shape().iter().product()
    }

    /// The strings of a `S<n>` array, trailing NULs removed (as numpy reads them); none for
    /// any other type.
    #[must_use]
    pub fn strings(&self) -> NpyStrings<'a> {
        let count = match self.dtype {
            NpyType::Bytes(_) => self.elements(),
            _ => 0,
        };
        NpyStrings {
            chunks: self.data.chunks(self.dtype.size().max(1)),
            left: count,
        }
    }
}

/// The strings of a `S<n>` array ([`NpyView::strings`]), each without its trailing NULs.
#[derive(Debug, Clone)]
pub struct NpyStrings<'a> {
    chunks: core::slice::Chunks<'a, u8>,
    left: usize,
}

impl<'a> Iterator for NpyStrings<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        self.left = self.left.checked_sub(1)?;
        let s = self.chunks.next()?;
        let end = s.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        Some(&s[..end])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.left.min(self.chunks.len());
        (n, Some(n))
    }
}

impl ExactSizeIterator for NpyStrings<'_> {}

#[cfg(test)]
mod tests;
