//! CIRCULAR_BUFFER: slots shifted on every invoke, the rest of the graph skipped between
//! strides, the counter and slots set back by a reset, refusals. The sweep against TFLM's
//! Python interpreter is tests/tests/signal.rs.

use std::vec::Vec;

use super::SKIPPED;
use super::super::one_op::kernel_error;
use crate::interpreter::{AllOps, ErrorKind, Interpreter, KernelError, Options};
use crate::model::Model;
use crate::model::tests::builder::{Obj, T, bytes, finish, ints, string, tables};

/// CIRCULAR_BUFFER from int8 `input` to the variable int8 `output`, with `options`.
fn model(input: &[i32], output: &[i32], options: &[u8]) -> Vec<u8> {
    const IS_VARIABLE: usize = 5;
    let tensor = |shape: &[i32], b: u32| {
        T::new()
            .obj(0, ints(shape))
            .u8(1, 9)
            .u32(2, b)
            .obj(3, string("t"))
    };
    let mut op = T::new().u32(0, 0).obj(1, ints(&[0])).obj(2, ints(&[1]));
    if !options.is_empty() {
        op = op.obj(5, bytes(options));
    }
    let subgraph = T::new()
        .obj(
            0,
            tables(vec![tensor(input, 1), tensor(output, 2).u8(IS_VARIABLE, 1)]),
        )
        .obj(1, ints(&[0]))
        .obj(2, ints(&[1]))
        .obj(3, tables(vec![op]))
        .obj(4, string("main"));
    let opcode = T::new()
        .u8(0, 32)
        .obj(1, string("CIRCULAR_BUFFER"))
        .i32(2, 1)
        .i32(3, 32);
    let root = T::new()
        .u32(0, 3)
        .obj(1, tables(vec![opcode]))
        .obj(2, Obj::Offsets(vec![Obj::Table(subgraph)]))
        .obj(4, tables(vec![T::new(), T::new(), T::new()]));
    finish(&root, b"TFL3")
}

/// TFLM's g_gen_data_circular_buffer_config ({"cycles_max": 1}), `cycles_max` patched in.
fn cycles(n: u8) -> [u8; 21] {
    let mut b = [
        0x63, 0x79, 0x63, 0x6c, 0x65, 0x73, 0x5f, 0x6d, 0x61, 0x78, 0x00, 0x01, 0x0c, 0x01, 0x01,
        0x01, 0x01, 0x04, 0x02, 0x24, 0x01,
    ];
    b[16] = n;
    b
}

/// Per invoke: the output's values and whether the invoke ran to the end.
fn stream(file: &[u8], inputs: &[i8], reset_after: Option<usize>) -> Vec<(Vec<i8>, bool)> {
    let model = Model::load(file).expect("loads");
    let options = Options::default();
    let mut arena = vec![0u8; Interpreter::required(&model, &AllOps, &options).unwrap()];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
    let mut out = Vec::new();
    for (n, &x) in inputs.iter().enumerate() {
        if reset_after == Some(n) {
            it.reset_state().unwrap();
        }
        it.input_bytes_mut(0).unwrap().fill(x as u8);
        let ran = match it.invoke() {
            Ok(()) => true,
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::Kernel(SKIPPED));
                false
            }
        };
        let y = it
            .output_bytes(0)
            .unwrap()
            .iter()
            .map(|&b| b as i8)
            .collect();
        out.push((y, ran));
    }
    out
}

#[test]
fn slots_shift_every_invoke_and_the_graph_runs_every_cycles_max() {
    let file = model(&[1, 1, 1, 2], &[1, 3, 1, 2], &cycles(2));
    let got = stream(&file, &[1, 2, 3, 4], None);
    assert_eq!(
        got,
        [
            (vec![0, 0, 0, 0, 1, 1], false),
            (vec![0, 0, 1, 1, 2, 2], true),
            (vec![1, 1, 2, 2, 3, 3], false),
            (vec![2, 2, 3, 3, 4, 4], true),
        ]
    );
    // A reset zeroes the slots (a variable) and restarts the count.
    let got = stream(&file, &[1, 2, 3], Some(2));
    assert_eq!(got[2], (vec![0, 0, 0, 0, 3, 3], false));
}

#[test]
fn without_cycles_max_the_period_follows_tflms_guess() {
    // 5 slots: every invoke; 4 slots: every other.
    for (slots, first_runs) in [(5, true), (4, false)] {
        for options in [&[][..], &cycles(0)[..]] {
            let file = model(&[1, 1, 1, 1], &[1, slots, 1, 1], options);
            let got = stream(&file, &[7, 8], None);
            assert_eq!(got[0].1, first_runs, "{slots} slots");
            assert!(got[1].1);
        }
    }
}

#[test]
fn refusals() {
    let refused = |file: &[u8]| {
        let model = Model::load(file).expect("loads");
        let e = Interpreter::required(&model, &AllOps, &Options::default()).unwrap_err();
        kernel_error(e)
    };
    // An input of more than one slot, unequal depths, rank 3, no slots.
    for (x, y) in [
        (&[1, 2, 1, 2][..], &[1, 3, 1, 2][..]),
        (&[1, 1, 1, 3], &[1, 3, 1, 2]),
        (&[1, 1, 2], &[1, 3, 2]),
        (&[1, 1, 1, 2], &[1, 0, 1, 2]),
    ] {
        let e = refused(&model(x, y, &cycles(1)));
        assert!(
            matches!(
                e,
                KernelError::Mismatch { .. } | KernelError::Unsupported { .. }
            ),
            "{e:?}"
        );
    }
    // Options that are not a FlexBuffer map.
    let e = refused(&model(&[1, 1, 1, 2], &[1, 3, 1, 2], &[1, 2, 3]));
    assert!(matches!(e, KernelError::Mismatch { .. }));
}
