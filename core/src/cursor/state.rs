//! [`CursorState`]: where a cursor stands (before its first row, on a row, done), kept in one
//! place so every cursor is fused the same way.

use super::error::CursorError;

/// Where a cursor stands. Each cursor in this module keeps one and advances it only through
/// [`advance`](Self::advance), which is what makes `move_next` fused: once a step has
/// returned `Ok(false)` or an error, the state is [`Done`](Self::Done) and no later call
/// reaches the source again, however the source behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CursorState {
    /// `move_next` has not been called yet.
    #[default]
    BeforeFirst,
    /// On a row: getters read it.
    OnRow,
    /// `move_next` returned `false` or failed; it returns `Ok(false)` from now on.
    Done,
}

impl CursorState {
    /// Whether the cursor is on a row.
    #[inline]
    pub const fn is_on_row(self) -> bool {
        matches!(self, CursorState::OnRow)
    }

    /// Whether the cursor has ended.
    #[inline]
    pub const fn is_done(self) -> bool {
        matches!(self, CursorState::Done)
    }

    /// `Ok` on a row, else the error a getter reports:
    /// [`CursorError::BeforeFirst`] or [`CursorError::Finished`].
    #[inline]
    pub const fn check_row(self) -> Result<(), CursorError> {
        match self {
            CursorState::OnRow => Ok(()),
            CursorState::BeforeFirst => Err(CursorError::BeforeFirst),
            CursorState::Done => Err(CursorError::Finished),
        }
    }

    /// Runs one `move_next` step unless the cursor is done, and records the outcome: `Ok(true)`
    /// puts it on a row, `Ok(false)` or an error ends it for good.
    #[inline]
    pub fn advance<E>(&mut self, step: impl FnOnce() -> Result<bool, E>) -> Result<bool, E> {
        if self.is_done() {
            return Ok(false);
        }
        let outcome = step();
        *self = match outcome {
            Ok(true) => CursorState::OnRow,
            Ok(false) | Err(_) => CursorState::Done,
        };
        outcome
    }
}

/// A [`CursorState`] and the number of rows yielded: what every cursor needs for a fused
/// `move_next` and for [`position`](super::RowCursor::position).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RowProgress {
    state: CursorState,
    yielded: u64,
}

impl RowProgress {
    /// Before the first row, none yielded.
    #[inline]
    pub const fn new() -> Self {
        Self {
            state: CursorState::BeforeFirst,
            yielded: 0,
        }
    }

    /// Where the cursor stands.
    #[inline]
    pub const fn state(self) -> CursorState {
        self.state
    }

    /// Whether the cursor is on a row.
    #[inline]
    pub const fn is_on_row(self) -> bool {
        self.state.is_on_row()
    }

    /// [`CursorState::check_row`].
    #[inline]
    pub const fn check_row(self) -> Result<(), CursorError> {
        self.state.check_row()
    }

    /// [`CursorState::advance`], counting the row when the step lands on one.
    #[inline]
    pub fn advance<E>(&mut self, step: impl FnOnce() -> Result<bool, E>) -> Result<bool, E> {
        let outcome = self.state.advance(step);
        if matches!(outcome, Ok(true)) {
            self.yielded = self.yielded.saturating_add(1);
        }
        outcome
    }

    /// The current row's position among the rows yielded, `None` off a row.
    #[inline]
    pub fn position(self) -> Option<u64> {
        self.is_on_row().then(|| self.yielded.saturating_sub(1))
    }
}
