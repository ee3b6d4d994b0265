//! Test matrices in TensorFlow Lite's sparse format: a dense matrix encoded in every form
//! the format allows (CSR, CSC, both levels compressed, r x c blocks), every index width for
//! segments and indices, for the tests of the format, DENSIFY and the sparse
//! FULLY_CONNECTED.

use proptest::prelude::*;

use super::SparseFormat;
use crate::interpreter::KernelError;
use crate::model::{DimensionFormat, LeSlice, SparseIndices};

/// An index vector's stored width.
#[derive(Debug, Clone, Copy)]
pub enum Width {
    I32,
    U16,
    U8,
}

/// A traversed level before its vectors are encoded.
#[derive(Debug, Clone)]
pub enum Dim {
    Dense(usize),
    Csr(Vec<usize>, Vec<usize>),
}

/// A matrix in TACO form, vectors still plain.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub shape: Vec<usize>,
    pub order: Vec<usize>,
    pub block_map: Vec<usize>,
    pub dims: Vec<Dim>,
    pub values: Vec<f32>,
}

/// `v` in `w` (widened when it does not fit), as the model's little-endian bytes.
pub fn encode(v: &[usize], w: Width) -> (Width, Vec<u8>) {
    let max = v.iter().copied().max().unwrap_or(0);
    let w = match w {
        Width::U8 if max > 255 => Width::U16,
        Width::U16 if max > 65_535 => Width::I32,
        w => w,
    };
    let bytes = match w {
        Width::I32 => v
            .iter()
            .flat_map(|&x| i32::try_from(x).unwrap().to_le_bytes())
            .collect(),
        Width::U16 => v
            .iter()
            .flat_map(|&x| u16::try_from(x).unwrap().to_le_bytes())
            .collect(),
        Width::U8 => v.iter().map(|&x| u8::try_from(x).unwrap()).collect(),
    };
    (w, bytes)
}

pub fn view(w: Width, b: &[u8]) -> SparseIndices<'_> {
    match w {
        Width::I32 => SparseIndices::I32(LeSlice::new(b)),
        Width::U16 => SparseIndices::U16(LeSlice::new(b)),
        Width::U8 => SparseIndices::U8(b),
    }
}

/// The encoded vectors, owned, so a [`SparseFormat`] can borrow them.
pub struct Stored {
    pub vectors: Vec<(Width, Vec<u8>)>,
}

impl Stored {
    pub fn new(e: &Encoded, widths: &[Width]) -> Self {
        let mut vectors = Vec::new();
        let mut k = 0;
        for d in &e.dims {
            if let Dim::Csr(s, i) = d {
                vectors.push(encode(s, widths[k % widths.len()]));
                vectors.push(encode(i, widths[(k + 1) % widths.len()]));
                k += 2;
            }
        }
        Self { vectors }
    }

    pub fn format<'a>(&'a self, e: &Encoded) -> Result<SparseFormat<'a>, KernelError> {
        let mut v = self.vectors.iter();
        let dims: Vec<DimensionFormat<'a>> = e
            .dims
            .iter()
            .map(|d| match d {
                Dim::Dense(size) => DimensionFormat::Dense { size: *size },
                Dim::Csr(..) => {
                    let (ws, s) = v.next().unwrap();
                    let (wi, i) = v.next().unwrap();
                    DimensionFormat::SparseCsr {
                        segments: view(*ws, s),
                        indices: view(*wi, i),
                    }
                }
            })
            .collect();
        SparseFormat::new(&e.shape, &e.order, &e.block_map, &dims)
    }
}

/// CSR: rows dense, columns compressed.
pub fn csr(m: &[f32], rows: usize, cols: usize) -> Encoded {
    let (mut seg, mut idx, mut values) = (vec![0], vec![], vec![]);
    for r in 0..rows {
        for c in 0..cols {
            let v = m[r * cols + c];
            if v != 0.0 {
                idx.push(c);
                values.push(v);
            }
        }
        seg.push(idx.len());
    }
    Encoded {
        shape: vec![rows, cols],
        order: vec![0, 1],
        block_map: vec![],
        dims: vec![Dim::Dense(rows), Dim::Csr(seg, idx)],
        values,
    }
}

/// CSC: traversal [1, 0], columns dense, rows compressed.
pub fn csc(m: &[f32], rows: usize, cols: usize) -> Encoded {
    let (mut seg, mut idx, mut values) = (vec![0], vec![], vec![]);
    for c in 0..cols {
        for r in 0..rows {
            let v = m[r * cols + c];
            if v != 0.0 {
                idx.push(r);
                values.push(v);
            }
        }
        seg.push(idx.len());
    }
    Encoded {
        shape: vec![rows, cols],
        order: vec![1, 0],
        block_map: vec![],
        dims: vec![Dim::Dense(cols), Dim::Csr(seg, idx)],
        values,
    }
}

/// Both levels compressed: only the non-empty rows are stored.
pub fn doubly(m: &[f32], rows: usize, cols: usize) -> Encoded {
    let (mut stored, mut seg, mut idx, mut values) = (vec![], vec![0], vec![], vec![]);
    for r in 0..rows {
        let before = idx.len();
        for c in 0..cols {
            let v = m[r * cols + c];
            if v != 0.0 {
                idx.push(c);
                values.push(v);
            }
        }
        if idx.len() > before {
            stored.push(r);
            seg.push(idx.len());
        }
    }
    Encoded {
        shape: vec![rows, cols],
        order: vec![0, 1],
        block_map: vec![],
        dims: vec![Dim::Csr(vec![0, stored.len()], stored), Dim::Csr(seg, idx)],
        values,
    }
}

/// `br x bc` blocks, block columns compressed; the block map names only the split dimensions
/// (1 x c blocks are the converter's `[1]`).
pub fn blocked(m: &[f32], rows: usize, cols: usize, br: usize, bc: usize) -> Encoded {
    let (brows, bcols) = (rows / br, cols / bc);
    let (mut seg, mut idx, mut values) = (vec![0], vec![], vec![]);
    for i in 0..brows {
        for j in 0..bcols {
            let block: Vec<f32> = (0..br)
                .flat_map(|a| (0..bc).map(move |b| (a, b)))
                .map(|(a, b)| m[(i * br + a) * cols + j * bc + b])
                .collect();
            if block.iter().any(|&v| v != 0.0) {
                idx.push(j);
                values.extend(block);
            }
        }
        seg.push(idx.len());
    }
    let (block_map, tail): (Vec<usize>, Vec<Dim>) = match (br > 1, bc > 1) {
        (true, true) => (vec![0, 1], vec![Dim::Dense(br), Dim::Dense(bc)]),
        (true, false) => (vec![0], vec![Dim::Dense(br)]),
        (false, _) => (vec![1], vec![Dim::Dense(bc)]),
    };
    let mut dims = vec![Dim::Dense(brows), Dim::Csr(seg, idx)];
    dims.extend(tail);
    Encoded {
        shape: vec![rows, cols],
        order: (0..2 + block_map.len()).collect(),
        block_map,
        dims,
        values,
    }
}

/// The dense matrix `f` and `values` encode, by walking the format (as DENSIFY does).
pub fn densified(f: &SparseFormat<'_>, values: &[f32]) -> Result<Vec<f32>, KernelError> {
    let mut out = vec![0.0f32; f.shape().iter().product()];
    let mut leaves = 0;
    f.walk(|leaf, flat| {
        assert_eq!(leaf, leaves);
        leaves += 1;
        out[flat] = values[leaf];
        Ok(())
    })?;
    Ok(out)
}

pub fn width() -> impl Strategy<Value = Width> {
    prop_oneof![Just(Width::I32), Just(Width::U16), Just(Width::U8)]
}

pub fn divisors(n: usize) -> Vec<usize> {
    (1..=n).filter(|d| n % d == 0).collect()
}

/// A matrix (rows, cols, values with about `density` non-zeros), a block shape dividing it,
/// the encoding's widths.
pub fn case() -> impl Strategy<Value = (usize, usize, Vec<f32>, usize, usize, Vec<Width>)> {
    (1usize..=12, 1usize..=24, 0.0f64..=1.0).prop_flat_map(|(rows, cols, density)| {
        let cells =
            prop::collection::vec((prop::bool::weighted(density), -4.0f32..4.0), rows * cols)
                .prop_map(|c| {
                    c.into_iter()
                        .map(|(keep, v)| if keep && v != 0.0 { v } else { 0.0 })
                        .collect::<Vec<f32>>()
                });
        (
            Just(rows),
            Just(cols),
            cells,
            prop::sample::select(divisors(rows)),
            prop::sample::select(divisors(cols)),
            prop::collection::vec(width(), 4),
        )
    })
}
