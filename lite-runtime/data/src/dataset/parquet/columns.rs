//! Where each column of a sample is in one Parquet file, and how its levels are read:
//! float32 labels and dense features, integer or list-of-integer slots.

use std::path::Path;

use parquet::basic::{ConvertedType, LogicalType, Repetition, Type as Physical};
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};

use super::metadata::ParquetMetadata;
use crate::dataset::error::{DatasetError, SchemaErrorKind};

/// One column of the sample, as found in a file.
#[derive(Debug, Clone)]
pub(super) struct ColumnPlan {
    /// The column's name.
    pub name: String,
    /// Its leaf index in the file's schema.
    pub leaf: usize,
    /// How to read it.
    pub kind: ColumnKind,
}

/// How a column's values and levels are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ColumnKind {
    /// A float32 scalar; a definition level below `max_def` is a null.
    Float { max_def: i16 },
    /// An int32/int64 categorical column.
    Key {
        /// `true` for INT64 storage.
        wide: bool,
        /// The column's logical type is unsigned (values are reinterpreted, not negative).
        unsigned: bool,
        max_def: i16,
        /// For a list (multi-hot) column, the definition level of the repeated field: a
        /// level of `list - 1` is an empty list, below it a null list, from it up to
        /// `max_def - 1` a null element. `None` for a scalar (one-hot) column.
        list: Option<i16>,
    },
}

/// The sample's columns in `file`: labels, then dense features, then slots, in the order of
/// [`ParquetMetadata`].
pub(super) fn plan(
    schema: &SchemaDescriptor,
    meta: &ParquetMetadata,
    file: &Path,
) -> Result<Vec<ColumnPlan>, DatasetError> {
    let floats = meta
        .label_columns()
        .into_iter()
        .map(|c| (c, "label"))
        .chain(meta.dense_columns().into_iter().map(|c| (c, "dense")));
    let mut plans = Vec::new();
    for (c, role) in floats {
        let (leaf, desc) = find(schema, &c.col_name, file)?;
        if desc.physical_type() != Physical::FLOAT || desc.max_rep_level() != 0 {
            return Err(type_error(file, &c.col_name, role, desc, "float32"));
        }
        let kind = ColumnKind::Float {
            max_def: desc.max_def_level(),
        };
        plans.push(ColumnPlan {
            name: c.col_name.clone(),
            leaf,
            kind,
        });
    }
    for c in meta.slot_columns() {
        let (leaf, desc) = find(schema, &c.col_name, file)?;
        let expected = "int32/int64 (one-hot) or list<int32/int64> (multi-hot)";
        let wide = match desc.physical_type() {
            Physical::INT32 => false,
            Physical::INT64 => true,
            _ => return Err(type_error(file, &c.col_name, "categorical", desc, expected)),
        };
        let list = match desc.max_rep_level() {
            0 => None,
            1 => repeated_def_level(schema, desc),
            _ => None,
        };
        if desc.max_rep_level() > 0 && list.is_none() {
            return Err(type_error(file, &c.col_name, "categorical", desc, expected));
        }
        let kind = ColumnKind::Key {
            wide,
            unsigned: is_unsigned(desc),
            max_def: desc.max_def_level(),
            list,
        };
        plans.push(ColumnPlan {
            name: c.col_name.clone(),
            leaf,
            kind,
        });
    }
    Ok(plans)
}

/// The one leaf under the top-level field `name`.
fn find<'s>(
    schema: &'s SchemaDescriptor,
    name: &str,
    file: &Path,
) -> Result<(usize, &'s ColumnDescriptor), DatasetError> {
    let mut leaves = schema
        .columns()
        .iter()
        .enumerate()
        .filter(|(_, d)| d.path().parts().first().map(String::as_str) == Some(name));
    let error = |kind| DatasetError::Schema {
        path: file.to_owned(),
        column: name.to_owned(),
        kind,
    };
    let Some((leaf, desc)) = leaves.next() else {
        return Err(error(SchemaErrorKind::Missing));
    };
    if leaves.next().is_some() {
        return Err(error(SchemaErrorKind::Type {
            role: "sample",
            found: "a group of several columns".into(),
            expected: "one column",
        }));
    }
    Ok((leaf, desc))
}

/// The definition level of the one repeated field on the leaf's path.
fn repeated_def_level(schema: &SchemaDescriptor, desc: &ColumnDescriptor) -> Option<i16> {
    let mut node = schema.root_schema();
    let mut def = 0i16;
    let mut repeated = None;
    for part in desc.path().parts() {
        node = node.get_fields().iter().find(|f| f.name() == part)?;
        let info = node.get_basic_info();
        if !info.has_repetition() {
            continue;
        }
        match info.repetition() {
            Repetition::OPTIONAL => def += 1,
            Repetition::REPEATED => {
                def += 1;
                repeated = Some(def);
            }
            _ => {}
        }
    }
    repeated
}

fn is_unsigned(desc: &ColumnDescriptor) -> bool {
    match desc.logical_type_ref() {
        Some(LogicalType::Integer(int)) => !int.is_signed,
        _ => matches!(
            desc.converted_type(),
            ConvertedType::UINT_8
                | ConvertedType::UINT_16
                | ConvertedType::UINT_32
                | ConvertedType::UINT_64
        ),
    }
}

fn type_error(
    file: &Path,
    column: &str,
    role: &'static str,
    desc: &ColumnDescriptor,
    expected: &'static str,
) -> DatasetError {
    let physical = desc.physical_type().to_string().to_lowercase();
    let found = match desc.max_rep_level() {
        0 => physical,
        1 => format!("list<{physical}>"),
        n => format!("{physical} nested {n} lists deep"),
    };
    DatasetError::Schema {
        path: file.to_owned(),
        column: column.to_owned(),
        kind: SchemaErrorKind::Type {
            role,
            found,
            expected,
        },
    }
}
