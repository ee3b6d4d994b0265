//! The flatbuffer reader under the model views: checked reads for verification at load
//! ([`Verifier`]) and the reads accessors use afterwards ([`Table`], [`Vector`]).
//!
//! Every read is an explicit little-endian decode of a byte slice, so big-endian hosts and
//! models at odd addresses work. Reads after verification go through `get` and fall back to
//! a default instead of panicking: verification already proved them in bounds, and a bug
//! must not turn into an out-of-bounds read.
//!
//! Code size against speed: on bare-metal targets (`target_os = "none"`: firmware, where
//! flash is what runs out) the reads are kept out of line, one copy each: inlined at their
//! hundreds of call sites they cost the Cortex-M4 framework 5.1 KB of its 36 KB. Elsewhere
//! they are inlined: out of line, loading a model on x86-64 took twice as long.

use core::cell::Cell;

use super::error::{ErrorKind, Location, ModelError};

/// Reads `N` bytes at `pos`, or `None` past the end (or on overflow).
#[inline]
pub(crate) fn bytes_at<const N: usize>(buf: &[u8], pos: usize) -> Option<[u8; N]> {
    let end = pos.checked_add(N)?;
    buf.get(pos..end)?.try_into().ok()
}

/// Little-endian `u8` at `pos`; 0 when out of bounds (never after verification).
#[inline]
pub(crate) fn u8_at(buf: &[u8], pos: usize) -> u8 {
    buf.get(pos).copied().unwrap_or(0)
}

/// Little-endian `u16` at `pos`; 0 when out of bounds.
#[inline]
pub(crate) fn u16_at(buf: &[u8], pos: usize) -> u16 {
    bytes_at(buf, pos).map_or(0, u16::from_le_bytes)
}

/// Little-endian `u32` at `pos`; 0 when out of bounds.
#[inline]
pub(crate) fn u32_at(buf: &[u8], pos: usize) -> u32 {
    bytes_at(buf, pos).map_or(0, u32::from_le_bytes)
}

/// Little-endian `i32` at `pos`; 0 when out of bounds.
#[inline]
pub(crate) fn i32_at(buf: &[u8], pos: usize) -> i32 {
    bytes_at(buf, pos).map_or(0, i32::from_le_bytes)
}

/// Little-endian `u64` at `pos`; 0 when out of bounds.
#[inline]
pub(crate) fn u64_at(buf: &[u8], pos: usize) -> u64 {
    bytes_at(buf, pos).map_or(0, u64::from_le_bytes)
}

/// Follows the `uoffset` stored at `pos` (relative to `pos` itself); `pos` when it cannot.
#[inline]
pub(crate) fn follow(buf: &[u8], pos: usize) -> usize {
    pos.checked_add(u32_at(buf, pos) as usize).unwrap_or(pos)
}

/// A verified table: its position and its vtable's, so a field lookup is two reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    /// Position of the table (its `soffset` to the vtable).
    pub pos: usize,
    /// Position of the vtable.
    vtable: usize,
    /// Number of field slots in the vtable.
    slots: usize,
}

impl Table {
    /// Position of field `slot`, or `None` when the field is absent (reads the default).
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn field(&self, buf: &[u8], slot: usize) -> Option<usize> {
        if slot >= self.slots {
            return None;
        }
        match u16_at(buf, self.vtable + 4 + 2 * slot) {
            0 => None,
            off => Some(self.pos + usize::from(off)),
        }
    }

    /// Field `slot` as a `u8`, or `default`.
    #[inline]
    pub fn u8(&self, buf: &[u8], slot: usize, default: u8) -> u8 {
        self.field(buf, slot).map_or(default, |p| u8_at(buf, p))
    }

    /// Field `slot` as an `i32`, or `default`.
    #[inline]
    pub fn i32(&self, buf: &[u8], slot: usize, default: i32) -> i32 {
        self.field(buf, slot).map_or(default, |p| i32_at(buf, p))
    }

    /// Field `slot` as a `u32`, or `default`.
    #[inline]
    pub fn u32(&self, buf: &[u8], slot: usize, default: u32) -> u32 {
        self.field(buf, slot).map_or(default, |p| u32_at(buf, p))
    }

    /// Field `slot` as a `u64`, or `default`.
    #[inline]
    pub fn u64(&self, buf: &[u8], slot: usize, default: u64) -> u64 {
        self.field(buf, slot).map_or(default, |p| u64_at(buf, p))
    }

    /// Field `slot` as a `bool` (any non-zero byte is true), or `default`.
    #[inline]
    pub fn bool(&self, buf: &[u8], slot: usize, default: bool) -> bool {
        self.field(buf, slot)
            .map_or(default, |p| u8_at(buf, p) != 0)
    }

    /// Field `slot` as an `f32`, or `default`.
    #[inline]
    pub fn f32(&self, buf: &[u8], slot: usize, default: f32) -> f32 {
        self.field(buf, slot)
            .map_or(default, |p| f32::from_bits(u32_at(buf, p)))
    }

    /// The table that field `slot` points to (verified at load), or `None` when absent.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn table(&self, buf: &[u8], slot: usize) -> Option<Table> {
        self.field(buf, slot)
            .map(|p| Table::at(buf, follow(buf, p)))
    }

    /// The vector that field `slot` points to, or an empty one when absent.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn vector(&self, buf: &[u8], slot: usize) -> Vector {
        self.field(buf, slot)
            .map_or(Vector::EMPTY, |p| Vector::at(buf, follow(buf, p)))
    }

    /// Whether field `slot` is present.
    #[inline]
    pub fn has(&self, buf: &[u8], slot: usize) -> bool {
        self.field(buf, slot).is_some()
    }

    /// The string that field `slot` points to (verified UTF-8 at load), or `None`.
    #[inline]
    pub fn str<'a>(&self, buf: &'a [u8], slot: usize) -> Option<&'a str> {
        self.field(buf, slot).map(|p| str_at(buf, follow(buf, p)))
    }

    /// The table at `pos`, trusted: its vtable was checked by [`Verifier::table`].
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn at(buf: &[u8], pos: usize) -> Table {
        let vtable = pos.wrapping_sub(i32_at(buf, pos) as isize as usize);
        Table {
            pos,
            vtable,
            slots: usize::from(u16_at(buf, vtable).saturating_sub(4)) / 2,
        }
    }
}

/// The string at `pos` (its length word), trusted: checked by [`Verifier::string`]. Checked
/// again for UTF-8 here instead of an `unsafe` unchecked conversion: names are short.
pub(crate) fn str_at(buf: &[u8], pos: usize) -> &str {
    core::str::from_utf8(string_bytes_at(buf, pos)).unwrap_or("")
}

/// The bytes of the string at `pos` (its length word), trusted, without the UTF-8 check
/// (what a byte comparison needs).
pub(crate) fn string_bytes_at(buf: &[u8], pos: usize) -> &[u8] {
    let len = u32_at(buf, pos) as usize;
    pos.checked_add(4)
        .and_then(|s| buf.get(s..s.checked_add(len)?))
        .unwrap_or(&[])
}

/// A verified vector: where its elements start and how many there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vector {
    /// Position of the first element (just past the length word).
    pub start: usize,
    /// Number of elements.
    pub len: usize,
}

impl Vector {
    /// The empty vector (an absent field).
    pub const EMPTY: Vector = Vector { start: 0, len: 0 };

    /// The vector whose length word is at `pos`, trusted.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn at(buf: &[u8], pos: usize) -> Vector {
        Vector {
            start: pos.saturating_add(4),
            len: u32_at(buf, pos) as usize,
        }
    }

    /// The elements' bytes, `size` bytes each.
    #[inline]
    pub fn bytes<'a>(&self, buf: &'a [u8], size: usize) -> &'a [u8] {
        self.len
            .checked_mul(size)
            .and_then(|n| buf.get(self.start..self.start.checked_add(n)?))
            .unwrap_or(&[])
    }

    /// The table that element `i` of a vector of tables points to.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn table(&self, buf: &[u8], i: usize) -> Table {
        Table::at(buf, follow(buf, self.start + 4 * i))
    }

    /// The string that element `i` of a vector of strings points to.
    #[inline]
    pub fn str<'a>(&self, buf: &'a [u8], i: usize) -> &'a str {
        str_at(buf, follow(buf, self.start + 4 * i))
    }
}

/// A check failed; the [`ModelError`] itself waits in [`Verifier::failure`]. Keeping the
/// error out of every `Result` keeps the checks' return values in registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fault;

/// Verification state: the file, what is being checked (for errors) and how many bytes may
/// still be checked.
pub(crate) struct Verifier<'a> {
    /// The first error found (set by [`Verifier::err`]).
    pub failure: Cell<Option<ModelError>>,
    /// The whole file.
    pub buf: &'a [u8],
    /// The indices of what is being checked, copied into every error.
    pub at: Location,
    /// Bytes that may still be verified. Objects may be shared (a vector whose entries all point
    /// at one large table), so without a budget a small file could cost quadratic time.
    budget: usize,
}

/// Position `pos + off`, or an overflow error.
#[inline]
fn add(pos: usize, off: usize) -> Option<usize> {
    pos.checked_add(off)
}

impl<'a> Verifier<'a> {
    /// A verifier over `buf` with a budget of 16 times its length plus 64 KiB.
    pub fn new(buf: &'a [u8]) -> Self {
        Self {
            failure: Cell::new(None),
            buf,
            at: Location::default(),
            budget: buf.len().saturating_mul(16).saturating_add(1 << 16),
        }
    }

    /// Records an error at `offset` while reading `field`, at the current location.
    #[cold]
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn err(&self, kind: ErrorKind, field: &'static str, offset: usize) -> Fault {
        self.failure.set(Some(ModelError {
            kind,
            location: self.at,
            field,
            offset,
        }));
        Fault
    }

    /// Spends `n` bytes of the budget.
    #[inline]
    fn spend(&mut self, n: usize, field: &'static str, pos: usize) -> Result<(), Fault> {
        match self.budget.checked_sub(n) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.err(ErrorKind::TooComplex, field, pos)),
        }
    }

    /// Checks that `size` bytes at `pos` are in the file and `pos` is aligned to `align`.
    #[inline]
    pub fn range(
        &self,
        pos: usize,
        size: usize,
        align: usize,
        field: &'static str,
    ) -> Result<(), Fault> {
        if pos & (align - 1) != 0 {
            return Err(self.err(ErrorKind::Misaligned { align }, field, pos));
        }
        match pos.checked_add(size) {
            Some(end) if end <= self.buf.len() => Ok(()),
            _ => Err(self.err(
                ErrorKind::OutOfBounds {
                    size: size as u64,
                    len: self.buf.len(),
                },
                field,
                pos,
            )),
        }
    }

    /// Follows the `uoffset` at `pos` to the object it points to (checked in bounds and for
    /// overflow, not yet the object itself).
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn follow(&self, pos: usize, field: &'static str) -> Result<usize, Fault> {
        self.range(pos, 4, 4, field)?;
        let target = add(pos, u32_at(self.buf, pos) as usize)
            .ok_or_else(|| self.err(ErrorKind::OffsetOverflow, field, pos))?;
        if target >= self.buf.len() {
            return Err(self.err(
                ErrorKind::OutOfBounds {
                    size: 1,
                    len: self.buf.len(),
                },
                field,
                pos,
            ));
        }
        Ok(target)
    }

    /// Checks the table at `pos`: its `soffset`, its vtable in bounds, even and at least 4
    /// bytes long, and every field it lists inside the table's inline size.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn table(&mut self, pos: usize, field: &'static str) -> Result<Table, Fault> {
        self.range(pos, 4, 4, field)?;
        let soff = i32_at(self.buf, pos);
        let vtable = (pos as i64)
            .checked_sub(i64::from(soff))
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| self.err(ErrorKind::OffsetOverflow, field, pos))?;
        self.range(vtable, 4, 2, field)?;
        let vt_len = usize::from(u16_at(self.buf, vtable));
        let inline_len = usize::from(u16_at(self.buf, vtable + 2));
        if vt_len < 4 || vt_len % 2 != 0 || inline_len < 4 {
            return Err(self.err(ErrorKind::Vtable, field, vtable));
        }
        self.range(vtable, vt_len, 2, field)?;
        self.range(pos, inline_len, 4, field)?;
        self.spend(vt_len + inline_len, field, pos)?;
        let table = Table {
            pos,
            vtable,
            slots: (vt_len - 4) / 2,
        };
        // Fields must lie inside the table; their sizes are checked by the typed reads below.
        for slot in 0..table.slots {
            let off = usize::from(u16_at(self.buf, vtable + 4 + 2 * slot));
            if off != 0 && (off < 4 || off >= inline_len) {
                return Err(self.err(ErrorKind::Vtable, field, vtable));
            }
        }
        Ok(table)
    }

    /// Checks a scalar field of `size` bytes (in bounds, aligned); returns its position.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn scalar(
        &self,
        t: Table,
        slot: usize,
        size: usize,
        field: &'static str,
    ) -> Result<Option<usize>, Fault> {
        match t.field(self.buf, slot) {
            None => Ok(None),
            Some(p) => {
                self.range(p, size, size, field)?;
                Ok(Some(p))
            }
        }
    }

    /// Reads a checked `u8` field, or `default`.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn u8(&self, t: Table, slot: usize, default: u8, f: &'static str) -> Result<u8, Fault> {
        Ok(self
            .scalar(t, slot, 1, f)?
            .map_or(default, |p| u8_at(self.buf, p)))
    }

    /// Reads a checked `i32` field, or `default`.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn i32(&self, t: Table, slot: usize, default: i32, f: &'static str) -> Result<i32, Fault> {
        Ok(self
            .scalar(t, slot, 4, f)?
            .map_or(default, |p| i32_at(self.buf, p)))
    }

    /// Reads a checked `u32` field, or `default`.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn u32(&self, t: Table, slot: usize, default: u32, f: &'static str) -> Result<u32, Fault> {
        Ok(self
            .scalar(t, slot, 4, f)?
            .map_or(default, |p| u32_at(self.buf, p)))
    }

    /// Reads a checked `u64` field, or `default`.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn u64(&self, t: Table, slot: usize, default: u64, f: &'static str) -> Result<u64, Fault> {
        Ok(self
            .scalar(t, slot, 8, f)?
            .map_or(default, |p| u64_at(self.buf, p)))
    }

    /// Checks the table that offset field `slot` points to; `None` when absent.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn sub_table(
        &mut self,
        t: Table,
        slot: usize,
        f: &'static str,
    ) -> Result<Option<Table>, Fault> {
        match self.scalar(t, slot, 4, f)? {
            None => Ok(None),
            Some(p) => {
                let pos = self.follow(p, f)?;
                self.table(pos, f).map(Some)
            }
        }
    }

    /// Checks the vector at `pos` (length word aligned to 4, elements of `size` bytes aligned
    /// to `size`, all in bounds).
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn vector_at(&mut self, pos: usize, size: usize, f: &'static str) -> Result<Vector, Fault> {
        self.range(pos, 4, 4, f)?;
        let len = u32_at(self.buf, pos) as usize;
        let start = pos + 4;
        if start & (size.min(8) - 1) != 0 {
            return Err(self.err(ErrorKind::Misaligned { align: size }, f, pos));
        }
        let bytes = len
            .checked_mul(size)
            .ok_or_else(|| self.err(ErrorKind::OffsetOverflow, f, pos))?;
        match start.checked_add(bytes) {
            Some(end) if end <= self.buf.len() => {}
            _ => {
                return Err(self.err(
                    ErrorKind::OutOfBounds {
                        size: (bytes as u64).saturating_add(4),
                        len: self.buf.len(),
                    },
                    f,
                    pos,
                ));
            }
        }
        self.spend(bytes.saturating_add(4), f, pos)?;
        Ok(Vector { start, len })
    }

    /// Checks the vector that offset field `slot` points to; empty when absent.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn vector(
        &mut self,
        t: Table,
        slot: usize,
        size: usize,
        f: &'static str,
    ) -> Result<Vector, Fault> {
        Ok(self.vector_opt(t, slot, size, f)?.unwrap_or(Vector::EMPTY))
    }

    /// Checks the vector that offset field `slot` points to; `None` when absent.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn vector_opt(
        &mut self,
        t: Table,
        slot: usize,
        size: usize,
        f: &'static str,
    ) -> Result<Option<Vector>, Fault> {
        match self.scalar(t, slot, 4, f)? {
            None => Ok(None),
            Some(p) => {
                let pos = self.follow(p, f)?;
                self.vector_at(pos, size, f).map(Some)
            }
        }
    }

    /// Checks the string at `pos`: in bounds, NUL-terminated, UTF-8.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn string_at(&mut self, pos: usize, f: &'static str) -> Result<(), Fault> {
        let v = self.vector_at(pos, 1, f)?;
        let bytes = v.bytes(self.buf, 1);
        if self.buf.get(v.start + v.len) != Some(&0) {
            return Err(self.err(ErrorKind::NoNulTerminator, f, pos));
        }
        if !is_utf8(bytes) {
            return Err(self.err(ErrorKind::NotUtf8, f, pos));
        }
        Ok(())
    }

    /// Checks the string that offset field `slot` points to; whether there is one.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn string(&mut self, t: Table, slot: usize, f: &'static str) -> Result<bool, Fault> {
        match self.scalar(t, slot, 4, f)? {
            None => Ok(false),
            Some(p) => {
                let pos = self.follow(p, f)?;
                self.string_at(pos, f).map(|()| true)
            }
        }
    }

    /// Checks element `i` of a vector of offsets to tables and returns the table.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn table_in(&mut self, v: Vector, i: usize, f: &'static str) -> Result<Table, Fault> {
        let pos = self.follow(v.start + 4 * i, f)?;
        self.table(pos, f)
    }
}

/// Whether `bytes` are UTF-8 as [`core::str::from_utf8`] decides it (no overlong forms, no
/// surrogates, nothing past U+10FFFF), a character at a time. `from_utf8` reads words at a
/// time for speed: 368 bytes of a Cortex-M4F image, for names a few bytes long that the
/// views later read with it only where a program asks for them.
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&lead) = bytes.get(i) {
        let (len, least) = match lead {
            0x00..=0x7F => {
                i += 1;
                continue;
            }
            0xC2..=0xDF => (2, 0x80),
            0xE0..=0xEF => (3, 0x800),
            0xF0..=0xF4 => (4, 0x1_0000),
            _ => return false,
        };
        let Some(tail) = bytes.get(i + 1..i + len) else {
            return false;
        };
        let mut c = u32::from(lead) & (0x7F >> len);
        for &b in tail {
            if b & 0xC0 != 0x80 {
                return false;
            }
            c = (c << 6) | u32::from(b & 0x3F);
        }
        if c < least || c > 0x10_FFFF || (0xD800..=0xDFFF).contains(&c) {
            return false;
        }
        i += len;
    }
    true
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::is_utf8;

    #[test]
    #[cfg_attr(miri, ignore = "16 M inputs: natively a second, under Miri hours")]
    fn is_utf8_agrees_with_core_on_every_short_input() {
        for n in 0..=0xFF_FFFFu32 {
            let [a, b, c, _] = n.to_le_bytes();
            for bytes in [&[a][..], &[a, b], &[a, b, c]] {
                assert_eq!(
                    is_utf8(bytes),
                    core::str::from_utf8(bytes).is_ok(),
                    "{bytes:x?}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 8 } else { 256 },
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn is_utf8_agrees_with_core(
            text in ".{0,12}",
            noise in prop::collection::vec(any::<u8>(), 0..8),
            at in any::<prop::sample::Index>(),
            cut in any::<prop::sample::Index>(),
        ) {
            // Valid text, then the same with bytes spliced in and cut short.
            let mut bytes = text.into_bytes();
            prop_assert!(is_utf8(&bytes));
            let i = at.index(bytes.len() + 1);
            bytes.splice(i..i, noise);
            let n = cut.index(bytes.len() + 1);
            for b in [&bytes[..], &bytes[..n]] {
                prop_assert_eq!(is_utf8(b), core::str::from_utf8(b).is_ok());
            }
        }
    }
}
