//===- MappingPatterns.h - the CPU and GPU mappings as patterns -*- C++ -*-===//
//
// softmax-map-to-cpu and softmax-map-to-gpu expose their per-op mappings
// (mapOpToCPU, mapOpToGPU) as one rewrite pattern per semantic op, applied
// in a single walk: a refused op gets its diagnostic once (the greedy driver
// would retry it) and stays in place.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_CONVERSION_MAPPINGPATTERNS_H
#define SOFTMAX_MLIR_CONVERSION_MAPPINGPATTERNS_H

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::softmax {

/// `OpTy` -> what `Map(rewriter, op, mapping)` builds; `mapping` must
/// outlive the pattern.
template <typename OpTy, typename MappingT,
          LogicalResult (*Map)(RewriterBase &, Operation *, const MappingT &)>
struct MapSemanticOpPattern : public OpRewritePattern<OpTy> {
  MapSemanticOpPattern(MLIRContext *ctx, const MappingT &mapping)
      : OpRewritePattern<OpTy>(ctx), mapping(mapping) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    return Map(rewriter, op, mapping);
  }
  const MappingT &mapping;
};

/// The patterns of softmax, log_softmax, logsumexp, attention, topk,
/// linear_cross_entropy and linear_cross_entropy_grad for `Map`.
template <typename MappingT,
          LogicalResult (*Map)(RewriterBase &, Operation *, const MappingT &)>
void addMapSemanticOpPatterns(RewritePatternSet &patterns,
                              const MappingT &mapping) {
  patterns.add<MapSemanticOpPattern<SoftmaxOp, MappingT, Map>,
               MapSemanticOpPattern<LogSoftmaxOp, MappingT, Map>,
               MapSemanticOpPattern<LogSumExpOp, MappingT, Map>,
               MapSemanticOpPattern<AttentionOp, MappingT, Map>,
               MapSemanticOpPattern<TopKOp, MappingT, Map>,
               MapSemanticOpPattern<LinearCrossEntropyOp, MappingT, Map>,
               MapSemanticOpPattern<LinearCrossEntropyGradOp, MappingT, Map>>(
      patterns.getContext(), mapping);
}

/// Applies mapping patterns to `root` in one walk; fails when a semantic op
/// is left (its pattern has emitted why).
inline LogicalResult applyMappingPatterns(Operation *root,
                                          RewritePatternSet &&patterns) {
  walkAndApplyPatterns(root, std::move(patterns));
  WalkResult left = root->walk([](Operation *op) {
    return isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp, AttentionOp, TopKOp,
               LinearCrossEntropyOp, LinearCrossEntropyGradOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_CONVERSION_MAPPINGPATTERNS_H
