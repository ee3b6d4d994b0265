//! Many tables pooled in one pass (FBGEMM's table-batched embedding): a set of tables of any
//! row counts, widths and row types, a map from each slot of a sample to its table, and a
//! CSR batch in HugeCTR's layout (row `sample * slots + slot`) pooled into one output row per
//! sample, the slots' pooled rows side by side. The CPU reference of the GPU's one-launch
//! pooling, and the host-side check of a batch before it is launched.

use super::bag::{check_weights, pool_row, row_weights};
use super::csr::CsrView;
use super::key::Key;
use super::pool::{OutOfRange, PoolConfig, PoolError, resolve, wide};
use super::table::TableView;

/// Tables and the table of each slot, checked once by [`new`](Self::new): every slot names
/// a table of the set, and a sample's output width fits `usize`.
#[derive(Debug, Clone, Copy)]
pub struct TableSet<'t, 'a> {
    tables: &'t [TableView<'a>],
    slot_tables: &'t [usize],
    sample_width: usize,
}

impl<'t, 'a> TableSet<'t, 'a> {
    /// The set of `tables`, slot `s` of every sample reading `tables[slot_tables[s]]` (tables
    /// may serve several slots, or none).
    ///
    /// Errors: [`NoSlots`](PoolError::NoSlots), [`SlotTable`](PoolError::SlotTable),
    /// [`WidthOverflow`](PoolError::WidthOverflow).
    ///
    /// ```
    /// use tessera_core::data::{CsrView, PoolConfig, Pooling, RowType, TableSet, TableView};
    ///
    /// // Table 0: two f32 rows of width 1; table 1: one f16 row of width 2, (1.5, -2).
    /// let t0: Vec<u8> = [10.0f32, 20.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// let t1: Vec<u8> = [0x3E00u16, 0xC000].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// let tables = [
    ///     TableView::new(&t0, 1, RowType::F32).unwrap(),
    ///     TableView::new(&t1, 2, RowType::F16).unwrap(),
    /// ];
    /// // Slots 0 and 2 read table 0, slot 1 reads table 1: 1 + 2 + 1 floats per sample.
    /// let set = TableSet::new(&tables, &[0, 1, 0]).unwrap();
    /// assert_eq!(set.sample_width(), 4);
    ///
    /// // One sample: slot 0 {0, 1}, slot 1 {0}, slot 2 {}.
    /// let csr = CsrView::new(&[0u32, 2, 3, 3][..], &[0u32, 1, 0][..]).unwrap();
    /// let mut out = [0f32; 4];
    /// set.pool(csr, None, &mut out, PoolConfig::new(Pooling::Sum)).unwrap();
    /// assert_eq!(out, [30.0, 1.5, -2.0, 0.0]);
    /// ```
    pub fn new(tables: &'t [TableView<'a>], slot_tables: &'t [usize]) -> Result<Self, PoolError> {
        if slot_tables.is_empty() {
            return Err(PoolError::NoSlots);
        }
        let mut sample_width = 0usize;
        for (slot, &table) in slot_tables.iter().enumerate() {
            let t = tables.get(table).ok_or(PoolError::SlotTable {
                slot,
                table,
                tables: tables.len(),
            })?;
            sample_width = sample_width
                .checked_add(t.width())
                .ok_or(PoolError::WidthOverflow { slot })?;
        }
        Ok(Self {
            tables,
            slot_tables,
            sample_width,
        })
    }

    /// Slots per sample.
    pub fn slots(&self) -> usize {
        self.slot_tables.len()
    }

    /// Floats of one sample's output: the widths of its slots' tables, added.
    pub fn sample_width(&self) -> usize {
        self.sample_width
    }

    /// The tables.
    pub fn tables(&self) -> &'t [TableView<'a>] {
        self.tables
    }

    /// The table of each slot.
    pub fn slot_tables(&self) -> &'t [usize] {
        self.slot_tables
    }

    /// The table slot `slot` reads, if there is such a slot.
    pub fn table_of(&self, slot: usize) -> Option<TableView<'a>> {
        self.tables.get(*self.slot_tables.get(slot)?).copied()
    }

    /// Pools every CSR row of `csr` (`samples x slots` rows, row `sample * slots + slot`)
    /// over its slot's table into `out`: `samples x sample_width` floats, sample after sample,
    /// each sample's slots side by side in slot order (TBE's `[batch, total width]` output).
    /// Each row's arithmetic is [`embedding_bag_rows`](super::embedding_bag_rows)'s, with
    /// `weights` one per CSR value where given; a key's vocabulary is its slot's table's.
    ///
    /// Shapes are checked before anything is written. A bad key stops the call: earlier rows
    /// hold their results, the failing row is zeros, later rows are untouched.
    ///
    /// Errors: [`RowsNotSamples`](PoolError::RowsNotSamples),
    /// [`OutputLen`](PoolError::OutputLen), [`WeightsLen`](PoolError::WeightsLen),
    /// [`KeyOutOfRange`](PoolError::KeyOutOfRange) (its `row` is the CSR row, so the slot is
    /// `row % slots`).
    pub fn pool<K: Key>(
        &self,
        csr: CsrView<'_, K>,
        weights: Option<&[f32]>,
        out: &mut [f32],
        config: PoolConfig,
    ) -> Result<(), PoolError> {
        let samples = self.samples(csr.rows())?;
        let expected = samples.saturating_mul(self.sample_width);
        if out.len() != expected {
            return Err(PoolError::OutputLen {
                expected,
                found: out.len(),
            });
        }
        check_weights(csr, weights)?;
        let (mut start, mut at) = (0, 0);
        let slots = self.slot_tables.iter().cycle();
        for (r, (keys, &table)) in csr.iter().zip(slots).enumerate() {
            // `new` checked every slot's table; `out` holds every row's width (checked above).
            let table = self.tables[table];
            let acc = &mut out[at..at + table.width()];
            pool_row(
                r,
                keys,
                row_weights(weights, start, keys.len()),
                table,
                acc,
                config,
            )?;
            start += keys.len();
            at += table.width();
        }
        Ok(())
    }

    /// Checks a batch before a device pools it, with no output: the rows are whole samples
    /// and every key names a row of its slot's table (or, under
    /// [`OutOfRange::Modulo`], its table is not empty). Reports the first bad key in CSR
    /// order, as [`pool`](Self::pool) would.
    ///
    /// Errors: [`RowsNotSamples`](PoolError::RowsNotSamples),
    /// [`KeyOutOfRange`](PoolError::KeyOutOfRange).
    pub fn check_keys<K: Key>(
        &self,
        csr: CsrView<'_, K>,
        out_of_range: OutOfRange,
    ) -> Result<(), PoolError> {
        check_slot_keys(
            csr,
            self.slot_tables,
            |t| self.tables.get(t).map(TableView::rows),
            out_of_range,
        )
    }

    fn samples(&self, rows: usize) -> Result<usize, PoolError> {
        let slots = self.slot_tables.len();
        if rows % slots != 0 {
            return Err(PoolError::RowsNotSamples { rows, slots });
        }
        Ok(rows / slots)
    }
}

/// [`TableSet::check_keys`] for tables known only by their row counts (a device's tables,
/// whose bytes the host does not hold): `vocab(t)` is table `t`'s row count, `None` if there
/// is no table `t`.
///
/// Errors: [`NoSlots`](PoolError::NoSlots), [`SlotTable`](PoolError::SlotTable) (with the
/// table count unknown: `tables` is then the first missing index),
/// [`RowsNotSamples`](PoolError::RowsNotSamples), [`KeyOutOfRange`](PoolError::KeyOutOfRange).
///
/// ```
/// use tessera_core::data::{CsrView, OutOfRange, PoolError, check_slot_keys};
///
/// let vocab = [3usize, 1];
/// // One sample of two slots: slot 0 (table 0) {2}, slot 1 (table 1) {0, 1}.
/// let csr = CsrView::new(&[0u32, 1, 3][..], &[2u32, 0, 1][..]).unwrap();
/// let err = check_slot_keys(csr, &[0, 1], |t| vocab.get(t).copied(), OutOfRange::Error);
/// assert_eq!(err, Err(PoolError::KeyOutOfRange { row: 1, position: 1, key: 1, vocab: 1 }));
/// ```
pub fn check_slot_keys<K: Key>(
    csr: CsrView<'_, K>,
    slot_tables: &[usize],
    vocab: impl Fn(usize) -> Option<usize>,
    out_of_range: OutOfRange,
) -> Result<(), PoolError> {
    let slots = slot_tables.len();
    if slots == 0 {
        return Err(PoolError::NoSlots);
    }
    let rows = csr.rows();
    if rows % slots != 0 {
        return Err(PoolError::RowsNotSamples { rows, slots });
    }
    let modulo = out_of_range == OutOfRange::Modulo;
    for (r, (keys, &table)) in csr.iter().zip(slot_tables.iter().cycle()).enumerate() {
        let vocab = vocab(table).ok_or(PoolError::SlotTable {
            slot: r % slots,
            table,
            tables: table,
        })?;
        if modulo && vocab > 0 {
            continue;
        }
        if let Some(position) = keys
            .iter()
            .position(|&k| resolve(k, vocab, false).is_none())
        {
            return Err(PoolError::KeyOutOfRange {
                row: r,
                position,
                key: wide(keys[position]),
                vocab,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
