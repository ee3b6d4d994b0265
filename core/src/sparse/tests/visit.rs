//! Visiting and applying: which indices each operation touches (intersection, union, the
//! source's entries), with which values, and the structure it leaves, for every mix of
//! representations; plus the differential check on densified inputs.

use super::*;

/// The indices visited by a both / either / source-only walk, from the masks.
fn walk(a: &[bool], b: &[bool], rule: fn(bool, bool) -> bool) -> Vec<usize> {
    (0..a.len()).filter(|&i| rule(a[i], b[i])).collect()
}

pub(super) fn check_for_each<T: TestElem>(p: &Pair<T>) -> Result<(), TestCaseError> {
    for m in p.mixes() {
        let (a, b) = (m.a.view(), m.b.view());
        let (da, db) = (m.a.to_dense(), m.b.to_dense());
        let (ea, eb) = (m.a.explicit(), m.b.explicit());
        let mut seen = Vec::new();
        a.for_each_both_defined(&b, |i, x, y| seen.push((i, x, y)))
            .unwrap();
        let want: Vec<_> = walk(&ea, &eb, |x, y| x && y)
            .into_iter()
            .map(|i| (i, da[i], db[i]))
            .collect();
        prop_assert_eq!(&seen, &want);
        let mut seen = Vec::new();
        a.for_each_either_defined(&b, |i, x, y| seen.push((i, x, y)))
            .unwrap();
        let want: Vec<_> = walk(&ea, &eb, |x, y| x || y)
            .into_iter()
            .map(|i| (i, da[i], db[i]))
            .collect();
        prop_assert_eq!(&seen, &want);
    }
    let short = Parts::<T>::dense(vec![T::default(); p.len() + 1]);
    let e = SparseError::LengthMismatch {
        left: p.len(),
        right: p.len() + 1,
    };
    prop_assert_eq!(
        p.a.view()
            .for_each_both_defined(&short.view(), |_, _, _| ()),
        Err(e)
    );
    prop_assert_eq!(
        p.a.view()
            .for_each_either_defined(&short.view(), |_, _, _| ()),
        Err(e)
    );
    Ok(())
}

prop_types!(for_each: check_for_each(pairs) for f32, i32, bool);

type AtInput<T> = (Parts<T>, u16, T);

fn at_input<T: TestElem>() -> impl Strategy<Value = AtInput<T>> {
    (vectors::<T>(), any::<u16>(), T::arb())
}

pub(super) fn check_apply_at<T: TestElem>(input: &AtInput<T>) -> Result<(), TestCaseError> {
    let (p, s, w) = input;
    let len = p.len;
    for q in [p.clone(), p.densified()] {
        let src = q.view();
        if len == 0 {
            let (r, _) = each_dst!(
                T,
                |dst| src.copy_to(&mut dst).unwrap(),
                dst.apply_at(0, |_, _| ())
            );
            prop_assert_eq!(
                r,
                Err(SparseError::IndexOutOfRange {
                    position: 0,
                    index: 0,
                    len: 0
                })
            );
            continue;
        }
        let slot = *s as usize % len;
        let mut want = q.to_dense();
        let before = want[slot];
        want[slot] = *w;
        let (r, out) = each_dst!(
            T,
            |dst| src.copy_to(&mut dst).unwrap(),
            dst.apply_at(slot, |i, v| {
                assert_eq!((i, *v), (slot, before));
                *v = *w;
            })
        );
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.to_dense(), want);
        // Inserted only if non-zero; explicit entries stay explicit.
        let was = q.explicit()[slot];
        let inserted = !was && !w.is_default();
        prop_assert_eq!(out.count, q.values.len() + inserted as usize);
        let (r, _) = each_dst!(
            T,
            |dst| src.copy_to(&mut dst).unwrap(),
            dst.apply_at(len, |_, _| ())
        );
        prop_assert_eq!(
            r,
            Err(SparseError::IndexOutOfRange {
                position: 0,
                index: len,
                len
            })
        );
    }
    Ok(())
}

prop_types!(apply_at: check_apply_at(at_input) for f32, i32, bool);

/// An update with `f(i, 0, d) != d`, to see exactly where it is called.
fn mark<T: TestNum>(i: usize, s: T, d: T) -> T {
    d.add(d)
        .add(s.mul(T::from_seed(3 + 256 * i as u64)))
        .add(T::from_seed(1 + 256 * 5))
}

/// Union structure of two masks, dense if either side is dense.
fn union_count<T: SparseValue>(m: &Pair<T>) -> usize {
    if m.a.is_dense() || m.b.is_dense() {
        return m.len();
    }
    walk(&m.a.explicit(), &m.b.explicit(), |x, y| x || y).len()
}

pub(super) fn check_apply_with<T: TestNum>(p: &Pair<T>) -> Result<(), TestCaseError> {
    let len = p.len();
    for m in p.mixes() {
        let (a, b) = (m.a.view(), m.b.view());
        let (da, db) = (m.a.to_dense(), m.b.to_dense());
        let (ea, eb) = (m.a.explicit(), m.b.explicit());
        let structure = union_count(&m);
        // apply_with: called where `b` (the source) is explicit, in order.
        let mut want = da.clone();
        let calls = walk(&ea, &eb, |_, y| y);
        for &i in &calls {
            want[i] = mark(i, db[i], da[i]);
        }
        let (r, out) = each_dst!(T, |dst| a.copy_to(&mut dst).unwrap(), {
            let mut seen = Vec::new();
            let r = dst.apply_with(&b, |i, s, d| {
                seen.push(i);
                *d = mark(i, s, *d);
            });
            prop_assert_eq!(&seen, &calls);
            r
        });
        prop_assert_eq!(r, Ok(()));
        assert_all_close(&out.to_dense(), &want, "apply_with")?;
        prop_assert_eq!(out.count, structure);
        // apply_with_either_defined: called on the union.
        let mut want = da.clone();
        let calls = walk(&ea, &eb, |x, y| x || y);
        let calls = if structure == len {
            (0..len).collect()
        } else {
            calls
        };
        for &i in &calls {
            want[i] = mark(i, db[i], da[i]);
        }
        let (r, out) = each_dst!(T, |dst| a.copy_to(&mut dst).unwrap(), {
            let mut seen = Vec::new();
            let r = dst.apply_with_either_defined(&b, |i, s, d| {
                seen.push(i);
                *d = mark(i, s, *d);
            });
            prop_assert_eq!(&seen, &calls);
            r
        });
        prop_assert_eq!(r, Ok(()));
        assert_all_close(&out.to_dense(), &want, "apply_with_either_defined")?;
        prop_assert_eq!(out.count, structure);
        // An update with f(i, 0, d) == d gives the same vector on densified inputs.
        let c = T::from_seed(2 + 256 * 3);
        let f = |_: usize, s: T, d: &mut T| *d = d.add(s.mul(c));
        let (r1, o1) = each_dst!(T, |dst| a.copy_to(&mut dst).unwrap(), dst.apply_with(&b, f));
        let dp = m.densified();
        let (r2, o2) = each_dst!(
            T,
            |dst| dp.a.view().copy_to(&mut dst).unwrap(),
            dst.apply_with(&dp.b.view(), f)
        );
        prop_assert_eq!((r1, r2), (Ok(()), Ok(())));
        assert_all_close(&o1.to_dense(), &o2.values, "apply_with, densified")?;
    }
    Ok(())
}

prop_types!(apply_with: check_apply_with(pairs) for f32, i32, u32);

pub(super) fn check_apply_into<T: TestNum>(p: &Pair<T>) -> Result<(), TestCaseError> {
    let len = p.len();
    let mut results = Vec::new();
    for m in p.mixes() {
        let (a, b) = (m.a.view(), m.b.view());
        let (da, db) = (m.a.to_dense(), m.b.to_dense());
        let (ea, eb) = (m.a.explicit(), m.b.explicit());
        let structure = union_count(&m);
        // apply_into: the union, dense if either is dense.
        let calls: Vec<usize> = if structure == len {
            (0..len).collect()
        } else {
            walk(&ea, &eb, |x, y| x || y)
        };
        let mut want = vec![T::default(); len];
        for &i in &calls {
            want[i] = mark(i, db[i], da[i]);
        }
        let (r, out) = each_dst!(T, |dst| (), {
            let mut seen = Vec::new();
            let r = a.apply_into(&b, &mut dst, |i, x, y| {
                seen.push(i);
                mark(i, y, x)
            });
            prop_assert_eq!(&seen, &calls);
            r
        });
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.count, structure);
        assert_all_close(&out.to_dense(), &want, "apply_into")?;
        // map_into: `a`'s structure, into another element type.
        let (r, out) = each_dst!(
            i32,
            |dst| (),
            a.map_into(&mut dst, |i, x| i as i32 + 1 + (x.is_default() as i32))
        );
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(&out.indices, &m.a.indices);
        let want: Vec<i32> = a
            .iter()
            .map(|(i, x)| i as i32 + 1 + (x.is_default() as i32))
            .collect();
        prop_assert_eq!(&out.values, &want);
        // Differential: f(i, 0, 0) == 0 gives the same vector for every mix.
        let c = T::from_seed(2 + 256 * 3);
        let (r, out) = each_dst!(
            T,
            |dst| (),
            a.apply_into(&b, &mut dst, |_, x, y| x.add(y.mul(c)))
        );
        prop_assert_eq!(r, Ok(()));
        results.push(out.to_dense());
    }
    for r in &results[1..] {
        assert_all_close(r, &results[0], "apply_into, densified")?;
    }
    let short = Parts::<T>::dense(vec![T::default(); len + 1]);
    let mut dst: VBuffer<Grow<T>> = VBuffer::default();
    prop_assert_eq!(
        p.a.view().apply_into(&short.view(), &mut dst, |_, x, _| x),
        Err(SparseError::LengthMismatch {
            left: len,
            right: len + 1
        })
    );
    Ok(())
}

prop_types!(apply_into: check_apply_into(pairs) for f32, i32, u32);

#[test]
fn apply_into_falls_back_to_the_exact_size_in_fixed_storage() {
    // Union of 3 entries; the upper bound (4) does not fit a 3-slot storage, the union does.
    let a = VBufferView::try_sparse(100, Slices::new(&[1i32, 2], &[5, 50])).unwrap();
    let b = VBufferView::try_sparse(100, Slices::new(&[10i32, 20], &[50, 99])).unwrap();
    let mut dst: InlineVBuffer<i32, 3> = VBuffer::default();
    a.add_into(&b, &mut dst).unwrap();
    assert_eq!(
        (Out::of(&dst).indices, Out::of(&dst).values),
        (vec![5, 50, 99], vec![1, 12, 20])
    );
    let mut tiny: InlineVBuffer<i32, 2> = VBuffer::default();
    assert_eq!(a.add_into(&b, &mut tiny), Err(capacity(3, 2)));
    // A union covering everything is dense.
    let c = VBufferView::try_sparse(3, Slices::new(&[1i32, 2], &[0, 2])).unwrap();
    let d = VBufferView::try_sparse(3, Slices::new(&[5i32], &[1])).unwrap();
    let mut full: InlineVBuffer<i32, 3> = VBuffer::default();
    c.add_into(&d, &mut full).unwrap();
    assert!(full.is_dense());
    assert_eq!(full.values(), &[1, 5, 2]);
}

#[test]
fn flags_apply() {
    let a = VBufferView::try_sparse(6, Slices::new(&[true, true], &[1, 4])).unwrap();
    let b = VBufferView::try_sparse(6, Slices::new(&[true], &[2])).unwrap();
    let mut or: InlineVBuffer<bool, 6> = VBuffer::default();
    a.apply_into(&b, &mut or, |_, x, y| x | y).unwrap();
    assert_eq!(
        or.iter_all().collect::<Vec<_>>(),
        [false, true, true, false, true, false]
    );
    or.apply_at(0, |_, v| *v = false).unwrap();
    assert_eq!(or.count(), 3);
}
