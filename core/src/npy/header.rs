//! The `.npy` header: reading the Python dict's `descr`, `fortran_order` and `shape`, and
//! writing one into a caller buffer (format 1.0, or 2.0 when the header needs it), padded so
//! that the data starts on a multiple of 64 bytes, as numpy writes it.

use core::fmt::{self, Write};

use super::{MAGIC, MAX_DIMS, NpyErrorKind, NpyType};
use crate::error::CapacityError;

/// The text after `'key':` (or `"key":`) up to the next top-level comma or closing brace.
pub(super) fn dict_value<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let at = find_quoted(header, key, b'\'').or_else(|| find_quoted(header, key, b'"'))?;
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

/// Where `header` first holds `key` between two `quote`s (the opening quote's byte).
fn find_quoted(header: &str, key: &str, quote: u8) -> Option<usize> {
    let (h, k) = (header.as_bytes(), key.as_bytes());
    h.windows(k.len() + 2)
        .position(|w| w[0] == quote && w[w.len() - 1] == quote && &w[1..w.len() - 1] == k)
}

/// The tuple `s` into `dims`; its rank.
pub(super) fn parse_shape(s: &str, dims: &mut [usize; MAX_DIMS]) -> Result<usize, NpyErrorKind> {
    let inner = s
        .trim()
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or(NpyErrorKind::BadShape)?;
    let mut rank = 0;
    for p in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let d = p
            .trim_end_matches('L')
            .parse::<usize>()
            .map_err(|_| NpyErrorKind::BadShape)?;
        *dims.get_mut(rank).ok_or(NpyErrorKind::TooManyDims)? = d;
        rank += 1;
    }
    Ok(rank)
}

/// The header dict, unpadded: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
fn write_dict(w: &mut impl Write, dtype: NpyType, shape: &[usize]) -> fmt::Result {
    write!(
        w,
        "{{'descr': '{dtype}', 'fortran_order': False, 'shape': ("
    )?;
    for (i, d) in shape.iter().enumerate() {
        match i {
            0 => write!(w, "{d}")?,
            _ => write!(w, ", {d}")?,
        }
    }
    if shape.len() == 1 {
        w.write_char(',')?;
    }
    w.write_str("), }")
}

/// Counts what is written.
struct Count(usize);

impl Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.saturating_add(s.len());
        Ok(())
    }
}

/// Writes into a byte slice; an error once it is full.
struct Cursor<'b> {
    out: &'b mut [u8],
    at: usize,
}

impl Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.at.checked_add(s.len()).ok_or(fmt::Error)?;
        self.out
            .get_mut(self.at..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.at = end;
        Ok(())
    }
}

/// The layout of a header: (bytes before the dict, the dict's unpadded length, the whole
/// header's length, a multiple of 64).
fn layout(dtype: NpyType, shape: &[usize]) -> (usize, usize, usize) {
    let mut count = Count(0);
    // Counting cannot fail.
    let _ = write_dict(&mut count, dtype, shape);
    let dict = count.0;
    // Version 1.0 while its 16-bit length holds the padded dict, else 2.0.
    let prefix: usize = if dict.saturating_add(10) < usize::from(u16::MAX) {
        10
    } else {
        12
    };
    // Spaces and a newline after the dict, so the data starts on a multiple of 64.
    let total = prefix
        .saturating_add(dict)
        .saturating_add(1)
        .div_ceil(64)
        .saturating_mul(64);
    (prefix, dict, total)
}

/// Bytes [`write_npy_header`] writes for `dtype` and `shape`: a multiple of 64, after which
/// the data starts.
#[must_use]
pub fn npy_header_len(dtype: NpyType, shape: &[usize]) -> usize {
    layout(dtype, shape).2
}

/// Writes the header of a C-order `.npy` array of `dtype` and `shape` at the start of `out`
/// (format 1.0, or 2.0 when the header is too long for 1.0) and returns its length, a
/// multiple of 64 ([`npy_header_len`]); the caller then writes the data (little-endian) after
/// it.
///
/// # Errors
/// [`CapacityError`] if `out` is shorter than the header, or (for shapes of hundreds of
/// millions of dimensions) if the header is longer than a `.npy` file can say (4 GiB).
pub fn write_npy_header(
    dtype: NpyType,
    shape: &[usize],
    out: &mut [u8],
) -> Result<usize, CapacityError> {
    let (prefix, dict, total) = layout(dtype, shape);
    let no_room = CapacityError {
        needed: total,
        available: out.len(),
    };
    let padded = total - prefix;
    let Some(out) = out.get_mut(..total) else {
        return Err(no_room);
    };
    out[..6].copy_from_slice(MAGIC);
    if prefix == 10 {
        out[6..8].copy_from_slice(&[1, 0]);
        // Under u16::MAX by `layout`'s choice of version.
        out[8..10].copy_from_slice(&(padded as u16).to_le_bytes());
    } else {
        let len = u32::try_from(padded).map_err(|_| CapacityError {
            needed: total,
            available: (u32::MAX as usize).saturating_add(12),
        })?;
        out[6..8].copy_from_slice(&[2, 0]);
        out[8..12].copy_from_slice(&len.to_le_bytes());
    }
    let mut cursor = Cursor {
        out: &mut out[prefix..],
        at: 0,
    };
    write_dict(&mut cursor, dtype, shape).map_err(|_| no_room)?;
    debug_assert_eq!(cursor.at, dict);
    out[prefix + dict..total - 1].fill(b' ');
    out[total - 1] = b'\n';
    Ok(total)
}
