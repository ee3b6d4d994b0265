//! Writes batches to a Norm file, either check mode, with a header whose record count is
//! set right at the end.

use std::io::{Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::PathBuf;

use tessera_core::data::{Check, Dims, Key, NormConfig, NormEncoder, SampleBatch};

use super::error::DatasetError;

/// A Norm file being written from [`SampleBatch`]es.
///
/// The header announces `announced` records when the writer is made; if a different number
/// is written (samples skipped on the way), [`finish`](Self::finish) seeks back and
/// rewrites it, so the file is only valid once finished.
pub struct NormWriter<K: Key, W: Write + Seek> {
    out: W,
    path: PathBuf,
    encoder: NormEncoder<K>,
    dims: Dims,
    announced: u64,
    records: u64,
    buf: Vec<u8>,
    _key: PhantomData<K>,
}

impl<K: Key, W: Write + Seek> NormWriter<K, W> {
    /// Starts a Norm file of `dims` samples in `check` mode on `out` (named `path` in
    /// errors), announcing `announced` records.
    pub fn new(
        mut out: W,
        path: PathBuf,
        dims: Dims,
        check: Check,
        announced: u64,
    ) -> Result<Self, DatasetError> {
        // Norm's nnz field is an int32; the encoder refuses larger slots.
        let config = NormConfig::new(dims, i32::MAX as u32).with_check(check);
        let encoder = NormEncoder::new(config);
        let mut buf = vec![0u8; config.header_bytes()];
        let n = encoder
            .header(announced, &mut buf)
            .map_err(|e| DatasetError::Config {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        out.write_all(&buf[..n]).map_err(DatasetError::io(&path))?;
        Ok(Self {
            out,
            path,
            encoder,
            dims,
            announced,
            records: 0,
            buf,
            _key: PhantomData,
        })
    }

    /// Appends every sample of `batch`.
    pub fn write_batch(&mut self, batch: &SampleBatch<'_, K>) -> Result<(), DatasetError> {
        if batch.dims() != self.dims {
            return Err(DatasetError::Config {
                path: self.path.clone(),
                reason: format!("batch dims {:?}, file dims {:?}", batch.dims(), self.dims),
            });
        }
        let mut slots: Vec<&[K]> = Vec::with_capacity(self.dims.slot_num);
        for i in 0..batch.samples() {
            slots.clear();
            slots.extend((0..self.dims.slot_num).map(|s| batch.keys(i, s).unwrap_or(&[])));
            let label = batch.labels(i).unwrap_or(&[]);
            let dense = batch.dense(i).unwrap_or(&[]);
            let len = self.encoder.sample_len(&slots);
            if self.buf.len() < len {
                self.buf.resize(len, 0);
            }
            let n = self
                .encoder
                .sample(label, dense, &slots, &mut self.buf)
                .map_err(|error| DatasetError::Encode {
                    path: self.path.clone(),
                    sample: self.records,
                    error,
                })?;
            self.out
                .write_all(&self.buf[..n])
                .map_err(DatasetError::io(&self.path))?;
            self.records += 1;
        }
        Ok(())
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Fixes the header's record count if needed, flushes, and returns the output.
    pub fn finish(mut self) -> Result<W, DatasetError> {
        let io = DatasetError::io(&self.path);
        if self.records != self.announced {
            let n = self
                .encoder
                .header(self.records, &mut self.buf)
                .map_err(|e| DatasetError::Config {
                    path: self.path.clone(),
                    reason: e.to_string(),
                })?;
            let rewrite = (|| {
                self.out.seek(SeekFrom::Start(0))?;
                self.out.write_all(&self.buf[..n])?;
                self.out.seek(SeekFrom::End(0))
            })();
            rewrite.map_err(DatasetError::io(&self.path))?;
        }
        self.out.flush().map_err(io)?;
        Ok(self.out)
    }
}
