//! The `framework` variant: the loader, the planner and the interpreter with no kernel
//! registered, so that its size is the framework's alone. It loads the keyword-spotting
//! network and sets it up; with no kernel, set-up must stop at operator 0 (CONV_2D) with
//! "no kernel registered", which is what it checks. Nothing is formatted with `Display`,
//! so no error text is linked.

use tessera_lite::interpreter::{ErrorKind, Interpreter, MutableOpResolver, Options};

use crate::expected::KWS_ARENA_BYTES;
use crate::kws;

/// Loads, sets up (and, were every operator registered, invokes) the network; `true` if
/// set-up stops where it must.
pub fn run() -> bool {
    let arena = cortex_m::singleton!(: [u8; KWS_ARENA_BYTES] = [0; KWS_ARENA_BYTES]).expect("once");
    let ops = MutableOpResolver::<0>::new();
    let Ok(model) = kws::model() else {
        say!("framework: the model does not load");
        return false;
    };
    say!(
        "framework: model loaded, {} operators",
        model.subgraph(0).map_or(0, |g| g.operators().len())
    );
    match Interpreter::new(model, &ops, arena, &Options::default()) {
        Ok(mut it) => {
            let ran = it.invoke().is_ok();
            say!("framework: set up with no kernel (invoked: {})", ran);
            false
        }
        Err(e) => {
            let ok = matches!(e.kind, ErrorKind::UnregisteredOp { .. }) && e.operator == Some(0);
            say!(
                "framework: set-up stops at operator {:?} with no kernel registered: {}",
                e.operator,
                if ok { "as it must" } else { "NOT as it must" }
            );
            ok
        }
    }
}
