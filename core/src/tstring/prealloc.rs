//! The RFC's PREALLOC strings without a heap: an array of `TF_TString`s whose long strings
//! live in one caller-provided region, each in a fixed slot, referenced by plain VIEWs (so C
//! code never frees them) and rewritten in place. Assigning never allocates.

use core::fmt;
use core::marker::PhantomData;

use crate::error::CapacityError;

use super::ctstring;
use super::heap::NoHeap;
use super::repr::SMALL_CAPACITY;
use super::string::TString;

/// Why a [`PreallocStrings`] assignment failed. The array is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PreallocError {
    /// No string at this index.
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// Number of strings.
        len: usize,
    },
    /// The string is longer than a slot.
    TooLong {
        /// The index assigned.
        index: usize,
        /// Length of the string.
        len: usize,
        /// Bytes per slot.
        slot_capacity: usize,
    },
}

impl fmt::Display for PreallocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PreallocError::IndexOutOfRange { index, len } => {
                write!(f, "string index {index} out of range for {len} strings")
            }
            PreallocError::TooLong {
                index,
                len,
                slot_capacity,
            } => write!(
                f,
                "string {index}: {len} bytes exceed the slot capacity of {slot_capacity}"
            ),
        }
    }
}

impl core::error::Error for PreallocError {}

/// `N` strings backed by one region of `N × slot_capacity` bytes.
///
/// Strings of up to 22 bytes are stored SMALL, inline; longer ones are copied into the
/// string's own slot and stored as a VIEW of it. The `TString` array is an ordinary
/// DT_STRING array that C code may read (and `TF_TString_Dealloc`, which leaves plain VIEWs
/// alone).
///
/// ```
/// use tessera_core::tstring::{PreallocStrings, TString, TStringType};
///
/// let mut region = [0u8; 4 * 64];
/// let mut strings: [TString; 4] = Default::default();
/// let mut array = PreallocStrings::new(&mut strings, &mut region, 64).unwrap();
/// array.set(0, b"short").unwrap();
/// array.set(1, &[b'x'; 50]).unwrap();
/// assert_eq!(array.as_tstrings()[1].string_type(), TStringType::View);
/// assert!(array.set(2, &[b'y'; 65]).is_err()); // longer than a slot
/// ```
pub struct PreallocStrings<'s, 'r> {
    strings: &'s mut [TString<'r, NoHeap>],
    // Raw, not `&'r mut [u8]`: the VIEWs alias the region, and every access goes through
    // this one pointer so that writes to one slot never invalidate views of another.
    region: *mut u8,
    slot_capacity: usize,
    _region: PhantomData<&'r mut [u8]>,
}

impl<'s, 'r> PreallocStrings<'s, 'r> {
    /// Region bytes needed for `count` strings of up to `slot_capacity` bytes, or `None` on
    /// overflow.
    pub const fn region_bytes(count: usize, slot_capacity: usize) -> Option<usize> {
        count.checked_mul(slot_capacity)
    }

    /// Takes the string array (every string is cleared) and its region. Too small a region
    /// is an error giving the bytes needed.
    pub fn new(
        strings: &'s mut [TString<'r, NoHeap>],
        region: &'r mut [u8],
        slot_capacity: usize,
    ) -> Result<Self, CapacityError> {
        let needed = Self::region_bytes(strings.len(), slot_capacity).ok_or(CapacityError {
            needed: usize::MAX,
            available: region.len(),
        })?;
        if needed > region.len() {
            return Err(CapacityError {
                needed,
                available: region.len(),
            });
        }
        for s in strings.iter_mut() {
            s.clear();
        }
        Ok(PreallocStrings {
            strings,
            region: region.as_mut_ptr(),
            slot_capacity,
            _region: PhantomData,
        })
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether there are no strings.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// Bytes per slot.
    pub fn slot_capacity(&self) -> usize {
        self.slot_capacity
    }

    /// Sets string `index` to a copy of `bytes`, in place. Never allocates.
    pub fn set(&mut self, index: usize, bytes: &[u8]) -> Result<(), PreallocError> {
        let len = self.strings.len();
        let slot_capacity = self.slot_capacity;
        let s = self
            .strings
            .get_mut(index)
            .ok_or(PreallocError::IndexOutOfRange { index, len })?;
        if bytes.len() <= SMALL_CAPACITY {
            // Cannot fail: a SMALL copy needs no heap.
            return s.copy_from(bytes).map_err(|_| PreallocError::TooLong {
                index,
                len: bytes.len(),
                slot_capacity,
            });
        }
        if bytes.len() > slot_capacity {
            return Err(PreallocError::TooLong {
                index,
                len: bytes.len(),
                slot_capacity,
            });
        }
        // SAFETY: `new` checked the region holds `len * slot_capacity` bytes, so slot `index`
        // is in bounds; `bytes` cannot alias the region, which `self` borrows mutably for
        // `'r`. The VIEW points into the region, which outlives `'r`.
        let slot = unsafe { self.region.add(index * slot_capacity) };
        // SAFETY: `slot` has `slot_capacity >= bytes.len()` bytes of the region (as above),
        // which `bytes` cannot overlap.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), slot, bytes.len()) };
        // SAFETY: `s` is a valid string of this array; the VIEW's bytes lie in the region,
        // which outlives `'r`.
        let view = unsafe { ctstring::assign_view(s, slot, bytes.len()) };
        debug_assert!(view.is_ok());
        Ok(())
    }

    /// String `index`.
    pub fn get(&self, index: usize) -> Option<&[u8]> {
        self.strings.get(index).map(TString::as_bytes)
    }

    /// Empties every string; the region is kept.
    pub fn clear(&mut self) {
        for s in self.strings.iter_mut() {
            s.clear();
        }
    }

    /// The `TF_TString` array, for C code or for encoding.
    pub fn as_tstrings(&self) -> &[TString<'r, NoHeap>] {
        self.strings
    }
}

impl fmt::Debug for PreallocStrings<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreallocStrings")
            .field("strings", &self.strings)
            .field("slot_capacity", &self.slot_capacity)
            .finish()
    }
}
