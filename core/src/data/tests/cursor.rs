use super::norm::encode;
use super::*;
use crate::cursor::{CursorError, RowCursor, RowId};
use crate::sparse::{InlineVBuffer, VBuffer};

const DIMS: Dims = Dims::new(1, 1, 2);

fn samples(n: u32) -> Vec<Sample<u32>> {
    (0..n)
        .map(|i| Sample {
            label: vec![i as f32],
            dense: vec![0.5],
            slots: vec![vec![i % 3, 7, i % 3], vec![100 + i]],
        })
        .collect()
}

fn config() -> NormConfig {
    NormConfig::new(DIMS, 4).with_check(Check::Sum)
}

#[test]
fn serial_cursor_yields_every_sample_with_position_ids_and_batch_numbers() {
    let want = samples(7);
    let file = encode(config(), &want);
    let mut bufs = Buffers::<u32>::new(DIMS, 3, 64);
    let mut cursor = SampleCursor::new(NormSlice::norm(config(), &file), bufs.batch(DIMS));
    assert_eq!(cursor.id(), Err(CursorError::BeforeFirst));
    let mut keys: InlineVBuffer<f32, 8> = VBuffer::default();
    let mut label: InlineVBuffer<f32, 1> = VBuffer::default();
    let mut i = 0u32;
    while cursor.move_next().unwrap() {
        let s = &want[i as usize];
        assert_eq!(cursor.id(), Ok(RowId::from_position(u64::from(i))));
        assert_eq!(cursor.position(), Some(u64::from(i)));
        assert_eq!(cursor.batch(), u64::from(i / 3));
        assert_eq!(cursor.labels(), &s.label[..]);
        assert_eq!(cursor.keys(1), Some(&s.slots[1][..]));
        cursor.get_vector(LABEL, &mut label).unwrap();
        assert_eq!(label.values(), &s.label[..]);
        cursor.get_vector(KEYS, &mut keys).unwrap();
        // Slot 0 repeats key i % 3 (count 2) and holds 7; slot 1 holds 100 + i.
        let mut expect = vec![(i % 3, 2.0), (7, 1.0), (100 + i, 1.0)];
        expect.sort_by_key(|p| p.0);
        let got: Vec<(u32, f32)> = keys
            .indices()
            .iter()
            .copied()
            .zip(keys.values().iter().copied())
            .collect();
        assert_eq!(got, expect);
        i += 1;
    }
    assert_eq!(i, 7);
    assert_eq!(cursor.batch(), 2);
    assert!(!cursor.move_next().unwrap());
    assert_eq!(cursor.id(), Err(CursorError::Finished));
}

#[test]
fn an_error_comes_after_every_good_sample_and_then_the_cursor_stays_ended() {
    let file = encode(config(), &samples(5));
    let cut = &file[..file.len() - 2]; // sample 4 truncated
    let mut bufs = Buffers::<u32>::new(DIMS, 2, 64);
    let mut cursor = SampleCursor::new(NormSlice::norm(config(), cut), bufs.batch(DIMS));
    let mut good = 0;
    let err = loop {
        match cursor.move_next() {
            Ok(true) => good += 1,
            Ok(false) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert_eq!(good, 4);
    assert!(
        matches!(
            err,
            SampleCursorError::Data(DataError {
                sample: Some(4),
                ..
            })
        ),
        "{err}"
    );
    assert_eq!(cursor.move_next(), Ok(false));
    assert_eq!(cursor.move_next(), Ok(false));
}

#[test]
fn raw_files_read_through_the_same_cursor() {
    let mut file = Vec::new();
    for i in 0..5i32 {
        for v in [i as f32, 2.0] {
            file.extend_from_slice(&v.to_le_bytes());
        }
        file.extend_from_slice(&i.to_le_bytes());
        file.extend_from_slice(&(10 + i).to_le_bytes());
    }
    let raw = RawSlice::<i64>::raw(RawConfig::new(DIMS), &file).unwrap();
    let mut bufs = Buffers::<i64>::new(DIMS, 2, 4);
    let mut cursor = SampleCursor::new(raw, bufs.batch(DIMS));
    let mut n = 0;
    while cursor.move_next().unwrap() {
        assert_eq!(cursor.keys(1), Some(&[10 + n][..]));
        assert_eq!(cursor.dense(), &[2.0]);
        n += 1;
    }
    assert_eq!(n, 5);
}

#[test]
fn wrong_columns_are_typed_errors() {
    let file = encode(config(), &samples(1));
    let mut bufs = Buffers::<u32>::new(DIMS, 2, 8);
    let mut cursor = SampleCursor::new(NormSlice::norm(config(), &file), bufs.batch(DIMS));
    assert!(cursor.move_next().unwrap());
    assert!(matches!(
        cursor.get_scalar(0),
        Err(SampleCursorError::Cursor(CursorError::WrongType { .. }))
    ));
    let mut v: InlineVBuffer<f32, 4> = VBuffer::default();
    assert!(matches!(
        cursor.get_vector(3, &mut v),
        Err(SampleCursorError::Cursor(CursorError::ColumnOutOfRange {
            col: 3,
            columns: 3
        }))
    ));
    let mut tiny: InlineVBuffer<f32, 1> = VBuffer::default();
    assert!(matches!(
        cursor.get_vector(KEYS, &mut tiny),
        Err(SampleCursorError::Cursor(CursorError::Vector(_)))
    ));
}
