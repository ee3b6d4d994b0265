//! Handles to reserved buffers: what `reserve` returns and what, after allocation, the arena
//! turns into tensors. A handle is a slot index (4 bytes): the shape lives in the arena's
//! table, so handles are free to keep and copy.

use core::marker::PhantomData;

use crate::tensor::{DType, Element};

/// A reserved tensor of `T`. After allocation, [`Arena::tensor`](super::Arena::tensor) and
/// [`Arena::tensor_mut`](super::Arena::tensor_mut) turn it into a typed tensor;
/// [`Arena::layout`](super::Arena::layout) gives its shape at any time.
///
/// A handle belongs to the arena that made it (until its next reset); given to another, it is
/// refused as [`UnknownHandle`](super::ArenaError::UnknownHandle) unless that arena happens to
/// have a tensor slot of the same index and dtype, which it then names — never undefined
/// behaviour.
#[derive(Debug)]
pub struct TensorHandle<T> {
    pub(crate) slot: u32,
    pub(crate) elem: PhantomData<fn() -> T>,
}

impl<T> Clone for TensorHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for TensorHandle<T> {}

impl<T> PartialEq for TensorHandle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.slot == other.slot
    }
}

impl<T> Eq for TensorHandle<T> {}

impl<T: Element> TensorHandle<T> {
    /// Its index in the arena's slot table.
    pub fn slot(&self) -> usize {
        self.slot as usize
    }

    /// The same buffer, type-erased (for [`Arena::bags_mut`](super::Arena::bags_mut) over
    /// tensors of different types).
    pub fn erase(&self) -> BagHandle {
        BagHandle {
            slot: self.slot,
            dtype: T::DTYPE,
        }
    }
}

/// A reserved tensor whose dtype is known at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BagHandle {
    pub(crate) slot: u32,
    pub(crate) dtype: DType,
}

impl BagHandle {
    /// Its element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Its index in the arena's slot table.
    pub fn slot(&self) -> usize {
        self.slot as usize
    }
}

/// A block (HugeCTR's `BufferBlock2`): tensors of `T` reserved with
/// [`Arena::reserve_in`](super::Arena::reserve_in) are placed back to back in it, and after
/// allocation [`Arena::block`](super::Arena::block) gives all of them as one 1-D tensor (all
/// the weights, say, for one optimizer step).
#[derive(Debug)]
pub struct BlockHandle<T> {
    pub(crate) slot: u32,
    pub(crate) elem: PhantomData<fn() -> T>,
}

impl<T> Clone for BlockHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for BlockHandle<T> {}

impl<T> BlockHandle<T> {
    /// Its index in the arena's slot table.
    pub fn slot(&self) -> usize {
        self.slot as usize
    }
}
