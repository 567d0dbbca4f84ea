//===- SoftmaxToCPUPass.cpp - the softmax-map-to-cpu pass ----------------===//

#include "softmax-mlir/Conversion/MappingPatterns.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXMAPTOCPU
#include "softmax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

FailureOr<CPUMapping> mlir::softmax::getCPUMappingFromOptions(
    const SoftmaxMapToCPUOptions &options,
    function_ref<InFlightDiagnostic()> emitError) {
  std::optional<ThreePassVariant> variant =
      llvm::StringSwitch<std::optional<ThreePassVariant>>(options.threePass)
          .Case("auto", ThreePassVariant::Auto)
          .Case("recompute", ThreePassVariant::Recompute)
          .Case("reload", ThreePassVariant::Reload)
          .Case("tiled", ThreePassVariant::Tiled)
          .Default(std::nullopt);
  if (!variant)
    return emitError() << "three-pass must be auto, recompute, reload or "
                          "tiled, not '"
                       << options.threePass << "'";
  OptionRange l1 = kCPUCacheBytesRange, l2 = kCPUCacheBytesRange;
  l1.name = "l1-bytes";
  l2.name = "l2-bytes";
  const std::pair<OptionRange, int64_t> ranges[] = {
      {kCPUVectorWidthRange, options.vectorWidth},
      {kCPUUnrollRange, options.unroll},
      {kCPUBlockRange, options.block},
      {l1, options.l1Bytes},
      {l2, options.l2Bytes}};
  for (const auto &[range, value] : ranges)
    if (std::optional<std::string> why = range.check(value))
      return emitError() << *why;
  if (options.exp != "fast" && options.exp != "polynomial")
    return emitError() << "exp must be fast or polynomial, not '"
                       << options.exp << "'";
  CPUMapping mapping;
  mapping.overrides.exp =
      options.exp == "fast" ? VectorExp::Fast : VectorExp::Polynomial;
  mapping.overrides.vectorWidth = options.vectorWidth;
  mapping.overrides.unroll = options.unroll;
  mapping.overrides.block = options.block;
  mapping.overrides.threePass = *variant;
  mapping.target = hostCPUTarget();
  if (options.l1Bytes)
    mapping.target.l1Bytes = options.l1Bytes;
  if (options.l2Bytes)
    mapping.target.l2Bytes = options.l2Bytes;
  return mapping;
}

LogicalResult mlir::softmax::mapOpToCPU(RewriterBase &rewriter, Operation *op,
                                        const CPUMapping &mapping) {
  if (auto attention = dyn_cast<AttentionOp>(op))
    return mapAttentionOpToCPU(rewriter, attention, mapping.target,
                               mapping.overrides);
  if (auto topk = dyn_cast<TopKOp>(op))
    return mapTopKOpToCPU(rewriter, topk, mapping.target, mapping.overrides);
  if (isa<LinearCrossEntropyOp, LinearCrossEntropyGradOp>(op))
    return op->emitOpError(
        "has no CPU kernel: decompose it on tensors (softmax-decompose, as "
        "softmax-to-cpu does)");
  return mapSoftmaxOpToCPU(rewriter, op, mapping.target, mapping.overrides);
}

void mlir::softmax::populateSoftmaxToCPUPatterns(RewritePatternSet &patterns,
                                                 const CPUMapping &mapping) {
  addMapSemanticOpPatterns<CPUMapping, mapOpToCPU>(patterns, mapping);
}

namespace {
struct SoftmaxMapToCPUPass
    : public softmax::impl::SoftmaxMapToCPUBase<SoftmaxMapToCPUPass> {
  using Base::Base;

  void runOnOperation() override {
    SoftmaxMapToCPUOptions options;
    options.vectorWidth = vectorWidth;
    options.unroll = unroll;
    options.block = block;
    options.threePass = threePass;
    options.l1Bytes = l1Bytes;
    options.l2Bytes = l2Bytes;
    options.exp = exp;
    FailureOr<CPUMapping> mapping =
        getCPUMappingFromOptions(options, [&]() -> InFlightDiagnostic {
          InFlightDiagnostic diag = getOperation()->emitError();
          diag << "softmax-map-to-cpu: ";
          return diag;
        });
    if (failed(mapping))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateSoftmaxToCPUPatterns(patterns, *mapping);
    if (failed(applyMappingPatterns(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
