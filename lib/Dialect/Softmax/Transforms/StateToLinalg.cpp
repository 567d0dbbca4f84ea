//===- StateToLinalg.cpp - state ops -> linalg.generic over arith/math ---===//
//
// One linalg.generic per reduction or elementwise step, so that upstream
// tiling, fusion, vectorization and bufferization apply unchanged.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {

AffineMap identityMap(MLIRContext *ctx, int64_t rank) {
  return AffineMap::getMultiDimIdentityMap(rank, ctx);
}

AffineMap stateMap(MLIRContext *ctx, int64_t rank, int64_t dim) {
  return identityMap(ctx, rank).dropResult(dim);
}

SmallVector<utils::IteratorType> iterators(int64_t rank,
                                           std::optional<int64_t> reduced) {
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  if (reduced)
    it[*reduced] = utils::IteratorType::reduction;
  return it;
}

FloatType elementFloat(Value v) {
  return cast<FloatType>(cast<ShapedType>(v.getType()).getElementType());
}

//===----------------------------------------------------------------------===//
// softmax.partial
//===----------------------------------------------------------------------===//

struct LowerPartial : public OpRewritePattern<PartialOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PartialOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t rank = op.getInput().getType().getRank();
    int64_t dim = op.getDimension();
    FloatType acc = elementFloat(op.getMaxInit());
    AffineMap full = identityMap(ctx, rank), state = stateMap(ctx, rank, dim);
    Type stateType = op.getMaxInit().getType();

    if (op.getAlgorithm() == Algorithm::ThreePass) {
      // M = max(m0, max x): one reduction seeded with the incoming max.
      Value newMax =
          linalg::GenericOp::create(
              rewriter, loc, stateType, op.getInput(), op.getMaxInit(),
              {full, state}, iterators(rank, dim),
              [&](OpBuilder &b, Location l, ValueRange args) {
                StateMath sm(b, l, acc);
                Value x = sm.toAcc(args[0]);
                StateFold fold(sm, FoldRule(StateKind::Max), {args[1]}, {x});
                linalg::YieldOp::create(b, l, fold.offset());
              })
              .getResult(0);
      // l0 s(m0 - M) and c0 s(m0 - M): the incoming sum and its
      // compensation moved to the new offset.
      AffineMap stateId = identityMap(ctx, rank - 1);
      auto rescaled = linalg::GenericOp::create(
          rewriter, loc, TypeRange{stateType, stateType},
          ValueRange{op.getMaxInit(), newMax},
          ValueRange{op.getSumInit(), op.getCompInit()},
          {stateId, stateId, stateId, stateId},
          iterators(rank - 1, std::nullopt),
          [&](OpBuilder &b, Location l, ValueRange args) {
            StateMath sm(b, l, acc);
            StateFold fold = StateFold::atOffset(sm, FoldRule(StateKind::Max),
                                                 args[0], args[1], {});
            Value sum = fold.rescaled(args[2]);
            Value comp = fold.rescaled(args[3]);
            linalg::YieldOp::create(b, l, ValueRange{sum, comp});
          });
      // + sum t(x, M): the second read of the row, compensated.
      auto sum = linalg::GenericOp::create(
          rewriter, loc, TypeRange{stateType, stateType},
          ValueRange{op.getInput(), newMax}, rescaled.getResults(),
          {full, state, state, state}, iterators(rank, dim),
          [&](OpBuilder &b, Location l, ValueRange args) {
            StateMath sm(b, l, acc);
            Value x = sm.toAcc(args[0]);
            StateFold fold = StateFold::atOffset(sm, FoldRule(StateKind::Max),
                                                 Value(), args[1], {x});
            auto [s, c] = fold.newSumCompensated(args[2], args[3]);
            linalg::YieldOp::create(b, l, ValueRange{s, c});
          });
      rewriter.replaceOp(op, {newMax, sum.getResult(0), sum.getResult(1)});
      return success();
    }

    // The compensation of the sum travels with it and is rescaled with it.
    // online: m' = max(m, x), l' = l exp(m - m') + exp(x - m'). exp_pair:
    // exp(x) = a 2^k, K' = max(K, k), A' = A 2^(K - K') + a 2^(k - K'); a
    // -inf element has no exponent and leaves the state as it was.
    FoldRule rule(op.getAlgorithm() == Algorithm::ExpPair ? StateKind::Exponent
                                                          : StateKind::Max);
    rule.pairs = true;
    rule.minusInf = MinusInf::KeepState;
    Value comp = op.getCompInit();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{stateType, stateType, stateType},
        op.getInput(), ValueRange{op.getMaxInit(), op.getSumInit(), comp},
        {full, state, state, state}, iterators(rank, dim),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          Value x = sm.toAcc(args[0]), m = args[1], s = args[2], c = args[3];
          StateFold fold(sm, rule, {m}, {x});
          Value mNew = fold.offset();
          auto [sNew, cNew] = fold.newSumCompensated(s, c);
          linalg::YieldOp::create(b, l,
                                  ValueRange{fold.unlessMinusInf(m, mNew),
                                             fold.unlessMinusInf(s, sNew),
                                             fold.unlessMinusInf(c, cNew)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// softmax.merge
//===----------------------------------------------------------------------===//

struct LowerMerge : public OpRewritePattern<MergeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MergeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto stateType = cast<RankedTensorType>(op.getLhsMax().getType());
    FloatType acc = cast<FloatType>(stateType.getElementType());
    int64_t rank = stateType.getRank();
    StateKind kind = op.getState();
    SmallVector<Value> states = {op.getLhsMax(), op.getLhsSum(),
                                 op.getRhsMax(), op.getRhsSum()};
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getLhsMax());
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes, acc);
    AffineMap id = identityMap(ctx, rank);

    // M = max(m1, m2), s_i = s(m_i - M): l = l1 s1 + l2 s2. The op accepts
    // -inf offsets as the identity besides -FLT_MAX, so the scales are the
    // -inf-safe ones.
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{stateType, stateType}, states,
        ValueRange{empty, empty}, SmallVector<AffineMap>(6, id),
        iterators(rank, std::nullopt),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          StateMath::MergeScales s =
              sm.infSafeMergeScales(kind, args[0], args[2]);
          linalg::YieldOp::create(
              b, l, ValueRange{s.offset, sm.mergeSums(s, args[1], args[3])});
        });
    SmallVector<Value> results(generic.getResults());

    if (op.getLhsAcc()) {
      auto accType = cast<RankedTensorType>(op.getLhsAcc().getType());
      int64_t accRank = accType.getRank();
      AffineMap accId = identityMap(ctx, accRank);
      // The state broadcasts over the trailing dimensions of the accumulator.
      AffineMap stateOfAcc =
          AffineMap::get(accRank, 0, accId.getResults().take_front(rank), ctx);
      SmallVector<OpFoldResult> accSizes =
          tensor::getMixedSizes(rewriter, loc, op.getLhsAcc());
      Value accEmpty = tensor::EmptyOp::create(
          rewriter, loc, accSizes, accType.getElementType());
      SmallVector<Value> ins = {op.getLhsMax(), op.getLhsAcc(), op.getRhsMax(),
                                op.getRhsAcc()};
      Value o = linalg::GenericOp::create(
                    rewriter, loc, accType, ins, accEmpty,
                    {stateOfAcc, accId, stateOfAcc, accId, accId},
                    iterators(accRank, std::nullopt),
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      // O = O1 s1 + O2 s2.
                      StateMath sm(b, l, acc);
                      StateMath::MergeScales s =
                          sm.infSafeMergeScales(kind, args[0], args[2]);
                      linalg::YieldOp::create(
                          b, l, sm.mergeSums(s, args[1], args[3]));
                    })
                    .getResult(0);
      results.push_back(o);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// softmax.normalize and softmax.lse
//===----------------------------------------------------------------------===//

struct LowerNormalize : public OpRewritePattern<NormalizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(NormalizeOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    int64_t rank = op.getInput().getType().getRank();
    int64_t dim = op.getDimension();
    FloatType acc = elementFloat(op.getMax());
    AffineMap full = identityMap(ctx, rank), state = stateMap(ctx, rank, dim);
    Type outElt = op.getInit().getType().getElementType();

    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getInit().getType(),
        ValueRange{op.getInput(), op.getMax(), op.getSum()}, op.getInit(),
        {full, state, state, full}, iterators(rank, std::nullopt),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          Value y = sm.normalize(op.getKind(), op.getState(), op.getMasked(),
                                 sm.toAcc(args[0]), args[1], args[2]);
          linalg::YieldOp::create(b, l, sm.fromAcc(y, outElt));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerLse : public OpRewritePattern<LseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LseOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    int64_t rank = op.getMax().getType().getRank();
    FloatType acc = elementFloat(op.getMax());
    AffineMap id = identityMap(ctx, rank);
    Type outElt = op.getInit().getType().getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getInit().getType(),
        ValueRange{op.getMax(), op.getSum()}, op.getInit(), {id, id, id},
        iterators(rank, std::nullopt),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          Value y = sm.lse(op.getState(), op.getMasked(), args[0], args[1]);
          linalg::YieldOp::create(b, l, sm.fromAcc(y, outElt));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mlir::softmax::populateSoftmaxStateToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerPartial, LowerMerge, LowerNormalize, LowerLse>(
      patterns.getContext());
}
