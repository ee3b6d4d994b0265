//! Kernels' work spread over threads (with `std`): [`Workers`] runs the numbered tasks of one
//! kernel call, on the caller's thread alone ([`Inline`]) or also on the threads of the
//! interpreter's pool ([`Options::threads`](super::Options::threads)); [`Parts`] hands each
//! task its own piece of an output.
//!
//! A kernel splits its outputs, never a sum: each output value is computed by the same code
//! in the same order whichever task computes it, so the results are identical for any number
//! of threads.
//!
//! ```
//! use tessera_lite::interpreter::{Inline, KernelError, Parts, Workers};
//!
//! let mut out = [0u32; 10];
//! let parts = Parts::even(&mut out, 3, 1);
//! Inline.run(parts.len(), &|i| {
//!     let (first, part) = parts.take(i).ok_or(KernelError::Arity { what: "a part" })?;
//!     for (k, v) in part.iter_mut().enumerate() {
//!         *v = (first + k) as u32 * 2;
//!     }
//!     Ok(())
//! })?;
//! assert_eq!(out, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
//! # Ok::<(), KernelError>(())
//! ```

mod pool;

use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, Ordering};

pub(crate) use pool::Pool;

use super::KernelError;

/// A task of a [`Workers::run`]: its number, `0..tasks`.
pub type Task<'t> = dyn Fn(usize) -> Result<(), KernelError> + Sync + 't;

/// Runs the tasks of one kernel call.
pub trait Workers: Sync {
    /// Threads that may run tasks at once (the caller's included): how many parts are worth
    /// splitting an output into.
    fn threads(&self) -> usize;

    /// Runs `task(0)` to `task(tasks - 1)`, each once, in any order and possibly at once;
    /// returns when all have finished.
    ///
    /// # Errors
    /// The first error a task returned (the others still run to their end), or a
    /// [`KernelError::Mismatch`] if a task panicked on a pool thread.
    fn run(&self, tasks: usize, task: &Task<'_>) -> Result<(), KernelError>;
}

/// Every task on the caller's thread, in order: one thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inline;

impl Workers for Inline {
    fn threads(&self) -> usize {
        1
    }

    fn run(&self, tasks: usize, task: &Task<'_>) -> Result<(), KernelError> {
        (0..tasks).try_for_each(task)
    }
}

/// The most parts one [`Parts`] splits into.
pub const MAX_PARTS: usize = 64;

/// A mutable slice split into up to [`MAX_PARTS`] consecutive parts that tasks on several
/// threads may take, each part once: a task writes its part with no lock, and no two tasks
/// can hold the same values.
pub struct Parts<'a, T> {
    ptr: *mut T,
    /// Values in the whole slice.
    total: usize,
    /// Where part `i` starts; part `i` ends where `i + 1` starts (the last at `len`).
    starts: [usize; MAX_PARTS],
    count: usize,
    taken: [AtomicBool; MAX_PARTS],
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: `Parts` hands out each part (disjoint `&mut [T]`s of one exclusively borrowed
// slice) at most once, whichever thread asks, so sharing it shares no `T`; moving a `&mut T`
// to another thread needs `T: Send`.
unsafe impl<T: Send> Sync for Parts<'_, T> {}
// SAFETY: as for `Sync`: it holds the exclusive borrow of a slice of `Send` values.
unsafe impl<T: Send> Send for Parts<'_, T> {}

impl<'a, T> Parts<'a, T> {
    /// `slice` as `parts` parts (at least 1, at most [`MAX_PARTS`]) of about equal length,
    /// each a whole number of `unit` values (the last takes what remains): rows, tiles, or
    /// pixels of a channel count.
    pub fn even(slice: &'a mut [T], parts: usize, unit: usize) -> Self {
        let len = slice.len();
        let unit = unit.max(1);
        let units = len / unit;
        let count = parts.clamp(1, MAX_PARTS).min(units.max(1));
        let mut starts = [len; MAX_PARTS];
        for (i, s) in starts.iter_mut().take(count).enumerate() {
            // `u128`: no overflow for any slice length times 64.
            *s = (units as u128 * i as u128 / count as u128) as usize * unit;
        }
        Self {
            ptr: slice.as_mut_ptr(),
            total: len,
            starts,
            count,
            taken: [const { AtomicBool::new(false) }; MAX_PARTS],
            _slice: PhantomData,
        }
    }

    /// How many parts.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none (never: an empty slice is one empty part).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Part `i`'s first position in the whole slice, and the part: once; `None` for a part
    /// taken already or past the last.
    pub fn take(&self, i: usize) -> Option<(usize, &'a mut [T])> {
        if i >= self.count || self.taken.get(i)?.swap(true, Ordering::AcqRel) {
            return None;
        }
        let start = *self.starts.get(i)?;
        let end = self
            .starts
            .get(i + 1)
            .copied()
            .unwrap_or(self.total)
            .min(self.total);
        let n = end.checked_sub(start)?;
        let first = self.ptr.wrapping_add(start);
        // SAFETY: `start + n <= total`: the range lies in the slice borrowed for 'a; the parts'
        // ranges are disjoint (the starts are ascending) and part `i` is handed out once (its
        // flag), so no other reference to these values exists while this one lives.
        Some((start, unsafe { core::slice::from_raw_parts_mut(first, n) }))
    }
}

/// A task of [`split`]: `(first position, part, its scratch)`.
pub(crate) type PartTask<'t, T, S> =
    dyn Fn(usize, &mut [T], &mut [S]) -> Result<(), KernelError> + Sync + 't;

/// Work (in multiply-adds) below which a kernel call stays on the caller's thread: waking
/// the pool costs a few microseconds, the time of some 50 000 of them.
pub(crate) const MIN_WORK: usize = 50_000;

/// Runs `task` over the parts of `out` split for `workers`' threads, with a part of `scratch`
/// each: `task(first, part, scratch)`, `first` the part's position in `out`, each part a whole
/// number of `unit` values, each scratch `per_part` values (no more parts than `scratch`
/// holds). Small work (`work` multiply-adds, below [`MIN_WORK`]) stays on the caller's thread
/// as one part.
pub(crate) fn split<T: Send, S: Send>(
    workers: &dyn Workers,
    out: &mut [T],
    unit: usize,
    scratch: &mut [S],
    per_part: usize,
    work: usize,
    task: &PartTask<'_, T, S>,
) -> Result<(), KernelError> {
    let unit = unit.max(1);
    let count = workers
        .threads()
        .min(out.len() / unit)
        .min(scratch.len().checked_div(per_part).unwrap_or(usize::MAX));
    if count <= 1 || work < MIN_WORK {
        return task(0, out, scratch);
    }
    let outs = Parts::even(out, count, unit);
    let scratches = Parts::even(scratch, outs.len(), per_part.max(1));
    let twice = KernelError::Mismatch {
        what: "a part taken twice",
    };
    workers.run(outs.len(), &|i| {
        let (first, part) = outs.take(i).ok_or(twice)?;
        if per_part == 0 {
            return task(first, part, &mut []);
        }
        let (_, scratch) = scratches.take(i).ok_or(twice)?;
        task(first, part, scratch)
    })
}

#[cfg(test)]
mod tests;
