//! [`Buffer`]: one entry of the model's buffer list, inline data or a region of the file
//! (the `offset` / `size` form of models over 2 GB).

use super::list::{Ctx, sealed::FromTable};
use super::reader::Table;

/// `Buffer` table slots.
pub(crate) mod slot {
    pub const DATA: usize = 0;
    pub const OFFSET: usize = 1;
    pub const SIZE: usize = 2;
}

/// `Buffer.offset` values up to this one mean "no region": the schema says the offset "is
/// only valid if > 1", and TensorFlow Lite's writer uses 1 as a placeholder.
pub(crate) const NO_OFFSET: u64 = 1;

/// A buffer of the model (verified: its region lies inside the file).
#[derive(Clone, Copy, Debug)]
pub struct Buffer<'a> {
    ctx: Ctx<'a>,
    t: Table,
    index: usize,
}

impl<'a> FromTable<'a> for Buffer<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, index: usize) -> Self {
        Self { ctx, t, index }
    }
}

impl<'a> Buffer<'a> {
    /// Index in `Model.buffers`.
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The buffer's bytes: the inline `data`, or the file region `offset .. offset + size`
    /// when `offset > 1`. Empty for buffers without data (buffer 0 and non-constant tensors).
    #[must_use]
    pub fn data(&self) -> &'a [u8] {
        data_of(self.ctx.buf, self.t)
    }

    /// Whether the data lies outside the flatbuffer (the `offset` / `size` form).
    #[must_use]
    pub fn is_external(&self) -> bool {
        self.t.u64(self.ctx.buf, slot::OFFSET, 0) > NO_OFFSET
    }
}

/// The bytes of verified buffer table `t`.
pub(crate) fn data_of(buf: &[u8], t: Table) -> &[u8] {
    let offset = t.u64(buf, slot::OFFSET, 0);
    if offset > NO_OFFSET {
        let size = t.u64(buf, slot::SIZE, 0);
        let region = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(o, s)| buf.get(o..o.checked_add(s)?));
        region.unwrap_or(&[])
    } else {
        t.vector(buf, slot::DATA).bytes(buf, 1)
    }
}
