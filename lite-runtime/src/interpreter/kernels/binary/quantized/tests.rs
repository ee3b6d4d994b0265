//! Quantized ADD / MUL elements against the real arithmetic they approximate.

use super::*;
use proptest::prelude::*;

fn params(s1: f32, z1: i32, s2: f32, z2: i32, so: f32, zo: i32, mul: bool) -> Params {
    let mut p = Params {
        wide: 0,
        left_shift: 20,
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
    };
    if mul {
        (p.output_multiplier, p.output_shift) =
            quant::checked_multiplier(f64::from(s1 * s2 / so), false).unwrap();
    } else {
        let twice_max = f64::from(2.0 * s1.max(s2));
        (p.input1_multiplier, p.input1_shift) = below_one(f64::from(s1) / twice_max).unwrap();
        (p.input2_multiplier, p.input2_shift) = below_one(f64::from(s2) / twice_max).unwrap();
        (p.output_multiplier, p.output_shift) =
            below_one(twice_max / (f64::from(1 << 20) * f64::from(so))).unwrap();
    }
    p
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(512, 8))]
    #[test]
    fn add_is_the_rounded_real_sum(
        x in any::<i8>(), y in any::<i8>(),
        s1 in 0.01f32..0.1, s2 in 0.01f32..0.1, so in 0.02f32..0.2,
        z1 in -20i32..20, z2 in -20i32..20, zo in -20i32..20,
    ) {
        let p = params(s1, z1, s2, z2, so, zo, false);
        let real = (f64::from(s1) * f64::from(i32::from(x) - z1)
            + f64::from(s2) * f64::from(i32::from(y) - z2)) / f64::from(so) + f64::from(zo);
        let want = real.round().clamp(-128.0, 127.0);
        let got = f64::from(add_one(&p, i32::from(x), i32::from(y)));
        prop_assert!((got - want).abs() <= 1.0, "{} {}", got, want);
    }

    #[test]
    fn add_tables_equal_add_one(
        s1 in 0.001f32..1.0, s2 in 0.001f32..1.0, so in 0.002f32..2.0,
        z1 in -128i32..=127, z2 in -128i32..=127, zo in -128i32..=127,
    ) {
        prop_assume!(f64::from(2.0 * s1.max(s2)) / (f64::from(1 << 20) * f64::from(so)) < 1.0);
        let p = params(s1, z1, s2, z2, so, zo, false);
        let (t1, t2) = add_tables(&p);
        let step = if cfg!(miri) { 37 } else { 1 };
        for x in (-128i32..=127).step_by(step) {
            for y in (-128i32..=127).step_by(7 * step) {
                prop_assert_eq!(
                    i32::from(add_from_tables(&p, &t1, &t2, x as i8, y as i8)),
                    add_one(&p, x, y)
                );
            }
        }
    }

    #[test]
    fn mul_is_the_rounded_real_product(
        x in any::<i8>(), y in any::<i8>(),
        s1 in 0.01f32..0.1, s2 in 0.01f32..0.1, so in 0.01f32..0.5,
        z1 in -20i32..20, z2 in -20i32..20, zo in -20i32..20,
    ) {
        let p = params(s1, z1, s2, z2, so, zo, true);
        let real = f64::from(s1) * f64::from(i32::from(x) - z1)
            * f64::from(s2) * f64::from(i32::from(y) - z2) / f64::from(so) + f64::from(zo);
        let want = real.round().clamp(-128.0, 127.0);
        let got = f64::from(mul_one(&p, i32::from(x), i32::from(y)));
        prop_assert!((got - want).abs() <= 1.0, "{} {}", got, want);
    }
}

/// Power-of-two int16 ADD parameters: input right shifts `r1`, `r2` (one of them 0) and the
/// clamp.
fn pot_params(r1: i32, r2: i32, lo: i32, hi: i32) -> Params {
    let mut p = params(1.0, 0, 1.0, 0, 1.0, 0, true);
    (p.lo, p.hi) = (lo, hi);
    pot_shifts(&mut p, r1, r2, 0).unwrap();
    p
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(1024, 8))]
    #[test]
    fn pot_add_is_the_saturated_rounded_sum(
        x in any::<i16>(), y in any::<i16>(), shift in 0i32..=15, first in any::<bool>(),
        lo in -32768i32..=0, hi in 0i32..=32767,
    ) {
        // In i64: the shifted operand divided by 2^shift, rounded half away from zero, plus
        // the other, saturated to int16, clamped.
        let (r1, r2) = if first { (-shift, 0) } else { (0, -shift) };
        let p = pot_params(r1, r2, lo, hi);
        let (kept, shifted) = if first { (y, x) } else { (x, y) };
        let q = i64::from(shifted);
        let d = 1i64 << shift;
        let rounded = if q >= 0 { (q + d / 2) / d } else { -((-q + d / 2) / d) };
        let want = (i64::from(kept) + rounded).clamp(-32768, 32767).clamp(lo.into(), hi.into());
        prop_assert_eq!(i64::from(add_pot_one(&p, x, y)), want);
    }
}

#[test]
fn pot_shifts_refuse_what_the_reference_refuses() {
    let mut p = params(1.0, 0, 1.0, 0, 1.0, 0, true);
    // Input log2 scales relative to the output's: one must be 0, neither above.
    assert!(pot_shifts(&mut p, -13, -12, -12).is_ok());
    assert_eq!((p.input1_shift, p.input2_shift), (-1, 0));
    assert!(pot_shifts(&mut p, -12, -12, -12).is_ok());
    assert!(pot_shifts(&mut p, -13, -13, -12).is_err());
    assert!(pot_shifts(&mut p, -11, -12, -12).is_err());
    assert!(pot_shifts(&mut p, -12, -44, -12).is_err());
    assert!(pot_shifts(&mut p, i32::MIN, 0, 0).is_err());
}
