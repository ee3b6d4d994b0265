//! The share on its own: claims, faults, lifetimes. Partitions over a dataset of many row
//! groups and small pages, reading exactly the serial pass's rows, are tested in
//! `tests/tests/shards.rs`.

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
fn helping_ahead_takes_only_the_workers_own_columns() {
    let share = PageShare::default();
    let group = share.group("f.parquet".as_ref(), 0, 5);
    let open = |c: usize| Ok(Box::new(SharedPages::new(pages(c + 1, 8))) as Box<dyn PageReader>);
    let mut helped = Vec::new();
    group.help(
        |c| c % 2 == 1,
        |c| {
            helped.push(c);
            open(c)
        },
    );
    assert_eq!(helped, [1, 3]);
    // Needing the pages, a worker takes what is still open: the other worker's columns.
    let mut took = Vec::new();
    let got = group.pages(|c| {
        took.push(c);
        open(c)
    });
    assert_eq!(took, [0, 2, 4]);
    let lens: Vec<usize> = got.iter().map(|p| p.as_ref().unwrap().len()).collect();
    assert_eq!(lens, [1, 2, 3, 4, 5]);
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
