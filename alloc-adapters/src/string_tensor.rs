//! An owned string tensor: a contiguous array of `TF_TString`s (TensorFlow's DT_STRING layout)
//! that keeps its memory across batches.

use alloc::vec::Vec;
use core::fmt;

use tessera_core::strings::{
    StringTensorError, TfliteEncodeError, TfliteStrings, encode_tflite, tflite_encoded_len,
};
use tessera_core::tstring::{StringHeap, TString, TStringError};

use crate::DefaultHeap;

/// A growable DT_STRING tensor.
///
/// [`clear`](Self::clear) keeps both the array and every string's LARGE block, and
/// [`push`](Self::push) refills a kept string in place, so a tensor refilled batch after batch
/// stops allocating once it has seen its largest batch (proved by a counting-allocator test).
/// [`shrink_to_fit`](Self::shrink_to_fit) gives the memory back.
///
/// ```
/// use tessera_alloc::StringTensor;
///
/// let mut t = StringTensor::new();
/// for batch in [["ab", "a string of more than 22 bytes"], ["cd", "ef"]] {
///     t.clear();
///     for s in batch {
///         t.push(s.as_bytes()).unwrap();
///     }
/// }
/// assert_eq!(t.len(), 2);
/// assert_eq!(t.get(1), Some(&b"ef"[..]));
/// let mut buf = vec![0u8; t.tflite_len().unwrap()];
/// t.encode_tflite(&mut buf).unwrap();
/// ```
pub struct StringTensor<'a, H: StringHeap = DefaultHeap> {
    // `slots[..len]` are the tensor; `slots[len..]` are cleared strings kept for their blocks.
    slots: Vec<TString<'a, H>>,
    len: usize,
}

impl<'a> StringTensor<'a, DefaultHeap> {
    /// An empty tensor on the [`DefaultHeap`].
    pub const fn new() -> Self {
        Self::with_heap()
    }

    /// An empty tensor on the [`DefaultHeap`] with room for `n` strings.
    pub fn with_capacity(n: usize) -> Self {
        Self::with_heap_and_capacity(n)
    }
}

impl<'a, H: StringHeap> StringTensor<'a, H> {
    /// An empty tensor whose LARGE strings come from `H`.
    pub const fn with_heap() -> Self {
        StringTensor {
            slots: Vec::new(),
            len: 0,
        }
    }

    /// An empty tensor on `H` with room for `n` strings.
    pub fn with_heap_and_capacity(n: usize) -> Self {
        StringTensor {
            slots: Vec::with_capacity(n),
            len: 0,
        }
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no strings.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn next_slot(&mut self) -> &mut TString<'a, H> {
        if self.len == self.slots.len() {
            self.slots.push(TString::new());
        }
        self.len += 1;
        &mut self.slots[self.len - 1]
    }

    /// Appends a copy of `bytes`, reusing the block of a string kept by `clear`.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), TStringError> {
        let slot = self.next_slot();
        let r = slot.copy_reusing(bytes);
        if r.is_err() {
            self.len -= 1;
        }
        r
    }

    /// Appends a VIEW of `bytes` (no copy).
    pub fn push_view(&mut self, bytes: &'a [u8]) -> Result<(), TStringError> {
        let slot = self.next_slot();
        // A kept LARGE block is freed here: a view needs none.
        let r = slot.assign_view(bytes);
        if r.is_err() {
            self.len -= 1;
        }
        r
    }

    /// Replaces string `i` with a copy of `bytes`; `None` if `i` is out of range.
    pub fn set(&mut self, i: usize, bytes: &[u8]) -> Option<Result<(), TStringError>> {
        self.as_mut_slice()
            .get_mut(i)
            .map(|s| s.copy_reusing(bytes))
    }

    /// String `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.as_slice().get(i).map(TString::as_bytes)
    }

    /// The strings as `TF_TString`s: a contiguous DT_STRING array C code can read.
    pub fn as_slice(&self) -> &[TString<'a, H>] {
        &self.slots[..self.len]
    }

    /// The strings, mutably (each keeps TensorFlow's assignment rules).
    pub fn as_mut_slice(&mut self) -> &mut [TString<'a, H>] {
        &mut self.slots[..self.len]
    }

    /// The strings' bytes in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + DoubleEndedIterator + '_ {
        self.as_slice().iter().map(TString::as_bytes)
    }

    /// Removes every string, keeping the array and the strings' blocks for reuse.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the first `n` strings.
    pub fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n);
    }

    /// Frees the kept strings past the length and the spare array capacity.
    pub fn shrink_to_fit(&mut self) {
        self.slots.truncate(self.len);
        self.slots.shrink_to_fit();
    }

    /// Appends copies of every string of a TFLite tensor.
    pub fn extend_from_tflite(&mut self, tensor: TfliteStrings<'_>) -> Result<(), TStringError> {
        self.slots
            .reserve(tensor.len().saturating_sub(self.slots.len() - self.len));
        tensor.iter().try_for_each(|s| self.push(s))
    }

    /// Appends VIEWs of every string of a TFLite tensor (no copy).
    pub fn extend_views_from_tflite(
        &mut self,
        tensor: TfliteStrings<'a>,
    ) -> Result<(), TStringError> {
        tensor.iter().try_for_each(|s| self.push_view(s))
    }

    /// Bytes of the TFLite encoding of this tensor.
    pub fn tflite_len(&self) -> Result<usize, StringTensorError> {
        tflite_encoded_len(self.iter())
    }

    /// Encodes the tensor as a TFLite string buffer into `out`; returns the bytes written.
    pub fn encode_tflite(&self, out: &mut [u8]) -> Result<usize, TfliteEncodeError> {
        encode_tflite(self.as_slice(), out)
    }
}

impl<H: StringHeap> Default for StringTensor<'_, H> {
    fn default() -> Self {
        Self::with_heap()
    }
}

impl<H: StringHeap> fmt::Debug for StringTensor<'_, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'s, 'a, H: StringHeap> IntoIterator for &'s StringTensor<'a, H> {
    type Item = &'s TString<'a, H>;
    type IntoIter = core::slice::Iter<'s, TString<'a, H>>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests;
