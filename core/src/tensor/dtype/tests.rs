use super::*;

fn check<T: Element>() {
    assert_eq!(T::DTYPE.size(), size_of::<T>());
    assert_eq!(T::DTYPE.align(), align_of::<T>());
}

#[test]
fn sizes_tags_and_names() {
    check::<f32>();
    check::<f64>();
    check::<i8>();
    check::<i16>();
    check::<i32>();
    check::<i64>();
    check::<u8>();
    check::<u16>();
    check::<u32>();
    check::<u64>();
    check::<bool>();
    for (i, d) in DType::ALL.iter().enumerate() {
        assert_eq!(usize::from(d.tag()), i);
        assert_eq!(DType::from_tag(d.tag()), Some(*d));
    }
    assert_eq!(DType::from_tag(11), None);
    assert_eq!(DType::from_tag(255), None);
    assert_eq!(DType::Bool.name(), "bool");
}

#[test]
fn integer_arithmetic_wraps() {
    assert_eq!(Arithmetic::add(i8::MAX, 1), i8::MIN);
    assert_eq!(Arithmetic::sub(0u16, 1), u16::MAX);
    assert_eq!(Arithmetic::mul(u8::MAX, 2), 254);
    assert_eq!(Arithmetic::add(1.5f32, 2.0), 3.5);
}
