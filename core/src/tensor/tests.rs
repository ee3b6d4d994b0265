//! Tensors: layouts against a naive index enumeration, in-place operations, bags.

extern crate std;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// Buffer positions of a layout's elements in logical order, by brute force.
fn positions(layout: &Layout) -> Vec<usize> {
    let mut out = vec![layout.offset()];
    for (&dim, &stride) in layout.shape().iter().zip(layout.strides()) {
        out = out
            .iter()
            .flat_map(|&p| (0..dim).map(move |i| p + i * stride))
            .collect();
    }
    out
}

#[test]
fn contiguous_layouts_match_numpy() {
    let l = Layout::contiguous(&[2, 3, 4]).unwrap();
    assert_eq!(l.strides(), &[12, 4, 1]);
    assert_eq!((l.len(), l.span(), l.rank()), (24, 24, 3));
    assert!(l.is_contiguous());
    // numpy: np.zeros((2, 0, 3)).strides == (24, 24, 8) for float64
    let l = Layout::contiguous(&[2, 0, 3]).unwrap();
    assert_eq!(l.strides(), &[3, 3, 1]);
    assert_eq!((l.len(), l.span()), (0, 0));
    let s = Layout::contiguous(&[]).unwrap();
    assert_eq!((s.len(), s.rank(), s.span()), (1, 0, 1));
    assert_eq!(s, Layout::scalar());
    // Zero-length axes never overflow.
    assert_eq!(Layout::contiguous(&[usize::MAX, 0, 2]).unwrap().len(), 0);
    assert_eq!(
        Layout::contiguous(&[usize::MAX, 2]),
        Err(TensorError::TooLarge { axis: 0 })
    );
    assert_eq!(
        Layout::contiguous(&[1; 9]),
        Err(TensorError::RankTooLarge { rank: 9, max: 8 })
    );
}

#[test]
fn explicit_layouts_are_checked() {
    assert_eq!(
        Layout::new(&[2, 2], &[1], 0),
        Err(TensorError::StridesMismatch {
            shape: 2,
            strides: 1
        })
    );
    assert_eq!(
        Layout::new(&[2], &[usize::MAX], 1),
        Err(TensorError::TooLarge { axis: 0 })
    );
    let l = Layout::new(&[3, 2], &[1, 3], 2).unwrap();
    assert_eq!(l.span(), 2 + 2 + 3 + 1);
    assert!(!l.is_contiguous());
    assert_eq!(l.position(&[2, 1]), Some(7));
    assert_eq!(l.position(&[3, 0]), None);
    assert_eq!(l.position(&[0]), None);
    let data = [0u8; 7];
    assert_eq!(
        TensorView::with_layout(&data[..], l).unwrap_err(),
        TensorError::OutOfBounds { needed: 8, len: 7 }
    );
    // Length-1 axes may have any stride and stay contiguous.
    assert!(Layout::new(&[1, 3], &[99, 1], 0).unwrap().is_contiguous());
}

#[test]
fn tensors_check_their_buffer() {
    let data = [1, 2, 3, 4, 5, 6];
    assert_eq!(
        TensorView::new(&data[..], &[4, 2]).unwrap_err(),
        TensorError::LengthMismatch { needed: 8, len: 6 }
    );
    let t = TensorView::new(&data[..], &[2, 3]).unwrap();
    assert_eq!(t.dtype(), DType::I32);
    assert_eq!(t.get(&[1, 2]), Some(&6));
    assert_eq!(t.get(&[2, 0]), None);
    assert_eq!(t.as_slice(), Some(&data[..]));
    let r = t.reshape(&[3, 2]).unwrap();
    assert_eq!(r.get(&[2, 1]), Some(&6));
    assert!(t.reshape(&[4]).is_err());
    let mut out = [0; 6];
    t.copy_to_slice(&mut out).unwrap();
    assert_eq!(out, data);
    assert!(t.copy_to_slice(&mut out[..5]).is_err());
}

#[test]
fn in_place_operations_on_a_strided_view() {
    let mut data: Vec<i32> = (0..12).collect();
    // Column 1 of a 3×4 matrix, as strides.
    let layout = Layout::new(&[3], &[4], 1).unwrap();
    let mut col = TensorViewMut::with_layout(&mut data[..], layout).unwrap();
    col.add_assign_scalar(100);
    col.mul_assign_scalar(2);
    col.sub_assign_scalar(1);
    assert_eq!(col.iter().copied().collect::<Vec<_>>(), [201, 209, 217]);
    let other = [1, 2, 3];
    let other = TensorView::new(&other[..], &[3]).unwrap();
    col.add_assign(&other).unwrap();
    col.sub_assign(&other).unwrap();
    col.mul_assign(&other).unwrap();
    assert_eq!(col.iter().copied().collect::<Vec<_>>(), [201, 418, 651]);
    col.copy_from(&other).unwrap();
    col.map_inplace(|x| -x);
    assert_eq!(data, [0, -1, 2, 3, 4, -2, 6, 7, 8, -3, 10, 11]);
    let mut col = TensorViewMut::with_layout(&mut data[..], layout).unwrap();
    let wrong = TensorView::new(&[1, 2][..], &[2]).unwrap();
    assert_eq!(
        col.copy_from(&wrong),
        Err(TensorError::ShapeMismatch {
            axis: 0,
            this: 3,
            other: 2
        })
    );
    let wrong = TensorView::new(&[1, 2, 3][..], &[3, 1]).unwrap();
    assert_eq!(
        col.add_assign(&wrong),
        Err(TensorError::RankMismatch { this: 1, other: 2 })
    );
    col.copy_from_slice(&[7, 8, 9]).unwrap();
    assert!(col.copy_from_slice(&[7, 8]).is_err());
    col.fill(0);
    assert_eq!(data, [0, 0, 2, 3, 4, 0, 6, 7, 8, 0, 10, 11]);
}

#[test]
fn integer_operations_wrap() {
    let mut data = [i8::MAX, i8::MIN];
    let mut t = TensorViewMut::new(&mut data[..], &[2]).unwrap();
    t.add_assign_scalar(1);
    t.mul_assign_scalar(3);
    assert_eq!(
        data,
        [i8::MIN.wrapping_mul(3), (i8::MIN + 1).wrapping_mul(3)]
    );
}

#[test]
fn bags_round_trip_and_refuse_mismatches() {
    let data = [1.0f64, 2.0, 3.0];
    let t = TensorView::new(&data[..], &[3]).unwrap();
    let bag = t.shrink();
    assert_eq!(
        (bag.dtype(), bag.shape(), bag.bytes().len()),
        (DType::F64, &[3][..], 24)
    );
    assert_eq!(
        bag.stretch::<f32>().unwrap_err(),
        TensorError::DTypeMismatch {
            expected: DType::F32,
            found: DType::F64
        }
    );
    assert_eq!(bag.stretch::<f64>().unwrap().get(&[2]), Some(&3.0));

    // Misaligned bytes: an error, never an unaligned read.
    let words = [0u32; 3];
    let bytes = &zerocopy::IntoBytes::as_bytes(&words[..])[1..9];
    let bag = TensorBag::new(DType::U32, &[2], bytes).unwrap();
    assert_eq!(
        bag.stretch::<u32>().unwrap_err(),
        TensorError::Misaligned {
            align: 4,
            misalignment: 1
        }
    );
    assert_eq!(
        TensorBag::new(DType::U32, &[2], &bytes[..7]).unwrap_err(),
        TensorError::ByteLength { len: 7, size: 4 }
    );
    assert_eq!(
        TensorBag::new(DType::U32, &[3], bytes).unwrap_err(),
        TensorError::LengthMismatch { needed: 3, len: 2 }
    );
    assert_eq!(
        TensorBag::with_layout(DType::U8, Layout::contiguous(&[9]).unwrap(), bytes).unwrap_err(),
        TensorError::OutOfBounds { needed: 9, len: 8 }
    );

    // bool bytes must be 0 or 1.
    let mut raw = [0u8, 1, 2, 1];
    let bag = TensorBag::new(DType::Bool, &[4], &raw).unwrap();
    assert_eq!(
        bag.stretch::<bool>().unwrap_err(),
        TensorError::InvalidValue { element: 2 }
    );
    raw[2] = 1;
    let mut bag = TensorBagMut::new(DType::Bool, &[2, 2], &mut raw).unwrap();
    assert_eq!(bag.stretch::<bool>().unwrap().get(&[1, 0]), Some(&true));
    bag.bytes_mut()[0] = 1;
    assert_eq!(bag.as_bag().bytes(), &[1, 1, 1, 1]);
    let mut t = bag.stretch_mut::<bool>().unwrap();
    t.fill(false);
    assert_eq!(raw, [0; 4]);

    // Writable bags of numbers.
    let mut nums = [1u16, 2];
    let mut t = TensorViewMut::new(&mut nums[..], &[2]).unwrap();
    let mut bag = t.shrink_mut();
    assert_eq!(bag.dtype(), DType::U16);
    bag.bytes_mut().fill(0);
    assert_eq!(nums, [0, 0]);
    // Empty bags stretch whatever the address.
    let bag = TensorBag::new(DType::F64, &[0], &bytes[1..1]).unwrap();
    assert!(bag.stretch::<f64>().unwrap().is_empty());
}

#[test]
fn errors_display() {
    use std::string::ToString;
    let errors = [
        TensorError::RankTooLarge { rank: 9, max: 8 },
        TensorError::StridesMismatch {
            shape: 1,
            strides: 2,
        },
        TensorError::TooLarge { axis: 0 },
        TensorError::LengthMismatch { needed: 1, len: 2 },
        TensorError::OutOfBounds { needed: 1, len: 2 },
        TensorError::DTypeMismatch {
            expected: DType::F32,
            found: DType::Bool,
        },
        TensorError::Misaligned {
            align: 4,
            misalignment: 1,
        },
        TensorError::ByteLength { len: 3, size: 2 },
        TensorError::InvalidValue { element: 0 },
        TensorError::RankMismatch { this: 1, other: 2 },
        TensorError::ShapeMismatch {
            axis: 0,
            this: 1,
            other: 2,
        },
    ];
    for e in errors {
        assert!(e.to_string().starts_with("tensor"), "{e}");
    }
}

/// A random layout (rank 0..=4, strides 0..=5, offset 0..=5) and a buffer it fits in.
fn layouts() -> impl Strategy<Value = Layout> {
    let dim = if cfg!(miri) { 0usize..=3 } else { 0usize..=5 };
    prop::collection::vec((dim, 0usize..=5), 0..=4).prop_flat_map(|axes| {
        (0usize..=5).prop_map(move |offset| {
            let shape: Vec<usize> = axes.iter().map(|a| a.0).collect();
            let strides: Vec<usize> = axes.iter().map(|a| a.1).collect();
            Layout::new(&shape, &strides, offset).unwrap()
        })
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn iteration_is_logical_order(layout in layouts(), partial in 0usize..4) {
        let data: Vec<u32> = (0..layout.span() as u32 + 3).collect();
        let t = TensorView::with_layout(&data[..], layout).unwrap();
        let expected: Vec<u32> = if layout.is_empty() {
            vec![]
        } else {
            positions(&layout).iter().map(|&p| data[p]).collect()
        };
        let got: Vec<u32> = t.iter().copied().collect();
        prop_assert_eq!(&got, &expected);
        prop_assert_eq!(t.iter().len(), expected.len());
        // `fold` after some `next`s resumes in the middle of a lane.
        let mut it = t.iter();
        let mut head: Vec<u32> = it.by_ref().take(partial).copied().collect();
        head.extend(it.fold(Vec::new(), |mut v, x| { v.push(*x); v }));
        prop_assert_eq!(&head, &expected);
        prop_assert_eq!(t.as_slice().is_some(), layout.is_contiguous());
        if let Some(s) = t.as_slice() {
            prop_assert_eq!(s, &expected[..]);
        }
    }

    #[test]
    fn writes_hit_exactly_the_layout(layout in layouts()) {
        // Only layouts whose elements are distinct positions can be written meaningfully.
        let pos = if layout.is_empty() { vec![] } else { positions(&layout) };
        let mut sorted = pos.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assume!(sorted.len() == pos.len());
        let n = layout.span() + 2;
        let mut data = vec![0i64; n];
        let mut t = TensorViewMut::with_layout(&mut data[..], layout).unwrap();
        t.fill(5);
        t.add_assign_scalar(1);
        let src: Vec<i64> = (0..pos.len() as i64).collect();
        let mut twice = data.clone();
        let mut t = TensorViewMut::with_layout(&mut data[..], layout).unwrap();
        let src_t = TensorView::new(&src[..], layout.shape()).unwrap();
        t.add_assign(&src_t).unwrap();
        let mut u = TensorViewMut::with_layout(&mut twice[..], layout).unwrap();
        u.copy_from_slice(&src).unwrap();
        u.add_assign_scalar(6);
        prop_assert_eq!(&data, &twice);
        for (p, x) in data.iter().enumerate() {
            match pos.iter().position(|&q| q == p) {
                Some(k) => prop_assert_eq!(*x, 6 + k as i64),
                None => prop_assert_eq!(*x, 0),
            }
        }
        // copy_from between two strided layouts of the same shape.
        let mut other = vec![0i64; n];
        let mut o = TensorViewMut::with_layout(&mut other[..], layout).unwrap();
        o.copy_from(&TensorView::with_layout(&data[..], layout).unwrap()).unwrap();
        prop_assert_eq!(&other, &data);
    }
}

#[test]
fn try_new_hands_the_storage_back_with_the_reason_as_source() {
    use std::string::ToString;
    let e = TensorBase::<_, u8>::try_new(vec![1u8, 2, 3], &[2, 2]).unwrap_err();
    assert_eq!(e.error, TensorError::LengthMismatch { needed: 4, len: 3 });
    let reason = std::error::Error::source(&e).expect("the reason is the source");
    assert_eq!(reason.to_string(), e.error.to_string());
    assert_eq!(e.into_data(), vec![1, 2, 3]);
}
