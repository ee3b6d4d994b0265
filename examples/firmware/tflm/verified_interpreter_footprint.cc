// plain_interpreter_footprint.cc plus the flatbuffers verifier: before the
// MicroInterpreter is constructed, the model buffer is checked with the
// verifier that TFLite's generated schema provides (tflite::VerifyModelBuffer
// -> flatbuffers::Verifier::VerifyBuffer<tflite::Model>("TFL3") ->
// tflite::Model::Verify and, through it, the Verify functions of every table,
// union (VerifyBuiltinOptions, VerifyBuiltinOptions2, ...) and vector of the
// schema), as a TFLM user who loads untrusted models must.  Everything else
// is as in plain_interpreter_footprint.cc: a plain MicroInterpreter over the
// memory_footprint example's simple_add model, an op resolver with NO op
// registered, then AllocateTensors() + Invoke().
#include <cstdint>

#include "flatbuffers/verifier.h"
#include "tensorflow/lite/micro/examples/memory_footprint/models/simple_add_model_model_data.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/system_setup.h"
#include "tensorflow/lite/schema/schema_generated.h"

int main(int argc, char** argv) {
  constexpr int kTensorArenaSize = 1024;
  alignas(16) uint8_t tensor_arena[kTensorArenaSize];

  tflite::InitializeTarget();
  // The model is a constant array: hide the pointer from the optimizer (also
  // across -flto) so that the verification cannot be evaluated at compile
  // time, as it cannot be for a model received at run time.
  const unsigned char* model_data = g_simple_add_model_model_data;
  asm volatile("" : "+r"(model_data));
  flatbuffers::Verifier verifier(model_data, g_simple_add_model_model_data_size);
  if (!tflite::VerifyModelBuffer(verifier)) return 2;

  tflite::MicroMutableOpResolver<6> op_resolver;  // no op added on purpose
  tflite::MicroInterpreter interpreter(tflite::GetModel(model_data),
                                       op_resolver, tensor_arena,
                                       kTensorArenaSize);
  // As in TFLM's interpreter_memory_footprint.cc, the AllocateTensors() result
  // is not checked (it fails here: ADD is not registered), so that Invoke()
  // stays reachable.
  interpreter.AllocateTensors();
  return interpreter.Invoke() == kTfLiteOk ? 0 : 1;
}
