//===- Backend.h - Driver layer of the GPU host runtime ---------*- C++ -*-===//
//
// The runtime is one driver-independent source (Runtime.cpp: the mgpu* entry
// points, error recording, the stream override, lazy modules, allocation
// bookkeeping) over this thin layer, implemented once per driver:
// CudaBackend.cpp (CUDA driver API) and HipBackend.cpp (HIP).
//
// Every backend function returns true on success. On failure it has already
// reported the error through checkDriver / reportError below (stderr +
// recorded for softmaxRuntimeGetLastError) and returns false.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_RUNTIME_BACKEND_H
#define SOFTMAX_MLIR_LIB_RUNTIME_BACKEND_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace softmax_rt {

//===----------------------------------------------------------------------===//
// Error reporting (Runtime.cpp), shared by both backends.
//===----------------------------------------------------------------------===//

/// Names the mgpu*/softmaxRuntime* entry point running on this thread, for
/// error messages. Entry points create one on entry; they do not nest.
class EntryPoint {
public:
  explicit EntryPoint(const char *name);
  ~EntryPoint();
  EntryPoint(const EntryPoint &) = delete;
  EntryPoint &operator=(const EntryPoint &) = delete;

private:
  const char *previous;
};

/// Records and prints a failed driver call; `code` is the driver's status
/// (CUresult / hipError_t), `call` the call's source text. Returns
/// `code == 0`.
bool checkDriver(int code, const char *call);

/// Records and prints an error of the runtime itself (code < 0) or a driver
/// error with a custom message. printf-style.
void reportError(int code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// `SMRT_CHECK(cuFoo(a, b))`: run a driver call, report it on failure.
#define SMRT_CHECK(call)                                                       \
  ::softmax_rt::checkDriver(static_cast<int>(call), #call)

/// Makes the context the caller's mgpu* calls use current (default device,
/// stream override); what Runtime.cpp runs before every driver call, for
/// backend-specific entry points.
bool activateForCaller(uintptr_t *key);

/// A ranked memref descriptor as MLIR's LLVM lowering lays it out in memory:
///   { T *allocated; T *aligned; int64_t offset; int64_t sizes[rank];
///     int64_t strides[rank]; }
struct MemRefView {
  char *aligned;
  int64_t offset; // in elements
  const int64_t *sizes;
  const int64_t *strides;

  static MemRefView get(void *descriptor, int64_t rank) {
    char *bytes = static_cast<char *>(descriptor);
    MemRefView view;
    std::memcpy(&view.aligned, bytes + sizeof(void *), sizeof(void *));
    std::memcpy(&view.offset, bytes + 2 * sizeof(void *), sizeof(int64_t));
    view.sizes = reinterpret_cast<const int64_t *>(bytes + 2 * sizeof(void *) +
                                                   sizeof(int64_t));
    view.strides = view.sizes + rank;
    return view;
  }
};

//===----------------------------------------------------------------------===//
// The driver layer.
//===----------------------------------------------------------------------===//

/// Identifies where modules are loaded: a CUcontext (CUDA) or device
/// ordinal + 1 (HIP). Never 0 once activate() succeeded.
using ContextKey = uintptr_t;

struct Dim3 {
  unsigned x, y, z;
};

namespace backend {

/// "CUDA" or "HIP".
extern const char *const kName;

/// The driver's name and description of a status code; never null.
const char *errorName(int code);
const char *errorDescription(int code);
/// Statuses that mean the driver is shutting down (process exit): module
/// unloads that fail with them are not reported.
bool isShutdownError(int code);

/// Initializes the driver once, then makes the context to use current on the
/// calling thread: that of `overrideStream` when one is set (CUDA), else the
/// primary context of `device` / `device` itself (HIP).
bool activate(int device, void *overrideStream, ContextKey *key);

/// Loads `data` into the current context. `assembly`: NUL-terminated PTX to
/// JIT at `optLevel`; otherwise a cubin/fatbin/hsaco of `size` bytes.
bool moduleLoad(const void *data, size_t size, bool assembly, int optLevel,
                void **module);
/// Unloads a module loaded in context `key` (made current for the call).
bool moduleUnload(ContextKey key, void *module);
bool moduleGetFunction(void *module, const char *name, void **function);

/// `cluster` null: a plain launch.
bool launch(void *function, const Dim3 *cluster, Dim3 grid, Dim3 block,
            unsigned sharedMemBytes, void *stream, void **params,
            void **extra);

bool streamCreate(void **stream);
bool streamDestroy(void *stream);
bool streamSynchronize(void *stream);
bool streamWaitEvent(void *stream, void *event);

bool eventCreate(void **event);
bool eventDestroy(void *event);
bool eventSynchronize(void *event);
bool eventRecord(void *event, void *stream);

/// Allocates `bytes` (> 0). Sets *streamOrdered when the memory came from a
/// stream-ordered pool on `stream` (then memFree must be told so).
bool memAlloc(uint64_t bytes, void *stream, bool hostShared, void **ptr,
              bool *streamOrdered);
bool memFree(void *ptr, void *stream, bool streamOrdered);
bool memCopy(void *dst, const void *src, size_t bytes, void *stream);
bool memSet32(void *dst, uint32_t value, size_t count, void *stream);
bool memSet16(void *dst, uint16_t value, size_t count, void *stream);
bool hostRegister(void *ptr, uint64_t bytes);
bool hostUnregister(void *ptr);

/// Trims the runtime's memory pools to zero cached bytes.
bool releaseCachedMemory();

} // namespace backend
} // namespace softmax_rt

#endif // SOFTMAX_MLIR_LIB_RUNTIME_BACKEND_H
