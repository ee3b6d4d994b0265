//! Owned batch memory and the budget it is checked against, shared by the dataset readers
//! ([`dataset`](crate::dataset)) and the cursor sets ([`cursor_set`](crate::cursor_set)),
//! neither of which imports the other.
//!
//! - [`MemoryBudget`]: every buffer whose size comes from a file or an argument is checked
//!   against it and reserved fallibly; a refusal is a [`MemoryError`] naming the bytes.
//! - [`BatchBuffers`]: the owned memory of one
//!   [`SampleBatch`](tessera_core::data::SampleBatch), which can cross threads; a failure to
//!   make them is a [`BuffersError`].

mod batch;
mod budget;
mod error;

pub use batch::BatchBuffers;
pub use budget::{MemoryBudget, MemoryError};
pub use error::BuffersError;
