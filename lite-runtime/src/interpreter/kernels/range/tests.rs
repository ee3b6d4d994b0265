//! Tests of the family.
