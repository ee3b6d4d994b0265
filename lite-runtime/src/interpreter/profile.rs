//! Timing operators: [`Interpreter::invoke_profiled`] calls a [`Profiler`] around each
//! operator of the graph it runs, as LiteRT's `benchmark_model --enable_op_profiling` does,
//! without allocating. The interpreter has no clock (a microcontroller reads its own cycle
//! counter), so the profiler brings one: [`OpTimes`] adds up a clock's ticks per operator
//! (with `std`, nanoseconds of `std::time::Instant`).
//!
//! ```no_run
//! use tessera_lite::interpreter::{AllOps, Interpreter, OpTimes, Options};
//! use tessera_lite::model::Model;
//!
//! # let bytes: &[u8] = &[];
//! let model = Model::load(bytes)?;
//! let options = Options::default();
//! let mut arena = vec![0u8; Interpreter::required(&model, &AllOps, &options)?];
//! let mut interpreter = Interpreter::new(model, &AllOps, &mut arena, &options)?;
//! let mut nanos = vec![0u64; interpreter.operator_count()];
//! interpreter.invoke_profiled(&mut OpTimes::new(&mut nanos))?;
//! for (op, ns) in nanos.iter().enumerate() {
//!     println!("operator {op}: {ns} ns");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::Interpreter;
#[cfg(feature = "control-flow")]
use super::error::ErrorKind;
use super::error::InterpreterError;

/// Told when each operator of an invoke starts and ends.
///
/// `op` is the operator's index in the subgraph run ([`Options::subgraph`](super::Options)),
/// as in [`Subgraph::operators`](crate::model::Subgraph::operators). A control-flow operator
/// (WHILE, IF, CALL_ONCE) counts its called subgraphs' operators as its own time. `end` is
/// called even when the operator fails, before the error is returned.
pub trait Profiler {
    /// Operator `op` is about to run.
    fn begin(&mut self, op: usize);
    /// Operator `op` has run.
    fn end(&mut self, op: usize);
}

/// Nothing: [`Interpreter::invoke_profiled`] with it is [`Interpreter::invoke`].
impl Profiler for () {
    fn begin(&mut self, _: usize) {}
    fn end(&mut self, _: usize) {}
}

/// Per-operator time added into the caller's slice (index = operator), so that several
/// invokes add up; operators past the slice's end are not timed. The clock is the caller's
/// (a cycle counter on a microcontroller: [`with_clock`](Self::with_clock)); with `std`,
/// [`new`](Self::new) counts nanoseconds of `std::time::Instant`.
pub struct OpTimes<'a, C = fn() -> u64> {
    ticks: &'a mut [u64],
    clock: C,
    started: u64,
}

impl<'a, C: FnMut() -> u64> OpTimes<'a, C> {
    /// Adds into `ticks` (one entry per operator: [`Interpreter::operator_count`]) the
    /// difference of `clock` after and before each operator (wrapping, so a 32-bit cycle
    /// counter that wraps once during an operator still gives its time).
    pub fn with_clock(ticks: &'a mut [u64], clock: C) -> Self {
        Self {
            ticks,
            clock,
            started: 0,
        }
    }
}

#[cfg(feature = "std")]
impl<'a> OpTimes<'a> {
    /// Adds nanoseconds into `nanos` (one entry per operator:
    /// [`Interpreter::operator_count`]).
    pub fn new(nanos: &'a mut [u64]) -> Self {
        Self::with_clock(nanos, std_nanos)
    }
}

/// Nanoseconds since the first call in this process.
#[cfg(feature = "std")]
fn std_nanos() -> u64 {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let ns = EPOCH
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos();
    u64::try_from(ns).unwrap_or(u64::MAX)
}

impl<C> core::fmt::Debug for OpTimes<'_, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OpTimes")
            .field("ticks", &self.ticks)
            .finish()
    }
}

impl<C: FnMut() -> u64> Profiler for OpTimes<'_, C> {
    fn begin(&mut self, _: usize) {
        self.started = (self.clock)();
    }

    fn end(&mut self, op: usize) {
        let took = (self.clock)().wrapping_sub(self.started);
        if let Some(slot) = self.ticks.get_mut(op) {
            *slot = slot.saturating_add(took);
        }
    }
}

impl Interpreter<'_, '_> {
    /// The operators of the subgraph run: the entries a [`Profiler`] is told about.
    pub fn operator_count(&self) -> usize {
        self.main_ops().map_or(0, |(_, count, _, _)| count)
    }

    /// [`invoke`](Self::invoke), telling `profiler` when each operator starts and ends.
    /// Allocates nothing.
    ///
    /// # Errors
    /// As [`invoke`](Self::invoke).
    pub fn invoke_profiled<P: Profiler + ?Sized>(
        &mut self,
        profiler: &mut P,
    ) -> Result<(), InterpreterError> {
        let (first, count, base, tensors) = self.main_ops()?;
        for j in first..first + count {
            profiler.begin(j - first);
            let ran = self.run_operator(j, base, tensors);
            profiler.end(j - first);
            ran?;
        }
        Ok(())
    }

    /// The graph run's first operator record, operator count, first tensor record and tensor
    /// count.
    fn main_ops(&self) -> Result<(usize, usize, usize, usize), InterpreterError> {
        #[cfg(feature = "control-flow")]
        {
            let g = self
                .graph_record(0)
                .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
            Ok((
                g.ops as usize,
                g.op_count as usize,
                g.tensors as usize,
                g.tensor_count as usize,
            ))
        }
        #[cfg(not(feature = "control-flow"))]
        {
            Ok((0, self.counts.ops as usize, 0, self.counts.tensors as usize))
        }
    }
}
