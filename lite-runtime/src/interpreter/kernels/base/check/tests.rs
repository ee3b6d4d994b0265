//! The shared checks: axes, reductions' shapes, constant integer operands.

use super::*;

fn shape(d: &[usize]) -> Shape {
    Shape::new(d).unwrap()
}

#[test]
fn reduced_shapes_keep_or_drop_axes() {
    let s = Shape::new(&[2, 5, 6]).unwrap();
    let (o, c) = reduced_shape(&s, 0b110, false);
    assert_eq!((o.dims(), c), (&[2][..], 30));
    let (o, c) = reduced_shape(&s, 0b100, true);
    assert_eq!((o.dims(), c), (&[2, 5, 1][..], 6));
    let (o, c) = reduced_shape(&s, 0, true);
    assert_eq!((o.dims(), c), (&[2, 5, 6][..], 1));
    let (o, c) = reduced_shape(&s, 0b111, false);
    assert_eq!((o.dims(), c), (&[][..], 60));
}

#[test]
fn axes_count_from_the_end_and_stay_in_range() {
    assert_eq!(axis(0, 3), Ok(0));
    assert_eq!(axis(-1, 3), Ok(2));
    assert_eq!(axis(-3, 3), Ok(0));
    assert_eq!(axis(3, 3), Err(AXIS));
    assert_eq!(axis(-4, 3), Err(AXIS));
    assert_eq!(axis(0, 0), Err(AXIS));
    assert_eq!(axis(i64::MIN, 2), Err(AXIS));
}

#[test]
fn dims_past_u32_are_refused() {
    assert_eq!(dim(7), Ok(7));
    assert_eq!(dim(u32::MAX as usize), Ok(u32::MAX));
    if usize::BITS > 32 {
        assert_eq!(dim(u32::MAX as usize + 1), Err(DIM_OVER_U32));
    }
    let _ = shape(&[1]);
}
