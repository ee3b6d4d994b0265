//! A host model of `kernels/table_batched.cu` over the bytes [`TableSetLayout`] places
//! (tables and descriptors in one region, read back through the descriptors as the kernel
//! reads them): each column of a CSR row its own sum, the adds in key order (as both kernels
//! do: how lanes share the columns and when rows are loaded changes no value), the atomic
//! minimum of bad key indices and the last block's record. Property-tested against
//! `tessera_core::data::TableSet::pool`, so the kernel's algorithm and the layout it reads
//! are checked in CI with no GPU: same bits, same error.

use proptest::prelude::*;
use tessera_core::data::{
    CsrView, OutOfRange, PoolConfig, PoolError, Pooling, RowType, TableSet, TableView, bf16_to_f32,
    f16_to_f32,
};
use zerocopy::IntoBytes;

use super::table_layout::{SLOT_WORDS, TABLE_WORDS, TableSetLayout, TableShape};

/// The region the device holds: tables at their offsets, then the descriptors.
fn region(layout: &TableSetLayout, tables: &[TableView<'_>]) -> Vec<u8> {
    let mut bytes = vec![0xA5u8; layout.bytes()];
    for (t, &at) in tables.iter().zip(layout.table_offsets()) {
        bytes[at..at + t.bytes().len()].copy_from_slice(t.bytes());
    }
    let words = layout.table_words();
    let at = layout.table_words_at();
    bytes[at..at + words.len() * 8].copy_from_slice(words.as_bytes());
    let words = layout.slot_words();
    let at = layout.slot_words_at();
    bytes[at..at + words.len() * 8].copy_from_slice(words.as_bytes());
    bytes
}

fn word(region: &[u8], at: usize, i: usize) -> u64 {
    let p = at + i * 8;
    u64::from_le_bytes(region[p..p + 8].try_into().unwrap())
}

fn unaligned_f32(b: &[u8]) -> f32 {
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// `tbe_value`.
fn value(row: &[u8], j: usize, width: usize, ty: u64) -> f32 {
    match ty {
        0 => unaligned_f32(&row[4 * j..]),
        1 => f16_to_f32(u16::from_le_bytes([row[2 * j], row[2 * j + 1]])),
        2 => bf16_to_f32(u16::from_le_bytes([row[2 * j], row[2 * j + 1]])),
        _ => {
            let (scale, bias) = (
                unaligned_f32(&row[width..]),
                unaligned_f32(&row[width + 4..]),
            );
            f32::from(row[j]) * scale + bias
        }
    }
}

/// The error record the kernel writes: row, position, key, the table's rows.
type Record = (usize, usize, u32, usize);

/// The kernel over `u32` keys: the output and the record.
fn kernel(
    region: &[u8],
    layout: &TableSetLayout,
    offsets: &[u32],
    keys: &[u32],
    weights: Option<&[f32]>,
    config: PoolConfig,
) -> (Vec<f32>, Option<Record>) {
    let rows = offsets.len() - 1;
    let slot_count = layout.slots();
    let sample_width = layout.sample_width();
    let (tables_at, slots_at) = (layout.table_words_at(), layout.slot_words_at());
    let modulo = config.out_of_range == OutOfRange::Modulo;
    let mut out = vec![f32::NAN; rows / slot_count * sample_width];
    let mut state = u64::MAX;
    let table_of = |slot: usize| word(region, slots_at, slot * SLOT_WORDS) as usize;
    for row in 0..rows {
        let (slot, sample) = (row % slot_count, row / slot_count);
        let t = table_of(slot) * TABLE_WORDS;
        let base = word(region, tables_at, t) as usize;
        let vocab = word(region, tables_at, t + 1);
        let width = word(region, tables_at, t + 2) as usize;
        let row_bytes = word(region, tables_at, t + 3) as usize;
        let ty = word(region, tables_at, t + 4);
        let dst = sample * sample_width + word(region, slots_at, slot * SLOT_WORDS + 1) as usize;
        let (begin, end) = (offsets[row] as usize, offsets[row + 1] as usize);
        let n = end - begin;
        let r = 1.0f32 / n as f32;
        for j in 0..width {
            let mut acc = 0.0f32;
            let mut ok = true;
            for i in begin..end {
                let k = u64::from(keys[i]);
                let index = if modulo && vocab > 0 { k % vocab } else { k };
                if !(modulo && vocab > 0) && k >= vocab {
                    if j == 0 {
                        state = state.min(i as u64);
                    }
                    ok = false;
                    break;
                }
                let src = &region[base + index as usize * row_bytes..];
                let mut t = value(src, j, width, ty);
                if let Some(w) = weights {
                    t *= w[i];
                }
                acc += t;
            }
            if !ok {
                acc = 0.0;
            } else if config.pooling == Pooling::Mean && n > 1 {
                acc *= r;
            }
            out[dst + j] = acc;
        }
    }
    if state == u64::MAX {
        return (out, None);
    }
    let i = state as usize;
    let (mut lo, mut hi) = (0usize, rows);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if offsets[mid] as usize <= i {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let vocab = word(
        region,
        tables_at,
        table_of(lo % slot_count) * TABLE_WORDS + 1,
    ) as usize;
    (out, Some((lo, i - offsets[lo] as usize, keys[i], vocab)))
}

/// Random finite bytes of a table (as tessera-core's tests encode them).
fn encode(ty: RowType, width: usize, vocab: usize, seed: u32) -> Vec<u8> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let finite = |r: u32| (r >> 8) as f32 / (1 << 24) as f32 * 2000.0 - 1000.0;
    let mut bytes = Vec::new();
    for _ in 0..vocab {
        for _ in 0..width {
            let r = next();
            match ty {
                RowType::F32 => bytes.extend_from_slice(&finite(r).to_le_bytes()),
                RowType::F16 => {
                    let h = (r as u16) & !0x4000; // finite: never an all-ones exponent
                    bytes.extend_from_slice(&h.to_le_bytes());
                }
                RowType::Bf16 => {
                    let h = (finite(r).to_bits() >> 16) as u16;
                    bytes.extend_from_slice(&h.to_le_bytes());
                }
                RowType::Int8Rowwise => bytes.push(r as u8),
            }
        }
        if ty == RowType::Int8Rowwise {
            let scale = ((next() >> 8) + 1) as f32 / (1 << 24) as f32;
            bytes.extend_from_slice(&scale.to_le_bytes());
            bytes.extend_from_slice(&(finite(next()) / 100.0).to_le_bytes());
        }
    }
    bytes
}

type Spec = (RowType, usize, usize, u32);

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::sample::select(RowType::ALL.to_vec()),
        1usize..=40,
        0usize..=5,
        any::<u32>(),
    )
}

fn bits(x: &[f32]) -> Vec<u32> {
    x.iter().map(|v| v.to_bits()).collect()
}

proptest! {
    #[test]
    fn model_matches_the_cpu_reference(
        specs in prop::collection::vec(spec(), 1..=4),
        slot_picks in prop::collection::vec(any::<prop::sample::Index>(), 1..=4),
        samples in 0usize..=3,
        raw in prop::collection::vec(prop::collection::vec(0u32..7, 0..=4), 12),
        weights in prop::collection::vec(-2.0f32..2.0, 48),
        weighted in any::<bool>(),
        mean in any::<bool>(),
        modulo in any::<bool>(),
    ) {
        let data: Vec<Vec<u8>> = specs.iter().map(|&(t, w, v, s)| encode(t, w, v, s)).collect();
        let tables: Vec<TableView<'_>> = specs
            .iter()
            .zip(&data)
            .map(|(&(t, w, _, _), b)| TableView::new(b, w, t).unwrap())
            .collect();
        let slot_tables: Vec<usize> = slot_picks.iter().map(|i| i.index(tables.len())).collect();
        let shapes: Vec<TableShape> = tables.iter().map(TableShape::of).collect();
        let layout = TableSetLayout::plan(&shapes, &slot_tables).unwrap();
        let set = TableSet::new(&tables, &slot_tables).unwrap();
        prop_assert_eq!(layout.sample_width(), set.sample_width());

        let rows = samples * slot_tables.len();
        let mut offsets = vec![0u32];
        let mut keys = Vec::new();
        for row in &raw[..rows] {
            keys.extend_from_slice(row);
            offsets.push(keys.len() as u32);
        }
        let csr = CsrView::new(&offsets, &keys).unwrap();
        let w = weighted.then(|| &weights[..keys.len()]);
        let pooling = if mean { Pooling::Mean } else { Pooling::Sum };
        let oor = if modulo { OutOfRange::Modulo } else { OutOfRange::Error };
        let config = PoolConfig::new(pooling).with_out_of_range(oor);

        let mut expected = vec![0f32; samples * set.sample_width()];
        let cpu = set.pool(csr, w, &mut expected, config);
        let region = region(&layout, &tables);
        let (got, record) = kernel(&region, &layout, &offsets, &keys, w, config);
        let host_check = layout.check_batch(csr, oor).map_err(|e| match e {
            crate::GpuError::Pool(p) => p,
            other => panic!("{other}"),
        });
        prop_assert_eq!(host_check, cpu);
        match (cpu, record) {
            (Ok(()), None) => prop_assert_eq!(bits(&got), bits(&expected)),
            (Err(PoolError::KeyOutOfRange { row, position, key, vocab }), Some(r)) => {
                prop_assert_eq!((row, position, key, vocab), (r.0, r.1, i64::from(r.2), r.3));
                // Output up to the failing row agrees (the CPU stops there; the kernel goes on).
                let upto = (row / slot_tables.len()) * set.sample_width()
                    + layout.slot_words()[(row % slot_tables.len()) * SLOT_WORDS + 1] as usize;
                prop_assert_eq!(bits(&got[..upto]), bits(&expected[..upto]));
            }
            (cpu, gpu) => prop_assert!(false, "CPU {:?}, kernel {:?}", cpu, gpu),
        }
    }
}
