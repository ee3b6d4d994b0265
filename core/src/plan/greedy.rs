//! The placement algorithms: TFLite Micro's greedy-by-size first fit, back-to-back placement,
//! and the live-size lower bound. O(n log n) sorting and O(n²) placement, in place: the
//! scratch they need lives in the buffers themselves.

use super::{NONE, PlanBuffer, PlanError};

/// Checks every buffer and the count.
fn validate<B: AsRef<PlanBuffer>>(buffers: &[B]) -> Result<(), PlanError> {
    if buffers.len() >= NONE as usize {
        return Err(PlanError::TooMany {
            count: buffers.len(),
        });
    }
    for (i, b) in buffers.iter().enumerate() {
        let b = b.as_ref();
        if b.lifetime.first > b.lifetime.last {
            return Err(PlanError::BadLifetime {
                buffer: i,
                lifetime: b.lifetime,
            });
        }
        if !b.align.is_power_of_two() {
            return Err(PlanError::BadAlignment {
                buffer: i,
                align: b.align,
            });
        }
    }
    Ok(())
}

/// `value` rounded up to a multiple of `align` (a power of two), if it fits.
pub(crate) fn align_up(value: usize, align: usize) -> Option<usize> {
    value.checked_add(align - 1).map(|v| v & !(align - 1))
}

/// Places the buffers back to back in order, each on its alignment; returns the bytes needed.
///
/// Errors: [`PlanError`] (any variant but none for lifetimes, which are ignored beyond the
/// check that `first <= last`).
pub fn plan_sequential<B: AsRef<PlanBuffer> + AsMut<PlanBuffer>>(
    buffers: &mut [B],
) -> Result<usize, PlanError> {
    validate(buffers)?;
    let mut end = 0usize;
    for (i, b) in buffers.iter_mut().enumerate() {
        let b = b.as_mut();
        if b.size == 0 {
            b.offset = 0;
            continue;
        }
        let offset = align_up(end, b.align).ok_or(PlanError::TooLarge { buffer: i })?;
        end = offset
            .checked_add(b.size)
            .ok_or(PlanError::TooLarge { buffer: i })?;
        b.offset = offset;
    }
    Ok(end)
}

/// Whether buffer `a` comes before buffer `b` in the placement order: larger first, then the
/// later index first, as TFLite Micro's planner orders them (it fills its sort array from the
/// tail, then sorts it stably by size). The tie order matters: a chain of equal buffers each
/// alive with the next (an image rescaled by two element-wise ops, then convolved) packs
/// into the live peak placed last-first, and leaves a gap placed first-first (147 456 against
/// 131 072 bytes on Keras' int8 MobileNetV3-Small).
fn before<B: AsRef<PlanBuffer>>(buffers: &[B], a: u32, b: u32) -> bool {
    let (x, y) = (buffers[a as usize].as_ref(), buffers[b as usize].as_ref());
    x.size > y.size || (x.size == y.size && a > b)
}

/// Sorts the permutation kept in the buffers' `order` fields (heapsort: in place, O(n log n),
/// no recursion).
fn sort_order<B: AsRef<PlanBuffer> + AsMut<PlanBuffer>>(buffers: &mut [B]) {
    let n = buffers.len();
    let get = |buffers: &[B], i: usize| buffers[i].as_ref().order;
    let swap = |buffers: &mut [B], i: usize, j: usize| {
        let (x, y) = (get(buffers, i), get(buffers, j));
        buffers[i].as_mut().order = y;
        buffers[j].as_mut().order = x;
    };
    // `less(i, j)`: entry i of the order comes before entry j.
    let less =
        |buffers: &[B], i: usize, j: usize| before(buffers, get(buffers, i), get(buffers, j));
    let sift_down = |buffers: &mut [B], mut root: usize, end: usize| {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                break;
            }
            if child + 1 < end && less(buffers, child, child + 1) {
                child += 1;
            }
            if !less(buffers, root, child) {
                break;
            }
            swap(buffers, root, child);
            root = child;
        }
    };
    for start in (0..n / 2).rev() {
        sift_down(buffers, start, n);
    }
    for end in (1..n).rev() {
        swap(buffers, 0, end);
        sift_down(buffers, 0, end);
    }
}

/// TFLite Micro's greedy planner: buffers in order of size (largest first), each at the
/// lowest offset on its alignment that overlaps no already placed buffer alive at the same
/// time. Returns the bytes needed (the highest end).
///
/// Errors: [`PlanError`].
pub fn plan_greedy<B: AsRef<PlanBuffer> + AsMut<PlanBuffer>>(
    buffers: &mut [B],
) -> Result<usize, PlanError> {
    validate(buffers)?;
    for (i, b) in buffers.iter_mut().enumerate() {
        let b = b.as_mut();
        b.order = i as u32;
        b.next = NONE;
        b.offset = 0;
    }
    sort_order(buffers);
    // Placed buffers, as a list linked through `next` in order of offset.
    let mut head = NONE;
    let mut peak = 0usize;
    for rank in 0..buffers.len() {
        let id = buffers[rank].as_ref().order;
        let wanted = *buffers[id as usize].as_ref();
        if wanted.size == 0 {
            continue;
        }
        let too_large = PlanError::TooLarge {
            buffer: id as usize,
        };
        let mut candidate = 0usize;
        let mut cur = head;
        while cur != NONE {
            let placed = buffers[cur as usize].as_ref();
            if placed.lifetime.overlaps(wanted.lifetime) {
                let end = candidate.checked_add(wanted.size).ok_or(too_large)?;
                if end <= placed.offset {
                    break; // fits in the gap before `placed`
                }
                // `placed` was checked when placed, so its end fits.
                let after = align_up(placed.offset + placed.size, wanted.align).ok_or(too_large)?;
                candidate = candidate.max(after);
            }
            cur = placed.next;
        }
        let end = candidate.checked_add(wanted.size).ok_or(too_large)?;
        peak = peak.max(end);
        // Insert after the last placed buffer whose offset is at most `candidate`.
        let mut prev = NONE;
        let mut cur = head;
        while cur != NONE && buffers[cur as usize].as_ref().offset <= candidate {
            prev = cur;
            cur = buffers[cur as usize].as_ref().next;
        }
        let w = buffers[id as usize].as_mut();
        w.offset = candidate;
        w.next = cur;
        if prev == NONE {
            head = id;
        } else {
            buffers[prev as usize].as_mut().next = id;
        }
    }
    Ok(peak)
}

/// The most bytes alive at any one step: a lower bound for every plan of these buffers
/// (alignment padding aside). O(n²).
pub fn live_peak<B: AsRef<PlanBuffer>>(buffers: &[B]) -> usize {
    buffers
        .iter()
        .map(|b| {
            let step = b.as_ref().lifetime.first;
            buffers
                .iter()
                .map(AsRef::as_ref)
                .filter(|o| o.lifetime.first <= step && step <= o.lifetime.last)
                .fold(0usize, |sum, o| sum.saturating_add(o.size))
        })
        .max()
        .unwrap_or(0)
}
