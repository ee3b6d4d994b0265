//! Errors of the data-path decoders: what is wrong, at which sample and byte offset.

use core::fmt;

use super::batch::BatchError;

/// A decoding error: what went wrong ([`DataErrorKind`]), in which sample (`None` for the
/// header or the file as a whole) and at which byte offset from the start of the stream.
///
/// The file is named one level up (the readers in `tessera-lite` wrap this with the path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DataError {
    /// What is wrong.
    pub kind: DataErrorKind,
    /// The sample's index in the file, from 0; `None` for the header or the whole file.
    pub sample: Option<u64>,
    /// Byte offset in the stream of the field at fault (the record's start for a checksum).
    pub offset: u64,
}

/// What is wrong with the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DataErrorKind {
    /// A header field disagrees with the configuration (`label_dim`, `dense_dim`, `slot_num`,
    /// `error_check`).
    HeaderMismatch {
        /// The header field.
        field: &'static str,
        /// The configured value.
        expected: i64,
        /// The value in the file.
        found: i64,
    },
    /// A header field holds an impossible value (a negative count, `error_check` not 0 or 1).
    BadHeader {
        /// The header field.
        field: &'static str,
        /// The value in the file.
        found: i64,
    },
    /// A record's stored 8-bit checksum is not the sum of its payload bytes.
    Checksum {
        /// The `checkbits` byte in the file.
        stored: u8,
        /// The wrapping sum of the payload bytes.
        computed: u8,
    },
    /// A record's `length` field is negative or disagrees with the record's contents.
    FrameLength {
        /// The `length` field.
        found: i64,
        /// The payload length the contents imply.
        expected: u64,
    },
    /// The stream ended inside a record (or the header).
    Truncated {
        /// Bytes the record needs from its start.
        needed: u64,
        /// Bytes there were.
        available: u64,
    },
    /// The stream ended at a record boundary before the header's `number_of_records`.
    MissingRecords {
        /// `number_of_records` in the header.
        expected: u64,
        /// Records present.
        found: u64,
    },
    /// A slot's `nnz` is negative.
    NegativeNnz {
        /// The slot.
        slot: u32,
        /// The value read.
        nnz: i32,
    },
    /// A slot's `nnz` is above the configured maximum.
    NnzTooLarge {
        /// The slot.
        slot: u32,
        /// The value read.
        nnz: u32,
        /// The configured maximum.
        max: u32,
    },
    /// Bytes follow the last record the header announced.
    TrailingBytes {
        /// How many.
        count: u64,
    },
    /// A Raw file's length is not a whole number of samples.
    RawSize {
        /// Bytes per sample.
        sample_bytes: u64,
        /// Bytes left over after the last whole sample.
        remainder: u64,
    },
    /// A key does not fit the configured key type (a Raw or Parquet value, or a slot offset).
    KeyRange {
        /// The slot.
        slot: u32,
        /// The value.
        value: i64,
    },
    /// A single sample does not fit in an empty batch (its keys exceed the CSR's values).
    Batch(BatchError),
    /// A cursor set's worker thread panicked (a bug in its source, not in the bytes); the
    /// pass ends there as it would at bad bytes. `sample` is `None` and `offset` 0.
    WorkerPanicked {
        /// The worker, `0..workers`.
        worker: u64,
    },
    /// A dataset reader failed outside the bytes of a record: a file that cannot be opened
    /// or read, a Parquet page, a stale row count. The whole error (with the file's path) is
    /// kept by the reader (`tessera_data::dataset::DatasetPlan::failure`).
    Source {
        /// The file's index in the reader's list.
        file: u64,
    },
    /// A source numbered a batch at or below one already handed out, so a cursor set's
    /// batches cannot be put in order (its partitions do not number batches as
    /// `SliceSource::partition` does). `sample` is `None` and `offset` 0.
    BatchOrder {
        /// The batch number received.
        id: u64,
        /// The batch number handed out before it.
        after: u64,
    },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sample {
            Some(s) => write!(f, "sample {s}, byte {}: {}", self.offset, self.kind),
            None => write!(f, "byte {}: {}", self.offset, self.kind),
        }
    }
}

impl fmt::Display for DataErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::HeaderMismatch {
                field,
                expected,
                found,
            } => {
                write!(f, "header {field} is {found}, configured {expected}")
            }
            Self::BadHeader { field, found } => write!(f, "header {field} is invalid: {found}"),
            Self::Checksum { stored, computed } => write!(
                f,
                "checksum mismatch: stored {stored:#04x}, payload sums to {computed:#04x}"
            ),
            Self::FrameLength { found, expected } => {
                write!(
                    f,
                    "record length field is {found}, contents need {expected}"
                )
            }
            Self::Truncated { needed, available } => {
                write!(f, "truncated: {needed} needed, {available} present")
            }
            Self::MissingRecords { expected, found } => {
                write!(
                    f,
                    "header announces {expected} records, the stream has {found}"
                )
            }
            Self::NegativeNnz { slot, nnz } => write!(f, "slot {slot}: negative nnz {nnz}"),
            Self::NnzTooLarge { slot, nnz, max } => {
                write!(f, "slot {slot}: nnz {nnz} above the maximum {max}")
            }
            Self::TrailingBytes { count } => write!(f, "{count} bytes after the last record"),
            Self::RawSize {
                sample_bytes,
                remainder,
            } => write!(
                f,
                "file is not whole samples of {sample_bytes} bytes: {remainder} bytes left over"
            ),
            Self::KeyRange { slot, value } => {
                write!(f, "slot {slot}: key {value} does not fit the key type")
            }
            Self::Batch(e) => write!(f, "sample does not fit an empty batch: {e}"),
            Self::WorkerPanicked { worker } => write!(f, "cursor set worker {worker} panicked"),
            Self::Source { file } => write!(f, "dataset file {file} could not be read"),
            Self::BatchOrder { id, after } => {
                write!(
                    f,
                    "batch {id} came after batch {after}: sources out of order"
                )
            }
        }
    }
}

impl core::error::Error for DataError {}

/// What a decoder does with a bad sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorPolicy {
    /// Return the error; the decoder stops (the default).
    #[default]
    Stop,
    /// Leave the sample out, count it in [`DecodeStats::skipped`] and keep the first error in
    /// [`DecodeStats::first_skipped`]; go on with the next sample. Errors after which the next
    /// sample cannot be found (a negative `nnz` without a checksum frame, a bad header) still
    /// stop.
    Skip,
}

/// What a decoder has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodeStats {
    /// Samples added to batches.
    pub decoded: u64,
    /// Samples left out under [`ErrorPolicy::Skip`] (including samples the header announced
    /// that the stream did not contain).
    pub skipped: u64,
    /// The first error behind a skip, to report.
    pub first_skipped: Option<DataError>,
}

/// Why an encoder could not write a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EncodeError {
    /// The output buffer is too small; nothing was written.
    Capacity(crate::error::CapacityError),
    /// A label, dense or slot list of the wrong length.
    Width {
        /// `"label"`, `"dense"` or `"slots"`.
        what: &'static str,
        /// The configured dimension.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A slot with more keys than the configured `max_nnz`.
    NnzTooLarge {
        /// The slot.
        slot: usize,
        /// Its number of keys.
        nnz: usize,
        /// The configured maximum.
        max: u32,
    },
}

impl From<crate::error::CapacityError> for EncodeError {
    fn from(e: crate::error::CapacityError) -> Self {
        Self::Capacity(e)
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Capacity(e) => write!(f, "{e}"),
            Self::Width {
                what,
                expected,
                found,
            } => {
                write!(f, "{what} has {found} entries, {expected} configured")
            }
            Self::NnzTooLarge { slot, nnz, max } => {
                write!(f, "slot {slot} has {nnz} keys, above the maximum {max}")
            }
        }
    }
}

impl core::error::Error for EncodeError {}
