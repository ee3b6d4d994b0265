//! The heap variant: a `#[global_allocator]` (embedded-alloc's linked-list allocator over a
//! static region) behind tessera-alloc's LARGE strings, string tensors and owned buffers,
//! exercised by [`strings_job`](crate::strings_job).

use embedded_alloc::LlffHeap as Heap;

use crate::app::verdict;
use crate::expected::STRINGS_EXPECTED;
use crate::strings_job;

#[global_allocator]
static HEAP: Heap = Heap::empty();

/// Bytes of the heap region, in `.bss`.
const HEAP_BYTES: usize = 64 * 1024;

/// Sets the heap up, runs the string job, checks it against the host's run and that every
/// byte went back to the heap; says what it found.
pub fn run() -> bool {
    // SAFETY: `run` is called once, before anything allocates, as `init!` requires.
    unsafe {
        embedded_alloc::init!(HEAP, HEAP_BYTES);
    }
    match strings_job::run(&|| HEAP.used()) {
        Ok((o, used)) => {
            say!(
                "strings (heap): {} LARGE input words, {} + {} output string bytes, digest {:#x}",
                o.large,
                o.names_bytes,
                o.picked_bytes,
                o.digest
            );
            let leaked = HEAP.used();
            say!(
                "heap: {} of {} bytes used at the peak of the job, {} after it",
                used,
                HEAP_BYTES,
                leaked
            );
            let ok = o == STRINGS_EXPECTED && leaked == 0;
            say!("strings: {}", verdict(ok));
            ok
        }
        Err(e) => {
            say!("error: {}", e);
            false
        }
    }
}
