//! A chunk of rows of one row group, read column by column and turned into rows: the
//! label/dense floats and each slot's keys (offsets applied), plus the first fault of each
//! bad row.

use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{FloatType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use tessera_core::data::Key;

use super::columns::{ColumnKind, ColumnPlan};
use crate::dataset::error::RowErrorKind;

/// A column reader of one of the types the plan allows.
pub(super) enum Values {
    F32(ColumnReaderImpl<FloatType>),
    I32(ColumnReaderImpl<Int32Type>),
    I64(ColumnReaderImpl<Int64Type>),
}

impl Values {
    /// The typed reader for `plan`'s column; `None` if the type is not the planned one.
    pub(super) fn new(reader: ColumnReader) -> Option<Self> {
        match reader {
            ColumnReader::FloatColumnReader(r) => Some(Self::F32(r)),
            ColumnReader::Int32ColumnReader(r) => Some(Self::I32(r)),
            ColumnReader::Int64ColumnReader(r) => Some(Self::I64(r)),
            _ => None,
        }
    }

    /// Skips `rows` records without decoding their values (whole pages where the page
    /// headers allow); returns the records skipped.
    pub(super) fn skip(&mut self, rows: usize) -> Result<usize, ParquetError> {
        match self {
            Self::F32(r) => r.skip_records(rows),
            Self::I32(r) => r.skip_records(rows),
            Self::I64(r) => r.skip_records(rows),
        }
    }
}

/// How slot ids become keys: the `slot_size_array` offset and, if given, the slot's size.
#[derive(Debug, Clone, Copy)]
pub(super) struct SlotRange {
    pub offset: u64,
    pub size: Option<u64>,
}

/// Rows of a row group, decoded.
#[derive(Debug)]
pub(super) struct Chunk<K> {
    /// Rows in the chunk.
    pub rows: usize,
    /// The file row of row 0.
    pub first_row: u64,
    /// The next row to hand out.
    pub cursor: usize,
    /// One vector of `rows` floats per label and dense column, in sample order.
    pub floats: Vec<Vec<f32>>,
    /// Per slot: `rows + 1` offsets into its keys, and the keys.
    pub slots: Vec<(Vec<usize>, Vec<K>)>,
    /// Per row: the first bad value's column (index into the plan) and fault.
    pub bad: Vec<Option<(usize, RowErrorKind)>>,
    // Level and value buffers, kept across chunks for their capacity.
    def: Vec<i16>,
    rep: Vec<i16>,
    f32s: Vec<f32>,
    i32s: Vec<i32>,
    i64s: Vec<i64>,
}

impl<K: Key> Chunk<K> {
    pub(super) fn new() -> Self {
        Self {
            rows: 0,
            first_row: 0,
            cursor: 0,
            floats: Vec::new(),
            slots: Vec::new(),
            bad: Vec::new(),
            def: Vec::new(),
            rep: Vec::new(),
            f32s: Vec::new(),
            i32s: Vec::new(),
            i64s: Vec::new(),
        }
    }

    /// Rows not yet handed out.
    pub(super) fn pending(&self) -> usize {
        self.rows - self.cursor
    }

    /// Reads the next `rows` rows (starting at file row `first_row`) from `readers`, one per
    /// entry of `plan`; `ranges` has one entry per slot.
    pub(super) fn read(
        &mut self,
        plan: &[ColumnPlan],
        readers: &mut [Values],
        ranges: &[SlotRange],
        rows: usize,
        first_row: u64,
    ) -> Result<(), ParquetError> {
        self.rows = rows;
        self.first_row = first_row;
        self.cursor = 0;
        self.bad.clear();
        self.bad.resize(rows, None);
        let floats = plan
            .iter()
            .filter(|p| matches!(p.kind, ColumnKind::Float { .. }))
            .count();
        self.floats.resize_with(floats, Vec::new);
        self.slots
            .resize_with(plan.len() - floats, Default::default);
        for (col, (p, reader)) in plan.iter().zip(readers.iter_mut()).enumerate() {
            self.def.clear();
            self.rep.clear();
            self.f32s.clear();
            self.i32s.clear();
            self.i64s.clear();
            let (def, rep) = (Some(&mut self.def), Some(&mut self.rep));
            let (records, _, levels) = match reader {
                Values::F32(r) => r.read_records(rows, def, rep, &mut self.f32s)?,
                Values::I32(r) => r.read_records(rows, def, rep, &mut self.i32s)?,
                Values::I64(r) => r.read_records(rows, def, rep, &mut self.i64s)?,
            };
            if records != rows {
                return Err(ParquetError::General(format!(
                    "column {:?} ends after {records} of the row group's {rows} remaining rows",
                    p.name
                )));
            }
            match p.kind {
                ColumnKind::Float { max_def } => {
                    let out = &mut self.floats[col];
                    out.clear();
                    let mut values = self.f32s.iter();
                    if levels != rows {
                        return Err(short(&p.name));
                    }
                    for row in 0..rows {
                        if max_def > 0 && self.def.get(row) != Some(&max_def) {
                            flag(&mut self.bad, row, col, RowErrorKind::Null);
                            out.push(0.0);
                            continue;
                        }
                        let Some(&v) = values.next() else {
                            return Err(short(&p.name));
                        };
                        out.push(v);
                    }
                }
                ColumnKind::Key {
                    unsigned,
                    max_def,
                    list,
                    ..
                } => {
                    let slot = col - floats;
                    let range = ranges.get(slot).copied().unwrap_or(SlotRange {
                        offset: 0,
                        size: None,
                    });
                    let ids = match reader {
                        Values::I32(_) => Ids::I32(self.i32s.iter(), unsigned),
                        _ => Ids::I64(self.i64s.iter(), unsigned),
                    };
                    let levels = Levels {
                        def: &self.def[..levels.min(self.def.len())],
                        rep: &self.rep[..levels.min(self.rep.len())],
                        count: levels,
                        max_def,
                        list,
                    };
                    let (offsets, keys) = &mut self.slots[slot];
                    let seen = levels.rows(ids, range, col, offsets, keys, &mut self.bad)?;
                    if seen != rows {
                        return Err(short(&p.name));
                    }
                }
            }
        }
        Ok(())
    }
}

/// A key column's ids as `i128`, read as the column stores them (32 or 64 bits, signed or
/// not). An enum, not a boxed iterator: a chunk is read per batch, and nothing is
/// allocated per batch.
enum Ids<'a> {
    I32(core::slice::Iter<'a, i32>, bool),
    I64(core::slice::Iter<'a, i64>, bool),
}

impl Iterator for Ids<'_> {
    type Item = i128;

    fn next(&mut self) -> Option<i128> {
        match self {
            Self::I32(it, true) => it.next().map(|&v| i128::from(v as u32)),
            Self::I32(it, false) => it.next().map(|&v| i128::from(v)),
            Self::I64(it, true) => it.next().map(|&v| i128::from(v as u64)),
            Self::I64(it, false) => it.next().map(|&v| i128::from(v)),
        }
    }
}

fn short(name: &str) -> ParquetError {
    ParquetError::General(format!(
        "column {name:?}: levels disagree with the row count"
    ))
}

/// Keeps the first fault of a row.
fn flag(bad: &mut [Option<(usize, RowErrorKind)>], row: usize, col: usize, kind: RowErrorKind) {
    if let Some(slot @ None) = bad.get_mut(row) {
        *slot = Some((col, kind));
    }
}

/// A categorical column's levels for a chunk.
struct Levels<'a> {
    def: &'a [i16],
    rep: &'a [i16],
    count: usize,
    max_def: i16,
    list: Option<i16>,
}

impl Levels<'_> {
    /// Walks the levels, writing each row's keys; returns the rows seen.
    fn rows<K: Key>(
        &self,
        mut ids: impl Iterator<Item = i128>,
        range: SlotRange,
        col: usize,
        offsets: &mut Vec<usize>,
        keys: &mut Vec<K>,
        bad: &mut [Option<(usize, RowErrorKind)>],
    ) -> Result<usize, ParquetError> {
        offsets.clear();
        keys.clear();
        offsets.push(0);
        let mut row: Option<usize> = None;
        for i in 0..self.count {
            let def = if self.max_def == 0 {
                0
            } else {
                self.def.get(i).copied().unwrap_or(-1)
            };
            let starts_row = self.list.is_none() || self.rep.get(i).copied() == Some(0);
            if starts_row {
                let r = row.map_or(0, |r| r + 1);
                if r > 0 {
                    offsets.push(keys.len());
                }
                row = Some(r);
            }
            // A continuation level before any row start is a corrupt column.
            let Some(r) = row else {
                return Err(ParquetError::General(
                    "list column starts mid-row".to_owned(),
                ));
            };
            if def == self.max_def {
                let Some(id) = ids.next() else {
                    return Err(ParquetError::General("fewer values than levels".into()));
                };
                match key::<K>(id, range) {
                    Ok(k) => keys.push(k),
                    Err(kind) => flag(bad, r, col, kind),
                }
                continue;
            }
            let empty_list = self.list.is_some_and(|l| def == l - 1);
            if !empty_list {
                flag(bad, r, col, RowErrorKind::Null);
            }
        }
        let rows = row.map_or(0, |r| r + 1);
        if rows > 0 {
            offsets.push(keys.len());
        }
        Ok(rows)
    }
}

/// The key for slot id `id`: non-negative, below the slot's size, plus the slot's offset,
/// and within `K`.
fn key<K: Key>(id: i128, range: SlotRange) -> Result<K, RowErrorKind> {
    let out_of_range = RowErrorKind::KeyRange {
        value: id,
        offset: range.offset,
    };
    if id < 0 {
        return Err(out_of_range);
    }
    if let Some(size) = range.size {
        if id >= i128::from(size) {
            return Err(RowErrorKind::KeyOutOfSlot {
                value: id,
                slot_size: size,
            });
        }
    }
    K::from_i128(id + i128::from(range.offset)).ok_or(out_of_range)
}
