//===- CPUPipeline.cpp - the softmax-to-cpu pipeline ---------------------===//
//
// Built from pass constructors, in the style of upstream's
// GPUToNVVMPipeline.cpp: an embedder needs no pass registered, and no
// option value can make a malformed pipeline.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Pipelines/Pipelines.h"
#include "softmax-mlir/Dialect/Softmax/Utils/OptionRange.h"

#include "PipelineUtils.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::softmax;

void mlir::softmax::pipelines::addMemRefToLLVM(OpPassManager &pm) {
  // bf16 <-> f32 conversions become integer ops: the x86 backend would
  // otherwise call __truncsfbf2, which Debian 12's libgcc lacks.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // expand-strided-metadata leaves affine.apply for the offsets of
  // non-innermost slices.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
}

void mlir::softmax::pipelines::addBufferization(OpPassManager &pm) {
  // No cse before bufferization: merging the tensor.empty ops of two state
  // tensors would make them share one buffer and force copies.
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// Upstream lowering of loops, vectors and buffers to the LLVM dialect.
static void addToLLVM(OpPassManager &pm) {
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pipelines::addMemRefToLLVM(pm);
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createSoftmaxCPULegalizeLLVM());
}

/// The threads and the lowering to LLVM: what softmax-to-cpu runs after the
/// bufferized code, mapped or not.
static void addThreadsAndToLLVM(OpPassManager &pm,
                                const SoftmaxToCPUPipelineOptions &options) {
  if (options.threads != 1) {
    // Every scf.parallel (the mapping's row loops, and any of the input's)
    // becomes an OpenMP parallel loop.
    ConvertSCFToOpenMPPassOptions scfToOpenMP;
    scfToOpenMP.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(scfToOpenMP));
    // The canonicalizer inlines the memref.alloca_scope the conversion wraps
    // each body in (the bodies allocate nothing), which convert-scf-to-cf
    // could not handle once the body has several blocks.
    pm.addPass(createCanonicalizerPass());
  }
  addToLLVM(pm);
}

/// Everything softmax-to-cpu runs after softmax-map-to-cpu; also the
/// softmax-to-cpu-after-mapping pipeline.
static void addAfterCPUMapping(OpPassManager &pm,
                               const SoftmaxToCPUPipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  addThreadsAndToLLVM(pm, options);
}

/// The message for the first invalid option value, prefixed with the name
/// of the pipeline that reads them.
static std::optional<std::string>
checkCPUOptions(const SoftmaxToCPUPipelineOptions &options,
                StringRef pipeline) {
  int64_t vectorWidth = options.vectorWidth;
  int64_t threads = options.threads;
  int64_t reductionTileSize = options.reductionTileSize;
  StringRef threePass = options.threePass;
  std::string message;
  llvm::raw_string_ostream os(message);
  if (vectorWidth < -1)
    os << "vector-width must be -1 (the host's width), 0 (no vector "
          "mapping) or a number of lanes, not "
       << vectorWidth;
  else if (std::optional<std::string> why =
               OptionRange{"threads", 1, kMaxCPUThreads, false,
                           "the OpenMP runtime chooses"}
                   .check(threads))
    // convert-scf-to-openmp takes an unsigned count: 2^32 wrapped to 0,
    // the runtime's choice.
    os << *why;
  else if (!llvm::is_contained({"auto", "recompute", "reload", "tiled"},
                               threePass))
    os << "three-pass must be auto, recompute, reload or tiled, not '"
       << threePass << "'";
  else if (StringRef(options.exp) != "fast" &&
           StringRef(options.exp) != "polynomial")
    os << "exp must be fast or polynomial, not '" << options.exp << "'";
  else if (reductionTileSize < 0)
    os << "reduction-tile-size must be 0 (no tiling) or a tile size, not "
       << reductionTileSize;
  if (message.empty())
    return std::nullopt;
  return (pipeline + ": " + message).str();
}

std::optional<std::string> mlir::softmax::checkSoftmaxToCPUPipelineOptions(
    const SoftmaxToCPUPipelineOptions &options) {
  return checkCPUOptions(options, "softmax-to-cpu");
}

LogicalResult mlir::softmax::buildSoftmaxToCPUPipeline(
    OpPassManager &pm, const SoftmaxToCPUPipelineOptions &options,
    PipelineErrorHandler emitError) {
  if (std::optional<std::string> error =
          checkSoftmaxToCPUPipelineOptions(options)) {
    pipelines::report(emitError, *error);
    return failure();
  }

  // linalg.softmax and decomposed forms are lowered through the dialect;
  // left alone, linalg.softmax would reach the end unlowered.
  pm.addPass(createSoftmaxRaise());
  // Every algorithm(auto) is resolved here, with the CPU cost model, before
  // anything lowers the ops.
  SoftmaxSelectAlgorithmOptions select;
  select.target = "cpu";
  pm.addPass(createSoftmaxSelectAlgorithm(select));
  SoftmaxDecomposeOptions decompose;
  decompose.reductionTileSize = options.reductionTileSize;
  bool vectorize = options.vectorWidth != 0;
  if (vectorize) {
    // What the vector mapping takes stays whole until it is on buffers;
    // the rest (other dimensions, f64) is decomposed to linalg here.
    pm.addPass(createSoftmaxDecompose(decompose, [](Operation *op) {
      // softmax-map-to-cpu maps softmax.attention itself, on buffers.
      return !isa<AttentionOp>(op) &&
             whyNotMappableToCPU(op, /*requireBuffers=*/false).has_value();
    }));
  } else {
    pm.addPass(createSoftmaxDecompose(decompose));
  }
  pipelines::addBufferization(pm);
  pm.addPass(createCSEPass());
  if (vectorize) {
    SoftmaxMapToCPUOptions map;
    // -1 (the pipeline's "native") is the pass's 0.
    map.vectorWidth = options.vectorWidth < 0 ? 0 : options.vectorWidth;
    map.threePass = options.threePass;
    map.exp = options.exp;
    pm.addPass(createSoftmaxMapToCPU(map));
    addAfterCPUMapping(pm, options);
  } else {
    // The scalar path's loops come from linalg: with threads, its parallel
    // dimensions become scf.parallel, which convert-scf-to-openmp spreads
    // over the threads (convert-linalg-to-loops alone made scf.for only,
    // and threads did nothing).
    if (options.threads != 1)
      pm.addPass(createConvertLinalgToParallelLoopsPass());
    addThreadsAndToLLVM(pm, options);
  }
  return success();
}

LogicalResult mlir::softmax::buildSoftmaxToCPUAfterMappingPipeline(
    OpPassManager &pm, const SoftmaxToCPUPipelineOptions &options,
    PipelineErrorHandler emitError) {
  StringRef pipeline = "softmax-to-cpu-after-mapping";
  std::optional<std::string> error = checkCPUOptions(options, pipeline);
  // What only the mapping or the stages before it read would be a silent
  // no-op here.
  for (const auto &[set, name] :
       {std::pair{options.vectorWidth.hasValue(), "vector-width"},
        std::pair{options.threePass.hasValue(), "three-pass"},
        std::pair{options.exp.hasValue(), "exp"},
        std::pair{options.reductionTileSize.hasValue(),
                  "reduction-tile-size"}}) {
    if (error || !set)
      continue;
    error = (pipeline + ": " + name).str() +
            " is an option of the stages up to the mapping "
            "(softmax-to-cpu, softmax-map-to-cpu, "
            "transform.softmax.map_to_cpu), not of the passes after it";
  }
  if (error) {
    pipelines::report(emitError, *error);
    return failure();
  }
  addAfterCPUMapping(pm, options);
  return success();
}

LogicalResult mlir::softmax::runSoftmaxToCPUPipeline(
    ModuleOp module, const SoftmaxToCPUPipelineOptions &options) {
  PassManager pm(module->getContext());
  if (failed(buildSoftmaxToCPUPipeline(pm, options,
                                       pipelines::errorAt(module))))
    return failure();
  return pm.run(module);
}

void mlir::softmax::registerSoftmaxToCPUPipeline() {
  pipelines::registerPipeline<SoftmaxToCPUPipelineOptions>(
      "softmax-to-cpu",
      "Lower a module of func ops on tensors (softmax, linalg) to the LLVM "
      "dialect for mlir-runner or an LLVM CPU backend: rows in vector loops "
      "at the host's width, optionally on OpenMP threads",
      buildSoftmaxToCPUPipeline);
  pipelines::registerPipeline<SoftmaxToCPUPipelineOptions>(
      "softmax-to-cpu-after-mapping",
      "The passes softmax-to-cpu runs after softmax-map-to-cpu (threads, "
      "lowering to LLVM), for a module whose ops a transform script mapped "
      "(transform.softmax.map_to_cpu); takes the threads option only",
      buildSoftmaxToCPUAfterMappingPipeline);
}

void mlir::softmax::registerSoftmaxBufferizePipeline() {
  PassPipelineRegistration<>(
      "softmax-bufferize",
      "The bufferization of every softmax pipeline (canonicalize, "
      "one-shot-bufferize over function boundaries with identity layouts, "
      "buffer-deallocation-pipeline, convert-bufferization-to-memref), for "
      "transform scripts (transform.apply_registered_pass) and command lines",
      [](OpPassManager &pm) { pipelines::addBufferization(pm); });
}
