//! The owned sparse vector: growth by doubling from 4, reuse, kept contents, validation that
//! returns the `Vec`s, independence of clones, and the same results as the fixed-capacity
//! storage of `tessera-core` for every dense / sparse mix; and the owned builder.

use proptest::prelude::*;
use tessera_alloc::{OwnedVBuffer, VecBufferBuilder, VecStorage};
use tessera_core::sparse::{
    InlineVBuffer, Reserved, Slices, SparseError, Storage, VBuffer, VBufferView,
};

#[test]
fn arrays_double_from_four_and_are_reused() {
    let mut v: OwnedVBuffer<f32> = VBuffer::default();
    assert_eq!(v.storage().lens(), (0, 0));
    let r = v.edit(1000, 1).unwrap().reserved();
    assert_eq!(
        r,
        Reserved {
            new_values: true,
            new_indices: true
        }
    );
    assert_eq!(v.storage().lens(), (4, 4));
    assert!(v.edit(1000, 5).unwrap().reserved().new_values);
    assert_eq!(v.storage().lens(), (8, 8));
    v.edit(1000, 20).unwrap();
    assert_eq!(v.storage().lens(), (32, 32));
    // Smaller requests reuse the very same arrays.
    let p = v.storage().values().as_ptr();
    for count in [3, 32, 0, 17] {
        let r = v.edit(1000, count).unwrap().reserved();
        assert_eq!(r, Reserved::default());
        assert_eq!(v.storage().values().as_ptr(), p);
    }
    // Dense needs no indices.
    v.edit(100, 100).unwrap();
    assert_eq!(v.storage().lens(), (128, 32));
}

#[test]
fn edit_keep_copies_the_old_contents() {
    let src = VBufferView::try_sparse(100, Slices::new(&[1.0f32, 2.0, 3.0], &[5, 6, 90])).unwrap();
    let mut v = OwnedVBuffer::default();
    src.copy_to(&mut v).unwrap();
    v.densify().unwrap(); // grows with keep, scatters in place
    assert!(v.is_dense());
    assert!(v == src);
    let mut w = OwnedVBuffer::default();
    src.copy_to(&mut w).unwrap();
    let mut ed = w.edit_keep(100, 7).unwrap();
    assert!(ed.reserved().new_values);
    assert_eq!(&ed.values()[..3], &[1.0, 2.0, 3.0]);
    assert_eq!(&ed.indices()[..3], &[5, 6, 90]);
}

#[test]
fn invalid_parts_come_back_untouched() {
    let values = vec![1i32, 2, 3];
    let indices = vec![4u32, 4, 9];
    let (pv, pi) = (values.as_ptr(), indices.as_ptr());
    let e = OwnedVBuffer::try_sparse(10, VecStorage::from_parts(values, indices)).unwrap_err();
    assert_eq!(
        e.error,
        SparseError::NotIncreasing {
            position: 1,
            previous: 4,
            index: 4
        }
    );
    let (values, indices) = e.into_storage().into_parts();
    assert_eq!((values.as_ptr(), indices.as_ptr()), (pv, pi));
    assert_eq!((values, indices), (vec![1, 2, 3], vec![4, 4, 9]));
}

#[test]
fn clones_never_share_arrays() {
    let a = OwnedVBuffer::try_sparse(10, VecStorage::from_parts(vec![1.0f32, 2.0], vec![1, 8]))
        .unwrap();
    let mut b = a.clone();
    b.values_mut()[0] = 100.0;
    b.apply_at(3, |_, v| *v = 7.0).unwrap();
    assert_eq!((a.get(1), a.get(3), a.count()), (Some(1.0), Some(0.0), 2));
    assert_eq!((b.get(1), b.get(3), b.count()), (Some(100.0), Some(7.0), 3));
    assert_ne!(a.storage().values().as_ptr(), b.storage().values().as_ptr());
}

/// Two vectors of one length, any mix of sparse / dense / empty, small integer values (exact
/// in f32).
fn pair() -> impl Strategy<Value = (usize, Vec<Option<i8>>, Vec<Option<i8>>, bool, bool)> {
    (0usize..=if cfg!(miri) { 16 } else { 48 }).prop_flat_map(|len| {
        let entry = prop::option::weighted(0.4, -4i8..5);
        (
            Just(len),
            prop::collection::vec(entry.clone(), len),
            prop::collection::vec(entry, len),
            any::<bool>(),
            any::<bool>(),
        )
    })
}

fn parts(entries: &[Option<i8>], dense: bool) -> (Vec<f32>, Vec<u32>) {
    if dense {
        return (
            entries.iter().map(|e| e.map_or(0.0, f32::from)).collect(),
            Vec::new(),
        );
    }
    let mut p = (Vec::new(), Vec::new());
    for (i, e) in entries.iter().enumerate() {
        if let Some(x) = e {
            p.0.push(f32::from(*x));
            p.1.push(i as u32);
        }
    }
    p
}

fn dense_of<S: Storage<Elem = f32>>(v: &VBuffer<S>) -> Vec<f32> {
    v.iter_all().collect()
}

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn owned_matches_inline_and_naive((len, ea, eb, da, db) in pair()) {
        let (va, ia) = parts(&ea, da);
        let (vb, ib) = parts(&eb, db);
        let a = OwnedVBuffer::try_sparse(len, VecStorage::from_parts(va, ia)).unwrap();
        let b = VBufferView::try_sparse(len, Slices::new(&vb, &ib)).unwrap();
        let (na, nb) = (dense_of(&a), dense_of(&b));
        let plus: Vec<f32> = na.iter().zip(&nb).map(|(x, y)| x + y).collect();
        let axpy: Vec<f32> = na.iter().zip(&nb).map(|(x, y)| x + 3.0 * y).collect();

        let mut owned = OwnedVBuffer::default();
        let mut inline: InlineVBuffer<f32, 48> = VBuffer::default();
        a.add_into(&b, &mut owned).unwrap();
        a.add_into(&b, &mut inline).unwrap();
        prop_assert_eq!(dense_of(&owned), plus.clone());
        prop_assert_eq!((owned.count(), owned.indices()), (inline.count(), inline.indices()));

        a.copy_to(&mut owned).unwrap();
        owned.add_mult(&b, 3.0).unwrap();
        prop_assert_eq!(dense_of(&owned), axpy);
        a.copy_to(&mut owned).unwrap();
        owned.add(&b).unwrap();
        prop_assert_eq!(dense_of(&owned), plus);

        let dot: f32 = na.iter().zip(&nb).map(|(x, y)| x * y).sum();
        prop_assert_eq!(a.dot(&b).unwrap(), dot);
        let l2: f32 = na.iter().zip(&nb).map(|(x, y)| (x - y) * (x - y)).sum();
        prop_assert_eq!(a.dist_l2_squared(&b).unwrap(), l2);

        b.copy_maybe_sparse(&mut owned).unwrap();
        prop_assert_eq!(dense_of(&owned), nb.clone());
        owned.densify().unwrap();
        prop_assert!(owned.is_dense());
        prop_assert_eq!(dense_of(&owned), nb.clone());

        // The builder, from b's entries given back to front and twice (halved).
        let mut builder = VecBufferBuilder::new(len).unwrap();
        for (i, x) in b.iter().collect::<Vec<_>>().into_iter().rev() {
            builder.add(i, x / 2.0).unwrap();
            builder.add(i, x / 2.0).unwrap();
        }
        builder.build_into(&mut owned).unwrap();
        prop_assert_eq!(dense_of(&owned), nb);
    }
}

#[test]
fn the_owned_builder_grows_compacts_and_reuses() {
    let mut b = VecBufferBuilder::new(50).unwrap();
    assert_eq!((b.len(), b.is_empty(), b.count()), (50, false, 0));
    // Many features on few indices: compaction keeps the scratch small.
    let n = if cfg!(miri) { 500 } else { 10_000 };
    for k in 0..n {
        b.add(k % 5, 1i32).unwrap();
    }
    assert!(b.count() <= 16, "scratch held {}", b.count());
    let mut v = OwnedVBuffer::default();
    b.build_into(&mut v).unwrap();
    assert_eq!(
        (v.indices(), v.values()),
        (&[0u32, 1, 2, 3, 4][..], &[n as i32 / 5; 5][..])
    );
    assert_eq!(b.count(), 0);
    assert_eq!(
        b.add(50, 1),
        Err(SparseError::IndexOutOfRange {
            position: 0,
            index: 50,
            len: 50
        })
    );
    let dense = VBufferView::try_dense(Slices::dense(&[1i32; 30])).unwrap();
    b.add_vector(20, &dense).unwrap();
    assert_eq!(
        b.add_vector(21, &dense),
        Err(SparseError::RangeOutOfBounds {
            start: 21,
            length: 30,
            len: 50
        })
    );
    b.build_into(&mut v).unwrap();
    assert!(v.is_dense()); // 30 of 50 non-zero: dense at >= 50 %
    assert_eq!(v.sum(), 30);
    b.reset(100).unwrap();
    b.add_vector(10, &dense).unwrap();
    b.build_into(&mut v).unwrap();
    assert!(!v.is_dense() && v.count() == 30); // 30 %: sparse

    let mut flags = VecBufferBuilder::new(4).unwrap();
    flags.add(1, true).unwrap();
    flags.add(1, true).unwrap();
    let mut f = OwnedVBuffer::default();
    assert_eq!(
        flags.build_into(&mut f),
        Err(SparseError::Duplicate { index: 1 })
    );
    assert_eq!(flags.count(), 2);
    #[cfg(target_pointer_width = "64")]
    assert!(VecBufferBuilder::<f32>::new(u32::MAX as usize + 1).is_err());
}
