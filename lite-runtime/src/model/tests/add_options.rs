//! ADD's `pot_scale_int16` as LiteRT reads it: the stored flag, the schema's true when the
//! table leaves the field out, false when the operator has no options table at all.

use super::builder::T;
use super::sample::Spec;
use crate::model::operator::slot as op_slot;
use crate::model::{Activation, BuiltinOptions, Model};

/// ADD's options (operator 1 of the sample) after `edit`: its fused activation and
/// `pot_scale_int16`. (Read out of a model that lives only in this call: leaking its bytes for
/// a `'static` borrow would fail Miri's leak check.)
fn add_options(edit: impl FnOnce(&mut T)) -> (Activation, bool) {
    let mut spec = Spec::new();
    edit(&mut spec.operators[1]);
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let options = model
        .subgraph(0)
        .unwrap()
        .operators()
        .get(1)
        .unwrap()
        .options();
    match options {
        BuiltinOptions::Add(o) => (o.activation, o.pot_scale_int16),
        other => panic!("not ADD's options: {other:?}"),
    }
}

#[test]
fn stored_flag_is_read() {
    for (byte, want) in [(0u8, false), (1, true)] {
        let options = add_options(|op| {
            op.put(
                op_slot::OPTIONS,
                super::builder::F::Off(super::builder::Obj::Table(T::new().u8(0, 1).u8(1, byte))),
            );
        });
        assert_eq!(options, (Activation::Relu, want));
    }
}

#[test]
fn absent_field_is_the_schema_default() {
    // The sample's ADD stores only the activation.
    assert!(add_options(|_| {}).1);
}

#[test]
fn absent_table_reads_false_as_litert_does() {
    let options = add_options(|op| {
        op.remove(op_slot::OPTIONS_TYPE);
        op.remove(op_slot::OPTIONS);
    });
    assert!(!options.1);
}
