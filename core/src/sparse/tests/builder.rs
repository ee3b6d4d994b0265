//! The builder: any order, duplicates combined, zeros (and sums that cancel) dropped, sparse
//! or dense by fill, range errors in every profile, flags refusing duplicates, compaction of
//! a full scratch.

use std::collections::BTreeMap;

use super::*;

type Features = (usize, Vec<(u16, i8)>);

/// Most features per vector (fewer under Miri, whose random generator is slow).
const FEATURES: usize = if cfg!(miri) { 24 } else { 2 * MAX };

fn features() -> impl Strategy<Value = Features> {
    (1..=MAX).prop_flat_map(|len| {
        (
            Just(len),
            prop::collection::vec((0..len as u16, -3i8..4), 0..FEATURES),
        )
    })
}

/// Builds with a scratch of `scratch` entries into every destination; the naive reference is
/// a map summing in order. Values are small integers, so float sums are exact. A scratch too
/// small may refuse a feature, but only one whose index is new when every held index is
/// distinct and non-zero.
fn check_builder<T: TestNum + From<i8>>(
    input: &Features,
    scratch: usize,
) -> Result<(), TestCaseError> {
    let (len, fs) = input;
    let mut map: BTreeMap<u32, T> = BTreeMap::new();
    let mut refused = None;
    let mut entries = vec![(0u32, T::junk()); scratch];
    let (r, out) = each_dst!(T, |dst| (), {
        let mut b = BufferBuilder::new(*len, &mut entries).unwrap();
        let mut r = Ok(());
        for (k, &(i, v)) in fs.iter().enumerate() {
            r = b.add(i as usize, T::from(v));
            if r.is_err() {
                refused = Some(k);
                break;
            }
        }
        r.and(b.build_into(&mut dst))
    });
    let accepted = &fs[..refused.unwrap_or(fs.len())];
    for &(i, v) in accepted {
        let e = map.entry(i as u32).or_insert(T::ZERO);
        *e = e.add(T::from(v));
        if e.is_default() {
            map.remove(&(i as u32));
        }
    }
    if let Some(k) = refused {
        prop_assert_eq!(r, Err(capacity(scratch + 1, scratch)));
        prop_assert_eq!(map.len(), scratch);
        prop_assert!(!map.contains_key(&(fs[k].0 as u32)));
        return Ok(());
    }
    let mut want = vec![T::ZERO; *len];
    for (&i, &v) in &map {
        want[i as usize] = v;
    }
    let non_zero = map.len();
    prop_assert_eq!(r, Ok(()));
    prop_assert_eq!(&out.to_dense(), &want);
    if non_zero * 2 >= *len {
        prop_assert!(out.is_dense());
    } else {
        prop_assert_eq!(out.count, non_zero);
        prop_assert!(out.values.iter().all(|v| !v.is_default()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn builds_like_a_map_f32(input in features()) {
        check_builder::<f32>(&input, 2 * MAX)?;
    }

    #[test]
    fn builds_like_a_map_i32(input in features()) {
        check_builder::<i32>(&input, 2 * MAX)?;
    }

    #[test]
    fn builds_in_small_scratch_by_compacting(input in features(), scratch in 1..MAX) {
        check_builder::<i32>(&input, scratch)?;
    }
}

#[test]
fn cancelling_duplicates_terminate_and_vanish() {
    let mut scratch = [(0u32, 0.0f64); 4];
    let mut b = BufferBuilder::new(3, &mut scratch).unwrap();
    // Far more features than scratch: compaction keeps cancelling them.
    for _ in 0..1000 {
        b.add(1, 0.5).unwrap();
        b.add(1, -0.5).unwrap();
    }
    b.add(2, 1.0).unwrap();
    let mut v: InlineVBuffer<f64, 4> = VBuffer::default();
    b.build_into(&mut v).unwrap();
    assert_eq!(
        (v.count(), v.indices(), v.values()),
        (1, &[2u32][..], &[1.0][..])
    );
    // The builder is empty again, ready for the next vector.
    assert_eq!(b.count(), 0);
    b.build_into(&mut v).unwrap();
    assert_eq!((v.len(), v.count()), (3, 0));
}

#[test]
fn errors_come_in_release_builds_too() {
    let mut scratch = [(0u32, 0u32); 2];
    let mut b = BufferBuilder::new(5, &mut scratch).unwrap();
    assert_eq!(
        b.add(5, 1),
        Err(SparseError::IndexOutOfRange {
            position: 0,
            index: 5,
            len: 5
        })
    );
    b.add(0, 1).unwrap();
    b.add(1, 1).unwrap();
    assert_eq!(b.add(2, 1), Err(capacity(3, 2)));
    assert_eq!(b.entries(), &[(0, 1), (1, 1)]);
    b.add(1, 0).unwrap(); // zeros never take room
    b.add(1, 1).unwrap(); // combined into the held index
    assert_eq!(b.entries(), &[(0, 1), (1, 2)]);
    b.add(0, u32::MAX).unwrap(); // wraps to zero: removed, making room
    assert_eq!(b.entries(), &[(1, 2)]);
    b.add(0, 1).unwrap();
    let mut small: InlineVBuffer<u32, 1> = VBuffer::default();
    assert_eq!(b.build_into(&mut small), Err(capacity(2, 1)));
    assert_eq!(b.count(), 2); // kept
    let v = VBufferView::try_dense(Slices::dense(&[1u32, 2])).unwrap();
    assert_eq!(
        b.add_vector(4, &v),
        Err(SparseError::RangeOutOfBounds {
            start: 4,
            length: 2,
            len: 5
        })
    );
    assert_eq!(
        b.add_vector(usize::MAX, &v).unwrap_err(),
        SparseError::RangeOutOfBounds {
            start: usize::MAX,
            length: 2,
            len: 5
        }
    );
    b.reset(3).unwrap();
    assert_eq!((b.len(), b.count(), b.is_empty()), (3, 0, false));
    b.add_vector(1, &v).unwrap();
    let mut out: InlineVBuffer<u32, 3> = VBuffer::default();
    b.build_into(&mut out).unwrap();
    assert_eq!(out.iter_all().collect::<Vec<_>>(), [0, 1, 2]);
}

#[test]
fn flags_refuse_duplicates() {
    let mut scratch = [(0u32, false); 8];
    let mut b = BufferBuilder::new(10, &mut scratch).unwrap();
    b.add(3, true).unwrap();
    b.add(7, true).unwrap();
    b.add(7, false).unwrap(); // a zero: dropped, not a duplicate
    b.add(3, true).unwrap();
    let mut v: InlineVBuffer<bool, 8> = VBuffer::default();
    assert_eq!(
        b.build_into(&mut v),
        Err(SparseError::Duplicate { index: 3 })
    );
    // Nothing lost: both features for index 3 and the one for 7 are still there, sorted.
    assert_eq!(b.entries(), &[(3, true), (3, true), (7, true)]);
}

#[test]
fn with_entries_checks_what_it_is_given() {
    let mut scratch = [(4u32, 1i32), (1, 2), (4, -1), (9, 5)];
    assert_eq!(
        BufferBuilder::with_entries(5, &mut scratch, 4).unwrap_err(),
        SparseError::IndexOutOfRange {
            position: 3,
            index: 9,
            len: 5
        }
    );
    assert_eq!(
        BufferBuilder::with_entries(5, &mut scratch, 5).unwrap_err(),
        capacity(5, 4)
    );
    let mut b = BufferBuilder::with_entries(5, &mut scratch, 3).unwrap();
    let mut v: InlineVBuffer<i32, 5> = VBuffer::default();
    b.build_into(&mut v).unwrap();
    assert_eq!(v.iter_all().collect::<Vec<_>>(), [0, 2, 0, 0, 0]);
}
