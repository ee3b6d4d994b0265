//! The signal ops: their math against naive references (proptest), TFLM's own unit-test
//! vectors (`signal/micro/kernels/*_test.cc`, with the FlexBuffer options of its
//! `*_flexbuffers_generated_data.cc`), state across invokes and resets, and refusals. The
//! sweeps against TFLM's Python interpreter are tests/tests/signal.rs.

use std::collections::VecDeque;
use std::vec::Vec;

use proptest::prelude::*;

use super::super::proptest_config::cases;
use super::fixed::{self, naive};
use super::kiss::{self, Plan};
use super::super::one_op::kernel_error;
use crate::interpreter::{AllOps, Interpreter, InterpreterError, KernelError, Options};
use crate::model::Model;
use crate::model::tests::builder::{Obj, T, bytes, finish, ints, string, tables};

// ------------------------------------------------------------------------ building models

const F32: u8 = 0;
const I32: u8 = 2;
const BOOL: u8 = 6;
const I16: u8 = 7;
const U64: u8 = 12;
const U32: u8 = 15;

/// A tensor: type, shape, constant data (little-endian), whether a variable.
struct Tn {
    ty: u8,
    shape: Vec<i32>,
    data: Option<Vec<u8>>,
}

fn t(ty: u8, shape: &[i32]) -> Tn {
    Tn {
        ty,
        shape: shape.to_vec(),
        data: None,
    }
}

fn c16(shape: &[i32], v: &[i16]) -> Tn {
    Tn {
        ty: I16,
        shape: shape.to_vec(),
        data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    }
}

/// A model of custom op `name` with `options` over `tensors`: `0..inputs` its inputs (the
/// non-constant ones the graph's, in order), the rest its outputs.
fn model(name: &str, options: &[u8], tensors: &[Tn], inputs: usize) -> Vec<u8> {
    let mut buffers = vec![T::new()];
    let mut ts = Vec::new();
    for (i, tn) in tensors.iter().enumerate() {
        buffers.push(match &tn.data {
            Some(d) => T::new().obj(0, bytes(d)),
            None => T::new(),
        });
        ts.push(
            T::new()
                .obj(0, ints(&tn.shape))
                .u8(1, tn.ty)
                .u32(2, buffers.len() as u32 - 1)
                .obj(3, string(&format!("t{i}"))),
        );
    }
    let all: Vec<i32> = (0..tensors.len() as i32).collect();
    let (op_in, op_out) = all.split_at(inputs);
    let graph_in: Vec<i32> = op_in
        .iter()
        .copied()
        .filter(|&i| tensors[i as usize].data.is_none())
        .collect();
    let mut op = T::new()
        .u32(0, 0)
        .obj(1, ints(op_in))
        .obj(2, ints(op_out));
    if !options.is_empty() {
        op = op.obj(5, bytes(options));
    }
    let subgraph = T::new()
        .obj(0, tables(ts))
        .obj(1, ints(&graph_in))
        .obj(2, ints(op_out))
        .obj(3, tables(vec![op]))
        .obj(4, string("main"));
    let opcode = T::new()
        .u8(0, 32)
        .obj(1, string(name))
        .i32(2, 1)
        .i32(3, 32);
    let root = T::new()
        .u32(0, 3)
        .obj(1, tables(vec![opcode]))
        .obj(2, Obj::Offsets(vec![Obj::Table(subgraph)]))
        .obj(4, tables(buffers));
    finish(&root, b"TFL3")
}

/// A FlexBuffer value of a test map.
#[derive(Clone, Copy)]
enum V {
    I(i64),
    B(bool),
}

/// A FlexBuffer map of `entries` (keys sorted here), every word 8 bytes wide.
fn flex(entries: &[(&str, V)]) -> Vec<u8> {
    let mut entries = entries.to_vec();
    entries.sort_by_key(|e| e.0);
    let mut buf = Vec::new();
    let mut keys = Vec::new();
    for (k, _) in &entries {
        keys.push(buf.len());
        buf.extend_from_slice(k.as_bytes());
        buf.push(0);
    }
    while buf.len() % 8 != 0 {
        buf.push(0);
    }
    let word = |buf: &mut Vec<u8>, v: u64| buf.extend_from_slice(&v.to_le_bytes());
    word(&mut buf, entries.len() as u64);
    let keys_at = buf.len();
    for &k in &keys {
        let here = buf.len();
        word(&mut buf, (here - k) as u64);
    }
    let here = buf.len();
    word(&mut buf, (here - keys_at) as u64);
    word(&mut buf, 8);
    word(&mut buf, entries.len() as u64);
    let values_at = buf.len();
    for (_, v) in &entries {
        word(
            &mut buf,
            match *v {
                V::I(i) => i as u64,
                V::B(b) => u64::from(b),
            },
        );
    }
    for (_, v) in &entries {
        buf.push(match v {
            V::I(_) => (1 << 2) | 3,
            V::B(_) => (26 << 2) | 3,
        });
    }
    while buf.len() % 8 != 0 {
        buf.push(0);
    }
    let here = buf.len();
    word(&mut buf, (here - values_at) as u64);
    buf.push((9 << 2) | 3);
    buf.push(8);
    buf
}

/// Sets the model up and runs one invoke per entry of `feeds` (each input's native bytes),
/// collecting every output's bytes per invoke; `reset_after` resets the state after that
/// many invokes.
fn stream(
    file: &[u8],
    feeds: &[Vec<Vec<u8>>],
    reset_after: Option<usize>,
) -> Result<Vec<Vec<Vec<u8>>>, InterpreterError> {
    let model = Model::load(file).expect("the test model loads");
    let options = Options::default();
    let mut arena = vec![0u8; Interpreter::required(&model, &AllOps, &options)?];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options)?;
    let mut outs = Vec::new();
    for (n, feed) in feeds.iter().enumerate() {
        if reset_after == Some(n) {
            it.reset_state()?;
        }
        for (k, x) in feed.iter().enumerate() {
            it.input_bytes_mut(k)?.copy_from_slice(x);
        }
        it.invoke()?;
        outs.push(
            (0..it.output_count())
                .map(|j| it.output_bytes(j).map(<[u8]>::to_vec))
                .collect::<Result<_, _>>()?,
        );
    }
    Ok(outs)
}

fn run1(file: &[u8], feed: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    stream(file, &[feed], None).expect("runs").remove(0)
}

fn refused(file: &[u8]) -> KernelError {
    kernel_error(stream(file, &[], None).expect_err("the model is refused"))
}

fn le16(v: &[i16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}
fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}
fn le64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}
fn i16s(b: &[u8]) -> Vec<i16> {
    b.chunks_exact(2)
        .map(|c| i16::from_ne_bytes([c[0], c[1]]))
        .collect()
}
fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

// ------------------------------------------------------------- TFLM's FlexBuffer options

/// g_gen_data_window_shift_12.
const WINDOW_SHIFT_12: [u8; 16] = [
    0x73, 0x68, 0x69, 0x66, 0x74, 0x00, 0x01, 0x07, 0x01, 0x01, 0x01, 0x0c, 0x04, 0x02, 0x24, 0x01,
];
/// g_gen_data_start_index_2_end_index_4 with the two indices patched in.
fn energy_options(start: u8, end: u8) -> [u8; 35] {
    let mut b = [
        0x73, 0x74, 0x61, 0x72, 0x74, 0x5f, 0x69, 0x6e, 0x64, 0x65, 0x78, 0x00, 0x65, 0x6e, 0x64,
        0x5f, 0x69, 0x6e, 0x64, 0x65, 0x78, 0x00, 0x02, 0x0b, 0x18, 0x02, 0x01, 0x02, 0x04, 0x02,
        0x04, 0x04, 0x04, 0x24, 0x01,
    ];
    b[28] = end;
    b[29] = start;
    b
}
/// g_gen_data_filter_bank_log_scale_1600_correction_bits_3.
const LOG_1600_3: [u8; 53] = [
    0x6f, 0x75, 0x74, 0x70, 0x75, 0x74, 0x5f, 0x73, 0x63, 0x61, 0x6c, 0x65, 0x00, 0x69, 0x6e, 0x70,
    0x75, 0x74, 0x5f, 0x63, 0x6f, 0x72, 0x72, 0x65, 0x63, 0x74, 0x69, 0x6f, 0x6e, 0x5f, 0x62, 0x69,
    0x74, 0x73, 0x00, 0x02, 0x17, 0x25, 0x02, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x40, 0x06,
    0x05, 0x05, 0x06, 0x25, 0x01,
];
/// g_gen_data_filter_bank_log_scale_32768_correction_bits_5.
const LOG_32768_5: [u8; 65] = [
    0x6f, 0x75, 0x74, 0x70, 0x75, 0x74, 0x5f, 0x73, 0x63, 0x61, 0x6c, 0x65, 0x00, 0x69, 0x6e, 0x70,
    0x75, 0x74, 0x5f, 0x63, 0x6f, 0x72, 0x72, 0x65, 0x63, 0x74, 0x69, 0x6f, 0x6e, 0x5f, 0x62, 0x69,
    0x74, 0x73, 0x00, 0x02, 0x17, 0x25, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x06, 0x06, 0x0a, 0x26,
    0x01,
];
/// g_gen_data_snr_shift_6_test.
const SNR_SHIFT_6: [u8; 20] = [
    0x73, 0x6e, 0x72, 0x5f, 0x73, 0x68, 0x69, 0x66, 0x74, 0x00, 0x01, 0x0b, 0x01, 0x01, 0x01, 0x06,
    0x04, 0x02, 0x24, 0x01,
];
/// g_gen_data_3_delay with the length patched in.
fn delay_options(length: u8) -> [u8; 23] {
    let mut b = [
        0x64, 0x65, 0x6c, 0x61, 0x79, 0x5f, 0x6c, 0x65, 0x6e, 0x67, 0x74, 0x68, 0x00, 0x01, 0x0e,
        0x01, 0x01, 0x01, 0x03, 0x04, 0x02, 0x24, 0x01,
    ];
    b[18] = length;
    b
}
/// g_gen_data_fft_length_64_int16 with `T` patched in.
fn fft64_options(t: u8) -> [u8; 26] {
    let mut b = [
        0x66, 0x66, 0x74, 0x5f, 0x6c, 0x65, 0x6e, 0x67, 0x74, 0x68, 0x00, 0x54, 0x00, 0x02, 0x03,
        0x0f, 0x02, 0x01, 0x02, 0x07, 0x40, 0x04, 0x04, 0x04, 0x24, 0x01,
    ];
    b[19] = t;
    b
}

// ----------------------------------------------------------- TFLM's unit-test vectors

#[test]
fn window_matches_tflm_window_test_length16_shift12() {
    let x: Vec<i16> = (0..16).map(|k| k * 0x100).collect();
    let w: Vec<i16> = (0..16).rev().map(|k| k * 0x100).collect();
    let golden = [
        0, 224, 416, 576, 704, 800, 864, 896, 896, 864, 800, 704, 576, 416, 224, 0,
    ];
    // And over outer dimensions [2, 2, 16], as TFLM's OuterDims4 test.
    for shape in [vec![1, 16], vec![2, 2, 16]] {
        let n = shape.iter().product::<i32>() as usize;
        let file = model(
            "SignalWindow",
            &WINDOW_SHIFT_12,
            &[t(I16, &shape), c16(&[16], &w), t(I16, &shape)],
            2,
        );
        let x: Vec<i16> = x.iter().copied().cycle().take(n).collect();
        let y = i16s(&run1(&file, vec![le16(&x)])[0]);
        assert_eq!(y, golden.iter().copied().cycle().take(n).collect::<Vec<_>>());
    }
}

#[test]
fn window_saturates_as_tflm_window_test_length32_shift8() {
    let x = [
        1221, 1920, 9531, 2795, 1826, 371, 8446, 850, 3129, 8218, 4199, 8358, 205, 5268, 3263,
        2849, 8398, 1381, 6305, 668, 8867, 4651, 9121, 6141, 1961, 3750, 8418, 8085, 3308, 1788,
        1608, 4761,
    ];
    let w = [
        1323, 764, 9100, 4220, 1745, 9311, 178, 9442, 5676, 1817, 5433, 5837, 7635, 4539, 6548,
        9690, 6097, 4275, 1523, 3694, 7506, 2797, 5153, 172, 2172, 4540, 6643, 7845, 1719, 7564,
        1700, 5227,
    ];
    let golden = [
        6310, 5730, 32767, 32767, 12446, 13493, 5872, 31350, 32767, 32767, 32767, 32767, 6113,
        32767, 32767, 32767, 32767, 23061, 32767, 9639, 32767, 32767, 32767, 4125, 16637, 32767,
        32767, 32767, 22212, 32767, 10678, 32767,
    ];
    let file = model(
        "SignalWindow",
        &flex(&[("shift", V::I(8))]),
        &[t(I16, &[32]), c16(&[32], &w), t(I16, &[32])],
        2,
    );
    assert_eq!(i16s(&run1(&file, vec![le16(&x)])[0]), golden);
}

#[test]
fn energy_matches_tflm_energy_tests() {
    let x: Vec<i16> = (1..=16).collect();
    for (start, end, golden) in [
        (2, 4, [0, 0, 61, 113, 0, 0, 0, 0]),
        (0, 4, [5, 25, 61, 113, 0, 0, 0, 0]),
        (4, 8, [0, 0, 0, 0, 181, 265, 365, 481]),
    ] {
        let file = model(
            "SignalEnergy",
            &energy_options(start, end),
            &[t(I16, &[16]), t(U32, &[8])],
            1,
        );
        assert_eq!(u32s(&run1(&file, vec![le16(&x)])[0]), golden);
    }
}

#[test]
fn energy_of_full_scale_wraps_as_int32() {
    let file = model(
        "SignalEnergy",
        &energy_options(0, 2),
        &[t(I16, &[4]), t(U32, &[2])],
        1,
    );
    let y = u32s(&run1(&file, vec![le16(&[-32768, -32768, 3, -4])])[0]);
    assert_eq!(y, [1 << 31, 25]);
}

#[test]
fn filter_bank_log_matches_tflm_tests() {
    let x = [
        29, 21, 29, 40, 19, 11, 13, 23, 13, 11, 25, 17, 5, 4, 46, 14, 17, 14, 20, 14, 10, 10, 15,
        11, 17, 12, 15, 16, 19, 18, 6, 2,
    ];
    let golden = [
        8715, 8198, 8715, 9229, 8038, 7164, 7431, 8344, 7431, 7164, 8477, 7860, 5902, 5545, 9453,
        7550, 7860, 7550, 8120, 7550, 7011, 7011, 7660, 7164, 7860, 7303, 7660, 7763, 8038, 7952,
        6194, 4436,
    ];
    let file = model(
        "SignalFilterBankLog",
        &LOG_1600_3,
        &[t(U32, &[32]), t(I16, &[32])],
        1,
    );
    assert_eq!(i16s(&run1(&file, vec![le32(&x)])[0]), golden);

    let x = [48, 20, 19, 24, 35, 47, 23, 30, 31, 10, 48, 21, 46, 14, 18, 27];
    let golden = [
        32767, 15121, 13440, 21095, 32767, 32767, 19701, 28407, 29482, 32767, 32767, 16720, 32767,
        3434, 11669, 24955,
    ];
    let file = model(
        "SignalFilterBankLog",
        &LOG_32768_5,
        &[t(U32, &[16]), t(I16, &[16])],
        1,
    );
    assert_eq!(i16s(&run1(&file, vec![le32(&x)])[0]), golden);
}

#[test]
fn filter_bank_square_root_matches_tflm_tests() {
    let x = [
        10528000193, 28362909357, 47577133750, 8466055850, 5842710800, 2350911449, 2989811430,
        2646718839, 515262774, 276394561, 469831522, 55815334, 28232446, 11591835, 40329249,
        67658028, 183446654, 323189165, 117473797, 41339272, 25846050, 12428673, 18670978,
        22521722, 78477733, 54207503, 25150296, 43098592, 28211625, 15736687, 20990296, 17907031,
    ];
    let golden = [
        801, 1315, 1704, 718, 597, 378, 427, 401, 177, 129, 169, 58, 41, 26, 49, 64, 105, 140, 84,
        50, 39, 27, 33, 37, 69, 57, 39, 51, 41, 30, 35, 33,
    ];
    let file = model(
        "SignalFilterBankSquareRoot",
        &[],
        &[t(U64, &[32]), t(I32, &[]), t(U32, &[32])],
        2,
    );
    let y = run1(&file, vec![le64(&x), 7i32.to_ne_bytes().to_vec()]);
    assert_eq!(u32s(&y[0]), golden);

    let x = [
        13051415151, 14932650877, 18954728418, 8730126017, 6529665275, 12952546517, 10314975609,
        8919697835, 8053663348, 17231208421, 7366899760, 1372112200, 19953434807, 17012385332,
        4710443222, 17765594053,
    ];
    let golden = [
        3570, 3818, 4302, 2919, 2525, 3556, 3173, 2951, 2804, 4102, 2682, 1157, 4414, 4076, 2144,
        4165,
    ];
    let file = model(
        "SignalFilterBankSquareRoot",
        &[],
        &[t(U64, &[16]), t(I32, &[]), t(U32, &[16])],
        2,
    );
    let y = run1(&file, vec![le64(&x), 5i32.to_ne_bytes().to_vec()]);
    assert_eq!(u32s(&y[0]), golden);
}

#[test]
fn pcan_matches_tflm_mix1_ref1_case() {
    let x = [
        286, 298, 305, 291, 290, 279, 273, 257, 250, 240, 240, 233, 234, 230, 221, 205, 183, 159,
        156, 188, 239, 298, 345, 374, 380, 369, 359, 364, 372, 354, 302, 243, 194, 135, 64, 72,
        171, 245, 277, 304,
    ];
    let noise = [
        7310, 18308, 7796, 17878, 7413, 17141, 6978, 15789, 6390, 14745, 6135, 14314, 5981, 14130,
        5649, 12594, 4677, 9768, 3987, 11550, 6109, 18308, 8819, 22977, 9713, 22670, 9176, 22363,
        9509, 21748, 7719, 14929, 4959, 8294, 1636, 4423, 4371, 15052, 7080, 18677,
    ];
    let lut: [i16; 125] = [
        32636, 32633, 32630, -6, 0, -21589, 32624, -12, 0, -21589, 32612, -23, -2, -21589, 32587,
        -48, 0, -21589, 32539, -96, 0, -21589, 32443, -190, 0, -21589, 32253, -378, 4, -21589,
        31879, -739, 18, -21589, 31158, -1409, 62, -21589, 29811, -2567, 202, -21589, 27446,
        -4301, 562, -21589, 23707, -6265, 1230, -21589, 18672, -7458, 1952, -21589, 13166, -7030,
        2212, -21589, 8348, -5342, 1868, -21589, 4874, -3459, 1282, -21589, 2697, -2025, 774,
        -21589, 1446, -1120, 436, -21589, 762, -596, 232, -21589, 398, -313, 122, -21589, 207,
        -164, 64, -21589, 107, -85, 34, -21589, 56, -45, 18, -21589, 29, -22, 8, -21589, 15, -13,
        6, -21589, 8, -8, 4, -21589, 4, -2, 0, -21589, 2, -3, 2, -21589, 1, 0, 0, -21589, 1, -3,
        2, -21589, 0, 0, 0,
    ];
    let golden = [
        1301, 836, 1354, 827, 1312, 811, 1263, 779, 1192, 753, 1160, 743, 1140, 738, 1096, 698,
        956, 607, 845, 667, 1157, 836, 1461, 912, 1546, 908, 1496, 904, 1527, 895, 1346, 758, 999,
        548, 378, 344, 908, 761, 1274, 843,
    ];
    let file = model(
        "SignalPCAN",
        &SNR_SHIFT_6,
        &[t(U32, &[40]), t(U32, &[40]), c16(&[125], &lut), t(U32, &[40])],
        3,
    );
    assert_eq!(u32s(&run1(&file, vec![le32(&x), le32(&noise)])[0]), golden);
}

#[test]
fn delay_matches_tflm_delay_tests() {
    // Single dimension, delay 3 < frame 8, over two invokes.
    let file = model(
        "SignalDelay",
        &delay_options(3),
        &[t(I16, &[8]), t(I16, &[8])],
        1,
    );
    let feeds = vec![vec![le16(&[1, 2, 3, 4, 5, 6, 7, 8])], vec![le16(&[0; 8])]];
    let out = stream(&file, &feeds, None).unwrap();
    assert_eq!(i16s(&out[0][0]), [0, 0, 0, 1, 2, 3, 4, 5]);
    assert_eq!(i16s(&out[1][0]), [6, 7, 8, 0, 0, 0, 0, 0]);
    // Delay 5 > frame 3, over three invokes.
    let file = model(
        "SignalDelay",
        &delay_options(5),
        &[t(I16, &[3]), t(I16, &[3])],
        1,
    );
    let feeds = vec![
        vec![le16(&[1, 2, 3])],
        vec![le16(&[4, 0, 0])],
        vec![le16(&[0, 0, 0])],
    ];
    let out: Vec<Vec<i16>> = stream(&file, &feeds, None)
        .unwrap()
        .iter()
        .map(|o| i16s(&o[0]))
        .collect();
    assert_eq!(out, [vec![0, 0, 0], vec![0, 0, 1], vec![2, 3, 4]]);
    // [4, 4]: each row its own delay line.
    let file = model(
        "SignalDelay",
        &delay_options(3),
        &[t(I16, &[4, 4]), t(I16, &[4, 4])],
        1,
    );
    let x: Vec<i16> = (1..=15).chain([0]).collect();
    let feeds = vec![vec![le16(&x)], vec![le16(&[0; 16])]];
    let out = stream(&file, &feeds, None).unwrap();
    assert_eq!(
        i16s(&out[0][0]),
        [0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 9, 0, 0, 0, 13]
    );
    assert_eq!(
        i16s(&out[1][0]),
        [2, 3, 4, 0, 6, 7, 8, 0, 10, 11, 12, 0, 14, 15, 0, 0]
    );
}

#[test]
fn rfft_of_an_impulse_is_flat_as_tflm_size64_tests() {
    // 16384 at t = 0: every bin 16384 in float, 16384 / 64 = 256 in the integer builds.
    for (ty, code) in [(I16, 7u8), (I32, 2), (F32, 0)] {
        let file = model(
            "SignalRfft",
            &fft64_options(code),
            &[t(ty, &[64]), t(ty, &[66])],
            1,
        );
        let mut x = vec![0u8; 64 * if ty == I16 { 2 } else { 4 }];
        let y = match ty {
            I16 => {
                x[..2].copy_from_slice(&16384i16.to_ne_bytes());
                i16s(&run1(&file, vec![x])[0])
                    .iter()
                    .map(|&v| f32::from(v))
                    .collect::<Vec<_>>()
            }
            I32 => {
                x[..4].copy_from_slice(&16384i32.to_ne_bytes());
                run1(&file, vec![x])[0]
                    .chunks_exact(4)
                    .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as f32)
                    .collect()
            }
            _ => {
                x[..4].copy_from_slice(&16384f32.to_ne_bytes());
                f32s(&run1(&file, vec![x])[0])
            }
        };
        let bin = if ty == F32 { 16384.0 } else { 256.0 };
        let want: Vec<f32> = (0..66).map(|k| if k % 2 == 0 { bin } else { 0.0 }).collect();
        assert_eq!(y, want, "type {ty}");
    }
}

#[test]
fn irfft_of_a_flat_spectrum_is_an_impulse_as_tflm_length64_tests() {
    for (ty, code) in [(I16, 7u8), (F32, 0)] {
        let file = model(
            "SignalIrfft",
            &fft64_options(code),
            &[t(ty, &[66]), t(ty, &[64])],
            1,
        );
        let y: Vec<f32> = if ty == I16 {
            let x: Vec<i16> = (0..66).map(|k| if k % 2 == 0 { 256 } else { 0 }).collect();
            i16s(&run1(&file, vec![le16(&x)])[0])
                .iter()
                .map(|&v| f32::from(v))
                .collect()
        } else {
            let x: Vec<f32> = (0..66).map(|k| if k % 2 == 0 { 256.0 } else { 0.0 }).collect();
            let b = x.iter().flat_map(|v| v.to_ne_bytes()).collect();
            f32s(&run1(&file, vec![b])[0])
        };
        let want: Vec<f32> = (0..64).map(|k| if k == 0 { 256.0 } else { 0.0 }).collect();
        assert_eq!(y, want, "type {ty}");
    }
}

// ------------------------------------------------------------------------ state and resets

fn framer(size: i64, step: i64, prefill: bool, input: &[i32]) -> Vec<u8> {
    let frames = input.last().unwrap() / step as i32;
    let mut out: Vec<i32> = input[..input.len() - 1].to_vec();
    out.extend([frames, size as i32]);
    model(
        "SignalFramer",
        &flex(&[
            ("frame_size", V::I(size)),
            ("frame_step", V::I(step)),
            ("prefill", V::B(prefill)),
        ]),
        &[t(I16, input), t(I16, &out), t(BOOL, &[])],
        1,
    )
}

#[test]
fn framer_follows_its_documented_example() {
    // frame_size 3, frame_step 2: [1 2] -> invalid, [3 4] -> [1 2 3], [5 6] -> [3 4 5] ...
    let file = framer(3, 2, false, &[2]);
    let feeds: Vec<Vec<Vec<u8>>> = [[1, 2], [3, 4], [5, 6], [7, 8]]
        .iter()
        .map(|x| vec![le16(x)])
        .collect();
    let out = stream(&file, &feeds, None).unwrap();
    let got: Vec<(Vec<i16>, u8)> = out.iter().map(|o| (i16s(&o[0]), o[1][0])).collect();
    assert_eq!(
        got,
        [
            (vec![0, 0, 0], 0),
            (vec![1, 2, 3], 1),
            (vec![3, 4, 5], 1),
            (vec![5, 6, 7], 1)
        ]
    );
    // Prefilled: frame_size - frame_step zeros first, valid from the start; reset refills.
    let file = framer(3, 2, true, &[2]);
    let out = stream(&file, &[feeds[0].clone(), feeds[1].clone(), feeds[0].clone()], Some(2))
        .unwrap();
    let got: Vec<(Vec<i16>, u8)> = out.iter().map(|o| (i16s(&o[0]), o[1][0])).collect();
    assert_eq!(
        got,
        [(vec![0, 1, 2], 1), (vec![2, 3, 4], 1), (vec![0, 1, 2], 1)]
    );
}

/// A naive framer over one row's whole stream: per frame slot (`step` new samples each), the
/// frame (zeros while incomplete) and whether it was complete.
fn naive_framer(row: &[i16], size: usize, step: usize, prefill: bool) -> Vec<(Vec<i16>, bool)> {
    let mut s: Vec<i16> = if prefill { vec![0; size - step] } else { vec![] };
    let mut start = 0;
    row.chunks(step)
        .map(|chunk| {
            s.extend_from_slice(chunk);
            if s.len() - start >= size {
                start += step;
                (s[start - step..start - step + size].to_vec(), true)
            } else {
                (vec![0; size], false)
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(cases(24, 3))]

    #[test]
    fn framer_equals_a_naive_framer(
        size in 1usize..9, step in 1usize..5, per in 1usize..4, rows in 1usize..3,
        prefill: bool, invokes in 1usize..6, seed: u64,
    ) {
        prop_assume!(!prefill || size >= step);
        let inner = step * per;
        let file = framer(size as i64, step as i64, prefill, &[rows as i32, inner as i32]);
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 48) as i16
        };
        let feeds: Vec<Vec<i16>> =
            (0..invokes).map(|_| (0..rows * inner).map(|_| next()).collect()).collect();
        let out =
            stream(&file, &feeds.iter().map(|f| vec![le16(f)]).collect::<Vec<_>>(), None).unwrap();
        // Each row's whole stream at once, then cut per invoke.
        let frames: Vec<Vec<(Vec<i16>, bool)>> = (0..rows)
            .map(|r| {
                let row: Vec<i16> =
                    feeds.iter().flat_map(|f| f[r * inner..(r + 1) * inner].to_vec()).collect();
                naive_framer(&row, size, step, prefill)
            })
            .collect();
        for (n, o) in out.iter().enumerate() {
            let got = i16s(&o[0]);
            let mut valid = true;
            for (r, row) in frames.iter().enumerate() {
                for (f, (want, ok)) in row[n * per..(n + 1) * per].iter().enumerate() {
                    let at = (r * per + f) * size;
                    prop_assert_eq!(&got[at..at + size], &want[..]);
                    valid &= ok;
                }
            }
            prop_assert_eq!(o[1][0], u8::from(valid));
        }
    }
}

fn stacker(ch: i64, left: i64, right: i64, step: i64) -> Vec<u8> {
    let frames = (left + right + 1) as i32;
    model(
        "SignalStacker",
        &flex(&[
            ("num_channels", V::I(ch)),
            ("stacker_left_context", V::I(left)),
            ("stacker_right_context", V::I(right)),
            ("stacker_step", V::I(step)),
        ]),
        &[
            t(I16, &[ch as i32]),
            t(I16, &[ch as i32 * frames]),
            t(BOOL, &[]),
        ],
        1,
    )
}

#[test]
fn stacker_follows_its_documented_example() {
    // left 0, right 1, step 2 over frames 1..: [1 2] valid, then every second frame.
    let file = stacker(1, 0, 1, 2);
    let feeds: Vec<Vec<Vec<u8>>> = (1..=6).map(|k| vec![le16(&[k])]).collect();
    let out = stream(&file, &feeds, None).unwrap();
    let got: Vec<(Vec<i16>, u8)> = out.iter().map(|o| (i16s(&o[0]), o[1][0])).collect();
    assert_eq!(
        got,
        [
            (vec![0, 0], 0),
            (vec![1, 2], 1),
            (vec![0, 0], 0),
            (vec![3, 4], 1),
            (vec![0, 0], 0),
            (vec![5, 6], 1)
        ]
    );
    // Left context 2: the first frame stands in for the two before it; reset starts over.
    let file = stacker(2, 2, 0, 1);
    let feeds: Vec<Vec<Vec<u8>>> = [[1, 2], [3, 4], [1, 2]]
        .iter()
        .map(|x| vec![le16(x)])
        .collect();
    let out = stream(&file, &feeds, Some(2)).unwrap();
    let got: Vec<Vec<i16>> = out.iter().map(|o| i16s(&o[0])).collect();
    assert_eq!(
        got,
        [
            vec![1, 2, 1, 2, 1, 2],
            vec![1, 2, 1, 2, 3, 4],
            vec![1, 2, 1, 2, 1, 2]
        ]
    );
}

#[test]
fn overlap_add_sums_overlapping_frames_and_saturates_int16() {
    // The op's documentation: frames [1 2 3], [4 5 6], ... of size 3, step 2.
    let file = model(
        "SignalOverlapAdd",
        &flex(&[("T", V::I(7)), ("frame_step", V::I(2))]),
        &[t(I16, &[2, 3]), t(I16, &[4])],
        1,
    );
    let feeds = vec![
        vec![le16(&[1, 2, 3, 4, 5, 6])],
        vec![le16(&[7, 8, 9, 32767, 1, 1])],
        vec![le16(&[0; 6])],
    ];
    let out: Vec<Vec<i16>> = stream(&file, &feeds, None)
        .unwrap()
        .iter()
        .map(|o| i16s(&o[0]))
        .collect();
    assert_eq!(
        out,
        [vec![1, 2, 7, 5], vec![13, 8, 32767, 1], vec![1, 0, 0, 0]]
    );
}

#[test]
fn spectral_subtraction_keeps_its_noise_estimate_until_reset() {
    let options = flex(&[
        ("alternate_one_minus_smoothing", V::I(15401)),
        ("alternate_smoothing", V::I(983)),
        ("clamping", V::B(false)),
        ("min_signal_remaining", V::I(819)),
        ("num_channels", V::I(2)),
        ("one_minus_smoothing", V::I(15975)),
        ("smoothing", V::I(409)),
        ("smoothing_bits", V::I(10)),
        ("spectral_subtraction_bits", V::I(14)),
    ]);
    let file = model(
        "SignalFilterBankSpectralSubtraction",
        &options,
        &[t(U32, &[2]), t(U32, &[2]), t(U32, &[2])],
        1,
    );
    let x = [1000u32, 5000];
    let feeds = vec![vec![le32(&x)]; 3];
    let out = stream(&file, &feeds, Some(2)).unwrap();
    // By hand: noise = (x << 10) * smoothing >> 14 from 0.
    let n0 = [((1000u64 << 10) * 409) >> 14, ((5000u64 << 10) * 983) >> 14];
    assert_eq!(u32s(&out[0][1]), [n0[0] as u32, n0[1] as u32]);
    let y0 = [(((1000u64 << 10) - n0[0]) >> 10) as u32, (((5000u64 << 10) - n0[1]) >> 10) as u32];
    assert_eq!(u32s(&out[0][0]), y0);
    assert_ne!(out[1], out[0], "the estimate carries over");
    assert_eq!(out[2], out[0], "reset zeroes it");
}

// ------------------------------------------------------------------------------ refusals

#[test]
fn refusals_name_the_problem() {
    let mismatch = |e: KernelError| matches!(e, KernelError::Mismatch { .. });
    let unsupported = |e: KernelError| matches!(e, KernelError::Unsupported { .. });
    // Options: none, not a map, missing keys, out of range.
    let w = c16(&[4], &[1, 2, 3, 4]);
    let win = |o: &[u8]| {
        model(
            "SignalWindow",
            o,
            &[t(I16, &[4]), c16(&[4], &[1, 2, 3, 4]), t(I16, &[4])],
            2,
        )
    };
    assert!(mismatch(refused(&win(&[]))));
    assert!(mismatch(refused(&win(&[1, 2, 3]))));
    assert!(mismatch(refused(&win(&flex(&[("shiftx", V::I(1))])))));
    assert!(unsupported(refused(&win(&flex(&[("shift", V::I(32))])))));
    assert!(unsupported(refused(&win(&flex(&[("shift", V::I(-1))])))));
    drop(w);
    // A window not as long as the frame; types.
    let shift = flex(&[("shift", V::I(1))]);
    let file = model(
        "SignalWindow",
        &shift,
        &[t(I16, &[8]), c16(&[4], &[1, 2, 3, 4]), t(I16, &[8])],
        2,
    );
    assert!(mismatch(refused(&file)));
    let file = model(
        "SignalWindow",
        &shift,
        &[t(I32, &[4]), c16(&[4], &[1, 2, 3, 4]), t(I16, &[4])],
        2,
    );
    assert_eq!(refused(&file), super::super::base::check::TYPE);
    // FFT lengths TFLM's KISS FFT cannot run: odd, 2, a radix 7.
    for n in [7, 2, 14, 0, -4] {
        let file = model(
            "SignalRfft",
            &flex(&[("T", V::I(7)), ("fft_length", V::I(n))]),
            &[t(I16, &[4]), t(I16, &[4])],
            1,
        );
        assert!(unsupported(refused(&file)), "fft_length {n}");
    }
    // An input longer than the FFT; an output of the wrong length; a type T does not name.
    let rfft = |x: &[i32], y: &[i32], ty: u8, tcode: i64| {
        model(
            "SignalRfft",
            &flex(&[("T", V::I(tcode)), ("fft_length", V::I(8))]),
            &[t(ty, x), t(ty, y)],
            1,
        )
    };
    assert!(mismatch(refused(&rfft(&[9], &[10], I16, 7))));
    assert!(mismatch(refused(&rfft(&[8], &[8], I16, 7))));
    assert!(unsupported(refused(&rfft(&[8], &[10], U32, 15))));
    assert_eq!(
        refused(&rfft(&[8], &[10], I32, 7)),
        super::super::base::check::TYPE
    );
    // Energy outside the spectrum.
    let file = model(
        "SignalEnergy",
        &energy_options(2, 9),
        &[t(I16, &[16]), t(U32, &[8])],
        1,
    );
    assert!(mismatch(refused(&file)));
    // Framer: a step that does not divide the input, prefill past the frame.
    assert!(mismatch(refused(&framer(4, 3, false, &[4]))));
    assert!(unsupported(refused(&framer(2, 3, true, &[3]))));
    // Stacker: a step past its frames, a zero step, an input of another length.
    assert!(unsupported(refused(&stacker(2, 0, 1, 3))));
    assert!(unsupported(refused(&stacker(2, 0, 1, 0))));
    // Overlap-add: a step past the frame.
    let file = model(
        "SignalOverlapAdd",
        &flex(&[("T", V::I(0)), ("frame_step", V::I(4))]),
        &[t(F32, &[2, 3]), t(F32, &[8])],
        1,
    );
    assert!(unsupported(refused(&file)));
    // Spectral subtraction: shifts past a word.
    let file = model(
        "SignalFilterBankSpectralSubtraction",
        &flex(&[
            ("alternate_one_minus_smoothing", V::I(1)),
            ("alternate_smoothing", V::I(1)),
            ("clamping", V::B(true)),
            ("min_signal_remaining", V::I(1)),
            ("num_channels", V::I(1)),
            ("one_minus_smoothing", V::I(1)),
            ("smoothing", V::I(1)),
            ("smoothing_bits", V::I(32)),
            ("spectral_subtraction_bits", V::I(1)),
        ]),
        &[t(U32, &[1]), t(U32, &[1]), t(U32, &[1])],
        1,
    );
    assert!(unsupported(refused(&file)));
}

#[test]
fn data_driven_errors_are_errors_not_panics() {
    // A filter bank table pointing past the spectrum.
    let file = model(
        "SignalFilterBank",
        &flex(&[("num_channels", V::I(1))]),
        &[
            t(U32, &[4]),
            c16(&[2], &[1, 1]),
            c16(&[2], &[1, 1]),
            c16(&[2], &[0, 3]),
            c16(&[2], &[0, 0]),
            c16(&[2], &[1, 2]),
            t(U64, &[1]),
        ],
        6,
    );
    let e = kernel_error(stream(&file, &[vec![le32(&[1, 2, 3, 4])]], None).unwrap_err());
    assert!(matches!(e, KernelError::IndexOutOfRange { input: 3, .. }), "{e:?}");
    // A square root's shift outside 0..32.
    let file = model(
        "SignalFilterBankSquareRoot",
        &[],
        &[t(U64, &[1]), t(I32, &[]), t(U32, &[1])],
        2,
    );
    let e = stream(&file, &[vec![le64(&[4]), 32i32.to_ne_bytes().to_vec()]], None);
    assert!(matches!(kernel_error(e.unwrap_err()), KernelError::Mismatch { .. }));
    // A PCAN gain table too short for the estimate's octave.
    let file = model(
        "SignalPCAN",
        &SNR_SHIFT_6,
        &[t(U32, &[1]), t(U32, &[1]), c16(&[4], &[1, 2, 3, 4]), t(U32, &[1])],
        3,
    );
    let e = stream(&file, &[vec![le32(&[5]), le32(&[1 << 20])]], None);
    assert!(matches!(
        kernel_error(e.unwrap_err()),
        KernelError::IndexOutOfRange { input: 2, limit: 4, .. }
    ));
}

#[test]
fn zero_channels_and_empty_frames_run() {
    // Spectral subtraction over no channels keeps no state.
    let options = flex(&[
        ("alternate_one_minus_smoothing", V::I(1)),
        ("alternate_smoothing", V::I(1)),
        ("clamping", V::B(true)),
        ("min_signal_remaining", V::I(1)),
        ("num_channels", V::I(0)),
        ("one_minus_smoothing", V::I(1)),
        ("smoothing", V::I(1)),
        ("smoothing_bits", V::I(3)),
        ("spectral_subtraction_bits", V::I(1)),
    ]);
    let file = model(
        "SignalFilterBankSpectralSubtraction",
        &options,
        &[t(U32, &[0]), t(U32, &[0]), t(U32, &[0])],
        1,
    );
    assert_eq!(run1(&file, vec![vec![]]), [Vec::<u8>::new(), vec![]]);
    // A window over no frames; a delay of empty rows.
    let file = model(
        "SignalWindow",
        &flex(&[("shift", V::I(1))]),
        &[t(I16, &[0, 4]), c16(&[4], &[1, 2, 3, 4]), t(I16, &[0, 4])],
        2,
    );
    assert_eq!(run1(&file, vec![vec![]]), [Vec::<u8>::new()]);
    let file = model(
        "SignalDelay",
        &delay_options(2),
        &[t(I16, &[3, 0]), t(I16, &[3, 0])],
        1,
    );
    assert_eq!(run1(&file, vec![vec![]]), [Vec::<u8>::new()]);
}

// ------------------------------------------------------------------------------ the math

proptest! {
    #![proptest_config(cases(512, 16))]

    #[test]
    fn sqrt32_rounds_to_nearest(n: u32) {
        let want = naive::sqrt_rounded(u64::from(n)).min(0xFFFF);
        prop_assert_eq!(u64::from(fixed::sqrt32(n)), want);
    }

    #[test]
    fn sqrt64_rounds_to_nearest_above_32_bits(n in (1u64 << 32)..) {
        let want = naive::sqrt_rounded(n).min(0xFFFF_FFFF);
        prop_assert_eq!(u64::from(fixed::sqrt64(n)), want);
    }

    #[test]
    fn log32_approximates_the_natural_log(x in 2u32.., scale in 1u32..2000) {
        let got = f64::from(fixed::log32(x, scale));
        let want = f64::from(x).ln() * f64::from(scale);
        // The table's interpolation and three roundings.
        prop_assert!((got - want).abs() <= 2.0 + want * 2e-4, "{} vs {}", got, want);
    }

    #[test]
    fn auto_scale_shifts_as_far_as_int16_allows(x in proptest::collection::vec(-32767i16.., 1..40)) {
        let max = fixed::max_abs16(&x);
        prop_assert_eq!(i32::from(max), x.iter().map(|v| i32::from(*v).abs()).max().unwrap());
        let bits = fixed::auto_scale_bits(max);
        if max > 0 {
            prop_assert!(i32::from(max) << bits <= 32767);
            prop_assert!(i32::from(max) << (bits + 1) > 32767);
        } else {
            prop_assert_eq!(bits, 0);
        }
    }

    #[test]
    fn pcan_shrink_is_continuous_at_two(x in 0u32..(1 << 20)) {
        let y = fixed::pcan_shrink(x);
        let want = if x < 8192 { (f64::from(x) / 4096.0).powi(2) / 4.0 } else { f64::from(x) / 4096.0 - 1.0 };
        prop_assert!((f64::from(y) / 64.0 - want).abs() <= 1.0 / 64.0 + 1e-9);
    }
}

#[test]
fn msb_and_max_abs_edges_are_tflms() {
    assert_eq!(fixed::msb32(0), 32);
    assert_eq!(fixed::msb32(1), 1);
    assert_eq!(fixed::msb64(0), 64);
    assert_eq!(fixed::msb64(1 << 40), 41);
    // -32768 makes TFLM's max -32768, and the next value beats it.
    assert_eq!(fixed::max_abs16(&[-32768]), -32768);
    assert_eq!(fixed::max_abs16(&[-32768, 5]), 5);
    assert_eq!(fixed::auto_scale_bits(-32768), 0);
    assert_eq!(fixed::auto_scale_bits(0), 0);
    assert_eq!(fixed::sqrt32(u32::MAX), 0xFFFF);
    assert_eq!(fixed::sqrt64(u64::MAX), u32::MAX);
    assert_eq!(fixed::sqrt64(2), 1);
    assert_eq!(fixed::sqrt64(3), 2);
}

#[test]
fn factor_takes_fours_then_twos_then_odd_radices() {
    let radices = |n| kiss::factor(n).map(|(f, c)| f[..c].iter().map(|p| p.0).collect::<Vec<_>>());
    assert_eq!(radices(256), Some(vec![4, 4, 4, 4]));
    assert_eq!(radices(160), Some(vec![4, 4, 2, 5]));
    assert_eq!(radices(6), Some(vec![2, 3]));
    assert_eq!(radices(2), Some(vec![2]));
    assert_eq!(radices(45), Some(vec![3, 3, 5]));
    for n in [0, 1, 7, 14, 49, 11 * 4] {
        assert_eq!(radices(n), None, "{n}");
    }
    for n in 2..3000 {
        if let Some((f, c)) = kiss::factor(n) {
            assert_eq!(f[..c].iter().map(|p| p.0 as usize).product::<usize>(), n);
        }
    }
}

/// libm's cos and sin (what tessera computes twiddles with, on every target) give the twiddles
/// the host's C library gives TFLM's build, for every FFT length up to 4096.
#[test]
#[cfg_attr(miri, ignore = "4 million cos and sin")]
fn twiddles_from_libm_equal_the_c_librarys() {
    for nfft in 1..=2048usize {
        for inverse in [false, true] {
            let mut a16 = vec![0i16; 2 * nfft];
            let mut a32 = vec![0i32; 2 * nfft];
            let mut af = vec![0f32; 2 * nfft];
            kiss::twiddles(nfft, inverse, &mut a16);
            kiss::twiddles(nfft, inverse, &mut a32);
            kiss::twiddles(nfft, inverse, &mut af);
            for i in 0..nfft {
                let mut phase = -2.0 * core::f64::consts::PI * i as f64 / nfft as f64;
                if inverse {
                    phase *= -1.0;
                }
                let (c, s) = (phase.cos(), phase.sin());
                assert_eq!(a16[2 * i], (0.5 + 32767.0 * c).floor() as i16, "{nfft} {i}");
                assert_eq!(a16[2 * i + 1], (0.5 + 32767.0 * s).floor() as i16, "{nfft} {i}");
                assert_eq!(a32[2 * i], (0.5 + 2147483647.0 * c).floor() as i32, "{nfft} {i}");
                assert_eq!(a32[2 * i + 1], (0.5 + 2147483647.0 * s).floor() as i32, "{nfft} {i}");
                assert_eq!(af[2 * i], c as f32);
                assert_eq!(af[2 * i + 1], s as f32);
            }
        }
    }
}

/// The real FFT of `x` (zero-padded to `n`) by the definition, in f64.
fn dft(x: &[f64], n: usize) -> Vec<(f64, f64)> {
    (0..=n / 2)
        .map(|k| {
            x.iter().enumerate().fold((0.0, 0.0), |(re, im), (t, &v)| {
                let a = -2.0 * core::f64::consts::PI * (k * t) as f64 / n as f64;
                (re + v * a.cos(), im + v * a.sin())
            })
        })
        .collect()
}

/// Runs kiss::fftr of length `n` over `x`.
fn fftr<T: kiss::Scalar>(x: &[T], n: usize) -> Vec<T> {
    let nfft = n / 2;
    let (f, c) = kiss::factor(nfft).unwrap();
    let mut tw = vec![T::default(); 2 * nfft];
    let mut sup = vec![T::default(); 2 * (nfft / 2)];
    kiss::twiddles(nfft, false, &mut tw);
    kiss::super_twiddles(nfft, false, &mut sup);
    let plan = Plan {
        nfft,
        inverse: false,
        factors: &f[..c],
        twiddles: &tw,
    };
    let mut out = vec![T::default(); n + 2];
    let mut tmp = vec![T::default(); n];
    assert!(kiss::fftr(&plan, &sup, x, &mut out, &mut tmp));
    out
}

fn fftri<T: kiss::Scalar>(x: &[T], n: usize) -> Vec<T> {
    let nfft = n / 2;
    let (f, c) = kiss::factor(nfft).unwrap();
    let mut tw = vec![T::default(); 2 * nfft];
    let mut sup = vec![T::default(); 2 * (nfft / 2)];
    kiss::twiddles(nfft, true, &mut tw);
    kiss::super_twiddles(nfft, true, &mut sup);
    let plan = Plan {
        nfft,
        inverse: true,
        factors: &f[..c],
        twiddles: &tw,
    };
    let mut out = vec![T::default(); n];
    let mut tmp = vec![T::default(); n];
    assert!(kiss::fftri(&plan, &sup, x, &mut out, &mut tmp));
    out
}

const LENGTHS: [usize; 12] = [4, 6, 8, 10, 12, 16, 20, 24, 30, 40, 60, 64];

proptest! {
    #![proptest_config(cases(64, 4))]

    #[test]
    fn float_rfft_equals_the_dft(k in 0..LENGTHS.len(), seed: u64) {
        let n = LENGTHS[k];
        let mut s = seed;
        let x: Vec<f32> = (0..n).map(|_| { s = s.wrapping_mul(6364136223846793005).wrapping_add(1); ((s >> 40) as f32 / 16777216.0) - 0.5 }).collect();
        let got = fftr(&x, n);
        let want = dft(&x.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), n);
        for (k, &(re, im)) in want.iter().enumerate() {
            prop_assert!((f64::from(got[2 * k]) - re).abs() < 1e-4 * n as f64);
            prop_assert!((f64::from(got[2 * k + 1]) - im).abs() < 1e-4 * n as f64);
        }
        // And back: TFLM's float IRFFT divides by the length.
        let back = fftri(&got, n);
        for (b, &v) in back.iter().zip(&x) {
            prop_assert!((f64::from(*b / n as f32) - f64::from(v)).abs() < 1e-5 * n as f64);
        }
    }

    #[test]
    fn fixed_rfft_is_the_dft_over_the_length(k in 0..LENGTHS.len(), seed: u64) {
        let n = LENGTHS[k];
        let mut s = seed;
        let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1); (s >> 33) as i64 };
        let x16: Vec<i16> = (0..n).map(|_| (next() % 32768 - 16384) as i16).collect();
        let x32: Vec<i32> = x16.iter().map(|&v| i32::from(v) << 16).collect();
        let want = dft(&x16.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), n);
        let got16 = fftr(&x16, n);
        let got32 = fftr(&x32, n);
        // Each stage rounds (and divides by its radix) once: a few LSBs in all.
        let stages = kiss::factor(n / 2).unwrap().1 as f64 + 2.0;
        for (k, &(re, im)) in want.iter().enumerate() {
            let (re, im) = (re / n as f64, im / n as f64);
            prop_assert!((f64::from(got16[2 * k]) - re).abs() <= stages, "{} {}", got16[2 * k], re);
            prop_assert!((f64::from(got16[2 * k + 1]) - im).abs() <= stages);
            prop_assert!((f64::from(got32[2 * k]) / 65536.0 - re).abs() <= 0.01);
            prop_assert!((f64::from(got32[2 * k + 1]) / 65536.0 - im).abs() <= 0.01);
        }
    }
}

// ------------------------------------------------------------------------------ the ring

proptest! {
    #![proptest_config(cases(128, 8))]

    /// The stacker's ring is a FIFO: its stacked frames are the last frames seen, in order.
    #[test]
    fn stacker_equals_a_naive_fifo(ch in 1i64..4, left in 0i64..3, right in 0i64..3, step_pick in 0i64..8, seed: u64) {
        let frames = left + right + 1;
        let step = step_pick % frames + 1;
        let file = stacker(ch, left, right, step);
        let mut s = seed;
        let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1); (s >> 48) as i16 };
        let feeds: Vec<Vec<i16>> = (0..12).map(|_| (0..ch).map(|_| next()).collect()).collect();
        let out = stream(&file, &feeds.iter().map(|f| vec![le16(f)]).collect::<Vec<_>>(), None).unwrap();
        let mut q: VecDeque<i16> = VecDeque::new();
        for (n, f) in feeds.iter().enumerate() {
            q.extend(f.iter().copied());
            if n == 0 {
                for _ in 0..left { q.extend(f.iter().copied()); }
            }
            let size = (ch * frames) as usize;
            if q.len() >= size {
                let want: Vec<i16> = q.iter().take(size).copied().collect();
                prop_assert_eq!(i16s(&out[n][0]), want);
                prop_assert_eq!(out[n][1][0], 1);
                q.drain(..(ch * step) as usize);
            } else {
                prop_assert_eq!(out[n][1][0], 0);
            }
        }
    }
}
