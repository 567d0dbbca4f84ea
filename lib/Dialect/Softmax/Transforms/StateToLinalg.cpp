//===- StateToLinalg.cpp - state ops -> linalg.generic over arith/math ---===//
//
// One linalg.generic per reduction or elementwise step, so that upstream
// tiling, fusion, vectorization and bufferization apply unchanged.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include <cmath>

using namespace mlir;
using namespace mlir::softmax;

namespace {

/// Scalar arithmetic in the accumulation type, shared by every body below.
class StateMath {
public:
  StateMath(OpBuilder &b, Location loc, FloatType acc)
      : b(b), loc(loc), acc(acc) {}

  Value cst(double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(acc, v));
  }
  Value negInf() {
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(acc, APFloat::getInf(acc.getFloatSemantics(), true)));
  }
  Value nan() {
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(acc, APFloat::getNaN(acc.getFloatSemantics())));
  }
  Value toAcc(Value v) {
    unsigned w = v.getType().getIntOrFloatBitWidth();
    if (v.getType() == acc)
      return v;
    if (w < acc.getWidth())
      return arith::ExtFOp::create(b, loc, acc, v);
    return arith::TruncFOp::create(b, loc, acc, v);
  }
  Value fromAcc(Value v, Type to) {
    if (to == acc)
      return v;
    if (to.getIntOrFloatBitWidth() < acc.getWidth())
      return arith::TruncFOp::create(b, loc, to, v);
    return arith::ExtFOp::create(b, loc, to, v);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value max(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value exp2(Value x) { return math::Exp2Op::create(b, loc, x); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value eq(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  }
  Value select(Value c, Value t, Value f) {
    return arith::SelectOp::create(b, loc, c, t, f);
  }

  /// One step of compensated (Kahan) summation: returns the new sum and
  /// compensation for `sum + term`. Recursive f32 summation of n terms
  /// drifts by up to n ulps (1031 equal terms: ~1e-5 relative), which the
  /// f32 bound of 1e-6 does not allow; the compensation keeps the error at
  /// a few ulps whatever n is.
  std::pair<Value, Value> kahanAdd(Value sum, Value comp, Value term) {
    Value y = sub(term, comp);
    Value t = add(sum, y);
    return {t, sub(sub(t, sum), y)};
  }

  /// exp(offset) for a state offset difference: exp for `max` states, exact
  /// powers of two for `exponent` states.
  Value scale(StateKind kind, Value diff) {
    return kind == StateKind::Max ? exp(diff) : exp2(diff);
  }

  /// ln 2 split into a head and a tail; the head's product with an integer
  /// is folded into an fma, so `x - k ln 2` stays exact to the last bit even
  /// for |x| ~ 1e4, where a single rounded product would lose ~10 bits.
  std::pair<Value, Value> ln2Split() {
    if (acc.isF64())
      return {cst(M_LN2), cst(2.3190468138462996e-17)};
    double hi = static_cast<float>(M_LN2);
    return {cst(hi), cst(M_LN2 - hi)};
  }

  /// x - k * ln 2, accurately.
  Value subScaledLn2(Value x, Value k) {
    auto [hi, lo] = ln2Split();
    Value negK = arith::NegFOp::create(b, loc, k);
    return fma(negK, lo, fma(negK, hi, x));
  }

  /// The exp-pair split of x: k = round(x log2 e) and a = exp(x - k ln 2),
  /// so exp(x) = a * 2^k with a in [2^-0.5, 2^0.5].
  std::pair<Value, Value> expPair(Value x) {
    Value k = math::RoundEvenOp::create(b, loc, mul(x, cst(M_LOG2E)));
    return {k, exp(subScaledLn2(x, k))};
  }

private:
  OpBuilder &b;
  Location loc;
  FloatType acc;
};

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

/// A tensor of zeros shaped like `like`.
Value zeroLike(OpBuilder &b, Location loc, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  Value empty = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, like),
                                        type.getElementType());
  Value zero = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), 0.0));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
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
                linalg::YieldOp::create(
                    b, l, sm.max(args[1], sm.toAcc(args[0])));
              })
              .getResult(0);
      // l0 * exp(m0 - M), the incoming sum moved to the new offset.
      AffineMap stateId = identityMap(ctx, rank - 1);
      Value rescaled =
          linalg::GenericOp::create(
              rewriter, loc, stateType,
              ValueRange{op.getMaxInit(), newMax}, op.getSumInit(),
              {stateId, stateId, stateId}, iterators(rank - 1, std::nullopt),
              [&](OpBuilder &b, Location l, ValueRange args) {
                StateMath sm(b, l, acc);
                linalg::YieldOp::create(
                    b, l, sm.mul(args[2], sm.exp(sm.sub(args[0], args[1]))));
              })
              .getResult(0);
      // + sum exp(x - M): the second read of the row, compensated.
      Value comp = zeroLike(rewriter, loc, op.getSumInit());
      Value newSum =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{stateType, stateType},
              ValueRange{op.getInput(), newMax}, ValueRange{rescaled, comp},
              {full, state, state, state}, iterators(rank, dim),
              [&](OpBuilder &b, Location l, ValueRange args) {
                StateMath sm(b, l, acc);
                Value e = sm.exp(sm.sub(sm.toAcc(args[0]), args[1]));
                auto [sum, c] = sm.kahanAdd(args[2], args[3], e);
                linalg::YieldOp::create(b, l, ValueRange{sum, c});
              })
              .getResult(0);
      rewriter.replaceOp(op, {newMax, newSum});
      return success();
    }

    // The compensation of the sum travels with it and is rescaled with it;
    // it is dropped at the end (its last value is below one ulp of l).
    bool expPair = op.getAlgorithm() == Algorithm::ExpPair;
    Value comp = zeroLike(rewriter, loc, op.getSumInit());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{stateType, stateType, stateType},
        op.getInput(), ValueRange{op.getMaxInit(), op.getSumInit(), comp},
        {full, state, state, state}, iterators(rank, dim),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          Value x = sm.toAcc(args[0]), m = args[1], s = args[2], c = args[3];
          if (!expPair) {
            // m' = max(m, x); l' = l * exp(m - m') + exp(x - m').
            Value mNew = sm.max(m, x);
            Value scale = sm.exp(sm.sub(m, mNew));
            auto [sNew, cNew] = sm.kahanAdd(sm.mul(s, scale), sm.mul(c, scale),
                                            sm.exp(sm.sub(x, mNew)));
            linalg::YieldOp::create(b, l, ValueRange{mNew, sNew, cNew});
            return;
          }
          // exp(x) = a * 2^k. K' = max(K, k);
          // A' = A * 2^(K - K') + a * 2^(k - K'). A -inf element has no
          // exponent and contributes nothing.
          auto [k, a] = sm.expPair(x);
          Value kNew = sm.max(m, k);
          Value scale = sm.exp2(sm.sub(m, kNew));
          auto [sNew, cNew] =
              sm.kahanAdd(sm.mul(s, scale), sm.mul(c, scale),
                          sm.mul(a, sm.exp2(sm.sub(k, kNew))));
          Value masked = sm.eq(x, sm.negInf());
          linalg::YieldOp::create(
              b, l,
              ValueRange{sm.select(masked, m, kNew), sm.select(masked, s, sNew),
                         sm.select(masked, c, cNew)});
        });
    rewriter.replaceOp(op, generic.getResults().take_front(2));
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

    // Scales s1 = exp(m1 - M), s2 = exp(m2 - M) for one element of state.
    auto scales = [&](StateMath &sm, ValueRange args) {
      Value mNew = sm.max(args[0], args[2]);
      return std::make_tuple(mNew, sm.scale(kind, sm.sub(args[0], mNew)),
                             sm.scale(kind, sm.sub(args[2], mNew)));
    };
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{stateType, stateType}, states,
        ValueRange{empty, empty}, SmallVector<AffineMap>(6, id),
        iterators(rank, std::nullopt),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          auto [mNew, s1, s2] = scales(sm, args);
          Value sum = sm.add(sm.mul(args[1], s1), sm.mul(args[3], s2));
          linalg::YieldOp::create(b, l, ValueRange{mNew, sum});
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
      Value o =
          linalg::GenericOp::create(
              rewriter, loc, accType, ins, accEmpty,
              {stateOfAcc, accId, stateOfAcc, accId, accId},
              iterators(accRank, std::nullopt),
              [&](OpBuilder &b, Location l, ValueRange args) {
                StateMath sm(b, l, acc);
                auto [mNew, s1, s2] = scales(sm, args);
                linalg::YieldOp::create(
                    b, l, sm.add(sm.mul(args[1], s1), sm.mul(args[3], s2)));
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

/// The value a fully masked row gets, in the accumulation type.
Value maskedValue(StateMath &sm, MaskedRows masked, bool probability) {
  if (masked == MaskedRows::NaN)
    return sm.nan();
  return probability ? sm.cst(0.0) : sm.negInf();
}

struct LowerNormalize : public OpRewritePattern<NormalizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(NormalizeOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    int64_t rank = op.getInput().getType().getRank();
    int64_t dim = op.getDimension();
    FloatType acc = elementFloat(op.getMax());
    AffineMap full = identityMap(ctx, rank), state = stateMap(ctx, rank, dim);
    bool exponent = op.getState() == StateKind::Exponent;
    bool logSoftmax = op.getKind() == NormalizeKind::LogSoftmax;
    Type outElt = op.getInit().getType().getElementType();

    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getInit().getType(),
        ValueRange{op.getInput(), op.getMax(), op.getSum()}, op.getInit(),
        {full, state, state, full}, iterators(rank, std::nullopt),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          Value x = sm.toAcc(args[0]), m = args[1], s = args[2];
          Value y;
          if (logSoftmax) {
            // x - m - log l, with m * ln 2 applied exactly for exponents.
            Value shifted = exponent ? sm.subScaledLn2(x, m) : sm.sub(x, m);
            y = sm.sub(shifted, sm.log(s));
          } else if (!exponent) {
            y = sm.div(sm.exp(sm.sub(x, m)), s);
          } else {
            // (a / A) * 2^(k - K); a -inf element has no pair and is 0.
            auto [k, a] = sm.expPair(x);
            y = sm.mul(sm.div(a, s), sm.exp2(sm.sub(k, m)));
            y = sm.select(sm.eq(x, sm.negInf()), sm.cst(0.0), y);
          }
          Value isMasked = sm.eq(s, sm.cst(0.0));
          y = sm.select(isMasked, maskedValue(sm, op.getMasked(), !logSoftmax),
                        y);
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
    bool exponent = op.getState() == StateKind::Exponent;
    Type outElt = op.getInit().getType().getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getInit().getType(),
        ValueRange{op.getMax(), op.getSum()}, op.getInit(), {id, id, id},
        iterators(rank, std::nullopt),
        [&](OpBuilder &b, Location l, ValueRange args) {
          StateMath sm(b, l, acc);
          Value m = args[0], s = args[1];
          Value logSum = sm.log(s);
          Value y;
          if (exponent) {
            // K ln 2 + log A, with the head of ln 2 applied last so that the
            // large part is added to an already accurate small part.
            auto [hi, lo] = sm.ln2Split();
            y = sm.fma(m, hi, sm.fma(m, lo, logSum));
          } else {
            y = sm.add(m, logSum);
          }
          y = sm.select(sm.eq(s, sm.cst(0.0)),
                        maskedValue(sm, op.getMasked(), false), y);
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
