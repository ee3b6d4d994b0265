//! Quantized ADD / SUB / MUL / DIV / SQUARED_DIFFERENCE elements against the real arithmetic
//! they approximate, the tables against the direct path, and DIV against values LiteRT's
//! reference kernel gave (measured exhaustively over int8 with its Python interpreter).

use super::*;
use proptest::prelude::*;

fn base(z1: i32, z2: i32, zo: i32) -> Params {
    Params {
        path: GENERAL,
        left_shift: 0,
        input1_offset: -z1,
        input1_multiplier: 0,
        input1_shift: 0,
        input2_offset: -z2,
        input2_multiplier: 0,
        input2_shift: 0,
        output_offset: zo,
        output_multiplier: 0,
        output_shift: 0,
        lo: -128,
        hi: 127,
    }
}

/// ADD / SUB parameters as `prepare` computes them (8-bit left shift 20).
fn rescaled(s1: f32, z1: i32, s2: f32, z2: i32, so: f32, zo: i32, sub: bool) -> Option<Params> {
    let mut p = base(z1, z2, zo);
    p.left_shift = 20;
    let twice_max = f64::from(2.0 * s1.max(s2));
    (p.input1_multiplier, p.input1_shift) = multiplier_below_one(f64::from(s1) / twice_max).ok()?;
    (p.input2_multiplier, p.input2_shift) = multiplier_below_one(f64::from(s2) / twice_max).ok()?;
    let m = twice_max / (f64::from(1 << 20) * f64::from(so));
    (p.output_multiplier, p.output_shift) = if sub && m > 1.0 {
        multiplier_above_one(m).ok()?
    } else {
        multiplier_below_one(m).ok()?
    };
    Some(p)
}

fn scalar(s1: f32, z1: i32, s2: f32, z2: i32, so: f32, zo: i32, m: f64) -> Params {
    let mut p = base(z1, z2, zo);
    let _ = (s1, s2, so);
    (p.output_multiplier, p.output_shift) = quant::checked_multiplier(m, false).unwrap();
    p
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(512, 8))]

    #[test]
    fn add_and_sub_are_the_rounded_real_results(
        x in any::<i8>(), y in any::<i8>(),
        s1 in 0.01f32..0.1, s2 in 0.01f32..0.1, so in 0.02f32..0.2,
        z1 in -20i32..20, z2 in -20i32..20, zo in -20i32..20,
        sub in any::<bool>(),
    ) {
        let p = rescaled(s1, z1, s2, z2, so, zo, sub).unwrap();
        let (a, b) = (
            f64::from(s1) * f64::from(i32::from(x) - z1),
            f64::from(s2) * f64::from(i32::from(y) - z2),
        );
        let real = if sub { a - b } else { a + b } / f64::from(so) + f64::from(zo);
        let want = real.round().clamp(-128.0, 127.0);
        let got = if sub {
            rescaled_one::<{ op::SUB }>(&p, x.into(), y.into())
        } else {
            rescaled_one::<{ op::ADD }>(&p, x.into(), y.into())
        };
        prop_assert!((f64::from(got) - want).abs() <= 1.0, "{} {}", got, want);
    }

    #[test]
    fn tables_equal_the_direct_path(
        s1 in 0.001f32..1.0, s2 in 0.001f32..1.0, so in 0.002f32..2.0,
        z1 in 0i32..=255, z2 in 0i32..=255, zo in 0i32..=255,
    ) {
        // uint8 SUB, whose output multiplier may pass one.
        let Some(mut p) = rescaled(s1, z1, s2, z2, so, zo, true) else { return Ok(()) };
        (p.lo, p.hi) = (0, 255);
        let (t1, t2) = tables::<u8>(&p);
        let step = if cfg!(miri) { 37 } else { 3 };
        for x in (0..=255u8).step_by(step) {
            for y in (0..=255u8).step_by(step) {
                let via = combine::<{ op::SUB }>(&p, t1[usize::from(x)], t2[usize::from(y)]);
                prop_assert_eq!(via, rescaled_one::<{ op::SUB }>(&p, x.into(), y.into()));
            }
        }
    }

    #[test]
    fn mul_is_the_rounded_real_product(
        x in any::<u8>(), y in any::<u8>(),
        s1 in 0.01f32..0.1, s2 in 0.01f32..0.1, so in 0.001f32..0.1,
        z1 in 0i32..255, z2 in 0i32..255, zo in 0i32..255,
    ) {
        let mut p = scalar(s1, z1, s2, z2, so, zo, f64::from(s1 * s2 / so));
        (p.lo, p.hi) = (0, 255);
        let real = f64::from(s1) * f64::from(i32::from(x) - z1) * f64::from(s2)
            * f64::from(i32::from(y) - z2) / f64::from(so) + f64::from(zo);
        let want = real.round().clamp(0.0, 255.0);
        let got = f64::from(mul_one(&p, x.into(), y.into()));
        prop_assert!((got - want).abs() <= 1.0, "{} {}", got, want);
    }

    #[test]
    fn div_is_the_rounded_real_quotient(
        x in any::<i8>(), y in any::<i8>(),
        s1 in 0.01f32..0.1, s2 in 0.01f32..0.1, so in 0.01f32..0.1,
        z1 in -20i32..20, z2 in -20i32..20, zo in -20i32..20,
    ) {
        // A small numerator (in steps from its zero point) has so much headroom that the
        // reference's final rounding shift passes 31 bits, where its arithmetic leaves the
        // defined range (see the next test): from 32 on, the shift stays below.
        prop_assume!(i32::from(y) != z2 && (i32::from(x) - z1).abs() >= 32);
        let p = scalar(s1, z1, s2, z2, so, zo, f64::from(s1 / (s2 * so)));
        let real = f64::from(s1) * f64::from(i32::from(x) - z1)
            / (f64::from(s2) * f64::from(i32::from(y) - z2)) / f64::from(so) + f64::from(zo);
        let want = real.round().clamp(-128.0, 127.0);
        let got = f64::from(div_one(&p, x.into(), y.into()));
        prop_assert!((got - want).abs() <= 1.0, "{} {} {:?}", got, want, (x, y, s1, s2, so, z1, z2, zo));
    }

    #[test]
    fn squared_difference_is_the_rounded_real_square(
        x in any::<i8>(), y in any::<i8>(),
        s1 in 0.01f32..0.1, s2 in 0.01f32..0.1, so in 1.0f32..4.0,
        z1 in -20i32..20, z2 in -20i32..20, zo in -128i32..-100,
    ) {
        let mut p = base(z1, z2, zo);
        p.left_shift = 7;
        let twice_max = f64::from(2.0 * s1.max(s2));
        (p.input1_multiplier, p.input1_shift) = multiplier_below_one(f64::from(s1) / twice_max).unwrap();
        (p.input2_multiplier, p.input2_shift) = multiplier_below_one(f64::from(s2) / twice_max).unwrap();
        let m = twice_max * twice_max / (f64::from(1 << 14) * f64::from(so));
        (p.output_multiplier, p.output_shift) = multiplier_below_one(m).unwrap();
        let d = f64::from(s1) * f64::from(i32::from(x) - z1) - f64::from(s2) * f64::from(i32::from(y) - z2);
        let want = (d * d / f64::from(so) + f64::from(zo)).round().clamp(-128.0, 127.0);
        let got = f64::from(rescaled_one::<{ op::SQD }>(&p, x.into(), y.into()));
        // Two rescalings of 7 bits each: a little coarser than ADD's.
        prop_assert!((got - want).abs() <= 2.0, "{} {}", got, want);
    }
}

#[test]
fn div_matches_litert_where_cpp_is_undefined() {
    // LiteRT's x86 build (ai-edge-litert 2.3, BUILTIN_REF), int8 DIV with input scales 0.01
    // and 0.5, output scale 0.02, zero points 0: a numerator at its zero point gives 0 or 1
    // depending on the divisor (the rounding shift passes 31 bits), and the reciprocal's last
    // step decides ties (59 / 118 is exactly 0.5 at these scales).
    let m = f64::from(0.01f32 / (0.5f32 * 0.02f32));
    let p = scalar(0.01, 0, 0.5, 0, 0.02, 0, m);
    // A numerator of -1 takes the headroom shift to 31 bits, past int32: LiteRT's answers
    // there are off (up to the clamp at other scales), reproduced.
    let cases = [
        (-1, 1, -1),
        (-1, 2, 0),
        (-1, -3, 0),
        (0, 1, 0),
        (0, 2, 0),
        (0, -2, 0),
        (0, 127, 1),
        (0, -128, 1),
        (59, 118, 1),
        (-59, 118, -1),
        (-59, -118, 1),
        (-125, -50, 3),
        (-121, 22, -6),
        (-117, 78, -2),
    ];
    for (x, y, want) in cases {
        assert_eq!(div_one(&p, x, y), want, "{x} / {y}");
    }
}

/// `pot` parameters: right shifts `r1`, `r2`, range `lo..=hi`.
fn pot_params(r1: i32, r2: i32, lo: i32, hi: i32) -> Params {
    let mut p = base(0, 0, 0);
    p.path = POT;
    (p.input1_shift, p.input2_shift, p.lo, p.hi) = (r1, r2, lo, hi);
    p
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(512, 8))]
    #[test]
    fn pot_add_and_sub_are_the_saturated_rounded_results(
        x in any::<i16>(), y in any::<i16>(), r in 0i32..=15, first in any::<bool>(),
    ) {
        let (r1, r2) = if first { (-r, 0) } else { (0, -r) };
        let p = pot_params(r1, r2, -32768, 32767);
        let div = |v: i16, e: i32| (f64::from(v) / f64::from(1u32 << e)).round();
        let (a, b) = (div(x, -r1), div(y, -r2));
        let want_add = (a + b).clamp(-32768.0, 32767.0);
        let want_sub = (a - b).clamp(-32768.0, 32767.0);
        prop_assert_eq!(f64::from(add_pot_one(&p, x, y)), want_add, "{:?}", (x, y, r1, r2));
        prop_assert_eq!(f64::from(sub_pot_one(&p, x, y)), want_sub, "{:?}", (x, y, r1, r2));
    }
}

#[test]
fn pot_shifts_refuse_what_the_reference_refuses() {
    let mut p = base(0, 0, 0);
    assert!(pot_shifts(&mut p, -10, -12, -10).is_ok());
    assert_eq!((p.path, p.input1_shift, p.input2_shift), (POT, 0, -2));
    // Neither input at the output's scale.
    assert!(pot_shifts(&mut p, -11, -12, -10).is_err());
    // An input coarser than the output.
    assert!(pot_shifts(&mut p, -9, -10, -10).is_err());
    // More than 31 bits apart.
    assert!(pot_shifts(&mut p, -10, -42, -10).is_err());
}

#[test]
fn mixed_mul_clamps_in_int16() {
    let mut p = base(0, 0, -5);
    p.path = MIXED;
    (p.lo, p.hi) = (-128, 127);
    // Full scale squared: 32767^2 in Q0.15 is 32766, / 256 = 128 (rounded), within the
    // clamp of 127 + 5 before the zero point: 123.
    assert_eq!(mixed_one(&p, i16::MAX, i16::MAX), 123);
    assert_eq!(mixed_one(&p, i16::MIN, i16::MIN), 123);
    // -32767 / 256 = -128, clamped to -128 + 5, then the zero point.
    assert_eq!(mixed_one(&p, i16::MIN, i16::MAX), -128);
    assert_eq!(mixed_one(&p, 0, 1234), -5);
}

#[test]
fn leading_sign_bits_as_gcc() {
    assert_eq!(leading_sign_bits(0), 31);
    assert_eq!(leading_sign_bits(-1), 31);
    assert_eq!(leading_sign_bits(1), 30);
    assert_eq!(leading_sign_bits(i32::MIN), 0);
    assert_eq!(leading_sign_bits(i32::MAX), 0);
    assert_eq!(leading_sign_bits(-2), 30);
}
