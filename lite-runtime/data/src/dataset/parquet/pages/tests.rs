use super::*;

#[test]
fn counts_levels_in_runs_and_bit_packed_groups() {
    // A run of 5 ones (header 5 << 1 = 10, value 1), then one group of 8 bit-packed
    // 1-bit values 0b1011_0010 (header 1 << 1 | 1 = 3), LSB first: 0,1,0,0,1,1,0,1.
    let data = [10, 1, 3, 0b1011_0010];
    assert_eq!(count_level(&data, 1, 13, 1), Some(5 + 4));
    // Only the first 7 levels count: the run, then 0 and 1.
    assert_eq!(count_level(&data, 1, 7, 1), Some(6));
    // Too few levels in the data.
    assert_eq!(count_level(&data, 1, 14, 1), None);
    // 3-bit values 1..=8 in one group (max 7): only the 7 counts; 8 does not fit 3 bits
    // and wraps to 0. Bits LSB first: 001 010 011 100 101 110 111 000.
    let packed: u32 = (0..8).fold(0, |acc, i| acc | (((i + 1) % 8) << (3 * i)));
    let data = [3, packed as u8, (packed >> 8) as u8, (packed >> 16) as u8];
    assert_eq!(count_level(&data, 3, 8, 7), Some(1));
    assert_eq!(count_level(&data, 3, 8, 3), Some(1));
    // A two-byte run value (bits 9..=16): 300 = 0x012c, little-endian.
    assert_eq!(count_level(&[8, 0x2c, 0x01], 9, 4, 300), Some(4));
}

/// Parquet's hybrid encoding of `levels`, `bits` wide: runs where `runs` says so (at a
/// level that repeats), bit-packed groups of 8 elsewhere (the last group padded).
fn encode(levels: &[u16], bits: u32, runs: &[bool]) -> Vec<u8> {
    let mut out = Vec::new();
    let varint = |out: &mut Vec<u8>, mut v: u64| loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    };
    let mut i = 0;
    let mut k = 0;
    while i < levels.len() {
        let run = levels[i..].iter().take_while(|&&l| l == levels[i]).count();
        let use_run = runs.get(k).copied().unwrap_or(false);
        k += 1;
        if use_run {
            varint(&mut out, (run as u64) << 1);
            let width = bits.div_ceil(8) as usize;
            out.extend_from_slice(&u64::from(levels[i]).to_le_bytes()[..width]);
            i += run;
        } else {
            let group: Vec<u16> = levels[i..].iter().take(8).copied().collect();
            varint(&mut out, (1 << 1) | 1);
            let mut acc = 0u64;
            for (j, &l) in group.iter().enumerate() {
                acc |= u64::from(l) << (j as u32 * bits);
            }
            out.extend_from_slice(&acc.to_le_bytes()[..bits as usize]);
            i += group.len();
        }
    }
    out
}

fn cases() -> proptest::prelude::ProptestConfig {
    let mut config =
        proptest::prelude::ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

proptest::proptest! {
    #![proptest_config(cases())]

    #[test]
    fn counts_what_was_encoded(
        bits in 1u32..=8,
        seed in proptest::collection::vec(0u16..=255, 0..200),
        runs in proptest::collection::vec(proptest::bool::ANY, 0..200),
    ) {
        let max = ((1u32 << bits) - 1) as u16;
        // Levels up to `max`, with long stretches of one value so that runs appear.
        let levels: Vec<u16> = seed.iter().map(|&s| if s < 128 { max } else { s % (max + 1) }).collect();
        let data = encode(&levels, bits, &runs);
        let want = levels.iter().filter(|&&l| l == max).count();
        proptest::prop_assert_eq!(count_level(&data, bits, levels.len(), max as i16), Some(want));
        // Any prefix of the levels counts the same way.
        let n = levels.len() / 2;
        let want = levels[..n].iter().filter(|&&l| l == max).count();
        proptest::prop_assert_eq!(count_level(&data, bits, n, max as i16), Some(want));
    }

    #[test]
    fn garbage_never_panics(
        data in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
        bits in 1u32..=15,
        n in 0usize..1000,
    ) {
        let _ = count_level(&data, bits, n, 1);
        let _ = levels(&data, Encoding::RLE, 3, n);
        // Anything but RLE is read as the deprecated bit-packed levels.
        let _ = levels(&data, Encoding::PLAIN, 3, n);
    }
}

#[test]
fn varints_end_or_fail() {
    let mut d: &[u8] = &[0x96, 0x01, 7];
    assert_eq!(uleb128(&mut d), Some(150));
    assert_eq!(d, &[7]);
    let mut d: &[u8] = &[0x80];
    assert_eq!(uleb128(&mut d), None);
    let mut d: &[u8] = &[0xff; 11];
    assert_eq!(uleb128(&mut d), None);
}
