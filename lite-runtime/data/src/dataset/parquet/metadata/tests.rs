use super::*;

const DOC: &str = r#"{"file_stats": [{"file_name": "a.parquet", "num_rows": 3}],
    "cats": [{"col_name": "C2", "index": 5}, {"col_name": "C1", "index": 4}],
    "conts": [{"col_name": "I2", "index": 2}, {"col_name": "I1", "index": 1}],
    "labels": [{"col_name": "label", "index": 0}], "extra": true}"#;

#[test]
fn orders_dense_by_index_and_slots_as_listed() {
    let m = ParquetMetadata::parse(DOC.as_bytes()).unwrap();
    assert_eq!(m.dims(), Dims::new(1, 2, 2));
    let dense: Vec<&str> = m.dense_columns().iter().map(|c| &*c.col_name).collect();
    assert_eq!(dense, ["I1", "I2"]);
    let slots: Vec<&str> = m.slot_columns().iter().map(|c| &*c.col_name).collect();
    assert_eq!(slots, ["C2", "C1"]);
    assert_eq!(m.num_rows("a.parquet"), Some(3));
}

#[test]
fn names_the_bad_field() {
    let bad = DOC.replace(r#""num_rows": 3"#, r#""num_rows": -3"#);
    let e = ParquetMetadata::parse(bad.as_bytes()).unwrap_err();
    let want = field_error("file_stats[0].num_rows".into(), "a non-negative integer");
    assert_eq!(e, want);
    let e = ParquetMetadata::parse(b"{\"file_stats\": [").unwrap_err();
    assert!(matches!(e, MetadataErrorKind::Json { line: 1, .. }));
    let dup = DOC.replace("\"I2\"", "\"C1\"");
    let e = ParquetMetadata::parse(dup.as_bytes()).unwrap_err();
    let want = MetadataErrorKind::DuplicateColumn {
        col_name: "C1".into(),
    };
    assert_eq!(e, want);
}
