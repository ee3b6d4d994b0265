//! Files the program reads whole: regular files only, refused over the memory budget before
//! anything is allocated; models copied to a 16-byte boundary so that constants are read in
//! place.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use tessera_data::buffers::MemoryBudget;

use crate::failure::Failure;

/// A whole regular file, refusing one over the memory budget before reading it (and devices
/// such as `/dev/zero`, pipes and directories, whose size is not known up front).
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, Failure> {
    let limit = MemoryBudget::DEFAULT.bytes();
    let file = File::open(path).map_err(|e| Failure::file(path, e))?;
    let meta = file.metadata().map_err(|e| Failure::file(path, e))?;
    if meta.is_dir() {
        return Err(Failure::file(path, "is a directory"));
    }
    if !meta.is_file() {
        return Err(Failure::file(path, "is not a regular file"));
    }
    if meta.len() > limit {
        return Err(Failure::file(
            path,
            format!("{} bytes, over the {limit}-byte budget", meta.len()),
        ));
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(meta.len() as usize)
        .map_err(|_| Failure::file(path, format!("no memory for {} bytes", meta.len())))?;
    // `take`: a file that grows while being read stops at the budget.
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::file(path, e))?;
    Ok(bytes)
}

/// The model's bytes at a 16-byte aligned address, so that constants are read in place.
pub struct ModelBytes {
    buf: Vec<u8>,
    at: usize,
    len: usize,
}

impl ModelBytes {
    /// The file at `path`, read whole ([`read_bounded`]) and copied to an aligned address.
    pub fn read(path: &Path) -> Result<Self, Failure> {
        let bytes = read_bounded(path)?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(bytes.len() + 16)
            .map_err(|_| Failure::file(path, "no memory for a copy of the model"))?;
        buf.resize(bytes.len() + 16, 0);
        let at = buf.as_ptr().align_offset(16).min(16);
        buf[at..at + bytes.len()].copy_from_slice(&bytes);
        Ok(Self {
            buf,
            at,
            len: bytes.len(),
        })
    }

    /// The model's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.at..self.at + self.len]
    }
}
