//! [`Tensor`]: one tensor of a subgraph, its shape, type, name, constant data,
//! quantization and sparsity.

use tessera_core::strings::TfliteStrings;

use super::buffer::data_of;
use super::list::{Ctx, sealed::FromTable};
use super::quantization::Quantization;
use super::reader::Table;
use super::sparsity::Sparsity;
use super::types::TensorType;
use super::vectors::I32s;

/// `Tensor` table slots.
pub(crate) mod slot {
    pub const SHAPE: usize = 0;
    pub const TYPE: usize = 1;
    pub const BUFFER: usize = 2;
    pub const NAME: usize = 3;
    pub const QUANTIZATION: usize = 4;
    pub const IS_VARIABLE: usize = 5;
    pub const SPARSITY: usize = 6;
    pub const SHAPE_SIGNATURE: usize = 7;
    pub const HAS_RANK: usize = 8;
    pub const VARIANT_TENSORS: usize = 9;
}

/// A tensor of a subgraph (verified: known type, non-negative shape whose element count
/// fits in `u64`, buffer index in range, constant data of the right length).
#[derive(Clone, Copy, Debug)]
pub struct Tensor<'a> {
    ctx: Ctx<'a>,
    t: Table,
    index: usize,
}

impl<'a> FromTable<'a> for Tensor<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, index: usize) -> Self {
        Self { ctx, t, index }
    }
}

impl<'a> Tensor<'a> {
    /// Index in its subgraph's tensor list.
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The shape (every dimension non-negative).
    #[must_use]
    pub fn shape(&self) -> I32s<'a> {
        let buf = self.ctx.buf;
        I32s::new(self.t.vector(buf, slot::SHAPE).bytes(buf, 4))
    }

    /// The shape with unknown dimensions as -1, when the model records one.
    #[must_use]
    pub fn shape_signature(&self) -> Option<I32s<'a>> {
        let buf = self.ctx.buf;
        self.t
            .has(buf, slot::SHAPE_SIGNATURE)
            .then(|| I32s::new(self.t.vector(buf, slot::SHAPE_SIGNATURE).bytes(buf, 4)))
    }

    /// Number of elements: the product of the shape (1 for a scalar).
    #[must_use]
    pub fn element_count(&self) -> u64 {
        self.shape()
            .iter()
            .fold(1u64, |n, d| n.saturating_mul(u64::try_from(d).unwrap_or(0)))
    }

    /// The element type.
    #[must_use]
    pub fn tensor_type(&self) -> TensorType {
        TensorType::from_code(self.t.u8(self.ctx.buf, slot::TYPE, 0) as i8)
            .unwrap_or(TensorType::Float32)
    }

    /// Index of its buffer in `Model.buffers` (0: the empty sentinel).
    #[must_use]
    pub fn buffer_index(&self) -> usize {
        self.t.u32(self.ctx.buf, slot::BUFFER, 0) as usize
    }

    /// The constant data, little-endian as TensorFlow Lite stores it; `None` when the
    /// tensor's buffer is empty (not a constant). For a sparse tensor, the stored values.
    #[must_use]
    pub fn data(&self) -> Option<&'a [u8]> {
        let ctx = self.ctx;
        let index = self.buffer_index();
        if index >= ctx.buffers.len {
            return None;
        }
        let data = data_of(ctx.buf, ctx.buffers.table(ctx.buf, index));
        (!data.is_empty()).then_some(data)
    }

    /// The strings of a STRING constant (validated at load; this re-walks the offset table).
    #[must_use]
    pub fn strings(&self) -> Option<TfliteStrings<'a>> {
        if !self.tensor_type().is_string() {
            return None;
        }
        TfliteStrings::new(self.data()?).ok()
    }

    /// Whether this is a constant (its buffer has data).
    #[must_use]
    pub fn is_constant(&self) -> bool {
        self.data().is_some()
    }

    /// The name (every tensor has one: checked at load).
    #[must_use]
    pub fn name(&self) -> &'a str {
        self.t.str(self.ctx.buf, slot::NAME).unwrap_or("")
    }

    /// Quantization parameters, when the model gives any.
    #[must_use]
    pub fn quantization(&self) -> Option<Quantization<'a>> {
        self.t
            .table(self.ctx.buf, slot::QUANTIZATION)
            .map(|t| Quantization::new(self.ctx.buf, t))
    }

    /// Sparse encoding, when the constant is stored sparse (never without the `sparse`
    /// feature: such a model does not load).
    #[must_use]
    pub fn sparsity(&self) -> Option<Sparsity<'a>> {
        if !cfg!(feature = "sparse") {
            return None;
        }
        self.t
            .table(self.ctx.buf, slot::SPARSITY)
            .map(|t| Sparsity::new(self.ctx, t))
    }

    /// Whether this is a variable (state kept across invocations).
    #[must_use]
    pub fn is_variable(&self) -> bool {
        self.t.bool(self.ctx.buf, slot::IS_VARIABLE, false)
    }

    /// Whether the rank is known (the schema's `has_rank`; false in older files even for
    /// known shapes).
    #[must_use]
    pub fn has_rank(&self) -> bool {
        self.t.bool(self.ctx.buf, slot::HAS_RANK, false)
    }
}
