//===- CPUPipeline.cpp - the softmax-to-cpu pipeline ---------------------===//

#include "softmax-mlir/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::softmax;

/// Upstream half of the pipeline, from linalg on tensors to the LLVM
/// dialect. Textual so that it reads like the mlir-opt command a user would
/// otherwise type; every pass in it is upstream's.
static constexpr const char *kUpstreamToLLVM =
    // No cse before bufferization: merging the tensor.empty ops of two
    // state tensors would make them share one buffer and force copies.
    "canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries=true "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops=true},"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref,cse,"
    "convert-linalg-to-loops,lower-affine,convert-scf-to-cf,"
    // bf16 <-> f32 conversions become integer ops: the x86 backend would
    // otherwise call __truncsfbf2, which Debian 12's libgcc lacks.
    "arith-expand{include-bf16=true},"
    // expand-strided-metadata leaves affine.apply for the offsets of
    // non-innermost slices.
    "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
    "convert-to-llvm,reconcile-unrealized-casts";

void mlir::softmax::buildSoftmaxToCPUPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  // linalg.softmax and decomposed forms are lowered through the dialect;
  // left alone, linalg.softmax would reach the end unlowered.
  pm.addPass(createSoftmaxRaise());
  SoftmaxDecomposeOptions decompose;
  decompose.reductionTileSize = options.reductionTileSize;
  pm.addPass(createSoftmaxDecompose(decompose));
  if (failed(parsePassPipeline(kUpstreamToLLVM, pm, llvm::errs())))
    llvm::report_fatal_error("softmax-to-cpu: malformed upstream pipeline");
}

void mlir::softmax::registerSoftmaxToCPUPipeline() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "softmax-to-cpu",
      "Lower a module of func ops on tensors (softmax, linalg) to the LLVM "
      "dialect for mlir-runner or an LLVM CPU backend",
      buildSoftmaxToCPUPipeline);
}
