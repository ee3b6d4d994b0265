//! The 24 bytes of a `TF_TString`, field for field, and the size packing TensorFlow uses.
//! Nothing here interprets a string; it only says where the bytes are.

use core::mem::{align_of, offset_of, size_of};

use zerocopy::little_endian::U32;

use super::owner::TStringOwner;

/// Bytes a SMALL string holds inline (the 24 bytes less the size byte and the NUL).
pub const SMALL_CAPACITY: usize = 22;

/// The largest length a LARGE or VIEW string can encode on this target.
///
/// Little-endian: the size word loses two bits to the type tag (`usize::MAX >> 2`).
/// Big-endian: TensorFlow's packing shifts only the top byte, so bits 54–55 of the length (on
/// 64-bit; bits 22–23 on 32-bit) land on the tag bits of byte 0 as well as in place. Longer
/// strings would read back as the wrong type — in TensorFlow too — so they are refused:
/// 2⁵⁴ − 1 bytes on 64-bit and 4 MiB − 1 on 32-bit big-endian targets.
pub const MAX_LEN: usize = if cfg!(target_endian = "little") {
    usize::MAX >> 2
} else {
    (1 << ((size_of::<usize>() - 1) * 8 - 2)) - 1
};

/// The largest length an OFFSET string can encode (a little-endian `u32` less the tag bits).
pub const MAX_OFFSET_LEN: usize = (u32::MAX >> 2) as usize;

/// The type tag stored in the low two bits of byte 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum TStringType {
    /// Up to 22 bytes inline, NUL-terminated.
    Small = 0,
    /// Heap bytes owned by the string (`cap + 1` bytes, NUL-terminated).
    Large = 1,
    /// Bytes at a little-endian offset from the string's own address (memory-mappable).
    Offset = 2,
    /// Borrowed bytes, optionally kept alive by a ref-counted owner.
    View = 3,
}

impl TStringType {
    /// The type named by the low two bits of `byte0`.
    #[inline]
    pub const fn from_tag(byte0: u8) -> Self {
        match byte0 & 0b11 {
            0 => TStringType::Small,
            1 => TStringType::Large,
            2 => TStringType::Offset,
            _ => TStringType::View,
        }
    }
}

/// `TF_TString_Large`.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Large {
    pub size: usize,
    pub cap: usize,
    pub ptr: *mut u8,
}

/// `TF_TString_Offset`: every field little-endian on every host.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Offset {
    pub size: U32,
    pub offset: U32,
    pub count: U32,
}

/// `TF_TString_View` with the owner reference TensorFlow added after the RFC.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct View {
    pub size: usize,
    pub ptr: *const u8,
    pub owner: *const TStringOwner,
}

/// `TF_TString_Small`.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Small {
    pub size: u8,
    pub str: [u8; SMALL_CAPACITY + 1],
}

/// The union of `TF_TString`. Its fields are private so that every value starts from
/// [`EMPTY`](Self::EMPTY) or 24 given bytes and changes only through the setters: a field
/// narrower than 24 bytes (LARGE on 32-bit targets) then always lands on initialised bytes, so
/// no byte is ever uninitialised. Every field is integers and raw pointers, which accept any
/// initialised bytes, so each view can be read safely whatever the tag says; what the bytes
/// *mean* is still the tag's to say.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) union Repr {
    small: Small,
    large: Large,
    offset: Offset,
    view: View,
    bytes: [u8; 24],
}

/// Where a SMALL string's bytes start within its 24.
pub(crate) const SMALL_DATA: usize = offset_of!(Small, str);

impl Repr {
    pub const EMPTY: Repr = Repr { bytes: [0; 24] };

    /// The 24 bytes exactly as C sees them.
    #[inline(always)]
    pub(crate) const fn as_bytes(&self) -> &[u8; 24] {
        // SAFETY: every byte is initialised (see the type's docs), and pointer bytes may be
        // read as integers.
        unsafe { &self.bytes }
    }

    /// The SMALL view of the bytes.
    #[inline(always)]
    pub(crate) const fn as_small(&self) -> &Small {
        // SAFETY: every byte is initialised and `Small` is bytes: any value is one.
        unsafe { &self.small }
    }

    /// The LARGE view of the bytes (also a VIEW's size word, data pointer and owner).
    #[inline(always)]
    pub(crate) const fn as_large(&self) -> &Large {
        // SAFETY: every byte is initialised and `Large` is integers and a raw pointer.
        unsafe { &self.large }
    }

    /// The OFFSET view of the bytes.
    #[inline(always)]
    pub(crate) const fn as_offset(&self) -> &Offset {
        // SAFETY: every byte is initialised and `Offset` is integers.
        unsafe { &self.offset }
    }

    /// The VIEW view of the bytes.
    #[inline(always)]
    pub(crate) const fn as_view(&self) -> &View {
        // SAFETY: every byte is initialised and `View` is an integer and raw pointers.
        unsafe { &self.view }
    }

    /// Overwrites the first 24 bytes with a SMALL string (all of them).
    #[inline(always)]
    pub(crate) fn set_small(&mut self, small: Small) {
        self.small = small;
    }

    /// Overwrites the LARGE words; bytes past them (on 32-bit targets) are kept.
    #[inline(always)]
    pub(crate) fn set_large(&mut self, large: Large) {
        self.large = large;
    }

    /// Overwrites the VIEW words; bytes past them (on 32-bit targets) are kept.
    #[inline(always)]
    pub(crate) fn set_view(&mut self, view: View) {
        self.view = view;
    }

    /// The type the tag bits of byte 0 name.
    #[inline(always)]
    pub(crate) const fn tag(&self) -> TStringType {
        TStringType::from_tag(self.as_bytes()[0])
    }

    /// `TF_TString_GetSize`. A SMALL size byte above 22 (possible only in corrupt foreign
    /// bytes) is clamped to 22 so that no read ever leaves the struct.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self.tag() {
            TStringType::Small => {
                core::cmp::min((self.as_small().size >> 2) as usize, SMALL_CAPACITY)
            }
            TStringType::Large => unpack_size(self.as_large().size),
            TStringType::Offset => (self.as_offset().size.get() >> 2) as usize,
            TStringType::View => unpack_size(self.as_view().size),
        }
    }

    /// `TF_TString_GetCapacity`: 22 for SMALL, `cap` for LARGE, 0 for the read-only types.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        match self.tag() {
            TStringType::Small => SMALL_CAPACITY,
            TStringType::Large => self.as_large().cap,
            TStringType::Offset | TStringType::View => 0,
        }
    }
}

// The ABI, checked at compile time on every target this crate builds for.
const _: () = {
    assert!(size_of::<Repr>() == 24);
    assert!(align_of::<Repr>() == align_of::<usize>());
    assert!(offset_of!(Large, size) == 0);
    assert!(offset_of!(Large, cap) == size_of::<usize>());
    assert!(offset_of!(Large, ptr) == 2 * size_of::<usize>());
    assert!(offset_of!(Offset, size) == 0);
    assert!(offset_of!(Offset, offset) == 4);
    assert!(offset_of!(Offset, count) == 8);
    assert!(offset_of!(View, size) == 0);
    assert!(offset_of!(View, ptr) == size_of::<usize>());
    assert!(offset_of!(View, owner) == 2 * size_of::<usize>());
    assert!(offset_of!(Small, size) == 0);
    assert!(offset_of!(Small, str) == 1);
    assert!(size_of::<Small>() == 24);
};

/// Little-endian loads from a slice at a position the caller has checked; the fallback
/// arm is dead code the compiler removes.
#[inline(always)]
fn load8(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(
        b.get(at..at + 8)
            .and_then(|s| s.try_into().ok())
            .unwrap_or([0; 8]),
    )
}

#[inline(always)]
fn load4(b: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(
        b.get(at..at + 4)
            .and_then(|s| s.try_into().ok())
            .unwrap_or([0; 4]),
    ) as u64
}

impl Repr {
    /// A SMALL string of `b` (at most 22 bytes), assembled in registers from overlapping
    /// loads. Copying byte-wise into a stack array and then moving it as whole words stalls
    /// store-to-load forwarding, which cost more than the copy itself (the same trick
    /// `compact_str` uses).
    #[inline(always)]
    pub(crate) fn small(b: &[u8]) -> Repr {
        let n = b.len();
        debug_assert!(n <= SMALL_CAPACITY);
        // The words as they lie in memory: w0 is the size byte and the string's bytes [0, 7),
        // w1 its bytes [7, 15), w2 its bytes [15, 22), each zero past the end. From 8 bytes on,
        // w1 and w2 are single unaligned loads (shifted right to drop what the word before
        // already holds), so no word is spliced from two loads; below 8, two overlapping
        // loads (or, under 4, the first, middle and last byte) give the bytes.
        let size = (n as u64) << 2;
        let (w0, w1, w2) = if n >= 8 {
            let w0 = size | (load8(b, 0) << 8);
            if n >= 16 {
                (w0, load8(b, 7), load8(b, n - 8) >> ((23 - n) * 8))
            } else {
                (w0, load8(b, n - 8) >> ((15 - n) * 8), 0)
            }
        } else {
            let d0 = if n >= 4 {
                load4(b, 0) | (load4(b, n - 4) << ((n - 4) * 8))
            } else if let (Some(&first), Some(&mid), Some(&last)) =
                (b.first(), b.get(n / 2), b.last())
            {
                // 1 to 3 bytes: the first, middle and last cover them all.
                first as u64 | (mid as u64) << (n / 2 * 8) | (last as u64) << ((n - 1) * 8)
            } else {
                0
            };
            (size | (d0 << 8), 0, 0)
        };
        let mut raw = [0u8; 24];
        raw[0..8].copy_from_slice(&w0.to_le_bytes());
        raw[8..16].copy_from_slice(&w1.to_le_bytes());
        raw[16..24].copy_from_slice(&w2.to_le_bytes());
        Repr { bytes: raw }
    }
}

/// Mask of the most significant byte of a `size_t`.
const TOP: usize = !(usize::MAX >> 8);

/// `TF_TString_ToInternalSizeT`: the size word of a LARGE or VIEW string. On big-endian hosts
/// only the top byte (which is byte 0 in memory) is shifted, so the tag stays in byte 0.
#[inline]
pub(crate) const fn pack_size(len: usize, ty: TStringType) -> usize {
    if cfg!(target_endian = "little") {
        (len << 2) | ty as usize
    } else {
        (TOP & (len << 2)) | (!TOP & len) | ((ty as usize) << ((size_of::<usize>() - 1) * 8))
    }
}

/// `TF_TString_ToActualSizeT`, the inverse of [`pack_size`].
#[inline]
pub(crate) const fn unpack_size(word: usize) -> usize {
    if cfg!(target_endian = "little") {
        word >> 2
    } else {
        (((TOP << 2) & word) >> 2) | (!TOP & word)
    }
}

/// `TF_align16`. Callers keep `n <= MAX_LEN + 1`, so this never overflows.
#[inline]
pub(crate) const fn align16(n: usize) -> usize {
    (n + 0xF) & !0xF
}

#[cfg(test)]
mod tests;
