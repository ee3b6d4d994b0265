//! [`Sparsity`]: TensorFlow Lite's sparse tensor encoding (TACO): a traversal order over the
//! dense and block dimensions, and per dimension either DENSE or SPARSE_CSR segments and
//! indices stored as int32, uint16 or uint8.

use super::list::{Ctx, sealed::FromTable};
use super::reader::{Table, Vector};
use super::vectors::{I32s, LeSlice};

/// `SparsityParameters` table slots.
pub(crate) mod slot {
    pub const TRAVERSAL_ORDER: usize = 0;
    pub const BLOCK_MAP: usize = 1;
    pub const DIM_METADATA: usize = 2;
}

/// `DimensionMetadata` table slots.
pub(crate) mod dim_slot {
    pub const FORMAT: usize = 0;
    pub const DENSE_SIZE: usize = 1;
    /// `array_segments`'s union type; the value is the next slot.
    pub const SEGMENTS_TYPE: usize = 2;
    /// `array_indices`'s union type; the value is the next slot.
    pub const INDICES_TYPE: usize = 4;
}

/// A sparse tensor's encoding (verified: traversal order a permutation, block map in range,
/// segments non-decreasing from 0 to the index count, indices below the dimension's size).
#[derive(Clone, Copy, Debug)]
pub struct Sparsity<'a> {
    ctx: Ctx<'a>,
    t: Table,
}

impl<'a> Sparsity<'a> {
    /// Wraps a verified table.
    pub(crate) fn new(ctx: Ctx<'a>, t: Table) -> Self {
        Self { ctx, t }
    }

    /// The order in which dimensions are traversed: the dense dimensions `0..n` permuted, then
    /// the block dimensions `n..n + k` permuted.
    #[must_use]
    pub fn traversal_order(&self) -> I32s<'a> {
        I32s::new(self.vec(slot::TRAVERSAL_ORDER).bytes(self.ctx.buf, 4))
    }

    /// For each block dimension, the dense dimension it splits (empty: not block-sparse).
    #[must_use]
    pub fn block_map(&self) -> I32s<'a> {
        I32s::new(self.vec(slot::BLOCK_MAP).bytes(self.ctx.buf, 4))
    }

    /// Metadata for each dimension in traversal order.
    #[must_use]
    pub fn dim_metadata(&self) -> super::List<'a, DimensionMetadata<'a>> {
        super::List::new(self.ctx, self.vec(slot::DIM_METADATA))
    }

    fn vec(&self, s: usize) -> Vector {
        self.t.vector(self.ctx.buf, s)
    }
}

/// How one traversed dimension is stored.
#[derive(Clone, Copy, Debug)]
pub struct DimensionMetadata<'a> {
    ctx: Ctx<'a>,
    t: Table,
}

impl<'a> FromTable<'a> for DimensionMetadata<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, _index: usize) -> Self {
        Self { ctx, t }
    }
}

/// A dimension's storage.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum DimensionFormat<'a> {
    /// Every index stored implicitly.
    Dense {
        /// The dimension's size.
        size: usize,
    },
    /// Compressed: for each element of the previous dimensions, a segment of `indices`.
    SparseCsr {
        /// `segments[i] .. segments[i + 1]` are the indices under element `i`.
        segments: SparseIndices<'a>,
        /// Indices within this dimension of the stored elements.
        indices: SparseIndices<'a>,
    },
}

impl<'a> DimensionMetadata<'a> {
    /// The dimension's format and its data.
    #[must_use]
    pub fn format(&self) -> DimensionFormat<'a> {
        let buf = self.ctx.buf;
        if self.t.u8(buf, dim_slot::FORMAT, 0) == 0 {
            let size = self.t.i32(buf, dim_slot::DENSE_SIZE, 0);
            DimensionFormat::Dense {
                size: usize::try_from(size).unwrap_or(0),
            }
        } else {
            DimensionFormat::SparseCsr {
                segments: index_vector(self.ctx.buf, self.t, dim_slot::SEGMENTS_TYPE),
                indices: index_vector(self.ctx.buf, self.t, dim_slot::INDICES_TYPE),
            }
        }
    }
}

/// The `SparseIndexVector` union at `type_slot` (the value is the next slot), trusted.
pub(crate) fn index_vector(buf: &[u8], t: Table, type_slot: usize) -> SparseIndices<'_> {
    let values = t
        .table(buf, type_slot + 1)
        .map_or(Vector::EMPTY, |v| v.vector(buf, 0));
    match t.u8(buf, type_slot, 0) {
        1 => SparseIndices::I32(I32s::new(values.bytes(buf, 4))),
        2 => SparseIndices::U16(LeSlice::new(values.bytes(buf, 2))),
        _ => SparseIndices::U8(values.bytes(buf, 1)),
    }
}

/// Segment or index values of a sparse dimension, in the width the model stores them.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum SparseIndices<'a> {
    /// `Int32Vector` (verified non-negative).
    I32(I32s<'a>),
    /// `Uint16Vector`.
    U16(LeSlice<'a, u16>),
    /// `Uint8Vector`.
    U8(&'a [u8]),
}

impl SparseIndices<'_> {
    /// Number of values.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Self::I32(v) => v.len(),
            Self::U16(v) => v.len(),
            Self::U8(v) => v.len(),
        }
    }

    /// Whether there are no values.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` widened to `usize`, or `None` past the end.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<usize> {
        match self {
            Self::I32(v) => v.get(i).map(|x| usize::try_from(x).unwrap_or(0)),
            Self::U16(v) => v.get(i).map(usize::from),
            Self::U8(v) => v.get(i).map(|&x| usize::from(x)),
        }
    }

    /// The values widened to `usize`.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or(0))
    }
}
