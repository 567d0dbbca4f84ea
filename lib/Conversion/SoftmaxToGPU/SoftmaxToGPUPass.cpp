//===- SoftmaxToGPUPass.cpp - the softmax-map-to-gpu pass ----------------===//
//
// The pass and the pattern set over the mapping of SoftmaxGPUMapping, with
// the vendor end chosen by the target's GPUVendor.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/MappingPatterns.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Utils/OptionRange.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXMAPTOGPU
#include "softmax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

const GPUTargetHooks &mlir::softmax::getGPUTargetHooks(GPUVendor vendor) {
  switch (vendor) {
  case GPUVendor::NVIDIA:
    return getNVVMTargetHooks();
  case GPUVendor::AMD:
    return getROCDLTargetHooks();
  }
  llvm_unreachable("unknown GPUVendor");
}

/// An option naming a case of `Enum`: empty leaves `field` unset, anything
/// else must be one of the cases `words` lists.
template <typename Enum>
static LogicalResult parseEnumOption(
    StringRef option, StringRef value, StringRef words,
    std::optional<Enum> &field, function_ref<InFlightDiagnostic()> emitError) {
  if (value.empty())
    return success();
  field = symbolizeEnum<Enum>(value);
  if (!field)
    return emitError() << option << " must be " << words << ", not '" << value
                       << "'";
  return success();
}

FailureOr<GPUMapping> mlir::softmax::getGPUMappingFromOptions(
    const SoftmaxMapToGPUOptions &options,
    function_ref<InFlightDiagnostic()> emitError) {
  std::optional<GPUTarget> target = lookupGPUTarget(options.chip);
  if (!target)
    return emitError() << "unknown chip '" << options.chip
                       << "' (expected sm_80, sm_90, sm_90a, gfx90a or gfx942)";
  const std::pair<OptionRange, int64_t> ranges[] = {
      {kGPUThreadsPerRowRange, options.threadsPerRow},
      {kGPURowsPerBlockRange, options.rowsPerBlock},
      {kGPUVectorWidthRange, options.vectorWidth},
      {kGPUCachedVectorsRange, options.cachedVectors},
      {kGPUUnrollRange, options.unroll},
      {kGPUSplitsRange, options.splits},
      {{"attention-rows-per-warp", 16, 32, /*powerOfTwo=*/true,
        "the measured default"},
       options.attentionRowsPerWarp},
      {{"attention-buffers", 1, 3, false, "the measured default"},
       options.attentionBuffers},
      {{"attention-key-splits", 1, 1024, false, "the cost model's"},
       options.attentionKeySplits},
      {{"attention-stream-k", 1, 4096, false, "the mapping's choice"},
       options.attentionStreamK},
      {{"attention-packed-heads", 1, 1024, false, "the mapping's choice"},
       options.attentionPackedHeads},
      {{"cross-entropy-vocab-splits", 1, 4096, false, "the balance model's"},
       options.crossEntropyVocabSplits}};
  for (const auto &[range, value] : ranges)
    if (std::optional<std::string> why = range.check(value))
      return emitError() << *why;
  GPUMapping mapping;
  mapping.target = *target;
  mapping.hooks = &getGPUTargetHooks(target->vendor);
  mapping.softmax.threadsPerRow = options.threadsPerRow;
  mapping.softmax.rowsPerBlock = options.rowsPerBlock;
  mapping.softmax.vectorWidth = options.vectorWidth;
  mapping.softmax.cachedVectors = options.cachedVectors;
  mapping.softmax.unroll = options.unroll;
  mapping.softmax.splits = options.splits;
  if (failed(parseEnumOption("split-merge", options.splitMerge,
                             "global or cluster", mapping.softmax.splitMerge,
                             emitError)) ||
      failed(parseEnumOption("reread", options.reread, "forward or reverse",
                             mapping.softmax.reread, emitError)))
    return failure();
  mapping.attention.rowsPerWarp = options.attentionRowsPerWarp;
  mapping.attention.buffers = options.attentionBuffers;
  mapping.attention.keySplits = options.attentionKeySplits;
  mapping.attention.packedHeads = options.attentionPackedHeads;
  mapping.attention.streamK = options.attentionStreamK;
  mapping.crossEntropyVocabSplits = options.crossEntropyVocabSplits;
  std::optional<AttentionF32Precision> precision =
      parseAttentionF32Precision(options.attentionF32Precision);
  if (!precision)
    return emitError() << "attention-f32-precision must be exact or tf32, "
                          "not '"
                       << options.attentionF32Precision << "'";
  // Only the NVIDIA end has a tf32 path; on CDNA, f32 attention is
  // refused at the op, and asking for tf32 there is refused here.
  if (*precision == AttentionF32Precision::TF32 &&
      !mapping.hooks->hasF32Attention())
    return emitError() << "attention-f32-precision=tf32 needs NVIDIA tf32 "
                          "tensor cores (sm_80, sm_90), not "
                       << options.chip;
  mapping.attention.f32Precision = *precision;
  return mapping;
}

LogicalResult mlir::softmax::mapOpToGPU(RewriterBase &rewriter, Operation *op,
                                        const GPUMapping &mapping) {
  const GPUTargetHooks &hooks =
      mapping.hooks ? *mapping.hooks : getGPUTargetHooks(mapping.target.vendor);
  if (auto func = op->getParentOfType<FunctionOpInterface>())
    if (failed(hooks.checkKernelName(op, func.getName())))
      return failure();
  if (auto attention = dyn_cast<AttentionOp>(op))
    return mapAttentionOpToGPU(rewriter, attention, mapping.target, hooks,
                               mapping.attention);
  if (auto topk = dyn_cast<TopKOp>(op))
    return mapTopKOpToGPU(rewriter, topk, mapping.target);
  if (auto grad = dyn_cast<LinearCrossEntropyGradOp>(op))
    return mapLinearCrossEntropyGradOpToGPU(rewriter, grad, mapping.target,
                                            hooks);
  if (auto ce = dyn_cast<LinearCrossEntropyOp>(op))
    return mapLinearCrossEntropyOpToGPU(rewriter, ce, mapping.target, hooks,
                                        mapping.crossEntropyVocabSplits);
  return mapSoftmaxOpToGPU(rewriter, op, mapping.target, hooks,
                           mapping.softmax);
}

void mlir::softmax::populateSoftmaxToGPUPatterns(RewritePatternSet &patterns,
                                                 const GPUMapping &mapping) {
  addMapSemanticOpPatterns<GPUMapping, mapOpToGPU>(patterns, mapping);
}

namespace {
struct SoftmaxMapToGPUPass
    : public softmax::impl::SoftmaxMapToGPUBase<SoftmaxMapToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    SoftmaxMapToGPUOptions options;
    options.chip = chip;
    options.threadsPerRow = threadsPerRow;
    options.rowsPerBlock = rowsPerBlock;
    options.vectorWidth = vectorWidth;
    options.cachedVectors = cachedVectors;
    options.unroll = unroll;
    options.splits = splits;
    options.splitMerge = splitMerge;
    options.reread = reread;
    options.attentionRowsPerWarp = attentionRowsPerWarp;
    options.attentionBuffers = attentionBuffers;
    options.attentionKeySplits = attentionKeySplits;
    options.attentionPackedHeads = attentionPackedHeads;
    options.attentionStreamK = attentionStreamK;
    options.crossEntropyVocabSplits = crossEntropyVocabSplits;
    options.attentionF32Precision = attentionF32Precision;
    FailureOr<GPUMapping> mapping =
        getGPUMappingFromOptions(options, [&]() -> InFlightDiagnostic {
          InFlightDiagnostic diag = getOperation()->emitError();
          diag << "softmax-map-to-gpu: ";
          return diag;
        });
    if (failed(mapping))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateSoftmaxToGPUPatterns(patterns, *mapping);
    if (failed(applyMappingPatterns(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
