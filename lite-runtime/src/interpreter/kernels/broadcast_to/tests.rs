//! BROADCAST_TO against a naive broadcast, BROADCAST_ARGS against NumPy's rule, end to end.

use super::super::base::broadcast::naive::{indices, naive_shape, source};
use super::super::one_op::{BOOL, F32, I32, I64, I8, const_i32, const_i64, f32s, i32s, i64s, kernel_error, model, run, to_f32s, to_i32s, to_i64s, var};
use crate::interpreter::KernelError;
use proptest::prelude::*;

const BROADCAST_TO: i32 = 130;
const BROADCAST_ARGS: i32 = 145;

fn dims(s: &[usize]) -> Vec<i32> {
    s.iter().map(|&d| d as i32).collect()
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(64, 2))]

    #[test]
    fn broadcast_to_matches_naive(
        (out, input) in prop::collection::vec(0usize..4, 0..=5).prop_flat_map(|out| {
            let r = out.len();
            (Just(out.clone()), (0..=r, prop::collection::vec(any::<bool>(), r)).prop_map(move |(rank, ones)| {
                out[r - rank..].iter().zip(&ones[r - rank..]).map(|(&d, &one)| if one { 1 } else { d }).collect::<Vec<_>>()
            }))
        }),
        constant in any::<bool>(),
    ) {
        // An empty constant has no data, so no model holds one: a rank-0 shape is computed.
        let constant = constant && !out.is_empty();
        let n: usize = input.iter().product();
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let shape_operand = if constant { const_i32(&[out.len() as i32], &dims(&out)) } else { var(I32, &[out.len() as i32]) };
        let file = model(BROADCAST_TO, None, &[var(F32, &dims(&input)), shape_operand, var(F32, &dims(&out))], 2);
        let xb = f32s(&x);
        let sb = i32s(&dims(&out));
        let feeds: Vec<&[u8]> = if constant { vec![&xb] } else { vec![&xb, &sb] };
        let got = to_f32s(&run(&file, &feeds).unwrap()[0]);
        let want: Vec<f32> = indices(&out).iter().map(|i| x[source(i, &input)]).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn broadcast_args_matches_numpy(
        a in prop::collection::vec(prop_oneof![Just(1i64), 0i64..4], 0..=5),
        b in prop::collection::vec(prop_oneof![Just(1i64), 0i64..4], 0..=5),
    ) {
        let n = a.len().max(b.len()) as i32;
        let file = model(BROADCAST_ARGS, None, &[var(I64, &[a.len() as i32]), var(I64, &[b.len() as i32]), var(I64, &[n])], 2);
        let ua: Vec<usize> = a.iter().map(|&v| v as usize).collect();
        let ub: Vec<usize> = b.iter().map(|&v| v as usize).collect();
        let r = run(&file, &[&i64s(&a), &i64s(&b)]);
        match naive_shape(&ua, &ub) {
            Some(s) => {
                let want: Vec<i64> = s.iter().map(|&d| d as i64).collect();
                prop_assert_eq!(to_i64s(&r.unwrap()[0]), want);
            }
            None => prop_assert!(r.is_err()),
        }
    }
}

#[test]
fn other_types_and_refusals() {
    // int8 and bool, with an int64 constant shape.
    let file = model(BROADCAST_TO, None, &[var(I8, &[2, 1]), const_i64(&[3], &[2, 2, 3]), var(I8, &[2, 2, 3])], 2);
    assert_eq!(run(&file, &[&[1, 0xff]]).unwrap()[0], [1, 1, 1, 0xff, 0xff, 0xff, 1, 1, 1, 0xff, 0xff, 0xff]);
    let file = model(BROADCAST_TO, None, &[var(BOOL, &[]), const_i32(&[1], &[0]), var(BOOL, &[0])], 2);
    assert!(run(&file, &[&[1]]).unwrap()[0].is_empty());
    let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
    // A constant shape other than the output's.
    let e = err(model(BROADCAST_TO, None, &[var(F32, &[3]), const_i32(&[2], &[2, 4]), var(F32, &[2, 3])], 2));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // An input that does not broadcast.
    let e = err(model(BROADCAST_TO, None, &[var(F32, &[2]), const_i32(&[1], &[3]), var(F32, &[3])], 2));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // A computed shape other than the output's fails the invoke.
    let file = model(BROADCAST_TO, None, &[var(F32, &[1]), var(I32, &[1]), var(F32, &[3])], 2);
    let e = kernel_error(run(&file, &[&f32s(&[1.0]), &i32s(&[4])]).unwrap_err());
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // BROADCAST_ARGS: int32, and an output of the wrong length.
    let file = model(BROADCAST_ARGS, None, &[var(I32, &[2]), var(I32, &[1]), var(I32, &[2])], 2);
    assert_eq!(to_i32s(&run(&file, &[&i32s(&[4, 1]), &i32s(&[5])]).unwrap()[0]), [4, 5]);
    let e = err(model(BROADCAST_ARGS, None, &[var(I32, &[2]), var(I32, &[1]), var(I32, &[1])], 2));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
}
