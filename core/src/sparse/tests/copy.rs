//! Copies and reshaping, each from sparse and from dense inputs into every destination
//! storage, against the naive result on plain arrays.

use super::*;

type WithParams<T> = (Parts<T>, u16, u16);

fn with_params<T: TestElem>() -> impl Strategy<Value = WithParams<T>> {
    (vectors::<T>(), any::<u16>(), any::<u16>())
}

/// The input as given and densified.
fn both_forms<T: SparseValue>(p: &Parts<T>) -> [Parts<T>; 2] {
    [p.clone(), p.densified()]
}

pub(super) fn check_copies<T: TestElem>(input: &WithParams<T>) -> Result<(), TestCaseError> {
    let (p, x, y) = input;
    let want = p.to_dense();
    let len = p.len;
    for q in both_forms(p) {
        let src = q.view();
        // Keeping density: the very same parts.
        let (r, out) = each_dst!(T, |dst| (), src.copy_to(&mut dst));
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(&out, &Out::of(&src));
        // To dense.
        let (r, out) = each_dst!(T, |dst| (), src.copy_to_dense(&mut dst));
        prop_assert_eq!(r, Ok(()));
        prop_assert!(out.is_dense());
        prop_assert_eq!(&out.values, &want);
        // To a slice, longer than needed: the rest is untouched.
        let mut slice = vec![T::junk(); len + 2];
        src.copy_to_slice(&mut slice).unwrap();
        prop_assert_eq!(&slice[..len], &want[..]);
        prop_assert_eq!(&slice[len..], &[T::junk(); 2][..]);
        if len > 0 {
            prop_assert_eq!(
                src.copy_to_slice(&mut slice[..len - 1]),
                Err(SparseError::Capacity(CapacityError {
                    needed: len,
                    available: len - 1
                }))
            );
        }
        // A range.
        let start = *x as usize % (len + 1);
        let length = *y as usize % (len - start + 1);
        let (r, out) = each_dst!(T, |dst| (), src.copy_range_to(start, length, &mut dst));
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.to_dense(), want[start..start + length].to_vec());
        let explicit = q.explicit();
        let in_range = explicit[start..start + length]
            .iter()
            .filter(|&&e| e)
            .count();
        prop_assert_eq!(out.count, in_range);
        prop_assert_eq!(
            src.copy_range_to(
                start,
                len - start + 1,
                &mut VBuffer::with_storage(Grow::default())
            ),
            Err(SparseError::RangeOutOfBounds {
                start,
                length: len - start + 1,
                len
            })
        );
        prop_assert_eq!(
            src.copy_range_to(usize::MAX, 2, &mut VBuffer::with_storage(Grow::default())),
            Err(SparseError::RangeOutOfBounds {
                start: usize::MAX,
                length: 2,
                len
            })
        );
        // Maybe sparse: dense above 25 % non-zero, else exactly the non-zeros.
        let non_zero = want.iter().filter(|v| !v.is_default()).count();
        let (r, out) = each_dst!(T, |dst| (), src.copy_maybe_sparse(&mut dst));
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.to_dense(), want.clone());
        if non_zero * 4 > len {
            prop_assert!(out.is_dense());
        } else {
            prop_assert_eq!(out.count, non_zero);
            prop_assert!(out.values.iter().all(|v| !v.is_default()));
        }
    }
    Ok(())
}

prop_types!(copies: check_copies(with_params) for f32, i32, bool);

pub(super) fn check_reshape<T: TestElem>(input: &WithParams<T>) -> Result<(), TestCaseError> {
    let (p, x, y) = input;
    let want = p.to_dense();
    let len = p.len;
    for q in both_forms(p) {
        let src = q.view();
        let explicit = q.explicit();
        // Densify.
        let (r, out) = each_dst!(T, |dst| src.copy_to(&mut dst).unwrap(), dst.densify());
        prop_assert_eq!(r, Ok(()));
        prop_assert!(out.is_dense());
        prop_assert_eq!(&out.values, &want);
        // Densify the first k.
        let k = *x as usize % (len + 3);
        let (r, out) = each_dst!(
            T,
            |dst| src.copy_to(&mut dst).unwrap(),
            dst.densify_first(k)
        );
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.to_dense(), want.clone());
        let now = out.parts().explicit();
        for i in 0..len {
            if i < k {
                prop_assert!(now[i], "entry {} below k = {} is implicit", i, k);
            } else if !out.is_dense() {
                prop_assert_eq!(now[i], explicit[i]);
            }
        }
        // Clear.
        let (r, out) = each_dst!(T, |dst| src.copy_to(&mut dst).unwrap(), {
            dst.clear();
            Ok(())
        });
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.len, len);
        prop_assert_eq!(out.is_dense(), q.is_dense());
        prop_assert!(out.to_dense().iter().all(|v| v.is_default()));
        // Resize.
        let new_len = *y as usize % (MAX + 8);
        let (r, out) = each_dst!(T, |dst| src.copy_to(&mut dst).unwrap(), dst.resize(new_len));
        prop_assert_eq!(r, Ok(()));
        let mut resized = want.clone();
        resized.resize(new_len, T::default());
        prop_assert_eq!(out.to_dense(), resized);
        if q.is_dense() {
            prop_assert!(out.is_dense());
        } else {
            let kept = explicit.iter().take(new_len).filter(|&&e| e).count();
            prop_assert_eq!(out.count, kept);
        }
    }
    Ok(())
}

prop_types!(reshape: check_reshape(with_params) for f32, i32, bool);

#[test]
fn reshaping_fixed_storage_fails_cleanly() {
    let src = VBufferView::try_sparse(10, Slices::new(&[1i32, 2], &[3, 7])).unwrap();
    let mut v: InlineVBuffer<i32, 4> = VBuffer::default();
    src.copy_to(&mut v).unwrap();
    assert_eq!(v.densify(), Err(capacity(10, 4)));
    assert_eq!(v.densify_first(5), Err(capacity(6, 4)));
    assert!(v == src);
    v.densify_first(2).unwrap(); // 0, 1, 3, 7
    assert_eq!(Out::of(&v).indices, [0, 1, 3, 7]);
    assert!(v == src);
    let mut d: InlineVBuffer<i32, 4> = VBuffer::default();
    VBufferView::try_dense(Slices::dense(&[1, 2, 3]))
        .unwrap()
        .copy_to(&mut d)
        .unwrap();
    assert_eq!(d.resize(5), Err(capacity(5, 4)));
    assert_eq!(d.resize(4), Ok(()));
    assert_eq!(Out::of(&d).values, [1, 2, 3, 0]);
}
