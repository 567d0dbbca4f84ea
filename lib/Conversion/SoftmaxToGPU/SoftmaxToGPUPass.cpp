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

namespace {
struct SoftmaxMapToGPUPass
    : public softmax::impl::SoftmaxMapToGPUBase<SoftmaxMapToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<GPUTarget> target = lookupGPUTarget(chip);
    if (!target) {
      getOperation()->emitError()
          << "softmax-map-to-gpu: unknown chip '" << chip
          << "' (expected sm_80, sm_90, gfx90a or gfx942)";
      return signalPassFailure();
    }
    GPUStrategy overrides;
    overrides.threadsPerRow = threadsPerRow;
    overrides.rowsPerBlock = rowsPerBlock;
    overrides.vectorWidth = vectorWidth;
    overrides.cachedVectors = cachedVectors;
    overrides.splits = splits;
    AttentionGPUStrategy attention;
    attention.rowsPerWarp = attentionRowsPerWarp;
    attention.buffers = attentionBuffers;
    std::optional<AttentionF32Precision> precision =
        parseAttentionF32Precision(attentionF32Precision);
    if (!precision) {
      getOperation()->emitError()
          << "softmax-map-to-gpu: attention-f32-precision must be exact or "
             "tf32, not '"
          << attentionF32Precision << "'";
      return signalPassFailure();
    }
    // Only the NVIDIA end has a tf32 path; on CDNA, f32 attention is
    // refused at the op, and asking for tf32 there is refused here.
    if (*precision == AttentionF32Precision::TF32 &&
        !StringRef(target->chip).starts_with("sm_")) {
      getOperation()->emitError()
          << "softmax-map-to-gpu: attention-f32-precision=tf32 needs NVIDIA "
             "tf32 tensor cores (sm_80, sm_90), not "
          << chip;
      return signalPassFailure();
    }
    attention.f32Precision = *precision;
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp, AttentionOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      LogicalResult mapped =
          isa<AttentionOp>(op)
              ? mapAttentionOpToGPU(rewriter, cast<AttentionOp>(op), *target,
                                    attention)
              : mapSoftmaxOpToGPU(rewriter, op, *target, overrides);
      if (failed(mapped))
        return signalPassFailure();
    }
  }
};
} // namespace
