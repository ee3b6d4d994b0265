//! The editor: reuse and growth, whether arrays were created, commit validation that gives
//! the editor back, truncation, and what an abandoned edit or a capacity error leaves.

use super::*;

#[test]
fn commit_validates_and_gives_the_editor_back() {
    let mut v: InlineVBuffer<f32, 8> = VBuffer::default();
    let mut ed = v.edit(10, 3).unwrap();
    let (values, indices) = ed.parts();
    values.copy_from_slice(&[1.0, 2.0, 3.0]);
    indices.copy_from_slice(&[4, 2, 9]);
    let mut err = ed.commit().unwrap_err();
    assert_eq!(
        err.error,
        SparseError::NotIncreasing {
            position: 1,
            previous: 4,
            index: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "invalid edit: index 2 at position 1 does not exceed the previous index 4"
    );
    assert!(std::format!("{err:?}").contains("NotIncreasing"));
    // Fix it in the same editor; nothing written was lost.
    assert_eq!(err.editor.values(), &[1.0, 2.0, 3.0]);
    err.editor.indices().copy_from_slice(&[2, 4, 9]);
    err.editor.commit().unwrap();
    assert_eq!(Out::of(&v).indices, [2, 4, 9]);
    assert_eq!(v.get(4), Some(2.0));

    let mut ed = v.edit(10, 2).unwrap();
    ed.indices().copy_from_slice(&[3, 10]);
    assert_eq!(
        ed.commit().unwrap_err().error,
        SparseError::IndexOutOfRange {
            position: 1,
            index: 10,
            len: 10
        }
    );
}

#[test]
fn commit_truncated_keeps_a_prefix() {
    let mut v: InlineVBuffer<i32, 8> = VBuffer::default();
    let mut ed = v.edit(100, 5).unwrap();
    assert_eq!(
        (ed.len(), ed.count(), ed.is_dense(), ed.is_empty()),
        (100, 5, false, false)
    );
    let (values, indices) = ed.parts();
    values[..2].copy_from_slice(&[7, 8]);
    indices[..2].copy_from_slice(&[10, 20]);
    let err = ed.commit_truncated(6).unwrap_err();
    assert_eq!(
        err.error,
        SparseError::MissingValues {
            count: 6,
            values: 5
        }
    );
    err.editor.commit_truncated(2).unwrap();
    assert_eq!((v.count(), v.get(20)), (2, Some(8)));

    // Truncating a dense editor below its length: it has no indices to keep.
    let mut d: InlineVBuffer<i32, 8> = VBuffer::default();
    let ed = d.edit(4, 4).unwrap();
    assert_eq!(
        ed.commit_truncated(2).unwrap_err().error,
        SparseError::MissingIndices {
            count: 2,
            indices: 0
        }
    );
    // A truncation to the full length is dense.
    let mut ed = d.edit(3, 3).unwrap();
    ed.values().copy_from_slice(&[1, 2, 3]);
    // Dense, n == count.
    ed.commit_truncated_unchecked(3);
    assert!(d.is_dense());
    assert_eq!(d.sum(), 6);
}

#[test]
fn an_abandoned_edit_leaves_a_zero_vector_and_a_failed_one_leaves_it_unchanged() {
    let src = VBufferView::try_sparse(10, Slices::new(&[1.0f32, 2.0], &[3, 7])).unwrap();
    let mut v: InlineVBuffer<f32, 4> = VBuffer::default();
    src.copy_to(&mut v).unwrap();
    // Too large for the inline storage: an error, and the vector is as it was.
    assert_eq!(v.edit(10, 10).unwrap_err(), capacity(10, 4));
    assert_eq!(
        v.edit(3, 4).unwrap_err(),
        SparseError::CountTooLarge { count: 4, len: 3 }
    );
    assert!(v == src);
    {
        let mut ed = v.edit(6, 2).unwrap();
        ed.values()[0] = 9.0;
        // Dropped without a commit.
    }
    assert_eq!((v.len(), v.count()), (6, 0));
    assert!(v.iter_all().all(|x| x == 0.0));
    // The editor has no `Drop`: forgetting it (`mem::forget`) leaves the same as this.
    src.copy_to(&mut v).unwrap();
    let _ = v.edit(8, 3).unwrap();
    assert_eq!((v.len(), v.count()), (8, 0));
}

#[test]
fn growth_reports_new_arrays_and_reuses_them_after() {
    let mut v: VBuffer<Grow<f32>> = VBuffer::default();
    assert_eq!(
        v.edit(100, 3).unwrap().reserved(),
        Reserved {
            new_values: true,
            new_indices: true
        }
    );
    assert_eq!(
        (v.storage().values.len(), v.storage().indices.len()),
        (4, 4)
    );
    // Smaller or equal: reused.
    assert_eq!(v.edit(100, 4).unwrap().reserved(), Reserved::default());
    // Dense: only the values grow (doubling from 4 until large enough).
    assert_eq!(
        v.edit(20, 20).unwrap().reserved(),
        Reserved {
            new_values: true,
            new_indices: false
        }
    );
    assert_eq!(v.storage().values.len(), 32);

    // `edit_keep` keeps the old contents when it grows.
    let mut w: VBuffer<Grow<i32>> = VBuffer::default();
    let src = VBufferView::try_sparse(50, Slices::new(&[5, 6, 7], &[1, 2, 40])).unwrap();
    src.copy_to(&mut w).unwrap();
    let mut ed = w.edit_keep(50, 9).unwrap();
    let (values, indices) = ed.parts();
    assert_eq!(
        (&values[..3], &indices[..3]),
        (&[5, 6, 7][..], &[1, 2, 40][..])
    );
    values[3..].fill(1);
    for (k, i) in indices[3..].iter_mut().enumerate() {
        *i = 41 + k as u32;
    }
    ed.commit().unwrap();
    assert_eq!(w.sum(), 24);
}

fn check_refill<T: TestElem>(seq: &[Parts<T>]) -> Result<(), TestCaseError> {
    // One destination per storage, refilled by every vector in turn (the getter pattern).
    let (mut values, mut indices) = (vec![T::junk(); CAP], vec![u32::MAX; CAP]);
    let mut fixed = VBuffer::with_storage(SlicesMut::new(&mut values, &mut indices));
    let mut inline: InlineVBuffer<T, CAP> = VBuffer::default();
    let mut grow: VBuffer<Grow<T>> = VBuffer::default();
    for p in seq {
        let src = p.view();
        src.copy_to(&mut fixed).unwrap();
        src.copy_to(&mut inline).unwrap();
        src.copy_to(&mut grow).unwrap();
        let want = Out::of(&src);
        prop_assert_eq!(&Out::of(&fixed), &want);
        prop_assert_eq!(&Out::of(&inline), &want);
        prop_assert_eq!(&Out::of(&grow), &want);
        // Grow never shrinks and never exceeds doubling past the largest request.
        prop_assert!(grow.storage().values.len() >= p.values.len());
    }
    Ok(())
}

fn sequences<T: TestElem>() -> impl Strategy<Value = Vec<Parts<T>>> {
    prop::collection::vec(vectors::<T>(), 1..6)
}

prop_types!(refill: check_refill(sequences) for f32, i32, bool);
