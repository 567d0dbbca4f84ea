//===- SoftmaxToGPUPass.cpp - the softmax-map-to-gpu pass ----------------===//

#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXMAPTOGPU
#include "softmax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

FailureOr<GPUMapping> mlir::softmax::getGPUMappingFromOptions(
    const SoftmaxMapToGPUOptions &options,
    function_ref<InFlightDiagnostic()> emitError) {
  std::optional<GPUTarget> target = lookupGPUTarget(options.chip);
  if (!target)
    return emitError() << "unknown chip '" << options.chip
                       << "' (expected sm_80, sm_90, gfx90a or gfx942)";
  GPUMapping mapping;
  mapping.target = *target;
  mapping.softmax.threadsPerRow = options.threadsPerRow;
  mapping.softmax.rowsPerBlock = options.rowsPerBlock;
  mapping.softmax.vectorWidth = options.vectorWidth;
  mapping.softmax.cachedVectors = options.cachedVectors;
  mapping.softmax.splits = options.splits;
  mapping.attention.rowsPerWarp = options.attentionRowsPerWarp;
  mapping.attention.buffers = options.attentionBuffers;
  std::optional<AttentionF32Precision> precision =
      parseAttentionF32Precision(options.attentionF32Precision);
  if (!precision)
    return emitError() << "attention-f32-precision must be exact or tf32, "
                          "not '"
                       << options.attentionF32Precision << "'";
  // Only the NVIDIA end has a tf32 path; on CDNA, f32 attention is
  // refused at the op, and asking for tf32 there is refused here.
  if (*precision == AttentionF32Precision::TF32 &&
      !StringRef(target->chip).starts_with("sm_"))
    return emitError() << "attention-f32-precision=tf32 needs NVIDIA tf32 "
                          "tensor cores (sm_80, sm_90), not "
                       << options.chip;
  mapping.attention.f32Precision = *precision;
  return mapping;
}

LogicalResult mlir::softmax::mapOpToGPU(RewriterBase &rewriter, Operation *op,
                                        const GPUMapping &mapping) {
  if (auto attention = dyn_cast<AttentionOp>(op))
    return mapAttentionOpToGPU(rewriter, attention, mapping.target,
                               mapping.attention);
  return mapSoftmaxOpToGPU(rewriter, op, mapping.target, mapping.softmax);
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
    options.splits = splits;
    options.attentionRowsPerWarp = attentionRowsPerWarp;
    options.attentionBuffers = attentionBuffers;
    options.attentionF32Precision = attentionF32Precision;
    FailureOr<GPUMapping> mapping =
        getGPUMappingFromOptions(options, [&]() -> InFlightDiagnostic {
          InFlightDiagnostic diag = getOperation()->emitError();
          diag << "softmax-map-to-gpu: ";
          return diag;
        });
    if (failed(mapping))
      return signalPassFailure();
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp, AttentionOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops)
      if (failed(mapOpToGPU(rewriter, op, *mapping)))
        return signalPassFailure();
  }
};
} // namespace
