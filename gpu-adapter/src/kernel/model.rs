//! A host model of `kernels/embedding_bag.cu`, line for line: one "thread" per (row, column)
//! adding in key order, the atomic minimum of bad flat key indices, and the describe pass's
//! binary search. Property-tested against `tessera_core::data::embedding_bag`, so the
//! kernel's algorithm (not its compilation: that needs a GPU) is checked in CI: same bits,
//! same error.

use proptest::prelude::*;
use tessera_core::data::{CsrView, Key, OutOfRange, PoolConfig, PoolError, Pooling, embedding_bag};

/// `resolve_key` of the kernel, for either key type (as `i128`).
fn resolve(key: i128, vocab: u64, modulo: bool) -> Option<u64> {
    if modulo && vocab > 0 {
        return Some(key.rem_euclid(i128::from(vocab)) as u64);
    }
    (key >= 0 && key < i128::from(vocab)).then_some(key as u64)
}

/// The kernel's result: the output and the error record (flat index, row, position, key).
fn kernel<K: Key>(
    csr: CsrView<'_, K>,
    table: &[f32],
    dim: usize,
    config: PoolConfig,
) -> (Vec<f32>, Option<(usize, usize, i128)>) {
    let offsets: Vec<u64> = csr
        .row_offsets()
        .iter()
        .map(|o| o.to_i128() as u64)
        .collect();
    let keys = csr.values();
    let rows = csr.rows();
    let vocab = (table.len() / dim) as u64;
    let modulo = config.out_of_range == OutOfRange::Modulo;
    let mut out = vec![f32::NAN; rows * dim];
    let mut error = u64::MAX;
    for row in 0..rows {
        for col in 0..dim {
            let (begin, end) = (offsets[row], offsets[row + 1].min(keys.len() as u64));
            let mut acc = 0.0f32;
            let mut bad = false;
            for i in begin..end {
                match resolve(keys[i as usize].to_i128(), vocab, modulo) {
                    Some(index) => acc += table[index as usize * dim + col],
                    None => {
                        if col == 0 {
                            error = error.min(i);
                        }
                        out[row * dim + col] = 0.0;
                        bad = true;
                        break;
                    }
                }
            }
            if bad {
                continue;
            }
            let n = end - begin;
            if config.pooling == Pooling::Mean && n > 1 {
                acc *= 1.0f32 / n as f32;
            }
            out[row * dim + col] = acc;
        }
    }
    if error == u64::MAX {
        return (out, None);
    }
    // describe: the last row whose first key is at or before `error`.
    let (mut lo, mut hi) = (0usize, rows);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if offsets[mid] <= error {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let position = (error - offsets[lo]) as usize;
    (out, Some((lo, position, keys[error as usize].to_i128())))
}

fn check<K: Key>(
    rows: &[Vec<i128>],
    vocab: usize,
    dim: usize,
    config: PoolConfig,
    seed: u32,
) -> Result<(), TestCaseError> {
    let mut offsets = vec![K::default()];
    let mut values = Vec::new();
    for row in rows {
        values.extend(row.iter().map(|&k| K::from_i128(k).unwrap_or_default()));
        offsets.push(K::from_usize(values.len()).unwrap());
    }
    let csr = CsrView::new(&offsets, &values).unwrap();
    // Mixed magnitudes and signs, so a different order of additions would show.
    let table: Vec<f32> = (0..vocab * dim)
        .map(|i| {
            let x = (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed);
            (x >> 8) as f32 / (1 << 24) as f32 * if x & 1 == 0 { 1e3 } else { -1e-3 }
        })
        .collect();
    let mut expected = vec![0f32; csr.rows() * dim];
    let cpu = embedding_bag(csr, &table, dim, &mut expected, config);
    let (got, error) = kernel(csr, &table, dim, config);
    match (cpu, error) {
        (Ok(()), None) => {
            let same = got
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            prop_assert!(same);
        }
        (
            Err(PoolError::KeyOutOfRange {
                row, position, key, ..
            }),
            Some((r, p, k)),
        ) => {
            prop_assert_eq!((row, position, i128::from(key)), (r, p, k));
            // Rows before the failing one agree with the CPU's (its later rows are untouched).
            let same = got[..row * dim]
                .iter()
                .zip(&expected[..row * dim])
                .all(|(a, b)| a.to_bits() == b.to_bits());
            prop_assert!(same);
            prop_assert!(got[row * dim..(row + 1) * dim].iter().all(|&x| x == 0.0));
        }
        (cpu, gpu) => prop_assert!(false, "CPU {:?}, kernel {:?}", cpu, gpu),
    }
    Ok(())
}

fn config() -> impl Strategy<Value = PoolConfig> {
    (any::<bool>(), any::<bool>()).prop_map(|(mean, modulo)| {
        let pooling = if mean { Pooling::Mean } else { Pooling::Sum };
        let oor = if modulo {
            OutOfRange::Modulo
        } else {
            OutOfRange::Error
        };
        PoolConfig::new(pooling).with_out_of_range(oor)
    })
}

proptest! {
    #[test]
    fn model_matches_the_cpu_reference_u32(
        rows in proptest::collection::vec(proptest::collection::vec(0i128..24, 0..9), 0..12),
        vocab in 0usize..22, dim in 1usize..7, config in config(), seed in any::<u32>(),
    ) {
        check::<u32>(&rows, vocab, dim, config, seed)?;
    }

    #[test]
    fn model_matches_the_cpu_reference_i64(
        rows in proptest::collection::vec(proptest::collection::vec(-30i128..30, 0..9), 0..12),
        vocab in 0usize..22, dim in 1usize..7, config in config(), seed in any::<u32>(),
    ) {
        check::<i64>(&rows, vocab, dim, config, seed)?;
    }
}
