//! CAST against C++'s `static_cast`, and end to end through one-operator models.

use super::*;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

#[test]
fn cast_matches_cpp_static_cast() {
    let f = [
        2.7f32,
        -2.7,
        0.0,
        -0.0,
        127.9,
        300.0,
        -129.5,
        f32::NAN,
        1e10,
        -1e10,
    ];
    let mut i = [0i32; 10];
    cast_slice(&f, &mut i);
    assert_eq!(i, [2, -2, 0, 0, 127, 300, -129, 0, i32::MAX, i32::MIN]);
    let mut b = [false; 10];
    cast_slice(&f, &mut b);
    assert_eq!(
        b,
        [true, true, false, false, true, true, true, true, true, true]
    );
    // Narrow targets: through i32, then the low bits (Arm64's behaviour off range).
    let mut i8s = [0i8; 10];
    cast_slice(&f, &mut i8s);
    assert_eq!(i8s, [2, -2, 0, 0, 127, 44, 127, 0, -1, 0]);
    let mut u8s = [0u8; 10];
    cast_slice(&f, &mut u8s);
    assert_eq!(u8s, [2, 254, 0, 0, 127, 44, 127, 0, 255, 0]);

    let ints = [-1i64, 255, 256, 65_535, i64::from(i32::MAX) + 1, i64::MIN];
    let mut u8s = [0u8; 6];
    cast_slice(&ints, &mut u8s);
    assert_eq!(u8s, [255, 255, 0, 255, 0, 0]);
    let mut i16s = [0i16; 6];
    cast_slice(&ints, &mut i16s);
    assert_eq!(i16s, [-1, 255, 256, -1, 0, 0]);
    let mut i32s = [0i32; 6];
    cast_slice(&ints, &mut i32s);
    assert_eq!(i32s, [-1, 255, 256, 65_535, i32::MIN, 0]);
    let mut fs = [0f32; 6];
    cast_slice(&ints, &mut fs);
    assert_eq!(
        fs,
        [-1.0, 255.0, 256.0, 65_535.0, 2_147_483_648.0, -9.223_372e18]
    );
    let mut bs = [true; 6];
    cast_slice(&[0i8, 1, -1, 0, 2, 0], &mut bs);
    assert_eq!(bs, [false, true, true, false, true, false]);

    let bools = [true, false];
    let mut fs = [9.0f32; 2];
    cast_slice(&bools, &mut fs);
    assert_eq!(fs, [1.0, 0.0]);
    let mut is = [9i64; 2];
    cast_slice(&bools, &mut is);
    assert_eq!(is, [1, 0]);
    let mut us = [9u8; 2];
    cast_slice(&bools, &mut us);
    assert_eq!(us, [1, 0]);

    // Unsigned 16 and 32 bits (the audio front ends' energies): from floats, u32 saturates
    // (Arm64's `fcvtzu`), u16 goes through i32; between integers, low bits.
    let mut u32s = [0u32; 10];
    cast_slice(&f, &mut u32s);
    assert_eq!(u32s, [2, 0, 0, 0, 127, 300, 0, 0, 4_294_967_295, 0]);
    let mut u16s = [0u16; 10];
    cast_slice(&f, &mut u16s);
    assert_eq!(u16s, [2, 65_534, 0, 0, 127, 300, 65_407, 0, 65_535, 0]);
    let big = [u32::MAX, 1 << 31, 7];
    let mut i32s = [0i32; 3];
    cast_slice(&big, &mut i32s);
    assert_eq!(i32s, [-1, i32::MIN, 7]);
    let mut i64s = [0i64; 3];
    cast_slice(&big, &mut i64s);
    assert_eq!(i64s, [4_294_967_295, 2_147_483_648, 7]);
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_to_int_truncates_in_range(x in -2.0e9f32..2.0e9) {
        let t = f64::from(x).trunc();
        let mut i = [0i32];
        cast_slice(&[x], &mut i);
        prop_assert_eq!(f64::from(i[0]), t);
        let mut l = [0i64];
        cast_slice(&[x], &mut l);
        prop_assert_eq!(l[0] as f64, t);
        // The narrow types: truncated, then wrapped as C++ keeps an int's low bits.
        let mut n = [0i16];
        cast_slice(&[x], &mut n);
        prop_assert_eq!(i64::from(n[0]), (t as i64).rem_euclid(65_536) - if (t as i64).rem_euclid(65_536) >= 32_768 { 65_536 } else { 0 });
    }

    #[test]
    fn int_casts_wrap_and_convert(v in proptest::collection::vec(any::<i64>(), 0..16)) {
        let mut u = vec![0u8; v.len()];
        cast_slice(&v, &mut u);
        let mut f = vec![0f32; v.len()];
        cast_slice(&v, &mut f);
        let mut b = vec![false; v.len()];
        cast_slice(&v, &mut b);
        for (k, &x) in v.iter().enumerate() {
            prop_assert_eq!(i64::from(u[k]), x.rem_euclid(256));
            // Round to nearest (i64 to f32 is the one conversion that may round).
            let err = (f64::from(f[k]) - x as f64).abs();
            prop_assert!(err <= (x as f64).abs() * f64::from(f32::EPSILON) / 2.0 + 1.0);
            prop_assert_eq!(b[k], x != 0);
        }
        let narrow: Vec<i32> = v.iter().map(|&x| x as i32).collect();
        let mut back = vec![0i64; v.len()];
        cast_slice(&narrow, &mut back);
        for (k, &x) in v.iter().enumerate() {
            prop_assert_eq!(back[k], i64::from(x as i32));
        }
    }
}

// ---- End to end: one-operator models through setup and invoke ----

use super::super::one_op::{BOOL, F32, I32, U8, f32s, model, run, setup_error, to_i32s, var};

#[test]
fn cast_runs_end_to_end() {
    let file = model(53, None, &[var(F32, &[4]), var(U8, &[4])], 1);
    let out = run(&file, &[&f32s(&[-1.5, 2.9, 255.0, 256.0])]).unwrap();
    assert_eq!(out[0], [255, 2, 255, 0]);
    let file = model(53, None, &[var(I32, &[3]), var(BOOL, &[3])], 1);
    let x: Vec<u8> = [0i32, -7, 1].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(run(&file, &[&x]).unwrap()[0], [0, 1, 1]);
    let file = model(53, None, &[var(BOOL, &[2]), var(I32, &[2])], 1);
    assert_eq!(to_i32s(&run(&file, &[&[1, 0]]).unwrap()[0]), [1, 0]);
    // Empty tensors.
    let file = model(53, None, &[var(I32, &[0]), var(F32, &[0])], 1);
    assert_eq!(run(&file, &[&[]]).unwrap()[0], Vec::<u8>::new());
}

#[test]
fn setup_refuses_what_eval_cannot_do() {
    // Another element count, or a type it does not convert.
    let e = setup_error(&model(53, None, &[var(F32, &[3]), var(I32, &[2])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    let e = setup_error(&model(53, None, &[var(F32, &[3]), var(10, &[3])], 1));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
}
