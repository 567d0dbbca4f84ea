//===- SoftmaxToCPUPass.cpp - the softmax-map-to-cpu pass ----------------===//

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

namespace {
struct SoftmaxMapToCPUPass
    : public softmax::impl::SoftmaxMapToCPUBase<SoftmaxMapToCPUPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<ThreePassVariant> variant =
        llvm::StringSwitch<std::optional<ThreePassVariant>>(threePass)
            .Case("auto", ThreePassVariant::Auto)
            .Case("recompute", ThreePassVariant::Recompute)
            .Case("reload", ThreePassVariant::Reload)
            .Case("tiled", ThreePassVariant::Tiled)
            .Default(std::nullopt);
    if (!variant) {
      getOperation()->emitError()
          << "softmax-map-to-cpu: three-pass must be auto, recompute, "
             "reload or tiled, not '"
          << threePass << "'";
      return signalPassFailure();
    }
    if (vectorWidth < 0 || unroll < 0 || block < 0 || l1Bytes < 0 ||
        l2Bytes < 0) {
      getOperation()->emitError()
          << "softmax-map-to-cpu: vector-width, unroll, block, l1-bytes and "
             "l2-bytes must be positive or 0 (the heuristic's or the host's "
             "choice)";
      return signalPassFailure();
    }
    if (exp != "fast" && exp != "polynomial") {
      getOperation()->emitError()
          << "softmax-map-to-cpu: exp must be fast or polynomial, not '" << exp
          << "'";
      return signalPassFailure();
    }
    CPUStrategy overrides;
    overrides.exp = exp == "fast" ? VectorExp::Fast : VectorExp::Polynomial;
    overrides.vectorWidth = vectorWidth;
    overrides.unroll = unroll;
    overrides.block = block;
    overrides.threePass = *variant;
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp, AttentionOp>(op))
        ops.push_back(op);
    });
    CPUTarget target = hostCPUTarget();
    if (l1Bytes)
      target.l1Bytes = l1Bytes;
    if (l2Bytes)
      target.l2Bytes = l2Bytes;
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      LogicalResult mapped =
          isa<AttentionOp>(op)
              ? mapAttentionOpToCPU(rewriter, cast<AttentionOp>(op), target,
                                    overrides)
              : mapSoftmaxOpToCPU(rewriter, op, target, overrides);
      if (failed(mapped))
        return signalPassFailure();
    }
  }
};
} // namespace
