//! [`TString`]: a `TF_TString` owned by Rust code, with TensorFlow's assignment rules and
//! Rust's ownership: `Drop` frees exactly what the string owns.

use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::ctstring;
use super::heap::{NoHeap, StringHeap};
use super::owner::TStringOwner;
use super::repr::{
    Large, MAX_LEN, Repr, SMALL_CAPACITY, TStringType, align16, pack_size, unpack_size,
};

/// What went wrong changing a [`TString`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TStringError {
    /// The length does not fit the size word (two bits go to the type tag).
    TooLong {
        /// The length asked for.
        len: usize,
        /// The largest length this target can encode.
        max: usize,
    },
    /// The heap could not provide a LARGE block of `bytes` bytes. With
    /// [`NoHeap`] this is every string longer than 22 bytes.
    Alloc {
        /// Size of the block asked for (capacity + the NUL byte).
        bytes: usize,
    },
}

impl fmt::Display for TStringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TStringError::TooLong { len, max } => {
                write!(f, "string of {len} bytes exceeds the maximum of {max}")
            }
            TStringError::Alloc { bytes } => {
                write!(f, "heap could not provide {bytes} bytes for a LARGE string")
            }
        }
    }
}

impl core::error::Error for TStringError {}

/// TensorFlow's ABI-stable string: 24 bytes, byte-compatible with `TF_TString`.
///
/// - **SMALL**: up to 22 bytes inline, NUL-terminated.
/// - **LARGE**: bytes on the heap `H` (`cap + 1` bytes, NUL-terminated); only a heap-backed
///   string can be LARGE. The default heap, [`NoHeap`], never allocates.
/// - **VIEW**: borrows bytes for `'a` (owner null), or shares a ref-counted
///   [`TStringOwner`].
/// - **OFFSET**: bytes at a little-endian offset from the string's own address. An OFFSET
///   string only makes sense in place, so safe code never holds one as a value: read them
///   through [`OffsetStrings`](super::OffsetStrings); assigning or cloning one yields a VIEW.
///
/// Equality, ordering and hashing go by content: a SMALL and a VIEW of the same bytes are
/// equal and hash alike (as `[u8]` does).
///
/// ```
/// use tessera_core::tstring::{TString, TStringType};
///
/// let long = [b'x'; 40];
/// let mut s: TString = TString::from_bytes(b"hello").unwrap();
/// assert_eq!(s.string_type(), TStringType::Small);
/// assert_eq!(s.as_str(), Ok("hello"));
///
/// s.assign_view(&long).unwrap();
/// assert_eq!((s.string_type(), s.len(), s.capacity()), (TStringType::View, 40, 0));
///
/// // Without a heap, a string longer than 22 bytes cannot be owned: the error says how much
/// // it would have needed (capacity 47, plus the NUL).
/// assert!(s.as_mut_bytes().is_err());
/// ```
#[repr(C)]
pub struct TString<'a, H: StringHeap = NoHeap> {
    repr: Repr,
    _marker: PhantomData<(&'a [u8], H)>,
}

// SAFETY: a LARGE block is owned uniquely by its string; VIEW bytes are shared `&'a [u8]`
// (which are `Send + Sync`); an owner's callbacks must be thread-safe, which
// `TString::view_with_owner` requires of its caller.
unsafe impl<H: StringHeap> Send for TString<'_, H> {}
// SAFETY: every `&self` method only reads.
unsafe impl<H: StringHeap> Sync for TString<'_, H> {}

impl<'a, H: StringHeap> TString<'a, H> {
    /// The empty SMALL string (24 zero bytes, as `TF_TString_Init` makes it).
    pub const fn new() -> Self {
        TString {
            repr: Repr::EMPTY,
            _marker: PhantomData,
        }
    }

    #[inline]
    fn ptr(&self) -> *const Self {
        self
    }

    #[inline]
    fn ptr_mut(&mut self) -> *mut Self {
        self
    }

    /// An owned copy of `bytes`: SMALL up to 22 bytes, LARGE from `H` beyond.
    #[inline]
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TStringError> {
        let n = bytes.len();
        if n <= SMALL_CAPACITY {
            // The common case, built directly: size byte, bytes, zeroes (the NUL included).
            return Ok(TString {
                repr: Repr::small(bytes),
                _marker: PhantomData,
            });
        }
        Self::large_from_bytes(bytes)
    }

    /// A fresh LARGE copy, with the capacity TensorFlow's copy into an empty string gives:
    /// `align16(n + 1) - 1`.
    fn large_from_bytes(bytes: &[u8]) -> Result<Self, TStringError> {
        let n = bytes.len();
        if n > MAX_LEN {
            return Err(TStringError::TooLong {
                len: n,
                max: MAX_LEN,
            });
        }
        let cap = align16(n + 1) - 1;
        let p = H::allocate(cap + 1)
            .ok_or(TStringError::Alloc { bytes: cap + 1 })?
            .as_ptr();
        // SAFETY: `bytes` is readable for `n` bytes; the fresh block holds `cap + 1 > n` bytes
        // and cannot overlap it.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), p, n) };
        // SAFETY: as above: byte `n` is inside the block.
        let end = unsafe { p.add(n) };
        // SAFETY: as above.
        unsafe { end.write(0) };
        let mut s = Self::new();
        s.repr.set_large(Large {
            size: pack_size(n, TStringType::Large),
            cap,
            ptr: p,
        });
        Ok(s)
    }

    /// Whether the string owns something to free or release: LARGE, or a VIEW with an owner.
    #[inline(always)]
    fn owns_something(&self) -> bool {
        let tag = self.repr_bytes()[0] & 0b11;
        // LARGE (1) and VIEW (3) are the odd tags: SMALL strings pass with one test.
        tag & 1 == 1 && (tag == TStringType::Large as u8 || !self.repr.as_view().owner.is_null())
    }

    /// A VIEW of `bytes`: nothing is copied; the string borrows them for `'a`.
    pub fn view(bytes: &'a [u8]) -> Result<Self, TStringError> {
        let mut s = Self::new();
        s.assign_view(bytes)?;
        Ok(s)
    }

    /// A VIEW kept alive by a ref-counted owner; retains one reference, released on drop.
    ///
    /// # Safety
    /// `owner` must be live, its callbacks thread-safe, and it must keep `len` bytes at `ptr`
    /// readable and unchanged while any reference to it is held.
    pub unsafe fn view_with_owner(
        ptr: *const u8,
        len: usize,
        owner: NonNull<TStringOwner>,
    ) -> Result<Self, TStringError> {
        let mut s = Self::new();
        // SAFETY: `s` is a valid string; the caller vouches for `ptr`, `len` and `owner`.
        unsafe { ctstring::assign_owned_view(s.ptr_mut(), ptr, len, owner)? };
        Ok(s)
    }

    /// Which of the four layouts the string uses.
    #[inline]
    pub fn string_type(&self) -> TStringType {
        TStringType::from_tag(self.repr_bytes()[0])
    }

    /// The type tag (the low two bits of byte 0), read as part of the first word: a lone
    /// byte read makes the compiler store a new string's first word in pieces around it.
    #[inline(always)]
    fn tag_from_word(&self) -> u8 {
        // The first word of any string is its size word.
        let word = self.repr.as_large().size;
        // Byte 0 in memory is the low byte of a little-endian word, the high byte of a
        // big-endian one.
        let byte0 = if cfg!(target_endian = "little") {
            word as u8
        } else {
            (word >> (usize::BITS - 8)) as u8
        };
        byte0 & 0b11
    }

    /// The string's 24 bytes exactly as C sees them.
    #[inline]
    pub fn repr_bytes(&self) -> &[u8; 24] {
        self.repr.as_bytes()
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        // SAFETY: `self` is a valid string and not OFFSET (type invariant).
        unsafe { ctstring::len(self.ptr()) }
    }

    /// Whether the length is zero.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the string can hold without reallocating: 22 for SMALL, `cap` for LARGE, 0 for
    /// the read-only VIEW and OFFSET.
    #[inline]
    pub fn capacity(&self) -> usize {
        // SAFETY: `self` is a valid string.
        unsafe { ctstring::capacity(self.ptr()) }
    }

    /// The bytes (no NUL).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        let b0 = self.repr_bytes()[0];
        if b0 & 0b11 == TStringType::Small as u8 {
            // SAFETY: type invariant of safe code: a SMALL size is at most 22, so the bytes lie
            // inside the string's own 23.
            return unsafe {
                core::slice::from_raw_parts(self.repr.as_small().str.as_ptr(), (b0 >> 2) as usize)
            };
        }
        let tag = b0 & 0b11;
        if tag == TStringType::Offset as u8 {
            // A `TString` held by value is never OFFSET: that case, reachable only through
            // `unsafe` casts, takes the checked path.
            return offset_bytes(self);
        }
        // LARGE and VIEW share the size word; only the pointer's place differs, so pick it
        // with a select rather than a jump table.
        let len = unpack_size(self.repr.as_large().size);
        let ptr = if tag == TStringType::Large as u8 {
            self.repr.as_large().ptr.cast_const()
        } else {
            self.repr.as_view().ptr
        };
        // SAFETY: type invariant of safe code: a LARGE or VIEW pointer is readable for its
        // length while `self` is borrowed.
        unsafe { slice_or_empty(ptr, len) }
    }

    /// The bytes as UTF-8, or where they stop being UTF-8.
    #[inline]
    pub fn as_str(&self) -> Result<&str, core::str::Utf8Error> {
        core::str::from_utf8(self.as_bytes())
    }

    /// Pointer to the first byte (`TF_TString_GetDataPointer`).
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        // SAFETY: `self` is a valid string.
        unsafe { ctstring::data_ptr(self.ptr()) }
    }

    /// The owner of a VIEW, if it has one.
    pub fn owner(&self) -> Option<NonNull<TStringOwner>> {
        match self.string_type() {
            TStringType::View => NonNull::new(self.repr.as_view().owner.cast_mut()),
            _ => None,
        }
    }

    /// Mutable bytes. A VIEW is first copied into an owned SMALL or LARGE string
    /// (`TF_TString_GetMutableDataPointer`).
    pub fn as_mut_bytes(&mut self) -> Result<&mut [u8], TStringError> {
        let n = self.len();
        // SAFETY: `self` is a valid string.
        let p = unsafe { ctstring::mutable_data_ptr(self.ptr_mut()) }?;
        Ok(if n == 0 {
            &mut []
        } else {
            // SAFETY: the pointer covers the string's `n` initialised bytes, and the slice
            // borrows `self` mutably, so nothing else reaches them.
            unsafe { core::slice::from_raw_parts_mut(p, n) }
        })
    }

    /// Sets the length, filling new bytes with `fill` (`TF_TString_Resize`). Lengths up to 22
    /// become SMALL (freeing a LARGE block); longer ones become LARGE with TensorFlow's
    /// capacity rule: grow to `align16(n + 1) - 1`, shrink to `align16(cap / 2 + 1) - 1` when
    /// below half the capacity, otherwise keep the capacity.
    pub fn resize(&mut self, new_len: usize, fill: u8) -> Result<(), TStringError> {
        // SAFETY: valid string.
        unsafe { ctstring::resize(self.ptr_mut(), new_len, fill).map(|_| ()) }
    }

    /// Shortens to `new_len` bytes; a no-op when already that short.
    pub fn truncate(&mut self, new_len: usize) -> Result<(), TStringError> {
        if new_len >= self.len() {
            return Ok(());
        }
        self.resize(new_len, 0)
    }

    /// Empties the string, freeing a LARGE block or releasing a VIEW.
    pub fn clear(&mut self) {
        // SAFETY: valid string; afterwards it is the empty SMALL string.
        unsafe { ctstring::reset(self.ptr_mut()) }
    }

    /// Makes room for `cap` bytes (`TF_TString_Reserve`).
    pub fn reserve(&mut self, cap: usize) -> Result<(), TStringError> {
        // SAFETY: valid string.
        unsafe { ctstring::reserve(self.ptr_mut(), cap) }
    }

    /// Makes room for `cap` bytes, at least doubling when it grows
    /// (`TF_TString_ReserveAmortized`).
    pub fn reserve_amortized(&mut self, cap: usize) -> Result<(), TStringError> {
        // SAFETY: valid string.
        unsafe { ctstring::reserve_amortized(self.ptr_mut(), cap) }
    }

    /// Replaces the contents with a copy of `bytes` (`TF_TString_Copy`).
    pub fn copy_from(&mut self, bytes: &[u8]) -> Result<(), TStringError> {
        // SAFETY: valid string; `bytes` cannot alias `self`, which is borrowed mutably.
        unsafe { ctstring::copy(self.ptr_mut(), bytes.as_ptr(), bytes.len()) }
    }

    /// Replaces the contents with a copy of `bytes`, keeping a LARGE block that is big
    /// enough, even for a string short enough to be SMALL, instead of shrinking or freeing it.
    /// For strings refilled batch after batch: once warm, this never allocates.
    pub fn copy_reusing(&mut self, bytes: &[u8]) -> Result<(), TStringError> {
        // SAFETY: valid string; `bytes` cannot alias `self`.
        unsafe { ctstring::copy_reusing(self.ptr_mut(), bytes.as_ptr(), bytes.len()) }
    }

    /// Makes the string a VIEW of `bytes` (`TF_TString_AssignView`).
    pub fn assign_view(&mut self, bytes: &'a [u8]) -> Result<(), TStringError> {
        // SAFETY: valid string; `bytes` outlives `'a`, which bounds the string's use.
        unsafe { ctstring::assign_view(self.ptr_mut(), bytes.as_ptr(), bytes.len()) }
    }

    /// Takes `src`'s value by TensorFlow's assign rule: SMALL and VIEW copy as they are, LARGE
    /// is deep-copied (`TF_TString_Assign`).
    pub fn assign(&mut self, src: &TString<'a, H>) -> Result<(), TStringError> {
        // SAFETY: both are valid strings; `src` is not OFFSET (type invariant) and its VIEW
        // bytes live for `'a`.
        unsafe { ctstring::assign(self.ptr_mut(), src.ptr()) }
    }

    /// Appends a copy of `bytes`, growing amortised (`TF_TString_AppendN`).
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), TStringError> {
        // SAFETY: valid string; `bytes` cannot alias `self`.
        unsafe { ctstring::append_n(self.ptr_mut(), bytes.as_ptr(), bytes.len()) }
    }

    /// A copy by [`assign`](Self::assign)'s rules, reporting allocation failure.
    pub fn try_clone(&self) -> Result<Self, TStringError> {
        let mut s = Self::new();
        s.assign(self)?;
        Ok(s)
    }

    /// The largest length a string can have on this target.
    pub const MAX_LEN: usize = MAX_LEN;

    /// Bytes a SMALL string holds inline.
    pub const SMALL_CAPACITY: usize = SMALL_CAPACITY;
}

impl<H: StringHeap> Drop for TString<'_, H> {
    #[inline]
    fn drop(&mut self) {
        // Kept this small, and given the words rather than `self`, so that the compiler
        // inlines it even where it is cold (the cleanup of a `Vec::push` that could not grow)
        // and no drop takes a new string's address: a string whose address is taken lives in
        // a stack slot, copied out with a 16-byte load over two 8-byte stores, which stalls
        // store-to-load forwarding. Pushing SMALL strings into a `Vec` ran at a third of the
        // speed that way.
        let tag = self.tag_from_word();
        // LARGE (1) and VIEW (3) are the odd tags; whether a VIEW has an owner is left to the
        // out-of-line release.
        if tag & 1 == 1 {
            // LARGE's `cap` and `ptr` are the words where a VIEW keeps its data pointer and
            // owner, so `ptr` is the owner for a VIEW.
            let Large { cap, ptr, .. } = *self.repr.as_large();
            release::<H>(tag, cap, ptr);
        }
    }
}

/// The bytes of an OFFSET string, reachable only through `unsafe` casts of foreign memory.
#[cold]
#[inline(never)]
fn offset_bytes<'s, H: StringHeap>(s: &'s TString<'_, H>) -> &'s [u8] {
    // SAFETY: the caller of the `unsafe` cast vouched that the OFFSET data is readable.
    unsafe { ctstring::bytes(s) }
}

/// What dropping a string does when it owns something, out of line: see
/// [`ctstring::release_words`].
#[cold]
#[inline(never)]
fn release<H: StringHeap>(tag: u8, cap: usize, ptr: *mut u8) {
    // SAFETY: the words of a valid string being dropped, released once.
    unsafe { ctstring::release_words::<H>(tag, cap, ptr) }
}

/// `len` bytes at `p`, or the empty slice for a zero length (whatever `p` is).
///
/// # Safety
/// For a non-zero length, `p` must be readable for `len` bytes for the returned lifetime.
#[inline]
unsafe fn slice_or_empty<'s>(p: *const u8, len: usize) -> &'s [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: `p` is readable for `len` bytes for `'s` (caller).
        unsafe { core::slice::from_raw_parts(p, len) }
    }
}

impl<H: StringHeap> Default for TString<'_, H> {
    fn default() -> Self {
        Self::new()
    }
}

/// Copies by TensorFlow's assign rule; allocation failure goes to
/// [`StringHeap::out_of_memory`]. Cloning a SMALL or VIEW string never allocates.
impl<H: StringHeap> Clone for TString<'_, H> {
    #[inline]
    fn clone(&self) -> Self {
        let tag = self.repr_bytes()[0] & 0b11;
        // SMALL first, with one test: the common case.
        let plain = tag == TStringType::Small as u8
            || (tag == TStringType::View as u8 && !self.owns_something());
        if plain {
            // SMALL and plain VIEW copy as they are: 24 bytes, nothing to count.
            return TString {
                repr: self.repr,
                _marker: PhantomData,
            };
        }
        let copy = if self.string_type() == TStringType::Large {
            Self::large_from_bytes(self.as_bytes())
        } else {
            self.try_clone()
        };
        match copy {
            Ok(s) => s,
            Err(TStringError::Alloc { bytes }) => H::out_of_memory(bytes),
            // A valid string's length always fits, so copying it cannot be too long.
            Err(TStringError::TooLong { len, .. }) => H::out_of_memory(len),
        }
    }
}

impl<H: StringHeap> AsRef<[u8]> for TString<'_, H> {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl<H: StringHeap> core::borrow::Borrow<[u8]> for TString<'_, H> {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl<H: StringHeap> PartialEq for TString<'_, H> {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<H: StringHeap> Eq for TString<'_, H> {}

impl<H: StringHeap> PartialEq<[u8]> for TString<'_, H> {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_bytes() == other
    }
}

impl<H: StringHeap> PartialEq<&[u8]> for TString<'_, H> {
    fn eq(&self, other: &&[u8]) -> bool {
        self.as_bytes() == *other
    }
}

impl<H: StringHeap> PartialEq<str> for TString<'_, H> {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<H: StringHeap> PartialEq<&str> for TString<'_, H> {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<H: StringHeap> PartialOrd for TString<'_, H> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<H: StringHeap> Ord for TString<'_, H> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl<H: StringHeap> Hash for TString<'_, H> {
    fn hash<S: Hasher>(&self, state: &mut S) {
        self.as_bytes().hash(state)
    }
}

impl<H: StringHeap> fmt::Debug for TString<'_, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ty = self.string_type();
        match self.as_str() {
            Ok(s) => write!(f, "TString::{ty:?}({s:?})"),
            Err(_) => write!(f, "TString::{ty:?}({:?})", self.as_bytes()),
        }
    }
}
