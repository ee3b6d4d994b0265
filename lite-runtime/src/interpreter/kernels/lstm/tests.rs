//! UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM tests: gemmlowp's int16
//! functions over every input, the integer helpers, and one-operator models against naive
//! references.

use super::fixed16;

/// FNV-1a over the 16-bit outputs for every int16 input, as a C++ program over gemmlowp's
/// `fixedpoint.h` printed them (`gemmlowp::logistic` / `gemmlowp::tanh` of
/// `FixedPoint<int16_t, I>`, I = 0..=6).
fn fnv(f: impl Fn(i16) -> i16) -> u64 {
    let mut h: u64 = 1_469_598_103_934_665_603;
    for v in i16::MIN..=i16::MAX {
        h = (h ^ u64::from(f(v) as u16)).wrapping_mul(1_099_511_628_211);
    }
    h
}

#[test]
#[cfg_attr(miri, ignore = "65536 inputs x 14 functions")]
fn fixed16_logistic_and_tanh_equal_gemmlowp_everywhere() {
    const LOGISTIC: [u64; 7] = [
        9_328_580_132_139_414_279,
        16_069_128_758_371_967_645,
        18_156_976_030_777_298_173,
        733_176_020_770_865_927,
        7_346_234_720_472_114_432,
        6_595_704_433_860_360_252,
        18_177_694_968_910_391_780,
    ];
    const TANH: [u64; 7] = [
        11_606_442_902_192_528_199,
        4_492_319_765_065_033_967,
        10_069_329_119_996_753_683,
        2_418_701_815_056_745_514,
        14_564_420_799_052_619_932,
        11_713_350_199_225_570_568,
        7_536_370_055_449_078_250,
    ];
    for bits in 0..7 {
        assert_eq!(fnv(|v| fixed16::logistic(v, bits)), LOGISTIC[bits as usize], "logistic {bits}");
        assert_eq!(fnv(|v| fixed16::tanh(v, bits)), TANH[bits as usize], "tanh {bits}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "a million inputs")]
fn inverse_square_root_equals_litert() {
    // FNV-1a over (multiplier, shift) of GetInvSqrtQuantizedMultiplierExp(v, -1) for v in
    // 0..2^20 and then every 104729th value up to i32::MAX, from a C++ program over
    // LiteRT's common.h.
    let mut h: u64 = 1_469_598_103_934_665_603;
    let mut mix = |a: i32| h = (h ^ u64::from(a as u32)).wrapping_mul(1_099_511_628_211);
    let inputs = (0..1 << 20).chain(((1i64 << 20)..i64::from(i32::MAX)).step_by(104_729).map(|v| v as i32));
    for v in inputs {
        let (a, s) = super::integer::test_inv_sqrt(v);
        mix(a);
        mix(s);
    }
    assert_eq!(h, 8_288_699_061_103_697_157);
}
