//! Tests of the recurrent helpers.
