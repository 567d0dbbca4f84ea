//===- Pipelines.h - named lowering pipelines -------------------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_PIPELINES_PIPELINES_H
#define SOFTMAX_MLIR_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::softmax {

/// Options of the softmax-to-cpu pipeline.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
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
                     "threads, or OMP_NUM_THREADS); N > 1 uses N. Other than "
                     "1, the program calls the LLVM OpenMP runtime (libomp)"),
      llvm::cl::init(1)};
  PassOptions::Option<std::string> threePass{
      *this, "three-pass",
      llvm::cl::desc("three_pass on the vector path: auto, recompute, reload "
                     "or tiled (softmax-map-to-cpu)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> reductionTileSize{
      *this, "reduction-tile-size",
      llvm::cl::desc("Tile the reduction dimension of the ops lowered by "
                     "softmax-decompose by this size (0: no tiling)"),
      llvm::cl::init(0)};
};

/// Module of func ops on tensors (softmax dialect, linalg, bufferization,
/// memref, calls to the runner-utils print functions) -> LLVM dialect that
/// mlir-runner executes.
void buildSoftmaxToCPUPipeline(OpPassManager &pm,
                               const CPUPipelineOptions &options);

void registerSoftmaxToCPUPipeline();

/// Options of the softmax-to-nvvm and softmax-to-rocdl pipelines.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target chip: sm_80, sm_90 (default for NVVM), gfx90a, "
                     "gfx942 (default for ROCDL)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (NVVM only; default +ptx80)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Binary format: isa (PTX / AMDGPU assembly) or bin "
                     "(cubin through ptxas / hsaco through ld.lld)"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (libdevice, ptxas) or ROCm device "
                     "library folder"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> attentionF32Precision{
      *this, "attention-f32-precision",
      llvm::cl::desc("softmax.attention on f32 inputs (softmax-map-to-gpu): "
                     "exact (3xTF32, within 1e-5 of float64) or tf32 (one "
                     "tf32 product, about 1e-3; NVVM only)"),
      llvm::cl::init("exact")};
};

/// Module of func ops on tensors (or buffers holding device-accessible
/// memory) -> kernels in a gpu.binary plus LLVM host code calling the
/// runtime ABI (lib/Runtime).
void buildSoftmaxToNVVMPipeline(OpPassManager &pm,
                                const GPUPipelineOptions &options);
void buildSoftmaxToROCDLPipeline(OpPassManager &pm,
                                 const GPUPipelineOptions &options);

void registerSoftmaxGPUPipelines();

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_PIPELINES_PIPELINES_H
