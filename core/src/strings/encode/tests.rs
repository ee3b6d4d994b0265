extern crate std;
use core::cell::Cell;
use std::vec;
use std::vec::Vec;

use super::super::EXAMPLE;
use super::*;

#[test]
fn encodes_the_example_exactly() {
    let words: [&[u8]; 3] = [b"AB", b"", b"CDE"];
    assert_eq!(tflite_encoded_len(words), Ok(25));
    let mut buf = [0u8; 25];
    assert_eq!(encode_tflite(words, &mut buf), Ok(25));
    assert_eq!(buf, EXAMPLE);
    // Other shapes of input encode the same.
    let mut buf = [0u8; 25];
    assert_eq!(encode_tflite(&["AB", "", "CDE"], &mut buf), Ok(25));
    assert_eq!(buf, EXAMPLE);
    let owned: Vec<Vec<u8>> = vec![b"AB".to_vec(), vec![], b"CDE".to_vec()];
    let mut buf = [0u8; 25];
    assert_eq!(encode_tflite(&owned, &mut buf), Ok(25));
    assert_eq!(buf, EXAMPLE);
    let mut buf = [0u8; 25];
    assert_eq!(
        encode_tflite(owned.iter().map(Vec::as_slice), &mut buf),
        Ok(25)
    );
    assert_eq!(buf, EXAMPLE);
}

#[test]
fn encodes_the_empty_tensor() {
    let none: [&[u8]; 0] = [];
    assert_eq!(tflite_encoded_len(none), Ok(8));
    let mut buf = [0xAAu8; 8];
    assert_eq!(encode_tflite(none, &mut buf), Ok(8));
    assert_eq!(buf, [0, 0, 0, 0, 8, 0, 0, 0]);
}

#[test]
fn writes_nothing_past_the_returned_length() {
    let mut buf = [0xAAu8; 40];
    assert_eq!(encode_tflite(["AB", "", "CDE"], &mut buf), Ok(25));
    assert_eq!(buf[..25], EXAMPLE);
    assert!(buf[25..].iter().all(|&b| b == 0xAA));
}

#[test]
fn too_small_reports_the_size_needed() {
    let words = ["AB", "", "CDE"];
    for available in 0..25 {
        let expected = Err(TfliteEncodeError::Capacity(CapacityError {
            needed: 25,
            available,
        }));
        let mut buf = vec![0xAAu8; available];
        // Known length (written in one walk) and unknown length (measured first).
        assert_eq!(encode_tflite(words, &mut buf), expected);
        assert_eq!(
            encode_tflite(words.iter().filter(|_| true), &mut buf),
            expected
        );
    }
}

/// The offsets are `i32`: a tensor may be `i32::MAX` bytes long, not one more. The big
/// string is calloc'ed and never touched, so this costs no real memory.
#[test]
#[cfg(all(not(miri), target_pointer_width = "64"))]
fn too_large() {
    let max = i32::MAX as usize;
    let big = vec![0u8; max - 12 + 1];
    let fits = &big[..max - 12];
    assert_eq!(tflite_encoded_len([fits]), Ok(max));
    assert_eq!(
        tflite_encoded_len([&big[..]]),
        Err(StringTensorError::TooLarge { index: 0 })
    );
    assert_eq!(
        tflite_encoded_len([&b"a"[..], b"b", &big[..max - 20]]),
        Err(StringTensorError::TooLarge { index: 2 })
    );
    let mut small = [0xAAu8; 8];
    assert_eq!(
        encode_tflite([&b""[..], &big[..]], &mut small),
        Err(TfliteEncodeError::TooLarge { index: 1 })
    );
    assert_eq!(
        encode_tflite([fits], &mut small),
        Err(TfliteEncodeError::Capacity(CapacityError {
            needed: max,
            available: 8
        }))
    );
}

/// A `Clone` that yields a different sequence on each walk, with an exact `size_hint` or
/// none.
#[derive(Clone)]
struct Fickle<'c> {
    walks: &'c Cell<usize>,
    seqs: &'c [&'c [&'c [u8]]],
    exact: bool,
}

struct FickleIter<'c> {
    inner: core::slice::Iter<'c, &'c [u8]>,
    exact: bool,
}

impl<'c> Iterator for FickleIter<'c> {
    type Item = &'c [u8];

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().copied()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.inner.len();
        if self.exact { (n, Some(n)) } else { (0, None) }
    }
}

impl<'c> IntoIterator for Fickle<'c> {
    type Item = &'c [u8];
    type IntoIter = FickleIter<'c>;

    fn into_iter(self) -> Self::IntoIter {
        let walk = self.walks.get();
        self.walks.set(walk + 1);
        FickleIter {
            inner: self.seqs[walk % self.seqs.len()].iter(),
            exact: self.exact,
        }
    }
}

fn encoded(strings: &[&[u8]]) -> Vec<u8> {
    let mut buf = vec![0u8; tflite_encoded_len(strings).unwrap()];
    assert_eq!(encode_tflite(strings, &mut buf), Ok(buf.len()));
    buf
}

/// Walk 0 is the one whose `size_hint` is asked; with an exact hint it is also the one
/// written. Without, walk 1 is measured and walk 2 written.
#[test]
fn fickle_clone_neither_panics_nor_overruns() {
    let cases: [&[&[u8]]; 6] = [
        &[b"AB", b"", b"CDE"],
        &[b"AB", b"CDE"],
        &[b"AB", b"", b"CDE", b""],
        &[b"ABCDEFGH", b"", b"CDE"],
        &[b"A", b"", b"CDE"],
        &[],
    ];
    // Under Miri, a subset that still has walks of another length, of another total and
    // of none at all.
    let cases: &[&[&[u8]]] = if cfg!(miri) {
        &[cases[0], cases[1], cases[3], cases[5]]
    } else {
        &cases
    };
    for exact in [true, false] {
        for &a in cases {
            for &b in cases {
                for &c in cases {
                    let walks = Cell::new(0);
                    let seqs = [a, b, c];
                    let fickle = Fickle {
                        walks: &walks,
                        seqs: &seqs,
                        exact,
                    };
                    let mut buf = [0xAAu8; 64];
                    let result = encode_tflite(fickle, &mut buf[..48]);
                    assert!(buf[48..].iter().all(|&x| x == 0xAA));
                    let total = |s: &[&[u8]]| s.iter().map(|s| s.len()).sum::<usize>();
                    let written = if exact {
                        a
                    } else if c.len() == b.len() && total(c) <= total(b) {
                        c
                    } else {
                        assert_eq!(
                            result,
                            Err(TfliteEncodeError::Capacity(CapacityError {
                                needed: tflite_encoded_len(c).unwrap(),
                                available: tflite_encoded_len(b).unwrap(),
                            }))
                        );
                        continue;
                    };
                    let expected = encoded(written);
                    assert_eq!(result, Ok(expected.len()));
                    assert_eq!(buf[..expected.len()], expected[..]);
                    assert!(buf[expected.len()..].iter().all(|&x| x == 0xAA));
                }
            }
        }
    }
}
