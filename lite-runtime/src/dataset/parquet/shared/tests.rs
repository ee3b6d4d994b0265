//! The share on its own (claims, faults, lifetimes), and partitions over a dataset with
//! several row groups and small pages reading exactly the serial pass's rows.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parquet::basic::Encoding;
use parquet::column::page::{Page, PageReader};
use parquet::errors::ParquetError;

use super::{PageShare, SharedPages};

/// `n` data pages of `len` bytes each, the first byte of each its index.
fn pages(n: usize, len: usize) -> Arc<[Page]> {
    (0..n)
        .map(|i| {
            let mut buf = vec![0u8; len];
            buf[0] = i as u8;
            Page::DataPage {
                buf: buf.into(),
                num_values: 1,
                encoding: Encoding::PLAIN,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
                statistics: None,
            }
        })
        .collect()
}

#[test]
fn each_column_is_read_once_between_the_workers() {
    let columns = 40;
    let opened: Vec<AtomicUsize> = (0..columns).map(|_| AtomicUsize::new(0)).collect();
    let share = PageShare::default();
    let group = share.group("f.parquet".as_ref(), 3, columns);
    let results: Vec<Vec<Option<Arc<[Page]>>>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let (group, opened) = (share.group("f.parquet".as_ref(), 3, columns), &opened);
                s.spawn(move || {
                    group.pages(|c| {
                        opened[c].fetch_add(1, Ordering::Relaxed);
                        Ok(Box::new(SharedPages::new(pages(c % 3 + 1, 64))) as Box<dyn PageReader>)
                    })
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert!(opened.iter().all(|n| n.load(Ordering::Relaxed) == 1));
    assert_eq!(results[0].len(), columns);
    for (c, (a, b)) in results[0].iter().zip(&results[1]).enumerate() {
        let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
        assert!(Arc::ptr_eq(a, b), "column {c} decompressed twice");
        assert_eq!(a.len(), c % 3 + 1);
    }
    // A third worker arriving later finds it all done.
    assert!(
        group
            .pages(|_| panic!("read again"))
            .iter()
            .all(Option::is_some)
    );
}

#[test]
fn a_fault_leaves_the_column_to_each_worker() {
    let share = PageShare::default();
    let group = share.group("f.parquet".as_ref(), 0, 3);
    let got = group.pages(|c| match c {
        0 => Err(ParquetError::General("bad header".into())),
        1 => panic!("the parquet crate panicked"),
        _ => Ok(Box::new(SharedPages::new(pages(2, 8))) as Box<dyn PageReader>),
    });
    assert!(got[0].is_none() && got[1].is_none());
    assert_eq!(got[2].as_ref().map(|p| p.len()), Some(2));
    // A page reader failing midway: not shared either.
    let group = share.group("f.parquet".as_ref(), 1, 1);
    struct Failing(usize);
    impl Iterator for Failing {
        type Item = parquet::errors::Result<Page>;
        fn next(&mut self) -> Option<Self::Item> {
            self.get_next_page().transpose()
        }
    }
    impl PageReader for Failing {
        fn get_next_page(&mut self) -> parquet::errors::Result<Option<Page>> {
            self.0 += 1;
            match self.0 {
                1 => Ok(pages(1, 4).first().cloned()),
                _ => Err(ParquetError::General("corrupt page".into())),
            }
        }
        fn peek_next_page(
            &mut self,
        ) -> parquet::errors::Result<Option<parquet::column::page::PageMetadata>> {
            Ok(None)
        }
        fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
            Ok(())
        }
    }
    let got = group.pages(|_| Ok(Box::new(Failing(0)) as Box<dyn PageReader>));
    assert!(got[0].is_none());
}

#[test]
fn a_row_group_is_shared_while_a_worker_holds_it() {
    let share = PageShare::default();
    let a = share.group("a".as_ref(), 0, 2);
    assert!(Arc::ptr_eq(&a, &share.group("a".as_ref(), 0, 2)));
    assert!(!Arc::ptr_eq(&a, &share.group("a".as_ref(), 1, 2)));
    assert!(!Arc::ptr_eq(&a, &share.group("b".as_ref(), 0, 2)));
    let weak = Arc::downgrade(&a);
    drop(a);
    assert!(
        weak.upgrade().is_none(),
        "the share keeps no row group alive"
    );
    // Past groups are pruned as new ones come.
    let _b = share.group("a".as_ref(), 5, 2);
    assert_eq!(super::lock(&share.groups).len(), 1);
}

#[test]
fn shared_pages_come_out_in_order_and_skip() {
    let mut r = SharedPages::new(pages(3, 4));
    let meta = r.peek_next_page().unwrap().unwrap();
    assert_eq!(
        (meta.num_rows, meta.num_levels, meta.is_dict),
        (None, Some(1), false)
    );
    assert_eq!(r.get_next_page().unwrap().unwrap().buffer()[0], 0);
    r.skip_next_page().unwrap();
    assert_eq!(r.get_next_page().unwrap().unwrap().buffer()[0], 2);
    assert!(r.get_next_page().unwrap().is_none());
    r.skip_next_page().unwrap();
    assert!(r.peek_next_page().unwrap().is_none());
}

mod dataset {
    //! Partitions over Parquet files of several row groups and many small pages.

    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use parquet::basic::Compression;
    use parquet::data_type::{FloatType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use tessera_core::cursor::RowCursor;
    use tessera_core::data::{Dims, SampleCursor};

    use crate::cursor_set::{BatchBuffers, CursorSet, CursorSetConfig};
    use crate::dataset::{DatasetPlan, ParquetConfig};

    const BATCH: usize = 64;
    type Row = (u64, Vec<u32>, Vec<u32>);

    /// Two files of `rows` rows (label, 2 dense, 3 slots), row groups of `group` rows and
    /// pages of at most `page` rows; returns the directory.
    fn write(name: &str, rows: usize, group: usize, page: usize) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tessera_pq_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let schema = "message m { required float label; required float I1; required float I2; \
                      required int64 C1; required int64 C2; required int64 C3; }";
        let schema = Arc::new(parse_message_type(schema).unwrap());
        let props = Arc::new(
            WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_data_page_row_count_limit(page)
                .set_write_batch_size(page)
                .set_max_row_group_row_count(Some(group))
                .build(),
        );
        let mut stats = Vec::new();
        for f in 0..2 {
            let file_name = format!("part_{f}.parquet");
            let file = std::fs::File::create(dir.join(&file_name)).unwrap();
            let mut w = SerializedFileWriter::new(file, schema.clone(), props.clone()).unwrap();
            for g in (0..rows).step_by(group) {
                let n = group.min(rows - g);
                let row = |i: usize| (f * rows + g + i) as i64;
                let mut rg = w.next_row_group().unwrap();
                let mut c = 0;
                while let Some(mut col) = rg.next_column().unwrap() {
                    if c < 3 {
                        let v: Vec<f32> = (0..n).map(|i| (row(i) * 3 + c) as f32).collect();
                        col.typed::<FloatType>()
                            .write_batch(&v, None, None)
                            .unwrap();
                    } else {
                        let v: Vec<i64> = (0..n).map(|i| (row(i) * 7 + c) % 1000).collect();
                        col.typed::<Int64Type>()
                            .write_batch(&v, None, None)
                            .unwrap();
                    }
                    col.close().unwrap();
                    c += 1;
                }
                rg.close().unwrap();
            }
            w.close().unwrap();
            stats.push(format!(
                r#"{{"file_name": "{file_name}", "num_rows": {rows}}}"#
            ));
        }
        let meta = format!(
            r#"{{"file_stats": [{}], "labels": [{{"col_name": "label", "index": 0}}],
               "conts": [{{"col_name": "I1", "index": 1}}, {{"col_name": "I2", "index": 2}}],
               "cats": [{{"col_name": "C1", "index": 3}}, {{"col_name": "C2", "index": 4}},
                        {{"col_name": "C3", "index": 5}}]}}"#,
            stats.join(", ")
        );
        std::fs::write(dir.join("_metadata.json"), meta).unwrap();
        dir
    }

    fn row<C: RowCursor>(c: &C, ld: &[f32], keys: impl Fn(usize) -> Option<Vec<u32>>) -> Row {
        let id = c.id().unwrap().low;
        let keys = (0..3).flat_map(|s| keys(s).unwrap()).collect();
        (id, ld.iter().map(|x| x.to_bits()).collect(), keys)
    }

    fn serial(plan: &DatasetPlan) -> Vec<Row> {
        let mut buffers = BatchBuffers::<u32>::new(plan.dims(), BATCH, BATCH * 3).unwrap();
        let mut cursor = SampleCursor::new(plan.source(), buffers.batch().unwrap());
        let mut rows = Vec::new();
        while cursor.move_next().unwrap() {
            let ld: Vec<f32> = cursor
                .labels()
                .iter()
                .chain(cursor.dense())
                .copied()
                .collect();
            rows.push(row(&cursor, &ld, |s| cursor.keys(s).map(<[u32]>::to_vec)));
        }
        rows
    }

    fn set(plan: &DatasetPlan, workers: usize, local: bool) -> Vec<Row> {
        let config = CursorSetConfig::new(plan.dims(), BATCH, BATCH * 3)
            .with_workers(workers)
            .with_consumer_decoding(local);
        std::thread::scope(|s| {
            let set = CursorSet::scoped(s, config, |w, n| plan.partition::<u32>(w, n)).unwrap();
            let mut cursor = set.into_cursor();
            let mut rows = Vec::new();
            while cursor.move_next().unwrap() {
                let ld: Vec<f32> = cursor
                    .labels()
                    .iter()
                    .chain(cursor.dense())
                    .copied()
                    .collect();
                rows.push(row(&cursor, &ld, |s| cursor.keys(s).map(<[u32]>::to_vec)));
            }
            rows
        })
    }

    fn check(dir: &Path, rows: usize) {
        let plan = DatasetPlan::parquet(dir, ParquetConfig::default()).unwrap();
        assert_eq!(plan.dims(), Dims::new(1, 2, 3));
        let whole = serial(&plan);
        assert_eq!(whole.len(), 2 * rows);
        assert!(whole.iter().enumerate().all(|(i, r)| r.0 == i as u64));
        for workers in 1..=4 {
            for local in [false, true] {
                assert_eq!(
                    set(&plan, workers, local),
                    whole,
                    "{workers} workers, local {local}"
                );
            }
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn partitions_over_small_pages_read_the_serial_rows() {
        // Row groups of 300 rows (not a multiple of the batch), pages of 20 rows: batches
        // span row groups, and a worker skips whole pages and parts of pages.
        check(&write("small_pages", 1000, 300, 20), 1000);
    }

    #[test]
    fn partitions_over_one_page_row_groups_read_the_serial_rows() {
        check(&write("one_page", 700, 250, 20_000), 700);
    }
}
