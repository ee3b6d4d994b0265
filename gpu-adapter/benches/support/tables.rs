//! Synthetic data of the table-batched benches and example: 26 tables whose row counts keep
//! the proportions of Criteo Kaggle's 26 categorical features (the cardinalities of
//! Facebook's DLRM preprocessing), scaled to a byte budget, and keys drawn uniformly or
//! Zipf-distributed (hot keys spread over the table by a multiplicative permutation, as
//! hashed ids are).

#![allow(dead_code)]

use tessera_core::data::RowType;

/// Criteo Kaggle's 26 categorical cardinalities (about 33.8 M rows in all).
pub const CRITEO: [u64; 26] = [
    1460, 583, 10_131_227, 2_202_608, 305, 24, 12_517, 633, 3, 93_145, 5683, 8_351_593, 3194, 27,
    14_992, 5_461_306, 10, 5652, 2173, 4, 7_046_547, 18, 15, 286_181, 105, 142_572,
];

/// Row counts of 26 tables in Criteo's proportions whose rows of `width` values of `ty`
/// take about `bytes` in all (every table at least one row).
pub fn criteo_rows(bytes: u64, width: usize, ty: RowType) -> Vec<usize> {
    let row = ty.row_bytes(width).unwrap() as f64;
    let total: u64 = CRITEO.iter().sum();
    let scale = bytes as f64 / row / total as f64;
    CRITEO
        .iter()
        .map(|&c| ((c as f64 * scale) as usize).max(1))
        .collect()
}

/// How keys are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keys {
    /// Uniform over the table.
    Uniform,
    /// Zipf with exponent `s > 1` (rank `r` with probability about `r^-s`).
    Zipf(f64),
}

impl Keys {
    /// The three distributions of the issue: uniform, Zipf 1.05 and 1.2.
    pub const ALL: [Keys; 3] = [Keys::Uniform, Keys::Zipf(1.05), Keys::Zipf(1.2)];

    /// A short name.
    pub fn name(self) -> String {
        match self {
            Keys::Uniform => "uniform".to_owned(),
            Keys::Zipf(s) => format!("zipf{s}"),
        }
    }
}

/// xorshift64*: reproducible keys without a dependency.
pub struct Rng(pub u64);

impl Rng {
    /// 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A key of a table of `vocab > 0` rows drawn from `keys`.
    pub fn key(&mut self, vocab: u64, keys: Keys) -> u64 {
        match keys {
            Keys::Uniform => self.next() % vocab,
            Keys::Zipf(s) => {
                // The continuous Zipf's inverse CDF on [1, vocab + 1): rank 0 hottest.
                let u = self.unit();
                let a = 1.0 - s;
                let top = ((vocab + 1) as f64).powf(a);
                let x = (1.0 + u * (top - 1.0)).powf(1.0 / a);
                let rank = ((x as u64).saturating_sub(1)).min(vocab - 1);
                // 2 654 435 761 is prime and above any table here: a bijection mod vocab.
                rank * 2_654_435_761 % vocab
            }
        }
    }
}

/// A table of `rows x width` values of `ty` with cheap deterministic contents (finite
/// values; int8 rows with scale 1/128 and bias -1).
pub fn table_bytes(rows: usize, width: usize, ty: RowType) -> Vec<u8> {
    let row_bytes = ty.row_bytes(width).unwrap();
    let mut bytes = vec![0u8; rows * row_bytes];
    for (k, row) in bytes.chunks_exact_mut(row_bytes).enumerate() {
        let v = |j: usize| ((k * 31 + j) % 1000) as f32 / 1000.0 - 0.5;
        match ty {
            RowType::F32 => {
                for (j, b) in row.chunks_exact_mut(4).enumerate() {
                    b.copy_from_slice(&v(j).to_le_bytes());
                }
            }
            RowType::F16 => {
                // 0x3800 is 0.5; the low bits vary the value.
                for (j, b) in row.chunks_exact_mut(2).enumerate() {
                    let h = 0x3800u16 | ((k * 31 + j) % 1024) as u16;
                    b.copy_from_slice(&h.to_le_bytes());
                }
            }
            RowType::Bf16 => {
                for (j, b) in row.chunks_exact_mut(2).enumerate() {
                    b.copy_from_slice(&((v(j).to_bits() >> 16) as u16).to_le_bytes());
                }
            }
            RowType::Int8Rowwise => {
                for (j, b) in row[..width].iter_mut().enumerate() {
                    *b = ((k * 31 + j) % 256) as u8;
                }
                row[width..width + 4].copy_from_slice(&(1.0f32 / 128.0).to_le_bytes());
                row[width + 4..].copy_from_slice(&(-1.0f32).to_le_bytes());
            }
        }
    }
    bytes
}
