//===- AttentionKeyTiling.cpp - softmax.attention tiled along its keys ---===//
//
// The decomposition of AttentionDecompose.cpp with the keys split into
// tiles: each tile's scores get their own state (m_t, l_t) from the
// identity and their own weighted values O_t, and softmax.merge folds them
// into the running (m, l, O) that the loop carries. This is FlashAttention's
// outer loop in linalg and state ops; TilingInterface cannot express it, as
// its tiles of a reduction concatenate or accumulate results but never
// rescale them.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/AttentionDecompose.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

Value mlir::softmax::sliceAlong(OpBuilder &b, Location loc, Value source,
                                int64_t dim, OpFoldResult offset,
                                OpFoldResult size) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
  offsets[dim] = offset;
  sizes[dim] = size;
  return extractSliceOrEmpty(b, loc, source, offsets, sizes);
}

FailureOr<scf::ForOp> mlir::softmax::tileAttentionAlongKeys(
    RewriterBase &rewriter, AttentionOp op, int64_t keyTileSize) {
  if (keyTileSize < 1)
    return op.emitOpError() << "key tile size must be at least 1, got "
                            << keyTileSize;
  if (std::optional<std::string> why = whyAttentionNotDecomposable(op))
    return op.emitOpError(*why);
  // The skip rule is stated per key tile of the op's skip tile, so the
  // reference must fold exactly those tiles.
  bool skips = op.hasSkipThreshold();
  if (skips && keyTileSize != op.getSkipKeys())
    return op.emitOpError()
           << "key tile size " << keyTileSize
           << " differs from the skip tile's " << op.getSkipKeys() << " keys";
  if (op.isPaged()) {
    FailureOr<AttentionOp> dense = gatherAttentionPages(rewriter, op);
    if (failed(dense))
      return failure();
    op = *dense;
  }

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  AttentionDecomposer parts(rewriter, op);
  bool count = static_cast<bool>(op.getSkipCounts());
  Value logLambda;
  if (skips)
    logLambda = parts.logThreshold();
  OpFoldResult keys = parts.numKeys();
  std::optional<int64_t> staticKeys = getConstantIntValue(keys);
  Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value ub = getValueOrCreateConstantIndexOp(rewriter, loc, keys);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, keyTileSize);

  // The loop over key tiles, online or (atPhi) at the unified max, where
  // each tile's sum and weighted values add to the carried ones as they
  // are: every tile's terms are taken at the same offset phi.
  auto keyLoop = [&](bool atPhi) {
    OpBuilder::InsertionGuard loopGuard(rewriter);
    auto [m0, l0, acc0] = parts.identity();
    SmallVector<Value> init = {atPhi ? parts.unifiedOffset() : m0, l0, acc0};
    if (count) {
      // Live and skipped (query tile, key tile) pairs.
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getI64IntegerAttr(0));
      init.append({zero, zero});
    }
    auto loop = scf::ForOp::create(rewriter, loc, lb, ub, step, init);

    rewriter.setInsertionPointToStart(loop.getBody());
    Value k0 = loop.getInductionVar();
    ValueRange carried = loop.getRegionIterArgs();
    // The last tile is min(T, Nk - k0) keys; every tile is T keys when T
    // divides a static Nk.
    OpFoldResult tile = rewriter.getIndexAttr(keyTileSize);
    if (!staticKeys || *staticKeys % keyTileSize != 0) {
      AffineExpr iv, n;
      bindDims(rewriter.getContext(), iv);
      bindSymbols(rewriter.getContext(), n);
      AffineMap minMap = AffineMap::get(
          1, 1, {rewriter.getAffineConstantExpr(keyTileSize), n - iv},
          rewriter.getContext());
      tile =
          affine::makeComposedFoldedAffineMin(rewriter, loc, minMap, {k0, ub});
    }
    Value key = sliceAlong(rewriter, loc, op.getKey(), 2, k0, tile);
    Value value = sliceAlong(rewriter, loc, op.getValue(), 2, k0, tile);
    Value mask = op.getMask()
                     ? sliceAlong(rewriter, loc, op.getMask(), 3, k0, tile)
                     : Value();
    Value scores = parts.scores(key, mask, k0);
    if (atPhi) {
      auto add = [&](Value x, Value y) {
        return linalg::AddOp::create(rewriter, loc, ValueRange{x, y},
                                     ValueRange{x})
            .getResult(0);
      };
      Value tileSum = parts.unifiedSum(scores);
      Value tileAcc = parts.weightedValues(scores, carried[0], value);
      scf::YieldOp::create(rewriter, loc,
                           ValueRange{carried[0], add(carried[1], tileSum),
                                      add(carried[2], tileAcc)});
      return loop;
    }
    auto [tileMax, tileSum] = parts.state(scores);
    Value tileAcc = parts.weightedValues(scores, tileMax, value);
    // (m, l, O) merged with (m_t, l_t, O_t): both offsets are finite (at
    // least -FLT_MAX), so a tile that sees no key has l_t = O_t = 0 and
    // leaves the running state as it is.
    auto merge = MergeOp::create(rewriter, loc, carried[0].getType(),
                                 carried[1].getType(), carried[2].getType(),
                                 carried[0], carried[1], tileMax, tileSum,
                                 carried[2], tileAcc, StateKind::Max);
    SmallVector<Value> next(merge.getResults());
    if (skips) {
      // The reference computes a skipped tile and keeps the old state; a
      // kernel does not compute it at all.
      AttentionDecomposer::TileSkip decision =
          parts.skipDecision(tileMax, carried[0], logLambda, count);
      for (int i = 0; i < 3; ++i)
        next[i] = parts.keepSkipped(decision.skip, carried[i], next[i]);
      if (count) {
        next.push_back(
            arith::AddIOp::create(rewriter, loc, carried[3], decision.live));
        next.push_back(
            arith::AddIOp::create(rewriter, loc, carried[4], decision.skipped));
      }
    }
    scf::YieldOp::create(rewriter, loc, next);
    return loop;
  };

  scf::ForOp loop = keyLoop(op.hasUnifiedMax());
  SmallVector<Value> state(loop.getResults());
  if (op.hasUnifiedMax())
    state = parts.unifiedOrOnline(
        state[1], ValueRange(state).take_front(3), [&]() -> SmallVector<Value> {
          return SmallVector<Value>(keyLoop(false).getResults());
        });
  SmallVector<Value> results = parts.finish(state[0], state[1], state[2]);
  if (count)
    results.push_back(tensor::FromElementsOp::create(
        rewriter, loc, op.getSkipCounts().getType(),
        ValueRange{state[3], state[4]}));
  rewriter.replaceOp(op, results);
  return loop;
}

namespace {
/// softmax.attention -> its decomposition, or its key-tiled decomposition
/// with a key tile size.
struct DecomposeAttention : public OpRewritePattern<AttentionOp> {
  DecomposeAttention(MLIRContext *ctx, int64_t keyTileSize,
                     std::function<bool(Operation *)> filter)
      : OpRewritePattern<AttentionOp>(ctx), keyTileSize(keyTileSize),
        filter(std::move(filter)) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (std::optional<std::string> why = whyAttentionNotDecomposable(op))
      return rewriter.notifyMatchFailure(op, *why);
    if (filter && !filter(op))
      return rewriter.notifyMatchFailure(op, "rejected by the filter");
    // Paged keys and values are gathered first; the dense op that replaces
    // the paged one is decomposed on the next match.
    if (op.isPaged())
      return gatherAttentionPages(rewriter, op);
    // A thresholded op is folded by its own key tiles.
    if (keyTileSize > 0 || op.hasSkipThreshold())
      return tileAttentionAlongKeys(
          rewriter, op, keyTileSize > 0 ? keyTileSize : op.getSkipKeys());
    FailureOr<SmallVector<Value>> repl = decomposeAttention(rewriter, op);
    if (failed(repl))
      return failure();
    rewriter.replaceOp(op, *repl);
    return success();
  }

  int64_t keyTileSize;
  std::function<bool(Operation *)> filter;
};
} // namespace

void mlir::softmax::populateSoftmaxAttentionDecomposePatterns(
    RewritePatternSet &patterns, int64_t keyTileSize,
    std::function<bool(Operation *)> filter) {
  patterns.add<DecomposeAttention>(patterns.getContext(), keyTileSize,
                                   std::move(filter));
}
