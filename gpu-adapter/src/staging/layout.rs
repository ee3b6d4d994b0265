//! Where a CSR sample batch's buffers go in one region, planned with `tessera-core`'s
//! reserve-then-allocate arena: the same plan lays out a pinned staging slot and the device
//! buffer it is copied to, so one copy of a prefix moves a whole batch.

use tessera_alloc::VecSlots;
use tessera_core::arena::{Arena, TensorHandle};
use tessera_core::data::{Dims, Key, SampleBatch};
use tessera_core::memory::{HostMemory, Memory};
use tessera_core::tensor::Element;

use crate::error::GpuError;

/// How large the batches of one upload stream are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchShape {
    /// Labels, dense features and slots per sample.
    pub dims: Dims,
    /// Samples per batch (the batch capacity).
    pub samples: usize,
    /// Keys per batch, all slots together (the CSR value capacity).
    pub max_keys: usize,
}

impl BatchShape {
    /// A shape of `samples` samples of `dims` with at most `max_keys` keys per batch.
    pub const fn new(dims: Dims, samples: usize, max_keys: usize) -> Self {
        Self {
            dims,
            samples,
            max_keys,
        }
    }

    /// CSR rows per full batch: `samples * slot_num`.
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge).
    pub fn rows(&self) -> Result<usize, GpuError> {
        self.samples
            .checked_mul(self.dims.slot_num)
            .ok_or(GpuError::TooLarge { what: "batch rows" })
    }
}

/// The handles of one batch's three buffers in an arena: `label_dense` (`f32`, one row of
/// `label_dim + dense_dim` per sample), `row_offsets` (`K`, rows + 1) and `values` (`K`).
/// Reserved in that order, back to back (no lifetimes), so the used part of a batch is a
/// prefix of the region: everything up to the end of its last key.
#[derive(Debug, Clone, Copy)]
pub struct BatchLayout<K> {
    shape: BatchShape,
    label_dense: TensorHandle<f32>,
    row_offsets: TensorHandle<K>,
    values: TensorHandle<K>,
}

/// A batch arena: the crate's host stand-in, pinned staging and device buffers all use it.
pub type BatchArena<M> = Arena<VecSlots, M>;

impl<K: Key + Element> BatchLayout<K> {
    /// Reserves the buffers of `shape` in `arena` (empty, 32-byte alignment as HugeCTR's).
    ///
    /// Errors: [`TooLarge`](GpuError::TooLarge), [`Arena`](GpuError::Arena).
    pub fn reserve<M>(arena: &mut BatchArena<M>, shape: BatchShape) -> Result<Self, GpuError> {
        let (ld, offsets, values) = shape
            .dims
            .buffer_lens(shape.samples, shape.max_keys)
            .ok_or(GpuError::TooLarge {
                what: "batch buffers",
            })?;
        Ok(Self {
            shape,
            label_dense: arena.reserve::<f32>(&[ld])?,
            row_offsets: arena.reserve::<K>(&[offsets])?,
            values: arena.reserve::<K>(&[values])?,
        })
    }

    /// A fresh arena with the buffers of `shape` reserved and planned: its
    /// [`required_bytes`](Arena::required_bytes) is what each region must hold.
    ///
    /// Errors: as [`reserve`](Self::reserve).
    pub fn plan<M>(shape: BatchShape) -> Result<(BatchArena<M>, Self), GpuError> {
        let mut arena = Arena::new(VecSlots::default());
        let layout = Self::reserve(&mut arena, shape)?;
        arena.required_bytes()?;
        Ok((arena, layout))
    }

    /// The shape.
    pub fn shape(&self) -> BatchShape {
        self.shape
    }

    /// The label/dense buffer's handle.
    pub fn label_dense(&self) -> TensorHandle<f32> {
        self.label_dense
    }

    /// The row-offset buffer's handle.
    pub fn row_offsets(&self) -> TensorHandle<K> {
        self.row_offsets
    }

    /// The key buffer's handle.
    pub fn values(&self) -> TensorHandle<K> {
        self.values
    }

    /// Bytes from the start of the plan that a batch of `nnz` keys occupies: the prefix a
    /// copy must move (label/dense and offsets whole, then `nnz` keys). The end of the last
    /// buffer in use, not of `values`: the planner puts empty buffers at offset 0.
    ///
    /// Errors: [`Capacity`](GpuError::Capacity) for more keys than the shape holds,
    /// [`Arena`](GpuError::Arena) if not planned.
    pub fn used_bytes<M: Memory>(
        &self,
        arena: &BatchArena<M>,
        nnz: usize,
    ) -> Result<usize, GpuError> {
        if nnz > self.shape.max_keys {
            return Err(GpuError::Capacity {
                what: "batch keys",
                needed: nnz,
                available: self.shape.max_keys,
            });
        }
        let too_large = GpuError::TooLarge {
            what: "batch buffers",
        };
        let (ld, offsets, _) = self
            .shape
            .dims
            .buffer_lens(self.shape.samples, self.shape.max_keys)
            .ok_or(too_large.clone())?;
        // Each product fits: the plan holds each buffer whole.
        let ends = [
            (arena.offset(&self.label_dense)?, ld * 4),
            (arena.offset(&self.row_offsets)?, offsets * K::WIDTH),
            (arena.offset(&self.values)?, nnz * K::WIDTH),
        ];
        Ok(ends
            .iter()
            .filter(|(_, bytes)| *bytes > 0)
            .map(|(start, bytes)| start + bytes)
            .max()
            .unwrap_or(0))
    }

    /// Bytes from the memory's first byte to the plan's start (the arena's padding): 0 for
    /// CUDA allocations, whose starts are 256-byte (device) or page (pinned) aligned.
    ///
    /// Errors: [`Arena`](GpuError::Arena) if not allocated.
    pub fn padding<M: Memory>(&self, arena: &BatchArena<M>) -> Result<usize, GpuError> {
        let base = arena
            .memory()
            .map(Memory::base_address)
            .ok_or(tessera_core::arena::ArenaError::NotAllocated)?;
        let first = arena.address(&self.label_dense)?;
        let offset = arena.offset(&self.label_dense)?;
        Ok(first.wrapping_sub(base).wrapping_sub(offset))
    }

    /// An empty [`SampleBatch`] over the arena's buffers (host memory: a stand-in or a
    /// pinned staging slot).
    ///
    /// Errors: [`Arena`](GpuError::Arena), [`Batch`](GpuError::Batch).
    pub fn sample_batch<'a, M: HostMemory>(
        &self,
        arena: &'a mut BatchArena<M>,
    ) -> Result<SampleBatch<'a, K>, GpuError> {
        let [ld, offsets, values] = arena.bags_mut([
            &self.label_dense.erase(),
            &self.row_offsets.erase(),
            &self.values.erase(),
        ])?;
        let ld = ld
            .stretch_mut::<f32>()
            .map_err(tessera_core::arena::ArenaError::from)?;
        let offsets = offsets
            .stretch_mut::<K>()
            .map_err(tessera_core::arena::ArenaError::from)?;
        let values = values
            .stretch_mut::<K>()
            .map_err(tessera_core::arena::ArenaError::from)?;
        let (ld, _) = ld.into_parts();
        let (offsets, _) = offsets.into_parts();
        let (values, _) = values.into_parts();
        Ok(SampleBatch::new(self.shape.dims, ld, offsets, values)?)
    }
}

#[cfg(test)]
mod tests {
    //! The batch plan over host memory (the stand-in for pinned and device regions): buffers
    //! 32-byte aligned, disjoint, in order; a batch written through it reads back; the used
    //! prefix covers exactly what was written.

    use proptest::prelude::*;
    use tessera_alloc::HeapBlock;

    use super::*;

    fn shape(ld: usize, dense: usize, slots: usize, samples: usize, keys: usize) -> BatchShape {
        BatchShape::new(Dims::new(ld, dense, slots), samples, keys)
    }

    proptest! {
        #[test]
        fn plan_is_aligned_disjoint_and_ordered(
            ld in 0usize..3, dense in 0usize..20, slots in 1usize..30,
            samples in 1usize..300, keys in 0usize..5000, wide in any::<bool>(),
        ) {
            let s = shape(ld, dense, slots, samples, keys);
            let (starts, sizes, total) = if wide {
                let (mut arena, l) = BatchLayout::<i64>::plan::<HeapBlock>(s).unwrap();
                let total = arena.required_bytes().unwrap();
                let starts = [arena.offset(&l.label_dense()).unwrap(), arena.offset(&l.row_offsets()).unwrap(), arena.offset(&l.values()).unwrap()];
                (starts, [samples * (ld + dense) * 4, (samples * slots + 1) * 8, keys * 8], total)
            } else {
                let (mut arena, l) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
                let total = arena.required_bytes().unwrap();
                let starts = [arena.offset(&l.label_dense()).unwrap(), arena.offset(&l.row_offsets()).unwrap(), arena.offset(&l.values()).unwrap()];
                (starts, [samples * (ld + dense) * 4, (samples * slots + 1) * 4, keys * 4], total)
            };
            // Non-empty buffers are aligned, in reservation order, disjoint and inside the
            // plan (empty ones sit at offset 0).
            let used: Vec<(usize, usize)> =
                (0..3).filter(|&i| sizes[i] > 0).map(|i| (starts[i], sizes[i])).collect();
            for (k, &(start, size)) in used.iter().enumerate() {
                prop_assert_eq!(start % 32, 0);
                prop_assert!(start + size <= total);
                if k > 0 {
                    prop_assert!(used[k - 1].0 + used[k - 1].1 <= start);
                }
            }
        }

        #[test]
        fn batch_round_trips_through_the_plan(
            rows in proptest::collection::vec(proptest::collection::vec(0u32..1000, 0..6), 3..30),
        ) {
            // 3 slots per sample; whole samples only.
            let samples = rows.len() / 3;
            let s = shape(1, 2, 3, samples, 200);
            let (mut arena, layout) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
            let bytes = arena.required_bytes_unaligned().unwrap();
            arena.allocate(HeapBlock::with_len(bytes)).unwrap();
            prop_assert_eq!(layout.padding(&arena).unwrap(), 0);
            let nnz;
            {
                let mut batch = layout.sample_batch(&mut arena).unwrap();
                for (i, sample) in rows.chunks_exact(3).enumerate() {
                    let keys: [&[u32]; 3] = [&sample[0], &sample[1], &sample[2]];
                    batch.push_sample(&[i as f32], &[0.5, 0.25], &keys).unwrap();
                }
                nnz = batch.csr().nnz();
                prop_assert_eq!(batch.samples(), samples);
            }
            let used = layout.used_bytes(&arena, nnz).unwrap();
            let values_at = arena.offset(&layout.values()).unwrap();
            // Keys come last; with none, the prefix ends with the offsets.
            let offsets_end = arena.offset(&layout.row_offsets()).unwrap() + (samples * 3 + 1) * 4;
            let expected_end = if nnz > 0 { values_at + nnz * 4 } else { offsets_end };
            prop_assert_eq!(used, expected_end);
            // What a copy of the prefix moves decodes to the same CSR.
            let offsets = arena.tensor(&layout.row_offsets()).unwrap();
            let offsets = offsets.as_slice().unwrap();
            prop_assert_eq!(offsets[0], 0);
            let expected: u32 = rows[..samples * 3].iter().map(|r| r.len() as u32).sum();
            prop_assert_eq!(offsets[samples * 3], expected);
            let values = arena.tensor(&layout.values()).unwrap();
            let flat: Vec<u32> = rows[..samples * 3].iter().flatten().copied().collect();
            prop_assert_eq!(&values.as_slice().unwrap()[..nnz], &flat[..]);
        }
    }

    #[test]
    fn prefix_covers_offsets_when_there_are_no_keys_or_features() {
        // No labels, no dense, no key capacity: both empty buffers sit at offset 0.
        let s = shape(0, 0, 1, 1, 0);
        let (arena, layout) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
        let offsets_at = arena.offset(&layout.row_offsets()).unwrap();
        assert_eq!(layout.used_bytes(&arena, 0).unwrap(), offsets_at + 8);
    }

    #[test]
    fn too_many_keys_and_overflow_are_errors() {
        let s = shape(1, 0, 2, 4, 10);
        let (arena, layout) = BatchLayout::<u32>::plan::<HeapBlock>(s).unwrap();
        assert!(matches!(
            layout.used_bytes(&arena, 11),
            Err(GpuError::Capacity {
                needed: 11,
                available: 10,
                ..
            })
        ));
        let huge = shape(1, 0, usize::MAX / 2, 4, 10);
        assert!(matches!(
            BatchLayout::<u32>::plan::<HeapBlock>(huge),
            Err(GpuError::TooLarge { .. })
        ));
        assert!(matches!(huge.rows(), Err(GpuError::TooLarge { .. })));
    }
}
