//! LOGICAL_AND and LOGICAL_OR end to end against a naive broadcast.

use super::super::base::broadcast::naive::{naive2, with_values};
use super::super::one_op::{BOOL, F32, kernel_error, model, run, var};
use crate::interpreter::KernelError;
use proptest::prelude::*;

const LOGICAL_OR: i32 = 84;
const LOGICAL_AND: i32 = 86;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(64, 2))]

    #[test]
    fn logical_ops_match_naive((sa, a, sb, b) in with_values(any::<bool>())) {
        let dims = |s: &[usize]| s.iter().map(|&d| d as i32).collect::<Vec<i32>>();
        for (code, f) in [(LOGICAL_AND, (|x, y| x && y) as fn(bool, bool) -> bool), (LOGICAL_OR, |x, y| x || y)] {
            let (so, want) = naive2(&a, &sa, &b, &sb, f);
            let file = model(
                code,
                None,
                &[var(BOOL, &dims(&sa)), var(BOOL, &dims(&sb)), var(BOOL, &dims(&so))],
                2,
            );
            let ab: Vec<u8> = a.iter().map(|&v| u8::from(v)).collect();
            let bb: Vec<u8> = b.iter().map(|&v| u8::from(v)).collect();
            let out = run(&file, &[&ab, &bb]).unwrap();
            let want: Vec<u8> = want.iter().map(|&v| u8::from(v)).collect();
            prop_assert_eq!(&out[0], &want);
        }
    }
}

#[test]
fn refuses_other_types() {
    let e = kernel_error(
        run(
            &model(LOGICAL_AND, None, &[var(F32, &[2]), var(F32, &[2]), var(F32, &[2])], 2),
            &[],
        )
        .unwrap_err(),
    );
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
    let e = kernel_error(
        run(
            &model(LOGICAL_OR, None, &[var(BOOL, &[2]), var(BOOL, &[3]), var(BOOL, &[3])], 2),
            &[],
        )
        .unwrap_err(),
    );
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
}
