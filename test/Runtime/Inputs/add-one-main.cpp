// Driver for Inputs/add-one.mlir compiled for a GPU and linked with a
// softmax runtime (CUDA or HIP: it uses only SoftmaxRuntime.h).
//
//   1. sync:  add_one_host on a host buffer (the generated code allocates,
//             copies, launches, copies back, frees and waits);
//   2. async: add_one_device ten times on a device buffer with a stream
//             override set; the caller copies back and synchronizes.
// Prints PASS lines, or the runtime's error and exits with 2 (what a machine
// without a GPU must produce: an error, not a crash).

#include "softmax-mlir/Runtime/SoftmaxRuntime.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
// memref<?xf32> as the C interface (llvm.emit_c_interface) passes it.
struct MemRef1D {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};
} // namespace

extern "C" void _mlir_ciface_add_one_host(MemRef1D *buffer);
extern "C" void _mlir_ciface_add_one_device(MemRef1D *buffer);

static int runtimeFailed(const char *phase) {
  if (!softmaxRuntimeGetLastError())
    return 0;
  std::printf("%s: runtime error %d: %s\n", phase,
              softmaxRuntimeGetLastError(), softmaxRuntimeGetLastErrorString());
  return 2;
}

static bool check(const std::vector<float> &values, float added,
                  const char *phase) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != static_cast<float>(i) + added) {
      std::printf("%s: FAIL at %zu: %g, expected %g\n", phase, i, values[i],
                  static_cast<float>(i) + added);
      return false;
    }
  }
  std::printf("%s: PASS\n", phase);
  return true;
}

int main() {
  std::printf("backend: %s\n", softmaxRuntimeGetBackendName());
  const int64_t n = 1000; // Not a multiple of the block size.
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i);

  // 1. Synchronous: the generated code does everything.
  MemRef1D hostRef = {host.data(), host.data(), 0, n, 1};
  _mlir_ciface_add_one_host(&hostRef);
  if (int rc = runtimeFailed("sync"))
    return rc;
  if (!check(host, 1.0f, "sync"))
    return 1;

  // 2. Async: a caller-owned stream and device buffer.
  const size_t bytes = n * sizeof(float);
  void *stream = mgpuStreamCreate();
  auto *device = static_cast<float *>(mgpuMemAlloc(bytes, stream, 0));
  mgpuMemcpy(device, host.data(), bytes, stream);
  if (int rc = runtimeFailed("async setup"))
    return rc;
  softmaxRuntimeSetStream(stream);
  MemRef1D deviceRef = {device, device, 0, n, 1};
  for (int k = 0; k < 10; ++k)
    _mlir_ciface_add_one_device(&deviceRef);
  softmaxRuntimeSetStream(nullptr);
  // The stream survived mgpuStreamDestroy in the generated code.
  mgpuMemcpy(host.data(), device, bytes, stream);
  mgpuStreamSynchronize(stream);
  mgpuMemFree(device, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  if (int rc = runtimeFailed("async"))
    return rc;
  if (!check(host, 11.0f, "async"))
    return 1;
  return 0;
}
