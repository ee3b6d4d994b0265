//! After warm-up, filling owned sparse vectors allocates nothing: getters in ML.NET's
//! `ValueGetter` pattern (the caller's vector passed by `&mut`), copies, sums, densifying and
//! the builder, all refilling the same vectors row after row. Counted by a global allocator
//! wrapper (on the measuring thread only).

#[path = "support/counting.rs"]
mod counting;

use counting::allocations;
use tessera_alloc::{OwnedVBuffer, VecBufferBuilder, VecStorage};
use tessera_core::sparse::{SparseError, StorageMut, VBuffer};

/// Vector length; small under Miri, which is slow.
const LEN: usize = if cfg!(miri) { 200 } else { 2000 };

/// A column getter: row `row` is sparse with a row-dependent number of entries, every
/// seventh row dense. Fills the caller's vector through an editor, like a row cursor would.
fn get_row<S: StorageMut<Elem = f32>>(row: usize, dst: &mut VBuffer<S>) -> Result<(), SparseError> {
    if row % 7 == 3 {
        let mut ed = dst.edit(LEN, LEN)?;
        for (i, v) in ed.values().iter_mut().enumerate() {
            *v = ((i * 31 + row) % 17) as f32 - 8.0;
        }
        return ed.commit().map_err(|e| e.error);
    }
    let count = (row * 37) % (LEN / 5) + 1;
    let step = LEN / count;
    let mut ed = dst.edit(LEN, count)?;
    let (values, indices) = ed.parts();
    for k in 0..count {
        values[k] = (k + row) as f32 * 0.5;
        indices[k] = (k * step + row % step) as u32;
    }
    ed.commit().map_err(|e| e.error)
}

/// One row's worth of work; returns a checksum so nothing is optimised away.
fn process(
    row: usize,
    value: &mut OwnedVBuffer<f32>,
    previous: &mut OwnedVBuffer<f32>,
    sum: &mut OwnedVBuffer<f32>,
    dense: &mut OwnedVBuffer<f32>,
    built: &mut OwnedVBuffer<f32>,
    builder: &mut VecBufferBuilder<f32>,
) -> f32 {
    get_row(row, value).unwrap();
    value.add_into(previous, sum).unwrap();
    value.copy_to_dense(dense).unwrap();
    dense.add_mult(previous, 0.5).unwrap();
    for (i, x) in value.iter().take(300) {
        builder.add((i * 7) % LEN, x).unwrap();
    }
    builder.build_into(built).unwrap();
    value.copy_to(previous).unwrap();
    previous.apply_at(row % LEN, |_, v| *v += 1.0).unwrap();
    value.dot(sum).unwrap() + dense.sum() + built.norm_l1()
}

#[test]
fn refilling_warm_sparse_vectors_allocates_nothing() {
    const ROWS: usize = if cfg!(miri) { 12 } else { 60 };
    let mut value = OwnedVBuffer::default();
    let mut previous = OwnedVBuffer::zeros(LEN, VecStorage::new()).unwrap();
    let mut sum = OwnedVBuffer::default();
    let mut dense = OwnedVBuffer::default();
    let mut built = OwnedVBuffer::default();
    let mut builder = VecBufferBuilder::new(LEN).unwrap();
    let start = allocations();
    let mut warm = 0.0;
    // Warm-up: two passes over every row size every array for its largest row.
    for _ in 0..2 {
        for row in 0..ROWS {
            warm += process(
                row,
                &mut value,
                &mut previous,
                &mut sum,
                &mut dense,
                &mut built,
                &mut builder,
            );
        }
    }
    let before = allocations();
    assert!(
        before > start,
        "the warm-up allocates, so the counter works"
    );
    let mut total = 0.0;
    for _round in 0..if cfg!(miri) { 2 } else { 5 } {
        for row in 0..ROWS {
            total += process(
                row,
                &mut value,
                &mut previous,
                &mut sum,
                &mut dense,
                &mut built,
                &mut builder,
            );
        }
    }
    let after = allocations();
    assert_eq!(after - before, 0, "allocations after warm-up");
    assert!(total.is_finite() && warm.is_finite());
}
