//===- HipBackend.cpp - HIP layer of the GPU host runtime -----------------===//
//
// Backend.h over HIP (libamdhip64), compiled with the host C++ compiler and
// __HIP_PLATFORM_AMD__. Build-tested only: no AMD GPU has run it.
//
// Differences from the CUDA layer:
//   - no contexts: the "context" is the default device, made current with
//     hipSetDevice; the stream override does not pick the device (HIP 5.2 has
//     no hipStreamGetDevice): call mgpuSetDefaultDevice to match it;
//   - modules must be code objects (gpu-module-to-binary format=bin); AMDGPU
//     assembly (format=isa, mgpuModuleLoadJIT) is reported as unsupported;
//   - thread-block clusters other than 1x1x1 are reported as unsupported;
//   - stream-ordered memory uses the device's default pool (hipMallocAsync).
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include "softmax-mlir/Runtime/SoftmaxRuntime.h"

#include <hip/hip_runtime_api.h>

#include <atomic>

using namespace softmax_rt;

namespace {
constexpr int kMaxDevices = 64;

/// The runtime's special stream handles (CUDA's CU_STREAM_LEGACY/PER_THREAD
/// values) translated for HIP.
hipStream_t toStream(void *stream) {
  if (stream == SOFTMAX_RUNTIME_STREAM_LEGACY)
    return nullptr;
  if (stream == SOFTMAX_RUNTIME_STREAM_PER_THREAD)
    return hipStreamPerThread;
  return static_cast<hipStream_t>(stream);
}

hipError_t initDriver() {
  static const hipError_t result = hipInit(0);
  return result;
}

/// Devices on which hipMallocAsync worked (bit set) or is unsupported.
std::atomic<uint64_t> asyncAllocUsed{0};
std::atomic<uint64_t> asyncAllocUnsupported{0};

uint64_t deviceBit(int device) {
  return device >= 0 && device < kMaxDevices ? uint64_t(1) << device : 0;
}
} // namespace

namespace softmax_rt {
namespace backend {

const char *const kName = "HIP";

const char *errorName(int code) {
  const char *name = hipGetErrorName(static_cast<hipError_t>(code));
  return name ? name : "hipError<unnamed>";
}

const char *errorDescription(int code) {
  const char *description = hipGetErrorString(static_cast<hipError_t>(code));
  return description ? description : "the driver gave no description";
}

bool isShutdownError(int code) { return code == hipErrorDeinitialized; }

bool activate(int device, void * /*overrideStream*/, ContextKey *key) {
  if (hipError_t result = initDriver())
    return checkDriver(result, "hipInit(0)");
  int current = -1;
  if (!SMRT_CHECK(hipGetDevice(&current)))
    return false;
  if (current != device && !SMRT_CHECK(hipSetDevice(device)))
    return false;
  *key = static_cast<ContextKey>(device) + 1;
  return true;
}

bool moduleLoad(const void *data, size_t /*size*/, bool assembly,
                int /*optLevel*/, void **module) {
  if (assembly) {
    reportError(SOFTMAX_RUNTIME_ERROR_NOT_SUPPORTED,
                "HIP cannot load AMDGPU assembly; build the kernels with "
                "gpu-module-to-binary{format=bin} (a code object)");
    return false;
  }
  hipModule_t loaded = nullptr;
  if (!SMRT_CHECK(hipModuleLoadData(&loaded, data)))
    return false;
  *module = loaded;
  return true;
}

bool moduleUnload(ContextKey key, void *module) {
  int previous = -1;
  hipError_t result = hipGetDevice(&previous);
  if (result == hipSuccess)
    result = hipSetDevice(static_cast<int>(key - 1));
  if (result == hipSuccess) {
    result = hipModuleUnload(static_cast<hipModule_t>(module));
    (void)hipSetDevice(previous);
  }
  if (isShutdownError(result))
    return true;
  return checkDriver(result, "hipModuleUnload(module)");
}

bool moduleGetFunction(void *module, const char *name, void **function) {
  hipFunction_t found = nullptr;
  hipError_t result =
      hipModuleGetFunction(&found, static_cast<hipModule_t>(module), name);
  if (result != hipSuccess) {
    reportError(result, "hipModuleGetFunction(\"%s\") failed with %s (%d): %s",
                name, errorName(result), result, errorDescription(result));
    return false;
  }
  *function = found;
  return true;
}

bool launch(void *function, const Dim3 *cluster, Dim3 grid, Dim3 block,
            unsigned sharedMemBytes, void *stream, void **params,
            void **extra) {
  if (cluster && (cluster->x != 1 || cluster->y != 1 || cluster->z != 1)) {
    reportError(SOFTMAX_RUNTIME_ERROR_NOT_SUPPORTED,
                "thread-block clusters (%ux%ux%u) are not supported by the "
                "HIP runtime",
                cluster->x, cluster->y, cluster->z);
    return false;
  }
  return SMRT_CHECK(hipModuleLaunchKernel(
      static_cast<hipFunction_t>(function), grid.x, grid.y, grid.z, block.x,
      block.y, block.z, sharedMemBytes, toStream(stream), params, extra));
}

bool streamCreate(void **stream) {
  hipStream_t created = nullptr;
  if (!SMRT_CHECK(hipStreamCreateWithFlags(&created, hipStreamNonBlocking)))
    return false;
  *stream = created;
  return true;
}

bool streamDestroy(void *stream) {
  return SMRT_CHECK(hipStreamDestroy(toStream(stream)));
}

bool streamSynchronize(void *stream) {
  return SMRT_CHECK(hipStreamSynchronize(toStream(stream)));
}

bool streamWaitEvent(void *stream, void *event) {
  return SMRT_CHECK(
      hipStreamWaitEvent(toStream(stream), static_cast<hipEvent_t>(event), 0));
}

bool eventCreate(void **event) {
  hipEvent_t created = nullptr;
  if (!SMRT_CHECK(hipEventCreateWithFlags(&created, hipEventDisableTiming)))
    return false;
  *event = created;
  return true;
}

bool eventDestroy(void *event) {
  return SMRT_CHECK(hipEventDestroy(static_cast<hipEvent_t>(event)));
}

bool eventSynchronize(void *event) {
  return SMRT_CHECK(hipEventSynchronize(static_cast<hipEvent_t>(event)));
}

bool eventRecord(void *event, void *stream) {
  return SMRT_CHECK(
      hipEventRecord(static_cast<hipEvent_t>(event), toStream(stream)));
}

bool memAlloc(uint64_t bytes, void *stream, bool hostShared, void **ptr,
              bool *streamOrdered) {
  void *allocated = nullptr;
  *streamOrdered = false;
  if (hostShared) {
    if (!SMRT_CHECK(hipMallocManaged(&allocated, bytes, hipMemAttachGlobal)))
      return false;
    *ptr = allocated;
    return true;
  }
  int device = -1;
  if (!SMRT_CHECK(hipGetDevice(&device)))
    return false;
  uint64_t bit = deviceBit(device);
  if (stream && bit && !(asyncAllocUnsupported.load() & bit)) {
    hipError_t result = hipMallocAsync(&allocated, bytes, toStream(stream));
    if (result == hipSuccess) {
      asyncAllocUsed.fetch_or(bit);
      *streamOrdered = true;
      *ptr = allocated;
      return true;
    }
    if (result != hipErrorNotSupported)
      return checkDriver(result, "hipMallocAsync(&ptr, bytes, stream)");
    asyncAllocUnsupported.fetch_or(bit);
  }
  if (!SMRT_CHECK(hipMalloc(&allocated, bytes)))
    return false;
  *ptr = allocated;
  return true;
}

bool memFree(void *ptr, void *stream, bool streamOrdered) {
  if (streamOrdered)
    return SMRT_CHECK(hipFreeAsync(ptr, toStream(stream)));
  return SMRT_CHECK(hipFree(ptr));
}

bool memCopy(void *dst, const void *src, size_t bytes, void *stream) {
  return SMRT_CHECK(
      hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, toStream(stream)));
}

bool memSet32(void *dst, uint32_t value, size_t count, void *stream) {
  return SMRT_CHECK(hipMemsetD32Async(static_cast<hipDeviceptr_t>(dst),
                                      static_cast<int>(value), count,
                                      toStream(stream)));
}

bool memSet16(void *dst, uint16_t value, size_t count, void *stream) {
  return SMRT_CHECK(hipMemsetD16Async(static_cast<hipDeviceptr_t>(dst), value,
                                      count, toStream(stream)));
}

bool hostRegister(void *ptr, uint64_t bytes) {
  return SMRT_CHECK(hipHostRegister(ptr, bytes, hipHostRegisterDefault));
}

bool hostUnregister(void *ptr) { return SMRT_CHECK(hipHostUnregister(ptr)); }

bool releaseCachedMemory() {
  bool ok = true;
  uint64_t used = asyncAllocUsed.load();
  for (int device = 0; device < kMaxDevices; ++device) {
    if (!(used & deviceBit(device)))
      continue;
    hipMemPool_t pool = nullptr;
    ok &= SMRT_CHECK(hipDeviceGetDefaultMemPool(&pool, device)) &&
          SMRT_CHECK(hipMemPoolTrimTo(pool, 0));
  }
  return ok;
}

} // namespace backend
} // namespace softmax_rt
