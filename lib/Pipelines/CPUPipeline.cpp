//===- CPUPipeline.cpp - the softmax-to-cpu pipeline ---------------------===//

#include "softmax-mlir/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::softmax;

/// Upstream bufferization, textual so that it reads like the mlir-opt
/// command a user would otherwise type.
static constexpr const char *kBufferize =
    // No cse before bufferization: merging the tensor.empty ops of two
    // state tensors would make them share one buffer and force copies.
    "canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries=true "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops=true},"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref,cse";

/// Upstream lowering of loops, vectors and buffers to the LLVM dialect.
static constexpr const char *kToLLVM =
    "convert-linalg-to-loops,lower-affine,convert-scf-to-cf,"
    // bf16 <-> f32 conversions become integer ops: the x86 backend would
    // otherwise call __truncsfbf2, which Debian 12's libgcc lacks.
    "arith-expand{include-bf16=true},"
    // expand-strided-metadata leaves affine.apply for the offsets of
    // non-innermost slices.
    "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
    "convert-vector-to-llvm,convert-to-llvm,reconcile-unrealized-casts";

static void addTextual(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("softmax-to-cpu: malformed upstream pipeline");
}

void mlir::softmax::buildSoftmaxToCPUPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  // linalg.softmax and decomposed forms are lowered through the dialect;
  // left alone, linalg.softmax would reach the end unlowered.
  pm.addPass(createSoftmaxRaise());
  SoftmaxDecomposeOptions decompose;
  decompose.reductionTileSize = options.reductionTileSize;
  bool vectorize = options.vectorWidth != 0;
  if (vectorize) {
    // What the vector mapping takes stays whole until it is on buffers;
    // the rest (other dimensions, f64) is decomposed to linalg here.
    pm.addPass(createSoftmaxDecompose(decompose, [](Operation *op) {
      return whyNotMappableToCPU(op, /*requireBuffers=*/false).has_value();
    }));
  } else {
    pm.addPass(createSoftmaxDecompose(decompose));
  }
  addTextual(pm, kBufferize);
  if (vectorize) {
    addTextual(pm, llvm::formatv("softmax-map-to-cpu{{vector-width={0} "
                                 "three-pass={1}},canonicalize",
                                 options.vectorWidth < 0
                                     ? int64_t(0)
                                     : int64_t(options.vectorWidth),
                                 std::string(options.threePass))
                       .str());
  }
  if (options.threads != 1) {
    // Every scf.parallel (the mapping's row loops, and any of the input's)
    // becomes an OpenMP parallel loop.
    std::string scfToOpenMP = "convert-scf-to-openmp";
    if (options.threads > 1)
      scfToOpenMP += llvm::formatv("{{num-threads={0}}",
                                   int64_t(options.threads))
                         .str();
    // The canonicalizer inlines the memref.alloca_scope the conversion wraps
    // each body in (the bodies allocate nothing), which convert-scf-to-cf
    // could not handle once the body has several blocks.
    addTextual(pm, scfToOpenMP + ",canonicalize");
  }
  addTextual(pm, kToLLVM);
}

void mlir::softmax::registerSoftmaxToCPUPipeline() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "softmax-to-cpu",
      "Lower a module of func ops on tensors (softmax, linalg) to the LLVM "
      "dialect for mlir-runner or an LLVM CPU backend: rows in vector loops "
      "at the host's width, optionally on OpenMP threads",
      buildSoftmaxToCPUPipeline);
}
