use super::super::one_op::unary_f32;

#[test]
fn floor_rounds_down_and_keeps_what_it_cannot_round() {
    let x = [-2.5, -0.0, 0.5, 3.0, f32::INFINITY, f32::NAN];
    let y = unary_f32(8, None, &x);
    assert_eq!(&y[..5], &[-3.0, -0.0, 0.0, 3.0, f32::INFINITY]);
    assert!(y[1].is_sign_negative() && y[5].is_nan());
}
