//! DENSIFY's walk and the sparse FULLY_CONNECTED against dense references: random matrices
//! encoded in every form the format allows (CSR, CSC, both levels compressed, r x c blocks,
//! 1 x c blocks, r x 1 blocks), every index width for segments and indices. Densifying must
//! give the matrix back; the sparse mat-vec must equal a dense FULLY_CONNECTED on it. Then the
//! `sparse` fixture: the folded DENSIFY takes no arena bytes for the dense weights.

use super::super::fully_connected::sparse_weights::{Dims, Plan, RowIndex, build, matvec};
use super::{SparseFormat, densify};
use crate::interpreter::KernelError;
use crate::model::{DimensionFormat, LeSlice, SparseIndices};
use proptest::prelude::*;

/// An index vector's stored width.
#[derive(Debug, Clone, Copy)]
enum Width {
    I32,
    U16,
    U8,
}

/// A traversed level before its vectors are encoded.
#[derive(Debug, Clone)]
enum Dim {
    Dense(usize),
    Csr(Vec<usize>, Vec<usize>),
}

/// A matrix in TACO form, vectors still plain.
#[derive(Debug, Clone)]
struct Encoded {
    shape: Vec<usize>,
    order: Vec<usize>,
    block_map: Vec<usize>,
    dims: Vec<Dim>,
    values: Vec<f32>,
}

/// `v` in `w` (widened when it does not fit), as the model's little-endian bytes.
fn encode(v: &[usize], w: Width) -> (Width, Vec<u8>) {
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

fn view(w: Width, b: &[u8]) -> SparseIndices<'_> {
    match w {
        Width::I32 => SparseIndices::I32(LeSlice::new(b)),
        Width::U16 => SparseIndices::U16(LeSlice::new(b)),
        Width::U8 => SparseIndices::U8(b),
    }
}

/// The encoded vectors, owned, so a [`SparseFormat`] can borrow them.
struct Stored {
    vectors: Vec<(Width, Vec<u8>)>,
}

impl Stored {
    fn new(e: &Encoded, widths: &[Width]) -> Self {
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

    fn format<'a>(&'a self, e: &Encoded) -> Result<SparseFormat<'a>, KernelError> {
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
fn csr(m: &[f32], rows: usize, cols: usize) -> Encoded {
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
fn csc(m: &[f32], rows: usize, cols: usize) -> Encoded {
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
fn doubly(m: &[f32], rows: usize, cols: usize) -> Encoded {
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
fn blocked(m: &[f32], rows: usize, cols: usize, br: usize, bc: usize) -> Encoded {
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

/// Dense FULLY_CONNECTED in `k` order, bias after the sum, clamped.
fn dense_fc(m: &[f32], x: &[f32], bias: Option<&[f32]>, d: Dims) -> Vec<f32> {
    let mut out = vec![0.0; d.batches * d.units];
    for b in 0..d.batches {
        for n in 0..d.units {
            let mut acc = 0.0f32;
            for k in 0..d.depth {
                acc += m[n * d.depth + k] * x[b * d.depth + k];
            }
            acc += bias.map_or(0.0, |v| v[n]);
            out[b * d.units + n] = acc.max(d.lo).min(d.hi);
        }
    }
    out
}

fn densified(f: &SparseFormat<'_>, values: &[f32]) -> Result<Vec<f32>, KernelError> {
    let mut positions = Vec::new();
    f.walk(|leaf, flat| {
        assert_eq!(leaf, positions.len());
        positions.push(u32::try_from(flat).unwrap());
        Ok(())
    })?;
    let mut out = vec![f32::NAN; f.shape().iter().product()];
    densify(values, &positions, &mut out)?;
    Ok(out)
}

/// The sparse FULLY_CONNECTED of `e` (its plan, and its outputs).
fn sparse_fc(
    f: &SparseFormat<'_>,
    values: &[f32],
    x: &[f32],
    bias: Option<&[f32]>,
    d: Dims,
) -> Result<(Plan, Vec<f32>), KernelError> {
    let plan = Plan::new(f, d.units, d.depth, values.len())?;
    let bytes = plan.bytes(d.units).unwrap();
    let mut words = vec![0u32; bytes.div_ceil(4)];
    let persistent = &mut zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..bytes];
    build(f, plan, d.units, d.depth, persistent)?;
    let index = RowIndex::view(plan, d.units, persistent)?;
    let mut out = vec![f32::NAN; d.batches * d.units];
    matvec(&index, values, x, bias, &mut out, d)?;
    Ok((plan, out))
}

fn width() -> impl Strategy<Value = Width> {
    prop_oneof![Just(Width::I32), Just(Width::U16), Just(Width::U8)]
}

fn divisors(n: usize) -> Vec<usize> {
    (1..=n).filter(|d| n % d == 0).collect()
}

/// A matrix (rows, cols, values with about `density` non-zeros), a block shape dividing it,
/// the encoding's widths.
fn case() -> impl Strategy<Value = (usize, usize, Vec<f32>, usize, usize, Vec<Width>)> {
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

fn cases() -> u32 {
    if cfg!(miri) { 4 } else { 256 }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn every_encoding_densifies_and_multiplies_like_dense(
        (rows, cols, m, br, bc, widths) in case(),
        batches in 1usize..=3,
        with_bias in any::<bool>(),
        relu in any::<bool>(),
        seed in -3.0f32..3.0,
    ) {
        let x: Vec<f32> = (0..batches * cols).map(|i| seed + (i as f32 * 0.37).sin()).collect();
        let bias: Vec<f32> = (0..rows).map(|i| (i as f32 * 0.11).cos()).collect();
        let bias = with_bias.then_some(&bias[..]);
        let (lo, hi) = if relu { (0.0, f32::INFINITY) } else { (f32::NEG_INFINITY, f32::INFINITY) };
        let d = Dims { batches, depth: cols, units: rows, lo, hi };
        let want = dense_fc(&m, &x, bias, d);
        for e in [
            csr(&m, rows, cols),
            csc(&m, rows, cols),
            doubly(&m, rows, cols),
            blocked(&m, rows, cols, br, bc),
            blocked(&m, rows, cols, 1, bc),
        ] {
            let stored = Stored::new(&e, &widths);
            let f = stored.format(&e).unwrap();
            prop_assert_eq!(&densified(&f, &e.values).unwrap(), &m, "{:?}", e);
            let (plan, got) = sparse_fc(&f, &e.values, &x, bias, d).unwrap();
            // Same non-zeros in the same k order: equal exactly (only zeros are skipped).
            prop_assert_eq!(&got, &want, "{:?} {:?}", e, plan);
        }
    }
}

fn run(e: &Encoded) -> Result<(Plan, Vec<f32>), KernelError> {
    let stored = Stored::new(e, &[Width::U16, Width::U8]);
    let f = stored.format(e)?;
    let (rows, cols) = (e.shape[0], e.shape[1]);
    let x: Vec<f32> = (0..cols).map(|i| i as f32).collect();
    let d = Dims {
        batches: 1,
        depth: cols,
        units: rows,
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
    };
    sparse_fc(&f, &e.values, &x, None, d)
}

#[test]
fn layouts_follow_the_storage_order() {
    let m: Vec<f32> = (0..8 * 8)
        .map(|i| if i % 3 == 0 { i as f32 } else { 0.0 })
        .collect();
    let csr_plan = run(&csr(&m, 8, 8)).unwrap().0;
    assert_eq!((csr_plan.run, csr_plan.indexed, csr_plan.wide), (1, 0, 0));
    let block_plan = run(&blocked(&m, 8, 8, 1, 4)).unwrap().0;
    assert_eq!((block_plan.run, block_plan.indexed), (4, 0));
    let csc_plan = run(&csc(&m, 8, 8)).unwrap().0;
    assert_eq!((csc_plan.run, csc_plan.indexed), (1, 1));
    let square = run(&blocked(&m, 8, 8, 2, 2)).unwrap().0;
    assert_eq!((square.run, square.indexed), (1, 1));
}

#[test]
fn bad_metadata_is_refused() {
    let m = [1.0f32, 0.0, 2.0, 0.0, 3.0, 0.0];
    let good = csr(&m, 2, 3);
    assert!(run(&good).is_ok());

    // Columns going backwards within a row: DENSIFY would still place them, but the sparse
    // sum would not be in k order.
    let mut back = good.clone();
    back.dims[1] = Dim::Csr(vec![0, 2, 3], vec![2, 0, 1]);
    back.values = vec![2.0, 1.0, 3.0];
    assert!(matches!(run(&back), Err(KernelError::Unsupported { .. })));
    let stored = Stored::new(&back, &[Width::I32]);
    let f = stored.format(&back).unwrap();
    assert_eq!(
        densified(&f, &back.values).unwrap(),
        vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]
    );

    // A repeated column: DENSIFY keeps the last value; FULLY_CONNECTED refuses it.
    let mut twice = good.clone();
    twice.dims[1] = Dim::Csr(vec![0, 2, 3], vec![0, 0, 1]);
    assert!(run(&twice).is_err());

    // An index outside its dimension.
    let mut outside = good.clone();
    outside.dims[1] = Dim::Csr(vec![0, 2, 3], vec![0, 3, 1]);
    assert!(run(&outside).is_err());

    // More values addressed than stored.
    let mut few = good.clone();
    few.values.pop();
    assert!(run(&few).is_err());

    // Not a permutation; a block that does not divide; a DENSE size that is wrong.
    let mut order = good.clone();
    order.order = vec![0, 0];
    assert!(run(&order).is_err());
    let mut block = blocked(&m, 2, 3, 1, 3);
    block.dims[2] = Dim::Dense(2);
    assert!(run(&block).is_err());
    let mut dense = good.clone();
    dense.dims[0] = Dim::Dense(3);
    assert!(run(&dense).is_err());
}

#[test]
fn segments_past_their_vector_are_skipped_as_in_tflite() {
    // Row 1 has no segment end: TensorFlow Lite stores nothing for it.
    let mut e = csr(&[1.0, 0.0, 0.0, 2.0], 2, 2);
    e.dims[1] = Dim::Csr(vec![0, 1], vec![0, 1]);
    e.values = vec![1.0, 2.0];
    let stored = Stored::new(&e, &[Width::U8]);
    let f = stored.format(&e).unwrap();
    assert_eq!(densified(&f, &e.values).unwrap(), vec![1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn empty_dimensions_store_nothing() {
    let e = csr(&[], 0, 4);
    let stored = Stored::new(&e, &[Width::U8]);
    let f = stored.format(&e).unwrap();
    assert_eq!(f.walk(|_, _| Ok(())).unwrap(), 0);
    assert!(densified(&f, &[]).unwrap().is_empty());
}

#[cfg(feature = "std")]
mod fixture {
    use crate::interpreter::{AllOps, Interpreter, Options};
    use crate::model::Model;

    const SPARSE: &[u8] = include_bytes!("../../../../../tests/fixtures/models/sparse.tflite");
    /// The `sparse` fixture's dense weights: 32 x 64 float32.
    const DENSE_WEIGHTS: usize = 32 * 64 * 4;
    /// Its DENSIFY output.
    const DENSIFIED: i32 = 3;
    /// Its graph output.
    const OUTPUT: i32 = 6;

    /// The model in 4-aligned memory (constants read in place).
    fn aligned(bytes: &[u8]) -> Vec<u32> {
        let mut words = vec![0u32; bytes.len().div_ceil(4)];
        zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..bytes.len()].copy_from_slice(bytes);
        words
    }

    /// The fixture with its graph output replaced by the DENSIFY's output, so the DENSIFY
    /// cannot be folded: the subgraph's `outputs` vector is the `[1, 6]` whose change the
    /// loader reports as graph outputs `[3]` (operator #2's `[1, 6]` is left alone).
    fn unfolded() -> Vec<u32> {
        let pattern: Vec<u8> = [1i32, OUTPUT]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        for at in (0..SPARSE.len() - 8).step_by(4) {
            if SPARSE[at..at + 8] != pattern[..] {
                continue;
            }
            let mut bytes = SPARSE.to_vec();
            bytes[at + 4..at + 8].copy_from_slice(&DENSIFIED.to_le_bytes());
            let words = aligned(&bytes);
            let b = &zerocopy::IntoBytes::as_bytes(&words[..])[..bytes.len()];
            let Ok(model) = Model::load(b) else { continue };
            let g = model.subgraph(0).unwrap();
            let outs: Vec<_> = g.outputs().iter().collect();
            let last = g.operators().iter().last().unwrap();
            let last_outs: Vec<_> = last.outputs().iter().collect();
            if outs == [Some(DENSIFIED as usize)] && last_outs == [Some(OUTPUT as usize)] {
                return words;
            }
        }
        panic!("no graph outputs vector found");
    }

    fn arena(bytes: &[u8]) -> (usize, Vec<f32>) {
        let model = Model::load(bytes).unwrap();
        let options = Options::default();
        let needed = Interpreter::required(&model, &AllOps, &options).unwrap();
        let mut arena = vec![0u8; needed];
        let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
        {
            let mut x = it.input::<f32>(0).unwrap();
            for (i, v) in x.as_slice_mut().unwrap().iter_mut().enumerate() {
                *v = (i as f32 * 0.3).sin();
            }
        }
        it.invoke().unwrap();
        let out = it.output::<f32>(0).unwrap().as_slice().unwrap().to_vec();
        (it.arena_used_bytes(), out)
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn folded_densify_takes_no_dense_weights() {
        let words = aligned(SPARSE);
        let (folded, _) = arena(&zerocopy::IntoBytes::as_bytes(&words[..])[..SPARSE.len()]);
        let words = unfolded();
        let bytes = &zerocopy::IntoBytes::as_bytes(&words[..])[..SPARSE.len()];
        let (unfolded, dense) = arena(bytes);
        // The unfolded DENSIFY writes the whole matrix into the arena.
        assert_eq!(dense.len(), DENSE_WEIGHTS / 4);
        let nonzero = dense.iter().filter(|&&v| v != 0.0).count();
        assert!(nonzero > 0 && nonzero < dense.len() / 4, "{nonzero}");
        assert!(unfolded >= folded + DENSE_WEIGHTS, "{unfolded} vs {folded}");
        assert!(folded < DENSE_WEIGHTS, "{folded}");
    }
}
