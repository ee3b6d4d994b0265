//! BATCH_MATMUL against a naive batched product (the same `k` order from zero, so float sums
//! are bit-equal) over random ranks, broadcast batches and transpositions; quantized outputs
//! against the reference's requantization; end to end.

use super::super::base::broadcast::naive::{naive_shape, source, indices};
use super::super::row_major::shape;
use super::*;
use proptest::prelude::*;

/// `out[b, i, j] = sum_k f(lhs(b, i, k), rhs(b, k, j))` by the definition.
#[allow(clippy::too_many_arguments)]
fn naive<L: Copy, R: Copy, A: Copy>(
    lhs: &[L],
    ls: &[usize],
    rhs: &[R],
    rs: &[usize],
    adj_x: bool,
    adj_y: bool,
    zero: A,
    mac: impl Fn(A, L, R) -> A,
) -> (Vec<usize>, Vec<A>) {
    let (lr, rr) = (ls.len(), rs.len());
    let (lb, rb) = (&ls[..lr - 2], &rs[..rr - 2]);
    let (l0, l1, r0, r1) = (ls[lr - 2], ls[lr - 1], rs[rr - 2], rs[rr - 1]);
    let (m, k) = if adj_x { (l1, l0) } else { (l0, l1) };
    let n = if adj_y { r0 } else { r1 };
    let ob = naive_shape(lb, rb).unwrap();
    let mut out = Vec::new();
    for bi in indices(&ob) {
        let (lo, ro) = (source(&bi, lb) * l0 * l1, source(&bi, rb) * r0 * r1);
        for i in 0..m {
            for j in 0..n {
                let mut acc = zero;
                for kk in 0..k {
                    let x = if adj_x { lhs[lo + kk * l1 + i] } else { lhs[lo + i * l1 + kk] };
                    let y = if adj_y { rhs[ro + j * r1 + kk] } else { rhs[ro + kk * r1 + j] };
                    acc = mac(acc, x, y);
                }
                out.push(acc);
            }
        }
    }
    let mut s = ob;
    s.extend([m, n]);
    (s, out)
}

/// Shapes for a product: batch dimensions that broadcast, matrices that fit.
fn operands() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, bool, bool)> {
    (
        prop::collection::vec(0usize..4, 0..=3),
        0usize..4, 0usize..4, 0usize..4,
        any::<bool>(), any::<bool>(),
        prop::collection::vec(any::<bool>(), 6),
        0usize..=3, 0usize..=3,
    )
        .prop_map(|(batch, m, k, n, adj_x, adj_y, ones, drop_l, drop_r)| {
            let pick = |drop: usize, off: usize| -> Vec<usize> {
                let drop = drop.min(batch.len());
                batch[drop..].iter().enumerate().map(|(i, &d)| if ones[(i + off) % 6] { 1 } else { d }).collect()
            };
            let mut l = pick(drop_l, 0);
            let mut r = pick(drop_r, 3);
            l.extend(if adj_x { [k, m] } else { [m, k] });
            r.extend(if adj_y { [n, k] } else { [k, n] });
            (l, r, adj_x, adj_y)
        })
}

fn run_matmul<L: Copy, R: Copy, A: Copy + Default>(
    lhs: &[L],
    ls: &[usize],
    rhs: &[R],
    rs: &[usize],
    adj_x: bool,
    adj_y: bool,
    mac: impl Fn(A, L, R) -> A,
) -> (Vec<usize>, Vec<A>) {
    let (d, s) = dims(&shape(ls), &shape(rs), adj_x, adj_y).unwrap();
    let mut out = vec![A::default(); s.elements()];
    let mut acc = vec![A::default(); d.n];
    matmul(&d, lhs, rhs, adj_x, adj_y, &mut acc, A::default(), mac, |b, i, row| {
        let at = (b * d.m + i) * d.n;
        out[at..at + d.n].copy_from_slice(row);
        Ok(())
    })
    .unwrap();
    (s.dims().to_vec(), out)
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(128, 4))]

    #[test]
    fn products_match_naive((ls, rs, adj_x, adj_y) in operands(), seed in any::<u64>()) {
        let n = |s: &[usize]| s.iter().product::<usize>();
        let val = |i: usize| (((seed >> (i % 60)) & 0xff) as f32 - 128.0) / 16.0;
        let lhs: Vec<f32> = (0..n(&ls)).map(val).collect();
        let rhs: Vec<f32> = (0..n(&rs)).map(|i| val(i + 7)).collect();
        let mac = |a: f32, x: f32, y: f32| a + x * y;
        let (gs, got) = run_matmul(&lhs, &ls, &rhs, &rs, adj_x, adj_y, mac);
        let (ws, want) = naive(&lhs, &ls, &rhs, &rs, adj_x, adj_y, 0.0f32, mac);
        prop_assert_eq!(gs, ws);
        prop_assert_eq!(
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        let li: Vec<i8> = lhs.iter().map(|&v| (v * 8.0) as i8).collect();
        let ri: Vec<i8> = rhs.iter().map(|&v| (v * 8.0) as i8).collect();
        let mac = |a: i32, x: i8, y: i8| a + i32::from(x) * i32::from(y);
        let (_, got) = run_matmul(&li, &ls, &ri, &rs, adj_x, adj_y, mac);
        let (_, want) = naive(&li, &ls, &ri, &rs, adj_x, adj_y, 0i32, mac);
        prop_assert_eq!(got, want);
    }
}

#[test]
fn shapes_and_refusals() {
    let d = |l: &[usize], r: &[usize], ax, ay| dims(&shape(l), &shape(r), ax, ay).map(|(_, s)| s.dims().to_vec());
    assert_eq!(d(&[2, 3], &[3, 4], false, false).unwrap(), [2, 4]);
    assert_eq!(d(&[5, 1, 2, 3], &[4, 4, 3], false, true).unwrap(), [5, 4, 2, 4]);
    assert_eq!(d(&[3, 2], &[3, 4], true, false).unwrap(), [2, 4]);
    assert!(d(&[2, 3], &[4, 4], false, false).is_err());
    assert!(d(&[2, 2, 3], &[3, 3, 4], false, false).is_err());
    assert!(d(&[3], &[3, 4], false, false).is_err());
    assert!(d(&[1, 1, 1, 1, 2, 3], &[3, 4], false, false).is_err());
}

mod end_to_end {
    use super::super::super::base::qmodel::{constant, model_q, plain, q};
    use super::super::super::one_op::{F, F32, I8, I16, I32, f32s, kernel_error, model, run, to_f32s, to_i32s, var};
    use crate::interpreter::KernelError;

    const BATCH_MATMUL: i32 = 126;

    #[test]
    fn products_run() {
        // [2, 3] x [3, 2] with a constant right-hand side.
        let rhs: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let file = model_q(
            BATCH_MATMUL,
            None,
            &[plain(F32, &[2, 3]), constant(plain(F32, &[3, 2]), rhs), plain(F32, &[2, 2])],
            2,
        );
        let out = run(&file, &[&f32s(&[1.0, 0.0, -1.0, 2.0, 1.0, 0.5])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [-4.0, -4.0, 7.5, 11.0]);
        // adj_y: the right-hand side stored [n, k].
        let opts = Some((101, vec![(1, F::U8(1))]));
        let file = model(BATCH_MATMUL, opts, &[var(F32, &[1, 2]), var(F32, &[3, 2]), var(F32, &[1, 3])], 2);
        let out = run(&file, &[&f32s(&[1.0, 2.0]), &f32s(&[1.0, 1.0, 0.0, 1.0, -1.0, 0.0])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [3.0, 2.0, -1.0]);
        // int8: (x - 1) * (y + 2) * 0.5 * 0.25 / 0.125, output zero point 3.
        let file = model_q(
            BATCH_MATMUL,
            None,
            &[q(I8, &[1, 2], 0.5, 1), q(I8, &[2, 1], 0.25, -2), q(I8, &[1, 1], 0.125, 3)],
            2,
        );
        // (3 - 1) * (0 + 2) + (5 - 1) * (1 + 2) = 4 + 12 = 16 -> 16 + 3.
        assert_eq!(run(&file, &[&[3, 5], &[0, 1]]).unwrap()[0], [19]);
        // int8 into int32: raw products, zero points ignored.
        let file = model_q(
            BATCH_MATMUL,
            None,
            &[q(I8, &[1, 2], 0.5, 1), q(I8, &[2, 1], 0.25, -2), plain(I32, &[1, 1])],
            2,
        );
        assert_eq!(to_i32s(&run(&file, &[&[3, 5], &[0, 1]]).unwrap()[0]), [5]);
        // int16 with int8 weights.
        let file = model_q(
            BATCH_MATMUL,
            None,
            &[q(I16, &[1, 1], 1.0, 0), q(I8, &[1, 2], 1.0, 0), q(I16, &[1, 2], 2.0, 0)],
            2,
        );
        let out = run(&file, &[&1000i16.to_ne_bytes(), &[3, 0xfd]]).unwrap();
        let want: Vec<u8> = [1500i16, -1500].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(out[0], want);
    }

    #[test]
    fn refusals() {
        let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
        let e = err(model_q(BATCH_MATMUL, None, &[plain(F32, &[1, 2]), q(I8, &[2, 1], 0.5, 0), plain(F32, &[1, 1])], 2));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        let e = err(model(BATCH_MATMUL, None, &[var(F32, &[1, 2]), var(F32, &[3, 1]), var(F32, &[1, 1])], 2));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        let e = err(model(BATCH_MATMUL, None, &[var(F32, &[1, 2]), var(F32, &[2, 1]), var(F32, &[2, 1])], 2));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        let e = err(model_q(BATCH_MATMUL, None, &[q(I16, &[1, 1], 1.0, 1), q(I16, &[1, 1], 1.0, 0), q(I16, &[1, 1], 1.0, 0)], 2));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
    }
}
