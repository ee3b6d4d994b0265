//! The 64-byte Norm file header: eight little-endian `int64`s.

use zerocopy::little_endian::I64;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::{Check, NormConfig};
use crate::data::error::{DataError, DataErrorKind};

/// HugeCTR's `DataSetHeader`, as stored: `error_check`, `number_of_records`, `label_dim`,
/// `dense_dim`, `slot_num`, three reserved words, all little-endian `int64`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NormHeader {
    /// 0: no checksums; 1: every record framed with a length and an 8-bit sum.
    pub error_check: I64,
    /// Samples in the file.
    pub number_of_records: I64,
    /// Labels per sample.
    pub label_dim: I64,
    /// Dense features per sample.
    pub dense_dim: I64,
    /// Slots per sample.
    pub slot_num: I64,
    /// Reserved; written as zeros.
    pub reserved: [I64; 3],
}

const _: () = assert!(size_of::<NormHeader>() == NormHeader::LEN);

impl NormHeader {
    /// Bytes of the header payload.
    pub const LEN: usize = 64;

    /// The header for `records` samples of `config`'s shape and check mode.
    pub fn new(config: &NormConfig, records: u64) -> Self {
        let wide = |n: usize| I64::new(i64::try_from(n).unwrap_or(i64::MAX));
        Self {
            error_check: I64::new(match config.check {
                Check::None => 0,
                Check::Sum => 1,
            }),
            number_of_records: I64::new(i64::try_from(records).unwrap_or(i64::MAX)),
            label_dim: wide(config.dims.label_dim),
            dense_dim: wide(config.dims.dense_dim),
            slot_num: wide(config.dims.slot_num),
            reserved: [I64::ZERO; 3],
        }
    }

    /// Checks the header against the configuration; returns the number of records.
    ///
    /// `offset` is where the header payload starts in the stream (0, or 4 when framed), to
    /// name the field at fault.
    pub fn validate(&self, config: &NormConfig, offset: u64) -> Result<u64, DataError> {
        let err = |field_index: u64, kind| DataError {
            kind,
            sample: None,
            offset: offset + 8 * field_index,
        };
        let check = self.error_check.get();
        if check != 0 && check != 1 {
            return Err(err(
                0,
                DataErrorKind::BadHeader {
                    field: "error_check",
                    found: check,
                },
            ));
        }
        let configured = match config.check {
            Check::None => 0,
            Check::Sum => 1,
        };
        if check != configured {
            return Err(err(
                0,
                DataErrorKind::HeaderMismatch {
                    field: "error_check",
                    expected: configured,
                    found: check,
                },
            ));
        }
        let records = self.number_of_records.get();
        let Ok(records) = u64::try_from(records) else {
            return Err(err(
                1,
                DataErrorKind::BadHeader {
                    field: "number_of_records",
                    found: records,
                },
            ));
        };
        let dims = [
            ("label_dim", config.dims.label_dim, self.label_dim.get()),
            ("dense_dim", config.dims.dense_dim, self.dense_dim.get()),
            ("slot_num", config.dims.slot_num, self.slot_num.get()),
        ];
        for (i, (field, expected, found)) in dims.into_iter().enumerate() {
            let expected = i64::try_from(expected).unwrap_or(i64::MAX);
            if expected != found {
                return Err(err(
                    2 + i as u64,
                    DataErrorKind::HeaderMismatch {
                        field,
                        expected,
                        found,
                    },
                ));
            }
        }
        Ok(records)
    }
}
