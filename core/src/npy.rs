//! numpy's `.npy` files (format versions 1, 2 and 3), as `tessera model run` reads inputs and
//! writes outputs: little-endian numbers and booleans in C order, and byte strings (`S<n>`,
//! NUL-padded to the longest). Every size in a header is checked against the file before
//! anything is allocated; a bad file is an [`NpyError`] saying what and at which byte.

use std::fmt;

/// An element type of a `.npy` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    pub fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 | Self::Bool => 1,
            Self::I16 | Self::U16 => 2,
            Self::F32 | Self::I32 | Self::U32 => 4,
            Self::F64 | Self::I64 | Self::U64 => 8,
            Self::Bytes(n) => n,
        }
    }

    /// numpy's `descr` string.
    #[must_use]
    pub fn descr(self) -> String {
        match self {
            Self::F32 => "<f4".into(),
            Self::F64 => "<f8".into(),
            Self::I8 => "|i1".into(),
            Self::I16 => "<i2".into(),
            Self::I32 => "<i4".into(),
            Self::I64 => "<i8".into(),
            Self::U8 => "|u1".into(),
            Self::U16 => "<u2".into(),
            Self::U32 => "<u4".into(),
            Self::U64 => "<u8".into(),
            Self::Bool => "|b1".into(),
            Self::Bytes(n) => format!("|S{n}"),
        }
    }

    /// The `.npy` type of a tensor type, if numpy has one (not strings: their width depends
    /// on the strings).
    #[must_use]
    pub fn of(t: crate::model::TensorType) -> Option<Self> {
        use crate::model::TensorType as T;
        Some(match t {
            T::Float32 => Self::F32,
            T::Float64 => Self::F64,
            T::Int8 => Self::I8,
            T::Int16 => Self::I16,
            T::Int32 => Self::I32,
            T::Int64 => Self::I64,
            T::Uint8 => Self::U8,
            T::Uint16 => Self::U16,
            T::Uint32 => Self::U32,
            T::Uint64 => Self::U64,
            T::Bool => Self::Bool,
            _ => return None,
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

/// A `.npy` array: element type, shape, and its bytes (little-endian, C order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Npy {
    /// Element type.
    pub dtype: NpyType,
    /// Shape (empty for a scalar).
    pub shape: Vec<usize>,
    /// The elements' bytes.
    pub data: Vec<u8>,
}

/// Why a `.npy` file was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyError {
    /// What is wrong.
    pub what: String,
    /// Byte offset in the file.
    pub offset: usize,
}

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for NpyError {}

fn err(what: impl Into<String>, offset: usize) -> NpyError {
    NpyError {
        what: what.into(),
        offset,
    }
}

const MAGIC: &[u8] = b"\x93NUMPY";

impl Npy {
    /// Elements (the product of the shape; 1 for a scalar).
    #[must_use]
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Parses a whole `.npy` file.
    ///
    /// # Errors
    /// An [`NpyError`]: not a `.npy` file, an unsupported type (big-endian, objects, unicode),
    /// Fortran order, or data shorter or longer than the header says.
    pub fn parse(bytes: &[u8]) -> Result<Self, NpyError> {
        if bytes.get(..6) != Some(MAGIC) {
            return Err(err("not a .npy file (no \\x93NUMPY magic)", 0));
        }
        let major = *bytes.get(6).ok_or(err("truncated header", 6))?;
        let (len, start): (usize, usize) = match major {
            1 => {
                let b = bytes.get(8..10).ok_or(err("truncated header", 8))?;
                (usize::from(u16::from_le_bytes([b[0], b[1]])), 10)
            }
            2 | 3 => {
                let b = bytes.get(8..12).ok_or(err("truncated header", 8))?;
                let n = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                (
                    usize::try_from(n).map_err(|_| err("header too long", 8))?,
                    12,
                )
            }
            v => return Err(err(format!("unknown .npy format version {v}"), 6)),
        };
        let end = start
            .checked_add(len)
            .ok_or(err("header too long", start))?;
        let header = bytes
            .get(start..end)
            .ok_or(err(format!("header of {len} bytes past the end"), start))?;
        let header = std::str::from_utf8(header).map_err(|_| err("header is not text", start))?;
        let descr = dict_value(header, "descr").ok_or(err("header has no 'descr'", start))?;
        let descr = descr.trim_matches(|c| c == '\'' || c == '"');
        let dtype = NpyType::parse(descr)
            .ok_or_else(|| err(format!("unsupported dtype '{descr}'"), start))?;
        if let Some(f) = dict_value(header, "fortran_order") {
            if f.trim() != "False" {
                return Err(err("Fortran order is not supported", start));
            }
        }
        let shape = dict_value(header, "shape").ok_or(err("header has no 'shape'", start))?;
        let shape = parse_shape(shape).ok_or(err("bad 'shape'", start))?;
        // The element count on its own too: with zero-byte elements (`S0`) the bytes never
        // overflow, but `elements()` would.
        let expected = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .and_then(|n| n.checked_mul(dtype.size()))
            .ok_or(err("shape overflows", start))?;
        let data = &bytes[end..];
        if data.len() != expected {
            return Err(err(
                format!("{} data bytes, the shape needs {expected}", data.len()),
                end,
            ));
        }
        Ok(Self {
            dtype,
            shape,
            data: data.to_vec(),
        })
    }

    /// The whole file, format version 1.0 (2.0 if the header needs it).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let shape = match self.shape.len() {
            0 => "()".to_string(),
            1 => format!("({},)", self.shape[0]),
            _ => format!(
                "({})",
                self.shape
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
            self.dtype.descr()
        );
        // Pad with spaces and a newline so the data starts on a multiple of 64.
        let v1 = 10 + header.len() < usize::from(u16::MAX);
        let prefix = if v1 { 10 } else { 12 };
        let total = (prefix + header.len() + 1).div_ceil(64) * 64;
        header.push_str(&" ".repeat(total - prefix - header.len() - 1));
        header.push('\n');
        let mut out = Vec::with_capacity(total + self.data.len());
        out.extend_from_slice(MAGIC);
        if v1 {
            out.extend_from_slice(&[1, 0]);
            out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&[2, 0]);
            out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    /// The strings of a `S<n>` array, trailing NULs removed (as numpy reads them).
    pub fn strings(&self) -> impl Iterator<Item = &[u8]> {
        let n = self.dtype.size().max(1);
        let count = if matches!(self.dtype, NpyType::Bytes(_)) {
            self.elements()
        } else {
            0
        };
        self.data.chunks(n).take(count).map(|s| {
            let end = s.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            &s[..end]
        })
    }
}

/// The text after `'key':` up to the next top-level comma or closing brace.
fn dict_value<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let at = header
        .find(&format!("'{key}'"))
        .or_else(|| header.find(&format!("\"{key}\"")))?;
    let rest = &header[at + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            ',' | '}' if depth == 0 => return Some(rest[..i].trim()),
            _ => {}
        }
    }
    None
}

fn parse_shape(s: &str) -> Option<Vec<usize>> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.trim_end_matches('L').parse::<usize>().ok())
        .collect()
}

#[cfg(test)]
mod tests;
