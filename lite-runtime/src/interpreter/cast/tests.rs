use super::*;

#[test]
fn an_empty_slice_views_as_empty_at_any_address() {
    // `Default` gives a dangling, byte-aligned address: misaligned for `u64` and `u32`.
    let empty: &mut [u8] = Default::default();
    assert_eq!(slice_of::<u64>(empty), Some(&[][..]));
    assert_eq!(slice_of_mut::<u32>(empty).map(|s| s.len()), Some(0));
    let buf = [0u8; 9];
    assert_eq!(slice_of::<u64>(&buf[1..1]), Some(&[][..]));
}

#[test]
fn a_misaligned_or_partial_slice_does_not_view() {
    let buf = [0u64; 2];
    let bytes = zerocopy::IntoBytes::as_bytes(&buf[..]);
    assert_eq!(slice_of::<u64>(&bytes[..8]), Some(&[0u64][..]));
    assert_eq!(slice_of::<u64>(&bytes[1..9]), None);
    assert_eq!(slice_of::<u64>(&bytes[..7]), None);
    assert_eq!(slice_of::<bool>(&[2u8][..]), None);
}
