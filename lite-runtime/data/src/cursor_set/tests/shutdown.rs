//! Ending: a consumer that stops early, or reads to the end, leaves no worker running, and
//! workers never run more than their buffers ahead of it.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use super::*;

/// Runs `f` on its own thread and fails if it has not returned within a minute (a hang).
fn within_a_minute(f: impl FnOnce() + Send + 'static) {
    let (done, finished) = mpsc::channel();
    let t = thread::spawn(move || {
        f();
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => t.join().unwrap(),
        // The thread panicked (a failed assertion): report its panic.
        Err(mpsc::RecvTimeoutError::Disconnected) => t.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung"),
    }
}

#[test]
fn a_consumer_that_stops_early_stops_and_joins_every_worker() {
    for in_place in [false, true] {
        within_a_minute(move || {
            let (made, dropped) = (Arc::default(), Arc::default());
            let config = CursorSetConfig::new(SYNTHETIC, 4, 4)
                .with_workers(3)
                .with_queue_depth(0);
            let set = {
                let (made, dropped) = (Arc::clone(&made), Arc::clone(&dropped));
                CursorSet::spawn(config, move |w, n| {
                    Synthetic::new(w, n, 100_000).counted(&made, &dropped)
                })
                .unwrap()
            };
            if in_place {
                let mut cursor = set.into_cursor();
                for _ in 0..3 {
                    assert!(cursor.move_next().unwrap());
                }
                drop(cursor);
            } else {
                let mut bufs = consumer::<u32>(&config);
                let mut cursor = SampleCursor::new(set, bufs.batch().unwrap());
                for _ in 0..3 {
                    assert!(cursor.move_next().unwrap());
                }
                drop(cursor);
            }
            // Every source dropped: every worker returned, and the drop joined it.
            assert_eq!(dropped.load(Ordering::SeqCst), 3);
            assert!(made.load(Ordering::SeqCst) < 100);
        });
    }
}

#[test]
fn scoped_workers_are_joined_by_the_drop_not_the_scope() {
    within_a_minute(|| {
        let dropped = Arc::default();
        let made = Arc::default();
        let config = CursorSetConfig::new(SYNTHETIC, 2, 2).with_workers(2);
        thread::scope(|s| {
            let set = CursorSet::scoped(s, config, |w, n| {
                Synthetic::new(w, n, 100_000).counted(&made, &dropped)
            })
            .unwrap();
            let mut bufs = consumer::<u32>(&config);
            let mut cursor = SampleCursor::new(set, bufs.batch().unwrap());
            assert!(cursor.move_next().unwrap());
            drop(cursor);
            assert_eq!(dropped.load(Ordering::SeqCst), 2);
        });
    });
}

#[test]
fn workers_run_at_most_their_buffers_ahead_of_a_stalled_consumer() {
    let made = Arc::default();
    let dropped = Arc::default();
    let depth = 2;
    let config = CursorSetConfig::new(SYNTHETIC, 2, 2)
        .with_workers(2)
        .with_queue_depth(depth);
    let set = {
        let (made, dropped) = (Arc::clone(&made), Arc::clone(&dropped));
        CursorSet::spawn(config, move |w, n| {
            Synthetic::new(w, n, 100_000).counted(&made, &dropped)
        })
        .unwrap()
    };
    let mut bufs = consumer::<u32>(&config);
    let mut cursor = SampleCursor::new(set, bufs.batch().unwrap());
    assert!(cursor.move_next().unwrap());
    thread::sleep(Duration::from_millis(200));
    // Each worker owns `depth + 1` buffers; one came back after the first batch.
    assert!(made.load(Ordering::SeqCst) <= 2 * (depth + 1) + 1);
}

#[test]
fn the_end_of_the_pass_joins_every_worker() {
    let (made, dropped) = (Arc::default(), Arc::default());
    let config = CursorSetConfig::new(SYNTHETIC, 3, 3).with_workers(4);
    let set = {
        let (made, dropped) = (Arc::clone(&made), Arc::clone(&dropped));
        CursorSet::spawn(config, move |w, n| {
            Synthetic::new(w, n, 9).counted(&made, &dropped)
        })
        .unwrap()
    };
    assert_eq!(set.workers(), 4);
    let mut bufs = consumer::<u32>(&config);
    let mut cursor = SampleCursor::new(set, bufs.batch().unwrap());
    let (rows, err) = read(&mut cursor);
    assert_eq!((rows.len(), err), (27, None));
    assert_eq!(cursor.source().workers(), 0);
    assert_eq!(dropped.load(Ordering::SeqCst), 4);
    assert_eq!(made.load(Ordering::SeqCst), 9);
}
