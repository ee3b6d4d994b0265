//! The int16 LOGISTIC / TANH input scaling as `activations.cc`'s Prepare derives it.

use super::*;

#[test]
fn table_scales_take_the_power_of_two_case() {
    // 2^-12 is the table's own step (3 << 0); TANH also takes 2^-11 (3 << 1).
    assert_eq!(
        int16_input_scaling(Function::Logistic, 1.0 / 4096.0),
        Ok((3, 0))
    );
    assert_eq!(
        int16_input_scaling(Function::Tanh, 1.0 / 4096.0),
        Ok((3, 0))
    );
    assert_eq!(
        int16_input_scaling(Function::Tanh, 1.0 / 2048.0),
        Ok((6, 0))
    );
    // The converter's "power of two" (8 / 32767) passes CheckedLog2 too.
    assert_eq!(
        int16_input_scaling(Function::Tanh, 8.0 / 32767.0),
        Ok((3, 0))
    );
}

#[test]
fn other_scales_get_fifteen_bits_and_a_shift() {
    // LOGISTIC has no 2^-11 case: 2^-11 * 12288 = 6, doubled 12 times past 16383.5.
    assert_eq!(
        int16_input_scaling(Function::Logistic, 1.0 / 2048.0),
        Ok((24576, 12))
    );
    assert_eq!(
        int16_input_scaling(Function::Tanh, 1.0 / 8192.0),
        Ok((24576, 14))
    );
    // 3 / 32767 * 12288 * 2^14 = 18432.56..., truncated.
    for f in [Function::Logistic, Function::Tanh] {
        assert_eq!(int16_input_scaling(f, 3.0 / 32767.0), Ok((18432, 14)));
    }
    // Large scales keep their multiplier unshifted.
    assert_eq!(int16_input_scaling(Function::Tanh, 2.0), Ok((24576, 0)));
}

#[test]
fn scales_the_reference_cannot_convert_are_refused() {
    // Doubling stops after 31 steps: the multiplier is still below one.
    assert!(int16_input_scaling(Function::Logistic, 1e-14).is_err());
    // 2^31 and more does not fit the int32 multiplier.
    assert!(int16_input_scaling(Function::Tanh, 1e6).is_err());
}
