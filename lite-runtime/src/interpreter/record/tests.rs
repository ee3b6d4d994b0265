use super::*;

#[test]
fn records_are_the_documented_sizes() {
    assert_eq!(core::mem::size_of::<TensorRecord>(), 36);
    assert_eq!(core::mem::size_of::<OpRecord>(), 88);
}

#[test]
#[cfg(target_pointer_width = "64")]
fn a_shape_is_a_third_of_a_view_layout() {
    // The sizes record.rs gives for keeping two shape types.
    assert_eq!(size_of::<Shape>(), 56);
    assert_eq!(size_of::<tessera_core::tensor::Layout>(), 160);
}
