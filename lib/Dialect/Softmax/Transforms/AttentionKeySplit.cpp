//===- AttentionKeySplit.cpp - split-KV: partial attentions, then merge ---===//
//
// FlashDecoding's split of the keys, as IR: each split of the keys is an
// attention op of its own that yields its normalized output O_s and its
// log-sum-exp L_s; (L_s, l_s) is the split's state (l_s = 1, or 0 for a row
// that saw no key), O_s its accumulator, and softmax.merge folds the splits
// into one state from which the decomposition's normalization writes the
// op's results. A target maps every partial attention with its own kernel
// (more blocks for a decode step of few query rows) and the merges as state
// ops.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/AttentionDecompose.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"
#include "softmax-mlir/Dialect/Softmax/Utils/OptionRange.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXSPLITATTENTIONKEYS
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

int64_t mlir::softmax::chooseKeySplits(int64_t blocks, int64_t keys,
                                       const AttentionKeySplitModel &model) {
  // Blocks that fill the units still split when their last wave would
  // leave units idle: B 64 H 32 Hkv 8 decode (512 packed blocks over 396
  // resident ones on the H200, 1.29 waves) reads its cache at 3263 GB/s
  // unsplit and 3842 in 2 splits
  // (bench/results/decode/history-run1-gpu_ragged.md).
  if (model.parallelUnits < 1 || model.minKeysPerSplit < 1 || blocks <= 0)
    return 1;
  int64_t most =
      std::clamp<int64_t>(keys / model.minKeysPerSplit, 1, model.maxSplits);
  // The share of the last wave's units that have work, for `s` splits.
  auto efficiency = [&](int64_t s) {
    double waves = double(blocks * s) / double(model.parallelUnits);
    return waves / std::ceil(waves);
  };
  double best = 0;
  for (int64_t s = 1; s <= most; ++s)
    best = std::max(best, efficiency(s));
  for (int64_t s = 1; s <= most; ++s)
    if (efficiency(s) >= 0.85 * best)
      return s;
  return most;
}

int64_t
mlir::softmax::chooseAttentionKeySplits(AttentionOp op,
                                        const AttentionKeySplitModel &model) {
  auto q = cast<ShapedType>(op.getQuery().getType());
  auto k = cast<ShapedType>(op.getKey().getType());
  if (!q.hasStaticShape() || k.isDynamicDim(2) || model.rowsPerBlock < 1)
    return 1;
  int64_t blocks = q.getDimSize(0) * q.getDimSize(1) *
                   llvm::divideCeil(q.getDimSize(2), model.rowsPerBlock);
  return chooseKeySplits(blocks, k.getDimSize(2), model);
}

std::pair<OpFoldResult, OpFoldResult> mlir::softmax::getAttentionKeySplitRange(
    OpBuilder &b, Location loc, OpFoldResult keys, OpFoldResult queries,
    int64_t splits, bool causal, OpFoldResult split, int64_t granule) {
  MLIRContext *ctx = b.getContext();
  // Splits of `size` keys counted back from the last key, the first one
  // taking the remainder (possibly none). With causal, every split but the
  // last lies left of row 0's diagonal Nk - Nq when size >= Nq - 1, so
  // causal hides none of its keys, and the last split, which ends at Nk,
  // keeps the op's bottom-right alignment as its own.
  AffineExpr nk, nq;
  bindSymbols(ctx, nk, nq);
  auto whole = [&](AffineExpr e) {
    return granule > 1 ? e.ceilDiv(granule) * granule : e;
  };
  SmallVector<AffineExpr> sizeExprs = {whole(nk.ceilDiv(splits))};
  if (causal)
    sizeExprs.push_back(whole(nq - 1));
  OpFoldResult size = affine::makeComposedFoldedAffineMax(
      b, loc, AffineMap::get(0, 2, sizeExprs, ctx), {keys, queries});
  AffineExpr n, p;
  bindSymbols(ctx, n, p);
  // max(Nk - fromEnd * size, 0) for fromEnd = splits - split (the start)
  // and splits - 1 - split (the end). The product is affine when size or
  // split is a constant (the IR split's); in the GPU kernel, where both
  // are values, it is an index multiply.
  auto boundary = [&](int64_t fromEndOfLast) {
    OpFoldResult fromEnd = affine::makeComposedFoldedAffineApply(
        b, loc,
        AffineMap::get(0, 1, getAffineConstantExpr(fromEndOfLast, ctx) - n,
                       ctx),
        {split});
    std::optional<int64_t> cs = getConstantIntValue(size),
                           cf = getConstantIntValue(fromEnd);
    OpFoldResult product;
    if (cs && cf)
      product = b.getIndexAttr(*cs * *cf);
    else if (cs || cf)
      product = affine::makeComposedFoldedAffineApply(
          b, loc, AffineMap::get(0, 1, n * (cs ? *cs : *cf), ctx),
          {cs ? fromEnd : size});
    else
      product = arith::MulIOp::create(
                    b, loc, getValueOrCreateConstantIndexOp(b, loc, size),
                    getValueOrCreateConstantIndexOp(b, loc, fromEnd))
                    .getResult();
    return affine::makeComposedFoldedAffineMax(
        b, loc,
        AffineMap::get(0, 2, {n - p, getAffineConstantExpr(0, ctx)}, ctx),
        {keys, product});
  };
  return {boundary(splits), boundary(splits - 1)};
}

/// Why `op` cannot be split along its keys, or std::nullopt.
static std::optional<std::string> whyNotSplittable(AttentionOp op) {
  if (!op.hasPureTensorSemantics())
    return "split along the keys needs tensors (run it before bufferization)";
  if (op.getWindow())
    return "split along the keys of a windowed attention is not supported: "
           "a split's window would depend on its keys' global positions";
  if (op.isPaged() && cast<ShapedType>(op.getKey().getType()).isDynamicDim(1))
    return std::string(
        "split along the keys of a paged attention needs a static page size "
        "(each split takes whole pages: columns of the page table)");
  if (std::optional<std::string> why = whyAttentionNotDecomposable(op))
    return why;
  // A ragged entry's diagonal sits at i + L_b - Nq, wherever L_b falls. A
  // partial keeps the causal rule through its own length L_b - start; for
  // one query row that rule is j < L_b, exact in every split. With more
  // rows, a split that ends before L_b would hide its last keys from the
  // first rows, and where the diagonal crosses depends on each L_b.
  if (op.hasKeyLengths() && op.getCausal()) {
    std::optional<int64_t> nq = getStaticAttentionSize(op, AttentionDim::Nq);
    if (nq != 1)
      return "split along the keys of a causal attention with key_lengths "
             "needs one query row (got " +
             (nq ? std::to_string(*nq) : std::string("a dynamic count")) +
             "): each sequence's diagonal falls in a different split";
  }
  return std::nullopt;
}

/// The key counts of the split [start, start + length) of a ragged op:
/// clamp(L_b) - start, clamped to [0, length], as i32 [B].
static Value splitKeyLengths(OpBuilder &b, Location loc, AttentionOp op,
                             OpFoldResult keys, OpFoldResult start,
                             OpFoldResult length) {
  Value lengths = op.getKeyLengths();
  auto type = cast<RankedTensorType>(lengths.getType());
  Value nk = getValueOrCreateConstantIndexOp(b, loc, keys);
  Value first = getValueOrCreateConstantIndexOp(b, loc, start);
  Value size = getValueOrCreateConstantIndexOp(b, loc, length);
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, lengths), type.getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, b.getContext());
  return linalg::GenericOp::create(
             b, loc, type, lengths, init, ArrayRef<AffineMap>{id, id},
             utils::IteratorType::parallel,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value rest = arith::SubIOp::create(
                   nb, l, clampKeyLength(nb, l, args[0], nk), first);
               Value own = arith::MaxSIOp::create(
                   nb, l, arith::MinSIOp::create(nb, l, rest, size),
                   arith::ConstantIndexOp::create(nb, l, 0));
               linalg::YieldOp::create(
                   nb, l,
                   arith::IndexCastOp::create(nb, l, type.getElementType(), own)
                       .getResult());
             })
      .getResult(0);
}

FailureOr<SmallVector<AttentionOp>>
mlir::softmax::splitAttentionAlongKeys(RewriterBase &rewriter, AttentionOp op,
                                       int64_t splits) {
  if (splits < 1)
    return op.emitOpError()
           << "key split count must be at least 1, got " << splits;
  if (splits == 1)
    return SmallVector<AttentionOp>{op};
  if (std::optional<std::string> why = whyNotSplittable(op))
    return op.emitOpError(*why);
  // A paged op splits its page table's columns: whole pages per split.
  int64_t pageSize =
      op.isPaged() ? cast<ShapedType>(op.getKey().getType()).getDimSize(1) : 1;
  if (std::optional<int64_t> nk = getStaticAttentionSize(op, AttentionDim::Nk))
    splits = std::min<int64_t>(
        splits, std::max<int64_t>(llvm::divideCeil(*nk, pageSize), 1));
  if (splits == 1)
    return SmallVector<AttentionOp>{op};

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  FloatType f32 = rewriter.getF32Type();
  OpFoldResult keys = getAttentionSize(rewriter, op, AttentionDim::Nk);
  OpFoldResult queries = tensor::getMixedSize(rewriter, loc, op.getQuery(), 2);

  SmallVector<OpFoldResult> outSizes =
      tensor::getMixedSizes(rewriter, loc, op.getOutput());
  SmallVector<OpFoldResult> stateSizes(outSizes.begin(), outSizes.end() - 1);
  // The state (m_s, l_s) of a split's lse, elementwise over [B, H, Nq].
  auto stateOfLse = [&](Value lse) -> std::pair<Value, Value> {
    auto type = cast<RankedTensorType>(lse.getType());
    // One init each: a shared one would bufferize to one buffer and a copy.
    Value maxInit = tensor::EmptyOp::create(rewriter, loc, stateSizes, f32);
    Value sumInit = tensor::EmptyOp::create(rewriter, loc, stateSizes, f32);
    AffineMap id = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, type}, lse, ValueRange{maxInit, sumInit},
        ArrayRef<AffineMap>{id, id, id},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          StateMath sm(nb, l, f32);
          auto [max, sum] = sm.stateOfLse(args[0]);
          linalg::YieldOp::create(nb, l, ValueRange{max, sum});
        });
    return {generic.getResult(0), generic.getResult(1)};
  };

  // A threshold travels to every partial as lambda itself: the
  // scale_factor form's lambda = a / Nk counts all the op's keys, not a
  // split's. Each split folds its key tiles from its own first key, and its
  // first tile is never skipped.
  AttentionDecomposer pieces(rewriter, op);
  Value lambda;
  SkipThresholdKindAttr lambdaKind;
  DenseI64ArrayAttr skipTile;
  if (op.hasSkipThreshold()) {
    lambda = *op.getThresholdKind() == SkipThresholdKind::ScaleFactor
                 ? pieces.lambdas()
                 : op.getThreshold();
    lambdaKind = SkipThresholdKindAttr::get(ctx, SkipThresholdKind::Lambda);
    skipTile = op.getSkipTileAttr();
  }
  bool count = static_cast<bool>(op.getSkipCounts());
  Value live, skipped;

  float scale = *op.getScaleOrDefault();
  SmallVector<AttentionOp> parts;
  Value m, l, acc;
  for (int64_t s = 0; s < splits; ++s) {
    auto [start, end] = getAttentionKeySplitRange(
        rewriter, loc, keys, queries, splits, op.getCausal(),
        rewriter.getIndexAttr(s), pageSize);
    AffineExpr e, st;
    bindSymbols(ctx, e, st);
    OpFoldResult length = affine::makeComposedFoldedAffineApply(
        rewriter, loc, e - st, {end, start});
    Value key = op.getKey(), value = op.getValue(), table;
    if (op.isPaged()) {
      // Pages [start / ps, end / ps) of each entry: the split's own table
      // over the whole caches.
      auto pages = [&](OpFoldResult v) {
        return affine::makeComposedFoldedAffineApply(rewriter, loc,
                                                     e.floorDiv(pageSize), {v});
      };
      table = sliceAlong(rewriter, loc, op.getPageTable(), 1, pages(start),
                         pages(length));
    } else {
      key = sliceAlong(rewriter, loc, key, 2, start, length);
      value = sliceAlong(rewriter, loc, value, 2, start, length);
    }
    Value mask = op.getMask()
                     ? sliceAlong(rewriter, loc, op.getMask(), 3, start, length)
                     : Value();
    Value lengths = op.hasKeyLengths() ? splitKeyLengths(rewriter, loc, op,
                                                         keys, start, length)
                                       : Value();
    Value partOut = tensor::EmptyOp::create(rewriter, loc, outSizes, f32);
    Value partLse = tensor::EmptyOp::create(rewriter, loc, stateSizes, f32);
    Value partCounts;
    SmallVector<Type> types = {partOut.getType(), partLse.getType()};
    if (count) {
      partCounts = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{2},
                                           rewriter.getI64Type());
      types.push_back(partCounts.getType());
    }
    // Only the last split meets a dense op's diagonal; each ragged one
    // keeps it for its own length (whyNotSplittable).
    bool causal = op.getCausal() && (s == splits - 1 || lengths);
    auto part = AttentionOp::create(
        rewriter, loc, types, op.getQuery(), key, value, mask, lambda, lengths,
        table, partOut, partLse, partCounts, MaskedRows::Zero,
        rewriter.getF32FloatAttr(scale), causal, /*window=*/IntegerAttr(),
        lambdaKind, skipTile, op.getUnifiedMaxAttr());
    // The attributes a target reads (strategy requests) travel with it.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      part->setAttr(attr.getName(), attr.getValue());
    parts.push_back(part);
    if (count) {
      // Live and skipped pairs add up over the splits.
      Value c = part.getResult(2);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value partLive = tensor::ExtractOp::create(rewriter, loc, c, zero);
      Value partSkipped = tensor::ExtractOp::create(rewriter, loc, c, one);
      live = live ? arith::AddIOp::create(rewriter, loc, live, partLive)
                  : partLive;
      skipped = skipped
                    ? arith::AddIOp::create(rewriter, loc, skipped, partSkipped)
                    : partSkipped;
    }
    auto [partM, partL] = stateOfLse(part.getResult(1));
    Value partAcc = part.getResult(0);
    if (s == 0) {
      m = partM;
      l = partL;
      acc = partAcc;
      continue;
    }
    auto merge =
        MergeOp::create(rewriter, loc, m.getType(), l.getType(), acc.getType(),
                        m, l, partM, partL, acc, partAcc, StateKind::Max);
    m = merge.getMax();
    l = merge.getSum();
    acc = merge.getAcc();
  }
  SmallVector<Value> results = pieces.finish(m, l, acc);
  if (count)
    results.push_back(tensor::FromElementsOp::create(
        rewriter, loc, op.getSkipCounts().getType(),
        ValueRange{live, skipped}));
  rewriter.replaceOp(op, results);
  return parts;
}

namespace {
struct SoftmaxSplitAttentionKeysPass
    : public softmax::impl::SoftmaxSplitAttentionKeysBase<
          SoftmaxSplitAttentionKeysPass> {
  using Base::Base;
  void runOnOperation() override {
    const std::pair<OptionRange, int64_t> ranges[] = {
        {{"splits", 1, 1024, false, "the cost model's"}, splits},
        {{"parallel-units", 1, 65536}, parallelUnits},
        {{"rows-per-block", 1, 1024}, rowsPerBlock},
        {{"min-keys-per-split", 1, int64_t(1) << 30}, minKeysPerSplit}};
    for (const auto &[range, value] : ranges)
      if (std::optional<std::string> why = range.check(value)) {
        getOperation()->emitError("softmax-split-attention-keys: ") << *why;
        return signalPassFailure();
      }
    AttentionKeySplitModel model;
    model.parallelUnits = parallelUnits;
    model.rowsPerBlock = rowsPerBlock;
    model.minKeysPerSplit = minKeysPerSplit;
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops) {
      int64_t count = splits ? splits : chooseAttentionKeySplits(op, model);
      if (failed(splitAttentionAlongKeys(rewriter, op, count)))
        return signalPassFailure();
    }
  }
};
} // namespace
