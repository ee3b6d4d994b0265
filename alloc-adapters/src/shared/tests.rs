use super::*;
use crate::RustHeap;
use alloc::vec;
use tessera_core::tstring::TStringType;

#[test]
fn views_hold_references_until_dropped() {
    let shared = SharedBytes::new(vec![7u8; 64]);
    let a: TString<'static, RustHeap> = shared.view().unwrap();
    let b: TString<'static, RustHeap> = shared.view_range(10, 5).unwrap();
    assert_eq!(shared.ref_count(), 3);
    let c = a.clone();
    assert_eq!(shared.ref_count(), 4);
    drop(shared);
    assert_eq!((a.len(), b.len(), c.len()), (64, 5, 64));
    assert_eq!(a.string_type(), TStringType::View);
    let mut owned = c;
    owned.as_mut_bytes().unwrap()[0] = 1;
    assert_eq!(owned.string_type(), TStringType::Large);
    drop((a, b, owned));
}

#[test]
fn view_range_clamps() {
    let shared = SharedBytes::new(vec![1u8, 2, 3]);
    let s: TString<'static, RustHeap> = shared.view_range(2, 10).unwrap();
    assert_eq!(s.as_bytes(), &[3]);
    let e: TString<'static, RustHeap> = shared.view_range(9, 1).unwrap();
    assert!(e.is_empty());
}
