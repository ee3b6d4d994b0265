//! [`Shard`]: which share of a dataset's files one process (rank) reads, as HugeCTR splits
//! a file list: rank `k` of `N` takes files `k, k + N, k + 2N, …`.

use std::fmt;

/// Rank `rank` of a world of `world` processes, each reading every `world`-th file.
///
/// ```
/// use tessera_data::dataset::Shard;
///
/// let shard = Shard::new(1, 3)?;
/// let mine: Vec<usize> = (0..7).filter(|&f| shard.owns(f)).collect();
/// assert_eq!(mine, [1, 4]);
/// assert!(Shard::new(3, 3).is_err());
/// # Ok::<(), tessera_data::dataset::ShardError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    rank: u64,
    world: u64,
}

impl Shard {
    /// The whole dataset: rank 0 of 1.
    pub const WHOLE: Self = Self { rank: 0, world: 1 };

    /// Rank `rank` of `world`; errors unless `world >= 1` and `rank < world`.
    pub fn new(rank: u64, world: u64) -> Result<Self, ShardError> {
        if world == 0 {
            return Err(ShardError::EmptyWorld);
        }
        if rank >= world {
            return Err(ShardError::RankOutOfRange { rank, world });
        }
        Ok(Self { rank, world })
    }

    /// This process's rank.
    pub fn rank(&self) -> u64 {
        self.rank
    }

    /// The number of processes.
    pub fn world(&self) -> u64 {
        self.world
    }

    /// Whether file `index` of the whole list is this rank's.
    pub fn owns(&self, index: usize) -> bool {
        index as u64 % self.world == self.rank
    }
}

impl Default for Shard {
    fn default() -> Self {
        Self::WHOLE
    }
}

/// Why a [`Shard`] cannot be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardError {
    /// A world of 0 processes.
    EmptyWorld,
    /// A rank at or past the world size.
    RankOutOfRange {
        /// The rank asked for.
        rank: u64,
        /// The world size.
        world: u64,
    },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyWorld => f.write_str("world size must be at least 1"),
            Self::RankOutOfRange { rank, world } => {
                write!(f, "rank {rank} is not below the world size {world}")
            }
        }
    }
}

impl std::error::Error for ShardError {}
