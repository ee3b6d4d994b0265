//! FULLY_CONNECTED over sparse weights, read in their stored form: the dense matrix is never
//! built. `init` turns the model's sparsity metadata into a compact row index in persistent
//! memory ([`Plan`], [`build`]); `eval` multiplies with it ([`matvec`]).
//!
//! The index: `rows[n]..rows[n + 1]` are the entries of output unit `n`; entry `e` covers
//! `run` consecutive columns from `cols[e]`. When the stored order visits the rows in order
//! (CSR, and 1 x k blocks, the converter's forms) the values of entry `e` are
//! `values[e * run..][..run]` and no more is stored; otherwise (`indexed`: columns-first
//! traversals, r x k blocks) `run` is 1 and `vidx[e]` is the entry's value. Columns are u16
//! when the depth allows, else u32.
//!
//! Each unit sums its non-zeros in storage order, as LiteRT's sparse kernels do. `init`
//! requires the columns of a unit to be strictly increasing, so storage order is also the
//! `k` order of the dense kernel and a repeated position (which DENSIFY overwrites) cannot
//! be summed twice.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::base::fused::clamp;
use super::super::base::sparsity::SparseFormat;
use crate::interpreter::KernelError;

const fn bad(what: &'static str) -> KernelError {
    KernelError::Mismatch { what }
}

/// How the row index is laid out, decided in `prepare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Plan {
    /// Consecutive columns per entry.
    pub run: u32,
    /// Entries (stored values / run).
    pub entries: u32,
    /// Non-zero: entries carry value indices (`vidx`).
    pub indexed: u32,
    /// Non-zero: columns are u32, else u16.
    pub wide: u32,
}

impl Plan {
    /// Decides the layout for `units x depth` weights stored in format `f` with `values`
    /// values.
    pub(crate) fn new(
        f: &SparseFormat<'_>,
        units: usize,
        depth: usize,
        values: usize,
    ) -> Result<Self, KernelError> {
        if f.shape() != [units, depth] {
            return Err(bad("sparse weights' shape differs from units x depth"));
        }
        // 1 x k blocks (block map [1]) come in runs of k columns.
        let (map, size) = f.blocks();
        let candidate = match (map, size) {
            ([1], [k]) => *k,
            _ => 1,
        };
        let (mut in_order, mut runs) = (true, true);
        let (mut last_n, mut last_k) = (0usize, 0usize);
        let count = f.walk(|e, flat| {
            let (n, k) = (flat / depth, flat % depth);
            if e > 0 && n < last_n {
                in_order = false;
            }
            if e % candidate != 0 && (e == 0 || n != last_n || k != last_k + 1) {
                runs = false;
            }
            (last_n, last_k) = (n, k);
            Ok(())
        })?;
        if count > values {
            return Err(bad("sparsity metadata addresses more values than stored"));
        }
        let run = if in_order && runs && count % candidate == 0 {
            candidate
        } else {
            1
        };
        let n = |v: usize| u32::try_from(v).map_err(|_| bad("sparse weights over u32 values"));
        Ok(Plan {
            run: n(run)?,
            entries: n(count / run)?,
            indexed: u32::from(!in_order),
            wide: u32::from(depth > usize::from(u16::MAX) + 1),
        })
    }

    /// Persistent bytes the index takes for `units` output units.
    pub(crate) fn bytes(&self, units: usize) -> Option<usize> {
        let entries = self.entries as usize;
        let rows = units.checked_add(1)?.checked_mul(4)?;
        let vidx = if self.indexed != 0 {
            entries.checked_mul(4)?
        } else {
            0
        };
        let cols = entries.checked_mul(if self.wide != 0 { 4 } else { 2 })?;
        rows.checked_add(vidx)?.checked_add(cols)
    }

    /// Splits `bytes` into the index's parts (`rows`, `vidx`, `cols`).
    fn split(self, units: usize, bytes: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
        let entries = self.entries as usize;
        let (rows, rest) = bytes.split_at_checked(units.checked_add(1)?.checked_mul(4)?)?;
        let (vidx, rest) =
            rest.split_at_checked(if self.indexed != 0 { entries * 4 } else { 0 })?;
        let cols = rest.get(..entries.checked_mul(if self.wide != 0 { 4 } else { 2 })?)?;
        Some((rows, vidx, cols))
    }

    fn split_mut(
        self,
        units: usize,
        bytes: &mut [u8],
    ) -> Option<(&mut [u8], &mut [u8], &mut [u8])> {
        let entries = self.entries as usize;
        let (rows, rest) = bytes.split_at_mut_checked(units.checked_add(1)?.checked_mul(4)?)?;
        let (vidx, rest) =
            rest.split_at_mut_checked(if self.indexed != 0 { entries * 4 } else { 0 })?;
        let cols = rest.get_mut(..entries.checked_mul(if self.wide != 0 { 4 } else { 2 })?)?;
        Some((rows, vidx, cols))
    }
}

const LAYOUT: KernelError = KernelError::Mismatch {
    what: "sparse weights' index does not fit its persistent bytes",
};
const ORDER: KernelError = KernelError::Unsupported {
    what: "sparse weights whose columns repeat or go backwards within a row",
};

/// Columns, in the width the plan chose.
#[derive(Clone, Copy)]
enum Cols<'a> {
    Narrow(&'a [u16]),
    Wide(&'a [u32]),
}

enum ColsMut<'a> {
    Narrow(&'a mut [u16]),
    Wide(&'a mut [u32]),
}

impl ColsMut<'_> {
    fn set(&mut self, e: usize, k: usize) -> Result<(), KernelError> {
        match self {
            Self::Narrow(c) => {
                *c.get_mut(e).ok_or(LAYOUT)? = u16::try_from(k).map_err(|_| LAYOUT)?
            }
            Self::Wide(c) => *c.get_mut(e).ok_or(LAYOUT)? = u32::try_from(k).map_err(|_| LAYOUT)?,
        }
        Ok(())
    }

    fn get(&self, e: usize) -> Option<usize> {
        match self {
            Self::Narrow(c) => c.get(e).map(|&v| usize::from(v)),
            Self::Wide(c) => c.get(e).map(|&v| v as usize),
        }
    }
}

/// Fills `persistent` with the row index of `units x depth` weights stored in format `f`,
/// laid out as `plan` says.
pub(crate) fn build(
    f: &SparseFormat<'_>,
    plan: Plan,
    units: usize,
    depth: usize,
    persistent: &mut [u8],
) -> Result<(), KernelError> {
    let (rows, vidx, cols) = plan.split_mut(units, persistent).ok_or(LAYOUT)?;
    let rows = <[u32]>::mut_from_bytes(rows).map_err(|_| LAYOUT)?;
    let vidx = <[u32]>::mut_from_bytes(vidx).map_err(|_| LAYOUT)?;
    let mut cols = if plan.wide != 0 {
        ColsMut::Wide(<[u32]>::mut_from_bytes(cols).map_err(|_| LAYOUT)?)
    } else {
        ColsMut::Narrow(<[u16]>::mut_from_bytes(cols).map_err(|_| LAYOUT)?)
    };
    rows.fill(0);
    let run = plan.run as usize;
    let entries = plan.entries as usize;
    let count = |rows: &mut [u32], flat: usize| -> Result<usize, KernelError> {
        let n = flat / depth;
        let r = rows.get_mut(n + 1).ok_or(LAYOUT)?;
        *r = r.checked_add(1).ok_or(LAYOUT)?;
        Ok(n)
    };
    if plan.indexed == 0 {
        // Rows come in order: entry e is leaves e * run .. (e + 1) * run.
        let (mut last_n, mut last_k) = (0usize, None::<usize>);
        f.walk(|leaf, flat| {
            let (n, k) = (flat / depth, flat % depth);
            if n < last_n {
                return Err(LAYOUT);
            }
            if n != last_n {
                last_k = None;
            }
            if last_k.is_some_and(|l| k <= l) {
                return Err(ORDER);
            }
            (last_n, last_k) = (n, Some(k));
            if leaf % run == 0 && leaf / run < entries {
                cols.set(leaf / run, k)?;
                count(rows, flat)?;
            }
            Ok(())
        })?;
    } else {
        // Any order: count per row, then place each value at its row's cursor.
        f.walk(|leaf, flat| {
            if leaf < entries {
                count(rows, flat)?;
            }
            Ok(())
        })?;
        prefix(rows)?;
        f.walk(|leaf, flat| {
            if leaf >= entries {
                return Ok(());
            }
            let (n, k) = (flat / depth, flat % depth);
            let cursor = rows.get_mut(n).ok_or(LAYOUT)?;
            let at = *cursor as usize;
            *cursor += 1;
            *vidx.get_mut(at).ok_or(LAYOUT)? = u32::try_from(leaf).map_err(|_| LAYOUT)?;
            cols.set(at, k)
        })?;
        // rows[n] now ends row n: shift them to starts.
        let len = rows.len();
        rows.copy_within(..len.saturating_sub(1), 1);
        if let Some(r) = rows.first_mut() {
            *r = 0;
        }
        for w in rows.windows(2) {
            let (s, e) = (w[0] as usize, w[1] as usize);
            for a in s + 1..e {
                let (x, y) = (cols.get(a - 1).ok_or(LAYOUT)?, cols.get(a).ok_or(LAYOUT)?);
                if y <= x {
                    return Err(ORDER);
                }
            }
        }
        return Ok(());
    }
    prefix(rows)
}

/// Per-row counts in `rows[1..]` to row starts.
fn prefix(rows: &mut [u32]) -> Result<(), KernelError> {
    let mut acc = 0u32;
    for r in rows.iter_mut() {
        acc = acc.checked_add(*r).ok_or(LAYOUT)?;
        *r = acc;
    }
    Ok(())
}

/// The row index [`build`] wrote, viewed for `eval`.
#[derive(Clone, Copy)]
pub(crate) struct RowIndex<'a> {
    rows: &'a [u32],
    vidx: &'a [u32],
    cols: Cols<'a>,
    run: usize,
}

impl<'a> RowIndex<'a> {
    /// Views `persistent` as the index `plan` describes for `units` units.
    pub(crate) fn view(
        plan: Plan,
        units: usize,
        persistent: &'a [u8],
    ) -> Result<Self, KernelError> {
        let (rows, vidx, cols) = plan.split(units, persistent).ok_or(LAYOUT)?;
        Ok(Self {
            rows: <[u32]>::ref_from_bytes(rows).map_err(|_| LAYOUT)?,
            vidx: <[u32]>::ref_from_bytes(vidx).map_err(|_| LAYOUT)?,
            cols: if plan.wide != 0 {
                Cols::Wide(<[u32]>::ref_from_bytes(cols).map_err(|_| LAYOUT)?)
            } else {
                Cols::Narrow(<[u16]>::ref_from_bytes(cols).map_err(|_| LAYOUT)?)
            },
            run: (plan.run as usize).max(1),
        })
    }
}

/// A column of any width.
trait Col: Copy {
    fn at(self) -> usize;
}
impl Col for u16 {
    #[inline(always)]
    fn at(self) -> usize {
        usize::from(self)
    }
}
impl Col for u32 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

/// Shapes and activation of one sparse FULLY_CONNECTED.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dims {
    /// Rows of the input.
    pub batches: usize,
    /// Input values per row.
    pub depth: usize,
    /// Output units.
    pub units: usize,
    /// Fused activation's range.
    pub lo: f32,
    /// Fused activation's range.
    pub hi: f32,
}

const SHORT: KernelError = KernelError::Mismatch {
    what: "sparse weights' index points past a tensor",
};

/// One multiply-accumulate of a stored weight `V` and an input `X` into an accumulator.
pub(crate) trait Mac<V, X>: Copy {
    /// `self + v x`, as the kernel sums.
    fn mac(self, v: V, x: X) -> Self;
}

impl Mac<f32, f32> for f32 {
    #[inline(always)]
    fn mac(self, v: f32, x: f32) -> f32 {
        self + v * x
    }
}

impl Mac<i8, i8> for i32 {
    #[inline(always)]
    fn mac(self, v: i8, x: i8) -> i32 {
        self.wrapping_add(i32::from(v) * i32::from(x))
    }
}

impl Mac<i8, i16> for i64 {
    #[inline(always)]
    fn mac(self, v: i8, x: i16) -> i64 {
        self.wrapping_add(i64::from(i32::from(v) * i32::from(x)))
    }
}

/// For each unit `n` of one input row `x`, `f(n, sum over the stored (n, k) of w * x[k])`,
/// each unit summed in storage order from `zero`.
#[inline(always)]
pub(crate) fn unit_dots<V: Copy, X: Copy, A: Mac<V, X>>(
    index: &RowIndex<'_>,
    values: &[V],
    x: &[X],
    units: usize,
    zero: A,
    mut f: impl FnMut(usize, A) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let rows = index.rows.get(..units + 1).ok_or(SHORT)?;
    for (n, w) in rows.windows(2).enumerate() {
        let (s, e) = (w[0] as usize, w[1] as usize);
        let acc = match (index.cols, index.vidx.is_empty(), index.run) {
            (Cols::Narrow(c), true, 1) => runs::<1, _, _, _, _>(values, x, c, s, e, zero)?,
            (Cols::Narrow(c), true, 4) => runs::<4, _, _, _, _>(values, x, c, s, e, zero)?,
            (Cols::Narrow(c), true, 16) => runs::<16, _, _, _, _>(values, x, c, s, e, zero)?,
            (Cols::Narrow(c), true, r) => runs_dyn(values, x, c, s, e, r, zero)?,
            (Cols::Wide(c), true, r) => runs_dyn(values, x, c, s, e, r, zero)?,
            (Cols::Narrow(c), false, _) => indexed(values, x, c, index.vidx, s, e, zero)?,
            (Cols::Wide(c), false, _) => indexed(values, x, c, index.vidx, s, e, zero)?,
        };
        f(n, acc)?;
    }
    Ok(())
}

/// `out[b, n] = act(sum over the stored (n, k) of w * input[b, k] + bias[n])`, each unit
/// summed in storage order from 0, then the bias added, as LiteRT's sparse kernels do.
pub(crate) fn matvec(
    index: &RowIndex<'_>,
    values: &[f32],
    input: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    d: Dims,
) -> Result<(), KernelError> {
    let input = input.get(..d.batches * d.depth).ok_or(SHORT)?;
    let out = out.get_mut(..d.batches * d.units).ok_or(SHORT)?;
    if d.depth == 0 {
        return Err(SHORT);
    }
    index.rows.get(..d.units + 1).ok_or(SHORT)?;
    if d.units == 0 {
        return Ok(());
    }
    for (x, y) in input
        .chunks_exact(d.depth)
        .zip(out.chunks_exact_mut(d.units))
    {
        unit_dots(index, values, x, d.units, 0.0f32, |n, acc| {
            let b = bias.and_then(|b| b.get(n)).copied().unwrap_or(0.0);
            *y.get_mut(n).ok_or(SHORT)? = clamp(acc + b, d.lo, d.hi);
            Ok(())
        })?;
    }
    Ok(())
}

#[inline(always)]
fn runs<const L: usize, C: Col, V: Copy, X: Copy, A: Mac<V, X>>(
    values: &[V],
    x: &[X],
    cols: &[C],
    s: usize,
    e: usize,
    zero: A,
) -> Result<A, KernelError> {
    let cols = cols.get(s..e).ok_or(SHORT)?;
    let vals = values.get(s * L..e * L).ok_or(SHORT)?;
    let mut acc = zero;
    for (v, &c) in vals.chunks_exact(L).zip(cols) {
        let xs = x.get(c.at()..c.at() + L).ok_or(SHORT)?;
        for (&a, &b) in v.iter().zip(xs) {
            acc = acc.mac(a, b);
        }
    }
    Ok(acc)
}

fn runs_dyn<C: Col, V: Copy, X: Copy, A: Mac<V, X>>(
    values: &[V],
    x: &[X],
    cols: &[C],
    s: usize,
    e: usize,
    run: usize,
    zero: A,
) -> Result<A, KernelError> {
    let cols = cols.get(s..e).ok_or(SHORT)?;
    let vals = values.get(s * run..e * run).ok_or(SHORT)?;
    let mut acc = zero;
    for (v, &c) in vals.chunks_exact(run).zip(cols) {
        let xs = x.get(c.at()..c.at() + run).ok_or(SHORT)?;
        for (&a, &b) in v.iter().zip(xs) {
            acc = acc.mac(a, b);
        }
    }
    Ok(acc)
}

fn indexed<C: Col, V: Copy, X: Copy, A: Mac<V, X>>(
    values: &[V],
    x: &[X],
    cols: &[C],
    vidx: &[u32],
    s: usize,
    e: usize,
    zero: A,
) -> Result<A, KernelError> {
    let cols = cols.get(s..e).ok_or(SHORT)?;
    let vidx = vidx.get(s..e).ok_or(SHORT)?;
    let mut acc = zero;
    for (&v, &c) in vidx.iter().zip(cols) {
        acc = acc.mac(
            *values.get(v as usize).ok_or(SHORT)?,
            *x.get(c.at()).ok_or(SHORT)?,
        );
    }
    Ok(acc)
}

#[cfg(test)]
mod tests;
