use super::*;

#[test]
fn round_trips_numbers_and_strings() {
    let a = Npy {
        dtype: NpyType::F32,
        shape: vec![2, 3],
        data: (0..24).collect(),
    };
    assert_eq!(Npy::parse(&a.to_bytes()).unwrap(), a);
    let s = Npy {
        dtype: NpyType::Bytes(3),
        shape: vec![2],
        data: b"ab\0xyz".to_vec(),
    };
    let back = Npy::parse(&s.to_bytes()).unwrap();
    assert_eq!(back.strings().collect::<Vec<_>>(), [&b"ab"[..], b"xyz"]);
    let scalar = Npy {
        dtype: NpyType::I64,
        shape: vec![],
        data: vec![0; 8],
    };
    assert_eq!(Npy::parse(&scalar.to_bytes()).unwrap(), scalar);
}

#[test]
fn bad_files_are_errors_never_panics() {
    let good = Npy {
        dtype: NpyType::I32,
        shape: vec![4],
        data: vec![1; 16],
    }
    .to_bytes();
    for cut in 0..good.len() {
        assert!(Npy::parse(&good[..cut]).is_err());
    }
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0xff;
        let _ = Npy::parse(&bad);
    }
    let huge = b"\x93NUMPY\x01\x00\x40\x00{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999, 99999999999), }";
    assert!(Npy::parse(huge).is_err());
}

#[test]
fn an_element_count_past_usize_is_an_error_even_for_zero_byte_strings() {
    // `S0` elements take no bytes, so only the element count can overflow (found by the npy
    // fuzz target's check that accepted shapes count without overflow).
    let shape = "(4294967296, 4294967296, 4294967296)";
    let header = format!("{{'descr': '|S0', 'fortran_order': False, 'shape': {shape}, }}\n");
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    file.extend_from_slice(header.as_bytes());
    let e = Npy::parse(&file).unwrap_err();
    assert_eq!((e.what.as_str(), e.offset), ("shape overflows", 10));
    // A zero-byte type with a shape that fits is still read.
    let fits = Npy {
        dtype: NpyType::Bytes(0),
        shape: vec![3, 2],
        data: vec![],
    };
    assert_eq!(Npy::parse(&fits.to_bytes()).unwrap().elements(), 6);
}
