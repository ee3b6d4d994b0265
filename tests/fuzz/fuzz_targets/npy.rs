//! Fuzzes the `.npy` reader (`tessera model run`'s inputs) on arbitrary bytes: it must never
//! panic, and whatever it accepts must have as many data bytes as its type and shape say
//! (computed without overflow), list its strings within them, and write back to a file that
//! reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// What `npy.rs` names as `crate::model`.
mod model {
    pub use tessera_lite::model::TensorType;
}

// The reader's own source, compiled here: it is part of tessera-lite's `std` feature, and
// that feature would also switch the interpreter of every other target in this package to
// its `std` build (features unify), which the firmware-shaped targets must not fuzz.
#[allow(dead_code)]
#[rustfmt::skip] // its own crate formats it; rustfmt would follow its `mod tests;` from here
#[path = "../../../lite-runtime/src/npy.rs"]
mod npy;

use npy::Npy;

fuzz_target!(|data: &[u8]| {
    let Ok(a) = Npy::parse(data) else {
        return;
    };
    let elements = a
        .shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .expect("an accepted shape's element count fits usize");
    assert_eq!(a.elements(), elements);
    assert_eq!(elements.checked_mul(a.dtype.size()), Some(a.data.len()));
    for s in a.strings() {
        assert!(s.len() <= a.dtype.size());
    }
    let again = Npy::parse(&a.to_bytes()).expect("what was read writes back readably");
    assert_eq!(again, a);
});
