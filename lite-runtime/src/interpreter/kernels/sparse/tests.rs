//! Tests of DENSIFY and the sparse format walk.
