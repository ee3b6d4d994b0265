//! Iterating a tensor's elements in logical (row-major) order: a plain slice iterator for
//! contiguous tensors, an odometer over lanes otherwise, with `fold` running lane by lane.

use core::iter::FusedIterator;
use core::slice;

use super::Layout;
use super::lanes::{Lanes, fold_lane, lane};

/// Iterator over a tensor's elements in logical order, from [`TensorBase::iter`].
///
/// [`TensorBase::iter`]: super::TensorBase::iter
#[derive(Clone, Debug)]
pub struct Iter<'a, T> {
    inner: Inner<'a, T>,
}

// No allocator to box the strided state in; an iterator lives on the stack briefly anyway.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum Inner<'a, T> {
    Contiguous(slice::Iter<'a, T>),
    Strided(Strided<'a, T>),
}

#[derive(Clone, Debug)]
struct Strided<'a, T> {
    data: &'a [T],
    lanes: Lanes<1>,
    /// Index along each kept axis of the next element.
    index: [usize; super::MAX_RANK],
    /// Position of the next element.
    pos: usize,
    remaining: usize,
}

impl<'a, T> Iter<'a, T> {
    pub(crate) fn new(data: &'a [T], layout: &Layout) -> Self {
        let Some(lanes) = Lanes::new([layout]) else {
            return Self {
                inner: Inner::Contiguous([].iter()),
            };
        };
        let [offset] = lanes.offsets();
        if lanes.rank() == 1 && lanes.lane_stride(0) == 1 {
            let run = lane(data, offset, lanes.lane_len(), 1);
            return Self {
                inner: Inner::Contiguous(run.iter()),
            };
        }
        Self {
            inner: Inner::Strided(Strided {
                data,
                lanes,
                index: [0; super::MAX_RANK],
                pos: offset,
                remaining: layout.len(),
            }),
        }
    }
}

impl<T> Strided<'_, T> {
    /// Steps the odometer at `from_axis` (carrying into the axes before it): the last axis
    /// moves to the next element, the one before it to the start of the next lane.
    #[inline]
    fn advance(&mut self, from_axis: usize) {
        let strides = self.lanes.strides(0);
        let shape = self.lanes.shape();
        let mut axis = from_axis + 1;
        while axis > 0 {
            axis -= 1;
            self.index[axis] += 1;
            if self.index[axis] < shape[axis] {
                self.pos = self.pos.wrapping_add(strides[axis]);
                return;
            }
            self.pos = self
                .pos
                .wrapping_sub(strides[axis].wrapping_mul(shape[axis] - 1));
            self.index[axis] = 0;
        }
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match &mut self.inner {
            Inner::Contiguous(it) => it.next(),
            Inner::Strided(s) => {
                if s.remaining == 0 {
                    return None;
                }
                let Some(item) = s.data.get(s.pos) else {
                    s.remaining = 0;
                    return None;
                };
                s.remaining -= 1;
                s.advance(s.lanes.rank() - 1);
                Some(item)
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }

    #[inline]
    fn fold<B, F: FnMut(B, &'a T) -> B>(self, init: B, mut f: F) -> B {
        match self.inner {
            Inner::Contiguous(it) => it.fold(init, f),
            Inner::Strided(mut s) => {
                let mut acc = init;
                let inner = s.lanes.rank() - 1;
                let len = s.lanes.lane_len();
                let stride = s.lanes.lane_stride(0);
                if inner == 1 && s.index[1] == 0 {
                    // Two axes, at a lane start: walk the outer axis directly.
                    let outer = s.lanes.strides(0)[0];
                    let mut pos = s.pos;
                    for _ in s.index[0]..s.lanes.shape()[0] {
                        acc = fold_lane(s.data, pos, len, stride, acc, &mut f);
                        pos = pos.wrapping_add(outer);
                    }
                    return acc;
                }
                if inner == 2 && s.index[1] == 0 && s.index[2] == 0 {
                    // Three axes, at a plane start: walk the two outer axes directly.
                    let (outer, middle) = (s.lanes.strides(0)[0], s.lanes.strides(0)[1]);
                    let rows = s.lanes.shape()[1];
                    let mut plane = s.pos;
                    for _ in s.index[0]..s.lanes.shape()[0] {
                        let mut pos = plane;
                        for _ in 0..rows {
                            acc = fold_lane(s.data, pos, len, stride, acc, &mut f);
                            pos = pos.wrapping_add(middle);
                        }
                        plane = plane.wrapping_add(outer);
                    }
                    return acc;
                }
                while s.remaining > 0 {
                    // The rest of the current lane (all of it, except after a partial `next`).
                    let done = s.index[inner];
                    let n = (len - done).min(s.remaining);
                    if lane(s.data, s.pos, n, stride).is_empty() {
                        break;
                    }
                    acc = fold_lane(s.data, s.pos, n, stride, acc, &mut f);
                    s.remaining -= n;
                    // Back to the lane start, then on to the next lane.
                    s.pos = s.pos.wrapping_sub(stride.wrapping_mul(done));
                    s.index[inner] = 0;
                    if inner == 0 {
                        break;
                    }
                    s.advance(inner - 1);
                }
                acc
            }
        }
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {
    fn len(&self) -> usize {
        match &self.inner {
            Inner::Contiguous(it) => it.len(),
            Inner::Strided(s) => s.remaining,
        }
    }
}

impl<T> FusedIterator for Iter<'_, T> {}
