//! ADD's `pot_scale_int16` as LiteRT reads it: the stored flag, the schema's true when the
//! table leaves the field out, false when the operator has no options table at all.

use super::builder::T;
use super::sample::Spec;
use crate::model::operator::slot as op_slot;
use crate::model::{Activation, BuiltinOptions, Model};

/// The sample's ADD (operator 1) options after `edit`.
fn add_options(edit: impl FnOnce(&mut T)) -> BuiltinOptions<'static> {
    let mut spec = Spec::new();
    edit(&mut spec.operators[1]);
    let bytes: &'static [u8] = Vec::leak(spec.build());
    let model = Model::load(bytes).unwrap();
    model
        .subgraph(0)
        .unwrap()
        .operators()
        .get(1)
        .unwrap()
        .options()
}

fn pot(options: BuiltinOptions<'_>) -> bool {
    match options {
        BuiltinOptions::Add {
            pot_scale_int16, ..
        } => pot_scale_int16,
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
        assert_eq!(pot(options), want);
        assert!(matches!(
            options,
            BuiltinOptions::Add {
                activation: Activation::Relu,
                ..
            }
        ));
    }
}

#[test]
fn absent_field_is_the_schema_default() {
    // The sample's ADD stores only the activation.
    assert!(pot(add_options(|_| {})));
}

#[test]
fn absent_table_reads_false_as_litert_does() {
    let options = add_options(|op| {
        op.remove(op_slot::OPTIONS_TYPE);
        op.remove(op_slot::OPTIONS);
    });
    assert!(!pot(options));
}
