use super::*;
use crate::RustHeap;
use alloc::vec;
use tessera_core::tstring::TStringType;

#[test]
fn clear_keeps_blocks_and_push_reuses_them() {
    let mut t: StringTensor<'_, RustHeap> = StringTensor::with_heap();
    t.push(&[b'x'; 100]).unwrap();
    let block = t.as_slice()[0].as_ptr();
    t.clear();
    assert!(t.is_empty());
    t.push(b"short").unwrap();
    assert_eq!(t.as_slice()[0].string_type(), TStringType::Large);
    assert_eq!(t.as_slice()[0].as_ptr(), block);
    assert_eq!(t.get(0), Some(&b"short"[..]));
    t.shrink_to_fit();
    assert_eq!(t.len(), 1);
}

#[test]
fn tflite_round_trip_with_copies_and_views() {
    let tflite: &[u8] = b"\x03\0\0\0\x14\0\0\0\x16\0\0\0\x16\0\0\0\x19\0\0\0ABCDE";
    let tensor = TfliteStrings::new(tflite).unwrap();
    let mut copies: StringTensor<'_, RustHeap> = StringTensor::with_heap();
    copies.extend_from_tflite(tensor).unwrap();
    let mut views: StringTensor<'_, RustHeap> = StringTensor::with_heap();
    views.extend_views_from_tflite(tensor).unwrap();
    assert_eq!(views.as_slice()[2].as_ptr(), tflite[22..].as_ptr());
    for t in [&copies, &views] {
        let mut out = vec![0u8; t.tflite_len().unwrap()];
        assert_eq!(t.encode_tflite(&mut out), Ok(tflite.len()));
        assert_eq!(out, tflite);
    }
    assert_eq!(copies.set(1, b"x"), Some(Ok(())));
    assert_eq!(copies.set(3, b"x"), None);
    copies.truncate(2);
    assert!(copies.iter().eq([&b"AB"[..], b"x"]));
}
