use super::*;

#[test]
fn size_packing_round_trips_and_keeps_the_tag_in_byte0() {
    for len in [0usize, 1, 22, 23, 255, 256, 65_535, 1 << 20, MAX_LEN] {
        for ty in [TStringType::Large, TStringType::View] {
            let word = pack_size(len, ty);
            assert_eq!(unpack_size(word), len);
            // Byte 0 in memory, whatever the host's byte order.
            assert_eq!(TStringType::from_tag(word.to_ne_bytes()[0]), ty);
        }
    }
}

#[test]
fn big_endian_packing_corrupts_the_tag_past_max_len() {
    // TensorFlow's big-endian formula on a 64-bit word, evaluated whatever the host: a
    // length with bit 54 set leaks into the tag bits, which is why MAX_LEN stops below it.
    let top: u64 = 0xFF00_0000_0000_0000;
    let tag = |n: u64, ty: u64| ((top & (n << 2)) | (!top & n) | (ty << 56)).to_be_bytes()[0] & 3;
    assert_eq!(tag((1 << 54) - 1, 1), 1);
    assert_eq!(tag(1 << 54, 2), 3, "a LARGE-sized tag bit leaks in");
    assert_eq!(tag(1 << 55, 1), 3);
    if cfg!(target_endian = "big") && size_of::<usize>() == 8 {
        assert_eq!(MAX_LEN as u64, (1 << 54) - 1);
    }
}

#[test]
fn big_endian_packing_matches_tensorflow_formula() {
    // The big-endian formula, evaluated by hand on a 64-bit word, independent of the host.
    let top: u64 = 0xFF00_0000_0000_0000;
    let n: u64 = 0x0123_4567_89AB_CDEF & (u64::MAX >> 2);
    let internal = (top & (n << 2)) | (!top & n) | (1u64 << 56);
    let back = (((top << 2) & internal) >> 2) | (!top & internal);
    assert_eq!(back, n);
    assert_eq!(internal.to_be_bytes()[0] & 3, 1);
}

#[test]
fn small_repr_is_bytes_then_zeroes() {
    let src: [u8; 22] = core::array::from_fn(|i| 0xA0 + i as u8);
    for n in 0..=SMALL_CAPACITY {
        let r = Repr::small(&src[..n]);
        let raw = r.as_bytes();
        assert_eq!(raw[0] as usize, n << 2);
        assert_eq!(&raw[1..1 + n], &src[..n]);
        assert!(raw[1 + n..].iter().all(|&b| b == 0), "n = {n}");
    }
}

#[test]
fn align16_matches_tensorflow() {
    assert_eq!(align16(23 + 1) - 1, 31);
    assert_eq!(align16(100 + 1) - 1, 111);
    assert_eq!(align16(200 + 1) - 1, 207);
    assert_eq!(align16(16) - 1, 15);
}
