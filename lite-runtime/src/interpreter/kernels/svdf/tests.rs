//! SVDF tests.
