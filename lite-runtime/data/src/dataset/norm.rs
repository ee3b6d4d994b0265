//! Norm datasets: a file list of Norm files (or one file), read into batches.

use std::path::{Path, PathBuf};

use tessera_core::data::{
    Check, DataError, DataErrorKind, Dims, ErrorPolicy, Key, NormConfig, NormDecoder, NormHeader,
    SampleBatch,
};

use super::error::DatasetError;
use super::input::{Input, IoMode};
use super::stats::ReadStats;
use super::stream::{FileId, Format, StreamReader};

/// Reads the Norm files of a dataset into batches, with keys of type `K` (`u32` or `i64`, as
/// the files were written).
///
/// Under [`ErrorPolicy::Skip`] bad samples are skipped and counted (see
/// [`NormDecoder::decode`]), and so is a whole file whose header is well-formed (framing and
/// checksum included) but disagrees with the configuration (`label_dim`, `dense_dim`,
/// `slot_num`, `error_check`): it counts as the `number_of_records` its header announces,
/// the only count there is. A header that cannot be read (truncated, bad checksum, negative
/// count) stops the reader even under Skip, as nothing says how many samples were lost.
pub(crate) struct NormReader<K: Key> {
    inner: StreamReader<K, NormFormat>,
}

pub(crate) struct NormFormat {
    config: NormConfig,
}

impl<K: Key> Format<K> for NormFormat {
    type Decoder = NormDecoder<K>;

    fn policy(&self) -> ErrorPolicy {
        self.config.policy
    }

    fn start(
        &self,
        _: &mut Input,
        _: Option<u64>,
        _: &Path,
    ) -> Result<NormDecoder<K>, DatasetError> {
        Ok(NormDecoder::new(self.config))
    }

    fn skip_whole(&self, error: &DataError, head: &[u8]) -> Option<u64> {
        if error.sample.is_some() || !matches!(error.kind, DataErrorKind::HeaderMismatch { .. }) {
            return None;
        }
        let payload = match self.config.check {
            Check::None => 0,
            Check::Sum => 4,
        };
        // `number_of_records` is the header's second int64.
        let at = payload + 8;
        let bytes: [u8; 8] = head.get(at..at + 8)?.try_into().ok()?;
        u64::try_from(i64::from_le_bytes(bytes)).ok()
    }

    fn skip_to(&self, decoder: &mut NormDecoder<K>, sample: u64, offset: u64) -> bool {
        decoder.skip_to(sample, offset);
        decoder.position() == sample && decoder.offset() == offset
    }
}

impl<K: Key> NormReader<K> {
    /// A reader of `paths`, in order.
    pub(crate) fn new(paths: Vec<PathBuf>, config: NormConfig) -> Self {
        Self {
            inner: StreamReader::new(NormFormat { config }, paths),
        }
    }

    /// The same reader, getting bytes through `io` (a memory map by default).
    pub(crate) fn with_io(mut self, io: IoMode) -> Self {
        self.inner.set_io(io);
        self
    }

    /// Up to `max` records (decoded or skipped) into `batch`; the records used.
    pub(crate) fn read_records(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
        max: u64,
    ) -> Result<u64, DatasetError> {
        self.inner.read_records(batch, max)
    }

    /// Passes over `n` records; the records passed.
    pub(crate) fn pass_records(&mut self, n: u64) -> Result<u64, DatasetError> {
        self.inner.pass_records(n)
    }

    /// Opens the file and reads its header, if not yet (see [`StreamReader::ready`]).
    pub(crate) fn ready(&mut self) -> Result<u64, DatasetError> {
        self.inner.ready()
    }

    /// The byte offset of the next record, and the file (see [`StreamReader::offset`]).
    pub(crate) fn offset(&self) -> Option<(u64, FileId)> {
        self.inner.offset()
    }

    /// Jumps `n` records ahead to byte `offset` (see [`StreamReader::jump`]).
    pub(crate) fn jump(&mut self, n: u64, offset: u64) -> bool {
        self.inner.jump(n, offset)
    }

    /// The per-file account, for a [`DatasetSource`](super::DatasetSource) to take over.
    pub(crate) fn stats_mut(&mut self) -> &mut ReadStats {
        self.inner.stats_mut()
    }
}

/// What a Norm file's header says, read without a configuration (for `inspect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NormFileHeader {
    /// Whether records are framed with checksums (`error_check`).
    pub check: Check,
    /// `number_of_records`.
    pub records: u64,
    /// `label_dim`, `dense_dim`, `slot_num`.
    pub dims: Dims,
}

impl NormFileHeader {
    /// Reads the header at the start of the Norm file at `path`, framed or not.
    pub fn read(path: &Path) -> Result<Self, DatasetError> {
        use std::io::Read;
        let mut head = Vec::with_capacity(NormHeader::LEN + 5);
        std::fs::File::open(path)
            .and_then(|f| f.take(NormHeader::LEN as u64 + 5).read_to_end(&mut head))
            .map_err(DatasetError::io(path))?;
        Self::parse(&head).map_err(|error| DatasetError::Data {
            path: path.to_owned(),
            error,
        })
    }

    /// The header at the start of `head`: framed (`[int32 64][header][sum]`, `error_check`
    /// 1) or not (`error_check` 0).
    pub fn parse(head: &[u8]) -> Result<Self, DataError> {
        let word = |at: usize| -> Option<i64> {
            Some(i64::from_le_bytes(head.get(at..at + 8)?.try_into().ok()?))
        };
        let framed = head.get(..4) == Some(&64i32.to_le_bytes()[..]) && word(4) == Some(1);
        let (check, at) = if framed {
            (Check::Sum, 4)
        } else {
            (Check::None, 0)
        };
        let needed = at + NormHeader::LEN + if framed { 1 } else { 0 };
        let err = |kind, offset| DataError {
            kind,
            sample: None,
            offset,
        };
        if head.len() < needed {
            let kind = DataErrorKind::Truncated {
                needed: needed as u64,
                available: head.len() as u64,
            };
            return Err(err(kind, 0));
        }
        let payload = &head[at..at + NormHeader::LEN];
        if framed {
            let stored = head[at + NormHeader::LEN];
            let computed = tessera_core::data::norm::checksum(payload);
            if stored != computed {
                return Err(err(DataErrorKind::Checksum { stored, computed }, 0));
            }
        }
        let field = |i: usize| word(at + 8 * i).unwrap_or(-1);
        if !framed && field(0) != 0 {
            let kind = DataErrorKind::BadHeader {
                field: "error_check",
                found: field(0),
            };
            return Err(err(kind, at as u64));
        }
        let bad = |i: usize, name: &'static str| {
            let kind = DataErrorKind::BadHeader {
                field: name,
                found: field(i),
            };
            err(kind, (at + 8 * i) as u64)
        };
        let count = |i: usize, name| usize::try_from(field(i)).map_err(|_| bad(i, name));
        let records = u64::try_from(field(1)).map_err(|_| bad(1, "number_of_records"))?;
        let dims = Dims::new(
            count(2, "label_dim")?,
            count(3, "dense_dim")?,
            count(4, "slot_num")?,
        );
        Ok(Self {
            check,
            records,
            dims,
        })
    }
}
