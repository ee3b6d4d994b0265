use super::*;
use tessera_core::tstring::{TString, TStringType};

fn exercise<H: StringHeap>() {
    let mut s: TString<'_, H> = TString::from_bytes(&[b'q'; 40]).unwrap();
    assert_eq!((s.string_type(), s.capacity()), (TStringType::Large, 47));
    s.append(&[b'r'; 100]).unwrap();
    s.truncate(30).unwrap();
    s.reserve(500).unwrap();
    assert_eq!(s.len(), 30);
    assert!(s.as_bytes().iter().all(|&b| b == b'q'));
}

#[test]
fn rust_heap_backs_large_strings() {
    exercise::<RustHeap>();
    assert!(RustHeap::allocate(0).is_none());
}

#[cfg(feature = "c-heap")]
#[test]
fn c_heap_backs_large_strings() {
    exercise::<CHeap>();
}
