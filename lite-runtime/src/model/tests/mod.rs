//! Tests of the model loader over models written by a test-only flatbuffer builder.

pub(crate) mod builder;
mod malformed;
mod props;
mod sample;
mod views;
