use core::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;

use super::{Inline, MAX_PARTS, Parts, Pool, Workers, split};
use crate::interpreter::KernelError;

const FAILED: KernelError = KernelError::Failed { status: 7 };

proptest! {
    #![proptest_config(crate::interpreter::kernels::proptest_config::cases(256, 6))]

    /// The parts cover the slice in order, each a whole number of units (the last excepted),
    /// and each is handed out once.
    #[test]
    fn parts_cover_the_slice_once(len in 0usize..300, parts in 0usize..80, unit in 0usize..9) {
        let mut v: std::vec::Vec<usize> = (0..len).collect();
        let p = Parts::even(&mut v, parts, unit);
        prop_assert!(!p.is_empty() && p.len() <= MAX_PARTS);
        let mut next = 0;
        for i in 0..p.len() {
            let (first, part) = p.take(i).unwrap();
            prop_assert_eq!(first, next);
            if i + 1 < p.len() {
                prop_assert_eq!(part.len() % unit.max(1), 0);
            }
            for (k, x) in part.iter().enumerate() {
                prop_assert_eq!(*x, first + k);
            }
            next += part.len();
            prop_assert!(p.take(i).is_none());
        }
        prop_assert_eq!(next, len);
        prop_assert!(p.take(p.len()).is_none());
    }

    /// Every task runs exactly once, for any number of threads and tasks.
    #[test]
    fn every_task_runs_once(threads in 1usize..5, tasks in 0usize..40) {
        let pool = Pool::new(threads);
        let runs: std::vec::Vec<AtomicUsize> = (0..tasks).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..3 {
            pool.run(tasks, &|i| {
                runs[i].fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .unwrap();
        }
        prop_assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 3));
    }
}

#[test]
fn a_pool_has_the_threads_asked_for() {
    assert_eq!(Pool::new(0).threads(), 1);
    assert_eq!(Pool::new(1).threads(), 1);
    assert_eq!(Pool::new(3).threads(), 3);
    assert_eq!(Inline.threads(), 1);
}

#[test]
fn a_task_error_is_returned_and_the_pool_goes_on() {
    let pool = Pool::new(3);
    for _ in 0..20 {
        let r = pool.run(8, &|i| if i == 5 { Err(FAILED) } else { Ok(()) });
        assert_eq!(r, Err(FAILED));
        let ran = AtomicUsize::new(0);
        pool.run(8, &|_| {
            ran.fetch_add(1, Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
        assert_eq!(ran.load(Ordering::Relaxed), 8);
    }
    assert_eq!(
        Inline.run(3, &|i| if i == 1 { Err(FAILED) } else { Ok(()) }),
        Err(FAILED)
    );
}

#[test]
fn a_panicking_task_is_an_error_and_the_pool_goes_on() {
    let pool = Pool::new(2);
    let main = std::thread::current().id();
    // The task panics on the pool's thread only (the caller's own panic would unwind to it);
    // with two tasks and two threads either may take both, so try until the pool's did.
    let mut seen = false;
    for _ in 0..if cfg!(miri) { 20 } else { 200 } {
        let r = pool.run(2, &|_| {
            if std::thread::current().id() != main {
                panic!("a kernel bug");
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            Ok(())
        });
        if let Err(e) = r {
            assert!(matches!(e, KernelError::Mismatch { .. }));
            seen = true;
            break;
        }
    }
    assert!(seen, "the pool's thread never took a task");
    let ran = AtomicUsize::new(0);
    pool.run(4, &|_| {
        ran.fetch_add(1, Ordering::Relaxed);
        Ok(())
    })
    .unwrap();
    assert_eq!(ran.load(Ordering::Relaxed), 4);
}

#[test]
fn split_writes_every_value_with_any_threads() {
    for threads in 1..5 {
        let pool = Pool::new(threads);
        for len in [0usize, 1, 7, 64, 1000] {
            let mut out = std::vec![0u32; len];
            let mut scratch = [0u8; 8];
            split(
                &pool,
                &mut out,
                4,
                &mut scratch,
                2,
                usize::MAX,
                &|first, part, s| {
                    assert!(s.len() >= 2);
                    for (k, v) in part.iter_mut().enumerate() {
                        *v = (first + k) as u32 + 1;
                    }
                    Ok(())
                },
            )
            .unwrap();
            assert!(out.iter().enumerate().all(|(k, &v)| v == k as u32 + 1));
        }
    }
}

#[test]
fn callers_on_several_threads_share_one_pool() {
    let pool = Pool::new(3);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for n in 0..if cfg!(miri) { 6 } else { 200 } {
                    let runs: std::vec::Vec<AtomicUsize> =
                        (0..n % 9).map(|_| AtomicUsize::new(0)).collect();
                    pool.run(runs.len(), &|i| {
                        runs[i].fetch_add(1, Ordering::Relaxed);
                        Ok(())
                    })
                    .unwrap();
                    assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
                }
            });
        }
    });
}
