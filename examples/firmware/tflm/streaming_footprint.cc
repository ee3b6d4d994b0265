// The counterpart of tessera's `streaming` firmware variant (examples/firmware/src/streaming.rs)
// in TensorFlow Lite Micro: the tone sweep streams 10 ms (160 samples) at a time through the
// audio front end (tests/fixtures/signal/front_end.tflite: TFLM's signal ops and RESHAPE) into
// a ring of its last three 32-channel frames; from block 3 on, every second block, the int8
// SVDF keyword network (kws_svdf.tflite) scores the ring. Two plain MicroInterpreters over
// static arenas; the op resolvers register exactly the ops of the two models (the network's
// as TFLM's keyword benchmark does). main returns 0 only if every frame's features and every
// invoke's scores equal TFLM's Python interpreter's (front_end.features.npy,
// kws_svdf.tflm_out0.npy).
//
// With -DSTREAM_PRINT it prints the arenas used, MATCH or DIFFER, and instructions per frame:
// run under `qemu-system-arm -icount shift=0` (one nanosecond per instruction) on the
// mps2-an386, SysTick on the 25 MHz processor clock ticks once every 40 instructions, as in
// tessera's firmware (src/stream_app.rs).
#include <cstdint>
#include <cstring>
#ifdef STREAM_PRINT
#include <cstdio>
#endif

#include "tensorflow/lite/micro/examples/memory_footprint/models/streaming_data.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

namespace {

constexpr int kBlock = 160;
constexpr int kChannels = 32;
constexpr int kFrames = 3;
constexpr int kStride = 2;
constexpr int kClasses = 4;
// Larger than either model needs (tessera's arenas: 9 823 and 4 351 bytes); the program prints
// what TFLM used.
constexpr int kFrontEndArenaSize = 16 * 1024;
constexpr int kNetworkArenaSize = 8 * 1024;
alignas(16) uint8_t front_end_arena[kFrontEndArenaSize];
alignas(16) uint8_t network_arena[kNetworkArenaSize];

// SysTick: control and status, reload, current value. Counts down, 24 bits.
volatile uint32_t* const kSystCsr = reinterpret_cast<volatile uint32_t*>(0xE000E010);
volatile uint32_t* const kSystRvr = reinterpret_cast<volatile uint32_t*>(0xE000E014);
volatile uint32_t* const kSystCvr = reinterpret_cast<volatile uint32_t*>(0xE000E018);
constexpr uint32_t kMask = 0x00FFFFFF;
uint32_t last_count;
uint32_t total_ticks;

// Ticks since start-up; each read adds those since the last (the counter may wrap between
// reads, never within one invoke).
uint32_t Ticks() {
  uint32_t now = *kSystCvr;
  total_ticks += (last_count - now) & kMask;
  last_count = now;
  return total_ticks;
}

}  // namespace

int main() {
  *kSystRvr = kMask;
  *kSystCvr = 0;
  *kSystCsr = 5;  // enabled, processor clock, no interrupt
  last_count = *kSystCvr;

  tflite::MicroMutableOpResolver<13> front_end_ops;
  front_end_ops.AddDelay();
  front_end_ops.AddFramer();
  front_end_ops.AddWindow();
  front_end_ops.AddReshape();
  front_end_ops.AddFftAutoScale();
  front_end_ops.AddRfft();
  front_end_ops.AddEnergy();
  front_end_ops.AddFilterBank();
  front_end_ops.AddFilterBankSquareRoot();
  front_end_ops.AddFilterBankSpectralSubtraction();
  front_end_ops.AddPCAN();
  front_end_ops.AddFilterBankLog();
  front_end_ops.AddStacker();
  tflite::MicroMutableOpResolver<4> network_ops;
  network_ops.AddFullyConnected(tflite::Register_FULLY_CONNECTED_INT8());
  network_ops.AddQuantize();
  network_ops.AddSoftmax(tflite::Register_SOFTMAX_INT8_INT16());
  network_ops.AddSvdf(tflite::Register_SVDF_INT8());

  uint32_t start = Ticks();
  tflite::MicroInterpreter front_end(tflite::GetModel(g_front_end_model_data), front_end_ops,
                                     front_end_arena, kFrontEndArenaSize);
  tflite::MicroInterpreter network(tflite::GetModel(g_kws_svdf_model_data), network_ops,
                                   network_arena, kNetworkArenaSize);
  if (front_end.AllocateTensors() != kTfLiteOk || network.AllocateTensors() != kTfLiteOk) {
    return 1;
  }
  uint32_t setup = Ticks() - start;

  int16_t ring[kFrames][kChannels] = {};
  bool features_ok = true;
  bool scores_ok = true;
  int invokes = 0;
  uint32_t front_end_ticks = 0, front_end_max = 0, network_ticks = 0, network_max = 0;
  const int blocks = g_clip_samples_size / kBlock;
  for (int k = 0; k < blocks; ++k) {
    std::memcpy(front_end.input(0)->data.i16, g_clip_samples + k * kBlock,
                kBlock * sizeof(int16_t));
    start = Ticks();
    if (front_end.Invoke() != kTfLiteOk) return 2;
    uint32_t ticks = Ticks() - start;
    front_end_ticks += ticks;
    if (ticks > front_end_max) front_end_max = ticks;
    const int16_t* features = front_end.output(2)->data.i16;
    std::memmove(ring[0], ring[1], sizeof(ring[0]) * (kFrames - 1));
    std::memcpy(ring[kFrames - 1], features, sizeof(ring[0]));
    features_ok &= std::memcmp(features, g_features + k * kChannels, sizeof(ring[0])) == 0;

    if (k < kFrames || (k - kFrames) % kStride != 0) continue;
    if (invokes * kClasses >= static_cast<int>(g_scores_size)) return 3;
    std::memcpy(network.input(0)->data.i16, ring, sizeof(ring));
    start = Ticks();
    if (network.Invoke() != kTfLiteOk) return 2;
    ticks = Ticks() - start;
    network_ticks += ticks;
    if (ticks > network_max) network_max = ticks;
    scores_ok &= std::memcmp(network.output(0)->data.i16, g_scores + invokes * kClasses,
                             kClasses * sizeof(int16_t)) == 0;
    ++invokes;
  }
  const bool ok = features_ok && scores_ok && invokes * kClasses == static_cast<int>(g_scores_size);
#ifdef STREAM_PRINT
  printf("arena used: front end %u bytes, network %u bytes\n",
         static_cast<unsigned>(front_end.arena_used_bytes()),
         static_cast<unsigned>(network.arena_used_bytes()));
  printf("%d blocks, %d network invokes; features %s, scores %s\n", blocks, invokes,
         features_ok ? "equal" : "DIFFER", scores_ok ? "equal" : "DIFFER");
  printf(
      "instructions (SysTick x 40): set-up %lu, front end per 10 ms block %lu (max %lu), "
      "network per invoke %lu (max %lu)\n",
      static_cast<unsigned long>(setup) * 40,
      static_cast<unsigned long>(front_end_ticks) * 40 / blocks,
      static_cast<unsigned long>(front_end_max) * 40,
      static_cast<unsigned long>(network_ticks) * 40 / (invokes ? invokes : 1),
      static_cast<unsigned long>(network_max) * 40);
  printf("%s\n", ok ? "MATCH" : "DIFFER");
#endif
  return ok ? 0 : 4;
}
