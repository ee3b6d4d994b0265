//! How set-up plans the graphs control flow calls: a callee's tensors never share bytes with
//! the control operator's operands (alive while it runs), and graphs that never run at the
//! same time (an IF's two branches; a loop's condition and body) may share bytes.

use std::vec::Vec;

use super::super::record::{Place, TensorRecord};
use super::super::{AllOps, Interpreter, Options};
use crate::model::Model;

const COUNTDOWN: &[u8] = include_bytes!("../../../../tests/fixtures/control/countdown.tflite");
const BRANCH: &[u8] = include_bytes!("../../../../tests/fixtures/control/branch.tflite");

/// Byte ranges in the arena's data region of graph `k`'s planned and persistent tensors.
fn ranges(it: &Interpreter<'_, '_>, k: usize) -> Vec<(usize, usize)> {
    let g = it.graph_record(k).unwrap();
    let records: &[TensorRecord] = it.records();
    records[g.tensors as usize..(g.tensors + g.tensor_count) as usize]
        .iter()
        .filter(|r| r.bytes > 0 && matches!(r.place(), Place::Planned | Place::Persistent))
        .map(|r| (r.offset as usize, (r.offset + r.bytes) as usize))
        .collect()
}

/// Ranges of the operands of control operator 0 of the main graph.
fn operands_of_first(it: &Interpreter<'_, '_>, model: &Model<'_>) -> Vec<(usize, usize)> {
    let op = model.subgraph(0).unwrap().operators().get(0).unwrap();
    let records = it.records();
    op.inputs()
        .iter()
        .chain(op.outputs().iter())
        .flatten()
        .map(|t| records[t])
        .filter(|r| r.bytes > 0 && r.place() == Place::Planned)
        .map(|r| (r.offset as usize, (r.offset + r.bytes) as usize))
        .collect()
}

fn overlap(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

fn set_up(bytes: &[u8], arena: &mut Vec<u8>, f: impl FnOnce(&Interpreter<'_, '_>, &Model<'_>)) {
    let mut words = std::vec![0u128; bytes.len().div_ceil(16)];
    zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..bytes.len()].copy_from_slice(bytes);
    let aligned = &zerocopy::IntoBytes::as_bytes(&words[..])[..bytes.len()];
    let model = Model::load(aligned).unwrap();
    let options = Options::default();
    arena.resize(Interpreter::required(&model, &AllOps, &options).unwrap(), 0);
    let it = Interpreter::new(model, &AllOps, arena, &options).unwrap();
    f(&it, &model);
}

#[test]
fn a_loops_condition_and_body_never_share_bytes_with_the_while_operands() {
    let mut arena = Vec::new();
    set_up(COUNTDOWN, &mut arena, |it, model| {
        let operands = operands_of_first(it, model);
        assert!(!operands.is_empty());
        for k in 1..3 {
            for r in ranges(it, k) {
                for o in &operands {
                    assert!(!overlap(r, *o), "graph {k}: {r:?} over the WHILE's {o:?}");
                }
            }
        }
    });
}

#[test]
fn an_ifs_branches_share_bytes_and_never_the_ifs_operands() {
    let mut arena = Vec::new();
    set_up(BRANCH, &mut arena, |it, model| {
        // The IF is the main graph's operator 1.
        let op = model.subgraph(0).unwrap().operators().get(1).unwrap();
        let records = it.records();
        let operands: Vec<_> = op
            .inputs()
            .iter()
            .chain(op.outputs().iter())
            .flatten()
            .map(|t| records[t])
            .filter(|r| r.place() == Place::Planned && r.bytes > 0)
            .map(|r| (r.offset as usize, (r.offset + r.bytes) as usize))
            .collect();
        let (then, other) = (ranges(it, 1), ranges(it, 2));
        for r in then.iter().chain(&other) {
            for o in &operands {
                assert!(!overlap(*r, *o), "{r:?} over the IF's {o:?}");
            }
        }
        // The branches run one at a time: the planner lets them share.
        assert!(
            then.iter().any(|a| other.iter().any(|b| overlap(*a, *b))),
            "then {then:?}, else {other:?}"
        );
    });
}
