//! An embedding table over caller bytes: rows of one [`RowType`], checked once to be whole
//! rows, then read row by row into `f32` accumulators with no further checks.

use super::half::{bf16_to_f32, f16_to_f32};
use super::pool::PoolError;
use super::row_type::RowType;

/// `rows` rows of `width` values of `row_type`, packed in `bytes` (row `k` at
/// `k * row_bytes`). Built by [`new`](Self::new), which checks the length once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableView<'a> {
    bytes: &'a [u8],
    rows: usize,
    width: usize,
    row_bytes: usize,
    row_type: RowType,
}

impl<'a> TableView<'a> {
    /// A table of rows of `width` values of `row_type` over `bytes`.
    ///
    /// Errors: [`TableRows`](PoolError::TableRows) if `width` is 0, a row's size overflows,
    /// or `bytes` is not whole rows.
    ///
    /// ```
    /// use tessera_core::data::{PoolError, RowType, TableView};
    ///
    /// // Two int8 rows of width 2: codes, then scale and bias (little-endian f32).
    /// let mut bytes = [0u8; 20];
    /// bytes[..2].copy_from_slice(&[1, 3]);
    /// bytes[2..6].copy_from_slice(&0.5f32.to_le_bytes());
    /// bytes[6..10].copy_from_slice(&(-1.0f32).to_le_bytes());
    /// let table = TableView::new(&bytes, 2, RowType::Int8Rowwise).unwrap();
    /// assert_eq!((table.rows(), table.row_bytes()), (2, 10));
    /// assert_eq!(table.value(0, 1), Some(0.5)); // 3 * 0.5 - 1
    ///
    /// assert_eq!(
    ///     TableView::new(&bytes[..19], 2, RowType::Int8Rowwise),
    ///     Err(PoolError::TableRows { len: 19, width: 2, row_bytes: 10 })
    /// );
    /// ```
    pub fn new(bytes: &'a [u8], width: usize, row_type: RowType) -> Result<Self, PoolError> {
        let bad = |row_bytes| PoolError::TableRows {
            len: bytes.len(),
            width,
            row_bytes,
        };
        let row_bytes = row_type.row_bytes(width).ok_or(bad(usize::MAX))?;
        if width == 0 {
            return Err(bad(row_bytes));
        }
        // `row_bytes > 0`: the width is at least 1 and every type takes a byte per value.
        let rows = bytes.len() / row_bytes;
        if rows * row_bytes != bytes.len() {
            return Err(bad(row_bytes));
        }
        Ok(Self {
            bytes,
            rows,
            width,
            row_bytes,
            row_type,
        })
    }

    /// Rows in the table (its vocabulary).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Values per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Bytes per row.
    pub fn row_bytes(&self) -> usize {
        self.row_bytes
    }

    /// How the rows are stored.
    pub fn row_type(&self) -> RowType {
        self.row_type
    }

    /// The table's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Value `j` of row `row` as `f32` (dequantized for int8 rows), if both exist.
    pub fn value(&self, row: usize, j: usize) -> Option<f32> {
        if row >= self.rows || j >= self.width {
            return None;
        }
        let lanes = self.row(row);
        Some(match self.row_type {
            RowType::F32 => f32_le(&lanes[j * 4..]),
            RowType::F16 => f16_le(&lanes[j * 2..]),
            RowType::Bf16 => bf16_le(&lanes[j * 2..]),
            RowType::Int8Rowwise => {
                let (scale, bias) = self.qparams(lanes);
                dequantize(lanes[j], scale, bias)
            }
        })
    }

    /// The bytes of row `row < rows`.
    #[inline]
    fn row(&self, row: usize) -> &'a [u8] {
        &self.bytes[row * self.row_bytes..(row + 1) * self.row_bytes]
    }

    /// An int8 row's scale and bias (its last 8 bytes).
    #[inline]
    fn qparams(&self, row: &[u8]) -> (f32, f32) {
        let at = self.width;
        (f32_le(&row[at..at + 4]), f32_le(&row[at + 4..at + 8]))
    }

    /// Adds row `row < rows` into `acc` (`width` floats), each value times `weight` where
    /// there is one: `acc[j] = acc[j] + v[j]` or `acc[j] = acc[j] + weight * v[j]`, one
    /// rounding per operation.
    #[inline]
    pub(crate) fn accumulate(&self, row: usize, weight: Option<f32>, acc: &mut [f32]) {
        let bytes = self.row(row);
        match self.row_type {
            RowType::F32 => add(acc, bytes, 4, weight, f32_le),
            RowType::F16 => add(acc, bytes, 2, weight, f16_le),
            RowType::Bf16 => add(acc, bytes, 2, weight, bf16_le),
            RowType::Int8Rowwise => {
                let (scale, bias) = self.qparams(bytes);
                let codes = &bytes[..self.width];
                add(acc, codes, 1, weight, |q| dequantize(q[0], scale, bias));
            }
        }
    }
}

/// `q * scale + bias`: a rounded multiply, then a rounded add (Rust never contracts these into
/// an FMA; the GPU kernel writes `__fmul_rn` then `__fadd_rn`).
#[inline(always)]
fn dequantize(q: u8, scale: f32, bias: f32) -> f32 {
    f32::from(q) * scale + bias
}

#[inline(always)]
fn f32_le(b: &[u8]) -> f32 {
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[inline(always)]
fn f16_le(b: &[u8]) -> f32 {
    f16_to_f32(u16::from_le_bytes([b[0], b[1]]))
}

#[inline(always)]
fn bf16_le(b: &[u8]) -> f32 {
    bf16_to_f32(u16::from_le_bytes([b[0], b[1]]))
}

/// Adds the values decoded from `bytes` (`size` bytes each) to `acc`, lane by lane, weighted
/// or not; the branch on the weight is outside the loop.
#[inline(always)]
fn add(
    acc: &mut [f32],
    bytes: &[u8],
    size: usize,
    weight: Option<f32>,
    decode: impl Fn(&[u8]) -> f32,
) {
    let values = bytes.chunks_exact(size);
    match weight {
        None => {
            for (a, v) in acc.iter_mut().zip(values) {
                *a += decode(v);
            }
        }
        Some(w) => {
            for (a, v) in acc.iter_mut().zip(values) {
                *a += w * decode(v);
            }
        }
    }
}
