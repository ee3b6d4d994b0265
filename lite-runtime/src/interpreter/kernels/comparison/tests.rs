//! The comparisons against a naive NumPy-style reference over random broadcast shapes and
//! every plain type, the rescaled ones against the real values they compare, and end-to-end
//! one-operator models.

use super::super::base::broadcast::broadcast_shape;
use super::super::base::broadcast::naive::{naive2, with_values};
use super::super::row_major::shape;
use super::*;
use proptest::prelude::*;
use tessera_core::strings::encode_tflite;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(128, 4)
}

fn check_compare<T: PartialOrd + Copy + std::fmt::Debug, const OP: u8>(
    a: &[T],
    sa: &[usize],
    b: &[T],
    sb: &[usize],
) -> Result<(), TestCaseError> {
    let so = broadcast_shape(&shape(sa), &shape(sb)).unwrap();
    let mut got = vec![false; so.elements()];
    compare::<T, OP>(a, &shape(sa), b, &shape(sb), &mut got, &so).unwrap();
    let naive = |x: T, y: T| match OP {
        op::LT => x < y,
        op::LE => x <= y,
        op::GT => x > y,
        op::GE => x >= y,
        op::EQ => x == y,
        _ => x != y,
    };
    let (want_shape, want) = naive2(a, sa, b, sb, naive);
    prop_assert_eq!(so.dims(), &want_shape[..]);
    prop_assert_eq!(got, want);
    Ok(())
}

/// Floats with specials, few distinct values so comparisons hit equality.
fn float() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        8 => (-4i8..4).prop_map(f32::from),
        4 => -1e3f32..1e3,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(-0.0f32),
    ]
}

macro_rules! every_compare {
    ($t:ty, $a:expr, $sa:expr, $b:expr, $sb:expr) => {{
        check_compare::<$t, { op::LT }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::LE }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::GT }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::GE }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::EQ }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::NE }>($a, $sa, $b, $sb)?;
    }};
}

/// Comparison parameters as `prepare` computes them.
fn scaled_params(s1: f32, z1: i32, s2: f32, z2: i32) -> Params {
    let (m1, sh1) = scale_multiplier(s1).unwrap();
    let (m2, sh2) = scale_multiplier(s2).unwrap();
    Params {
        path: SCALED,
        input1_offset: -z1,
        input1_multiplier: m1,
        input1_shift: sh1,
        input2_offset: -z2,
        input2_multiplier: m2,
        input2_shift: sh2,
    }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_comparisons_match_naive((sa, a, sb, b) in with_values(float())) {
        every_compare!(f32, &a, &sa, &b, &sb);
    }

    #[test]
    fn int_comparisons_match_naive((sa, a, sb, b) in with_values(prop_oneof![4 => -4i64..4, 1 => any::<i64>()])) {
        every_compare!(i64, &a, &sa, &b, &sb);
        let a32: Vec<i32> = a.iter().map(|&v| v as i32).collect();
        let b32: Vec<i32> = b.iter().map(|&v| v as i32).collect();
        every_compare!(i32, &a32, &sa, &b32, &sb);
        let a16: Vec<i16> = a.iter().map(|&v| v as i16).collect();
        let b16: Vec<i16> = b.iter().map(|&v| v as i16).collect();
        every_compare!(i16, &a16, &sa, &b16, &sb);
    }

    #[test]
    fn bool_equality_matches_naive((sa, a, sb, b) in with_values(any::<bool>())) {
        check_compare::<bool, { op::EQ }>(&a, &sa, &b, &sb)?;
        check_compare::<bool, { op::NE }>(&a, &sa, &b, &sb)?;
    }

    #[test]
    fn string_equality_matches_naive(
        (sa, a, sb, b) in with_values(prop::sample::select(vec!["", "a", "ab", "b", "ba"])),
    ) {
        let encode = |v: &[&str]| {
            let mut buf = vec![0u8; 64 + 8 * v.len()];
            let n = encode_tflite(v.iter(), &mut buf).unwrap();
            buf.truncate(n);
            buf
        };
        let (ea, eb) = (encode(&a), encode(&b));
        let (ta, tb) = (TfliteStrings::new(&ea).unwrap(), TfliteStrings::new(&eb).unwrap());
        let so = broadcast_shape(&shape(&sa), &shape(&sb)).unwrap();
        for eq in [true, false] {
            let mut got = vec![false; so.elements()];
            if eq {
                compare_strings::<true>(&ta, &shape(&sa), &tb, &shape(&sb), &mut got, &so)
            } else {
                compare_strings::<false>(&ta, &shape(&sa), &tb, &shape(&sb), &mut got, &so)
            }
            .unwrap();
            let (_, want) = naive2(&a, &sa, &b, &sb, |x, y| (x == y) == eq);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn rescaled_values_order_as_the_real_ones(
        x in any::<i8>(), y in any::<i8>(),
        s1 in 0.001f32..0.9, s2 in 0.001f32..0.9, z1 in -128i32..=127, z2 in -128i32..=127,
    ) {
        // Within the rescaling's resolution (2^-8 of a unit of the scale): its order is the
        // real one.
        let p = scaled_params(s1, z1, s2, z2);
        let (a, b) = (p.scaled1(x.into()), p.scaled2(y.into()));
        let ra = f64::from(s1) * f64::from(i32::from(x) - z1);
        let rb = f64::from(s2) * f64::from(i32::from(y) - z2);
        if (ra - rb).abs() > 2.0 / 256.0 {
            prop_assert_eq!(a < b, ra < rb, "{} {} {} {}", a, b, ra, rb);
        }
        // Equal real values at equal parameters rescale equally.
        prop_assert_eq!(p.scaled1(x.into()), scaled_params(s1, z1, s1, z1).scaled2(x.into()));
    }
}

#[test]
fn scales_from_one_on_take_the_greater_than_one_multiplier() {
    assert!(scale_multiplier(1.0).is_err());
    assert!(scale_multiplier(0.0).is_err());
    let p = scaled_params(2.0, 0, 0.5, 0);
    // 2.0 has shift 2 (a negative rounding shift in the reference's x86 build).
    assert_eq!((p.input1_multiplier, p.input1_shift), (1 << 30, 2));
    assert_eq!(p.scaled2(4), 4 << 8 >> 1);
}

/// End to end: one-operator models set up and run by the interpreter.
mod end_to_end {
    use super::super::super::base::qmodel::{model_q, plain, q};
    use super::super::super::one_op::{
        BOOL, F32, I8, I16, I64, Tensor, U8, f32s, kernel_error, model, run, var,
    };
    use crate::interpreter::KernelError;
    use tessera_core::strings::encode_tflite;

    const LESS: i32 = 58;
    const GREATER: i32 = 61;
    const EQUAL: i32 = 71;
    const NOT_EQUAL: i32 = 72;
    const STRING: u8 = 5;
    const F16: u8 = 1;

    fn strings(shape: &[i32], v: &[&str]) -> Tensor {
        let mut buf = vec![0u8; 64 + 8 * v.len()];
        let n = encode_tflite(v.iter(), &mut buf).unwrap();
        buf.truncate(n);
        Tensor {
            ty: STRING,
            shape: shape.to_vec(),
            data: Some(buf),
        }
    }

    #[test]
    fn comparisons_give_bools() {
        let i64s = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
        let file = model(
            LESS,
            None,
            &[var(I64, &[4]), var(I64, &[]), var(BOOL, &[4])],
            2,
        );
        let out = run(&file, &[&i64s(&[-5, 0, 5, i64::MAX]), &i64s(&[1])]).unwrap();
        assert_eq!(out[0], [1, 1, 0, 0]);
        let file = model(
            EQUAL,
            None,
            &[
                strings(&[3], &["a", "bc", ""]),
                strings(&[1], &["bc"]),
                var(BOOL, &[3]),
            ],
            2,
        );
        assert_eq!(run(&file, &[]).unwrap()[0], [0, 1, 0]);
        // float16, compared as floats (+0 == -0).
        let file = model(
            GREATER,
            None,
            &[var(F16, &[3]), var(F16, &[3]), var(BOOL, &[3])],
            2,
        );
        let h = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
        // 1.0, -2.0, +0 against 0.5, -1.0, -0.
        let out = run(&file, &[&h(&[0x3c00, 0xc000, 0x0000]), &h(&[0x3800, 0xbc00, 0x8000])]);
        assert_eq!(out.unwrap()[0], [1, 0, 0]);
    }

    #[test]
    fn quantized_inputs_compare_by_real_value() {
        // int8 at scales 0.5 and 0.25: 4 * 0.5 = 2.0 against 8 * 0.25 = 2.0.
        let file = model_q(
            EQUAL,
            None,
            &[q(I8, &[3], 0.5, 0), q(I8, &[3], 0.25, 0), plain(BOOL, &[3])],
            2,
        );
        assert_eq!(run(&file, &[&[4, 4, 0xfe], &[8, 9, 0xfc]]).unwrap()[0], [1, 0, 1]);
        // uint8 with zero points: (x - 128) * 0.1 < (y - 0) * 0.1.
        let file = model_q(
            LESS,
            None,
            &[q(U8, &[2], 0.1, 128), q(U8, &[1], 0.1, 0), plain(BOOL, &[2])],
            2,
        );
        assert_eq!(run(&file, &[&[129, 131], &[2]]).unwrap()[0], [1, 0]);
        // int16 LESS compares the stored values, whatever the scales.
        let file = model_q(
            LESS,
            None,
            &[q(I16, &[1], 1.0, 0), q(I16, &[1], 0.001, 0), plain(BOOL, &[1])],
            2,
        );
        assert_eq!(run(&file, &[&3i16.to_ne_bytes(), &4i16.to_ne_bytes()]).unwrap()[0], [1]);
        // int16 NOT_EQUAL rescales when quantized: 2 * 0.5 == 4 * 0.25.
        let file = model_q(
            NOT_EQUAL,
            None,
            &[q(I16, &[1], 0.5, 0), q(I16, &[1], 0.25, 0), plain(BOOL, &[1])],
            2,
        );
        assert_eq!(run(&file, &[&2i16.to_ne_bytes(), &4i16.to_ne_bytes()]).unwrap()[0], [0]);
    }

    #[test]
    fn empty_tensors_run() {
        let file = model(
            LESS,
            None,
            &[var(F32, &[0]), var(F32, &[1]), var(BOOL, &[0])],
            2,
        );
        assert!(run(&file, &[&[], &f32s(&[1.0])]).unwrap()[0].is_empty());
    }

    #[test]
    fn setup_refuses_what_eval_cannot_do() {
        let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
        // Ordering of bools.
        let e = err(model(
            LESS,
            None,
            &[var(BOOL, &[3]), var(BOOL, &[3]), var(BOOL, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        // A comparison whose output is not BOOL.
        let e = err(model(
            LESS,
            None,
            &[var(F32, &[3]), var(F32, &[3]), var(F32, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // int8 without quantization (LiteRT aborts on its zero scale).
        let e = err(model(
            EQUAL,
            None,
            &[var(I8, &[3]), var(I8, &[3]), var(BOOL, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // A scale of exactly one (the reference's greater-than-one multiplier aborts).
        let e = err(model_q(
            EQUAL,
            None,
            &[q(I8, &[3], 1.0, 0), q(I8, &[3], 0.5, 0), plain(BOOL, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        // Inputs of different types.
        let e = err(model(
            EQUAL,
            None,
            &[var(F32, &[3]), var(I64, &[3]), var(BOOL, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    }
}
