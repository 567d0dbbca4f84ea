/*===- SoftmaxRuntime.h - GPU host runtime of softmax-mlir ---------*- C -*-===//
 *
 * The C ABI of the project's GPU host runtime.
 *
 * Two shared libraries implement it:
 *   libsoftmax_cuda_runtime.so  over the CUDA driver API (libcuda.so.1 only)
 *   libsoftmax_hip_runtime.so   over HIP (libamdhip64.so)
 * Neither depends on LLVM or MLIR.
 *
 * Part 1 are the `mgpu*` entry points that MLIR 22's `gpu-to-llvm` lowering,
 * the `#gpu.select_object` offloading handler (module load/unload in global
 * constructors/destructors) and `convert-nvgpu-to-nvvm` (TMA descriptors) emit
 * calls to. Their C types match the LLVM IR those passes produce:
 *   index  -> intptr_t/int64_t,   !llvm.ptr -> void *,   i8 flag -> uint8_t.
 * Stream, event, module and function handles are opaque pointers (CUstream,
 * CUevent, ... or their HIP equivalents).
 *
 * Part 2 is the runtime's own API (softmaxRuntime*): error queries and the
 * caller-owned stream override used for benchmarking and embedding.
 *
 * Errors: no entry point aborts or throws. A failing driver call prints one
 * line to stderr naming the entry point, the driver call and the driver's
 * error name and description, and is recorded (softmaxRuntimeGetLastError).
 * Entry points that return a handle return NULL on failure; later calls that
 * receive a NULL handle record SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE instead
 * of crashing.
 *
 * See docs/Runtime.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SOFTMAX_MLIR_RUNTIME_SOFTMAXRUNTIME_H
#define SOFTMAX_MLIR_RUNTIME_SOFTMAXRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SOFTMAX_RUNTIME_EXPORT __declspec(dllexport)
#else
#define SOFTMAX_RUNTIME_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===
 * Part 1: the ABI emitted by MLIR's GPU lowerings.
 *===----------------------------------------------------------------------===*/

/* Modules. `data` points to a binary that stays valid until
 * mgpuModuleUnload (the offloading handler passes a global constant):
 *   mgpuModuleLoad    cubin / fatbin (gpu-module-to-binary format=bin|fatbin)
 *                     or an AMDGPU hsaco (format=bin); `size` is its size.
 *   mgpuModuleLoadJIT NUL-terminated PTX (format=isa), JIT-compiled by the
 *                     driver at `optLevel` (0..4). Not available with HIP
 *                     (AMDGPU assembly cannot be loaded): records
 *                     SOFTMAX_RUNTIME_ERROR_NOT_SUPPORTED there.
 * Loading is lazy: the returned handle is created without touching the
 * driver, and the binary is loaded into a context on the first
 * mgpuModuleGetFunction in that context (so loading a kernel library does not
 * initialise the GPU, and with the stream override the module follows the
 * stream's context/device). Load errors are therefore reported by
 * mgpuModuleGetFunction. */
SOFTMAX_RUNTIME_EXPORT void *mgpuModuleLoad(void *data, size_t size);
SOFTMAX_RUNTIME_EXPORT void *mgpuModuleLoadJIT(void *data, int32_t optLevel);
SOFTMAX_RUNTIME_EXPORT void mgpuModuleUnload(void *module);
/* Returns a function handle valid in the context that is current after the
 * call (the one mgpuLaunchKernel uses on this thread), NULL on failure. */
SOFTMAX_RUNTIME_EXPORT void *mgpuModuleGetFunction(void *module,
                                                   const char *name);

/* Kernel launch. `params` is the array of pointers to the kernel arguments,
 * `paramsCount` its length; `extra` is passed through (NULL from MLIR).
 * A launch with a zero grid dimension has no work and is skipped. */
SOFTMAX_RUNTIME_EXPORT void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                 intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                 intptr_t blockZ, int32_t dynamicSharedMemBytes, void *stream,
                 void **params, void **extra, size_t paramsCount);
/* Launch with thread-block clusters (sm_90+, cuLaunchKernelEx). MLIR 22 emits
 * no paramsCount for this variant. HIP: only 1x1x1 clusters. */
SOFTMAX_RUNTIME_EXPORT void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t dynamicSharedMemBytes,
                        void *stream, void **params, void **extra);

/* Streams (non-blocking streams of the current context). While a stream
 * override is set on the calling thread (softmaxRuntimeSetStream), Create
 * returns it and Destroy/Synchronize on it do nothing. */
SOFTMAX_RUNTIME_EXPORT void *mgpuStreamCreate(void);
SOFTMAX_RUNTIME_EXPORT void mgpuStreamDestroy(void *stream);
SOFTMAX_RUNTIME_EXPORT void mgpuStreamSynchronize(void *stream);
SOFTMAX_RUNTIME_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);

/* Events (created without timing). mgpuEventSynchronize always blocks, also
 * in async mode. */
SOFTMAX_RUNTIME_EXPORT void *mgpuEventCreate(void);
SOFTMAX_RUNTIME_EXPORT void mgpuEventDestroy(void *event);
SOFTMAX_RUNTIME_EXPORT void mgpuEventSynchronize(void *event);
SOFTMAX_RUNTIME_EXPORT void mgpuEventRecord(void *event, void *stream);

/* Memory. With a non-NULL stream and a device that supports memory pools,
 * allocation and free are stream-ordered (a pool of the runtime that keeps
 * freed memory cached; see softmaxRuntimeReleaseCachedMemory), otherwise
 * synchronous. isHostShared != 0 allocates managed memory (gpu.alloc
 * host_shared). A zero-byte request returns NULL without error; freeing NULL
 * does nothing. Memcpy is asynchronous on `stream` in both directions (the
 * addresses are unified). Memset16/32 set `count` 2-/4-byte elements. */
SOFTMAX_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                          uint8_t isHostShared);
SOFTMAX_RUNTIME_EXPORT void mgpuMemFree(void *ptr, void *stream);
SOFTMAX_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                       void *stream);
SOFTMAX_RUNTIME_EXPORT void mgpuMemset32(void *dst, uint32_t value,
                                         size_t count, void *stream);
SOFTMAX_RUNTIME_EXPORT void mgpuMemset16(void *dst, uint16_t value,
                                         size_t count, void *stream);

/* Page-locks host memory (gpu.host_register / gpu.host_unregister). The
 * MemRef variants take a ranked memref descriptor
 *   { T *allocated; T *aligned; int64_t offset; int64_t sizes[rank];
 *     int64_t strides[rank]; }
 * and register the span its elements cover (any non-negative strides). */
SOFTMAX_RUNTIME_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
SOFTMAX_RUNTIME_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                                      void *descriptor,
                                                      int64_t elementSizeBytes);
SOFTMAX_RUNTIME_EXPORT void mgpuMemHostUnregister(void *ptr);
SOFTMAX_RUNTIME_EXPORT void
mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                            int64_t elementSizeBytes);

/* Device ordinal whose primary context (CUDA) / device (HIP) is used from now
 * on, by every thread (gpu.set_default_device). Default 0. */
SOFTMAX_RUNTIME_EXPORT void mgpuSetDefaultDevice(int32_t device);

/* CUDA only, not defined by the HIP library. nvgpu.tma.create.descriptor
 * (lowered by convert-nvgpu-to-nvvm): encodes a tiled TMA descriptor
 * (CUtensorMap) for the memref `descriptor` of rank 1..5 and returns a device
 * pointer to a copy of it. The enum arguments are CUtensorMapDataType /
 * Interleave / Swizzle / L2promotion / FloatOOBfill values; boxDims[rank] is
 * the box in memref dimension order. The device copy is made once per
 * distinct map (address, sizes, strides, box, enums) and context and kept
 * for the process; later calls with the same map return it without
 * allocating or copying (upstream's wrapper allocates and copies on every
 * call). The first call for a map is synchronous and must not be captured
 * into a CUDA graph. */
SOFTMAX_RUNTIME_EXPORT void *
mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                               int64_t dataType, int64_t interleave,
                               int64_t swizzle, int64_t l2Promotion,
                               int64_t oobFill, int64_t *boxDims);

/*===----------------------------------------------------------------------===
 * Part 2: the runtime's own API.
 *===----------------------------------------------------------------------===*/

/* Codes returned by softmaxRuntimeGetLastError: 0 no error; > 0 the driver's
 * CUresult / hipError_t; < 0 one of these errors of the runtime itself. */
#define SOFTMAX_RUNTIME_SUCCESS 0
#define SOFTMAX_RUNTIME_ERROR_INVALID_ARGUMENT (-1)
#define SOFTMAX_RUNTIME_ERROR_NOT_SUPPORTED (-2)
#define SOFTMAX_RUNTIME_ERROR_INVALID_HANDLE (-3)

/* The code of the most recent error recorded on the calling thread since the
 * last softmaxRuntimeClearLastError (errors are sticky; a later success does
 * not reset them). */
SOFTMAX_RUNTIME_EXPORT int softmaxRuntimeGetLastError(void);
/* Its message (the line printed to stderr, without the newline); "" if none.
 * Valid until the next runtime call on this thread. */
SOFTMAX_RUNTIME_EXPORT const char *softmaxRuntimeGetLastErrorString(void);
SOFTMAX_RUNTIME_EXPORT void softmaxRuntimeClearLastError(void);
/* Number of errors recorded so far by all threads. */
SOFTMAX_RUNTIME_EXPORT uint64_t softmaxRuntimeGetErrorCount(void);

/* "CUDA" or "HIP". */
SOFTMAX_RUNTIME_EXPORT const char *softmaxRuntimeGetBackendName(void);

/* Stream override (async mode), per thread.
 *
 * softmaxRuntimeSetStream(s) with a caller-owned stream `s` (a CUstream /
 * hipStream_t, e.g. torch.cuda.current_stream().cuda_stream):
 *   - mgpuStreamCreate returns `s`;
 *   - mgpuStreamDestroy(s) does not destroy it;
 *   - mgpuStreamSynchronize(s) returns at once without synchronizing;
 *   - modules, launches and allocations use the context of `s` (CUDA).
 * A host function generated by gpu-to-llvm then returns as soon as its work
 * is enqueued on `s`; the caller synchronizes (cuStreamSynchronize,
 * torch.cuda.synchronize, CUDA events recorded on `s` around the call).
 * Memory that the generated code allocates and frees is stream-ordered on
 * `s`, so no host synchronization happens (mgpuEventSynchronize excepted).
 *
 * A NULL stream handle means "no override": softmaxRuntimeSetStream(NULL)
 * returns to normal synchronous behaviour. To select the legacy default
 * stream (handle 0 in the CUDA runtime API, torch's default stream) pass
 * SOFTMAX_RUNTIME_STREAM_LEGACY, or SOFTMAX_RUNTIME_STREAM_PER_THREAD for
 * the per-thread default stream (CUDA's CU_STREAM_LEGACY/PER_THREAD handles;
 * HIP maps both to its null stream).
 *
 * Only the calling thread is affected. The runtime never destroys or
 * synchronizes an override stream; it must stay valid while it is set. */
#define SOFTMAX_RUNTIME_STREAM_LEGACY ((void *)0x1)
#define SOFTMAX_RUNTIME_STREAM_PER_THREAD ((void *)0x2)
SOFTMAX_RUNTIME_EXPORT void softmaxRuntimeSetStream(void *stream);
/* The calling thread's override stream, NULL if none. */
SOFTMAX_RUNTIME_EXPORT void *softmaxRuntimeGetStream(void);

/* Returns the memory cached by the runtime's stream-ordered pools to the
 * driver (after the streams that freed it have caught up). */
SOFTMAX_RUNTIME_EXPORT void softmaxRuntimeReleaseCachedMemory(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SOFTMAX_MLIR_RUNTIME_SOFTMAXRUNTIME_H */
