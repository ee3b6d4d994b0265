//! Table-batched pooling against the single-table reference: each sample's slots pooled one
//! by one over their own tables and laid side by side; and the host-side key check agreeing
//! with pooling on which key (if any) is bad.

extern crate std;

use std::string::ToString;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::data::bag::tests::{bits, csr_parts, encode, pooling, reference_row, row_type};
use crate::data::{Pooling, RowType};

const JUNK: f32 = -777.25;

/// Tables as (row type, width, vocab, bytes).
type Tables = Vec<(RowType, usize, usize, Vec<u8>)>;

fn tables() -> impl Strategy<Value = Tables> {
    prop::collection::vec(
        (row_type(), 1usize..=9, 0usize..=6).prop_flat_map(|(t, w, v)| {
            prop::collection::vec(any::<u32>(), v * (w + 2))
                .prop_map(move |words| (t, w, v, encode(t, w, v, &words)))
        }),
        1..=4,
    )
}

#[derive(Debug, Clone)]
struct Case {
    tables: Tables,
    slot_tables: Vec<usize>,
    /// Raw keys per CSR row (may be out of range: up to 2 past the vocabulary).
    rows: Vec<Vec<u32>>,
    weights: Option<Vec<f32>>,
    pooling: Pooling,
}

fn case() -> impl Strategy<Value = Case> {
    (tables(), 1usize..=4, 0usize..=4, pooling(), any::<bool>()).prop_flat_map(
        |(tables, slots, samples, pooling, weighted)| {
            let n = tables.len();
            (
                Just(tables),
                prop::collection::vec(0..n, slots),
                prop::collection::vec(prop::collection::vec(0u32..9, 0..=4), slots * samples),
                prop::collection::vec(-2.0f32..2.0, 4 * slots * samples),
                Just(pooling),
                Just(weighted),
            )
                .prop_map(|(tables, slot_tables, mut rows, w, pooling, weighted)| {
                    // Mostly in range: clamp 7 keys in 8 into the slot's vocabulary.
                    let slots = slot_tables.len();
                    for (r, row) in rows.iter_mut().enumerate() {
                        let vocab = tables[slot_tables[r % slots]].2 as u32;
                        for k in row.iter_mut() {
                            if *k != 8 && vocab > 0 {
                                *k %= vocab;
                            }
                        }
                    }
                    let nnz = rows.iter().map(Vec::len).sum();
                    Case {
                        tables,
                        slot_tables,
                        rows,
                        weights: weighted.then(|| w[..nnz].to_vec()),
                        pooling,
                    }
                })
        },
    )
}

fn views(t: &Tables) -> Vec<TableView<'_>> {
    t.iter()
        .map(|(ty, w, _, b)| TableView::new(b, *w, *ty).unwrap())
        .collect()
}

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn each_slot_is_pooled_over_its_own_table(c in case()) {
        let views = views(&c.tables);
        let set = TableSet::new(&views, &c.slot_tables).unwrap();
        let width: usize = c.slot_tables.iter().map(|&t| c.tables[t].1).sum();
        prop_assert_eq!(set.sample_width(), width);
        let (offsets, values) = csr_parts(&c.rows);
        let csr = CsrView::new(&offsets, &values).unwrap();
        let samples = c.rows.len() / c.slot_tables.len();
        let mut out = vec![JUNK; samples * width];
        let config = PoolConfig::new(c.pooling);
        let got = set.pool(csr, c.weights.as_deref(), &mut out, config);
        let checked = set.check_keys(csr, OutOfRange::Error);

        // The reference: row by row, stopping at the first bad key.
        let mut want = Vec::new();
        let mut error = None;
        let mut start = 0;
        for (r, keys) in c.rows.iter().enumerate() {
            let (ty, w, vocab, bytes) = &c.tables[c.slot_tables[r % c.slot_tables.len()]];
            if let Some(p) = keys.iter().position(|&k| k as usize >= *vocab) {
                error = Some(PoolError::KeyOutOfRange {
                    row: r, position: p, key: i64::from(keys[p]), vocab: *vocab,
                });
                want.extend(vec![0.0f32; *w]);
                break;
            }
            let idx: Vec<usize> = keys.iter().map(|&k| k as usize).collect();
            let wt = c.weights.as_ref().map(|x| &x[start..start + idx.len()]);
            want.extend(reference_row(bytes, *ty, *w, &idx, wt, c.pooling));
            start += idx.len();
        }
        prop_assert_eq!(got, error.map_or(Ok(()), Err));
        prop_assert_eq!(checked, got);
        prop_assert_eq!(bits(&out[..want.len()]), bits(&want));
        prop_assert!(out[want.len()..].iter().all(|&x| x == JUNK));
    }

    /// Under modulo only an empty table's keys are bad, in pooling and in the check.
    #[test]
    fn modulo_only_fails_on_empty_tables(c in case()) {
        let views = views(&c.tables);
        let set = TableSet::new(&views, &c.slot_tables).unwrap();
        let (offsets, values) = csr_parts(&c.rows);
        let csr = CsrView::new(&offsets, &values).unwrap();
        let mut out = vec![JUNK; c.rows.len() / c.slot_tables.len() * set.sample_width()];
        let config = PoolConfig::new(c.pooling).with_out_of_range(OutOfRange::Modulo);
        let got = set.pool(csr, c.weights.as_deref(), &mut out, config);
        prop_assert_eq!(set.check_keys(csr, OutOfRange::Modulo), got);
        let slots = c.slot_tables.len();
        let first_empty = c.rows.iter().enumerate().find(|(r, keys)| {
            !keys.is_empty() && c.tables[c.slot_tables[r % slots]].2 == 0
        });
        match first_empty {
            None => prop_assert_eq!(got, Ok(())),
            Some((r, keys)) => prop_assert_eq!(
                got,
                Err(PoolError::KeyOutOfRange { row: r, position: 0, key: i64::from(keys[0]), vocab: 0 })
            ),
        }
    }
}

#[test]
fn slot_maps_and_batch_shapes_are_checked() {
    let t = [0u8; 8];
    let views = [TableView::new(&t, 2, RowType::F32).unwrap()];
    assert_eq!(TableSet::new(&views, &[]).err(), Some(PoolError::NoSlots));
    assert_eq!(
        TableSet::new(&views, &[0, 1]).err(),
        Some(PoolError::SlotTable {
            slot: 1,
            table: 1,
            tables: 1
        })
    );
    let empty = [TableView::new(&[], usize::MAX / 2, RowType::F16).unwrap()];
    assert_eq!(
        TableSet::new(&empty, &[0, 0, 0]).err(),
        Some(PoolError::WidthOverflow { slot: 2 })
    );

    let set = TableSet::new(&views, &[0, 0]).unwrap();
    assert_eq!((set.slots(), set.sample_width()), (2, 4));
    assert_eq!(set.table_of(1).map(|t| t.rows()), Some(1));
    assert_eq!(set.table_of(2), None);
    let csr = CsrView::new(&[0u32, 1, 1, 2][..], &[0u32, 0][..]).unwrap();
    let mut out = [JUNK; 4];
    let sum = PoolConfig::default();
    assert_eq!(
        set.pool(csr, None, &mut out, sum),
        Err(PoolError::RowsNotSamples { rows: 3, slots: 2 })
    );
    assert_eq!(
        check_slot_keys(csr, &[0, 0], |_| Some(1), OutOfRange::Error),
        Err(PoolError::RowsNotSamples { rows: 3, slots: 2 })
    );
    assert_eq!(
        check_slot_keys(csr, &[], |_| Some(1), OutOfRange::Error),
        Err(PoolError::NoSlots)
    );
    assert_eq!(
        check_slot_keys(
            csr,
            &[0, 5, 0],
            |t| (t == 0).then_some(1),
            OutOfRange::Error
        ),
        Err(PoolError::SlotTable {
            slot: 1,
            table: 5,
            tables: 5
        })
    );
    let csr = CsrView::new(&[0u32, 1, 2][..], &[0u32, 0][..]).unwrap();
    assert_eq!(
        set.pool(csr, None, &mut out[..3], sum),
        Err(PoolError::OutputLen {
            expected: 4,
            found: 3
        })
    );
    assert_eq!(
        set.pool(csr, Some(&[1.0]), &mut out, sum),
        Err(PoolError::WeightsLen {
            expected: 2,
            found: 1
        })
    );
    assert!(out.iter().all(|&x| x == JUNK));
    assert_eq!(
        PoolError::SlotTable {
            slot: 1,
            table: 5,
            tables: 2
        }
        .to_string(),
        "slot 1 names table 5 of 2"
    );
    assert_eq!(
        PoolError::RowsNotSamples { rows: 3, slots: 2 }.to_string(),
        "3 CSR rows are not whole samples of 2 slots"
    );
}
