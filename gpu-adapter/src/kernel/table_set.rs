//! A set of embedding tables on the device: every table, of any row count, width and row
//! type, and the descriptors the table-batched kernel reads, in one device allocation placed
//! by [`TableSetLayout`].

use tessera_core::data::TableView;
use tessera_core::memory::Memory;
use zerocopy::IntoBytes;

use super::table_layout::{TableSetLayout, TableShape};
use crate::context::Gpu;
use crate::error::GpuError;
use crate::memory::DeviceMemory;

/// Tables on the device with the table of each slot, for
/// [`TableBatchedBag`](super::TableBatchedBag). Allocated and copied once.
#[derive(Debug)]
pub struct DeviceTableSet {
    memory: DeviceMemory,
    layout: TableSetLayout,
}

impl DeviceTableSet {
    /// Copies `tables` (checked host tables, [`TableView::new`]) and their descriptors to one
    /// device allocation; slot `s` of every sample reads `tables[slot_tables[s]]`. Waits for
    /// the copies.
    ///
    /// Errors: as [`TableSetLayout::plan`], and [`Driver`](GpuError::Driver) (out of memory
    /// included).
    pub fn new(
        gpu: &Gpu,
        tables: &[TableView<'_>],
        slot_tables: &[usize],
    ) -> Result<Self, GpuError> {
        let shapes: Vec<TableShape> = tables.iter().map(TableShape::of).collect();
        let layout = TableSetLayout::plan(&shapes, slot_tables)?;
        let mut memory = DeviceMemory::new(gpu, layout.bytes())?;
        // Device memory is 256-byte aligned: the plan's offsets are the memory's.
        for (table, &offset) in tables.iter().zip(layout.table_offsets()) {
            if !table.bytes().is_empty() {
                memory.write(offset, table.bytes())?;
            }
        }
        let (table_words, slot_words) = (layout.table_words(), layout.slot_words());
        if !table_words.is_empty() {
            memory.write(layout.table_words_at(), table_words.as_bytes())?;
        }
        memory.write(layout.slot_words_at(), slot_words.as_bytes())?;
        Ok(Self { memory, layout })
    }

    /// Where everything is, and the host-side batch check
    /// ([`check_batch`](TableSetLayout::check_batch)).
    pub fn layout(&self) -> &TableSetLayout {
        &self.layout
    }

    /// The GPU handle it was uploaded with.
    pub fn gpu(&self) -> &Gpu {
        self.memory.gpu()
    }

    /// Device address of the allocation (table offsets are relative to it).
    pub fn device_ptr(&self) -> u64 {
        self.memory.device_ptr()
    }

    /// Bytes on the device, tables and descriptors together.
    pub fn bytes(&self) -> usize {
        self.memory.len()
    }
}
