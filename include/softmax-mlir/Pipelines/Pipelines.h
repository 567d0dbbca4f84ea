//===- Pipelines.h - named lowering pipelines -------------------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_PIPELINES_PIPELINES_H
#define SOFTMAX_MLIR_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::softmax {

/// Options of the softmax-to-cpu pipeline.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<int64_t> reductionTileSize{
      *this, "reduction-tile-size",
      llvm::cl::desc("Tile the reduction dimension by this size (0: no tiling)"),
      llvm::cl::init(0)};
};

/// Module of func ops on tensors (softmax dialect, linalg, bufferization,
/// memref, calls to the runner-utils print functions) -> LLVM dialect that
/// mlir-runner executes.
void buildSoftmaxToCPUPipeline(OpPassManager &pm,
                               const CPUPipelineOptions &options);

void registerSoftmaxToCPUPipeline();

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_PIPELINES_PIPELINES_H
