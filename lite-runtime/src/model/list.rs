//! [`List`]: a verified vector of tables (subgraphs, tensors, operators...) seen as a list of
//! typed views, indexable and iterable.

use core::fmt;
use core::marker::PhantomData;

use super::reader::{Table, Vector};

/// What every view needs besides its table: the file and the model-level vectors that views
/// resolve indices against (buffers for tensor data, operator codes for operators).
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'a> {
    /// The whole file.
    pub buf: &'a [u8],
    /// `Model.buffers`.
    pub buffers: Vector,
    /// `Model.operator_codes`.
    pub opcodes: Vector,
}

pub(crate) mod sealed {
    use super::{Ctx, Table};

    /// A view built from a verified table.
    pub trait FromTable<'a>: Sized {
        /// The view of table `t`.
        fn from_table(ctx: Ctx<'a>, t: Table, index: usize) -> Self;
    }
}
use sealed::FromTable;

/// A verified list of views (`T` is [`Subgraph`](super::Subgraph), [`Tensor`](super::Tensor),
/// [`Operator`](super::Operator), ...).
#[derive(Clone, Copy)]
pub struct List<'a, T> {
    ctx: Ctx<'a>,
    v: Vector,
    _t: PhantomData<T>,
}

impl<'a, T: FromTable<'a>> List<'a, T> {
    /// Wraps a verified vector of tables.
    pub(crate) fn new(ctx: Ctx<'a>, v: Vector) -> Self {
        Self {
            ctx,
            v,
            _t: PhantomData,
        }
    }

    /// Number of items.
    #[must_use]
    pub fn len(&self) -> usize {
        self.v.len
    }

    /// Whether the list is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.v.len == 0
    }

    /// Item `i`, or `None` past the end.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<T> {
        (i < self.v.len).then(|| T::from_table(self.ctx, self.v.table(self.ctx.buf, i), i))
    }

    /// The items in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = T> + ExactSizeIterator + 'a {
        let (ctx, v) = (self.ctx, self.v);
        (0..v.len).map(move |i| T::from_table(ctx, v.table(ctx.buf, i), i))
    }
}

impl<T> fmt::Debug for List<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("List").field("len", &self.v.len).finish()
    }
}
