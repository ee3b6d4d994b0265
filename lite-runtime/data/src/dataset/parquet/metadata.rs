//! A Parquet dataset's `_metadata.json`: each file's row count, and which columns are the
//! labels, the dense features and the categorical slots.

use std::path::Path;

use serde_json::Value;
use tessera_core::data::Dims;

use crate::dataset::error::{DatasetError, MetadataErrorKind};

/// One entry of `file_stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStat {
    /// The file's name, relative to the metadata's directory.
    pub file_name: String,
    /// Rows in the file.
    pub num_rows: u64,
}

/// One entry of `cats`, `conts` or `labels`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRef {
    /// The column's name in the Parquet files.
    pub col_name: String,
    /// Its index in the dataset's column numbering.
    pub index: u64,
}

/// `_metadata.json`, as HugeCTR reads it (other fields are ignored).
///
/// Samples are laid out from it as follows: labels are the `labels` columns ordered by
/// `index`, dense features the `conts` columns ordered by `index` (ties keep the listed
/// order), and slot `i` is the `i`-th entry of `cats` as listed. Columns are found in the
/// Parquet files by `col_name`; their order there does not matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParquetMetadata {
    /// Rows per file.
    pub file_stats: Vec<FileStat>,
    /// Categorical columns, one per slot, in slot order.
    pub cats: Vec<ColumnRef>,
    /// Dense columns (any order; used ordered by `index`).
    pub conts: Vec<ColumnRef>,
    /// Label columns (any order; used ordered by `index`).
    pub labels: Vec<ColumnRef>,
}

impl ParquetMetadata {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Self, DatasetError> {
        let text = crate::dataset::input::read_text(path)?;
        Self::parse(&text).map_err(|kind| DatasetError::Metadata {
            path: path.to_owned(),
            kind,
        })
    }

    /// Parses the JSON text.
    pub fn parse(text: &[u8]) -> Result<Self, MetadataErrorKind> {
        let doc: Value = serde_json::from_slice(text).map_err(|e| {
            // serde_json's message ends with the position, which `Json` carries already.
            let message = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            MetadataErrorKind::Json {
                line: e.line(),
                column: e.column(),
                message: message.strip_suffix(&suffix).unwrap_or(&message).to_owned(),
            }
        })?;
        let file_stats = array(&doc, "file_stats")?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let at = format!("file_stats[{i}]");
                Ok(FileStat {
                    file_name: string(v, &at, "file_name")?,
                    num_rows: unsigned(v, &at, "num_rows")?,
                })
            })
            .collect::<Result<_, MetadataErrorKind>>()?;
        let columns = |key: &str| -> Result<Vec<ColumnRef>, MetadataErrorKind> {
            array(&doc, key)?
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let at = format!("{key}[{i}]");
                    Ok(ColumnRef {
                        col_name: string(v, &at, "col_name")?,
                        index: unsigned(v, &at, "index")?,
                    })
                })
                .collect()
        };
        let meta = Self {
            file_stats,
            cats: columns("cats")?,
            conts: columns("conts")?,
            labels: columns("labels")?,
        };
        let mut names: Vec<&str> = meta.columns().map(|c| c.col_name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(MetadataErrorKind::DuplicateColumn {
                col_name: w[0].to_owned(),
            });
        }
        Ok(meta)
    }

    /// The sample shape: `labels`, `conts` and `cats` counted.
    pub fn dims(&self) -> Dims {
        Dims::new(self.labels.len(), self.conts.len(), self.cats.len())
    }

    /// The label columns in sample order (by `index`).
    pub fn label_columns(&self) -> Vec<&ColumnRef> {
        by_index(&self.labels)
    }

    /// The dense columns in sample order (by `index`).
    pub fn dense_columns(&self) -> Vec<&ColumnRef> {
        by_index(&self.conts)
    }

    /// The slot columns in slot order (as listed in `cats`).
    pub fn slot_columns(&self) -> &[ColumnRef] {
        &self.cats
    }

    /// `num_rows` of the file named `file_name`.
    pub fn num_rows(&self, file_name: &str) -> Option<u64> {
        self.file_stats
            .iter()
            .find(|f| f.file_name == file_name)
            .map(|f| f.num_rows)
    }

    /// Rows in all files, saturating.
    pub fn total_rows(&self) -> u64 {
        self.file_stats
            .iter()
            .fold(0u64, |a, f| a.saturating_add(f.num_rows))
    }

    fn columns(&self) -> impl Iterator<Item = &ColumnRef> {
        self.labels.iter().chain(&self.conts).chain(&self.cats)
    }
}

fn by_index(cols: &[ColumnRef]) -> Vec<&ColumnRef> {
    let mut v: Vec<&ColumnRef> = cols.iter().collect();
    v.sort_by_key(|c| c.index);
    v
}

fn field_error(field: String, expected: &'static str) -> MetadataErrorKind {
    MetadataErrorKind::Field { field, expected }
}

fn array<'v>(doc: &'v Value, key: &str) -> Result<&'v Vec<Value>, MetadataErrorKind> {
    doc.get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| field_error(key.to_owned(), "an array"))
}

fn string(v: &Value, at: &str, key: &str) -> Result<String, MetadataErrorKind> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| field_error(format!("{at}.{key}"), "a string"))
}

fn unsigned(v: &Value, at: &str, key: &str) -> Result<u64, MetadataErrorKind> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| field_error(format!("{at}.{key}"), "a non-negative integer"))
}

#[cfg(test)]
mod tests;
