//===- CrossEntropyDecompose.cpp - softmax.linear_cross_entropy to linalg -===//
//
// The reference form of the fused linear cross-entropy, on tensors: a loop
// over tiles of the vocabulary, each a [N, Vt] logits tile (a linalg
// contraction of the hidden states with Vt classifier rows, f32) folded
// into every token's online state by softmax.partial, so no [N, V] tensor
// exists; the target logits as a dot of each hidden row with its target's
// classifier row (tensor.extract of the row); then softmax.lse, the
// per-token losses and the reduction. Upstream has no fused cross-entropy
// (linalg has matmul and reductions, not their fusion through a state).
//
//===----------------------------------------------------------------------===//

#include "CrossEntropyTiles.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

Value CrossEntropyTiles::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value CrossEntropyTiles::f32Const(OpBuilder &nb, double v) {
  return arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(v));
}

Value CrossEntropyTiles::fill(ArrayRef<OpFoldResult> sizes, double v) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, f32);
  return linalg::FillOp::create(b, loc, f32Const(b, v), empty).getResult(0);
}

Value CrossEntropyTiles::toF32(OpBuilder &nb, Value x) {
  return x.getType() == f32 ? x : arith::ExtFOp::create(nb, loc, f32, x);
}

Value CrossEntropyTiles::logit(OpBuilder &nb, Value x, Value bias) {
  if (bias)
    x = arith::AddFOp::create(nb, loc, x, toF32(nb, bias));
  if (softcap) {
    Value s = f32Const(nb, *softcap);
    x = arith::MulFOp::create(
        nb, loc, s,
        math::TanhOp::create(nb, loc, arith::DivFOp::create(nb, loc, x, s)));
  }
  return x;
}

Value CrossEntropyTiles::logitsTile(Value h, OpFoldResult rows, Value w,
                                    Value size, Value bias) {
  // z[n, v] = sum_d h[n, d] W[v, d], in f32.
  MLIRContext *ctx = b.getContext();
  AffineExpr n, v, d;
  bindDims(ctx, n, v, d);
  auto map = [&](ArrayRef<AffineExpr> r) {
    return AffineMap::get(3, 0, r, ctx);
  };
  using utils::IteratorType;
  Value zeros = fill({rows, size}, 0.0);
  Value dots =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), ValueRange{h, w}, ValueRange{zeros},
          ArrayRef<AffineMap>{map({n, d}), map({v, d}), map({n, v})},
          ArrayRef<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                                 IteratorType::reduction},
          [&](OpBuilder &nb, Location, ValueRange args) {
            Value prod = arith::MulFOp::create(nb, loc, toF32(nb, args[0]),
                                               toF32(nb, args[1]));
            linalg::YieldOp::create(
                nb, loc,
                arith::AddFOp::create(nb, loc, args[2], prod).getResult());
          })
          .getResult(0);
  if (!bias && !softcap)
    return dots;
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap col = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
  SmallVector<Value> ins = {dots};
  SmallVector<AffineMap> maps = {id};
  if (bias) {
    ins.push_back(bias);
    maps.push_back(col);
  }
  maps.push_back(id);
  return linalg::GenericOp::create(
             b, loc, dots.getType(), ins, ValueRange{fill({rows, size}, 0.0)},
             maps,
             ArrayRef<IteratorType>{IteratorType::parallel,
                                    IteratorType::parallel},
             [&](OpBuilder &nb, Location, ValueRange args) {
               linalg::YieldOp::create(
                   nb, loc, logit(nb, args[0], bias ? args[1] : Value()));
             })
      .getResult(0);
}

Value CrossEntropyTiles::rowMaxima(Value x, OpFoldResult rows) {
  Value init = fill({rows}, -std::numeric_limits<double>::infinity());
  return linalg::ReduceOp::create(
             b, loc, ValueRange{x}, ValueRange{init}, ArrayRef<int64_t>{1},
             [&](OpBuilder &nb, Location, ValueRange args) {
               linalg::YieldOp::create(
                   nb, loc,
                   arith::MaximumFOp::create(nb, loc, args[0], args[1])
                       .getResult());
             })
      .getResult(0);
}

Value CrossEntropyTiles::convertInto(Value x, Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> its(type.getRank(),
                                       utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{x}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, its,
             [&](OpBuilder &nb, Location, ValueRange args) {
               Value v = args[0];
               if (type.getElementType() != f32)
                 v = arith::TruncFOp::create(nb, loc, type.getElementType(), v);
               linalg::YieldOp::create(nb, loc, v);
             })
      .getResult(0);
}

namespace {
/// The pieces of one decomposition, built at the op.
class CrossEntropyDecomposer : CrossEntropyTiles {
public:
  CrossEntropyDecomposer(OpBuilder &b, LinearCrossEntropyOp op)
      : CrossEntropyTiles(b, op.getLoc(), op.getSoftcapAttr()), op(op) {}

  SmallVector<Value> build();

private:
  Value dim(Value t, int64_t i) { return tensor::DimOp::create(b, loc, t, i); }
  /// The online state (m, l) over every class: the loop over vocabulary
  /// tiles; and with a class_max init, each token's largest logit per
  /// group of classes (else null).
  std::tuple<Value, Value, Value> vocabularyState();
  /// `classMax` with the groups of the tile of logits `dots` (classes v0
  /// on, `size` of them) written.
  Value groupMaxima(Value dots, Value v0, Value size, Value classMax);
  /// z_{n, t_n}, f32 [N]: the target's logit of each token (class 0 for a
  /// target out of range, whose loss is NaN anyway).
  Value targetLogits();

  LinearCrossEntropyOp op;
  /// N (static where the type has it) and V.
  OpFoldResult tokens;
  Value classes;
};
} // namespace

Value CrossEntropyDecomposer::groupMaxima(Value dots, Value v0, Value size,
                                          Value classMax) {
  int64_t width = LinearCrossEntropyOp::getClassMaxWidth();
  auto loop = scf::ForOp::create(
      b, loc, idx(0), size, idx(width), ValueRange{classMax},
      [&](OpBuilder &gb, Location, Value g0, ValueRange cm) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(gb.getInsertionBlock());
        Value cols = arith::MinSIOp::create(
            b, loc, idx(width), arith::SubIOp::create(b, loc, size, g0));
        OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
        Value group = tensor::ExtractSliceOp::create(
            b, loc, dots, ArrayRef<OpFoldResult>{zero, g0},
            ArrayRef<OpFoldResult>{tokens, cols},
            ArrayRef<OpFoldResult>{one, one});
        Value maxima = rowMaxima(group, tokens);
        Value column = arith::DivUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, v0, g0), idx(width));
        scf::YieldOp::create(
            b, loc,
            tensor::InsertSliceOp::create(
                b, loc, maxima, cm[0], ArrayRef<OpFoldResult>{zero, column},
                ArrayRef<OpFoldResult>{tokens, one},
                ArrayRef<OpFoldResult>{one, one})
                .getResult());
      });
  return loop.getResult(0);
}

std::tuple<Value, Value, Value> CrossEntropyDecomposer::vocabularyState() {
  Value h = op.getHidden(), w = op.getClassifier(), bias = op.getBias();
  const llvm::fltSemantics &sem = llvm::APFloat::IEEEsingle();
  SmallVector<OpFoldResult> rows = {tokens};
  Value m0 = fill(rows, APFloat::getLargest(sem, true).convertToDouble());
  Value l0 = fill(rows, 0.0), c0 = fill(rows, 0.0);
  Value tile = idx(op.getVocabTile());
  Value features = dim(h, 1);
  SmallVector<Value> init = {m0, l0, c0};
  Value classMax = op.getClassMaxInit();
  if (classMax)
    init.push_back(classMax);
  auto loop = scf::ForOp::create(
      b, loc, idx(0), classes, tile, init,
      [&](OpBuilder &lb, Location, Value v0, ValueRange state) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(lb.getInsertionBlock());
        // The last tile is cut at V.
        Value size = arith::MinSIOp::create(
            b, loc, tile, arith::SubIOp::create(b, loc, classes, v0));
        Value zero = idx(0), one = idx(1);
        Value rowsW = tensor::ExtractSliceOp::create(
            b, loc, w, ValueRange{v0, zero}, ValueRange{size, features},
            ValueRange{one, one});
        Value biasTile = bias ? tensor::ExtractSliceOp::create(
                                    b, loc, bias, ValueRange{v0},
                                    ValueRange{size}, ValueRange{one})
                                    .getResult()
                              : Value();
        Value dots = logitsTile(h, tokens, rowsW, size, biasTile);
        Type t = state[0].getType();
        auto partial = PartialOp::create(b, loc, t, t, t, dots, state[0],
                                         state[1], state[2],
                                         /*dimension=*/1, Algorithm::Online);
        SmallVector<Value> next(partial.getResults());
        if (classMax)
          next.push_back(groupMaxima(dots, v0, size, state[3]));
        scf::YieldOp::create(b, loc, next);
      });
  return {loop.getResult(0), loop.getResult(1),
          classMax ? loop.getResult(3) : Value()};
}

Value CrossEntropyDecomposer::targetLogits() {
  Value h = op.getHidden(), w = op.getClassifier(), t = op.getTargets();
  Value bias = op.getBias();
  MLIRContext *ctx = b.getContext();
  AffineExpr n, d;
  bindDims(ctx, n, d);
  using utils::IteratorType;
  Value last = arith::SubIOp::create(b, loc, classes, idx(1));
  // The class a target reads: t_n clamped to [0, V): a target out of
  // range reads some row, and its loss is NaN.
  auto classOf = [&](OpBuilder &nb, Value target) -> Value {
    Value c = arith::IndexCastOp::create(nb, loc, nb.getIndexType(), target);
    Value zero = arith::ConstantIndexOp::create(nb, loc, 0);
    return arith::MinSIOp::create(
        nb, loc, arith::MaxSIOp::create(nb, loc, c, zero), last);
  };
  Value dots =
      linalg::GenericOp::create(
          b, loc, fill({tokens}, 0.0).getType(), ValueRange{h, t},
          ValueRange{fill({tokens}, 0.0)},
          ArrayRef<AffineMap>{AffineMap::get(2, 0, {n, d}, ctx),
                              AffineMap::get(2, 0, {n}, ctx),
                              AffineMap::get(2, 0, {n}, ctx)},
          ArrayRef<IteratorType>{IteratorType::parallel,
                                 IteratorType::reduction},
          [&](OpBuilder &nb, Location, ValueRange args) {
            Value col = linalg::IndexOp::create(nb, loc, 1);
            Value wv = tensor::ExtractOp::create(
                nb, loc, w, ValueRange{classOf(nb, args[1]), col});
            Value prod = arith::MulFOp::create(nb, loc, toF32(nb, args[0]),
                                               toF32(nb, wv));
            linalg::YieldOp::create(
                nb, loc,
                arith::AddFOp::create(nb, loc, args[2], prod).getResult());
          })
          .getResult(0);
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  return linalg::GenericOp::create(
             b, loc, dots.getType(), ValueRange{dots, t},
             ValueRange{fill({tokens}, 0.0)}, ArrayRef<AffineMap>{id, id, id},
             ArrayRef<IteratorType>{IteratorType::parallel},
             [&](OpBuilder &nb, Location, ValueRange args) {
               Value bv =
                   bias ? tensor::ExtractOp::create(
                              nb, loc, bias, ValueRange{classOf(nb, args[1])})
                              .getResult()
                        : Value();
               linalg::YieldOp::create(nb, loc, logit(nb, args[0], bv));
             })
      .getResult(0);
}

SmallVector<Value> CrossEntropyDecomposer::build() {
  tokens = tensor::getMixedSize(b, loc, op.getHidden(), 0);
  classes = dim(op.getClassifier(), 0);
  auto [m, l, classMax] = vocabularyState();
  // lse into the op's lse init when it has one.
  Value lseInit = op.getLseInit() ? op.getLseInit() : fill({tokens}, 0.0);
  Value lse = LseOp::create(b, loc, lseInit.getType(), m, l, lseInit,
                            StateKind::Max, MaskedRows::Zero);
  Value target = targetLogits();

  // loss_n = lse_n - z_{n, t_n} + c lse_n^2; NaN for a target out of
  // range, 0 for ignore_index. With a reduction, each token also counts
  // whether it is kept (the mean's denominator).
  MLIRContext *ctx = b.getContext();
  Value t = op.getTargets();
  Type targetType = cast<RankedTensorType>(t.getType()).getElementType();
  bool perToken = op.getReduction() == LossReduction::None;
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  AffineMap toScalar = AffineMap::get(1, 0, {}, ctx);
  Value lossInit = op.getLossInit();
  SmallVector<Value> outs;
  SmallVector<AffineMap> maps = {id, id, id};
  using utils::IteratorType;
  IteratorType it = perToken ? IteratorType::parallel : IteratorType::reduction;
  if (perToken) {
    outs.push_back(lossInit);
    maps.push_back(id);
  } else {
    outs.push_back(fill({}, 0.0));
    outs.push_back(fill({}, 0.0));
    maps.append({toScalar, toScalar});
  }
  double c = op.getZLossAttr() ? op.getZLossAttr().getValueAsDouble() : 0.0;
  SmallVector<Type> outTypes;
  for (Value o : outs)
    outTypes.push_back(o.getType());
  auto losses = linalg::GenericOp::create(
      b, loc, outTypes, ValueRange{lse, target, t}, outs, maps,
      ArrayRef<IteratorType>{it},
      [&](OpBuilder &nb, Location, ValueRange args) {
        Value s = args[0], z = args[1], tn = args[2];
        Value loss = arith::SubFOp::create(nb, loc, s, z);
        if (c != 0.0)
          loss = arith::AddFOp::create(
              nb, loc, loss,
              arith::MulFOp::create(
                  nb, loc,
                  arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(c)),
                  arith::MulFOp::create(nb, loc, s, s)));
        auto cst = [&](int64_t v) -> Value {
          return arith::ConstantOp::create(nb, loc,
                                           nb.getIntegerAttr(targetType, v));
        };
        using P = arith::CmpIPredicate;
        Value kept =
            arith::CmpIOp::create(nb, loc, P::ne, tn, cst(op.getIgnoreIndex()));
        Value vClasses =
            arith::IndexCastOp::create(nb, loc, targetType, classes);
        Value inRange = arith::AndIOp::create(
            nb, loc, arith::CmpIOp::create(nb, loc, P::sge, tn, cst(0)),
            arith::CmpIOp::create(nb, loc, P::slt, tn, vClasses));
        Value zeroF = arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(0));
        Value nan = arith::ConstantOp::create(
            nb, loc,
            nb.getF32FloatAttr(std::numeric_limits<float>::quiet_NaN()));
        loss = arith::SelectOp::create(nb, loc, inRange, loss, nan);
        loss = arith::SelectOp::create(nb, loc, kept, loss, zeroF);
        if (perToken) {
          linalg::YieldOp::create(nb, loc, loss);
          return;
        }
        Value one = arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(1));
        Value count = arith::SelectOp::create(nb, loc, kept, one, zeroF);
        linalg::YieldOp::create(
            nb, loc,
            ValueRange{arith::AddFOp::create(nb, loc, args[3], loss),
                       arith::AddFOp::create(nb, loc, args[4], count)});
      });
  Value loss = losses.getResult(0);
  if (!perToken) {
    // sum, or sum / kept tokens (0 / 0 = NaN when all are ignored).
    bool mean = op.getReduction() == LossReduction::Mean;
    SmallVector<Value> ins = {losses.getResult(0)};
    if (mean)
      ins.push_back(losses.getResult(1));
    SmallVector<AffineMap> scalarMaps(ins.size() + 1,
                                      AffineMap::get(0, 0, {}, ctx));
    loss = linalg::GenericOp::create(
               b, loc, lossInit.getType(), ins, ValueRange{lossInit},
               scalarMaps, ArrayRef<IteratorType>{},
               [&](OpBuilder &nb, Location, ValueRange args) {
                 Value r =
                     mean ? arith::DivFOp::create(nb, loc, args[0], args[1])
                                .getResult()
                          : args[0];
                 linalg::YieldOp::create(nb, loc, r);
               })
               .getResult(0);
  }
  SmallVector<Value> results = {loss};
  if (op.getLse())
    results.push_back(lse);
  if (classMax)
    results.push_back(classMax);
  return results;
}

namespace {
struct DecomposeLinearCrossEntropy
    : public OpRewritePattern<LinearCrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearCrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    // On memrefs the op is the GPU mapping's.
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "on memrefs");
    rewriter.replaceOp(op, CrossEntropyDecomposer(rewriter, op).build());
    return success();
  }
};
} // namespace

void mlir::softmax::populateSoftmaxCrossEntropyDecomposePatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeLinearCrossEntropy>(patterns.getContext());
  populateCrossEntropyGradDecomposePatterns(patterns);
}
