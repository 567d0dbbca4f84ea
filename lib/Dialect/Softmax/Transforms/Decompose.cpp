//===- Decompose.cpp - semantic ops -> state ops -> linalg ---------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/AttentionDecompose.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXDECOMPOSE
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// Expands a semantic op into its state ops through AggregatedOpInterface,
/// so that the pass and `transform.structured.decompose_interface` share one
/// implementation.
template <typename OpTy>
struct ExpandSemanticOp : public OpRewritePattern<OpTy> {
  ExpandSemanticOp(MLIRContext *ctx, CostModelTarget autoTarget,
                   std::function<bool(Operation *)> filter)
      : OpRewritePattern<OpTy>(ctx), autoTarget(autoTarget),
        filter(std::move(filter)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(op.getInput().getType()))
      return rewriter.notifyMatchFailure(op, "expects tensors");
    if (filter && !filter(op))
      return rewriter.notifyMatchFailure(op, "rejected by the filter");
    auto semantic = cast<SemanticOpInterface>(op.getOperation());
    if (semantic.getAlgorithm() == Algorithm::Auto) {
      Algorithm alg = selectAlgorithm(semantic, autoTarget);
      rewriter.modifyOpInPlace(op, [&] { semantic.setAlgorithm(alg); });
    }
    FailureOr<SmallVector<Value>> repl = op.decomposeOperation(rewriter);
    if (failed(repl))
      return rewriter.notifyMatchFailure(op, "decomposition failed");
    rewriter.replaceOp(op, *repl);
    return success();
  }

  CostModelTarget autoTarget;
  std::function<bool(Operation *)> filter;
};
} // namespace

void mlir::softmax::populateSoftmaxExpandPatterns(
    RewritePatternSet &patterns, CostModelTarget autoTarget,
    std::function<bool(Operation *)> filter) {
  patterns.add<ExpandSemanticOp<SoftmaxOp>, ExpandSemanticOp<LogSoftmaxOp>,
               ExpandSemanticOp<LogSumExpOp>>(patterns.getContext(),
                                              autoTarget, filter);
}

LogicalResult mlir::softmax::tileSoftmaxReductions(Operation *root,
                                                   int64_t tileSize) {
  SmallVector<TilingInterface> targets;
  SmallVector<int64_t> dims;
  root->walk([&](Operation *op) {
    if (auto partial = dyn_cast<PartialOp>(op))
      dims.push_back(partial.getDimension());
    else if (auto normalize = dyn_cast<NormalizeOp>(op))
      dims.push_back(normalize.getDimension());
    else
      return;
    targets.push_back(cast<TilingInterface>(op));
  });
  IRRewriter rewriter(root->getContext());
  for (auto [op, dim] : llvm::zip_equal(targets, dims)) {
    auto type = cast<ShapedType>(op->getOperand(0).getType());
    // An op over no element stays whole: tiling it has nothing to split, and
    // the tiled slices (offset 0 of a size-0 dimension) fail
    // tensor.extract_slice's bounds check.
    if (llvm::is_contained(type.getShape(), 0))
      continue;
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes(rank, rewriter.getIndexAttr(0));
    sizes[dim] = rewriter.getIndexAttr(tileSize);
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, op, options);
    if (failed(tiled))
      return op->emitOpError("failed to tile the reduction dimension by ")
             << tileSize;
    rewriter.replaceOp(op, tiled->replacements);
  }
  return success();
}

namespace {
struct SoftmaxDecomposePass
    : public softmax::impl::SoftmaxDecomposeBase<SoftmaxDecomposePass> {
  using Base::Base;
  SoftmaxDecomposePass(const SoftmaxDecomposeOptions &options,
                       std::function<bool(Operation *)> filter)
      : Base(options), filter(std::move(filter)) {}

  void runOnOperation() override {
    Operation *root = getOperation();
    if (reductionTileSize < 0) {
      root->emitError() << "softmax-decompose: reduction-tile-size must be "
                           "positive or 0, got "
                        << static_cast<int64_t>(reductionTileSize);
      return signalPassFailure();
    }
    std::optional<CostModelTarget> autoTarget =
        parseCostModelTarget(algorithmTarget);
    if (!autoTarget) {
      root->emitError() << "softmax-decompose: algorithm-target must be cpu "
                           "or gpu, not '"
                        << algorithmTarget << "'";
      return signalPassFailure();
    }
    if (attentionKeyTileSize < 0) {
      root->emitError() << "softmax-decompose: attention-key-tile-size must "
                           "be positive or 0, got "
                        << static_cast<int64_t>(attentionKeyTileSize);
      return signalPassFailure();
    }
    // An attention the decomposition cannot take says why, before anything
    // is rewritten; so does an op that asks for a mapping strategy, which
    // the linalg form has no use for (it was dropped without a word on the
    // f64, acc_type = f64 and vector-width=0 paths of softmax-to-cpu).
    bool undecomposable = false;
    root->walk([&](Operation *op) {
      if (!isa<SemanticOpInterface>(op) || (filter && !filter(op)))
        return;
      if (Attribute request =
              op->getAttr(SoftmaxDialect::getStrategyAttrName())) {
        op->emitOpError()
            << "asks for " << request
            << ", but it is decomposed to linalg, which takes no strategy "
               "(the vector and GPU mappings do: drop the request, or give "
               "the op a form they take)";
        undecomposable = true;
        return;
      }
      auto attention = dyn_cast<AttentionOp>(op);
      if (!attention)
        return;
      if (std::optional<std::string> why =
              whyAttentionNotDecomposable(attention)) {
        attention.emitOpError(*why);
        undecomposable = true;
        return;
      }
      if (attention.hasSkipThreshold() && attentionKeyTileSize > 0 &&
          static_cast<int64_t>(attentionKeyTileSize) !=
              attention.getSkipKeys()) {
        attention.emitOpError()
            << "attention-key-tile-size="
            << static_cast<int64_t>(attentionKeyTileSize)
            << " differs from the skip tile's " << attention.getSkipKeys()
            << " keys, by which a thresholded attention is folded";
        undecomposable = true;
      }
    });
    if (undecomposable)
      return signalPassFailure();
    RewritePatternSet expand(&getContext());
    populateSoftmaxExpandPatterns(expand, *autoTarget, filter);
    populateSoftmaxAttentionDecomposePatterns(expand, attentionKeyTileSize,
                                              filter);
    // No CPU mapping takes the fused cross-entropy yet: decomposed always.
    populateSoftmaxCrossEntropyDecomposePatterns(expand);
    populateSoftmaxTopKDecomposePatterns(expand, filter);
    if (failed(applyPatternsGreedily(root, std::move(expand))))
      return signalPassFailure();
    // Only ops on memrefs survive: their state would need buffers of its own.
    bool survived = false;
    root->walk([&](Operation *op) {
      if (!isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp>(op) ||
          !isa<MemRefType>(op->getOperand(0).getType()) ||
          (filter && !filter(op)))
        return;
      op->emitOpError("cannot be decomposed on memrefs; run "
                      "softmax-decompose before bufferization");
      survived = true;
    });
    if (survived)
      return signalPassFailure();
    if (reductionTileSize > 0 &&
        failed(tileSoftmaxReductions(root, reductionTileSize)))
      return signalPassFailure();
    // Tiling leaves full-size slices of the state; the slice folders drop
    // them so the loop reads its iter_args directly.
    RewritePatternSet lower(&getContext());
    tensor::ExtractSliceOp::getCanonicalizationPatterns(lower, &getContext());
    tensor::InsertSliceOp::getCanonicalizationPatterns(lower, &getContext());
    if (!toState)
      populateSoftmaxStateToLinalgPatterns(lower);
    if (failed(applyPatternsGreedily(root, std::move(lower))))
      return signalPassFailure();
  }

  std::function<bool(Operation *)> filter;
};
} // namespace

std::unique_ptr<Pass>
mlir::softmax::createSoftmaxDecompose(const SoftmaxDecomposeOptions &options,
                                      std::function<bool(Operation *)> filter) {
  return std::make_unique<SoftmaxDecomposePass>(options, std::move(filter));
}
