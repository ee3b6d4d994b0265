//! The inner loops of the numeric operations, over plain slices: multi-accumulator folds for
//! dense data, the gather / scatter loops of sparse·dense, and the galloping sparse·sparse
//! merge. Written so that LLVM vectorises the dense ones.

use super::value::Numeric;

/// Independent accumulators for dense folds: 16 lanes keep enough additions in flight to hide
/// float-add latency on SSE2 (4 vectors of 4) and AVX (2 of 8).
pub(crate) const LANES: usize = 16;

/// Independent accumulators for the sparse·dense gather.
const GATHER_LANES: usize = 8;

/// How far ahead (in entries) the sparse·sparse merge looks for a gap worth galloping across.
const GALLOP_AHEAD: usize = 32;

/// Adds the `N` lanes in order, `((lane 0 + lane 1) + lane 2) + …`. (Tree-shaped orders
/// make LLVM's SLP vectoriser split the main loop's accumulators into 2-wide vectors and
/// shuffles, which measured 1.6x slower on the dense dot product; this order keeps 4-wide
/// vectors.)
#[inline(always)]
fn reduce<T: Numeric, const N: usize>(acc: [T; N]) -> T {
    let mut s = acc[0];
    for &lane in &acc[1..] {
        s = s.add(lane);
    }
    s
}

/// `Σ g(a[i])` with [`LANES`] accumulators: lane k sums the elements at positions ≡ k (mod
/// 16) of the full 16-element blocks, the lanes are added in order (see [`reduce`]), then the
/// tail is added in order.
#[inline(always)]
pub(crate) fn fold1<T: Numeric>(a: &[T], g: impl Fn(T) -> T) -> T {
    let mut acc = [T::ZERO; LANES];
    let blocks = a.chunks_exact(LANES);
    let tail = blocks.remainder();
    for x in blocks {
        let x: &[T; LANES] = x.try_into().unwrap();
        for k in 0..LANES {
            acc[k] = acc[k].add(g(x[k]));
        }
    }
    let mut t = T::ZERO;
    for &x in tail {
        t = t.add(g(x));
    }
    reduce(acc).add(t)
}

/// `Σ g(a[i], b[i])` over the common length, in the order of [`fold1`].
#[inline(always)]
pub(crate) fn fold2<T: Numeric>(a: &[T], b: &[T], g: impl Fn(T, T) -> T) -> T {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [T::ZERO; LANES];
    let (blocks_a, blocks_b) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (tail_a, tail_b) = (blocks_a.remainder(), blocks_b.remainder());
    for (x, y) in blocks_a.zip(blocks_b) {
        let x: &[T; LANES] = x.try_into().unwrap();
        let y: &[T; LANES] = y.try_into().unwrap();
        for k in 0..LANES {
            acc[k] = acc[k].add(g(x[k], y[k]));
        }
    }
    let mut t = T::ZERO;
    for (&x, &y) in tail_a.iter().zip(tail_b) {
        t = t.add(g(x, y));
    }
    reduce(acc).add(t)
}

/// `Σ values[k] · dense[indices[k]]` with 8 accumulators over the sparse entries (entry k
/// into lane k mod 8 of the full 8-entry blocks, lanes added in order, then the tail). Indexing is checked: the gather is bound by cache misses on `dense`, and unchecked
/// indexing measured no faster.
#[inline]
pub(crate) fn dot_gather<T: Numeric>(values: &[T], indices: &[u32], dense: &[T]) -> T {
    let mut acc = [T::ZERO; GATHER_LANES];
    let (blocks_v, blocks_i) = (
        values.chunks_exact(GATHER_LANES),
        indices.chunks_exact(GATHER_LANES),
    );
    let (tail_v, tail_i) = (blocks_v.remainder(), blocks_i.remainder());
    for (v, ix) in blocks_v.zip(blocks_i) {
        let v: &[T; GATHER_LANES] = v.try_into().unwrap();
        let ix: &[u32; GATHER_LANES] = ix.try_into().unwrap();
        for k in 0..GATHER_LANES {
            acc[k] = acc[k].add(v[k].mul(dense[ix[k] as usize]));
        }
    }
    let mut t = T::ZERO;
    for (&v, &i) in tail_v.iter().zip(tail_i) {
        t = t.add(v.mul(dense[i as usize]));
    }
    reduce(acc).add(t)
}

/// `dense[indices[k]] += g(values[k])` for every sparse entry, 8 entries at a time: the 8
/// reads are issued before the 8 writes, so the cache misses of a block overlap (about 20 %
/// faster at low density than one read-modify-write at a time, and as fast as unchecked
/// indexing). Reordering the reads before the writes is correct because a valid vector's
/// indices are distinct.
#[inline(always)]
fn scatter_update<T: Numeric>(values: &[T], indices: &[u32], dense: &mut [T], g: impl Fn(T) -> T) {
    let (blocks_v, blocks_i) = (values.chunks_exact(8), indices.chunks_exact(8));
    let (tail_v, tail_i) = (blocks_v.remainder(), blocks_i.remainder());
    for (v, ix) in blocks_v.zip(blocks_i) {
        let v: &[T; 8] = v.try_into().unwrap();
        let ix: &[u32; 8] = ix.try_into().unwrap();
        let mut old = [T::ZERO; 8];
        for k in 0..8 {
            old[k] = dense[ix[k] as usize];
        }
        for k in 0..8 {
            dense[ix[k] as usize] = old[k].add(g(v[k]));
        }
    }
    for (&v, &i) in tail_v.iter().zip(tail_i) {
        let d = &mut dense[i as usize];
        *d = d.add(g(v));
    }
}

/// `dense[indices[k]] += c · values[k]` for every sparse entry (axpy).
#[inline]
pub(crate) fn axpy_scatter<T: Numeric>(c: T, values: &[T], indices: &[u32], dense: &mut [T]) {
    scatter_update(values, indices, dense, |v| c.mul(v));
}

/// `dense[indices[k]] += values[k]` for every sparse entry (no multiply).
#[inline]
pub(crate) fn add_scatter<T: Numeric>(values: &[T], indices: &[u32], dense: &mut [T]) {
    scatter_update(values, indices, dense, |v| v);
}

/// The first position `p >= from` with `ix[p] >= target` (or `ix.len()`): exponential steps
/// from `from`, then a binary search in the last step. O(log distance).
#[inline]
pub(crate) fn gallop(ix: &[u32], from: usize, target: u32) -> usize {
    let mut lo = from;
    let mut step = 1;
    let mut hi = from;
    while hi < ix.len() && ix[hi] < target {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    let hi = hi.min(ix.len());
    lo + ix[lo..hi].partition_point(|&x| x < target)
}

/// `Σ a·b` over the indices both sparse vectors (of logical length `len`) hold, in index
/// order.
///
/// A block merge: a window of `B` indices of each side is compared all-against-all (B² cheap
/// comparisons, which LLVM vectorises, instead of one unpredictable branch per entry), and
/// the window with the smaller last index moves on (both on a tie). Each matching pair meets
/// in exactly one window pair. When the next [`GALLOP_AHEAD`] indices of one side all fall
/// below the other's window, it gallops across the gap in O(log gap), so clustered or very
/// unequal index sets cost far less than `na + nb`. Windows of 8 when matches are rare (each
/// side under 1/32 full), of 4 otherwise; the last few entries merge one at a time.
#[inline]
pub(crate) fn dot_merge<T: Numeric>(ia: &[u32], va: &[T], ib: &[u32], vb: &[T], len: usize) -> T {
    if (ia.len() as u64 + ib.len() as u64) * 16 <= len as u64 {
        dot_windows::<T, 8>(ia, va, ib, vb)
    } else {
        dot_windows::<T, 4>(ia, va, ib, vb)
    }
}

#[inline]
fn dot_windows<T: Numeric, const B: usize>(ia: &[u32], va: &[T], ib: &[u32], vb: &[T]) -> T {
    let (na, nb) = (ia.len(), ib.len());
    let (va, vb) = (&va[..na], &vb[..nb]);
    let mut acc = T::ZERO;
    let (mut i, mut j) = (0, 0);
    while i + B <= na && j + B <= nb {
        let a: &[u32; B] = ia[i..i + B].try_into().unwrap();
        let b: &[u32; B] = ib[j..j + B].try_into().unwrap();
        if i + GALLOP_AHEAD < na && ia[i + GALLOP_AHEAD] < b[0] {
            i = gallop(ia, i + GALLOP_AHEAD + 1, b[0]);
            continue;
        }
        if j + GALLOP_AHEAD < nb && ib[j + GALLOP_AHEAD] < a[0] {
            j = gallop(ib, j + GALLOP_AHEAD + 1, a[0]);
            continue;
        }
        let mut any = false;
        for x in a {
            for y in b {
                any |= x == y;
            }
        }
        if any {
            for (k, x) in a.iter().enumerate() {
                for (l, y) in b.iter().enumerate() {
                    if x == y {
                        acc = acc.add(va[i + k].mul(vb[j + l]));
                    }
                }
            }
        }
        let (x, y) = (a[B - 1], b[B - 1]);
        i += B * (x <= y) as usize;
        j += B * (y <= x) as usize;
    }
    while i < na && j < nb {
        let (x, y) = (ia[i], ib[j]);
        if x == y {
            acc = acc.add(va[i].mul(vb[j]));
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    acc
}
