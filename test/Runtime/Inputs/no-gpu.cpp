// Calls the runtime on a machine where the CUDA driver cannot work (the lit
// test puts the toolkit's link stub first on the library path, so every
// driver call fails with CUDA_ERROR_STUB_LIBRARY). Every call must fail
// cleanly: a message on stderr, a recorded error, a NULL handle, no crash.
// Also checks the stream override, which needs no driver.

#include "softmax-mlir/Runtime/SoftmaxRuntime.h"

#include <cstdio>
#include <cstring>

static int failures = 0;

static void expect(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok)
    ++failures;
}

int main() {
  std::printf("backend: %s\n", softmaxRuntimeGetBackendName());
  expect(softmaxRuntimeGetLastError() == 0, "no error before any call");
  expect(softmaxRuntimeGetLastErrorString()[0] == 0, "empty message");

  // Loading a module does not touch the driver.
  static const char blob[] = "not a real cubin";
  void *module = mgpuModuleLoad(const_cast<char *>(blob), sizeof(blob));
  expect(module != nullptr && softmaxRuntimeGetLastError() == 0,
         "mgpuModuleLoad is lazy");

  // The first call that needs the driver fails with its error.
  void *stream = mgpuStreamCreate();
  expect(stream == nullptr, "mgpuStreamCreate returns NULL");
  expect(softmaxRuntimeGetLastError() != 0, "an error is recorded");
  std::printf("last error: %d: %s\n", softmaxRuntimeGetLastError(),
              softmaxRuntimeGetLastErrorString());

  // Everything after it fails cleanly too, including NULL handles.
  void *function = mgpuModuleGetFunction(module, "kernel");
  expect(function == nullptr, "mgpuModuleGetFunction returns NULL");
  void *params[1] = {nullptr};
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr, 0);
  expect(softmaxRuntimeGetLastError() == SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE,
         "launch of a NULL function records INVALID_HANDLE");
  void *mem = mgpuMemAlloc(1024, stream, 0);
  expect(mem == nullptr, "mgpuMemAlloc returns NULL");
  char host[16] = {0};
  mgpuMemcpy(mem, host, sizeof(host), stream);
  mgpuMemset32(mem, 0, 4, stream);
  mgpuMemFree(mem, stream);
  void *event = mgpuEventCreate();
  expect(event == nullptr, "mgpuEventCreate returns NULL");
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventDestroy(event);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);

  // Errors are sticky until cleared.
  expect(softmaxRuntimeGetErrorCount() > 0, "errors are counted");
  softmaxRuntimeClearLastError();
  expect(softmaxRuntimeGetLastError() == 0, "cleared");

  // Stream override: no driver call is needed to hand out, "synchronize" or
  // "destroy" the caller's stream.
  void *callerStream = reinterpret_cast<void *>(0x1234);
  softmaxRuntimeSetStream(callerStream);
  expect(softmaxRuntimeGetStream() == callerStream, "override is set");
  expect(mgpuStreamCreate() == callerStream,
         "mgpuStreamCreate returns the override");
  mgpuStreamSynchronize(callerStream);
  mgpuStreamDestroy(callerStream);
  expect(softmaxRuntimeGetLastError() == 0,
         "override stream: no driver call, no error");
  softmaxRuntimeSetStream(nullptr);
  expect(softmaxRuntimeGetStream() == nullptr, "override is cleared");
  expect(mgpuStreamCreate() == nullptr && softmaxRuntimeGetLastError() != 0,
         "without override mgpuStreamCreate goes to the driver again");

  // Invalid arguments are reported, not crashed on.
  softmaxRuntimeClearLastError();
  mgpuSetDefaultDevice(-1);
  expect(softmaxRuntimeGetLastError() == SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT,
         "negative device ordinal is rejected");

  std::printf("%s\n", failures ? "SOME CHECKS FAILED" : "ALL CHECKS PASSED");
  return failures ? 1 : 0;
}
