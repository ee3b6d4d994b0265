//! Every special case the sparse operations' documentation states, one test each, on small
//! hand-written vectors (the differential tests in `math.rs` cover the general case).

use super::*;

type V = InlineVBuffer<f64, 16>;

/// A sparse vector of length `len` with these `(index, value)` entries.
fn sp(len: usize, entries: &[(u32, f64)]) -> V {
    let values: Vec<f64> = entries.iter().map(|e| e.1).collect();
    let indices: Vec<u32> = entries.iter().map(|e| e.0).collect();
    let storage = Inline::from_slices(&values, &indices).unwrap();
    VBuffer::try_new(len, entries.len(), storage).unwrap()
}

/// A dense vector.
fn de(values: &[f64]) -> V {
    let storage = Inline::from_slices(values, &[]).unwrap();
    VBuffer::try_new(values.len(), values.len(), storage).unwrap()
}

fn dense_of(v: &V) -> Vec<f64> {
    (0..v.len()).map(|i| v.get_or_default(i)).collect()
}

#[test]
fn add_mult_by_zero_changes_nothing() {
    // ML.NET's AddMult: `if (c == 0) return;` after the length check.
    let src = sp(4, &[(1, f64::INFINITY), (3, f64::NAN)]);
    for mut dst in [de(&[1.0, 2.0, 3.0, 4.0]), sp(4, &[(0, 1.0)])] {
        let before = (dense_of(&dst), dst.count(), dst.indices().to_vec());
        for c in [0.0, -0.0] {
            assert_eq!(dst.add_mult(&src, c), Ok(()));
            assert_eq!(
                (dense_of(&dst), dst.count(), dst.indices().to_vec()),
                before
            );
        }
        let short = sp(3, &[]);
        assert!(matches!(
            dst.add_mult(&short, 0.0),
            Err(SparseError::LengthMismatch { .. })
        ));
    }
    // Integers too.
    let mut d: InlineVBuffer<i32, 4> =
        VBuffer::try_new(2, 2, Inline::from_slices(&[1, 2], &[]).unwrap()).unwrap();
    let s: InlineVBuffer<i32, 4> =
        VBuffer::try_new(2, 1, Inline::from_slices(&[5], &[1]).unwrap()).unwrap();
    d.add_mult(&s, 0).unwrap();
    assert_eq!(d.values(), &[1, 2]);
}

#[test]
fn scale_by_zero_zeroes_explicit_values_and_keeps_the_structure() {
    let mut v = sp(5, &[(1, f64::NAN), (3, f64::NEG_INFINITY)]);
    v.scale_by(0.0);
    assert_eq!(v.indices(), &[1, 3]);
    assert_eq!(v.values(), &[0.0, 0.0]);
}

#[test]
fn max_abs_ignores_nans_and_is_zero_for_all_zero() {
    assert_eq!(sp(4, &[(0, f64::NAN), (2, -3.0)]).max_abs(), 3.0);
    assert_eq!(sp(4, &[]).max_abs(), 0.0);
    assert_eq!(de(&[0.0, 0.0]).max_abs(), 0.0);
}

#[test]
fn arg_max_and_arg_min_follow_their_stated_rules() {
    // Implicit zeros count, the first implicit index standing for them.
    assert_eq!(sp(5, &[(0, -1.0), (2, -2.0)]).arg_max(), Some((1, 0.0)));
    assert_eq!(sp(5, &[(0, 1.0), (1, 2.0)]).arg_min(), Some((2, 0.0)));
    // The lowest index wins ties.
    assert_eq!(de(&[1.0, 3.0, 3.0]).arg_max(), Some((1, 3.0)));
    assert_eq!(de(&[2.0, -1.0, -1.0]).arg_min(), Some((1, -1.0)));
    // NaNs are skipped; if every entry is NaN, entry 0.
    assert_eq!(de(&[f64::NAN, 1.0]).arg_max(), Some((1, 1.0)));
    assert_eq!(de(&[f64::NAN, 1.0]).arg_min(), Some((1, 1.0)));
    let (i, x) = de(&[f64::NAN, f64::NAN]).arg_max().unwrap();
    assert!(i == 0 && x.is_nan());
    let (i, x) = de(&[f64::NAN, f64::NAN]).arg_min().unwrap();
    assert!(i == 0 && x.is_nan());
    // None for length 0.
    assert_eq!(de(&[]).arg_max(), None);
    assert_eq!(sp(0, &[]).arg_min(), None);
}

#[test]
fn mul_elementwise_keeps_this_vectors_structure() {
    let mut a = sp(4, &[(0, 2.0), (2, 5.0)]);
    a.mul_elementwise(&sp(4, &[(0, 3.0), (3, 7.0)])).unwrap();
    assert_eq!(a.indices(), &[0, 2]);
    assert_eq!(a.values(), &[6.0, 0.0]); // 5 · (implicit 0) = 0, still explicit
    assert_eq!(dense_of(&a), [6.0, 0.0, 0.0, 0.0]);
}

#[test]
fn norm_l1_of_signed_integers_wraps() {
    let v: InlineVBuffer<i32, 4> =
        VBuffer::try_new(2, 2, Inline::from_slices(&[i32::MIN, 0], &[]).unwrap()).unwrap();
    assert_eq!(v.norm_l1(), i32::MIN); // |i32::MIN| wraps to itself
}

#[test]
fn dist_l2_squared_takes_each_difference_as_written() {
    // |a|² + |b|² − 2a·b would cancel to garbage here; (a − b)² is exactly 4.
    let (a, b) = (de(&[1e16 + 2.0]), de(&[1e16]));
    assert_eq!(a.dist_l2_squared(&b), Ok(4.0));
    let (a, b) = (sp(3, &[(1, 1e16 + 2.0)]), sp(3, &[(1, 1e16)]));
    assert_eq!(a.dist_l2_squared(&b), Ok(4.0));
}

#[test]
fn has_nan_and_has_non_finite() {
    assert!(sp(3, &[(1, f64::NAN)]).has_nan());
    assert!(!sp(3, &[(1, f64::INFINITY)]).has_nan());
    assert!(sp(3, &[(1, f64::INFINITY)]).has_non_finite());
    assert!(!de(&[1.0, 2.0]).has_non_finite());
}

#[test]
fn apply_at_inserts_only_non_zero_results_and_keeps_explicit_zeros() {
    let mut v = sp(3, &[(1, 4.0)]);
    // An implicit entry is passed as zero and not inserted when it stays zero.
    v.apply_at(0, |_, x| {
        assert_eq!(*x, 0.0);
    })
    .unwrap();
    assert_eq!(v.count(), 1);
    // An explicit entry zeroed stays explicit.
    v.apply_at(1, |_, x| *x = 0.0).unwrap();
    assert_eq!((v.count(), v.indices()), (1, &[1][..]));
    // Inserted when made non-zero; dense once that fills it.
    v.apply_at(0, |_, x| *x = 1.0).unwrap();
    v.apply_at(2, |_, x| *x = 2.0).unwrap();
    assert!(v.is_dense());
    assert_eq!(v.values(), &[1.0, 0.0, 2.0]);
    assert!(matches!(
        v.apply_at(3, |_, x| *x = 1.0),
        Err(SparseError::IndexOutOfRange { .. })
    ));
}

#[test]
fn capacity_errors_leave_the_vector_unchanged() {
    let mut small: InlineVBuffer<f64, 2> =
        VBuffer::try_new(4, 2, Inline::from_slices(&[1.0, 2.0], &[0, 1]).unwrap()).unwrap();
    let before = (dense_of_2(&small), small.count());
    assert!(matches!(
        small.apply_at(3, |_, x| *x = 1.0),
        Err(SparseError::Capacity { .. })
    ));
    let other = sp(4, &[(2, 1.0), (3, 1.0)]);
    assert!(matches!(
        small.add(&other),
        Err(SparseError::Capacity { .. })
    ));
    assert!(matches!(
        small.add_mult(&other, 2.0),
        Err(SparseError::Capacity { .. })
    ));
    assert!(matches!(small.densify(), Err(SparseError::Capacity { .. })));
    assert!(matches!(
        small.densify_first(3),
        Err(SparseError::Capacity { .. })
    ));
    assert_eq!((dense_of_2(&small), small.count()), before);
}

fn dense_of_2(v: &InlineVBuffer<f64, 2>) -> Vec<f64> {
    (0..v.len()).map(|i| v.get_or_default(i)).collect()
}

#[test]
fn apply_with_sees_only_explicit_source_entries() {
    // Union structure, entries explicit only here untouched, dense if src is dense.
    let mut d = sp(4, &[(0, 1.0), (3, 1.0)]);
    d.apply_with(&sp(4, &[(1, 5.0)]), |_, s, x| *x += s + 100.0)
        .unwrap();
    assert_eq!(d.indices(), &[0, 1, 3]);
    assert_eq!(d.values(), &[1.0, 105.0, 1.0]);
    d.apply_with(&de(&[0.0; 4]), |_, _, _| {}).unwrap();
    assert!(d.is_dense());
}

#[test]
fn apply_with_either_defined_visits_the_union_with_zero_for_the_missing_side() {
    let mut d = sp(4, &[(0, 1.0)]);
    let mut seen = Vec::new();
    d.apply_with_either_defined(&sp(4, &[(2, 3.0)]), |i, s, x| seen.push((i, s, *x)))
        .unwrap();
    assert_eq!(seen, [(0, 0.0, 1.0), (2, 3.0, 0.0)]);
    assert_eq!(d.indices(), &[0, 2]);
}

#[test]
fn map_into_and_apply_into_give_the_stated_structure() {
    let a = sp(4, &[(1, 2.0)]);
    let mut dst = V::default();
    a.map_into(&mut dst, |_, x| x * 0.0).unwrap();
    assert_eq!((dst.indices(), dst.values()), (&[1][..], &[0.0][..]));
    // apply_into: union, stored even if zero; dense if either input is dense.
    a.apply_into(&sp(4, &[(3, 1.0)]), &mut dst, |_, _, _| 0.0)
        .unwrap();
    assert_eq!(dst.indices(), &[1, 3]);
    assert_eq!(dst.values(), &[0.0, 0.0]);
    a.apply_into(&de(&[0.0; 4]), &mut dst, |_, x, y| x + y)
        .unwrap();
    assert!(dst.is_dense());
}

#[test]
fn copy_maybe_sparse_chooses_by_the_share_of_non_zeros() {
    let mut dst = V::default();
    // 1 of 8 non-zero (explicit zero dropped): sparse with exactly that entry.
    sp(8, &[(2, 0.0), (5, 1.0)])
        .copy_maybe_sparse(&mut dst)
        .unwrap();
    assert_eq!((dst.indices(), dst.values()), (&[5][..], &[1.0][..]));
    // 3 of 8 (over 25 %): dense.
    sp(8, &[(0, 1.0), (1, 1.0), (2, 1.0)])
        .copy_maybe_sparse(&mut dst)
        .unwrap();
    assert!(dst.is_dense());
}

#[test]
fn copy_range_to_keeps_density_and_densifies_a_fully_explicit_range() {
    let mut dst = V::default();
    de(&[1.0, 2.0, 3.0]).copy_range_to(1, 2, &mut dst).unwrap();
    assert!(dst.is_dense());
    assert_eq!(dst.values(), &[2.0, 3.0]);
    let s = sp(6, &[(1, 1.0), (2, 2.0), (5, 5.0)]);
    s.copy_range_to(1, 2, &mut dst).unwrap();
    assert!(dst.is_dense()); // every entry of 1..3 explicit
    s.copy_range_to(2, 3, &mut dst).unwrap();
    assert_eq!((dst.len(), dst.indices()), (3, &[0][..]));
    assert!(matches!(
        s.copy_range_to(5, 2, &mut dst),
        Err(SparseError::RangeOutOfBounds { .. })
    ));
}

#[test]
fn densify_first_clamps_k_and_clear_keeps_the_length() {
    let mut v = sp(4, &[(3, 1.0)]);
    v.densify_first(99).unwrap(); // clamped to len: every entry, so dense
    assert!(v.is_dense());
    v.clear();
    assert!(v.is_dense() && v.len() == 4 && v.values() == [0.0; 4]);
    let mut s = sp(4, &[(1, 1.0)]);
    s.clear();
    assert_eq!((s.len(), s.count()), (4, 0));
}

#[test]
fn resize_keeps_entries_below_the_new_length() {
    let mut s = sp(6, &[(1, 1.0), (4, 4.0)]);
    s.resize(3).unwrap();
    assert_eq!((s.len(), s.indices()), (3, &[1][..]));
    s.resize(10).unwrap();
    assert_eq!((s.len(), s.count()), (10, 1));
    let mut d = de(&[1.0, 2.0]);
    d.resize(4).unwrap();
    assert!(d.is_dense());
    assert_eq!(d.values(), &[1.0, 2.0, 0.0, 0.0]);
    // Lengths are u32 inside; only a 64-bit usize can ask for more.
    #[cfg(target_pointer_width = "64")]
    assert!(matches!(
        d.resize(u32::MAX as usize + 1),
        Err(SparseError::LengthTooLarge { .. })
    ));
}

#[test]
fn for_each_both_and_either_defined_visit_what_they_say() {
    let both = |a: &V, b: &V| {
        let mut seen = Vec::new();
        a.for_each_both_defined(b, |i, _, _| seen.push(i)).unwrap();
        seen
    };
    let (d, s, t) = (
        de(&[1.0; 4]),
        sp(4, &[(1, 1.0), (3, 1.0)]),
        sp(4, &[(3, 1.0)]),
    );
    assert_eq!(both(&d, &d), [0, 1, 2, 3]);
    assert_eq!(both(&d, &s), [1, 3]);
    assert_eq!(both(&s, &t), [3]);
    let mut seen = Vec::new();
    s.for_each_either_defined(&d, |i, _, _| seen.push(i))
        .unwrap();
    assert_eq!(seen, [0, 1, 2, 3]);
}

#[test]
fn the_builder_drops_zeros_checks_indices_and_picks_density() {
    let mut scratch = [(0u32, 0.0f64); 8];
    let mut b = BufferBuilder::new(4, &mut scratch).unwrap();
    b.add(1, 2.0).unwrap();
    b.add(1, -2.0).unwrap(); // sums to zero: dropped
    b.add(2, 0.0).unwrap(); // zero: dropped
    assert!(matches!(
        b.add(4, 1.0),
        Err(SparseError::IndexOutOfRange { .. })
    ));
    b.add(3, 1.0).unwrap();
    let mut dst = V::default();
    b.build_into(&mut dst).unwrap();
    assert_eq!((dst.indices(), dst.values()), (&[3][..], &[1.0][..]));
    // At least half non-zero: dense.
    b.add(0, 1.0).unwrap();
    b.add(1, 1.0).unwrap();
    b.build_into(&mut dst).unwrap();
    assert!(dst.is_dense());
    // Flags: a duplicate is an error.
    let mut flags = [(0u32, false); 4];
    let mut b = BufferBuilder::new(4, &mut flags).unwrap();
    b.add(1, true).unwrap();
    b.add(1, true).unwrap();
    let mut out: InlineVBuffer<bool, 4> = VBuffer::default();
    assert!(matches!(
        b.build_into(&mut out),
        Err(SparseError::Duplicate { .. })
    ));
}

#[test]
fn errors_that_hand_buffers_back_convert_to_their_reason() {
    // A borrowed storage makes InvalidVBuffer non-'static: `?` into a function returning
    // SparseError drops the storage and keeps the reason.
    fn build(values: &mut [f64], indices: &mut [u32]) -> Result<usize, SparseError> {
        let v = VBuffer::try_new(2, 1, SlicesMut::new(values, indices))?;
        Ok(v.count())
    }
    let (mut values, mut indices) = ([1.0], [5u32]);
    assert!(matches!(
        build(&mut values, &mut indices),
        Err(SparseError::IndexOutOfRange { .. })
    ));
    // Owned storage: `?` straight into Box<dyn Error>.
    fn boxed() -> Result<(), std::boxed::Box<dyn std::error::Error>> {
        VBuffer::try_new(2, 1, Inline::<f64, 2>::from_slices(&[1.0], &[5]).unwrap())?;
        Ok(())
    }
    let e = boxed().unwrap_err();
    assert!(e.to_string().contains("invalid sparse vector"));
    // The reason is the source, and a wrapped capacity error is the reason's.
    let reason = e.source().expect("the reason is the source");
    assert!(reason.to_string().starts_with("index 5"), "{reason}");
    let full = SparseError::Capacity(crate::CapacityError {
        needed: 3,
        available: 2,
    });
    let inner = std::error::Error::source(&full).expect("the capacity error");
    assert_eq!(inner.to_string(), "buffer too small: 3 needed, 2 available");
}
