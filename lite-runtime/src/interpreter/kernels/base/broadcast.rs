//! NumPy broadcasting over up to [`MAX_DIMS`] dimensions, planned once per call: each input
//! gets a stride per output dimension (0 where it is broadcast), then dimensions of size 1
//! are dropped and neighbours that every input walks contiguously are merged, so a same-shape
//! op is one row, `[2,3,4] + [3,4]` is two rows of 12, and a scalar operand is a row with
//! stride 0. Kernels then run a tight loop per row instead of index math per element.

use super::check::SHORT;
use crate::interpreter::{KernelError, MAX_DIMS, Shape};

/// The shape `a` and `b` broadcast to (TensorFlow Lite's `CalculateShapeForBroadcast`:
/// dimensions aligned from the right, equal or one of them 1; a 0 against a 1 gives 0), or
/// `None` if they do not broadcast.
pub(crate) fn broadcast_shape(a: &Shape, b: &Shape) -> Option<Shape> {
    let rank = a.rank().max(b.rank());
    let mut dims = [0usize; MAX_DIMS];
    let out = dims.get_mut(..rank)?;
    for (i, o) in out.iter_mut().rev().enumerate() {
        let d1 = from_right(a, i);
        let d2 = from_right(b, i);
        if d1 != d2 && d1 != 1 && d2 != 1 {
            return None;
        }
        *o = if d1 == 0 || d2 == 0 { 0 } else { d1.max(d2) };
    }
    Shape::new(out)
}

/// Dimension `i` counted from the right (0 = innermost), 1 past the rank.
fn from_right(s: &Shape, i: usize) -> usize {
    s.rank()
        .checked_sub(i + 1)
        .and_then(|d| s.dim(d))
        .unwrap_or(1)
}

/// How `N` inputs map onto an output: collapsed dimensions and each input's strides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Broadcast<const N: usize> {
    /// Dimensions kept (at least 1).
    rank: usize,
    /// Collapsed output dimensions (the first `rank`).
    dims: [usize; MAX_DIMS],
    /// Per input, its element stride along each collapsed dimension (0: broadcast).
    strides: [[usize; MAX_DIMS]; N],
    /// Output elements.
    elements: usize,
}

const NOT_BROADCAST: KernelError = KernelError::Mismatch {
    what: "input shapes do not broadcast to the output's",
};

impl<const N: usize> Broadcast<N> {
    /// Plans `inputs` broadcast to `out`: every input's rank at most the output's, and each
    /// of its dimensions equal to the output's or 1.
    ///
    /// # Errors
    /// A mismatch otherwise.
    pub(crate) fn new(out: &Shape, inputs: [&Shape; N]) -> Result<Self, KernelError> {
        let rank = out.rank();
        // The common cases, without per-dimension work: every input the output's shape or a
        // single element (the whole output is one row).
        let flat = inputs
            .iter()
            .all(|s| s.rank() <= rank && (s.dims() == out.dims() || s.elements() == 1));
        if flat {
            let mut strides = [[0; MAX_DIMS]; N];
            for (s, input) in strides.iter_mut().zip(&inputs) {
                s[0] = usize::from(input.dims() == out.dims());
            }
            let mut dims = [1; MAX_DIMS];
            dims[0] = out.elements();
            return Ok(Self {
                rank: 1,
                dims,
                strides,
                elements: out.elements(),
            });
        }
        // Full-rank strides first, innermost dimension last.
        let mut full = [[0usize; MAX_DIMS]; N];
        for (k, input) in inputs.iter().enumerate() {
            if input.rank() > rank {
                return Err(NOT_BROADCAST);
            }
            let mut step = 1usize;
            for i in 0..rank {
                let d = rank - 1 - i;
                let od = out.dim(d).ok_or(NOT_BROADCAST)?;
                let id = from_right(input, i);
                let stride = if id == od {
                    step
                } else if id == 1 {
                    0
                } else {
                    return Err(NOT_BROADCAST);
                };
                if let Some(s) = full.get_mut(k).and_then(|f| f.get_mut(d)) {
                    *s = stride;
                }
                step = step.saturating_mul(id);
            }
        }
        // Drop size-1 dimensions; merge a dimension into the kept one before it when every
        // input's outer stride is its inner stride times the inner size (contiguous, or
        // broadcast in both).
        let mut plan = Self {
            rank: 0,
            dims: [1; MAX_DIMS],
            strides: [[0; MAX_DIMS]; N],
            elements: out.elements(),
        };
        for (d, &od) in out.dims().iter().enumerate() {
            if od == 1 {
                continue;
            }
            let merge = plan.rank > 0
                && plan
                    .strides
                    .iter()
                    .zip(&full)
                    .all(|(s, f)| s[plan.rank - 1] == f[d].saturating_mul(od));
            // Merging replaces the last kept dimension; otherwise this one is appended.
            let slot = if merge { plan.rank - 1 } else { plan.rank };
            for (s, f) in plan.strides.iter_mut().zip(&full) {
                s[slot] = f[d];
            }
            plan.dims[slot] = if merge {
                plan.dims[slot].saturating_mul(od)
            } else {
                od
            };
            if !merge {
                plan.rank += 1;
            }
        }
        // A single element: one row of one, every input at offset 0.
        plan.rank = plan.rank.max(1);
        Ok(plan)
    }

    /// Output elements.
    pub(crate) fn elements(&self) -> usize {
        self.elements
    }

    /// Elements per row (the innermost collapsed dimension).
    pub(crate) fn row(&self) -> usize {
        self.dims[self.rank - 1]
    }

    /// Each input's stride along a row (0: the row reads one element).
    pub(crate) fn row_strides(&self) -> [usize; N] {
        let mut s = [0; N];
        for (s, strides) in s.iter_mut().zip(&self.strides) {
            *s = strides[self.rank - 1];
        }
        s
    }

    /// Calls `f(input_offsets, output_offset)` for each row, in output order (rows are
    /// [`row`](Self::row) long and follow each other in the output). Nothing for an empty
    /// output.
    ///
    /// # Errors
    /// The first error `f` returns.
    pub(crate) fn rows(
        &self,
        mut f: impl FnMut([usize; N], usize) -> Result<(), KernelError>,
    ) -> Result<(), KernelError> {
        if self.elements == 0 {
            return Ok(());
        }
        let row = self.row();
        let outer = self.rank - 1;
        let mut index = [0usize; MAX_DIMS];
        let mut offsets = [0usize; N];
        let mut at = 0usize;
        loop {
            f(offsets, at)?;
            at += row;
            // Odometer over the outer dimensions, innermost first.
            let mut d = outer;
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                index[d] += 1;
                if index[d] < self.dims[d] {
                    for (o, s) in offsets.iter_mut().zip(&self.strides) {
                        *o += s[d];
                    }
                    break;
                }
                // Back to the start of this dimension: undo the steps taken along it.
                for (o, s) in offsets.iter_mut().zip(&self.strides) {
                    *o -= s[d] * (self.dims[d] - 1);
                }
                index[d] = 0;
            }
        }
    }
}

/// `out[i] = f(a[..], b[..])` over the broadcast `plan`, with a tight loop per row for the
/// row shapes broadcasting produces (both contiguous, one a repeated element).
///
/// # Errors
/// A mismatch if a slice is shorter than the plan reads or writes.
pub(crate) fn map2<A: Copy, B: Copy, O>(
    plan: &Broadcast<2>,
    a: &[A],
    b: &[B],
    out: &mut [O],
    f: impl Fn(A, B) -> O,
) -> Result<(), KernelError> {
    let n = plan.row();
    let [sa, sb] = plan.row_strides();
    let out = out.get_mut(..plan.elements()).ok_or(SHORT)?;
    plan.rows(|[ia, ib], at| {
        let o = out.get_mut(at..at + n).ok_or(SHORT)?;
        match (sa, sb) {
            (1, 1) => {
                let a = a.get(ia..ia + n).ok_or(SHORT)?;
                let b = b.get(ib..ib + n).ok_or(SHORT)?;
                for ((o, &x), &y) in o.iter_mut().zip(a).zip(b) {
                    *o = f(x, y);
                }
            }
            (0, 1) => {
                let x = *a.get(ia).ok_or(SHORT)?;
                let b = b.get(ib..ib + n).ok_or(SHORT)?;
                for (o, &y) in o.iter_mut().zip(b) {
                    *o = f(x, y);
                }
            }
            (1, 0) => {
                let a = a.get(ia..ia + n).ok_or(SHORT)?;
                let y = *b.get(ib).ok_or(SHORT)?;
                for (o, &x) in o.iter_mut().zip(a) {
                    *o = f(x, y);
                }
            }
            _ => {
                // Not produced by a plan (a row's inner stride is 0 or 1), kept general.
                for (i, o) in o.iter_mut().enumerate() {
                    let x = *a.get(ia + i * sa).ok_or(SHORT)?;
                    let y = *b.get(ib + i * sb).ok_or(SHORT)?;
                    *o = f(x, y);
                }
            }
        }
        Ok(())
    })
}

/// `out[i] = f(ia, ib)` over the broadcast `plan`, given each input's flat element index
/// (for operands that are not slices, such as string tensors).
///
/// # Errors
/// A mismatch if `out` is shorter than the plan writes, or the first error `f` returns.
pub(crate) fn map2_indexed<O>(
    plan: &Broadcast<2>,
    out: &mut [O],
    mut f: impl FnMut(usize, usize) -> Result<O, KernelError>,
) -> Result<(), KernelError> {
    let n = plan.row();
    let [sa, sb] = plan.row_strides();
    let out = out.get_mut(..plan.elements()).ok_or(SHORT)?;
    plan.rows(|[ia, ib], at| {
        let o = out.get_mut(at..at + n).ok_or(SHORT)?;
        for (i, o) in o.iter_mut().enumerate() {
            *o = f(ia + i * sa, ib + i * sb)?;
        }
        Ok(())
    })
}

/// `out[i] = if c[..] { x[..] } else { y[..] }` over the broadcast `plan`.
///
/// # Errors
/// A mismatch if a slice is shorter than the plan reads or writes.
pub(crate) fn select3<T: Copy>(
    plan: &Broadcast<3>,
    c: &[bool],
    x: &[T],
    y: &[T],
    out: &mut [T],
) -> Result<(), KernelError> {
    let n = plan.row();
    let [sc, sx, sy] = plan.row_strides();
    let out = out.get_mut(..plan.elements()).ok_or(SHORT)?;
    plan.rows(|[ic, ix, iy], at| {
        let o = out.get_mut(at..at + n).ok_or(SHORT)?;
        match (sc, sx, sy) {
            (1, 1, 1) => {
                let c = c.get(ic..ic + n).ok_or(SHORT)?;
                let x = x.get(ix..ix + n).ok_or(SHORT)?;
                let y = y.get(iy..iy + n).ok_or(SHORT)?;
                blend(o, c, x.iter().copied(), y.iter().copied());
            }
            (0, _, _) => {
                // One condition for the whole row: the chosen operand's row, or its element
                // repeated.
                let (v, i, s) = if *c.get(ic).ok_or(SHORT)? {
                    (x, ix, sx)
                } else {
                    (y, iy, sy)
                };
                if s == 1 {
                    o.copy_from_slice(v.get(i..i + n).ok_or(SHORT)?);
                } else {
                    o.fill(*v.get(i).ok_or(SHORT)?);
                }
            }
            (1, 0, 1) => {
                let c = c.get(ic..ic + n).ok_or(SHORT)?;
                let x = *x.get(ix).ok_or(SHORT)?;
                let y = y.get(iy..iy + n).ok_or(SHORT)?;
                blend(o, c, core::iter::repeat(x), y.iter().copied());
            }
            (1, 1, 0) => {
                let c = c.get(ic..ic + n).ok_or(SHORT)?;
                let x = x.get(ix..ix + n).ok_or(SHORT)?;
                let y = *y.get(iy).ok_or(SHORT)?;
                blend(o, c, x.iter().copied(), core::iter::repeat(y));
            }
            (1, 0, 0) => {
                let c = c.get(ic..ic + n).ok_or(SHORT)?;
                let x = *x.get(ix).ok_or(SHORT)?;
                let y = *y.get(iy).ok_or(SHORT)?;
                blend(o, c, core::iter::repeat(x), core::iter::repeat(y));
            }
            _ => {
                for (i, o) in o.iter_mut().enumerate() {
                    *o = if *c.get(ic + i * sc).ok_or(SHORT)? {
                        *x.get(ix + i * sx).ok_or(SHORT)?
                    } else {
                        *y.get(iy + i * sy).ok_or(SHORT)?
                    };
                }
            }
        }
        Ok(())
    })
}

/// `o[i] = if c[i] { x[i] } else { y[i] }`, `x` and `y` rows or repeated elements.
#[inline(always)]
fn blend<T: Copy>(o: &mut [T], c: &[bool], x: impl Iterator<Item = T>, y: impl Iterator<Item = T>) {
    for (((o, &c), x), y) in o.iter_mut().zip(c).zip(x).zip(y) {
        *o = if c { x } else { y };
    }
}

/// Inputs 0 and 1 of an element-wise binary op, and output 0: the inputs of one element type,
/// the output of the shape they broadcast to (its type is the caller's to check: comparisons
/// give BOOL). Returns them.
///
/// # Errors
/// [`INPUT_TYPES`](super::check::INPUT_TYPES), a mismatch if the inputs do not broadcast,
/// [`OUTPUT_SHAPE`](super::check::OUTPUT_SHAPE), or a missing operand.
pub(crate) fn binary_operands<'m>(
    ctx: &crate::interpreter::Prepare<'m>,
) -> Result<
    (
        crate::interpreter::Desc<'m>,
        crate::interpreter::Desc<'m>,
        crate::interpreter::Desc<'m>,
    ),
    KernelError,
> {
    let a = ctx.input(0)?;
    let b = ctx.input(1)?;
    let out = ctx.output(0)?;
    super::check::same_type(&a, &b)?;
    let shape = broadcast_shape(&a.shape, &b.shape).ok_or(KernelError::Mismatch {
        what: "input shapes do not broadcast",
    })?;
    super::check::output_shape(&out, &shape)?;
    Ok((a, b, out))
}

#[cfg(test)]
pub(crate) mod naive;
