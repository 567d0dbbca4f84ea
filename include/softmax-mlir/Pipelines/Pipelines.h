//===- Pipelines.h - named lowering pipelines -------------------*- C++ -*-===//
//
// softmax-to-cpu, softmax-to-nvvm and softmax-to-rocdl, built from pass
// constructors (no pass has to be registered to build or run them) and
// registered under their names for textual pipelines.
//
// Embedding, in C++ (docs/Embedding.md):
//
//   mlir::softmax::registerEverything(registry);          // InitAll.h
//   ...
//   mlir::PassManager pm(&context);
//   mlir::softmax::SoftmaxToNVVMPipelineOptions options;
//   options.chip = "sm_90";
//   if (failed(mlir::softmax::buildSoftmaxToNVVMPipeline(pm, options)) ||
//       failed(pm.run(module)))
//     ...;
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_PIPELINES_PIPELINES_H
#define SOFTMAX_MLIR_PIPELINES_PIPELINES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace mlir::softmax {

/// Receives the message of an invalid option value.
using PipelineErrorHandler = llvm::function_ref<void(const llvm::Twine &)>;

//===----------------------------------------------------------------------===//
// softmax-to-cpu
//===----------------------------------------------------------------------===//

/// Options of the softmax-to-cpu pipeline.
/// The most threads softmax-to-cpu's `threads` option takes.
inline constexpr int64_t kMaxCPUThreads = 65536;

struct SoftmaxToCPUPipelineOptions
    : public PassPipelineOptions<SoftmaxToCPUPipelineOptions> {
  PassOptions::Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of the vector code (softmax-map-to-cpu); -1: "
                     "the host's native width; 0: no vector mapping, every "
                     "op goes through softmax-decompose (scalar loops)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads the rows are spread over: 1 runs them in "
                     "order; 0 lets the OpenMP runtime choose (all hardware "
                     "threads, or OMP_NUM_THREADS); N from 2 to 65536 uses "
                     "N. Other than 1, the program calls the LLVM OpenMP "
                     "runtime (libomp)"),
      llvm::cl::init(1)};
  PassOptions::Option<std::string> threePass{
      *this, "three-pass",
      llvm::cl::desc("three_pass on the vector path: auto, recompute, reload "
                     "or tiled (softmax-map-to-cpu)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> exp{
      *this, "exp",
      llvm::cl::desc("The vector exp on the vector path: fast or polynomial "
                     "(softmax-map-to-cpu)"),
      llvm::cl::init("fast")};
  PassOptions::Option<int64_t> reductionTileSize{
      *this, "reduction-tile-size",
      llvm::cl::desc("Tile the reduction dimension of the ops lowered by "
                     "softmax-decompose by this size (0: no tiling)"),
      llvm::cl::init(0)};
};
using CPUPipelineOptions = SoftmaxToCPUPipelineOptions;

/// Checks the option values; returns the message for the first invalid one.
std::optional<std::string>
checkSoftmaxToCPUPipelineOptions(const SoftmaxToCPUPipelineOptions &options);

/// Adds the softmax-to-cpu passes to `pm` (a pass manager on
/// builtin.module). Module of func ops on tensors (softmax dialect, linalg,
/// bufferization, memref, calls to the runner-utils print functions) ->
/// LLVM dialect that mlir-runner executes. With an invalid option value,
/// adds nothing, reports the value through `emitError` (llvm::errs() when
/// null) and fails.
LogicalResult
buildSoftmaxToCPUPipeline(OpPassManager &pm,
                          const SoftmaxToCPUPipelineOptions &options,
                          PipelineErrorHandler emitError = {});

/// Builds the pipeline on the module's context and runs it; an invalid
/// option value is an error diagnostic at the module's location.
LogicalResult
runSoftmaxToCPUPipeline(ModuleOp module,
                        const SoftmaxToCPUPipelineOptions &options);

/// What softmax-to-cpu runs after softmax-map-to-cpu (canonicalize, the
/// OpenMP threads, the lowering to LLVM), for a module of buffers whose ops
/// were mapped otherwise, by a transform script
/// (transform.softmax.map_to_cpu; docs/guides/TransformDialect.md): the
/// pipeline is then the same passes as softmax-to-cpu. Reads `threads`
/// only; setting an option of the earlier stages is an error.
LogicalResult buildSoftmaxToCPUAfterMappingPipeline(
    OpPassManager &pm, const SoftmaxToCPUPipelineOptions &options,
    PipelineErrorHandler emitError = {});

/// Registers `softmax-to-cpu` and `softmax-to-cpu-after-mapping` for
/// textual pipelines.
void registerSoftmaxToCPUPipeline();

/// Registers `softmax-bufferize`, the bufferization every pipeline runs
/// (canonicalize, one-shot-bufferize over function boundaries with identity
/// layouts, buffer deallocation, bufferization-to-memref), so that a
/// transform script can run it (transform.apply_registered_pass).
void registerSoftmaxBufferizePipeline();

//===----------------------------------------------------------------------===//
// softmax-to-nvvm, softmax-to-rocdl
//===----------------------------------------------------------------------===//

/// Options of the softmax-to-nvvm and softmax-to-rocdl pipelines.
struct SoftmaxToGPUPipelineOptions
    : public PassPipelineOptions<SoftmaxToGPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target chip: sm_80, sm_90 (default for NVVM), sm_90a, gfx90a, "
                     "gfx942 (default for ROCDL)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX version (NVVM only): one +ptxNN from +ptx70 to "
                     "+ptx90 (+ptx78 or later for sm_90); default +ptx81 (CUDA "
                     "12.1: the linear cross-entropy gradient's paired "
                     "red.global.add.v2.f32 needs it)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Binary format: isa (PTX / AMDGPU assembly) or bin "
                     "(cubin through ptxas / hsaco through ld.lld); also "
                     "fatbin, llvm or offloading (gpu-module-to-binary)"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (libdevice, ptxas) or ROCm device "
                     "library folder; an existing directory"),
      llvm::cl::init("")};
  PassOptions::Option<bool> cacheHints{
      *this, "cache-hints",
      llvm::cl::desc("NVVM only: give the accesses softmax-map-to-gpu marks "
                     "nontemporal (a streamed row's last pass) PTX's .cs "
                     "operator (softmax-nvvm-nontemporal). Off, they keep "
                     "LLVM's default caching, as NVPTX ignores the "
                     "attribute: for an output the next kernel reads from "
                     "L2"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> allowHostCode{
      *this, "allow-host-code",
      llvm::cl::desc("Let a softmax- or attention-shaped computation that "
                     "is not mapped to a kernel be compiled for the host "
                     "(otherwise softmax-check-no-host-fallback stops the "
                     "pipeline with an error pointing at it)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> attentionF32Precision{
      *this, "attention-f32-precision",
      llvm::cl::desc("softmax.attention on f32 inputs (softmax-map-to-gpu): "
                     "exact (3xTF32, within 1e-5 of float64) or tf32 (one "
                     "tf32 product, about 1e-3; NVVM only)"),
      llvm::cl::init("exact")};
  PassOptions::Option<int64_t> attentionKeySplits{
      *this, "attention-key-splits",
      llvm::cl::desc("softmax.attention (softmax-map-to-gpu): blocks that "
                     "share a query tile's keys (split-KV), 1 to 1024; 0: "
                     "the cost model's, 1: no split"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> crossEntropyVocabSplits{
      *this, "cross-entropy-vocab-splits",
      llvm::cl::desc("softmax.linear_cross_entropy (softmax-map-to-gpu): "
                     "ranges of classes per token tile, 1 to 4096; 0: the "
                     "balance model's"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionStreamK{
      *this, "attention-stream-k",
      llvm::cl::desc("softmax.attention (softmax-map-to-gpu): stream-K "
                     "blocks per query-head group, 1 to 4096; 0: the "
                     "mapping's choice (stream-K for ragged decode)"),
      llvm::cl::init(0)};
};
using SoftmaxToNVVMPipelineOptions = SoftmaxToGPUPipelineOptions;
using SoftmaxToROCDLPipelineOptions = SoftmaxToGPUPipelineOptions;
using GPUPipelineOptions = SoftmaxToGPUPipelineOptions;

/// Checks the option values for the NVVM (`rocdl` false) or ROCDL end;
/// returns the message for the first invalid one.
std::optional<std::string>
checkSoftmaxToGPUPipelineOptions(const SoftmaxToGPUPipelineOptions &options,
                                 bool rocdl);

/// Adds the softmax-to-nvvm / softmax-to-rocdl passes to `pm` (on
/// builtin.module). Module of func ops on tensors (or buffers holding
/// device-accessible memory) -> kernels in a gpu.binary plus LLVM host code
/// calling the runtime ABI (lib/Runtime). With an invalid option value,
/// adds nothing, reports it through `emitError` (llvm::errs() when null)
/// and fails.
LogicalResult
buildSoftmaxToNVVMPipeline(OpPassManager &pm,
                           const SoftmaxToGPUPipelineOptions &options,
                           PipelineErrorHandler emitError = {});
LogicalResult
buildSoftmaxToROCDLPipeline(OpPassManager &pm,
                            const SoftmaxToGPUPipelineOptions &options,
                            PipelineErrorHandler emitError = {});

/// What softmax-to-nvvm / softmax-to-rocdl run after softmax-map-to-gpu
/// (buffer staging, softmax-check-no-host-fallback, kernel outlining, the
/// device and host ends), for a module whose ops a transform script mapped
/// (transform.softmax.map_to_gpu). Reads every option but
/// attention-f32-precision, attention-key-splits and attention-stream-k
/// (the mapping's), which
/// are errors when set.
LogicalResult buildSoftmaxToNVVMAfterMappingPipeline(
    OpPassManager &pm, const SoftmaxToGPUPipelineOptions &options,
    PipelineErrorHandler emitError = {});
LogicalResult buildSoftmaxToROCDLAfterMappingPipeline(
    OpPassManager &pm, const SoftmaxToGPUPipelineOptions &options,
    PipelineErrorHandler emitError = {});

/// Build on the module's context and run; an invalid option value is an
/// error diagnostic at the module's location.
LogicalResult
runSoftmaxToNVVMPipeline(ModuleOp module,
                         const SoftmaxToGPUPipelineOptions &options);
LogicalResult
runSoftmaxToROCDLPipeline(ModuleOp module,
                          const SoftmaxToGPUPipelineOptions &options);

/// Registers `softmax-to-nvvm`, `softmax-to-rocdl` and their
/// `-after-mapping` tails for textual pipelines.
void registerSoftmaxGPUPipelines();

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_PIPELINES_PIPELINES_H
