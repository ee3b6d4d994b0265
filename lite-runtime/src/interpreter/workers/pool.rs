//! The interpreter's threads: started once with the interpreter, each waiting for the next
//! kernel's tasks. Handing a job over is a lock, an atomic counter and a wake-up, none of
//! which allocates, so `invoke` allocates nothing with any number of threads.
//!
//! Between jobs a thread spins a little before it sleeps: during an invoke the next
//! convolution follows within microseconds, and a sleeping thread takes tens of them to wake.
//! The caller takes tasks too and waits only for the threads that joined the job: a thread
//! that wakes late (asleep, or its core busy with another program) finds the job over and
//! holds nobody up.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::vec::Vec;

use super::{Inline, Task, Workers};
use crate::interpreter::KernelError;

/// Checks of the job's generation a waiting thread makes before it sleeps (some tens of
/// microseconds).
const SPINS: u32 = 1 << 11;

/// A task on a pool thread panicked (no kernel should; the pool survives it).
const PANICKED: KernelError = KernelError::Mismatch {
    what: "a task panicked on a worker thread",
};

/// Threads that run kernels' tasks beside the caller's.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    /// Held through each [`Workers::run`]: one job at a time, whoever calls.
    running: Mutex<()>,
}

struct Shared {
    /// Bumped, under `state`'s lock, for each job: threads spin on it, then sleep on `wake`.
    generation: AtomicU64,
    /// The next task to take.
    next: AtomicUsize,
    state: Mutex<State>,
    wake: Condvar,
    done: Condvar,
}

struct State {
    /// The job threads may join; `None` once the caller has taken its last task.
    job: Option<Job>,
    /// Pool threads that joined the current job and are still in it.
    active: usize,
    /// The first error a pool thread's task returned in the current job.
    error: Option<KernelError>,
    /// Pool threads running [`serve`]: `new` waits for all of them.
    started: usize,
    stop: bool,
}

/// The current job: its task, with its lifetime erased, and the number of tasks.
#[derive(Clone, Copy)]
struct Job {
    task: *const Task<'static>,
    tasks: usize,
}

// SAFETY: the task is `Sync` (shared by reference between threads by design); the pointer is
// dereferenced only between `run` posting the job and `run` seeing every thread done with it,
// while the task it points to is borrowed by `run`.
unsafe impl Send for Job {}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    // A poisoned lock only means a thread panicked while holding it; the state stays valid
    // (each field is written whole).
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes tasks until none is left: the first error stops this thread's taking.
fn work(next: &AtomicUsize, tasks: usize, task: &Task<'_>) -> Result<(), KernelError> {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= tasks {
            return Ok(());
        }
        task(i)?;
    }
}

impl Pool {
    /// A pool of `threads - 1` threads (the caller is the other). Threads the system will not
    /// start are done without: [`Workers::threads`] says how many run.
    pub(crate) fn new(threads: usize) -> Self {
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            next: AtomicUsize::new(0),
            state: Mutex::new(State {
                job: None,
                active: 0,
                error: None,
                started: 0,
                stop: false,
            }),
            wake: Condvar::new(),
            done: Condvar::new(),
        });
        let handles = (1..threads.max(1))
            .map_while(|i| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(std::format!("tessera-worker-{i}"))
                    .spawn(move || serve(&shared))
                    .ok()
            })
            .collect::<Vec<_>>();
        // A thread's start-up allocates (its runtime's bookkeeping) on the thread itself,
        // whenever the system first runs it: wait for every one, so that none of it can land
        // in an invoke.
        let mut s = lock(&shared.state);
        while s.started < handles.len() {
            s = shared.done.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        drop(s);
        Self {
            shared,
            handles,
            running: Mutex::new(()),
        }
    }
}

/// A pool thread: waits for a job, takes its tasks, says it is done; until stopped.
fn serve(shared: &Shared) {
    lock(&shared.state).started += 1;
    shared.done.notify_all();
    let mut seen = 0u64;
    loop {
        let mut spins = 0;
        while shared.generation.load(Ordering::Acquire) == seen && spins < SPINS {
            core::hint::spin_loop();
            spins += 1;
        }
        let job = {
            let mut s = lock(&shared.state);
            while !s.stop && shared.generation.load(Ordering::Acquire) == seen {
                s = shared.wake.wait(s).unwrap_or_else(PoisonError::into_inner);
            }
            if s.stop {
                return;
            }
            seen = shared.generation.load(Ordering::Acquire);
            // Join the job while it is open; `run` waits for the threads that joined.
            if s.job.is_some() {
                s.active += 1;
            }
            s.job
        };
        let Some(job) = job else { continue };
        let result = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: this thread joined the job while `run` held it open, and `run` waits,
            // holding the task's borrow, until every thread that joined has left (below).
            let task = unsafe { &*job.task };
            work(&shared.next, job.tasks, task)
        }));
        let mut s = lock(&shared.state);
        let error = match result {
            Ok(Err(e)) => Some(e),
            Err(_) => Some(PANICKED),
            Ok(Ok(())) => None,
        };
        if let Some(e) = error {
            s.error.get_or_insert(e);
        }
        s.active -= 1;
        if s.active == 0 {
            shared.done.notify_all();
        }
    }
}

/// Closes the job and waits until every thread that joined it has left, when dropped too (a
/// panicking caller's task included): the task's borrow must outlive every use.
struct Finish<'p>(&'p Shared);

impl Finish<'_> {
    fn wait(&self) -> Option<KernelError> {
        let mut s = lock(&self.0.state);
        s.job = None;
        while s.active > 0 {
            s = self.0.done.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        s.error.take()
    }
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.wait();
    }
}

impl Workers for Pool {
    fn threads(&self) -> usize {
        self.handles.len() + 1
    }

    fn run(&self, tasks: usize, task: &Task<'_>) -> Result<(), KernelError> {
        if tasks <= 1 || self.handles.is_empty() {
            return Inline.run(tasks, task);
        }
        let _one_job = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let erased: *const Task<'_> = task;
        // SAFETY: only the lifetime changes; `Finish` below keeps this call from returning
        // (or unwinding) until no pool thread uses the pointer.
        let erased =
            unsafe { core::mem::transmute::<*const Task<'_>, *const Task<'static>>(erased) };
        {
            let mut s = lock(&self.shared.state);
            s.job = Some(Job {
                task: erased,
                tasks,
            });
            s.error = None;
            self.shared.next.store(0, Ordering::Relaxed);
            self.shared.generation.fetch_add(1, Ordering::Release);
        }
        self.shared.wake.notify_all();
        let finish = Finish(&self.shared);
        let mine = work(&self.shared.next, tasks, task);
        let theirs = finish.wait();
        mine.and(theirs.map_or(Ok(()), Err))
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        lock(&self.shared.state).stop = true;
        self.shared.wake.notify_all();
        for h in self.handles.drain(..) {
            // A thread that panicked outside a task has nothing left to give back.
            let _ = h.join();
        }
    }
}

impl core::fmt::Debug for Pool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads())
            .finish()
    }
}
