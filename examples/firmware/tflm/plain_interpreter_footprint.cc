// Minimal TFLM "framework" program: a plain MicroInterpreter over the
// memory_footprint example's simple_add model, with an op resolver that has
// NO op registered, then AllocateTensors() + Invoke().  Unlike TFLM's own
// interpreter_memory_footprint.cc it does not use RecordingMicroInterpreter,
// RecordingMicroAllocator, MicroProfiler or MicroResourceVariables.
#include <cstdint>

#include "tensorflow/lite/micro/examples/memory_footprint/models/simple_add_model_model_data.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/system_setup.h"
#include "tensorflow/lite/schema/schema_generated.h"

int main(int argc, char** argv) {
  constexpr int kTensorArenaSize = 1024;
  alignas(16) uint8_t tensor_arena[kTensorArenaSize];

  tflite::InitializeTarget();
  tflite::MicroMutableOpResolver<6> op_resolver;  // no op added on purpose
  tflite::MicroInterpreter interpreter(
      tflite::GetModel(g_simple_add_model_model_data), op_resolver,
      tensor_arena, kTensorArenaSize);
  // As in TFLM's interpreter_memory_footprint.cc, the AllocateTensors() result
  // is not checked (it fails here: ADD is not registered), so that Invoke()
  // stays reachable.
  interpreter.AllocateTensors();
  return interpreter.Invoke() == kTfLiteOk ? 0 : 1;
}
