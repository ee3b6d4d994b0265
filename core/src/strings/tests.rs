extern crate std;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::error::CapacityError;

/// Most strings per generated tensor; small under Miri, which is slow.
const MAX_STRINGS: usize = if cfg!(miri) { 4 } else { 24 };
/// Longest generated string.
const MAX_STRING_LEN: usize = if cfg!(miri) { 6 } else { 40 };

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

fn strings() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(
        prop::collection::vec(any::<u8>(), 0..=MAX_STRING_LEN),
        0..=MAX_STRINGS,
    )
}

fn encode_vec(strings: &[Vec<u8>]) -> Vec<u8> {
    let mut buf = vec![0u8; tflite_encoded_len(strings).unwrap()];
    let used = encode_tflite(strings, &mut buf).unwrap();
    assert_eq!(used, buf.len());
    buf
}

/// What must hold of any tensor `new` accepts.
fn check_invariants(t: TfliteStrings<'_>) {
    let all: Vec<&[u8]> = t.iter().collect();
    assert_eq!(all.len(), t.len());
    assert_eq!(all.iter().map(|s| s.len()).sum::<usize>(), t.data_bytes());
    for (i, s) in all.iter().enumerate() {
        assert_eq!(t.get(i), Some(*s));
    }
    assert_eq!(t.get(t.len()), None);
    let mut rev: Vec<&[u8]> = t.iter().rev().collect();
    rev.reverse();
    assert_eq!(rev, all);
    // Validation is strict enough that a tensor has exactly one encoding.
    assert_eq!(encode_vec_refs(&all), t.as_bytes());
}

fn encode_vec_refs(strings: &[&[u8]]) -> Vec<u8> {
    let mut buf = vec![0u8; tflite_encoded_len(strings).unwrap()];
    assert_eq!(encode_tflite(strings, &mut buf), Ok(buf.len()));
    buf
}

/// One change to a valid encoding.
#[derive(Debug, Clone)]
enum Mutation {
    /// Set the byte at `index % len` (if any).
    Byte(prop::sample::Index, u8),
    /// Overwrite the aligned 4-byte word at `index % words` with a value.
    Word(prop::sample::Index, i32),
    /// Keep only the first `index % (len + 1)` bytes.
    Truncate(prop::sample::Index),
    /// Append a byte.
    Push(u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Byte(i, b)),
        (
            any::<prop::sample::Index>(),
            prop_oneof![
                any::<i32>(),
                -2..80i32,
                Just(i32::MAX),
                Just(i32::MIN),
                Just(i32::MAX / 4 - 1)
            ]
        )
            .prop_map(|(i, w)| Mutation::Word(i, w)),
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        any::<u8>().prop_map(Mutation::Push),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    match *m {
        Mutation::Byte(ref i, b) => {
            if !bytes.is_empty() {
                let at = i.index(bytes.len());
                bytes[at] = b;
            }
        }
        Mutation::Word(ref i, w) => {
            let words = bytes.len() / 4;
            if words > 0 {
                let at = i.index(words) * 4;
                bytes[at..at + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        Mutation::Truncate(ref i) => bytes.truncate(i.index(bytes.len() + 1)),
        Mutation::Push(b) => bytes.push(b),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn round_trip(input in strings()) {
        let bytes = encode_vec(&input);
        let t = TfliteStrings::new(&bytes).unwrap();
        prop_assert_eq!(t.len(), input.len());
        prop_assert_eq!(t.is_empty(), input.is_empty());
        let decoded: Vec<Vec<u8>> = t.iter().map(<[u8]>::to_vec).collect();
        prop_assert_eq!(&decoded, &input);
        prop_assert_eq!(t.data_bytes(), input.iter().map(Vec::len).sum::<usize>());
        check_invariants(t);
        // A walk of unknown length (measured first) writes the same bytes, and a roomier
        // buffer is not written past the tensor.
        let mut roomy = vec![0xA5u8; bytes.len() + 64];
        prop_assert_eq!(encode_tflite(input.iter().filter(|_| true), &mut roomy), Ok(bytes.len()));
        prop_assert_eq!(&roomy[..bytes.len()], &bytes[..]);
        prop_assert!(roomy[bytes.len()..].iter().all(|&b| b == 0xA5));
    }

    #[test]
    fn new_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..=4 * MAX_STRINGS),
    ) {
        if let Ok(t) = TfliteStrings::new(&bytes) {
            check_invariants(t);
        }
    }

    #[test]
    fn new_never_panics_on_mutated_encodings(
        input in strings(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut bytes = encode_vec(&input);
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if let Ok(t) = TfliteStrings::new(&bytes) {
            check_invariants(t);
        }
    }

    #[test]
    fn too_small_reports_the_exact_size(
        input in strings(),
        short in any::<prop::sample::Index>(),
    ) {
        let needed = tflite_encoded_len(&input).unwrap();
        let available = short.index(needed);
        let mut buf = vec![0xA5u8; available];
        prop_assert_eq!(
            encode_tflite(&input, &mut buf),
            Err(TfliteEncodeError::Capacity(CapacityError { needed, available }))
        );
    }
}
