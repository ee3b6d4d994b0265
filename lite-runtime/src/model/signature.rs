//! [`SignatureDef`] (named entry points: input and output names mapped to tensors of a
//! subgraph) and [`Metadata`] (named buffers).

use super::List;
use super::list::{Ctx, sealed::FromTable};
use super::reader::Table;

/// `SignatureDef` table slots.
pub(crate) mod slot {
    pub const INPUTS: usize = 0;
    pub const OUTPUTS: usize = 1;
    pub const KEY: usize = 2;
    pub const SUBGRAPH_INDEX: usize = 4;
}

/// `TensorMap` table slots.
pub(crate) mod map_slot {
    pub const NAME: usize = 0;
    pub const TENSOR_INDEX: usize = 1;
}

/// `Metadata` table slots.
pub(crate) mod metadata_slot {
    pub const NAME: usize = 0;
    pub const BUFFER: usize = 1;
}

/// A signature (verified: subgraph index and tensor indices in range, names present).
#[derive(Clone, Copy, Debug)]
pub struct SignatureDef<'a> {
    ctx: Ctx<'a>,
    t: Table,
}

impl<'a> FromTable<'a> for SignatureDef<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, _index: usize) -> Self {
        Self { ctx, t }
    }
}

impl<'a> SignatureDef<'a> {
    /// The signature key (`"serving_default"`), empty when absent.
    #[must_use]
    pub fn key(&self) -> &'a str {
        self.t.str(self.ctx.buf, slot::KEY).unwrap_or("")
    }

    /// The subgraph it runs.
    #[must_use]
    pub fn subgraph_index(&self) -> usize {
        self.t.u32(self.ctx.buf, slot::SUBGRAPH_INDEX, 0) as usize
    }

    /// Named inputs.
    #[must_use]
    pub fn inputs(&self) -> List<'a, TensorMap<'a>> {
        List::new(self.ctx, self.t.vector(self.ctx.buf, slot::INPUTS))
    }

    /// Named outputs.
    #[must_use]
    pub fn outputs(&self) -> List<'a, TensorMap<'a>> {
        List::new(self.ctx, self.t.vector(self.ctx.buf, slot::OUTPUTS))
    }
}

/// A name for a tensor of a signature's subgraph.
#[derive(Clone, Copy, Debug)]
pub struct TensorMap<'a> {
    ctx: Ctx<'a>,
    t: Table,
}

impl<'a> FromTable<'a> for TensorMap<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, _index: usize) -> Self {
        Self { ctx, t }
    }
}

impl<'a> TensorMap<'a> {
    /// The name.
    #[must_use]
    pub fn name(&self) -> &'a str {
        self.t.str(self.ctx.buf, map_slot::NAME).unwrap_or("")
    }

    /// Index of the tensor in the signature's subgraph.
    #[must_use]
    pub fn tensor_index(&self) -> usize {
        self.t.u32(self.ctx.buf, map_slot::TENSOR_INDEX, 0) as usize
    }
}

/// A named metadata buffer.
#[derive(Clone, Copy, Debug)]
pub struct Metadata<'a> {
    ctx: Ctx<'a>,
    t: Table,
}

impl<'a> FromTable<'a> for Metadata<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, _index: usize) -> Self {
        Self { ctx, t }
    }
}

impl<'a> Metadata<'a> {
    /// The name (`"min_runtime_version"`), empty when absent.
    #[must_use]
    pub fn name(&self) -> &'a str {
        self.t.str(self.ctx.buf, metadata_slot::NAME).unwrap_or("")
    }

    /// Index of its buffer.
    #[must_use]
    pub fn buffer_index(&self) -> usize {
        self.t.u32(self.ctx.buf, metadata_slot::BUFFER, 0) as usize
    }

    /// Its bytes.
    #[must_use]
    pub fn data(&self) -> &'a [u8] {
        let ctx = self.ctx;
        let i = self.buffer_index();
        if i >= ctx.buffers.len {
            return &[];
        }
        super::buffer::data_of(ctx.buf, ctx.buffers.table(ctx.buf, i))
    }
}
