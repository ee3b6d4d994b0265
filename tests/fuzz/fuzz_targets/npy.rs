//! Fuzzes the `.npy` reader (`tessera_core::npy`, `tessera model run`'s inputs) on arbitrary
//! bytes: it must never panic, and whatever it accepts must have as many data bytes as its
//! type and shape say (computed without overflow), list its strings within them, and write
//! back (header written by `write_npy_header`, then the data) to a file that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_core::npy::{NpyView, npy_header_len, write_npy_header};

fuzz_target!(|data: &[u8]| {
    let Ok(a) = NpyView::parse(data) else {
        return;
    };
    let elements = a
        .shape()
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .expect("an accepted shape's element count fits usize");
    assert_eq!(a.elements(), elements);
    assert_eq!(elements.checked_mul(a.dtype().size()), Some(a.data().len()));
    for s in a.strings() {
        assert!(s.len() <= a.dtype().size());
    }
    let n = npy_header_len(a.dtype(), a.shape());
    assert_eq!(n % 64, 0, "the data starts on a multiple of 64");
    let mut file = vec![0u8; n + a.data().len()];
    assert_eq!(write_npy_header(a.dtype(), a.shape(), &mut file), Ok(n));
    file[n..].copy_from_slice(a.data());
    let again = NpyView::parse(&file).expect("what was read writes back readably");
    assert_eq!(again, a);
});
