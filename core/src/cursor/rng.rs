//! [`SplitMix64`]: a small seeded generator for shuffling, so `core` needs no `rand` and a
//! seed gives the same order on every target.

/// Steele, Lea and Flood's SplitMix64: 64 bits of state, one add and two multiplies per
/// output, and every seed (zero included) usable. Not for cryptography.
///
/// ```
/// use tessera_core::cursor::SplitMix64;
///
/// let mut rng = SplitMix64::new(0);
/// assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf); // the reference sequence
/// assert!(rng.below(10) < 10);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    #[inline]
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub const fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = self.state;
        let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..n`; 0 when `n` is 0.
    ///
    /// Lemire's multiply-and-reject: a plain `next_u64() % n` would favour small results
    /// whenever `n` does not divide 2⁶⁴, and shuffles must not.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut product = u128::from(self.next_u64()) * u128::from(n);
        if (product as u64) < n {
            // Low halves below 2⁶⁴ mod n are the surplus that would bias the result.
            let threshold = n.wrapping_neg() % n;
            while (product as u64) < threshold {
                product = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (product >> 64) as u64
    }
}
