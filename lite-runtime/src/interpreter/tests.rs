//! End-to-end checks of the interpreter on small fixture models (TensorFlow's converter, see
//! `tests/fixtures/models/README.md`) against LiteRT's outputs. Small enough for Miri, where
//! they check the byte-order paths on a big-endian host (s390x): constants copied and
//! swapped at set-up, `.npy` data (little-endian) into host-order tensors.

use super::*;
use crate::model::BuiltinOperator;
use tessera_core::npy::{NpyType, NpyView};

const SPARSE: &[u8] = include_bytes!("../../../tests/fixtures/models/sparse.tflite");
const SPARSE_IN: &[u8] = include_bytes!("../../../tests/fixtures/models/sparse.in0.npy");
const SPARSE_OUT: &[u8] = include_bytes!("../../../tests/fixtures/models/sparse.out0.npy");
const STRINGS: &[u8] = include_bytes!("../../../tests/fixtures/models/strings.tflite");
const REDUCE: &[u8] = include_bytes!("../../../tests/fixtures/models/ops_reduce.tflite");
/// A fuzzed model whose graph has no tensors and no operators (it sets up in 0 bytes past the
/// start's padding), after the `interpret` fuzz target's 8 head bytes.
const EMPTY_GRAPH: &[u8] =
    include_bytes!("../../../tests/fuzz/corpus/interpret/seed-finding-empty-arena");
const REDUCE_IN: &[u8] = include_bytes!("../../../tests/fixtures/models/ops_reduce.in0.npy");
const REDUCE_OUT: [&[u8]; 5] = [
    include_bytes!("../../../tests/fixtures/models/ops_reduce.out0.npy"),
    include_bytes!("../../../tests/fixtures/models/ops_reduce.out1.npy"),
    include_bytes!("../../../tests/fixtures/models/ops_reduce.out2.npy"),
    include_bytes!("../../../tests/fixtures/models/ops_reduce.out3.npy"),
    include_bytes!("../../../tests/fixtures/models/ops_reduce.out4.npy"),
];

/// `bytes` copied `shift` bytes past a 16-byte boundary.
fn placed(bytes: &[u8], shift: usize) -> (std::vec::Vec<u8>, usize) {
    let mut buf = std::vec![0u8; bytes.len() + 32];
    let at = buf.as_ptr().align_offset(16) + shift;
    buf[at..at + bytes.len()].copy_from_slice(bytes);
    (buf, at)
}

fn set(it: &mut Interpreter<'_, '_>, i: usize, file: &[u8]) {
    let npy = NpyView::parse(file).unwrap();
    let dst = it.input_bytes_mut(i).unwrap();
    dst.copy_from_slice(npy.data());
    npy.dtype().swap_to_host(dst);
}

fn check(it: &Interpreter<'_, '_>, j: usize, file: &[u8]) {
    let want = NpyView::parse(file).unwrap();
    let mut got = it.output_bytes(j).unwrap().to_vec();
    want.dtype().swap_to_host(&mut got);
    assert_eq!(
        it.tensor_shape(it.output_tensor(j).unwrap())
            .unwrap()
            .dims(),
        want.shape()
    );
    if want.dtype() == NpyType::F32 {
        for (g, w) in got.chunks(4).zip(want.data().chunks(4)) {
            let g = f32::from_le_bytes(g.try_into().unwrap());
            let w = f32::from_le_bytes(w.try_into().unwrap());
            assert!(
                (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
                "output {j}: {g}, LiteRT {w}"
            );
        }
    } else {
        assert_eq!(got, want.data(), "output {j}");
    }
}

fn setup<'m, 'a>(model: Model<'m>, arena: &'a mut std::vec::Vec<u8>) -> Interpreter<'m, 'a> {
    let options = Options::default();
    arena.resize(Interpreter::required(&model, &AllOps, &options).unwrap(), 0);
    Interpreter::new(model, &AllOps, arena, &options).unwrap()
}

#[test]
fn sparse_weights_in_place_and_copied_give_litert_outputs() {
    // Shift 0: constants read in place (on little-endian hosts); shift 1: copied at set-up.
    for shift in [0, 1] {
        let (buf, at) = placed(SPARSE, shift);
        let model = Model::load(&buf[at..at + SPARSE.len()]).unwrap();
        let mut arena = std::vec::Vec::new();
        let mut it = setup(model, &mut arena);
        set(&mut it, 0, SPARSE_IN);
        for _ in 0..2 {
            it.invoke().unwrap();
            check(&it, 0, SPARSE_OUT);
        }
    }
}

#[test]
fn reductions_and_int64_outputs_give_litert_outputs() {
    let model = Model::load(REDUCE).unwrap();
    let mut arena = std::vec::Vec::new();
    let mut it = setup(model, &mut arena);
    set(&mut it, 0, REDUCE_IN);
    it.invoke().unwrap();
    for (j, want) in REDUCE_OUT.iter().enumerate() {
        check(&it, j, want);
    }
}

#[test]
fn string_gathers_read_and_write_strings_in_the_arena() {
    let model = Model::load(STRINGS).unwrap();
    let mut arena = std::vec::Vec::new();
    let mut it = setup(model, &mut arena);
    // Inputs: ids [5] into an 8-string constant table, words [4], picks [2, 3] into words.
    let ids = it.signature_input("serving_default", "ids").unwrap();
    let words = it.signature_input("serving_default", "words").unwrap();
    let pick = it.signature_input("serving_default", "pick").unwrap();
    it.input::<i32>(ids)
        .unwrap()
        .as_slice_mut()
        .unwrap()
        .copy_from_slice(&[3, 0, 1, 7, 3]);
    let w: [&[u8]; 4] = [b"hello", b"", b"a word longer than twenty-two bytes", b"ok"];
    it.set_input_strings(words, w).unwrap();
    it.input::<i32>(pick)
        .unwrap()
        .as_slice_mut()
        .unwrap()
        .copy_from_slice(&[2, 0, 3, 1, 1, 2]);
    it.invoke().unwrap();
    let picked = it.signature_output("serving_default", "picked").unwrap();
    let got: std::vec::Vec<&[u8]> = it.output_strings(picked).unwrap().iter().collect();
    assert_eq!(got, [w[2], w[0], w[3], w[1], w[1], w[2]]);
    let names = it.signature_output("serving_default", "names").unwrap();
    let got: std::vec::Vec<&[u8]> = it.output_strings(names).unwrap().iter().collect();
    assert_eq!(got[1], b"apple");
    assert_eq!(got[3], b"fig");

    // A bad index in the data: an error naming the operator and the position.
    it.input::<i32>(ids).unwrap().as_slice_mut().unwrap()[2] = 8;
    let e = it.invoke().unwrap_err();
    assert!(
        e.operator.is_some() && e.op == Some(BuiltinOperator::Gather),
        "{e}"
    );
    assert!(matches!(
        e.kind,
        ErrorKind::Kernel(KernelError::IndexOutOfRange {
            position: 2,
            index: 8,
            limit: 8,
            ..
        })
    ));
    // Strings over the input's budget: the bytes needed.
    let long = [[b'x'; 2000].as_slice(); 4];
    let e = it.set_input_strings(words, long).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::InputStrings {
            needed: 4 * 6 + 8000,
            budget: Options::default().string_bytes
        }
    );
}

#[test]
fn set_up_errors_say_what_and_where() {
    let model = Model::load(SPARSE).unwrap();
    let options = Options::default();
    let needed = Interpreter::required(&model, &AllOps, &options).unwrap();
    let mut small = std::vec![0u8; 100];
    let e = Interpreter::new(model, &AllOps, &mut small, &options).unwrap_err();
    match e.kind {
        ErrorKind::ArenaTooSmall {
            needed: n,
            available,
        } => {
            assert_eq!(available, 100);
            assert!(n > 100 && n <= needed, "{n} vs {needed}");
        }
        k => panic!("{k:?}"),
    }
    // Only FULLY_CONNECTED registered: the DENSIFY at operator 0 is named.
    let mut ops = MutableOpResolver::<1>::new();
    ops.add(&kernels::FULLY_CONNECTED).unwrap();
    let e = Interpreter::required(&model, &ops, &options).unwrap_err();
    assert_eq!(e.operator, Some(0));
    assert_eq!(
        e.kind,
        ErrorKind::UnregisteredOp {
            op: BuiltinOperator::Densify
        }
    );
    assert!(std::format!("{e}").contains("DENSIFY"));
}

/// A string input nobody set reads as valid TFLite strings: one empty string per element.
#[test]
fn unset_string_inputs_read_as_empty_strings() {
    let bytes = include_bytes!("../../../tests/fixtures/models/strings.tflite");
    let model = Model::load(bytes).unwrap();
    let options = Options::default();
    let mut arena = std::vec![0u8; Interpreter::required(&model, &AllOps, &options).unwrap()];
    let it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
    let mut checked = 0;
    for i in 0..it.input_count() {
        let t = it.input_tensor(i).unwrap();
        if it.tensor_type(t) != Ok(TensorType::String) {
            continue;
        }
        let n = it.tensor_shape(t).unwrap().elements();
        let strings = it.tensor_strings(t).unwrap();
        assert_eq!(strings.len(), n);
        assert!(strings.iter().all(<[u8]>::is_empty));
        checked += 1;
    }
    assert_eq!(checked, 1, "the fixture has one string input");
}

/// An op newer than the schema (a builtin code it does not define) stops set-up at its
/// operator with the code; a custom op with its kind. Both name the operator.
#[test]
fn unknown_and_custom_ops_stop_set_up_at_their_operator() {
    use crate::model::tests::sample::{Spec, custom_opcode, opcode};
    let mut spec = Spec::new();
    spec.opcodes[1] = opcode(250);
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let e = Interpreter::required(&model, &AllOps, &Options::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnknownOp { code: 250 });
    assert_eq!((e.operator, e.op), (Some(1), None));
    assert_eq!(
        std::format!("{e}"),
        "operator 1: builtin code 250, an op newer than this schema"
    );

    let mut spec = Spec::new();
    spec.opcodes[1] = custom_opcode("MyOp");
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let e = Interpreter::required(&model, &AllOps, &Options::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::CustomOp);
    assert_eq!((e.operator, e.op), (Some(1), Some(BuiltinOperator::Custom)));
    assert_eq!(
        std::format!("{e}"),
        "operator 1 (CUSTOM): no kernel registered for this custom op"
    );
}

/// A custom kernel registered by name runs where the model names it, reading its
/// `custom_options` (a FlexBuffer); another name is not found.
#[test]
fn a_registered_custom_kernel_runs_with_its_options() {
    use crate::model::FlexValue;
    use crate::model::tests::builder::{F, bytes as fb_bytes};
    use crate::model::tests::sample::{Spec, custom_opcode};
    use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

    #[derive(FromBytes, IntoBytes, KnownLayout, Immutable)]
    #[repr(C)]
    struct Scale(f32);

    /// `y = a + scale * b`, `scale` from the options.
    fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
        let bad = KernelError::Mismatch {
            what: "options without a scale",
        };
        let options = FlexValue::root(ctx.custom_options()).map_err(|_| bad)?;
        let scale = options.as_map().and_then(|m| m.get("scale")).ok_or(bad)?;
        ctx.set_params(&Scale(scale.as_f64().ok_or(bad)? as f32));
        Ok(())
    }
    fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
        let Scale(k) = ctx.params();
        let (a, b) = (ctx.input::<f32>(0)?, ctx.input::<f32>(1)?);
        for ((y, a), b) in ctx.output::<f32>(0)?.iter_mut().zip(a).zip(b) {
            *y = a + k * b;
        }
        Ok(())
    }
    static AXPY: CustomKernel = CustomKernel {
        name: "Axpy",
        kernel: Kernel {
            op: BuiltinOperator::Custom,
            prepare,
            init: None,
            eval,
        },
    };

    // {"scale": 2.0}, as flatbuffers' flexbuffers.Dumps writes it.
    let options = [
        115u8, 99, 97, 108, 101, 0, 1, 7, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 64, 14, 5,
        38, 1,
    ];
    assert!(FlexValue::root(&options).is_ok());
    let mut spec = Spec::new();
    spec.opcodes[1] = custom_opcode("Axpy");
    const CUSTOM_OPTIONS: usize = 5; // the Operator table's slot
    spec.operators[1].put(CUSTOM_OPTIONS, F::Off(fb_bytes(&options)));
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let mut ops = MutableOpResolver::<2>::new();
    ops.add(&kernels::FULLY_CONNECTED).unwrap();
    ops.add_custom(&AXPY).unwrap();
    let options = Options::default();
    let mut arena = std::vec![0u8; Interpreter::required(&model, &ops, &options).unwrap()];
    let mut it = Interpreter::new(model, &ops, &mut arena, &options).unwrap();
    it.input::<f32>(0)
        .unwrap()
        .as_slice_mut()
        .unwrap()
        .copy_from_slice(&[1.0, 2.0, 3.0]);
    it.invoke().unwrap();
    let fc = it.tensor::<f32>(3).unwrap().as_slice().unwrap().to_vec();
    let y = it.output::<f32>(0).unwrap().as_slice().unwrap().to_vec();
    assert_eq!(y, [fc[0] * 3.0, fc[1] * 3.0]);

    // Another name is not found.
    let mut ops = MutableOpResolver::<2>::new();
    ops.add(&kernels::FULLY_CONNECTED).unwrap();
    static OTHER: CustomKernel = CustomKernel {
        name: "Axpy2",
        kernel: Kernel {
            op: BuiltinOperator::Custom,
            prepare,
            init: None,
            eval,
        },
    };
    ops.add_custom(&OTHER).unwrap();
    let e = Interpreter::required(&model, &ops, &Options::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::CustomOp);
}

/// Every arena length up to what a model needs, at an aligned and a misaligned start, and the
/// empty arena at a dangling address (an empty `Vec`'s): set-up either succeeds within the
/// arena and runs exactly as in a roomy one, or says `ArenaTooSmall` with the exact bytes
/// needed (with `std`), which then suffice. Covers the cut-offs inside set-up: the records,
/// the operand table (written up to the plan's table, its length known only once the
/// operators are walked), the plan's table and the data; and a graph that needs no bytes at
/// all, whose empty tables once failed their cast at a dangling address ("more than 4 GiB").
#[test]
#[cfg_attr(miri, ignore = "thousands of set-ups")]
fn every_arena_length_sets_up_or_says_how_much_it_needs() {
    let options = Options::default();
    for bytes in [SPARSE, REDUCE, &EMPTY_GRAPH[8..]] {
        let model = Model::load(bytes).unwrap();
        let required = Interpreter::required(&model, &AllOps, &options).unwrap();
        // What the graph computes from one input pattern, in an arena with room to spare.
        let run = |arena: &mut [u8]| -> Result<std::vec::Vec<u8>, InterpreterError> {
            let len = arena.len();
            let mut it = Interpreter::new(model, &AllOps, arena, &options)?;
            assert!(it.arena_used_bytes() <= len, "{len}");
            if it.input_count() > 0 {
                for (k, b) in it.input_bytes_mut(0)?.iter_mut().enumerate() {
                    *b = (k * 7 % 61) as u8;
                }
            }
            it.invoke()?;
            let mut out = std::vec::Vec::new();
            for j in 0..it.output_count() {
                out.extend_from_slice(it.output_bytes(j)?);
            }
            Ok(out)
        };
        let expected = run(&mut std::vec![0u8; required]).unwrap();
        match run(&mut std::vec::Vec::new()) {
            Ok(out) => assert_eq!(out, expected),
            Err(e) => assert!(
                matches!(e.kind, ErrorKind::ArenaTooSmall { needed, available: 0 } if needed > 0),
                "{e}"
            ),
        }
        for shift in [0, 5] {
            let mut buf = std::vec![0u8; required + 32];
            let start = buf.as_ptr().align_offset(16) + shift;
            for len in 0..=required {
                match run(&mut buf[start..start + len]) {
                    Ok(out) => assert_eq!(out, expected, "{len} bytes at +{shift}"),
                    Err(e) => {
                        let ErrorKind::ArenaTooSmall { needed, available } = e.kind else {
                            panic!("{len} bytes at +{shift}: {e}");
                        };
                        assert_eq!(available, len);
                        assert!(needed > len && needed <= required, "{needed}, {len}");
                        let out = run(&mut buf[start..start + needed]);
                        assert_eq!(out.as_ref(), Ok(&expected), "{needed} bytes at +{shift}");
                    }
                }
            }
        }
    }
}

/// A variable tensor updated in place by its kernel keeps its value across invokes, is read by
/// the other operators that use it, and `reset_state` sets it back to the model's value; a
/// kernel's persistent bytes count invokes the same way.
#[test]
#[cfg(feature = "state")]
fn variables_and_kernel_state_persist_across_invokes_until_reset() {
    use crate::model::tests::builder::T;
    use crate::model::tests::sample::{Spec, custom_opcode, operator};

    /// `v += y` (v a variable), `z = n v` with `n` the invokes since set-up or reset (its
    /// persistent word).
    fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
        ctx.request_persistent(4);
        Ok(())
    }
    fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
        ctx.persistent()[..4].copy_from_slice(&0u32.to_ne_bytes());
        Ok(())
    }
    fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
        let count = ctx.persistent_mut()?;
        let n = u32::from_ne_bytes(count[..4].try_into().unwrap()) + 1;
        count[..4].copy_from_slice(&n.to_ne_bytes());
        let v = ctx.input_mut::<f32>(1)?;
        let y = ctx.input::<f32>(0)?;
        for (v, y) in v.iter_mut().zip(y) {
            *v += y;
        }
        for (z, v) in ctx.output::<f32>(0)?.iter_mut().zip(v.iter()) {
            *z = n as f32 * v;
        }
        // Taken: not handed out again, shared or writable, while the kernel may write it.
        assert!(ctx.input::<f32>(1).is_err());
        assert!(ctx.input_mut::<f32>(1).is_err());
        Ok(())
    }
    static ACCUMULATE: CustomKernel = CustomKernel {
        name: "Accumulate",
        kernel: Kernel {
            op: BuiltinOperator::Custom,
            prepare,
            init: Some(init),
            eval,
        },
    };

    // FULLY_CONNECTED(x, w, b) -> y; Accumulate(y, b) -> z: b, the FC's bias, is a variable
    // starting at the model's [0.5, -0.5].
    const IS_VARIABLE: usize = 5; // the Tensor table's slot
    let mut spec = Spec::new();
    spec.opcodes[1] = custom_opcode("Accumulate");
    spec.tensors[2] = std::mem::replace(&mut spec.tensors[2], T::new()).u8(IS_VARIABLE, 1);
    spec.operators[1] = operator(1, &[3, 2], &[4]);
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let mut ops = MutableOpResolver::<2>::new();
    ops.add(&kernels::FULLY_CONNECTED).unwrap();
    ops.add_custom(&ACCUMULATE).unwrap();
    let options = Options::default();
    let mut arena = std::vec![0u8; Interpreter::required(&model, &ops, &options).unwrap()];
    let mut it = Interpreter::new(model, &ops, &mut arena, &options).unwrap();
    let x = [1.0f32, 2.0, 3.0];
    // y = relu(W x + b) with W = [[1, 2, 3], [4, 5, 6]]: W x = [14, 32].
    let mut b = [0.5f32, -0.5];
    let run = |it: &mut Interpreter<'_, '_>, b: &mut [f32; 2], n: f32| {
        it.input::<f32>(0)
            .unwrap()
            .as_slice_mut()
            .unwrap()
            .copy_from_slice(&x);
        it.invoke().unwrap();
        let y = [(14.0 + b[0]).max(0.0), (32.0 + b[1]).max(0.0)];
        b[0] += y[0];
        b[1] += y[1];
        let z = it.output::<f32>(0).unwrap().as_slice().unwrap().to_vec();
        assert_eq!(z, [n * b[0], n * b[1]]);
    };
    for n in 1..=3 {
        run(&mut it, &mut b, n as f32);
    }
    let variable =
        |it: &Interpreter<'_, '_>| it.tensor::<f32>(2).map(|v| v.as_slice().unwrap().to_vec());
    assert_eq!(variable(&it).unwrap(), b.to_vec());
    it.reset_state().unwrap();
    assert_eq!(variable(&it).unwrap(), [0.5, -0.5]);
    let mut b = [0.5f32, -0.5];
    run(&mut it, &mut b, 1.0);
}

#[test]
fn a_profiled_invoke_tells_each_operator_in_order_and_gives_the_same_outputs() {
    /// Each begin and end, as `(op, is_end)`.
    struct Log(std::vec::Vec<(usize, bool)>);
    impl Profiler for Log {
        fn begin(&mut self, op: usize) {
            self.0.push((op, false));
        }
        fn end(&mut self, op: usize) {
            self.0.push((op, true));
        }
    }
    let model = Model::load(REDUCE).unwrap();
    let ops = model.subgraph(0).unwrap().operators().len();
    let mut arena = std::vec::Vec::new();
    let mut it = setup(model, &mut arena);
    assert_eq!(it.operator_count(), ops);
    set(&mut it, 0, REDUCE_IN);
    let mut log = Log(std::vec::Vec::new());
    it.invoke_profiled(&mut log).unwrap();
    let want: std::vec::Vec<_> = (0..ops).flat_map(|op| [(op, false), (op, true)]).collect();
    assert_eq!(log.0, want);
    for (j, want) in REDUCE_OUT.iter().enumerate() {
        check(&it, j, want);
    }
    // The std clock adds up over invokes, in the caller's slice.
    let mut nanos = std::vec![0u64; ops];
    it.invoke_profiled(&mut OpTimes::new(&mut nanos)).unwrap();
    let once: u64 = nanos.iter().sum();
    it.invoke_profiled(&mut OpTimes::new(&mut nanos)).unwrap();
    assert!(once > 0 && nanos.iter().sum::<u64>() > once);
    // A short slice times the operators it has room for.
    it.invoke_profiled(&mut OpTimes::new(&mut [])).unwrap();
}

#[test]
fn a_profiled_invoke_that_fails_ends_its_operator_and_names_it() {
    struct Count(usize, usize);
    impl Profiler for Count {
        fn begin(&mut self, _: usize) {
            self.0 += 1;
        }
        fn end(&mut self, _: usize) {
            self.1 += 1;
        }
    }
    // The string gather's indices come from its input: out of range, invoke fails there.
    let model = Model::load(STRINGS).unwrap();
    let mut arena = std::vec::Vec::new();
    let mut it = setup(model, &mut arena);
    let ids = it.signature_input("serving_default", "ids").unwrap();
    it.input::<i32>(ids).unwrap().as_slice_mut().unwrap()[2] = 8;
    let plain = it.invoke().unwrap_err();
    let mut count = Count(0, 0);
    let profiled = it.invoke_profiled(&mut count).unwrap_err();
    assert_eq!(plain, profiled);
    assert_eq!(profiled.op, Some(BuiltinOperator::Gather));
    // It stopped at the failing operator, which was ended too.
    assert_eq!(count.0, count.1);
    assert_eq!(count.0, profiled.operator.unwrap() + 1);
}

/// An operator that reads a tensor before the operator that writes it (which the schema
/// allows: Vela's Ethos-U scratch tensors): it reads the zeros set-up leaves, then what the
/// graph last wrote there, never another tensor's bytes.
#[test]
fn a_tensor_read_before_it_is_written_reads_zeros_then_the_last_value() {
    use crate::model::tests::sample::Spec;
    // ADD(y, y) -> z runs first, then FULLY_CONNECTED(x, w, b) -> y.
    let mut spec = Spec::new();
    spec.operators.swap(0, 1);
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let mut arena = std::vec::Vec::new();
    let mut it = setup(model, &mut arena);
    it.input::<f32>(0)
        .unwrap()
        .as_slice_mut()
        .unwrap()
        .copy_from_slice(&[1.0, 2.0, 3.0]);
    it.invoke().unwrap();
    assert_eq!(it.output::<f32>(0).unwrap().as_slice().unwrap(), [0.0, 0.0]);
    // y = w x + b = [14.5, 31.5] from the first invoke.
    it.invoke().unwrap();
    assert_eq!(
        it.output::<f32>(0).unwrap().as_slice().unwrap(),
        [29.0, 63.0]
    );
}

/// A DEQUANTIZE of float16 weights (FULLY_CONNECTED's): kept in the persistent part and
/// computed at the first invoke only with `fold_constants` (the default), planned and
/// computed at every invoke without; the same outputs either way, invoke after invoke.
#[test]
fn dequantized_constants_are_kept_with_fold_constants() {
    use crate::model::tests::sample::{Spec, buffer, opcode, operator, tensor};
    let mut spec = Spec::new();
    // w (tensor 1) becomes DEQUANTIZE(w16): float16 1..6, which are exact.
    let halves: std::vec::Vec<u8> = [0x3C00u16, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600]
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    spec.buffers.push(buffer(&halves));
    spec.tensors[1] = tensor("w", 0, &[2, 3], 0);
    spec.tensors.push(tensor("w16", 1, &[2, 3], 5));
    spec.opcodes.push(opcode(6));
    spec.operators.insert(0, operator(2, &[5], &[1]));
    let bytes = spec.build();
    let mut outputs = std::vec::Vec::new();
    for fold in [true, false] {
        let model = Model::load(&bytes).unwrap();
        let options = Options {
            fold_constants: fold,
            ..Options::default()
        };
        let mut arena = std::vec![0u8; Interpreter::required(&model, &AllOps, &options).unwrap()];
        let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
        let kept = it.records()[1].place() == Place::Persistent;
        assert_eq!(kept, fold);
        for _ in 0..2 {
            it.input::<f32>(0)
                .unwrap()
                .as_slice_mut()
                .unwrap()
                .copy_from_slice(&[1.0, 2.0, 3.0]);
            it.invoke().unwrap();
            outputs.push(it.output::<f32>(0).unwrap().as_slice().unwrap().to_vec());
        }
        // After a reset the kept weights are computed again, the same.
        it.reset_state().unwrap();
        it.invoke().unwrap();
        outputs.push(it.output::<f32>(0).unwrap().as_slice().unwrap().to_vec());
    }
    // z = 2 (w x + b) = 2 [14.5, 31.5].
    assert!(outputs.iter().all(|o| o == &[29.0, 63.0]), "{outputs:?}");
}
