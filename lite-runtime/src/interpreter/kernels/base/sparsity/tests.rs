//! The format's walk: every encoding of a matrix gives it back.

use super::encoded::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(256, 4))]

    #[test]
    fn every_encoding_densifies_back((rows, cols, m, br, bc, widths) in case()) {
        for e in [
            csr(&m, rows, cols),
            csc(&m, rows, cols),
            doubly(&m, rows, cols),
            blocked(&m, rows, cols, br, bc),
            blocked(&m, rows, cols, 1, bc),
        ] {
            let stored = Stored::new(&e, &widths);
            let f = stored.format(&e).unwrap();
            prop_assert_eq!(&densified(&f, &e.values).unwrap(), &m, "{:?}", e);
        }
    }
}

#[test]
fn columns_out_of_order_still_densify() {
    // Columns going backwards within a row: DENSIFY places them (the sparse FULLY_CONNECTED
    // refuses them: its sum would not be in k order).
    let m = [1.0f32, 0.0, 2.0, 0.0, 3.0, 0.0];
    let mut back = csr(&m, 2, 3);
    back.dims[1] = Dim::Csr(vec![0, 2, 3], vec![2, 0, 1]);
    back.values = vec![2.0, 1.0, 3.0];
    let stored = Stored::new(&back, &[Width::I32]);
    let f = stored.format(&back).unwrap();
    assert_eq!(
        densified(&f, &back.values).unwrap(),
        vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]
    );
}

#[test]
fn segments_past_their_vector_are_skipped_as_in_tflite() {
    // Row 1 has no segment end: TensorFlow Lite stores nothing for it.
    let mut e = csr(&[1.0, 0.0, 0.0, 2.0], 2, 2);
    e.dims[1] = Dim::Csr(vec![0, 1], vec![0, 1]);
    e.values = vec![1.0, 2.0];
    let stored = Stored::new(&e, &[Width::U8]);
    let f = stored.format(&e).unwrap();
    assert_eq!(densified(&f, &e.values).unwrap(), vec![1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn empty_dimensions_store_nothing() {
    let e = csr(&[], 0, 4);
    let stored = Stored::new(&e, &[Width::U8]);
    let f = stored.format(&e).unwrap();
    assert_eq!(f.walk(|_, _| Ok(())).unwrap(), 0);
    assert!(densified(&f, &[]).unwrap().is_empty());
}
