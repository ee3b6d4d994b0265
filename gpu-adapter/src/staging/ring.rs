//! The bookkeeping of a ring of staging buffers, with no GPU in it: which slot the host may
//! fill next, which are in flight (a copy reads them), and which the host may reuse. The
//! uploader drives it with CUDA events; the tests drive it with a model.

use std::fmt;

/// What one staging slot is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotState {
    /// The host may fill it.
    Free,
    /// The host is filling it (handed out by [`StagingRing::acquire`]).
    Filling,
    /// A copy from it was enqueued as upload `ticket`; the host must not touch it until
    /// that copy's event completes.
    InFlight {
        /// The upload's number (0, 1, 2, … in submission order).
        ticket: u64,
    },
}

/// Why a ring operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingError {
    /// A ring of no slots.
    Empty,
    /// The next slot is still in flight: wait for upload `ticket`'s event, then
    /// [`complete`](StagingRing::complete) `slot`.
    Busy {
        /// The slot.
        slot: usize,
        /// Its upload.
        ticket: u64,
    },
    /// A slot is being filled already (one at a time, in ring order).
    AlreadyFilling {
        /// The slot.
        slot: usize,
    },
    /// The slot is not in the state the operation needs.
    WrongState {
        /// The slot.
        slot: usize,
        /// Its state.
        state: SlotState,
    },
    /// No such slot.
    NoSlot {
        /// The index given.
        slot: usize,
        /// Slots in the ring.
        slots: usize,
    },
}

impl fmt::Display for RingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("a staging ring needs at least one slot"),
            Self::Busy { slot, ticket } => {
                write!(
                    f,
                    "staging slot {slot} is still in flight (upload {ticket})"
                )
            }
            Self::AlreadyFilling { slot } => write!(f, "staging slot {slot} is being filled"),
            Self::WrongState { slot, state } => {
                write!(f, "staging slot {slot} is {state:?}")
            }
            Self::NoSlot { slot, slots } => {
                write!(f, "no staging slot {slot} in a ring of {slots}")
            }
        }
    }
}

impl std::error::Error for RingError {}

/// A ring of staging slots used in order: fill slot `i`, submit it (its copy is in flight),
/// fill slot `i + 1`, …; slot `i` is filled again only after its copy completed.
///
/// Invariants (property-tested): at most one slot is filling; in-flight tickets increase
/// around the ring from the oldest; [`acquire`](Self::acquire) never hands out a slot that is
/// in flight; tickets are dense (`0, 1, 2, …`).
#[derive(Debug, Clone)]
pub struct StagingRing {
    states: Vec<SlotState>,
    /// The slot `acquire` hands out next.
    next: usize,
    /// The ticket `submit` gives next.
    ticket: u64,
}

impl StagingRing {
    /// A ring of `slots` free slots (allocated once, here).
    ///
    /// Errors: [`Empty`](RingError::Empty) for 0.
    pub fn new(slots: usize) -> Result<Self, RingError> {
        if slots == 0 {
            return Err(RingError::Empty);
        }
        Ok(Self {
            states: vec![SlotState::Free; slots],
            next: 0,
            ticket: 0,
        })
    }

    /// Slots in the ring.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Always false: a ring has at least one slot.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The state of `slot`, if it exists.
    pub fn state(&self, slot: usize) -> Option<SlotState> {
        self.states.get(slot).copied()
    }

    /// The slot [`acquire`](Self::acquire) would hand out.
    pub fn next_slot(&self) -> usize {
        self.next
    }

    /// Uploads submitted so far (the next ticket).
    pub fn submitted(&self) -> u64 {
        self.ticket
    }

    /// Slots in flight, oldest first: `(slot, ticket)`.
    pub fn in_flight(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let n = self.states.len();
        (0..n).filter_map(move |i| {
            let slot = (self.next + i) % n;
            match self.states[slot] {
                SlotState::InFlight { ticket } => Some((slot, ticket)),
                _ => None,
            }
        })
    }

    /// Hands out the next slot for filling.
    ///
    /// Errors: [`Busy`](RingError::Busy) if it is in flight (wait, complete it, ask again),
    /// [`AlreadyFilling`](RingError::AlreadyFilling) if it is being filled.
    pub fn acquire(&mut self) -> Result<usize, RingError> {
        let slot = self.next;
        match self.states[slot] {
            SlotState::Free => {
                self.states[slot] = SlotState::Filling;
                Ok(slot)
            }
            SlotState::Filling => Err(RingError::AlreadyFilling { slot }),
            SlotState::InFlight { ticket } => Err(RingError::Busy { slot, ticket }),
        }
    }

    fn check(&self, slot: usize, want: fn(SlotState) -> bool) -> Result<(), RingError> {
        let state = self.state(slot).ok_or(RingError::NoSlot {
            slot,
            slots: self.states.len(),
        })?;
        if want(state) {
            Ok(())
        } else {
            Err(RingError::WrongState { slot, state })
        }
    }

    /// The filled `slot`'s copy was enqueued: it is in flight, and the ring moves on.
    /// Returns its ticket.
    ///
    /// Errors: [`NoSlot`](RingError::NoSlot), [`WrongState`](RingError::WrongState) unless
    /// filling.
    pub fn submit(&mut self, slot: usize) -> Result<u64, RingError> {
        self.check(slot, |s| s == SlotState::Filling)?;
        let ticket = self.ticket;
        self.states[slot] = SlotState::InFlight { ticket };
        self.ticket += 1;
        self.next = (slot + 1) % self.states.len();
        Ok(ticket)
    }

    /// Filling `slot` came to nothing (the source ended or failed): it is free again and is
    /// handed out next.
    ///
    /// Errors: [`NoSlot`](RingError::NoSlot), [`WrongState`](RingError::WrongState) unless
    /// filling.
    pub fn abandon(&mut self, slot: usize) -> Result<(), RingError> {
        self.check(slot, |s| s == SlotState::Filling)?;
        self.states[slot] = SlotState::Free;
        Ok(())
    }

    /// The copy from `slot` completed (its event fired): the host may fill it again.
    ///
    /// Errors: [`NoSlot`](RingError::NoSlot), [`WrongState`](RingError::WrongState) unless
    /// in flight.
    pub fn complete(&mut self, slot: usize) -> Result<(), RingError> {
        self.check(slot, |s| matches!(s, SlotState::InFlight { .. }))?;
        self.states[slot] = SlotState::Free;
        Ok(())
    }

    /// Everything in flight completed (the stream was synchronised): those slots are free.
    pub fn complete_all(&mut self) {
        for s in &mut self.states {
            if matches!(s, SlotState::InFlight { .. }) {
                *s = SlotState::Free;
            }
        }
    }
}

#[cfg(test)]
mod tests;
