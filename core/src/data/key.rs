//! Key types of the categorical slots: HugeCTR's `unsigned int` (the default) or `long long`
//! (`input_key_type`), read from little-endian bytes.

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for i64 {}
}

/// A categorical key type of the data path: `u32` or `i64`, as HugeCTR configures it.
///
/// Sealed: the decoders rely on `WIDTH` matching the in-file width. A CSR batch uses the key
/// type for its row offsets too, as HugeCTR's `CSR<T>` does, so offsets must fit in `K`
/// ([`Csr::new`](super::Csr::new) checks the capacity once).
pub trait Key: sealed::Sealed + Copy + Default + Eq + Ord + core::fmt::Debug + 'static {
    /// Bytes per key in a file.
    const WIDTH: usize;
    /// The largest value of the type, as `u64`.
    const MAX: u64;
    /// The key stored at the start of `bytes` (little-endian). `bytes.len() >= WIDTH`.
    fn from_le_slice(bytes: &[u8]) -> Self;
    /// Appends the little-endian bytes of `self` to the front of `out` (`out.len() >= WIDTH`).
    fn write_le(self, out: &mut [u8]);
    /// `n` as a key, if it fits (row offsets are stored as keys).
    fn from_usize(n: usize) -> Option<Self>;
    /// The key as a row index into a table, if non-negative and within `usize`.
    fn to_index(self) -> Option<usize>;
    /// The key as `i128`, wide enough for either type's full range (for offsets and messages).
    fn to_i128(self) -> i128;
    /// `v` as a key, if it fits.
    fn from_i128(v: i128) -> Option<Self>;
}

/// One impl per key type: little-endian reads and writes of `$width` bytes.
macro_rules! key {
    ($t:ty, $width:literal) => {
        impl Key for $t {
            const WIDTH: usize = $width;
            const MAX: u64 = <$t>::MAX as u64;
            #[inline(always)]
            fn from_le_slice(bytes: &[u8]) -> Self {
                let mut b = [0u8; $width];
                b.copy_from_slice(&bytes[..$width]);
                <$t>::from_le_bytes(b)
            }
            #[inline(always)]
            fn write_le(self, out: &mut [u8]) {
                out[..$width].copy_from_slice(&self.to_le_bytes());
            }
            #[inline(always)]
            fn from_usize(n: usize) -> Option<Self> {
                <$t>::try_from(n).ok()
            }
            #[inline(always)]
            fn to_index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            fn to_i128(self) -> i128 {
                i128::from(self)
            }
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
    };
}

key!(u32, 4);
key!(i64, 8);
