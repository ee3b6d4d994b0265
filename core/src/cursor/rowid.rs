//! [`RowId`]: ML.NET's 128-bit `DataViewRowId`, a row's identity that survives shuffling,
//! filtering and one-to-many transforms, derived with MurmurHash3's x64 128-bit rounds.

use core::cmp::Ordering;
use core::fmt;

/// MurmurHash3 x64-128 multiplier for the first lane.
const C1: u64 = 0x87c3_7b91_1142_53d5;
/// MurmurHash3 x64-128 multiplier for the second lane.
const C2: u64 = 0x4cf5_ad43_2745_937f;
/// What [`RowId::fork`] mixes into the low lane: a block with `k1 = 1`, `k2 = 0`.
const FORK_MIX: u64 = C1.rotate_left(31).wrapping_mul(C2);

/// A row's 128-bit identity, byte-compatible with ML.NET's `DataViewRowId` (`Low`, then
/// `High`).
///
/// An id is not data: it says which row is which when the same rows are seen in different
/// orders (a shuffled pass, a cursor set), so that per-row state such as SDCA's dual
/// variables follows the row. Within one cursor ids are unique, ideally, and in practice
/// collisions are only astronomically improbable: they are hash states, and 128 bits keep the
/// birthday bound far above any dataset (64 bits would not: `√2⁶⁴` rows is a few billion).
///
/// # Acceptable sets
/// ML.NET calls a set of ids *acceptable* when it is no likelier than chance to collide, and
/// promises that these operations keep sets acceptable (and nothing else is promised):
/// 1. Consecutive numbers from any start: [`RowId::from_position`] over a loader's rows.
/// 2. Any subset of an acceptable set: a filter or a row-to-row transform passes its input's
///    ids through unchanged.
/// 3. [`fork`](Self::fork) applied exactly once to each id of an acceptable set.
/// 4. For each id, its fork followed by any number of [`next`](Self::next)s: a one-to-many
///    transform gives input `id` the outputs `id.fork()`, `id.fork().next()`, ….
/// 5. Several acceptable sets, each [`combine`](Self::combine)d with its own distinct id
///    from another acceptable set (joins, Cartesian products), unioned.
/// 6. Any number of `next`s applied to the members of the sets of 5.
///
/// So a shuffle reorders ids but never changes them, a filter drops ids but never changes
/// them, and no operation may hash the same id with the same data twice and call the
/// results two rows. Ids need not relate across different views of the "same" data (after a
/// transform, a cache or a save); they only have to agree across cursors of one view.
///
/// Ordering compares `high`, then `low`, as ML.NET's `CompareTo` does.
///
/// ```
/// use tessera_core::cursor::RowId;
///
/// // A loader numbers its rows; a transform emitting two rows per input forks, then steps.
/// let input = RowId::from_position(7);
/// let first = input.fork();
/// let second = first.next();
/// assert_ne!(first, input);
/// assert_ne!(second, first);
/// // The same derivation always gives the same ids: they are reproducible across passes.
/// assert_eq!(RowId::from_position(7).fork().next(), second);
/// assert!(RowId::new(5, 0) < RowId::new(0, 1)); // `high` decides first
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C)]
pub struct RowId {
    /// The low 64 bits (`DataViewRowId.Low`).
    pub low: u64,
    /// The high 64 bits (`DataViewRowId.High`).
    pub high: u64,
}

impl RowId {
    /// The id with these halves.
    #[inline]
    pub const fn new(low: u64, high: u64) -> Self {
        RowId { low, high }
    }

    /// The id a loader gives the row at `position`: `(position, 0)` (acceptable-set rule 1).
    #[inline]
    pub const fn from_position(position: u64) -> Self {
        RowId {
            low: position,
            high: 0,
        }
    }

    /// One Murmur round over an all-zero block: the id after this one in a chain started by
    /// [`fork`](Self::fork).
    #[inline]
    #[must_use]
    pub const fn next(self) -> Self {
        let h1 = self.low.rotate_left(27).wrapping_add(self.high);
        let h1 = h1.wrapping_mul(5).wrapping_add(0x52dc_e729);
        let h2 = self.high.rotate_left(31).wrapping_add(h1);
        let h2 = h2.wrapping_mul(5).wrapping_add(0x3849_5ab5);
        RowId { low: h1, high: h2 }
    }

    /// One Murmur round over the block `(1, 0)`: an id derived from this one by hashing
    /// different data than [`next`](Self::next) does, for the first output of a one-to-many
    /// transform (acceptable-set rules 3 and 4).
    #[inline]
    #[must_use]
    pub const fn fork(self) -> Self {
        let RowId { low, high } = self.next();
        // ML.NET mixes the block in after the round rather than before it, as Murmur would;
        // kept so that ids match ML.NET's bit for bit.
        RowId {
            low: low ^ FORK_MIX,
            high,
        }
    }

    /// One Murmur round over `other.fork()` as the block: this id hashed with another, for
    /// joins and products (acceptable-set rule 5).
    #[inline]
    #[must_use]
    pub const fn combine(self, other: RowId) -> Self {
        let other = other.fork();
        let k1 = other.low.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        let h1 = (self.low ^ k1).rotate_left(27).wrapping_add(self.high);
        let h1 = h1.wrapping_mul(5).wrapping_add(0x52dc_e729);
        let k2 = other.high.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        let h2 = (self.high ^ k2).rotate_left(31).wrapping_add(h1);
        let h2 = h2.wrapping_mul(5).wrapping_add(0x3849_5ab5);
        RowId { low: h1, high: h2 }
    }

    /// ML.NET's `DataViewRowId.GetHashCode()`: the 32-bit hash .NET hash tables use for the
    /// id, `(int)((uint)Low ^ (uint)(Low >> 32) ^ (uint)(High << 7) ^ (uint)(High >> 57) ^
    /// (uint)(High >> 25))`, so tables keyed by ids can be laid out as ML.NET lays them out.
    /// (Rust's `Hash` for `RowId` is unrelated.)
    ///
    /// ```
    /// use tessera_core::cursor::RowId;
    ///
    /// assert_eq!(RowId::new(0, 1).hash_code(), 128); // High << 7
    /// ```
    #[inline]
    pub const fn hash_code(self) -> i32 {
        let (low, high) = (self.low, self.high);
        (low as u32
            ^ (low >> 32) as u32
            ^ (high << 7) as u32
            ^ (high >> 57) as u32
            ^ (high >> (57 - 32)) as u32) as i32
    }
}

/// ML.NET's `DataViewRowId.ToString()`: `string.Format("{0:x16}{1:x16}", High, Low)`, 32
/// lowercase hex digits, `high` first.
///
/// ```
/// use tessera_core::cursor::RowId;
///
/// let id = RowId::new(0x2a, 1);
/// assert_eq!(format!("{id}"), "0000000000000001000000000000002a");
/// ```
impl fmt::Display for RowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}{:016x}", self.high, self.low)
    }
}

impl From<u64> for RowId {
    /// [`RowId::from_position`].
    fn from(position: u64) -> Self {
        RowId::from_position(position)
    }
}

impl Ord for RowId {
    fn cmp(&self, other: &Self) -> Ordering {
        // The fields are declared `low` first for ML.NET's layout, so a derived order would
        // compare the wrong half first.
        self.high
            .cmp(&other.high)
            .then_with(|| self.low.cmp(&other.low))
    }
}

impl PartialOrd for RowId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests;
