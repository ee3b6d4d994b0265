//! TensorFlow Lite's sparse tensor format (TACO), checked: the dense dimensions `0..n` and the
//! block dimensions `n..n + k` are traversed in `traversal_order`; each traversed level is
//! DENSE (every index) or SPARSE_CSR (for each element of the levels above, a segment of
//! stored indices). The stored values follow in traversal order. [`SparseFormat::walk`]
//! visits them in that order, as `FormatConverter::SparseToDense` does. DENSIFY and
//! FULLY_CONNECTED's sparse path read their constants through it.

use crate::interpreter::{KernelError, MAX_DIMS};
use crate::model::{DimensionFormat, SparseIndices, Sparsity};

/// Most traversed levels: every dense dimension, each split by at most one block.
pub(crate) const MAX_LEVELS: usize = 2 * MAX_DIMS;

/// One traversed level.
#[derive(Clone, Copy)]
enum Level<'m> {
    /// Every index `0..size`.
    Dense { size: usize },
    /// Stored indices, segment by segment.
    Csr {
        size: usize,
        segments: SparseIndices<'m>,
        indices: SparseIndices<'m>,
    },
}

const NO_LEVEL: Level<'static> = Level::Dense { size: 0 };

/// A sparse tensor's encoding, checked: the traversal order a permutation (dense dimensions
/// first), block sizes dividing their dimensions, DENSE level sizes equal to the (blocked)
/// dimension they traverse, SPARSE_CSR only on dense dimensions.
#[derive(Clone, Copy)]
pub(crate) struct SparseFormat<'m> {
    rank: usize,
    levels: usize,
    shape: [usize; MAX_DIMS],
    order: [usize; MAX_LEVELS],
    block_map: [usize; MAX_DIMS],
    block_size: [usize; MAX_DIMS],
    level: [Level<'m>; MAX_LEVELS],
}

const fn bad(what: &'static str) -> KernelError {
    KernelError::Mismatch { what }
}

impl<'m> SparseFormat<'m> {
    /// The format of a tensor of dense `shape` stored with `sparsity`.
    pub(crate) fn from_sparsity(shape: &[usize], s: &Sparsity<'m>) -> Result<Self, KernelError> {
        let mut order = [0usize; MAX_LEVELS];
        let mut block_map = [0usize; MAX_DIMS];
        let mut dims = [DimensionFormat::Dense { size: 0 }; MAX_LEVELS];
        let too_many = bad("sparsity metadata with more levels than dimensions allow");
        let to = s.traversal_order();
        let bm = s.block_map();
        let dm = s.dim_metadata();
        if to.len() > MAX_LEVELS || bm.len() > MAX_DIMS || dm.len() > MAX_LEVELS {
            return Err(too_many);
        }
        for (i, o) in order.iter_mut().enumerate().take(to.len()) {
            *o = to
                .get(i)
                .and_then(|v| usize::try_from(v).ok())
                .ok_or(bad("negative traversal order"))?;
        }
        for (i, b) in block_map.iter_mut().enumerate().take(bm.len()) {
            *b = bm
                .get(i)
                .and_then(|v| usize::try_from(v).ok())
                .ok_or(bad("negative block map"))?;
        }
        for (i, d) in dims.iter_mut().enumerate().take(dm.len()) {
            *d = dm.get(i).ok_or(too_many)?.format();
        }
        Self::new(
            shape,
            &order[..to.len()],
            &block_map[..bm.len()],
            &dims[..dm.len()],
        )
    }

    /// The format from its parts: the dense `shape`, the traversal `order`, the `block_map`
    /// and one [`DimensionFormat`] per traversed level.
    pub(crate) fn new(
        shape: &[usize],
        order: &[usize],
        block_map: &[usize],
        dims: &[DimensionFormat<'m>],
    ) -> Result<Self, KernelError> {
        let rank = shape.len();
        let k = block_map.len();
        if rank == 0 || rank > MAX_DIMS || k > rank {
            return Err(KernelError::Unsupported {
                what: "sparse tensor of rank 0, over 6, or with more blocks than dimensions",
            });
        }
        let levels = rank + k;
        if order.len() != levels || dims.len() != levels {
            return Err(bad(
                "sparsity traversal order or dim metadata not one per level",
            ));
        }
        let mut f = SparseFormat {
            rank,
            levels,
            shape: [0; MAX_DIMS],
            order: [0; MAX_LEVELS],
            block_map: [0; MAX_DIMS],
            block_size: [0; MAX_DIMS],
            level: [NO_LEVEL; MAX_LEVELS],
        };
        f.shape[..rank].copy_from_slice(shape);
        // Dense dimensions first, then block dimensions, each a permutation.
        let mut seen = [false; MAX_LEVELS];
        for (p, &o) in order.iter().enumerate() {
            let ok = if p < rank {
                o < rank
            } else {
                o >= rank && o < levels
            };
            let slot = seen.get_mut(o).filter(|s| ok && !**s);
            *slot.ok_or(bad("sparsity traversal order is not a permutation"))? = true;
        }
        f.order[..levels].copy_from_slice(order);
        let mut blocked = f.shape;
        for (b, &d) in block_map.iter().enumerate() {
            if d >= rank {
                return Err(bad("sparsity block map names no dimension"));
            }
            f.block_map[b] = d;
            let p = order
                .iter()
                .position(|&o| o == rank + b)
                .ok_or(bad("block not traversed"))?;
            let size = match dims.get(p) {
                Some(DimensionFormat::Dense { size }) if *size > 0 => *size,
                _ => {
                    return Err(KernelError::Unsupported {
                        what: "block dimension that is not DENSE of a positive size",
                    });
                }
            };
            if blocked[d] % size != 0 {
                return Err(bad("block size does not divide its dimension"));
            }
            blocked[d] /= size;
            f.block_size[b] = size;
        }
        for (p, d) in dims.iter().enumerate() {
            let size = if p < rank {
                blocked[order[p]]
            } else {
                f.block_size[order[p] - rank]
            };
            f.level[p] = match *d {
                DimensionFormat::Dense { size: s } if s == size => Level::Dense { size },
                DimensionFormat::Dense { .. } => {
                    return Err(bad("DENSE level size differs from its dimension"));
                }
                DimensionFormat::SparseCsr { segments, indices } if p < rank => Level::Csr {
                    size,
                    segments,
                    indices,
                },
                DimensionFormat::SparseCsr { .. } => {
                    return Err(KernelError::Unsupported {
                        what: "SPARSE_CSR block dimension",
                    });
                }
            };
        }
        Ok(f)
    }

    /// The dense shape.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape[..self.rank]
    }

    /// The block map (for each block level, the dense dimension it splits) and block sizes.
    pub(crate) fn blocks(&self) -> (&[usize], &[usize]) {
        let k = self.levels - self.rank;
        (&self.block_map[..k], &self.block_size[..k])
    }

    /// Visits every stored value in storage order: `visit(value_index, flat_dense_index)`.
    /// Returns how many values the metadata addresses. Segments past the end of their vector
    /// and indices past their vector are skipped, as TensorFlow Lite does; an index outside
    /// its dimension is an error (it would write out of bounds).
    pub(crate) fn walk(
        &self,
        mut visit: impl FnMut(usize, usize) -> Result<(), KernelError>,
    ) -> Result<usize, KernelError> {
        let levels = self.levels;
        let mut pos = [0usize; MAX_LEVELS];
        let mut end = [0usize; MAX_LEVELS];
        let mut prev = [0usize; MAX_LEVELS];
        let mut idx = [0usize; MAX_LEVELS];
        let mut leaf = 0usize;
        let mut p = 0usize;
        self.enter(0, 0, &mut pos, &mut end);
        loop {
            if pos[p] >= end[p] {
                if p == 0 {
                    return Ok(leaf);
                }
                p -= 1;
                pos[p] += 1;
                continue;
            }
            let (index, child) = match self.level[p] {
                Level::Dense { size } => (
                    pos[p],
                    prev[p]
                        .checked_mul(size)
                        .and_then(|v| v.checked_add(pos[p]))
                        .ok_or(bad("sparse level overflows"))?,
                ),
                Level::Csr { size, indices, .. } => match indices.get(pos[p]) {
                    Some(i) if i < size => (i, pos[p]),
                    Some(_) => return Err(bad("sparse index outside its dimension")),
                    None => {
                        pos[p] += 1;
                        continue;
                    }
                },
            };
            idx[p] = index;
            if p + 1 == levels {
                visit(leaf, self.flat(&idx))?;
                leaf += 1;
                pos[p] += 1;
            } else {
                p += 1;
                prev[p] = child;
                self.enter(p, child, &mut pos, &mut end);
            }
        }
    }

    /// Starts level `p` under element `prev` of the level above.
    fn enter(&self, p: usize, prev: usize, pos: &mut [usize], end: &mut [usize]) {
        let (s, e) = match self.level[p] {
            Level::Dense { size } => (0, size),
            Level::Csr { segments, .. } => {
                let s = prev.checked_add(1).and_then(|q| segments.get(q));
                match (segments.get(prev), s) {
                    (Some(a), Some(b)) => (a, b),
                    _ => (0, 0),
                }
            }
        };
        pos[p] = s;
        end[p] = e;
    }

    /// The row-major flat index of the dense element at traversal indices `idx`.
    fn flat(&self, idx: &[usize; MAX_LEVELS]) -> usize {
        let mut orig = [0usize; MAX_DIMS];
        // `new` checked the order: dense dimensions below `rank`, then blocks below `levels`.
        let (dense, blocks) = self.order[..self.levels].split_at(self.rank);
        for (&o, &i) in dense.iter().zip(idx) {
            orig[o] = i;
        }
        for (&o, &i) in blocks.iter().zip(&idx[self.rank..]) {
            let b = o - self.rank;
            let d = self.block_map[b];
            orig[d] = orig[d] * self.block_size[b] + i;
        }
        // Each index is below its level's size, so `orig` is inside the shape and the flat
        // index is below the element count (which setup bounded).
        orig[..self.rank]
            .iter()
            .zip(&self.shape[..self.rank])
            .fold(0usize, |acc, (&i, &n)| acc * n + i)
    }
}

#[cfg(test)]
pub(crate) mod encoded;
#[cfg(test)]
mod tests;
