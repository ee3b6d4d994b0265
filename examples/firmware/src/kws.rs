//! The keyword-spotting int8 network of issue 16 (`tests/fixtures/models/kws_int8.tflite`:
//! CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, FULLY_CONNECTED, SOFTMAX on a 49x10 MFCC
//! input), in flash with the five kernels it needs and no others. `build.rs` sizes its arena
//! on the host and writes the input and LiteRT's reference-kernel output it must equal.

use tessera_lite::interpreter::{MutableOpResolver, kernels};
use tessera_lite::model::{Model, ModelError};

/// Bytes kept on a 16-byte boundary, so the model's constants are read in place.
#[repr(C, align(16))]
struct Aligned<B: ?Sized>(B);

static MODEL_BYTES: &Aligned<[u8]> = &Aligned(*include_bytes!(
    "../../../tests/fixtures/models/kws_int8.tflite"
));

/// The model's bytes, 16-byte aligned in flash.
pub fn bytes() -> &'static [u8] {
    &MODEL_BYTES.0
}

/// The model, checked in full (on the host, by `build.rs`; on the device without `sealed`).
pub fn checked_model() -> Result<Model<'static>, ModelError> {
    Model::load(bytes())
}

/// The model as the firmware loads it. With `sealed`, recognised by the seal `build.rs` made
/// when it checked the same bytes on the host (their size and CRC-32), not walked again:
/// nothing links the verifier. Without it, checked in full at every start.
#[cfg(target_os = "none")]
pub fn model() -> Result<Model<'static>, ModelError> {
    if cfg!(feature = "sealed") {
        Model::load_sealed(bytes(), &crate::expected::KWS_SEAL)
    } else {
        checked_model()
    }
}

/// The five kernels the network needs: the other kernels are not linked.
#[cfg_attr(feature = "framework", allow(dead_code))] // that variant registers none
pub fn ops() -> MutableOpResolver<5> {
    let mut ops = MutableOpResolver::new();
    for k in [
        &kernels::CONV_2D_INT8,
        &kernels::DEPTHWISE_CONV_2D_INT8,
        &kernels::AVERAGE_POOL_2D_INT8,
        &kernels::FULLY_CONNECTED_INT8,
        &kernels::SOFTMAX_INT8,
    ] {
        // Five slots for five kernels: never full.
        let _ = ops.add(k);
    }
    ops
}
