extern crate std;
use std::format;
use std::string::ToString;
use std::vec;
use std::vec::Vec;

use super::*;
use crate::error::CapacityError;

/// A whole `.npy` file: the header [`write_npy_header`] writes, then `data`.
fn file(dtype: NpyType, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; npy_header_len(dtype, shape) + data.len()];
    let n = write_npy_header(dtype, shape, &mut out).unwrap();
    assert_eq!(n % 64, 0);
    out[n..].copy_from_slice(data);
    out
}

fn kind(bytes: &[u8]) -> (NpyErrorKind, usize) {
    let e = NpyView::parse(bytes).unwrap_err();
    (e.kind, e.offset)
}

#[test]
fn round_trips_numbers_and_strings() {
    let data: Vec<u8> = (0..24).collect();
    let f = file(NpyType::F32, &[2, 3], &data);
    let a = NpyView::parse(&f).unwrap();
    assert_eq!(
        (a.dtype(), a.shape(), a.data()),
        (NpyType::F32, &[2, 3][..], &data[..])
    );
    let s = file(NpyType::Bytes(3), &[2], b"ab\0xyz");
    let back = NpyView::parse(&s).unwrap();
    assert_eq!(back.strings().collect::<Vec<_>>(), [&b"ab"[..], b"xyz"]);
    assert_eq!(back.strings().len(), 2);
    let scalar = file(NpyType::I64, &[], &[0; 8]);
    let v = NpyView::parse(&scalar).unwrap();
    assert_eq!((v.shape(), v.elements(), v.data().len()), (&[][..], 1, 8));
    // Numbers have no strings.
    assert_eq!(a.strings().count(), 0);
}

#[test]
fn writes_the_header_numpy_writes() {
    // Files numpy wrote (format 1.0, data on a multiple of 64): the same header, byte for
    // byte, from the type and shape read back.
    for numpy in [
        &include_bytes!("../../../tests/fixtures/models/ctr.demo_predictions.npy")[..],
        include_bytes!("../../../tests/fixtures/models/ctr_b4.in0.npy"),
        include_bytes!("../../../tests/fixtures/models/ops_dynamic.in0.npy"),
        include_bytes!("../../../tests/fixtures/models/ops_elementwise.out1.npy"),
        include_bytes!("../../../tests/fixtures/models/kws_int8.in0.npy"),
        include_bytes!("../../../tests/fixtures/models/strings.in0.npy"),
    ] {
        let a = NpyView::parse(numpy).unwrap();
        let start = numpy.len() - a.data().len();
        let mut header = vec![0u8; npy_header_len(a.dtype(), a.shape())];
        assert_eq!(
            write_npy_header(a.dtype(), a.shape(), &mut header),
            Ok(start)
        );
        assert_eq!(header, numpy[..start]);
    }
    let strings = NpyView::parse(include_bytes!(
        "../../../tests/fixtures/models/strings.in0.npy"
    ))
    .unwrap();
    assert!(matches!(strings.dtype(), NpyType::Bytes(_)));
    assert!(strings.strings().all(|s| s.last() != Some(&0)));
}

#[test]
fn every_dtype_round_trips_and_maps_to_its_tensor_dtype() {
    for d in DType::ALL {
        let t = NpyType::from(d);
        assert_eq!((t.dtype(), t.size()), (Some(d), d.size()));
        let data = vec![1u8; 3 * t.size()];
        let f = file(t, &[3], &data);
        let a = NpyView::parse(&f).unwrap();
        assert_eq!((a.dtype(), a.data()), (t, &data[..]));
    }
    assert_eq!(NpyType::Bytes(7).dtype(), None);
    assert_eq!(NpyType::Bytes(12).to_string(), "|S12");
    assert_eq!(NpyType::Bool.to_string(), "|b1");
    // numpy's `<i1` and `<u1` are the same types as `|i1` and `|u1`.
    assert_eq!(NpyType::parse("<i1"), Some(NpyType::I8));
    assert_eq!(NpyType::parse("<u1"), Some(NpyType::U8));
}

#[test]
fn swap_to_host_reverses_each_element_on_big_endian_hosts_only() {
    let mut b = [1u8, 2, 3, 4, 5, 6, 7, 8];
    NpyType::I32.swap_to_host(&mut b);
    let want = if cfg!(target_endian = "big") {
        [4, 3, 2, 1, 8, 7, 6, 5]
    } else {
        [1, 2, 3, 4, 5, 6, 7, 8]
    };
    assert_eq!(b, want);
    let mut s = *b"abcd";
    NpyType::Bytes(2).swap_to_host(&mut s);
    assert_eq!(&s, b"abcd");
    // Read as i32 through the view and swapped, the value is the little-endian one.
    let f = file(NpyType::I32, &[1], &7i32.to_le_bytes());
    let mut x = NpyView::parse(&f).unwrap().data().to_vec();
    NpyType::I32.swap_to_host(&mut x);
    assert_eq!(i32::from_ne_bytes(x[..].try_into().unwrap()), 7);
}

#[test]
fn versions_2_and_3_are_read() {
    let dict = b"{'descr': '<u2', 'shape': (3,), 'fortran_order': False}\n";
    for version in [2u8, 3] {
        let mut f = b"\x93NUMPY".to_vec();
        f.extend_from_slice(&[version, 0]);
        f.extend_from_slice(&(dict.len() as u32).to_le_bytes());
        f.extend_from_slice(dict);
        f.extend_from_slice(&[1, 0, 2, 0, 3, 0]);
        let a = NpyView::parse(&f).unwrap();
        assert_eq!((a.dtype(), a.shape()), (NpyType::U16, &[3][..]));
    }
}

#[test]
// 72 000 bytes of header text, written and scanned: over a minute under Miri, and nothing in
// it depends on byte order but the length field, which `versions_2_and_3_are_read` checks.
#[cfg_attr(miri, ignore)]
fn a_header_too_long_for_version_1_is_written_as_version_2() {
    // Only a shape of thousands of dimensions needs it (each of these is 12 bytes of text,
    // 72 000 in all: over version 1.0's 65 535); the reader refuses more than 32.
    let shape = vec![u32::MAX as usize; 6_000];
    let n = npy_header_len(NpyType::U8, &shape);
    let mut f = vec![0u8; n];
    assert_eq!(write_npy_header(NpyType::U8, &shape, &mut f), Ok(n));
    assert_eq!((&f[6..8], n % 64), (&[2u8, 0][..], 0));
    assert_eq!(
        u32::from_le_bytes(f[8..12].try_into().unwrap()) as usize,
        n - 12
    );
    assert_eq!(kind(&f), (NpyErrorKind::TooManyDims, 12));
}

#[test]
fn thirty_two_dimensions_are_read_and_more_are_refused() {
    let f = file(NpyType::U8, &[1; MAX_DIMS], &[9]);
    assert_eq!(NpyView::parse(&f).unwrap().shape(), &[1; MAX_DIMS]);
    let f = file(NpyType::U8, &[1; MAX_DIMS + 1], &[9]);
    assert_eq!(
        (kind(&f), &f[6..8]),
        ((NpyErrorKind::TooManyDims, 10), &[1u8, 0][..])
    );
    assert_eq!(
        NpyView::parse(&f).unwrap_err().to_string(),
        "more than 32 dimensions, at byte 10"
    );
}

#[test]
fn a_short_buffer_is_a_capacity_error_naming_the_header_length() {
    let n = npy_header_len(NpyType::F32, &[4]);
    assert_eq!(n, 128);
    let mut out = [0u8; 127];
    assert_eq!(
        write_npy_header(NpyType::F32, &[4], &mut out),
        Err(CapacityError {
            needed: 128,
            available: 127
        })
    );
    assert_eq!(out, [0; 127], "nothing written");
}

#[test]
fn bad_files_are_errors_never_panics() {
    let good = file(NpyType::I32, &[4], &[1; 16]);
    for cut in 0..good.len() {
        assert!(NpyView::parse(&good[..cut]).is_err());
    }
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0xff;
        let _ = NpyView::parse(&bad);
    }
    let huge = b"\x93NUMPY\x01\x00\x40\x00{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999, 99999999999), }";
    assert!(NpyView::parse(huge).is_err());
}

#[test]
fn errors_say_what_and_at_which_byte() {
    let header = |dict: &str| {
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        f.extend_from_slice(dict.as_bytes());
        f
    };
    assert_eq!(kind(b"NUMPY"), (NpyErrorKind::NotNpy, 0));
    assert_eq!(kind(b"\x93NUMPY"), (NpyErrorKind::TruncatedHeader, 6));
    assert_eq!(
        kind(b"\x93NUMPY\x01\x00\x05"),
        (NpyErrorKind::TruncatedHeader, 8)
    );
    assert_eq!(
        kind(b"\x93NUMPY\x04\x00"),
        (NpyErrorKind::UnknownVersion(4), 6)
    );
    assert_eq!(
        kind(b"\x93NUMPY\x01\x00\xff\x00{"),
        (NpyErrorKind::HeaderPastEnd { len: 255 }, 10)
    );
    let mut not_text = header("ab");
    not_text[10] = 0xff;
    assert_eq!(kind(&not_text), (NpyErrorKind::HeaderNotText, 10));
    assert_eq!(
        kind(&header("{'shape': (1,), }")),
        (NpyErrorKind::NoDescr, 10)
    );
    assert_eq!(
        kind(&header(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }"
        )),
        (NpyErrorKind::FortranOrder, 10)
    );
    assert_eq!(
        kind(&header("{'descr': '<f4', 'fortran_order': False, }")),
        (NpyErrorKind::NoShape, 10)
    );
    assert_eq!(
        kind(&header("{'descr': '<f4', 'shape': (1, x), }")),
        (NpyErrorKind::BadShape, 10)
    );
    let e = NpyView::parse(&header("{'descr': '<f4', 'shape': (2,), }\n")).unwrap_err();
    assert_eq!(
        (e.kind, e.offset),
        (
            NpyErrorKind::DataLength {
                found: 0,
                needed: 8
            },
            44
        )
    );
    assert_eq!(e.to_string(), "0 data bytes, the shape needs 8, at byte 44");
    assert_eq!(
        NpyView::parse(b"x").unwrap_err().to_string(),
        "not a .npy file (no \\x93NUMPY magic), at byte 0"
    );
    // A type it does not read is named, its start kept in the error itself.
    let e = NpyView::parse(&header("{'descr': '>f4', 'shape': (1,), }")).unwrap_err();
    assert_eq!(e.to_string(), "unsupported dtype '>f4', at byte 10");
    let long = "[('a', '<i4'), ('b', '<f8'), ('c', '<u2')]";
    let e = NpyView::parse(&header(&format!("{{'descr': {long}, 'shape': (1,), }}"))).unwrap_err();
    let NpyErrorKind::UnsupportedDtype(d) = e.kind else {
        panic!("{e}")
    };
    assert!(d.is_cut() && long.starts_with(d.as_str()));
    assert_eq!(d.as_str().len(), DescrText::CAPACITY);
    assert!(e.to_string().ends_with("...', at byte 10"), "{e}");
    // Cut at a character boundary.
    let d = DescrText::new(&"é".repeat(20));
    assert_eq!((d.as_str().len(), d.is_cut()), (32, true));
    let d = DescrText::new(&format!("x{}", "é".repeat(20)));
    assert_eq!(d.as_str().len(), 31);
}

#[test]
fn an_element_count_past_usize_is_an_error_even_for_zero_byte_strings() {
    // `S0` elements take no bytes, so only the element count can overflow (found by the npy
    // fuzz target's check that accepted shapes count without overflow).
    let shape = if usize::BITS == 64 {
        "(4294967296, 4294967296, 4294967296)"
    } else {
        "(65536, 65536, 65536)"
    };
    let header = format!("{{'descr': '|S0', 'fortran_order': False, 'shape': {shape}, }}\n");
    let mut file_bytes = b"\x93NUMPY\x01\x00".to_vec();
    file_bytes.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    file_bytes.extend_from_slice(header.as_bytes());
    let e = NpyView::parse(&file_bytes).unwrap_err();
    assert_eq!((e.kind, e.offset), (NpyErrorKind::ShapeOverflows, 10));
    assert_eq!(e.to_string(), "shape overflows, at byte 10");
    // A zero-byte type with a shape that fits is still read.
    let fits = file(NpyType::Bytes(0), &[3, 2], &[]);
    assert_eq!(NpyView::parse(&fits).unwrap().elements(), 6);
}
