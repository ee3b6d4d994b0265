//! The selects against a naive NumPy-style reference, their shape rules, and end-to-end
//! one-operator models over several element widths.

use super::super::base::broadcast::naive::{indices, naive_shape, shapes2, source};
use super::super::row_major::shape;
use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(128, 4))]

    #[test]
    fn select_v2_matches_naive(
        (sc, sx, sy) in shapes2().prop_flat_map(|(a, b)| {
            let r = a.len().max(b.len());
            (Just(a), Just(b), prop::collection::vec(prop_oneof![Just(1usize), 0usize..4], 0..=r))
        }),
        seed in any::<u64>(),
    ) {
        let Some(so) = naive_shape(&sc, &sx).and_then(|s| naive_shape(&s, &sy)) else {
            return Ok(());
        };
        let n = |s: &[usize]| s.iter().product::<usize>();
        let c: Vec<bool> = (0..n(&sc)).map(|i| (seed >> (i % 64)) & 1 == 1).collect();
        let x: Vec<i64> = (0..n(&sx)).map(|i| i as i64).collect();
        let y: Vec<i64> = (0..n(&sy)).map(|i| -(i as i64) - 1).collect();
        let mut got = vec![0i64; n(&so)];
        let r = select::<i64, true>(
            &c, &shape(&sc), &x, &shape(&sx), &y, &shape(&sy), &mut got, &shape(&so),
        );
        if [&sc, &sx, &sy, &so].iter().all(|s| n(s) == 1) {
            // One element each: whatever the shapes.
            r.unwrap();
            prop_assert_eq!(got, vec![if c[0] { x[0] } else { y[0] }]);
            return Ok(());
        }
        r.unwrap();
        let want: Vec<i64> = indices(&so)
            .iter()
            .map(|i| if c[source(i, &sc)] { x[source(i, &sx)] } else { y[source(i, &sy)] })
            .collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn select_v1_matches_naive(
        dims in prop::collection::vec(0usize..4, 0..=5),
        cond_rank in 0usize..3,
        seed in any::<u64>(),
    ) {
        // Condition: the inputs' shape, a scalar, or a vector along the first dimension.
        let sc: Vec<usize> = match cond_rank {
            0 => vec![],
            1 if !dims.is_empty() => vec![dims[0]],
            _ => dims.clone(),
        };
        let n = |s: &[usize]| s.iter().product::<usize>();
        let c: Vec<bool> = (0..n(&sc)).map(|i| (seed >> (i % 64)) & 1 == 1).collect();
        let x: Vec<f32> = (0..n(&dims)).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..n(&dims)).map(|i| -(i as f32) - 1.0).collect();
        let mut got = vec![0f32; n(&dims)];
        let s = shape(&dims);
        select::<f32, false>(&c, &shape(&sc), &x, &s, &y, &s, &mut got, &s).unwrap();
        let per = if sc.is_empty() { n(&dims) } else { n(&dims) / n(&sc).max(1) };
        let want: Vec<f32> = (0..n(&dims))
            .map(|i| {
                let pick = if sc == dims { c[i] } else { c[i / per.max(1)] };
                if pick { x[i] } else { y[i] }
            })
            .collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn select_shapes() {
    let s = |d: &[usize]| shape(d);
    let m = |c: &[usize], x: &[usize], y: &[usize], o: &[usize]| {
        (
            select_mode::<false>(&s(c), &s(x), &s(y), &s(o)),
            select_mode::<true>(&s(c), &s(x), &s(y), &s(o)),
        )
    };
    assert_eq!(
        m(&[3], &[3, 2], &[3, 2], &[3, 2]).0,
        Ok(SelectMode::Rows { outer: 3, inner: 2 })
    );
    assert_eq!(
        m(&[], &[3, 2], &[3, 2], &[3, 2]).0,
        Ok(SelectMode::Rows { outer: 1, inner: 6 })
    );
    // A vector along the last dimension is SELECT_V2's broadcast, not SELECT's.
    let (v1, v2) = m(&[2], &[3, 2], &[3, 2], &[3, 2]);
    assert!(v1.is_err());
    assert_eq!(v2, Ok(SelectMode::Broadcast));
    // Single elements keep the model's output shape.
    assert_eq!(m(&[1], &[], &[1, 1], &[1, 1, 1]).0, Ok(SelectMode::Single));
    // The output shape must be the op's.
    assert!(m(&[3, 2], &[3, 2], &[3, 2], &[6]).0.is_err());
    assert!(m(&[2], &[3, 1], &[1], &[3, 3]).1.is_err());
    assert_eq!(m(&[2], &[3, 1], &[1], &[3, 2]).1, Ok(SelectMode::Broadcast));
}

/// End to end: one-operator models set up and run by the interpreter.
mod end_to_end {
    use super::super::super::one_op::{
        BOOL, F32, I16, kernel_error, model, run, to_f32s, var, f32s,
    };
    use crate::interpreter::KernelError;

    const SELECT: i32 = 64;
    const SELECT_V2: i32 = 123;
    const STRING: u8 = 5;
    const F16: u8 = 1;
    const U64: u8 = 12;

    #[test]
    fn selects_pick() {
        let x = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let y = f32s(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
        // SELECT with a vector condition picks rows.
        let file = model(
            SELECT,
            None,
            &[
                var(BOOL, &[2]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
            ],
            3,
        );
        let out = run(&file, &[&[0, 1], &x, &y]).unwrap();
        assert_eq!(to_f32s(&out[0]), [-1.0, -2.0, -3.0, 4.0, 5.0, 6.0]);
        // SELECT_V2 broadcasts the condition along the last dimension.
        let file = model(
            SELECT_V2,
            None,
            &[
                var(BOOL, &[3]),
                var(F32, &[2, 3]),
                var(F32, &[]),
                var(F32, &[2, 3]),
            ],
            3,
        );
        let out = run(&file, &[&[1, 0, 1], &x, &f32s(&[0.0])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [1.0, 0.0, 3.0, 4.0, 0.0, 6.0]);
    }

    #[test]
    fn every_width_is_copied() {
        let bytes = |v: &[u64], w: usize| -> Vec<u8> {
            v.iter().flat_map(|x| x.to_ne_bytes()[..w].to_vec()).collect()
        };
        for (ty, w) in [(I16, 2), (F16, 2), (U64, 8)] {
            let file = model(
                SELECT_V2,
                None,
                &[var(BOOL, &[2, 1]), var(ty, &[2]), var(ty, &[1]), var(ty, &[2, 2])],
                3,
            );
            let x = if w == 2 {
                [0x1234u16, 0xfedc].iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>()
            } else {
                bytes(&[u64::MAX, 7], 8)
            };
            let y = if w == 2 { 0x5555u16.to_ne_bytes().to_vec() } else { bytes(&[9], 8) };
            let out = run(&file, &[&[1, 0], &x, &y]).unwrap();
            let mut want = x.clone();
            for _ in 0..2 {
                want.extend_from_slice(&y);
            }
            assert_eq!(out[0], want, "{ty}");
        }
    }

    #[test]
    fn empty_tensors_run() {
        let file = model(
            SELECT_V2,
            None,
            &[
                var(BOOL, &[0]),
                var(F32, &[1]),
                var(F32, &[1]),
                var(F32, &[0]),
            ],
            3,
        );
        assert!(run(&file, &[&[], &f32s(&[1.0]), &f32s(&[2.0])]).unwrap()[0].is_empty());
    }

    #[test]
    fn setup_refuses_what_eval_cannot_do() {
        let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
        // SELECT's condition along the last dimension is SELECT_V2's.
        let e = err(model(
            SELECT,
            None,
            &[
                var(BOOL, &[3]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
            ],
            3,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // A condition that is not BOOL.
        let e = err(model(
            SELECT_V2,
            None,
            &[var(F32, &[3]), var(F32, &[3]), var(F32, &[3]), var(F32, &[3])],
            3,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // Strings have no fixed width.
        let e = err(model(
            SELECT_V2,
            None,
            &[var(BOOL, &[1]), var(STRING, &[1]), var(STRING, &[1]), var(STRING, &[1])],
            3,
        ));
        assert!(!matches!(e, KernelError::Mismatch { what: "condition is not BOOL" }), "{e}");
    }
}
