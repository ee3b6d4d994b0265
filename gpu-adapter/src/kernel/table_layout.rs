//! Where a set of embedding tables goes in one device allocation, and what the table-batched
//! kernel is told about them: planned with `tessera-core`'s arena and checked on the host,
//! with no GPU, so a bad table set or batch is refused before anything is copied or launched.

use tessera_alloc::VecSlots;
use tessera_core::arena::{Arena, TensorHandle};
use tessera_core::data::{
    CsrView, Key, OutOfRange, PoolError, RowType, TableView, check_slot_keys,
};

use crate::error::GpuError;
use crate::memory::DeviceMemory;

/// `u64` words describing one table to the kernel: byte offset in the allocation, rows,
/// width, bytes per row, row type ([`RowType::code`]). `TABLE_WORDS` in the kernel source.
pub const TABLE_WORDS: usize = 5;
/// `u64` words describing one slot to the kernel: its table, and its first column in a
/// sample's output row. `SLOT_WORDS` in the kernel source.
pub const SLOT_WORDS: usize = 2;

/// One table's size: `rows` rows of `width` values of `row_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableShape {
    /// Rows (the vocabulary).
    pub rows: usize,
    /// Values per row.
    pub width: usize,
    /// How a row is stored.
    pub row_type: RowType,
}

impl TableShape {
    /// The shape of a host table.
    pub fn of(table: &TableView<'_>) -> Self {
        Self {
            rows: table.rows(),
            width: table.width(),
            row_type: table.row_type(),
        }
    }

    /// Bytes per row, if the width is at least 1 and the size fits.
    pub fn row_bytes(&self) -> Option<usize> {
        self.row_type
            .row_bytes(self.width)
            .filter(|_| self.width > 0)
    }

    /// Bytes of the whole table, if they fit.
    pub fn bytes(&self) -> Option<usize> {
        self.row_bytes()?.checked_mul(self.rows)
    }
}

/// A set of tables and the table of each slot, placed in one region: every table on a
/// 32-byte boundary (so `f32`, `f16` and `bf16` rows are aligned for the kernel's reads),
/// then the table and slot descriptors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSetLayout {
    shapes: Vec<TableShape>,
    slot_tables: Vec<usize>,
    slot_columns: Vec<usize>,
    sample_width: usize,
    table_offsets: Vec<usize>,
    table_words_at: usize,
    slot_words_at: usize,
    bytes: usize,
}

impl TableSetLayout {
    /// Plans `shapes` and their descriptors in one region, slot `s` reading
    /// `shapes[slot_tables[s]]`.
    ///
    /// Errors: [`Pool`](GpuError::Pool) with [`NoSlots`](PoolError::NoSlots),
    /// [`SlotTable`](PoolError::SlotTable), [`WidthOverflow`](PoolError::WidthOverflow) or
    /// [`TableRows`](PoolError::TableRows) (a width of 0; `len` is then 0);
    /// [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena) if the sizes overflow.
    ///
    /// ```
    /// use tessera_core::data::RowType;
    /// use tessera_gpu::kernel::{TableSetLayout, TableShape};
    ///
    /// let shapes = [
    ///     TableShape { rows: 1000, width: 16, row_type: RowType::F32 },
    ///     TableShape { rows: 10, width: 3, row_type: RowType::Int8Rowwise },
    /// ];
    /// let layout = TableSetLayout::plan(&shapes, &[0, 1, 1]).unwrap();
    /// assert_eq!(layout.sample_width(), 16 + 3 + 3);
    /// assert_eq!(layout.table_offsets(), &[0, 64_000]); // 64 000 is a multiple of 32
    /// assert_eq!(layout.slot_words(), vec![0, 0, 1, 16, 1, 19]);
    /// ```
    pub fn plan(shapes: &[TableShape], slot_tables: &[usize]) -> Result<Self, GpuError> {
        if slot_tables.is_empty() {
            return Err(PoolError::NoSlots.into());
        }
        let mut arena: Arena<VecSlots, DeviceMemory> = Arena::new(VecSlots::default());
        let mut handles: Vec<TensorHandle<u8>> = Vec::with_capacity(shapes.len());
        for shape in shapes {
            if shape.width == 0 {
                return Err(PoolError::TableRows {
                    len: 0,
                    width: 0,
                    row_bytes: shape.row_type.row_bytes(0).unwrap_or(0),
                }
                .into());
            }
            let bytes = shape.bytes().ok_or(GpuError::TooLarge { what: "table" })?;
            handles.push(arena.reserve::<u8>(&[bytes])?);
        }
        let mut slot_columns = Vec::with_capacity(slot_tables.len());
        let mut sample_width = 0usize;
        for (slot, &table) in slot_tables.iter().enumerate() {
            let shape = shapes.get(table).ok_or(PoolError::SlotTable {
                slot,
                table,
                tables: shapes.len(),
            })?;
            slot_columns.push(sample_width);
            sample_width = sample_width
                .checked_add(shape.width)
                .ok_or(PoolError::WidthOverflow { slot })?;
        }
        let too_large = GpuError::TooLarge {
            what: "table descriptors",
        };
        let table_words = shapes
            .len()
            .checked_mul(TABLE_WORDS)
            .ok_or(too_large.clone())?;
        let slot_words = slot_tables.len().checked_mul(SLOT_WORDS).ok_or(too_large)?;
        let tables_handle = arena.reserve::<u64>(&[table_words])?;
        let slots_handle = arena.reserve::<u64>(&[slot_words])?;
        let bytes = arena.required_bytes()?;
        let table_offsets = handles
            .iter()
            .map(|h| arena.offset(h))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            shapes: shapes.to_vec(),
            slot_tables: slot_tables.to_vec(),
            slot_columns,
            sample_width,
            table_offsets,
            table_words_at: arena.offset(&tables_handle)?,
            slot_words_at: arena.offset(&slots_handle)?,
            bytes,
        })
    }

    /// Lanes the table-batched kernel gives each CSR row: enough for the widest table to
    /// take one pass (a lane reads four values where a table's width is a multiple of 4,
    /// else one), as a power of two from 1 to [`WARP`](super::WARP).
    ///
    /// ```
    /// use tessera_core::data::RowType;
    /// use tessera_gpu::kernel::{TableSetLayout, TableShape};
    ///
    /// let shape = |width| TableShape { rows: 10, width, row_type: RowType::F16 };
    /// let lanes = |widths: &[usize]| {
    ///     let shapes: Vec<_> = widths.iter().map(|&w| shape(w)).collect();
    ///     TableSetLayout::plan(&shapes, &[0]).unwrap().lanes_per_row()
    /// };
    /// assert_eq!(lanes(&[16]), 4);
    /// assert_eq!(lanes(&[16, 128]), 32);
    /// assert_eq!(lanes(&[3]), 4); // not a multiple of 4: a value per lane
    /// assert_eq!(lanes(&[1000]), 32);
    /// ```
    pub fn lanes_per_row(&self) -> u32 {
        let widest = self
            .shapes
            .iter()
            .map(|s| {
                if s.width % 4 == 0 {
                    s.width / 4
                } else {
                    s.width
                }
            })
            .max()
            .unwrap_or(1);
        widest.clamp(1, super::WARP as usize).next_power_of_two() as u32
    }

    /// The tables' shapes.
    pub fn shapes(&self) -> &[TableShape] {
        &self.shapes
    }

    /// The table of each slot.
    pub fn slot_tables(&self) -> &[usize] {
        &self.slot_tables
    }

    /// Slots per sample.
    pub fn slots(&self) -> usize {
        self.slot_tables.len()
    }

    /// Floats of one sample's pooled output (its slots' widths, added).
    pub fn sample_width(&self) -> usize {
        self.sample_width
    }

    /// Byte offset of each table in the region (multiples of 32).
    pub fn table_offsets(&self) -> &[usize] {
        &self.table_offsets
    }

    /// Byte offset of the table descriptors ([`table_words`](Self::table_words)).
    pub fn table_words_at(&self) -> usize {
        self.table_words_at
    }

    /// Byte offset of the slot descriptors ([`slot_words`](Self::slot_words)).
    pub fn slot_words_at(&self) -> usize {
        self.slot_words_at
    }

    /// Bytes of the whole region.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The table descriptors, [`TABLE_WORDS`] per table.
    pub fn table_words(&self) -> Vec<u64> {
        let mut words = Vec::with_capacity(self.shapes.len() * TABLE_WORDS);
        for (shape, &offset) in self.shapes.iter().zip(&self.table_offsets) {
            // `plan` checked the row size.
            let row_bytes = shape.row_bytes().unwrap_or(0);
            words.extend([
                offset as u64,
                shape.rows as u64,
                shape.width as u64,
                row_bytes as u64,
                u64::from(shape.row_type.code()),
            ]);
        }
        words
    }

    /// The slot descriptors, [`SLOT_WORDS`] per slot.
    pub fn slot_words(&self) -> Vec<u64> {
        self.slot_tables
            .iter()
            .zip(&self.slot_columns)
            .flat_map(|(&t, &c)| [t as u64, c as u64])
            .collect()
    }

    /// Checks a batch before it is launched: its rows are whole samples of this set's slots,
    /// and every key names a row of its slot's table (under [`OutOfRange::Modulo`], that its
    /// table is not empty). The first bad key in CSR order, as the kernel would report it.
    ///
    /// Errors: [`Pool`](GpuError::Pool) with
    /// [`RowsNotSamples`](PoolError::RowsNotSamples) or
    /// [`KeyOutOfRange`](PoolError::KeyOutOfRange).
    pub fn check_batch<K: Key>(
        &self,
        csr: CsrView<'_, K>,
        out_of_range: OutOfRange,
    ) -> Result<(), GpuError> {
        let vocab = |t: usize| self.shapes.get(t).map(|s| s.rows);
        Ok(check_slot_keys(
            csr,
            &self.slot_tables,
            vocab,
            out_of_range,
        )?)
    }

    /// Bytes of table rows a batch reads (a key's row, once per key), for bandwidth figures;
    /// `None` if the batch's rows are not whole samples.
    pub fn row_bytes_read<K: Key>(&self, csr: CsrView<'_, K>) -> Option<u64> {
        let slots = self.slot_tables.len();
        if csr.rows() % slots != 0 {
            return None;
        }
        let per_key = |slot: usize| {
            let shape = self.shapes[self.slot_tables[slot]];
            shape.row_bytes().unwrap_or(0) as u64
        };
        Some(
            csr.iter()
                .enumerate()
                .map(|(r, keys)| keys.len() as u64 * per_key(r % slots))
                .sum(),
        )
    }
}

#[cfg(test)]
mod tests;
