//! Construction and reading: validation of untrusted parts (nothing lost on failure), the
//! unchecked constructor, views, `get`, iteration and logical equality.

use super::*;

/// What `try_new` must decide, written the obvious way.
fn naive_valid(len: usize, count: usize, values: &[u32], indices: &[u32]) -> bool {
    if len > MAX_LEN || count > len || values.len() < count {
        return false;
    }
    if count == len {
        return true;
    }
    indices.len() >= count
        && indices[..count].windows(2).all(|w| w[0] < w[1])
        && indices[..count].iter().all(|&i| (i as usize) < len)
}

fn unchecked_parts() -> impl Strategy<Value = (usize, usize, Vec<u32>, Vec<u32>)> {
    (0..=MAX).prop_flat_map(|len| {
        (
            Just(len),
            0..=len + 2,
            prop::collection::vec(any::<u32>(), 0..=len + 2),
            prop::collection::vec(0..(len as u32 + 3), 0..=len + 2),
        )
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn try_new_accepts_exactly_the_valid_parts((len, count, values, mut indices) in unchecked_parts()) {
        // Sorted most of the time, so valid sparse parts are common.
        if count % 2 == 0 {
            indices.sort_unstable();
        }
        let want = naive_valid(len, count, &values, &indices);
        match VBuffer::try_new(len, count, Slices::new(&values, &indices)) {
            Ok(v) => {
                prop_assert!(want);
                prop_assert_eq!(v.values(), &values[..count]);
                if count < len {
                    prop_assert_eq!(v.indices(), &indices[..count]);
                }
            }
            Err(e) => {
                prop_assert!(!want, "rejected valid parts: {:?}", e.error);
                // Nothing lost: the very slices come back.
                let (v, i) = e.into_storage().into_parts();
                prop_assert!(core::ptr::eq(v, &values[..]) && core::ptr::eq(i, &indices[..]));
            }
        }
    }

    #[test]
    fn try_new_gives_owned_storage_back((len, count, values, indices) in unchecked_parts()) {
        let values: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        let storage = Grow { values: values.clone(), indices: indices.clone() };
        if let Err(e) = VBuffer::try_new(len, count, storage) {
            prop_assert_eq!(&e.storage.values, &values);
            prop_assert_eq!(&e.storage.indices, &indices);
        }
    }
}

pub(super) fn check_reading<T: TestElem>(p: &Parts<T>) -> Result<(), TestCaseError> {
    let v = p.view();
    let dense = p.to_dense();
    prop_assert_eq!(v.len(), p.len);
    prop_assert_eq!(v.is_dense(), p.is_dense());
    prop_assert_eq!(v.count(), p.values.len());
    for (i, &want) in dense.iter().enumerate() {
        prop_assert_eq!(v.get(i), Some(want));
        prop_assert_eq!(v.get_or_default(i), want);
    }
    prop_assert_eq!(v.get(p.len), None);
    prop_assert_eq!(v.get_or_default(p.len + 5), T::default());
    prop_assert_eq!(v.iter_all().collect::<Vec<_>>(), dense.clone());
    prop_assert_eq!(v.iter_all().len(), p.len);
    let explicit = p.explicit();
    let entries: Vec<(usize, T)> = v.iter().collect();
    let want: Vec<(usize, T)> = (0..p.len)
        .filter(|&i| explicit[i])
        .map(|i| (i, dense[i]))
        .collect();
    prop_assert_eq!(&entries, &want);
    let mut visited = Vec::new();
    v.for_each_defined(|i, x| visited.push((i, x)));
    prop_assert_eq!(&visited, &want);
    // A view of a view is the same vector, and equal to its densified self.
    let w = v.view();
    prop_assert_eq!(Out::of(&w), Out::of(&v));
    let d = p.densified();
    prop_assert!(v == d.view());
    // The unchecked constructor, on parts known valid.
    // `p` came from `Parts`, whose invariant `view()` just checked.
    let u = VBuffer::new_unchecked(p.len, p.values.len(), Slices::new(&p.values, &p.indices));
    prop_assert_eq!(Out::of(&u), Out::of(&v));
    Ok(())
}

prop_types!(reading: check_reading(vectors) for f32, i32, u32, f64, bool);

pub(super) fn check_equality<T: TestElem>(p: &Pair<T>) -> Result<(), TestCaseError> {
    let want = p.a.to_dense() == p.b.to_dense();
    for m in p.mixes() {
        prop_assert_eq!(m.a.view() == m.b.view(), want);
    }
    Ok(())
}

prop_types!(equality: check_equality(pairs) for i32, f32, bool);

#[test]
fn constructors_report_what_is_wrong() {
    let v = [1.0f32, 2.0, 3.0];
    let e = |len, count, ix: &[u32]| {
        VBuffer::try_new(len, count, Slices::new(&v, ix))
            .unwrap_err()
            .error
    };
    assert_eq!(
        e(2, 3, &[]),
        SparseError::CountTooLarge { count: 3, len: 2 }
    );
    assert_eq!(
        e(9, 4, &[]),
        SparseError::MissingValues {
            count: 4,
            values: 3
        }
    );
    assert_eq!(
        e(9, 2, &[1]),
        SparseError::MissingIndices {
            count: 2,
            indices: 1
        }
    );
    assert_eq!(
        e(9, 3, &[1, 3, 3]),
        SparseError::NotIncreasing {
            position: 2,
            previous: 3,
            index: 3
        }
    );
    assert_eq!(
        e(4, 3, &[1, 4, 9]),
        SparseError::IndexOutOfRange {
            position: 1,
            index: 4,
            len: 4
        }
    );
    let bad = VBufferView::try_sparse(9, Slices::new(&v, &[1, 2])).unwrap_err();
    assert_eq!(
        bad.error,
        SparseError::CountMismatch {
            values: 3,
            indices: 2
        }
    );
    assert_eq!(
        bad.to_string(),
        "invalid sparse vector: 3 values but 2 indices"
    );
    assert!(std::format!("{bad:?}").contains("CountMismatch"));
    // A sparse vector with every index present is dense; its indices are not consulted.
    let full = VBufferView::try_new(3, 3, Slices::new(&v, &[7, 7, 7])).unwrap();
    assert!(full.is_dense() && full.indices().is_empty());
    let z = VBufferView::<f32>::zeros(5, Slices::default()).unwrap();
    assert_eq!((z.len(), z.count(), z.sum()), (5, 0, 0.0));
    assert_eq!(
        std::format!(
            "{:?}",
            VBufferView::try_sparse(5, Slices::new(&v[..1], &[3])).unwrap()
        ),
        "VBuffer { len: 5, indices: [3], values: [1.0] }"
    );
    assert_eq!(
        std::format!(
            "{:?}",
            VBufferView::try_dense(Slices::dense(&v[..2])).unwrap()
        ),
        "VBuffer { len: 2, dense: [1.0, 2.0] }"
    );
}

#[test]
#[cfg(target_pointer_width = "64")]
fn lengths_beyond_u32_are_refused() {
    let len = MAX_LEN + 1;
    let e = VBufferView::<f32>::zeros(len, Slices::default()).unwrap_err();
    assert_eq!(e.error, SparseError::LengthTooLarge { len });
    let mut v: InlineVBuffer<f32, 4> = VBuffer::default();
    assert_eq!(
        v.edit(len, 0).unwrap_err(),
        SparseError::LengthTooLarge { len }
    );
    assert_eq!(
        v.resize(len).unwrap_err(),
        SparseError::LengthTooLarge { len }
    );
    let mut scratch = [(0u32, 0.0f32); 2];
    assert!(BufferBuilder::new(len, &mut scratch).is_err());
    // The largest length is fine, and its last index works.
    let big = VBufferView::try_sparse(MAX_LEN, Slices::new(&[1.0f32], &[u32::MAX - 1])).unwrap();
    assert_eq!(big.get(MAX_LEN - 1), Some(1.0));
    assert_eq!(big.get(MAX_LEN), None);
}

#[test]
fn fixed_storages_report_the_size_needed() {
    let src = VBufferView::try_dense(Slices::dense(&[1u32, 2, 3, 4, 5])).unwrap();
    let (mut values, mut indices) = ([0u32; 3], [0u32; 3]);
    let mut dst = VBuffer::with_storage(SlicesMut::new(&mut values, &mut indices));
    assert_eq!(src.copy_to(&mut dst), Err(capacity(5, 3)));
    let mut inline: InlineVBuffer<u32, 4> = VBuffer::default();
    assert_eq!(src.copy_to(&mut inline), Err(capacity(5, 4)));
    assert_eq!(
        Inline::<u32, 2>::from_slices(&[1, 2, 3], &[]).unwrap_err(),
        CapacityError {
            needed: 3,
            available: 2
        }
    );
    assert_eq!(Inline::<u32, 2>::new().capacity(), 2);
    let (v, i) = Inline::<u32, 4>::from_slices(&[1], &[2])
        .unwrap()
        .into_parts();
    assert_eq!((&v[..], &i[..]), (&[1u32][..], &[2u32][..]));
}
