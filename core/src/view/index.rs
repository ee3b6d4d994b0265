//! The index descriptors of a view, one per axis: nd4j's point, interval, all and new axis.

use core::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// How one axis (or, for [`NewAxis`](ViewIndex::NewAxis), no axis) of a view is chosen. Where
/// numpy has the same case, the meaning is numpy basic slicing's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ViewIndex {
    /// One position, dropping the axis (`a[i]`). Negative positions count from the end; out of
    /// range, even after that, is an error.
    Point(i64),
    /// Every `stride`-th position from `start` up to `end` (`a[start:end:stride]`). Negative
    /// bounds count from the end, bounds out of range are clamped, an empty range gives length
    /// 0. `inclusive` makes `end` itself included (DL4J's flag; numpy has none). `stride` must
    /// be at least 1.
    Interval {
        /// First position.
        start: i64,
        /// End position, excluded unless `inclusive`.
        end: i64,
        /// Step between positions (at least 1).
        stride: i64,
        /// Whether `end` is included.
        inclusive: bool,
    },
    /// The whole axis (`a[:]`); trailing axes with no index are `All`.
    All,
    /// A new axis of length 1 (`a[None]` / `np.newaxis`), consuming no axis.
    NewAxis,
}

impl ViewIndex {
    /// `start..end`, step 1, end excluded.
    pub const fn interval(start: i64, end: i64) -> Self {
        Self::Interval {
            start,
            end,
            stride: 1,
            inclusive: false,
        }
    }

    /// `start..end` every `stride`-th position, end excluded.
    pub const fn interval_by(start: i64, end: i64, stride: i64) -> Self {
        Self::Interval {
            start,
            end,
            stride,
            inclusive: false,
        }
    }

    /// `start..` to the end of the axis, every `stride`-th position.
    pub const fn from_by(start: i64, stride: i64) -> Self {
        Self::interval_by(start, i64::MAX, stride)
    }
}

impl From<i64> for ViewIndex {
    fn from(i: i64) -> Self {
        Self::Point(i)
    }
}

impl From<Range<i64>> for ViewIndex {
    fn from(r: Range<i64>) -> Self {
        Self::interval(r.start, r.end)
    }
}

impl From<RangeInclusive<i64>> for ViewIndex {
    fn from(r: RangeInclusive<i64>) -> Self {
        Self::Interval {
            start: *r.start(),
            end: *r.end(),
            stride: 1,
            inclusive: true,
        }
    }
}

impl From<RangeFrom<i64>> for ViewIndex {
    fn from(r: RangeFrom<i64>) -> Self {
        Self::interval(r.start, i64::MAX)
    }
}

impl From<RangeTo<i64>> for ViewIndex {
    fn from(r: RangeTo<i64>) -> Self {
        Self::interval(0, r.end)
    }
}

impl From<RangeToInclusive<i64>> for ViewIndex {
    fn from(r: RangeToInclusive<i64>) -> Self {
        Self::Interval {
            start: 0,
            end: r.end,
            stride: 1,
            inclusive: true,
        }
    }
}

impl From<RangeFull> for ViewIndex {
    fn from(_: RangeFull) -> Self {
        Self::All
    }
}

/// Position chosen by a point on an axis of length `len`, or `None` if out of range.
pub(crate) fn resolve_point(index: i64, len: usize) -> Option<usize> {
    let len = len as i128;
    let mut i = i128::from(index);
    if i < 0 {
        i += len;
    }
    if (0..len).contains(&i) {
        usize::try_from(i).ok()
    } else {
        None
    }
}

/// First position and length chosen by an interval on an axis of length `len` (`stride >= 1`),
/// with numpy's clamping (`PySlice_AdjustIndices` for a positive step). An empty interval
/// starts at 0, as numpy's views do.
pub(crate) fn resolve_interval(
    start: i64,
    end: i64,
    stride: i64,
    inclusive: bool,
    len: usize,
) -> (usize, usize) {
    let len = len as i128;
    let mut s = i128::from(start);
    if s < 0 {
        s = (s + len).max(0);
    } else if s > len {
        s = len;
    }
    let mut e = i128::from(end);
    if e < 0 {
        e += len;
    }
    if inclusive {
        e += 1;
    }
    let e = e.clamp(0, len);
    if e <= s {
        return (0, 0);
    }
    let n = (e - s - 1) / i128::from(stride.max(1)) + 1;
    // Both are at most `len`, which came from a usize.
    (s as usize, n as usize)
}
