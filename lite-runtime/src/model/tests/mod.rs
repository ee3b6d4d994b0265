//! Tests of the model loader over models written by a test-only flatbuffer builder.

mod add_options;
pub(crate) mod builder;
mod malformed;
pub(crate) mod props;
pub(crate) mod sample;
mod views;
