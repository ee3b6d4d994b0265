//! What a streaming decoder reports after each call.

/// Why a decoder's `decode` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Status {
    /// The unconsumed input holds no whole record: call again with at least `needed` bytes
    /// from the first unconsumed one (a Norm record needs at most
    /// [`NormConfig::max_record_bytes`](super::NormConfig::max_record_bytes)), or call the
    /// decoder's `finish` if the stream has ended.
    NeedMore {
        /// Bytes the next record (or the header) needs.
        needed: usize,
    },
    /// The batch is full (in samples or in keys): use it, clear it, call again.
    BatchFull,
    /// Every record the header announced is decoded; call the decoder's `finish`.
    Done,
}

/// What one `decode` call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Progress {
    /// Bytes of the input used; the caller drops them and keeps the rest.
    pub consumed: usize,
    /// Why the call returned.
    pub status: Status,
}
