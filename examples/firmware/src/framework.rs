//! The `framework` variant: the loader, the planner and the interpreter with no kernel
//! registered, so that its size is the framework's alone. It loads the keyword-spotting
//! network and sets it up; with no kernel, set-up must stop at operator 0 (CONV_2D) with
//! "no kernel registered", which is what it checks. Nothing is formatted with `Display`,
//! so no error text is linked. With `sealed` the model is recognised by its seal rather than
//! checked, so the verifier is left out too.

use tessera_lite::interpreter::{ErrorKind, Interpreter, MutableOpResolver, OpResolver, Options};

use crate::expected::KWS_ARENA_BYTES;
use crate::kws;

/// How far [`framework`] got.
enum Reached {
    /// The model did not load.
    NoModel,
    /// Set-up succeeded (it must not, with no kernel), and `invoke` was called.
    Invoked,
    /// Set-up stopped at this operator, with no kernel registered (`true`) or another error.
    Stopped(Option<usize>, bool),
}

/// Every call into tessera, kept out of line so that its symbol (tessera's code inlined into
/// it) stays apart from the printing in [`run`] when the image is measured.
#[inline(never)]
fn framework(arena: &'static mut [u8]) -> Reached {
    let ops = MutableOpResolver::<0>::new();
    // Opaque to the optimizer: otherwise, seeing that no op can be found, it proves set-up
    // always fails and drops `prepare`, the records and `invoke`, which the framework of a
    // program with kernels has.
    let ops: &dyn OpResolver = core::hint::black_box(&ops);
    let Ok(model) = kws::model() else {
        return Reached::NoModel;
    };
    match Interpreter::new(model, ops, arena, &Options::default()) {
        Ok(mut it) => {
            let _ = it.invoke();
            Reached::Invoked
        }
        Err(e) => Reached::Stopped(
            e.operator,
            matches!(e.kind, ErrorKind::UnregisteredOp { .. }),
        ),
    }
}

/// Runs [`framework`] and says how far it got; `true` if set-up stops where it must.
pub fn run() -> bool {
    let arena = cortex_m::singleton!(: [u8; KWS_ARENA_BYTES] = [0; KWS_ARENA_BYTES]).expect("once");
    match framework(arena) {
        Reached::NoModel => {
            say!("framework: the model does not load");
            false
        }
        Reached::Invoked => {
            say!("framework: set up with no kernel registered");
            false
        }
        Reached::Stopped(operator, unregistered) => {
            let ok = unregistered && operator == Some(0);
            // Only a u32 is formatted, as the baseline formats one: an i64 would link 64-bit
            // formatting and division (1.5 KB), and a `&str` argument string padding
            // (`Formatter::pad`, 0.6 KB), that the framework itself does not need.
            let operator = operator.map_or(u32::MAX, |o| o as u32);
            if ok {
                say!(
                    "framework: model loaded; set-up stops at operator {}, no kernel registered: as it must",
                    operator
                );
            } else {
                say!(
                    "framework: model loaded; set-up stops at operator {}, no kernel registered: NOT as it must",
                    operator
                );
            }
            ok
        }
    }
}
