//! Deeplearning4j's INT64 encoding of view indices (ADR 0021, `CreateView`), decoded and
//! encoded. Each index is `type, count, stride, offsets…, inclusive`:
//!
//! | index | words |
//! | --- | --- |
//! | point | `[0, 1, 1, offset, inclusive]` |
//! | interval | `[1, 2, 1, start, end, stride, inclusive]` |
//! | all | `[2, 0, 1, inclusive]` |
//! | new axis | `[3, 1, 1, 0, inclusive]`, or the Java spelling `[3, 1, 10, inclusive]` |
//!
//! The decoder checks every word before it reads the next and never reads past the array
//! (DL4J's own op reads past its index vectors and mishandles inclusive ends): a malformed
//! encoding is an [`IndexDecodeError`] naming the position of the `i64` at fault. The encoder
//! writes the canonical forms (inclusive flag 1 for point, all and new axis).

use super::{IndexDecodeError, ViewIndex};
use crate::error::CapacityError;

/// Type word of a point.
pub const POINT_TYPE: i64 = 0;
/// Type word of an interval.
pub const INTERVAL_TYPE: i64 = 1;
/// Type word of "all".
pub const ALL_TYPE: i64 = 2;
/// Type word of a new axis.
pub const NEW_AXIS_TYPE: i64 = 3;

/// Words in the encoding of `index`.
pub const fn encoded_len(index: &ViewIndex) -> usize {
    match index {
        ViewIndex::Point(_) => 5,
        ViewIndex::Interval { .. } => 7,
        ViewIndex::All => 4,
        ViewIndex::NewAxis => 5,
    }
}

/// Words in the encoding of all of `indices`.
pub fn encoded_indices_len(indices: &[ViewIndex]) -> usize {
    indices.iter().map(encoded_len).sum()
}

/// Writes the encoding of `index` at the start of `out`; returns the words written.
///
/// An interval is written as given; one with a stride below 1 will not decode.
///
/// Errors: [`CapacityError`] (in words) if `out` is too short; nothing is written then.
pub fn encode_index(index: &ViewIndex, out: &mut [i64]) -> Result<usize, CapacityError> {
    let n = encoded_len(index);
    let Some(out) = out.get_mut(..n) else {
        return Err(CapacityError {
            needed: n,
            available: out.len(),
        });
    };
    match *index {
        ViewIndex::Point(i) => out.copy_from_slice(&[POINT_TYPE, 1, 1, i, 1]),
        ViewIndex::Interval {
            start,
            end,
            stride,
            inclusive,
        } => out.copy_from_slice(&[
            INTERVAL_TYPE,
            2,
            1,
            start,
            end,
            stride,
            i64::from(inclusive),
        ]),
        ViewIndex::All => out.copy_from_slice(&[ALL_TYPE, 0, 1, 1]),
        ViewIndex::NewAxis => out.copy_from_slice(&[NEW_AXIS_TYPE, 1, 1, 0, 1]),
    }
    Ok(n)
}

/// Writes the encodings of `indices` back to back; returns the words written.
///
/// Errors: [`CapacityError`] (in words, for all of them) if `out` is too short.
pub fn encode_indices(indices: &[ViewIndex], out: &mut [i64]) -> Result<usize, CapacityError> {
    let needed = encoded_indices_len(indices);
    if out.len() < needed {
        return Err(CapacityError {
            needed,
            available: out.len(),
        });
    }
    let mut at = 0;
    for index in indices {
        at += encode_index(index, &mut out[at..])?;
    }
    Ok(at)
}

/// Decodes the index that starts at `words[at]`; returns it and the words it used.
///
/// Errors: any [`IndexDecodeError`] but [`TooMany`](IndexDecodeError::TooMany), with
/// positions in `words`.
pub fn decode_index(words: &[i64], at: usize) -> Result<(ViewIndex, usize), IndexDecodeError> {
    let rest = words.get(at..).unwrap_or(&[]);
    let truncated = |needed: usize| IndexDecodeError::Truncated {
        position: at,
        needed,
        available: rest.len(),
    };
    let Some(&kind) = rest.first() else {
        return Err(truncated(4));
    };
    let needed = match kind {
        POINT_TYPE => 5,
        INTERVAL_TYPE => 7,
        ALL_TYPE => 4,
        NEW_AXIS_TYPE => match rest.get(2) {
            Some(10) => 4,
            Some(_) => 5,
            None => return Err(truncated(4)),
        },
        found => {
            return Err(IndexDecodeError::UnknownType {
                position: at,
                found,
            });
        }
    };
    let Some(w) = rest.get(..needed) else {
        return Err(truncated(needed));
    };
    let field = |i: usize, expected: i64| {
        if w[i] == expected {
            Ok(())
        } else {
            Err(IndexDecodeError::BadField {
                position: at + i,
                expected,
                found: w[i],
            })
        }
    };
    let flag = |i: usize| match w[i] {
        0 => Ok(false),
        1 => Ok(true),
        found => Err(IndexDecodeError::BadFlag {
            position: at + i,
            found,
        }),
    };
    let index = match kind {
        POINT_TYPE => {
            field(1, 1)?;
            field(2, 1)?;
            flag(4)?;
            ViewIndex::Point(w[3])
        }
        INTERVAL_TYPE => {
            field(1, 2)?;
            field(2, 1)?;
            if w[5] < 1 {
                return Err(IndexDecodeError::BadStride {
                    position: at + 5,
                    found: w[5],
                });
            }
            ViewIndex::Interval {
                start: w[3],
                end: w[4],
                stride: w[5],
                inclusive: flag(6)?,
            }
        }
        ALL_TYPE => {
            field(1, 0)?;
            field(2, 1)?;
            flag(3)?;
            ViewIndex::All
        }
        _ => {
            field(1, 1)?;
            if needed == 4 {
                flag(3)?;
            } else {
                field(2, 1)?;
                field(3, 0)?;
                flag(4)?;
            }
            ViewIndex::NewAxis
        }
    };
    Ok((index, needed))
}

/// The indices encoded back to back in `words`, decoded one by one; stops after the first
/// error.
///
/// ```
/// use tessera_core::view::{ViewIndex, dl4j};
///
/// let words = [1, 2, 1, 0, 4, 2, 1, /**/ 3, 1, 10, 1, /**/ 0, 1, 1, -1, 1];
/// let mut it = dl4j::Indices::new(&words);
/// assert_eq!(it.next(), Some(Ok(ViewIndex::Interval { start: 0, end: 4, stride: 2, inclusive: true })));
/// assert_eq!(it.next(), Some(Ok(ViewIndex::NewAxis)));
/// assert_eq!(it.next(), Some(Ok(ViewIndex::Point(-1))));
/// assert_eq!(it.next(), None);
/// ```
#[derive(Debug, Clone)]
pub struct Indices<'a> {
    words: &'a [i64],
    at: usize,
    failed: bool,
}

impl<'a> Indices<'a> {
    /// Decodes `words`.
    pub fn new(words: &'a [i64]) -> Self {
        Self {
            words,
            at: 0,
            failed: false,
        }
    }
}

impl Iterator for Indices<'_> {
    type Item = Result<ViewIndex, IndexDecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.at >= self.words.len() {
            return None;
        }
        match decode_index(self.words, self.at) {
            Ok((index, used)) => {
                self.at += used;
                Some(Ok(index))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Indices<'_> {}

/// Decodes all the indices in `words` into `out`; returns how many there were.
///
/// Errors: any [`IndexDecodeError`]; [`TooMany`](IndexDecodeError::TooMany) if `out` is
/// too short.
pub fn decode_indices(words: &[i64], out: &mut [ViewIndex]) -> Result<usize, IndexDecodeError> {
    let mut n = 0;
    let mut at = 0;
    while at < words.len() {
        let (index, used) = decode_index(words, at)?;
        let Some(slot) = out.get_mut(n) else {
            return Err(IndexDecodeError::TooMany {
                position: at,
                max: out.len(),
            });
        };
        *slot = index;
        n += 1;
        at += used;
    }
    Ok(n)
}
