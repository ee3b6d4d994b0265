//! The threads a kernel may split its outputs over ([`Threads`]: the interpreter's pool with
//! `std`, the caller's thread alone without), and the split of a matrix of outputs into runs
//! of whole values for them ([`by_rows`]). Each output value is computed by the same code
//! whichever thread runs it, so results are identical for any number of threads.

use crate::interpreter::{Eval, KernelError};

/// The threads a kernel may use: the interpreter's (with `std`).
#[cfg(feature = "std")]
pub(crate) type Threads<'e> = &'e dyn crate::interpreter::Workers;

/// The threads a kernel may use: the caller's alone (without `std`).
#[cfg(not(feature = "std"))]
pub(crate) type Threads<'e> = core::marker::PhantomData<&'e ()>;

/// The threads `ctx` may use.
#[cfg(feature = "std")]
pub(crate) fn threads<'e>(ctx: &Eval<'e>) -> Threads<'e> {
    ctx.workers()
}

/// The threads `ctx` may use.
#[cfg(not(feature = "std"))]
pub(crate) fn threads<'e>(_: &Eval<'e>) -> Threads<'e> {
    core::marker::PhantomData
}

/// How many threads `t` runs.
#[cfg(feature = "std")]
pub(crate) fn count(t: Threads<'_>) -> usize {
    t.threads()
}

/// How many threads `t` runs.
#[cfg(not(feature = "std"))]
pub(crate) fn count(_: Threads<'_>) -> usize {
    1
}

/// The body [`by_rows`] runs on a run of one row's values: `(row, first column, values)`.
pub(crate) type RowBody<'b, Y> =
    dyn Fn(usize, usize, &mut [Y]) -> Result<(), KernelError> + Sync + 'b;

/// Values per part of [`by_rows`]' split, at least: a run of outputs shorter than this is
/// not worth a thread.
const RUN: usize = 16;

/// Runs `body(r, c, values)` over `out` (rows of `row` values), `values` the outputs of row
/// `r` from column `c` on; split over `threads` in runs of whole values when `work`
/// (multiply-adds) is worth it, else row by row on the caller's thread.
pub(crate) fn by_rows<Y: Send>(
    threads: Threads<'_>,
    out: &mut [Y],
    row: usize,
    work: usize,
    body: &RowBody<'_, Y>,
) -> Result<(), KernelError> {
    if row == 0 {
        return Ok(());
    }
    let rows = |first: usize, part: &mut [Y]| -> Result<(), KernelError> {
        let mut at = first;
        let mut rest = part;
        while !rest.is_empty() {
            let (r, c) = (at / row, at % row);
            let n = (row - c).min(rest.len());
            let (mine, after) = rest.split_at_mut(n);
            body(r, c, mine)?;
            rest = after;
            at += n;
        }
        Ok(())
    };
    #[cfg(feature = "std")]
    {
        crate::interpreter::workers::split(
            threads,
            out,
            RUN,
            &mut [0u8; 0],
            0,
            work,
            &|first, part, _| rows(first, part),
        )
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = (threads, work, RUN);
        rows(0, out)
    }
}
