//! A column chunk's pages, checked on their way from the `parquet` crate's page reader to its
//! column reader, for faults its decoders panic on instead of returning an error.

use parquet::basic::{Encoding, Type};
use parquet::column::page::{Page, PageMetadata, PageReader};
use parquet::errors::{ParquetError, Result};
use parquet::schema::types::ColumnDescriptor;

/// Pages of one column chunk, checked for two faults of corrupt files that the crate's
/// decoders (as of `parquet` 59) panic on:
///
/// - A data page in dictionary encoding must come after the chunk's dictionary page (the
///   format puts it first). A flipped encoding, or a dictionary offset lost from the footer,
///   breaks that.
/// - A data page in byte-stream-split encoding must hold a whole value for each of its
///   non-null values. A flipped encoding turns a page of dictionary indices into one that is
///   far too short.
pub(super) struct CheckedPages {
    inner: Box<dyn PageReader>,
    dictionary: bool,
    /// Bytes per value for byte-stream-split pages; 0 where the column's type has no fixed
    /// width.
    value_size: usize,
    max_def: i16,
    max_rep: i16,
}

impl CheckedPages {
    pub(super) fn new(inner: Box<dyn PageReader>, column: &ColumnDescriptor) -> Self {
        let value_size = match column.physical_type() {
            Type::INT32 | Type::FLOAT => 4,
            Type::INT64 | Type::DOUBLE => 8,
            Type::FIXED_LEN_BYTE_ARRAY => usize::try_from(column.type_length()).unwrap_or(0),
            _ => 0,
        };
        Self {
            inner,
            dictionary: false,
            value_size,
            max_def: column.max_def_level(),
            max_rep: column.max_rep_level(),
        }
    }

    fn check(&mut self, page: &Page) -> Result<()> {
        let encoding = match page {
            Page::DictionaryPage { .. } => {
                self.dictionary = true;
                return Ok(());
            }
            Page::DataPage { encoding, .. } | Page::DataPageV2 { encoding, .. } => *encoding,
        };
        match encoding {
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY if !self.dictionary => {
                Err(corrupt(format!(
                    "a data page in {encoding} encoding with no dictionary page before it"
                )))
            }
            Encoding::BYTE_STREAM_SPLIT if self.value_size > 0 => {
                let (values, non_null) = self.values_and_non_null(page).ok_or_else(|| {
                    corrupt("a byte-stream-split data page whose levels do not decode".into())
                })?;
                if non_null > values / self.value_size {
                    return Err(corrupt(format!(
                        "a byte-stream-split data page with {non_null} values in {values} \
                         bytes"
                    )));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The bytes after a data page's levels, and how many of its values are not null.
    fn values_and_non_null(&self, page: &Page) -> Option<(usize, usize)> {
        match page {
            Page::DataPageV2 {
                buf,
                num_values,
                num_nulls,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => {
                let levels = usize::try_from(*def_levels_byte_len)
                    .ok()?
                    .checked_add(usize::try_from(*rep_levels_byte_len).ok()?)?;
                let values = buf.len().checked_sub(levels)?;
                Some((values, num_values.checked_sub(*num_nulls)? as usize))
            }
            Page::DataPage {
                buf,
                num_values,
                def_level_encoding,
                rep_level_encoding,
                ..
            } => {
                let n = *num_values as usize;
                let mut rest: &[u8] = buf;
                if self.max_rep > 0 {
                    (_, rest) = levels(rest, *rep_level_encoding, self.max_rep, n)?;
                }
                if self.max_def == 0 {
                    return Some((rest.len(), n));
                }
                let (def, values) = levels(rest, *def_level_encoding, self.max_def, n)?;
                let non_null = match def_level_encoding {
                    Encoding::RLE => count_level(def, bit_width(self.max_def), n, self.max_def)?,
                    // Deprecated bit-packed levels: count as if none were null.
                    _ => n,
                };
                Some((values.len(), non_null))
            }
            Page::DictionaryPage { .. } => None,
        }
    }
}

fn corrupt(what: String) -> ParquetError {
    ParquetError::General(format!("corrupt file: {what}"))
}

/// Bits of a level up to `max`.
fn bit_width(max: i16) -> u32 {
    i16::BITS - max.leading_zeros()
}

/// Splits `n` levels up to `max` off the front of a data page (version 1): RLE levels with
/// their `u32` length before them, or deprecated bit-packed ones without.
fn levels(buf: &[u8], encoding: Encoding, max: i16, n: usize) -> Option<(&[u8], &[u8])> {
    match encoding {
        Encoding::RLE => {
            let (len, rest) = buf.split_first_chunk::<4>()?;
            rest.split_at_checked(usize::try_from(u32::from_le_bytes(*len)).ok()?)
        }
        _ => {
            let bits = n.checked_mul(bit_width(max) as usize)?;
            buf.split_at_checked(bits.div_ceil(8))
        }
    }
}

/// How many of the first `n` levels of Parquet's RLE / bit-packing hybrid encoding, `bits`
/// wide, equal `max`; `None` if `data` ends first.
fn count_level(mut data: &[u8], bits: u32, n: usize, max: i16) -> Option<usize> {
    let max = u64::from(max.unsigned_abs());
    let (mut seen, mut count) = (0usize, 0usize);
    while seen < n {
        let header = uleb128(&mut data)?;
        let left = n - seen;
        if header & 1 == 0 {
            // A run: one value, repeated.
            let width = bits.div_ceil(8) as usize;
            let (value, rest) = data.split_at_checked(width)?;
            data = rest;
            let value = value
                .iter()
                .rev()
                .fold(0u64, |v, &b| (v << 8) | u64::from(b));
            let run = usize::try_from(header >> 1).ok()?.min(left);
            if value == max {
                count += run;
            }
            seen += run;
        } else {
            // Groups of 8 values, `bits` wide each, least significant bit first.
            let groups = usize::try_from(header >> 1).ok()?;
            let bytes = groups.checked_mul(bits as usize)?;
            let (packed, rest) = data.split_at_checked(bytes)?;
            data = rest;
            let values = groups.checked_mul(8)?.min(left);
            let mask = (1u64 << bits) - 1;
            for i in 0..values {
                let bit = i * bits as usize;
                let window = packed
                    .get(bit / 8..)?
                    .iter()
                    .take(3)
                    .rev()
                    .fold(0u64, |v, &b| (v << 8) | u64::from(b));
                if (window >> (bit % 8)) & mask == max {
                    count += 1;
                }
            }
            seen += values;
        }
    }
    Some(count)
}

/// An unsigned LEB128 varint, taken off the front of `data`.
fn uleb128(data: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = data.split_first()?;
        *data = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

impl Iterator for CheckedPages {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Result<Page>> {
        self.get_next_page().transpose()
    }
}

impl PageReader for CheckedPages {
    fn get_next_page(&mut self) -> Result<Option<Page>> {
        let page = self.inner.get_next_page()?;
        if let Some(page) = &page {
            self.check(page)?;
        }
        Ok(page)
    }

    fn peek_next_page(&mut self) -> Result<Option<PageMetadata>> {
        self.inner.peek_next_page()
    }

    fn skip_next_page(&mut self) -> Result<()> {
        // A skipped dictionary page still counts as read: the column reader skips only data.
        if self.inner.peek_next_page()?.is_some_and(|m| m.is_dict) {
            self.dictionary = true;
        }
        self.inner.skip_next_page()
    }

    fn at_record_boundary(&mut self) -> Result<bool> {
        self.inner.at_record_boundary()
    }
}

#[cfg(test)]
mod tests;
