//! The math, differential: every mix of sparse and dense inputs against the densified inputs
//! and a naive left-to-right loop over plain arrays, exact for integers and within the stated
//! tolerance for floats.

use super::*;

/// Σ g(a_i, b_i), left to right, with Σ|g| for the tolerance.
fn naive2<T: TestNum>(a: &[T], b: &[T], g: impl Fn(T, T) -> T) -> (T, T) {
    a.iter()
        .zip(b)
        .fold((T::ZERO, T::ZERO), |(s, m), (&x, &y)| {
            let t = g(x, y);
            (s.add(t), m.add(t.abs()))
        })
}

pub(super) fn check_binary<T: TestNum>(p: &Pair<T>) -> Result<(), TestCaseError> {
    let len = p.len();
    let (da, db) = (p.a.to_dense(), p.b.to_dense());
    let (dot, dot_scale) = naive2(&da, &db, |x, y| x.mul(y));
    let (l1, l1_scale) = naive2(&da, &db, |x, y| x.sub(y).abs());
    let (l2, l2_scale) = naive2(&da, &db, |x, y| x.sub(y).mul(x.sub(y)));
    let c = T::from_seed(3 + 256 * 4);
    let plus: Vec<T> = da.iter().zip(&db).map(|(&x, &y)| x.add(y)).collect();
    let axpy: Vec<T> = da.iter().zip(&db).map(|(&x, &y)| x.add(c.mul(y))).collect();
    let times: Vec<T> = da.iter().zip(&db).map(|(&x, &y)| x.mul(y)).collect();
    for m in p.mixes() {
        let (a, b) = (m.a.view(), m.b.view());
        let got = a.dot(&b).unwrap();
        prop_assert!(
            T::close(got, dot, dot_scale),
            "dot {:?}: {:?} vs {:?}",
            m.kind,
            got,
            dot
        );
        prop_assert!(T::close(b.dot(&a).unwrap(), dot, dot_scale));
        let got = a.dist_l1(&b).unwrap();
        prop_assert!(
            T::close(got, l1, l1_scale),
            "dist_l1: {:?} vs {:?}",
            got,
            l1
        );
        let got = a.dist_l2_squared(&b).unwrap();
        prop_assert!(
            T::close(got, l2, l2_scale),
            "dist_l2²: {:?} vs {:?}",
            got,
            l2
        );
        let structure = if m.a.is_dense() || m.b.is_dense() {
            len
        } else {
            (0..len)
                .filter(|&i| m.a.explicit()[i] || m.b.explicit()[i])
                .count()
        };
        // a + b into a destination.
        let (r, out) = each_dst!(T, |dst| (), a.add_into(&b, &mut dst));
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.count, structure);
        assert_all_close(&out.to_dense(), &plus, "add_into")?;
        // a += b, a += c·b in place.
        let (r, out) = each_dst!(T, |dst| a.copy_to(&mut dst).unwrap(), dst.add(&b));
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.count, structure);
        assert_all_close(&out.to_dense(), &plus, "add")?;
        let (r, out) = each_dst!(T, |dst| a.copy_to(&mut dst).unwrap(), dst.add_mult(&b, c));
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(out.count, structure);
        assert_all_close(&out.to_dense(), &axpy, "add_mult")?;
        // a *= b keeps a's structure.
        let (r, out) = each_dst!(
            T,
            |dst| a.copy_to(&mut dst).unwrap(),
            dst.mul_elementwise(&b)
        );
        prop_assert_eq!(r, Ok(()));
        prop_assert_eq!(&out.indices, &m.a.indices);
        prop_assert_eq!(out.count, m.a.values.len());
        assert_all_close(&out.to_dense(), &times, "mul_elementwise")?;
    }
    // Lengths must match.
    let short = Parts::<T>::dense(vec![T::ZERO; len + 1]);
    let (a, s) = (p.a.view(), short.view());
    let e = Err(SparseError::LengthMismatch {
        left: len,
        right: len + 1,
    });
    prop_assert_eq!(a.dot(&s), e);
    prop_assert_eq!(a.dist_l1(&s), e);
    prop_assert_eq!(a.dist_l2_squared(&s), e);
    let e = Err(SparseError::LengthMismatch {
        left: len + 1,
        right: len,
    });
    let mut dst: VBuffer<Grow<T>> = VBuffer::default();
    p.a.view().copy_to(&mut dst).unwrap();
    prop_assert_eq!(dst.add(&s), e);
    prop_assert_eq!(dst.add_mult(&s, c), e);
    prop_assert_eq!(dst.mul_elementwise(&s), e);
    Ok(())
}

prop_types!(binary: check_binary(pairs) for f32, f64, i32, u32);

type Scaled<T> = (Parts<T>, T);

fn scaled<T: TestElem>() -> impl Strategy<Value = Scaled<T>> {
    (vectors::<T>(), T::arb())
}

pub(super) fn check_unary<T: TestNum>(input: &Scaled<T>) -> Result<(), TestCaseError> {
    let (p, c) = input;
    let d = p.to_dense();
    let (sum, sum_scale) = naive2(&d, &d, |x, _| x);
    let (l1, _) = naive2(&d, &d, |x, _| x.abs());
    let (l2, l2_scale) = naive2(&d, &d, |x, _| x.mul(x));
    for q in [p.clone(), p.densified()] {
        let v = q.view();
        prop_assert!(
            T::close(v.sum(), sum, sum_scale),
            "sum {:?} vs {:?}",
            v.sum(),
            sum
        );
        prop_assert!(T::close(v.norm_l1(), l1, l1));
        prop_assert!(T::close(v.norm_l2_squared(), l2, l2_scale));
        let (r, out) = each_dst!(T, |dst| v.copy_to(&mut dst).unwrap(), {
            dst.scale_by(*c);
            Ok(())
        });
        prop_assert_eq!(r, Ok(()));
        let want: Vec<T> = d
            .iter()
            .map(|&x| if c.is_default() { T::ZERO } else { x.mul(*c) })
            .collect();
        assert_all_close(&out.to_dense(), &want, "scale_by")?;
        prop_assert_eq!(out.count, q.values.len()); // structure kept, even for c == 0
    }
    Ok(())
}

prop_types!(unary: check_unary(scaled) for f32, f64, i32, u32);

/// The naive arg max / min: every entry in order, NaN skipped, strict comparison, entry 0 if
/// all are NaN.
fn naive_arg<T: SparseValue>(d: &[T], better: fn(T, T) -> bool) -> Option<(usize, T)> {
    let mut best: Option<(usize, T)> = None;
    for (i, &v) in d.iter().enumerate() {
        if v.is_nan() {
            continue;
        }
        if best.is_none_or(|(_, b)| better(v, b)) {
            best = Some((i, v));
        }
    }
    if d.is_empty() {
        None
    } else {
        best.or(Some((0, d[0])))
    }
}

pub(super) fn check_arg<T: TestElem>(p: &Parts<T>) -> Result<(), TestCaseError> {
    let d = p.to_dense();
    let max = naive_arg(&d, |a, b| a > b);
    let min = naive_arg(&d, |a, b| a < b);
    for q in [p.clone(), p.densified()] {
        let v = q.view();
        prop_assert_eq!(v.arg_max(), max);
        prop_assert_eq!(v.arg_min(), min);
    }
    Ok(())
}

prop_types!(arg: check_arg(vectors) for f32, i32, u32, bool);

// The other integer widths go through the same macro-generated code as `i32` and `u32`;
// checked here outside Miri, which has nothing to find in safe integer arithmetic.
#[cfg(not(miri))]
prop_types!(binary_ints: check_binary(pairs) for i8, i16, i64, u8, u16, u64);
#[cfg(not(miri))]
prop_types!(unary_ints: check_unary(scaled) for i8, i16, i64, u8, u16, u64);
#[cfg(not(miri))]
prop_types!(arg_ints: check_arg(vectors) for i8, i16, i64, u8, u16, u64);

type Poisoned = (Parts<f32>, u16, u8);

fn poisoned() -> impl Strategy<Value = Poisoned> {
    (vectors::<f32>(), any::<u16>(), 0u8..4)
}

pub(super) fn check_float(input: &Poisoned) -> Result<(), TestCaseError> {
    let (p, at, what) = input;
    let mut p = p.clone();
    if !p.values.is_empty() {
        let k = *at as usize % p.values.len();
        p.values[k] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.5][*what as usize];
    }
    let d = p.to_dense();
    let (l2, scale) = naive2(&d, &d, |x, _| x * x);
    let max_abs = d.iter().fold(0.0f32, |m, x| libm::fmaxf(m, x.abs()));
    for q in [p.clone(), p.densified()] {
        let v = q.view();
        prop_assert_eq!(v.has_nan(), d.iter().any(|x| x.is_nan()));
        prop_assert_eq!(v.has_non_finite(), d.iter().any(|x| !x.is_finite()));
        prop_assert!(f32::close(v.norm_l2(), libm::sqrtf(l2), libm::sqrtf(scale)));
        prop_assert_eq!(v.max_abs().to_bits(), max_abs.to_bits());
        let doubled: Vec<f32> = d.iter().map(|x| 2.0 * x).collect();
        let w = Parts::dense(doubled);
        let dist = v.dist_l2(&w.view()).unwrap();
        let (want, s) = naive2(&d, &w.values, |x, y| (x - y) * (x - y));
        prop_assert!(
            f32::close(dist, libm::sqrtf(want), libm::sqrtf(s)),
            "{} vs {}",
            dist,
            want
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn float_checks_and_norms(input in poisoned()) {
        check_float(&input)?;
    }
}

#[test]
fn l2_distance_is_exact_for_close_vectors() {
    // |a|² + |b|² − 2a·b loses everything here; the direct form does not.
    let a = [1.0e4f32, 1.0e4 + 1.0, 0.0];
    let bv = [1.0e4f32 + 1.0, 3.0];
    let x = VBufferView::try_dense(Slices::dense(&a)).unwrap();
    let y = VBufferView::try_sparse(3, Slices::new(&bv, &[1, 2])).unwrap();
    // (1e4 − 0)² + 0² + 3² = 1e8 + 9
    assert_eq!(y.dist_l2_squared(&x).unwrap(), 1.0e8 + 9.0);
    let z = VBufferView::try_sparse(3, Slices::new(&[1.0e4f32, 1.0e4 + 2.0], &[0, 1])).unwrap();
    assert_eq!(z.dist_l2_squared(&x).unwrap(), 1.0);
    assert_eq!(z.dist_l2(&x).unwrap(), 1.0);
}

#[test]
fn arg_max_counts_implicit_zeros() {
    let v = VBufferView::try_sparse(6, Slices::new(&[-1.0f32, -2.0, -3.0], &[0, 1, 3])).unwrap();
    assert_eq!(v.arg_max(), Some((2, 0.0)));
    assert_eq!(v.arg_min(), Some((3, -3.0)));
    let w = VBufferView::try_sparse(4, Slices::new(&[f32::NAN, 0.0], &[0, 2])).unwrap();
    assert_eq!(w.arg_max(), Some((1, 0.0)));
    let nan = VBufferView::try_dense(Slices::dense(&[f32::NAN, f32::NAN])).unwrap();
    assert!(nan.arg_max().is_some_and(|(i, x)| i == 0 && x.is_nan()));
    assert_eq!(
        VBufferView::<i32>::zeros(0, Slices::default())
            .unwrap()
            .arg_min(),
        None
    );
}

#[test]
fn integer_math_wraps() {
    let a = VBufferView::try_sparse(4, Slices::new(&[i32::MAX, i32::MIN], &[0, 3])).unwrap();
    let b = VBufferView::try_dense(Slices::dense(&[2, 5, 5, -1])).unwrap();
    assert_eq!(
        a.dot(&b),
        Ok(i32::MAX
            .wrapping_mul(2)
            .wrapping_add(i32::MIN.wrapping_mul(-1)))
    );
    assert_eq!(a.sum(), -1);
    assert_eq!(a.norm_l1(), i32::MAX.wrapping_add(i32::MIN)); // |MIN| wraps to MIN
}

#[test]
fn scale_by_zero_clears_non_finite_values_and_keeps_structure() {
    let mut values = [f32::NAN, f32::INFINITY, 2.0];
    let mut indices = [1u32, 4, 6];
    let mut v = VBuffer::try_sparse(8, SlicesMut::new(&mut values, &mut indices)).unwrap();
    v.scale_by(0.0);
    assert_eq!((v.count(), v.values()), (3, &[0.0f32, 0.0, 0.0][..]));
    assert_eq!(v.indices(), &[1, 4, 6]);
}

#[test]
fn galloping_merge_crosses_large_gaps() {
    // a: 0..40 and 990..1000; b: 35..45 and 500..990 in steps of 7: long runs on each side.
    let ia: Vec<u32> = (0..40).chain(990..1000).collect();
    let ib: Vec<u32> = (35..45).chain((500..990).step_by(7)).collect();
    let va: Vec<i32> = ia.iter().map(|&i| i as i32 % 13 - 6).collect();
    let vb: Vec<i32> = ib.iter().map(|&i| i as i32 % 11 - 5).collect();
    let a = VBufferView::try_sparse(1000, Slices::new(&va, &ia)).unwrap();
    let b = VBufferView::try_sparse(1000, Slices::new(&vb, &ib)).unwrap();
    let (da, db) = (
        Parts::dense(a.iter_all().collect()),
        Parts::dense(b.iter_all().collect()),
    );
    let want: i32 = da.values.iter().zip(&db.values).map(|(x, y)| x * y).sum();
    assert_eq!(a.dot(&b), Ok(want));
    assert_eq!(b.dot(&a), Ok(want));
    assert_eq!(kernels::gallop(&ia, 0, 995), 45);
    assert_eq!(kernels::gallop(&ia, 3, 0), 3);
    assert_eq!(kernels::gallop(&ia, 0, 5000), ia.len());
}

#[test]
fn windowed_merge_matches_the_naive_dot() {
    // Lengths and fills that take both window sizes (8 when each side is under 1/32 full),
    // with uniform and clustered index sets, so windows, galloping and the tail all run.
    let (len, rounds) = if cfg!(miri) { (600, 3) } else { (5000, 60) };
    let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
    for round in 0..rounds {
        let fill = [3u64, 20, 60, 200][round % 4];
        let pick = |rng: &mut Xorshift, lo: usize, hi: usize| -> (Vec<u32>, Vec<i32>) {
            let (mut ix, mut vs) = (Vec::new(), Vec::new());
            for i in lo..hi {
                if rng.next() % 1000 < fill {
                    ix.push(i as u32);
                    vs.push((rng.next() % 9) as i32 - 4);
                }
            }
            (ix, vs)
        };
        let clustered = round % 3 == 0;
        let (ia, va) = pick(&mut rng, 0, if clustered { len * 2 / 3 } else { len });
        let (ib, vb) = pick(&mut rng, if clustered { len / 3 } else { 0 }, len);
        let a = VBufferView::try_sparse(len, Slices::new(&va, &ia)).unwrap();
        let b = VBufferView::try_sparse(len, Slices::new(&vb, &ib)).unwrap();
        let (da, db): (Vec<i32>, Vec<i32>) = (a.iter_all().collect(), b.iter_all().collect());
        let want: i32 = da.iter().zip(&db).map(|(x, y)| x * y).sum();
        assert_eq!(a.dot(&b), Ok(want), "round {round}");
        assert_eq!(b.dot(&a), Ok(want), "round {round}");
        let (fa, fb): (Vec<f32>, Vec<f32>) = (
            va.iter().map(|&x| x as f32).collect(),
            vb.iter().map(|&x| x as f32).collect(),
        );
        let fa = VBufferView::try_sparse(len, Slices::new(&fa, &ia)).unwrap();
        let fb = VBufferView::try_sparse(len, Slices::new(&fb, &ib)).unwrap();
        assert_eq!(fa.dot(&fb), Ok(want as f32)); // small integers: exact in f32
    }
}
