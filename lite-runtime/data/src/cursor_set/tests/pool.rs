//! Buffer pools: every buffer a set took comes back however the set ends, and a set that
//! reuses them reads the same rows.

use super::failures::panicked;
use super::*;

const WORKERS: usize = 3;
const DEPTH: usize = 1;

fn config() -> CursorSetConfig {
    CursorSetConfig::new(SYNTHETIC, 2, 2)
        .with_workers(WORKERS)
        .with_queue_depth(DEPTH)
}

/// Every buffer of a set of [`config`].
const ALL: usize = WORKERS * (DEPTH + 1);

/// Every buffer of a set of [`config`] whose worker 0 decodes on the consumer's thread (one
/// buffer for it).
const ALL_LOCAL: usize = (WORKERS - 1) * (DEPTH + 1) + 1;

/// Reads a pooled set over `make` to its end (or `stop_after` rows), copied or in place.
fn pooled_pass(
    pool: &BufferPool<u32>,
    make: impl Fn(u64, u64) -> Synthetic + Send + Sync + 'static,
    in_place: bool,
    stop_after: Option<usize>,
) -> (Vec<Row<u32>>, Option<SampleCursorError>) {
    let set = CursorSet::spawn_pooled(config(), pool, make).unwrap();
    let mut bufs = consumer::<u32>(&config());
    match stop_after {
        None if in_place => read(&mut set.into_cursor()),
        None => read(&mut SampleCursor::new(set, bufs.batch().unwrap())),
        Some(n) => {
            let mut cursor = set.into_cursor();
            for _ in 0..n {
                assert!(cursor.move_next().unwrap());
            }
            (Vec::new(), None)
        }
    }
}

#[test]
fn every_buffer_comes_back_however_the_set_ends() {
    for in_place in [false, true] {
        let pool = BufferPool::new();
        let whole = pooled_pass(&pool, |w, n| Synthetic::new(w, n, 20), in_place, None);
        assert_eq!((whole.0.len(), whole.1), (40, None));
        assert_eq!(pool.len(), ALL, "after the end, in place: {in_place}");

        pooled_pass(
            &pool,
            |w, n| Synthetic::new(w, n, 100_000),
            in_place,
            Some(5),
        );
        assert_eq!(pool.len(), ALL, "after an early stop, in place: {in_place}");

        let (rows, err) = pooled_pass(
            &pool,
            |w, n| Synthetic::new(w, n, 20).panicking_at(7),
            in_place,
            None,
        );
        assert_eq!((rows.len(), err), (14, panicked(1)));
        assert_eq!(
            pool.len(),
            ALL,
            "after a worker's panic, in place: {in_place}"
        );

        let (rows, err) = pooled_pass(
            &pool,
            |w, n| {
                assert_ne!(w, 2, "no source for worker 2");
                Synthetic::new(w, n, 20)
            },
            in_place,
            None,
        );
        assert_eq!((rows.len(), err), (4, panicked(2)));
        assert_eq!(
            pool.len(),
            ALL,
            "after a panic making a source, in place: {in_place}"
        );
    }
}

#[test]
fn a_worker_on_the_consumers_thread_gives_its_buffer_back_too() {
    let local = config().with_consumer_decoding(true);
    for stop_after in [None, Some(3)] {
        for in_place in [false, true] {
            let pool = BufferPool::new();
            let set = CursorSet::spawn_pooled(local, &pool, |w, n| Synthetic::new(w, n, 20));
            let mut bufs = consumer::<u32>(&local);
            match (stop_after, in_place) {
                (None, true) => assert_eq!(read(&mut set.unwrap().into_cursor()).0.len(), 40),
                (None, false) => {
                    let mut cursor = SampleCursor::new(set.unwrap(), bufs.batch().unwrap());
                    assert_eq!(read(&mut cursor).0.len(), 40);
                }
                (Some(n), _) => {
                    let mut cursor = set.unwrap().into_cursor();
                    for _ in 0..n {
                        assert!(cursor.move_next().unwrap());
                    }
                }
            }
            assert_eq!(
                pool.len(),
                ALL_LOCAL,
                "{stop_after:?}, in place: {in_place}"
            );
        }
    }
}

#[test]
fn reused_buffers_give_the_same_rows_as_new_ones() {
    let fresh = pooled_pass(
        &BufferPool::new(),
        |w, n| Synthetic::new(w, n, 17),
        true,
        None,
    );
    let pool = BufferPool::new();
    for in_place in [true, false, true] {
        // The buffers hold the last pass's rows: nothing of them may show.
        assert_eq!(
            pooled_pass(&pool, |w, n| Synthetic::new(w, n, 17), in_place, None),
            fresh
        );
    }
}

#[test]
fn buffers_of_another_shape_are_dropped_not_used() {
    let pool = BufferPool::new();
    let wider = CursorSetConfig::new(SYNTHETIC, 4, 4).with_workers(4);
    let set = CursorSet::spawn_pooled(wider, &pool, |w, n| Synthetic::new(w, n, 0)).unwrap();
    assert_eq!(read(&mut set.into_cursor()), (Vec::new(), None));
    assert_eq!(pool.len(), 4 * 3);
    let fresh = pooled_pass(
        &BufferPool::new(),
        |w, n| Synthetic::new(w, n, 9),
        false,
        None,
    );
    assert_eq!(
        pooled_pass(&pool, |w, n| Synthetic::new(w, n, 9), false, None),
        fresh
    );
    assert_eq!(pool.len(), ALL);
    pool.clear();
    assert!(pool.is_empty());
}
