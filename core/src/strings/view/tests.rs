extern crate std;
use std::vec::Vec;

use super::super::EXAMPLE;
use super::*;

/// Builds a tensor from raw little-endian words followed by payload bytes.
fn words(ws: &[i32], payload: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = ws.iter().flat_map(|w| w.to_le_bytes()).collect();
    v.extend_from_slice(payload);
    v
}

#[test]
fn decodes_the_example() {
    let t = TfliteStrings::new(&EXAMPLE).unwrap();
    assert_eq!(t.len(), 3);
    assert!(!t.is_empty());
    assert_eq!(t.get(0), Some(&b"AB"[..]));
    assert_eq!(t.get(1), Some(&b""[..]));
    assert_eq!(t.get(2), Some(&b"CDE"[..]));
    assert_eq!(t.get(3), None);
    assert_eq!(t.get(usize::MAX), None);
    assert_eq!(t.data_bytes(), 5);
    assert_eq!(t.as_bytes(), &EXAMPLE[..]);
    let all: Vec<&[u8]> = t.iter().collect();
    assert_eq!(all, [&b"AB"[..], b"", b"CDE"]);
    let rev: Vec<&[u8]> = t.iter().rev().collect();
    assert_eq!(rev, [&b"CDE"[..], b"", b"AB"]);
    let by_ref: Vec<&[u8]> = (&t).into_iter().collect();
    let by_val: Vec<&[u8]> = t.into_iter().collect();
    assert_eq!(by_ref, by_val);
    assert_eq!(
        std::format!("{t:?}"),
        "TfliteStrings { len: 3, data_bytes: 5 }"
    );
}

#[test]
fn iterator_is_exact_and_double_ended() {
    let t = TfliteStrings::new(&EXAMPLE).unwrap();
    let mut it = t.iter();
    assert_eq!(it.len(), 3);
    assert_eq!(it.next(), Some(&b"AB"[..]));
    assert_eq!(it.len(), 2);
    assert_eq!(it.next_back(), Some(&b"CDE"[..]));
    assert_eq!(it.size_hint(), (1, Some(1)));
    assert_eq!(it.clone().last(), Some(&b""[..]));
    assert_eq!(it.next_back(), Some(&b""[..]));
    assert_eq!(it.next(), None);
    assert_eq!(it.next_back(), None);
    assert_eq!(it.len(), 0);

    assert_eq!(t.iter().nth(2), Some(&b"CDE"[..]));
    assert_eq!(t.iter().nth(3), None);
    assert_eq!(t.iter().nth(usize::MAX), None);
    assert_eq!(t.iter().nth_back(2), Some(&b"AB"[..]));
    assert_eq!(t.iter().nth_back(usize::MAX), None);
    assert_eq!(t.iter().count(), 3);
    let mut it = t.iter();
    assert_eq!(it.nth(1), Some(&b""[..]));
    assert_eq!(it.nth_back(0), Some(&b"CDE"[..]));
    assert_eq!(it.next(), None);
}

#[test]
fn decodes_the_empty_tensor() {
    let bytes = [0, 0, 0, 0, 8, 0, 0, 0];
    let t = TfliteStrings::new(&bytes).unwrap();
    assert_eq!(t.len(), 0);
    assert!(t.is_empty());
    assert_eq!(t.get(0), None);
    assert_eq!(t.iter().next(), None);
    assert_eq!(t.iter().next_back(), None);
    assert_eq!(t.data_bytes(), 0);
}

#[test]
fn truncated() {
    for len in 0..4 {
        assert_eq!(
            TfliteStrings::new(&EXAMPLE[..len]).unwrap_err(),
            StringTensorError::Truncated { needed: 4, len }
        );
    }
}

#[test]
fn negative_count() {
    assert_eq!(
        TfliteStrings::new(&words(&[-1, 8], b"")).unwrap_err(),
        StringTensorError::NegativeCount { count: -1 }
    );
    assert_eq!(
        TfliteStrings::new(&i32::MIN.to_le_bytes()).unwrap_err(),
        StringTensorError::NegativeCount { count: i32::MIN }
    );
}

#[test]
fn count_too_large() {
    // Count only: even N = 0 needs 8 bytes.
    assert_eq!(
        TfliteStrings::new(&[0, 0, 0, 0]).unwrap_err(),
        StringTensorError::CountTooLarge { count: 0, len: 4 }
    );
    // N = 3 needs 20 bytes of table; the table is cut after offset[2].
    assert_eq!(
        TfliteStrings::new(&EXAMPLE[..16]).unwrap_err(),
        StringTensorError::CountTooLarge { count: 3, len: 16 }
    );
    // The largest count: 4 * (i32::MAX + 2) bytes of table, which overflows 32-bit usize.
    assert_eq!(
        TfliteStrings::new(&words(&[i32::MAX, 8], b"")).unwrap_err(),
        StringTensorError::CountTooLarge {
            count: i32::MAX,
            len: 8
        }
    );
}

#[test]
fn first_offset() {
    // offset[0] points into the table instead of after it.
    assert_eq!(
        TfliteStrings::new(&words(&[1, 8, 13], b"x")).unwrap_err(),
        StringTensorError::FirstOffset {
            expected: 12,
            found: 8
        }
    );
    // ... or past the buffer.
    assert_eq!(
        TfliteStrings::new(&words(&[0, 100], b"")).unwrap_err(),
        StringTensorError::FirstOffset {
            expected: 8,
            found: 100
        }
    );
}

#[test]
fn last_offset() {
    // A trailing byte after the last string.
    assert_eq!(
        TfliteStrings::new(&words(&[1, 12, 13], b"xy")).unwrap_err(),
        StringTensorError::LastOffset {
            expected: 14,
            found: 13
        }
    );
    // The empty tensor with a trailing byte.
    assert_eq!(
        TfliteStrings::new(&words(&[0, 8], b"z")).unwrap_err(),
        StringTensorError::LastOffset {
            expected: 9,
            found: 8
        }
    );
}

#[test]
fn negative_offset() {
    assert_eq!(
        TfliteStrings::new(&words(&[1, -12, 13], b"x")).unwrap_err(),
        StringTensorError::NegativeOffset {
            index: 0,
            value: -12
        }
    );
    assert_eq!(
        TfliteStrings::new(&words(&[2, 16, -1, 17], b"x")).unwrap_err(),
        StringTensorError::NegativeOffset {
            index: 1,
            value: -1
        }
    );
}

#[test]
fn decreasing() {
    // ["AB", "", "CDE"] with offset[2] lowered to 21: string 1 would run 22..21.
    let mut bytes = EXAMPLE;
    bytes[12] = 21;
    assert_eq!(
        TfliteStrings::new(&bytes).unwrap_err(),
        StringTensorError::Decreasing {
            index: 2,
            previous: 22,
            value: 21
        }
    );
    // Every offset in bounds and the ends right, yet decreasing in the middle: TFLite's
    // verifier accepts this one.
    assert_eq!(
        TfliteStrings::new(&words(&[3, 20, 24, 21, 25], b"ABCDE")).unwrap_err(),
        StringTensorError::Decreasing {
            index: 2,
            previous: 24,
            value: 21
        }
    );
}

#[test]
fn offset_out_of_bounds() {
    assert_eq!(
        TfliteStrings::new(&words(&[2, 16, 100, 17], b"x")).unwrap_err(),
        StringTensorError::OffsetOutOfBounds {
            index: 1,
            value: 100,
            len: 17
        }
    );
    // The last offset past the end (the buffer lost its last byte).
    assert_eq!(
        TfliteStrings::new(&EXAMPLE[..24]).unwrap_err(),
        StringTensorError::OffsetOutOfBounds {
            index: 3,
            value: 25,
            len: 24
        }
    );
    assert_eq!(
        TfliteStrings::new(&words(&[1, 12, i32::MAX], b"")).unwrap_err(),
        StringTensorError::OffsetOutOfBounds {
            index: 1,
            value: i32::MAX,
            len: 12
        }
    );
}
