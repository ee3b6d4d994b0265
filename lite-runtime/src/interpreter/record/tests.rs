use super::*;

#[test]
fn records_are_the_documented_sizes() {
    assert_eq!(core::mem::size_of::<TensorRecord>(), 36);
    assert_eq!(core::mem::size_of::<OpRecord>(), 88);
}
