//! TILE against a naive tiling (each output index taken modulo the input's dimensions), end to
//! end with constant and computed multiples, and its refusals.

use super::*;
use super::super::one_op::{F32, I32, I8, const_i32, f32s, i32s, model, run, setup_error, to_f32s, var};
use super::super::row_major::strides;
use proptest::prelude::*;

/// TILE's builtin code.
const TILE_CODE: i32 = 69;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(256, 4))]
    #[test]
    fn tile_is_the_naive_tiling(dims in proptest::collection::vec(1usize..4, 0..=4), m in proptest::collection::vec(1usize..4, 4)) {
        let m = &m[..dims.len()];
        let n: usize = dims.iter().product();
        let out: Vec<usize> = dims.iter().zip(m).map(|(d, m)| d * m).collect();
        let total: usize = out.iter().product();
        let src: Vec<u16> = (0..n as u16).collect();
        let mut got = vec![0u16; total];
        let (read, written) = tile(&dims, m, 2, src.as_bytes(), got.as_mut_bytes()).unwrap();
        prop_assert_eq!((read, written), (2 * n, 2 * total));
        let (so, si) = (strides(&out), strides(&dims));
        let want: Vec<u16> = (0..total).map(|flat| {
            (0..dims.len()).map(|k| (flat / so[k] % out[k]) % dims[k] * si[k]).sum::<usize>() as u16
        }).collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn end_to_end_constant_and_computed_multiples() {
    let x = f32s(&[1.0, 2.0, 3.0, 4.0]);
    let file = model(TILE_CODE, None, &[var(F32, &[2, 2]), const_i32(&[2], &[1, 2]), var(F32, &[2, 4])], 2);
    assert_eq!(to_f32s(&run(&file, &[&x]).unwrap()[0]), [1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]);
    let file = model(TILE_CODE, None, &[var(F32, &[2, 2]), var(I32, &[2]), var(F32, &[4, 2])], 2);
    assert_eq!(to_f32s(&run(&file, &[&x, &i32s(&[2, 1])]).unwrap()[0]), [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]);
    // Computed multiples that do not give the planned shape, or are negative, are errors.
    assert!(run(&file, &[&x, &i32s(&[1, 2])]).is_err());
    assert!(run(&file, &[&x, &i32s(&[-2, -1])]).is_err());
    // int8 moves bytes; a zero multiple gives an empty output.
    let file = model(TILE_CODE, None, &[var(I8, &[3]), const_i32(&[1], &[2]), var(I8, &[6])], 2);
    assert_eq!(run(&file, &[&[1u8, 2, 3]]).unwrap()[0], [1, 2, 3, 1, 2, 3]);
    let file = model(TILE_CODE, None, &[var(I8, &[3]), const_i32(&[1], &[0]), var(I8, &[0])], 2);
    assert!(run(&file, &[&[1u8, 2, 3]]).unwrap()[0].is_empty());
}

#[test]
fn refusals() {
    // The output's shape is not what the multiples give.
    let e = setup_error(&model(TILE_CODE, None, &[var(F32, &[2, 2]), const_i32(&[2], &[1, 2]), var(F32, &[4, 2])], 2));
    assert_eq!(e, check::OUTPUT_SHAPE);
    // Multiples of another length than the rank, or negative.
    let e = setup_error(&model(TILE_CODE, None, &[var(F32, &[2, 2]), const_i32(&[1], &[2]), var(F32, &[4, 2])], 2));
    assert_eq!(e, MULTIPLES);
    let e = setup_error(&model(TILE_CODE, None, &[var(F32, &[2, 2]), const_i32(&[2], &[-1, 1]), var(F32, &[2, 2])], 2));
    assert_eq!(e, MULTIPLES);
}
