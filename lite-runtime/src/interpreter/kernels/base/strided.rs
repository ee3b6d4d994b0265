//! A strided read of a row-major tensor: output element `(i_0, .., i_r)` is source element
//! `base + sum i_k * step_k`, steps signed. SLICE, STRIDED_SLICE, TRANSPOSE, REVERSE_V2,
//! DEPTH_TO_SPACE and SPACE_TO_DEPTH each compute a [`Plan`] from their operands and one copy
//! loop runs them (whole rows where the innermost step is 1).
//!
//! tessera-core's views (`ViewIndex`) take strides of at least 1 and refuse out-of-range
//! points, while TensorFlow Lite's strided slice walks backwards and clamps; the plan holds
//! signed steps instead.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::tensors::{words, words_mut};
use crate::interpreter::{KernelError, MAX_DIMS};

/// Source positions of a strided copy: output dimensions `count`, source steps `step` (in
/// elements, signed), first source element `base`.
///
/// Plain bytes, so that a plan computed from constant operands is kept in the operator's
/// persistent bytes at setup and read back at every invoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Plan {
    rank: usize,
    count: [usize; MAX_DIMS],
    step: [isize; MAX_DIMS],
    /// First source element.
    pub(crate) base: usize,
}

pub(crate) const BAD_PLAN: KernelError = KernelError::Mismatch {
    what: "a strided read outside its source",
};

impl Plan {
    /// A plan of no dimension reading element 0.
    pub(crate) fn new() -> Self {
        Self {
            rank: 0,
            count: [1; MAX_DIMS],
            step: [0; MAX_DIMS],
            base: 0,
        }
    }

    /// Appends an output dimension of `count` elements walking the source by `step`.
    ///
    /// # Errors
    /// A mismatch past [`MAX_DIMS`] dimensions.
    pub(crate) fn push(&mut self, count: usize, step: isize) -> Result<(), KernelError> {
        let (c, s) = (
            self.count.get_mut(self.rank).ok_or(BAD_PLAN)?,
            self.step.get_mut(self.rank).ok_or(BAD_PLAN)?,
        );
        *c = count;
        *s = step;
        self.rank += 1;
        Ok(())
    }

    /// Output elements.
    pub(crate) fn elements(&self) -> usize {
        self.count[..self.rank].iter().product()
    }

    /// The same reads with size-1 dimensions dropped and dimensions that walk the source
    /// contiguously merged, so that whole runs are copied at once.
    pub(crate) fn simplified(&self) -> Self {
        let mut out = Self::new();
        out.base = self.base;
        if self.elements() == 0 {
            let _ = out.push(0, 1);
            return out;
        }
        for k in 0..self.rank {
            let (c, s) = (self.count[k], self.step[k]);
            if c == 1 {
                continue;
            }
            if out.rank > 0 {
                let last = out.rank - 1;
                let (lc, ls) = (out.count[last], out.step[last]);
                if isize::try_from(c).ok().and_then(|c| c.checked_mul(s)) == Some(ls) {
                    out.count[last] = lc * c;
                    out.step[last] = s;
                    continue;
                }
            }
            let _ = out.push(c, s);
        }
        out
    }

    /// Source positions in output order.
    pub(crate) fn positions(&self) -> Positions {
        let p = self.simplified();
        Positions {
            plan: p,
            idx: [0; MAX_DIMS],
            at: p.base as isize,
            left: p.elements(),
        }
    }

    /// Copies the planned elements of `src` into `dst` (exactly [`elements`](Self::elements)
    /// long).
    pub(crate) fn copy<W: Copy>(&self, src: &[W], dst: &mut [W]) -> Result<(), KernelError> {
        let p = self.simplified();
        let total = p.elements();
        let dst = dst.get_mut(..total).ok_or(BAD_PLAN)?;
        if total == 0 {
            return Ok(());
        }
        if p.rank == 0 {
            dst[0] = *src.get(p.base).ok_or(BAD_PLAN)?;
            return Ok(());
        }
        let r = p.rank;
        let (inner, istep) = (p.count[r - 1], p.step[r - 1]);
        let mut idx = [0usize; MAX_DIMS];
        let mut at = p.base as isize;
        for row in dst.chunks_exact_mut(inner) {
            let start = usize::try_from(at).map_err(|_| BAD_PLAN)?;
            if istep == 1 {
                row.copy_from_slice(src.get(start..start + inner).ok_or(BAD_PLAN)?);
            } else {
                let mut q = at;
                for d in row.iter_mut() {
                    *d = *usize::try_from(q)
                        .ok()
                        .and_then(|q| src.get(q))
                        .ok_or(BAD_PLAN)?;
                    q += istep;
                }
            }
            advance(&p, &mut idx, &mut at, r - 1);
        }
        Ok(())
    }
}

/// Moves the odometer over dimensions `..dims` one step.
fn advance(p: &Plan, idx: &mut [usize; MAX_DIMS], at: &mut isize, dims: usize) {
    let mut k = dims;
    while k > 0 {
        k -= 1;
        idx[k] += 1;
        *at += p.step[k];
        if idx[k] < p.count[k] {
            return;
        }
        *at -= p.step[k] * p.count[k] as isize;
        idx[k] = 0;
    }
}

/// The source positions of a [`Plan`], in output order.
#[derive(Debug, Clone)]
pub(crate) struct Positions {
    plan: Plan,
    idx: [usize; MAX_DIMS],
    at: isize,
    left: usize,
}

impl Iterator for Positions {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let here = usize::try_from(self.at).ok();
        let r = self.plan.rank;
        advance(&self.plan, &mut self.idx, &mut self.at, r);
        here
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Positions {}

/// Row-major element strides of `dims`.
pub(crate) fn strides(dims: &[usize]) -> [isize; MAX_DIMS] {
    let mut s = [0isize; MAX_DIMS];
    let mut acc = 1isize;
    for (k, &d) in dims.iter().enumerate().rev() {
        if let Some(slot) = s.get_mut(k) {
            *slot = acc;
        }
        acc = acc.saturating_mul(d as isize);
    }
    s
}

/// Runs `plan` over elements of `element` bytes (1, 2, 4 or 8).
///
/// # Errors
/// A mismatch if a read falls outside `src` or `dst` is short; other element sizes are
/// unsupported.
pub(crate) fn copy_plan(
    plan: &Plan,
    element: usize,
    src: &[u8],
    dst: &mut [u8],
) -> Result<(), KernelError> {
    match element {
        1 => plan.copy(src, dst),
        2 => plan.copy(words::<u16>(src)?, words_mut::<u16>(dst)?),
        4 => plan.copy(words::<u32>(src)?, words_mut::<u32>(dst)?),
        8 => plan.copy(words::<u64>(src)?, words_mut::<u64>(dst)?),
        _ => Err(KernelError::Unsupported {
            what: "element size",
        }),
    }
}
