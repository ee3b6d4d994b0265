//! The bytes of one data file, for the streaming decoders: a read-only memory map of a
//! regular file, or a growing buffer filled by reads (pipes, devices, or on request).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::time::SystemTime;

use memmap2::Mmap;

use crate::buffers::MemoryBudget;

/// The most bytes a buffered input holds at once (one record plus a chunk, or a whole Raw
/// file read from a pipe): more is an `OutOfMemory` I/O error carrying a
/// [`MemoryError`](super::MemoryError), never an endless read of an endless device.
const HOLD_LIMIT: MemoryBudget = MemoryBudget::new(256 << 20);

/// The most trailing bytes [`Input::count_rest`] reads to count them: past it an endless
/// device (`/dev/zero`) would be read forever; the count is then a lower bound.
const COUNT_LIMIT: u64 = 64 << 20;

/// How the Norm and Raw readers get a file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoMode {
    /// Memory-map regular files (no copy, the kernel reads ahead); read anything else
    /// (pipes, devices, empty files) through a buffer. The default.
    ///
    /// A mapped file must not be changed while it is read: another process truncating it
    /// makes the reader's next access fault (`SIGBUS`), and one writing it makes the bytes
    /// change under the decoder. Use [`Buffered`](Self::Buffered) for files that may be.
    #[default]
    Map,
    /// Read every file through a buffer, `chunk` bytes at a time (grown to hold a whole
    /// record when one is larger).
    Buffered {
        /// Bytes per read.
        chunk: usize,
    },
}

impl IoMode {
    /// Buffered reads of 1 MiB.
    // A function, not an associated constant: cbindgen would export the constant, and with
    // it an opaque `IoMode`, into the C header.
    pub const fn buffered() -> Self {
        Self::Buffered { chunk: 1 << 20 }
    }
}

/// A file's unconsumed bytes.
#[derive(Debug)]
pub(crate) enum Input {
    Mapped {
        map: Mmap,
        pos: usize,
    },
    Buffered {
        file: File,
        buf: Vec<u8>,
        start: usize,
        chunk: usize,
        eof: bool,
        /// Bytes of the file dropped from the front of `buf`.
        dropped: u64,
    },
}

/// A file just opened: its bytes, and what tells it from another file at the same path.
#[derive(Debug)]
pub(crate) struct Opened {
    pub(crate) input: Input,
    /// Its length, if it is a regular file.
    pub(crate) len: Option<u64>,
    /// Its modification time, where the system keeps one.
    pub(crate) modified: Option<SystemTime>,
}

impl Input {
    /// Opens `path` in `mode`, with its length when it is a regular file.
    pub(crate) fn open(path: &Path, mode: IoMode) -> io::Result<Opened> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        let len = meta.is_file().then_some(meta.len());
        let modified = meta.modified().ok();
        let input = match (mode, len) {
            (IoMode::Map, Some(n)) if n > 0 => Self::Mapped {
                map: map(&file)?,
                pos: 0,
            },
            (IoMode::Buffered { chunk }, _) => Self::buffered(file, chunk),
            (IoMode::Map, _) => Self::buffered(file, 1 << 20),
        };
        Ok(Opened {
            input,
            len,
            modified,
        })
    }

    fn buffered(file: File, chunk: usize) -> Self {
        Self::Buffered {
            file,
            buf: Vec::new(),
            start: 0,
            chunk: chunk.max(1),
            eof: false,
            dropped: 0,
        }
    }

    /// The offset in the file of the first byte at hand.
    pub(crate) fn position(&self) -> u64 {
        match self {
            Self::Mapped { pos, .. } => *pos as u64,
            Self::Buffered { start, dropped, .. } => dropped.saturating_add(*start as u64),
        }
    }

    /// Moves forward to offset `to` of the file without looking at the bytes in between;
    /// `false` (and nothing moved) unless the file is mapped and `to` lies between the
    /// position and the end. A buffered file is read through instead.
    pub(crate) fn jump(&mut self, to: u64) -> bool {
        if !self.can_jump(to) {
            return false;
        }
        if let (Self::Mapped { pos, .. }, Ok(to)) = (self, usize::try_from(to)) {
            *pos = to;
        }
        true
    }

    /// Whether [`jump`](Self::jump) to `to` would move.
    pub(crate) fn can_jump(&self, to: u64) -> bool {
        match self {
            Self::Mapped { map, pos } => {
                usize::try_from(to).is_ok_and(|to| to >= *pos && to <= map.len())
            }
            Self::Buffered { .. } => false,
        }
    }

    /// The unconsumed bytes at hand (all of them for a map; those read so far otherwise).
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Self::Mapped { map, pos } => &map[*pos..],
            Self::Buffered { buf, start, .. } => &buf[*start..],
        }
    }

    /// Drops the first `n` bytes at hand (`n <= bytes().len()`).
    pub(crate) fn consume(&mut self, n: usize) {
        match self {
            Self::Mapped { map, pos } => *pos = (*pos + n).min(map.len()),
            Self::Buffered { buf, start, .. } => *start = (*start + n).min(buf.len()),
        }
    }

    /// Whether every byte of the file is at hand.
    pub(crate) fn at_end(&self) -> bool {
        match self {
            Self::Mapped { .. } => true,
            Self::Buffered { eof, .. } => *eof,
        }
    }

    /// Reads until at least `needed` bytes are at hand or the file ends.
    pub(crate) fn fill(&mut self, needed: usize) -> io::Result<()> {
        let Self::Buffered {
            file,
            buf,
            start,
            chunk,
            eof,
            dropped,
        } = self
        else {
            return Ok(());
        };
        // Consumed bytes are dropped only when reading, so the buffer never grows past the
        // largest record plus one chunk.
        if *start > 0 {
            buf.drain(..*start);
            *dropped = dropped.saturating_add(*start as u64);
            *start = 0;
        }
        if needed > buf.len() {
            // A record's length comes from the file: checked before any byte is read for it.
            HOLD_LIMIT
                .check::<u8>(
                    "input held in memory (a record, or a Raw file from a pipe)",
                    needed as u128,
                )
                .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e))?;
        }
        while buf.len() < needed && !*eof {
            // Grown by what is read, not by what a (possibly corrupt) length asks for.
            let want = (*chunk).max((needed - buf.len()).min(1 << 20));
            let old = buf.len();
            buf.resize(old + want, 0);
            let got = read_some(file, &mut buf[old..]);
            buf.truncate(old + got.as_ref().map_or(0, |&n| n));
            if got? == 0 {
                *eof = true;
            }
        }
        Ok(())
    }

    /// Reads the whole rest of the file into the buffer (a map has it already); a file
    /// longer than the hold limit (256 MiB; an endless device) is an `OutOfMemory` error.
    pub(crate) fn fill_all(&mut self) -> io::Result<()> {
        while !self.at_end() {
            let have = self.bytes().len();
            self.fill(have.saturating_add(1))?;
        }
        Ok(())
    }

    /// The number of bytes left in the file, reading (and dropping) what is not at hand, up
    /// to 64 MiB more (an endless device has no count; it is then a lower bound). For the
    /// trailing-bytes error, which names the count.
    pub(crate) fn count_rest(&mut self) -> io::Result<u64> {
        let mut count = self.bytes().len() as u64;
        if let Self::Buffered {
            file,
            buf,
            start,
            chunk,
            eof,
            dropped,
        } = self
        {
            *dropped = dropped.saturating_add(buf.len() as u64);
            buf.clear();
            *start = 0;
            let mut scratch = vec![0u8; (*chunk).min(1 << 16)];
            let mut read = 0u64;
            while !*eof && read < COUNT_LIMIT {
                match read_some(file, &mut scratch)? {
                    0 => *eof = true,
                    n => read += n as u64,
                }
            }
            count = count.saturating_add(read);
        }
        Ok(count)
    }
}

/// The most bytes a text file of a dataset (a file list, a `_metadata.json`) may have.
const TEXT_LIMIT: u64 = 64 << 20;

/// The whole of a small text file (a file list, a `_metadata.json`): one longer than 64 MiB
/// (an endless device, a data file given by mistake) is a [`DatasetError::Memory`], found
/// without reading more than that.
pub(crate) fn read_text(path: &Path) -> Result<Vec<u8>, super::DatasetError> {
    let file = File::open(path).map_err(super::DatasetError::io(path))?;
    let mut bytes = Vec::new();
    file.take(TEXT_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(super::DatasetError::io(path))?;
    if bytes.len() as u64 > TEXT_LIMIT {
        let error = crate::buffers::MemoryError::OverBudget {
            what: "a text file (file list or _metadata.json)",
            bytes: u128::from(TEXT_LIMIT) + 1,
            budget: TEXT_LIMIT,
        };
        return Err(super::DatasetError::Memory {
            path: path.to_owned(),
            error,
        });
    }
    Ok(bytes)
}

/// One `read`, retried on interruption.
fn read_some(file: &mut File, out: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(out) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

/// Maps `file` read-only. The only `unsafe` of the dataset readers.
fn map(file: &File) -> io::Result<Mmap> {
    // SAFETY: `Mmap::map` is unsafe because the mapping aliases a file others may change.
    // The map is read-only and private to this reader, and the readers treat dataset files
    // as immutable inputs, the assumption HugeCTR's own readers make. If another process
    // does modify or truncate the file while it is mapped, reads may see changed bytes or
    // fault with SIGBUS; that hazard is documented on `IoMode::Map`, and `IoMode::Buffered`
    // avoids it. Decoding never trusts the bytes, so changed bytes are bad input (an error),
    // never an out-of-bounds read: every length is re-checked against the map's length.
    let map = unsafe { Mmap::map(file)? };
    // Only a hint; a failure changes nothing but speed.
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(map)
}
