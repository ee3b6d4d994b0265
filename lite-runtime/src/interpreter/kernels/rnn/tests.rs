//! RNN tests.
