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
  if (options.vectorWidth < 0 || options.unroll < 0 || options.block < 0 ||
      options.l1Bytes < 0 || options.l2Bytes < 0)
    return emitError() << "vector-width, unroll, block, l1-bytes and "
                          "l2-bytes must be positive or 0 (the heuristic's "
                          "or the host's choice)";
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
