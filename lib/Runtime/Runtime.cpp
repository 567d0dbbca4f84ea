//===- Runtime.cpp - Driver-independent part of the GPU host runtime ------===//
//
// The mgpu* entry points that MLIR's GPU lowerings call and the runtime's own
// softmaxRuntime* API, over the driver layer of Backend.h. Compiled into both
// libsoftmax_cuda_runtime.so and libsoftmax_hip_runtime.so.
//
// State:
//   - the last error per thread and an error count per process;
//   - the default device (process-wide) and the stream override (per thread);
//   - lazy modules: a module handle records the binary and loads it into a
//     context on first use there;
//   - the set of stream-ordered allocations (freed with a stream-ordered
//     free, everything else synchronously).
// Registries are allocated once and never destroyed, so that global
// destructors of kernel libraries that run late (mgpuModuleUnload) still find
// them.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include "softmax-mlir/Runtime/SoftmaxRuntime.h"

#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

using namespace softmax_rt;

//===----------------------------------------------------------------------===//
// Errors.
//===----------------------------------------------------------------------===//

namespace {
// Only trivially destructible thread-locals: mgpuModuleUnload runs from
// global destructors, after the main thread's thread_local objects are gone.
thread_local const char *currentEntryPoint = nullptr;
thread_local int lastErrorCode = 0;
thread_local char lastErrorMessage[1024];
std::atomic<uint64_t> errorCount{0};

void record(int code, const char *detail) {
  const char *entry = currentEntryPoint ? currentEntryPoint : "softmax-runtime";
  lastErrorCode = code;
  std::snprintf(lastErrorMessage, sizeof(lastErrorMessage),
                "softmax-runtime[%s] %s: %s", backend::kName, entry, detail);
  errorCount.fetch_add(1, std::memory_order_relaxed);
  std::fprintf(stderr, "%s\n", lastErrorMessage);
  std::fflush(stderr);
}

} // namespace

EntryPoint::EntryPoint(const char *name) : previous(currentEntryPoint) {
  currentEntryPoint = name;
}
EntryPoint::~EntryPoint() { currentEntryPoint = previous; }

bool softmax_rt::checkDriver(int code, const char *call) {
  if (code == 0)
    return true;
  char detail[1024];
  std::snprintf(detail, sizeof(detail), "%s failed with %s (%d): %s", call,
                backend::errorName(code), code,
                backend::errorDescription(code));
  record(code, detail);
  return false;
}

void softmax_rt::reportError(int code, const char *format, ...) {
  char detail[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  record(code, detail);
}

//===----------------------------------------------------------------------===//
// Device, stream override, context activation.
//===----------------------------------------------------------------------===//

namespace {
std::atomic<int> defaultDevice{0};
thread_local void *overrideStream = nullptr;

bool activate(ContextKey *key) {
  return backend::activate(defaultDevice.load(std::memory_order_relaxed),
                           overrideStream, key);
}
bool activate() {
  ContextKey key;
  return activate(&key);
}
} // namespace

bool softmax_rt::activateForCaller(ContextKey *key) { return activate(key); }

//===----------------------------------------------------------------------===//
// Lazy modules.
//===----------------------------------------------------------------------===//

namespace {
struct LazyModule {
  const void *data;
  size_t size;
  bool assembly;
  int optLevel;

  std::mutex mutex;
  struct Loaded {
    ContextKey key;
    void *module;
  };
  std::vector<Loaded> loaded;
  struct Function {
    ContextKey key;
    std::string name;
    void *function;
  };
  std::vector<Function> functions;

  void *moduleFor(ContextKey key) {
    for (const Loaded &l : loaded)
      if (l.key == key)
        return l.module;
    void *module = nullptr;
    if (!backend::moduleLoad(data, size, assembly, optLevel, &module))
      return nullptr;
    loaded.push_back({key, module});
    return module;
  }

  void *functionFor(ContextKey key, const char *name) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Function &f : functions)
      if (f.key == key && f.name == name)
        return f.function;
    void *module = moduleFor(key);
    if (!module)
      return nullptr;
    void *function = nullptr;
    if (!backend::moduleGetFunction(module, name, &function))
      return nullptr;
    functions.push_back({key, name, function});
    return function;
  }

  void unloadAll() {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Loaded &l : loaded)
      backend::moduleUnload(l.key, l.module);
    loaded.clear();
    functions.clear();
  }
};

void *newModule(const void *data, size_t size, bool assembly, int optLevel) {
  if (!data) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT, "NULL module binary");
    return nullptr;
  }
  auto *module = new LazyModule();
  module->data = data;
  module->size = size;
  module->assembly = assembly;
  module->optLevel = optLevel;
  return module;
}
} // namespace

//===----------------------------------------------------------------------===//
// Stream-ordered allocations.
//===----------------------------------------------------------------------===//

namespace {
struct AllocRegistry {
  std::mutex mutex;
  std::unordered_set<void *> streamOrdered;
};
AllocRegistry &allocRegistry() {
  static AllocRegistry *registry = new AllocRegistry();
  return *registry;
}
} // namespace

//===----------------------------------------------------------------------===//
// Helpers for the entry points.
//===----------------------------------------------------------------------===//

namespace {
bool toUnsigned(intptr_t value, const char *what, unsigned *out) {
  if (value < 0 || static_cast<uintptr_t>(value) > UINT_MAX) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT,
                "%s = %lld is out of range", what,
                static_cast<long long>(value));
    return false;
  }
  *out = static_cast<unsigned>(value);
  return true;
}

void launch(void *function, const intptr_t *clusterDims, intptr_t gridX,
            intptr_t gridY, intptr_t gridZ, intptr_t blockX, intptr_t blockY,
            intptr_t blockZ, int32_t smem, void *stream, void **params,
            void **extra) {
  if (!function) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE,
                "NULL kernel function (an earlier mgpuModuleGetFunction "
                "failed); launch skipped");
    return;
  }
  // No blocks, no work.
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  Dim3 grid, block, cluster;
  if (!toUnsigned(gridX, "gridX", &grid.x) ||
      !toUnsigned(gridY, "gridY", &grid.y) ||
      !toUnsigned(gridZ, "gridZ", &grid.z) ||
      !toUnsigned(blockX, "blockX", &block.x) ||
      !toUnsigned(blockY, "blockY", &block.y) ||
      !toUnsigned(blockZ, "blockZ", &block.z))
    return;
  if (clusterDims && (!toUnsigned(clusterDims[0], "clusterX", &cluster.x) ||
                      !toUnsigned(clusterDims[1], "clusterY", &cluster.y) ||
                      !toUnsigned(clusterDims[2], "clusterZ", &cluster.z)))
    return;
  if (smem < 0) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT,
                "dynamic shared memory size %d is negative", smem);
    return;
  }
  if (!activate())
    return;
  backend::launch(function, clusterDims ? &cluster : nullptr, grid, block,
                  static_cast<unsigned>(smem), stream, params, extra);
}

/// The first byte and the byte size of the elements a memref descriptor
/// covers; false (after reporting) if it cannot be described as one span.
/// An empty memref gives size 0.
bool memrefSpan(int64_t rank, void *descriptor, int64_t elementSizeBytes,
                char **begin, uint64_t *bytes) {
  if (!descriptor || rank < 0 || elementSizeBytes <= 0) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT,
                "invalid memref (descriptor %p, rank %lld, element size %lld)",
                descriptor, static_cast<long long>(rank),
                static_cast<long long>(elementSizeBytes));
    return false;
  }
  MemRefView view = MemRefView::get(descriptor, rank);
  *begin = view.aligned + view.offset * elementSizeBytes;
  uint64_t lastElement = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (view.sizes[i] == 0) {
      *bytes = 0;
      return true;
    }
    if (view.sizes[i] < 0 || view.strides[i] < 0) {
      reportError(SOFTMAX_RUNTIME_ERROR_NOT_SUPPORTED,
                  "memref dimension %lld has size %lld and stride %lld; only "
                  "non-negative strides are supported",
                  static_cast<long long>(i),
                  static_cast<long long>(view.sizes[i]),
                  static_cast<long long>(view.strides[i]));
      return false;
    }
    lastElement += static_cast<uint64_t>(view.sizes[i] - 1) *
                   static_cast<uint64_t>(view.strides[i]);
  }
  *bytes = (lastElement + 1) * static_cast<uint64_t>(elementSizeBytes);
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Part 1: the mgpu* ABI.
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoad(void *data, size_t size) {
  EntryPoint entry("mgpuModuleLoad");
  return newModule(data, size, /*assembly=*/false, /*optLevel=*/0);
}

void *mgpuModuleLoadJIT(void *data, int32_t optLevel) {
  EntryPoint entry("mgpuModuleLoadJIT");
  return newModule(data, /*size=*/0, /*assembly=*/true, optLevel);
}

void mgpuModuleUnload(void *module) {
  EntryPoint entry("mgpuModuleUnload");
  if (!module)
    return; // mgpuModuleLoad failed and said so.
  auto *lazy = static_cast<LazyModule *>(module);
  lazy->unloadAll();
  delete lazy;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  EntryPoint entry("mgpuModuleGetFunction");
  if (!module) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE,
                "NULL module handle (function '%s')", name ? name : "");
    return nullptr;
  }
  if (!name) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT, "NULL function name");
    return nullptr;
  }
  ContextKey key;
  if (!activate(&key))
    return nullptr;
  return static_cast<LazyModule *>(module)->functionFor(key, name);
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t dynamicSharedMemBytes,
                      void *stream, void **params, void **extra,
                      size_t /*paramsCount*/) {
  EntryPoint entry("mgpuLaunchKernel");
  launch(function, nullptr, gridX, gridY, gridZ, blockX, blockY, blockZ,
         dynamicSharedMemBytes, stream, params, extra);
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t dynamicSharedMemBytes, void *stream,
                             void **params, void **extra) {
  EntryPoint entry("mgpuLaunchClusterKernel");
  const intptr_t cluster[3] = {clusterX, clusterY, clusterZ};
  launch(function, cluster, gridX, gridY, gridZ, blockX, blockY, blockZ,
         dynamicSharedMemBytes, stream, params, extra);
}

void *mgpuStreamCreate(void) {
  EntryPoint entry("mgpuStreamCreate");
  if (overrideStream)
    return overrideStream;
  void *stream = nullptr;
  if (!activate() || !backend::streamCreate(&stream))
    return nullptr;
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  EntryPoint entry("mgpuStreamDestroy");
  // NULL: nothing was created (an earlier failure was reported) and the
  // default stream cannot be destroyed.
  if (!stream || stream == overrideStream)
    return;
  if (activate())
    backend::streamDestroy(stream);
}

void mgpuStreamSynchronize(void *stream) {
  EntryPoint entry("mgpuStreamSynchronize");
  if (stream && stream == overrideStream)
    return; // Async mode: the caller synchronizes.
  if (activate())
    backend::streamSynchronize(stream);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  EntryPoint entry("mgpuStreamWaitEvent");
  if (!event) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE,
                "NULL event (an earlier mgpuEventCreate failed)");
    return;
  }
  if (activate())
    backend::streamWaitEvent(stream, event);
}

void *mgpuEventCreate(void) {
  EntryPoint entry("mgpuEventCreate");
  void *event = nullptr;
  if (!activate() || !backend::eventCreate(&event))
    return nullptr;
  return event;
}

void mgpuEventDestroy(void *event) {
  EntryPoint entry("mgpuEventDestroy");
  if (!event)
    return; // Nothing was created; the failure was reported.
  if (activate())
    backend::eventDestroy(event);
}

void mgpuEventSynchronize(void *event) {
  EntryPoint entry("mgpuEventSynchronize");
  if (!event) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE,
                "NULL event (an earlier mgpuEventCreate failed)");
    return;
  }
  if (activate())
    backend::eventSynchronize(event);
}

void mgpuEventRecord(void *event, void *stream) {
  EntryPoint entry("mgpuEventRecord");
  if (!event) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE,
                "NULL event (an earlier mgpuEventCreate failed)");
    return;
  }
  if (activate())
    backend::eventRecord(event, stream);
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, uint8_t isHostShared) {
  EntryPoint entry("mgpuMemAlloc");
  if (sizeBytes == 0)
    return nullptr;
  void *ptr = nullptr;
  bool streamOrdered = false;
  if (!activate() || !backend::memAlloc(sizeBytes, stream, isHostShared != 0,
                                        &ptr, &streamOrdered))
    return nullptr;
  if (streamOrdered) {
    AllocRegistry &registry = allocRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.streamOrdered.insert(ptr);
  }
  return ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  EntryPoint entry("mgpuMemFree");
  if (!ptr)
    return;
  bool streamOrdered;
  {
    AllocRegistry &registry = allocRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    streamOrdered = registry.streamOrdered.erase(ptr) != 0;
  }
  if (activate())
    backend::memFree(ptr, stream, streamOrdered);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  EntryPoint entry("mgpuMemcpy");
  if (sizeBytes == 0)
    return;
  if (!dst || !src) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT,
                "copy of %zu bytes from %p to %p (an earlier allocation "
                "failed?)",
                sizeBytes, src, dst);
    return;
  }
  if (activate())
    backend::memCopy(dst, src, sizeBytes, stream);
}

/// Whether a memset of `count` elements at `dst` should go to the backend:
/// nothing to do for 0, an error for a NULL destination.
static bool memsetTarget(void *dst, size_t count) {
  if (count == 0)
    return false;
  if (!dst) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT,
                "NULL destination (an earlier allocation failed?)");
    return false;
  }
  return activate();
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  EntryPoint entry("mgpuMemset32");
  if (memsetTarget(dst, count))
    backend::memSet32(dst, value, count, stream);
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  EntryPoint entry("mgpuMemset16");
  if (memsetTarget(dst, count))
    backend::memSet16(dst, value, count, stream);
}

void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  EntryPoint entry("mgpuMemHostRegister");
  if (sizeBytes == 0)
    return;
  if (activate())
    backend::hostRegister(ptr, sizeBytes);
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  EntryPoint entry("mgpuMemHostRegisterMemRef");
  char *begin;
  uint64_t bytes;
  if (!memrefSpan(rank, descriptor, elementSizeBytes, &begin, &bytes) ||
      bytes == 0)
    return;
  if (activate())
    backend::hostRegister(begin, bytes);
}

void mgpuMemHostUnregister(void *ptr) {
  EntryPoint entry("mgpuMemHostUnregister");
  if (activate())
    backend::hostUnregister(ptr);
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  EntryPoint entry("mgpuMemHostUnregisterMemRef");
  char *begin;
  uint64_t bytes;
  // An empty memref was not registered.
  if (!memrefSpan(rank, descriptor, elementSizeBytes, &begin, &bytes) ||
      bytes == 0)
    return;
  if (activate())
    backend::hostUnregister(begin);
}

void mgpuSetDefaultDevice(int32_t device) {
  EntryPoint entry("mgpuSetDefaultDevice");
  if (device < 0) {
    reportError(SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT,
                "device ordinal %d is negative", device);
    return;
  }
  defaultDevice.store(device, std::memory_order_relaxed);
}

//===----------------------------------------------------------------------===//
// Part 2: softmaxRuntime*.
//===----------------------------------------------------------------------===//

int softmaxRuntimeGetLastError(void) { return lastErrorCode; }

const char *softmaxRuntimeGetLastErrorString(void) { return lastErrorMessage; }

void softmaxRuntimeClearLastError(void) {
  lastErrorCode = 0;
  lastErrorMessage[0] = 0;
}

uint64_t softmaxRuntimeGetErrorCount(void) {
  return errorCount.load(std::memory_order_relaxed);
}

const char *softmaxRuntimeGetBackendName(void) { return backend::kName; }

void softmaxRuntimeSetStream(void *stream) { overrideStream = stream; }

void *softmaxRuntimeGetStream(void) { return overrideStream; }

void softmaxRuntimeReleaseCachedMemory(void) {
  EntryPoint entry("softmaxRuntimeReleaseCachedMemory");
  backend::releaseCachedMemory();
}

} // extern "C"
