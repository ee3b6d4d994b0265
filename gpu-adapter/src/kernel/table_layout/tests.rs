use proptest::prelude::*;
use tessera_core::data::CsrView;

use super::*;

fn shape(rows: usize, width: usize, row_type: RowType) -> TableShape {
    TableShape {
        rows,
        width,
        row_type,
    }
}

proptest! {
    /// Tables and descriptors are 32-byte aligned, inside the region, never overlapping, and
    /// the descriptors say what the shapes say.
    #[test]
    fn tables_and_descriptors_are_placed_apart(
        shapes in prop::collection::vec(
            (0usize..5000, 1usize..300, prop::sample::select(RowType::ALL.to_vec()))
                .prop_map(|(r, w, t)| shape(r, w, t)),
            0..6,
        ),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..30),
    ) {
        prop_assume!(!shapes.is_empty());
        let slot_tables: Vec<usize> = picks.iter().map(|i| i.index(shapes.len())).collect();
        let layout = TableSetLayout::plan(&shapes, &slot_tables).unwrap();
        let mut spans: Vec<(usize, usize)> = shapes
            .iter()
            .zip(layout.table_offsets())
            .map(|(s, &o)| (o, o + s.bytes().unwrap()))
            .collect();
        spans.push((layout.table_words_at(), layout.table_words_at() + shapes.len() * TABLE_WORDS * 8));
        spans.push((layout.slot_words_at(), layout.slot_words_at() + slot_tables.len() * SLOT_WORDS * 8));
        for &(start, end) in &spans {
            prop_assert_eq!(start % 32, 0);
            prop_assert!(end <= layout.bytes());
        }
        let mut sorted = spans.clone();
        sorted.sort();
        for pair in sorted.windows(2) {
            prop_assert!(pair[0].1 <= pair[1].0, "{:?} overlaps {:?}", pair[0], pair[1]);
        }
        let words = layout.table_words();
        for (i, s) in shapes.iter().enumerate() {
            let w = &words[i * TABLE_WORDS..(i + 1) * TABLE_WORDS];
            prop_assert_eq!(w, &[
                layout.table_offsets()[i] as u64,
                s.rows as u64,
                s.width as u64,
                s.row_bytes().unwrap() as u64,
                u64::from(s.row_type.code()),
            ][..]);
        }
        let slots = layout.slot_words();
        let mut column = 0;
        for (s, &t) in slot_tables.iter().enumerate() {
            prop_assert_eq!(&slots[s * SLOT_WORDS..(s + 1) * SLOT_WORDS], &[t as u64, column as u64][..]);
            column += shapes[t].width;
        }
        prop_assert_eq!(layout.sample_width(), column);
    }
}

#[test]
fn bad_sets_are_typed_errors() {
    let f32x4 = shape(10, 4, RowType::F32);
    assert!(matches!(
        TableSetLayout::plan(&[f32x4], &[]),
        Err(GpuError::Pool(PoolError::NoSlots))
    ));
    assert!(matches!(
        TableSetLayout::plan(&[f32x4], &[0, 3]),
        Err(GpuError::Pool(PoolError::SlotTable {
            slot: 1,
            table: 3,
            tables: 1
        }))
    ));
    assert!(matches!(
        TableSetLayout::plan(&[shape(1, 0, RowType::Int8Rowwise)], &[0]),
        Err(GpuError::Pool(PoolError::TableRows {
            width: 0,
            row_bytes: 8,
            ..
        }))
    ));
    assert!(matches!(
        TableSetLayout::plan(&[shape(usize::MAX, 2, RowType::F16)], &[0]),
        Err(GpuError::TooLarge { what: "table" })
    ));
    let wide = shape(0, usize::MAX / 2, RowType::Bf16);
    assert!(matches!(
        TableSetLayout::plan(&[wide], &[0, 0, 0]),
        Err(GpuError::Pool(PoolError::WidthOverflow { slot: 2 }))
    ));
}

#[test]
fn batches_are_checked_against_each_slot_s_table() {
    // Slot 0: 3 rows, slot 1: an empty table.
    let shapes = [shape(3, 2, RowType::F16), shape(0, 1, RowType::F32)];
    let layout = TableSetLayout::plan(&shapes, &[0, 1]).unwrap();
    let csr = CsrView::new(&[0i64, 2, 2, 3, 3][..], &[2i64, 0, -1][..]).unwrap();
    assert!(layout.check_batch(csr, OutOfRange::Error).is_err());
    assert!(matches!(
        layout.check_batch(csr, OutOfRange::Error),
        Err(GpuError::Pool(PoolError::KeyOutOfRange {
            row: 2,
            position: 0,
            key: -1,
            vocab: 3
        }))
    ));
    layout.check_batch(csr, OutOfRange::Modulo).unwrap();
    // The empty table's slot with a key: bad even under modulo.
    let csr = CsrView::new(&[0u32, 0, 1][..], &[0u32][..]).unwrap();
    assert!(matches!(
        layout.check_batch(csr, OutOfRange::Modulo),
        Err(GpuError::Pool(PoolError::KeyOutOfRange {
            row: 1,
            vocab: 0,
            ..
        }))
    ));
    let odd = CsrView::new(&[0u32, 0][..], &[][..]).unwrap();
    assert!(matches!(
        layout.check_batch(odd, OutOfRange::Error),
        Err(GpuError::Pool(PoolError::RowsNotSamples {
            rows: 1,
            slots: 2
        }))
    ));
    assert_eq!(layout.row_bytes_read(odd), None);
    let csr = CsrView::new(&[0u32, 2, 2, 3, 3][..], &[0u32, 1, 2][..]).unwrap();
    // Three keys of slot 0's table, 4 bytes a row.
    assert_eq!(layout.row_bytes_read(csr), Some(12));
}
