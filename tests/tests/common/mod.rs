//! Helpers shared by the integration tests (each test file that uses them says `mod common;`).

#![allow(dead_code)]

pub mod litert;
