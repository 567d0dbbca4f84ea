//===- CrossEntropyGradDecompose.cpp - the cross-entropy's gradients ------===//
//
// The reference form of softmax.linear_cross_entropy_grad, on tensors: a
// loop over tiles of vocab_tile classes, inside it a loop over blocks of
// token_tile tokens; each (block, tile) recomputes its logits (the
// forward's contraction), forms du = w (p (1 + 2 c lse) - onehot) (times
// the softcap's derivative), and unless every |du| is below the filter adds
// du W to the block's rows of grad_hidden, du^T h to the tile's rows of
// grad_classifier and the column sums of du to grad_bias. Sums in f32,
// rounded once into the inits.
//
//===----------------------------------------------------------------------===//

#include "CrossEntropyTiles.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"
#include "softmax-mlir/Dialect/Softmax/Utils/CrossEntropyMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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
using utils::IteratorType;

namespace {
class GradDecomposer : CrossEntropyTiles {
public:
  GradDecomposer(OpBuilder &b, LinearCrossEntropyGradOp op)
      : CrossEntropyTiles(b, op.getLoc(), op.getSoftcapAttr()), op(op),
        ctx(b.getContext()) {}

  SmallVector<Value> build();

private:
  Value dim(Value t, int64_t i) { return tensor::DimOp::create(b, loc, t, i); }
  Value slice(Value t, ArrayRef<Value> offsets, ArrayRef<Value> sizes) {
    SmallVector<Value> ones(offsets.size(), idx(1));
    return tensor::ExtractSliceOp::create(b, loc, t, offsets, sizes, ones);
  }
  Value insert(Value x, Value into, ArrayRef<Value> offsets,
               ArrayRef<Value> sizes) {
    SmallVector<Value> ones(offsets.size(), idx(1));
    return tensor::InsertSliceOp::create(b, loc, x, into, offsets, sizes, ones);
  }
  AffineMap map(unsigned dims, ArrayRef<unsigned> results) {
    SmallVector<AffineExpr> exprs;
    for (unsigned r : results)
      exprs.push_back(getAffineDimExpr(r, ctx));
    return AffineMap::get(dims, 0, exprs, ctx);
  }
  /// w_n, f32 [N]: each token's weight in the gradient.
  Value tokenWeights();
  /// du [rows, size] of one (block, tile) from its logits z.
  Value logitGradients(Value z, Value lse, Value weights, Value targets,
                       Value v0, OpFoldResult rows, Value size);
  /// Whether class_max bounds every token of the (block, tile) below the
  /// filter (crossEntropyBoundsToken): an i1.
  Value boundedTile(Value n0, Value rows, Value v0, Value size, Value weights,
                    double eps);
  /// Whether the filter keeps any entry of du [rows, size]: an i1.
  Value keepsAny(Value du, Value weights, double eps);
  /// acc + (a contraction `ins` with the maps, reducing the last dim).
  Value contract(ValueRange ins, ArrayRef<AffineMap> maps, Value acc,
                 unsigned dims);

  LinearCrossEntropyGradOp op;
  MLIRContext *ctx;
  Value tokens, classes, features;
};
} // namespace

Value GradDecomposer::tokenWeights() {
  Value t = op.getTargets(), dl = op.getGradLoss();
  Type tt = cast<RankedTensorType>(t.getType()).getElementType();
  LossReduction red = op.getReduction();
  AffineMap id = map(1, {0}), scalar = map(1, {});
  // The mean's denominator: the kept tokens.
  Value count;
  if (red == LossReduction::Mean) {
    Value zero = fill({}, 0.0);
    count = linalg::GenericOp::create(
                b, loc, zero.getType(), ValueRange{t}, ValueRange{zero},
                ArrayRef<AffineMap>{id, scalar},
                ArrayRef<IteratorType>{IteratorType::reduction},
                [&](OpBuilder &nb, Location, ValueRange a) {
                  Value kept = arith::CmpIOp::create(
                      nb, loc, arith::CmpIPredicate::ne, a[0],
                      arith::ConstantOp::create(
                          nb, loc, nb.getIntegerAttr(tt, op.getIgnoreIndex())));
                  Value one = arith::SelectOp::create(
                      nb, loc, kept, f32Const(nb, 1.0), f32Const(nb, 0.0));
                  linalg::YieldOp::create(
                      nb, loc,
                      arith::AddFOp::create(nb, loc, a[1], one).getResult());
                })
                .getResult(0);
  }
  SmallVector<Value> ins = {t, dl};
  SmallVector<AffineMap> maps = {id, red == LossReduction::None ? id : scalar};
  if (count) {
    ins.push_back(count);
    maps.push_back(scalar);
  }
  maps.push_back(id);
  Value zeros = fill({tokens}, 0.0);
  return linalg::GenericOp::create(
             b, loc, zeros.getType(), ins, ValueRange{zeros}, maps,
             ArrayRef<IteratorType>{IteratorType::parallel},
             [&](OpBuilder &nb, Location, ValueRange a) {
               Value w = a[1];
               if (count)
                 w = arith::DivFOp::create(nb, loc, w, a[2]);
               linalg::YieldOp::create(
                   nb, loc,
                   crossEntropyTokenWeight(nb, loc, a[0], w, classes,
                                           op.getIgnoreIndex()));
             })
      .getResult(0);
}

Value GradDecomposer::logitGradients(Value z, Value lse, Value weights,
                                     Value targets, Value v0, OpFoldResult rows,
                                     Value size) {
  Type tt = cast<RankedTensorType>(targets.getType()).getElementType();
  double c = op.getZLossAttr() ? op.getZLossAttr().getValueAsDouble() : 0.0;
  Value zeros = fill({rows, size}, 0.0);
  AffineMap id = map(2, {0, 1}), row = map(2, {0});
  return linalg::GenericOp::create(
             b, loc, zeros.getType(), ValueRange{z, lse, weights, targets},
             ValueRange{zeros}, ArrayRef<AffineMap>{id, row, row, row, id},
             ArrayRef<IteratorType>{IteratorType::parallel,
                                    IteratorType::parallel},
             [&](OpBuilder &nb, Location, ValueRange a) {
               // The class of this column: v0 + v.
               Value cls = arith::AddIOp::create(
                   nb, loc, v0, linalg::IndexOp::create(nb, loc, 1));
               Value isTarget = arith::CmpIOp::create(
                   nb, loc, arith::CmpIPredicate::eq,
                   arith::IndexCastOp::create(nb, loc, tt, cls), a[3]);
               linalg::YieldOp::create(
                   nb, loc,
                   crossEntropyLogitGradient(nb, loc, a[0], a[1], a[2],
                                             isTarget, c, softcap));
             })
      .getResult(0);
}

Value GradDecomposer::boundedTile(Value n0, Value rows, Value v0, Value size,
                                  Value weights, double eps) {
  // M_n: the largest class_max of the groups the tile meets.
  int64_t width = LinearCrossEntropyOp::getClassMaxWidth();
  Value g0 = arith::DivUIOp::create(b, loc, v0, idx(width));
  Value g1 = arith::CeilDivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, v0, size), idx(width));
  Value groups =
      slice(op.getClassMax(), {n0, g0},
            {rows, arith::SubIOp::create(b, loc, g1, g0).getResult()});
  Value top = rowMaxima(groups, rows);
  Value t = slice(op.getTargets(), {n0}, {rows});
  Type tt = cast<RankedTensorType>(t.getType()).getElementType();
  double c = op.getZLossAttr() ? op.getZLossAttr().getValueAsDouble() : 0.0;
  Value all = linalg::FillOp::create(
                  b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 1, 1)},
                  ValueRange{tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{},
                                                     b.getI1Type())})
                  .getResult(0);
  Value bounded =
      linalg::GenericOp::create(
          b, loc, all.getType(),
          ValueRange{top, slice(op.getLse(), {n0}, {rows}),
                     slice(weights, {n0}, {rows}), t},
          ValueRange{all},
          ArrayRef<AffineMap>{map(1, {0}), map(1, {0}), map(1, {0}),
                              map(1, {0}), map(1, {})},
          ArrayRef<IteratorType>{IteratorType::reduction},
          [&](OpBuilder &nb, Location, ValueRange a) {
            auto cls = [&](Value v) -> Value {
              return arith::IndexCastOp::create(nb, loc, tt, v);
            };
            using P = arith::CmpIPredicate;
            Value in = arith::AndIOp::create(
                nb, loc, arith::CmpIOp::create(nb, loc, P::sge, a[3], cls(v0)),
                arith::CmpIOp::create(
                    nb, loc, P::slt, a[3],
                    cls(arith::AddIOp::create(nb, loc, v0, size))));
            Value ok = crossEntropyBoundsToken(nb, loc, a[0], a[1], a[2], in,
                                               c, eps);
            linalg::YieldOp::create(
                nb, loc, arith::AndIOp::create(nb, loc, a[4], ok).getResult());
          })
          .getResult(0);
  return tensor::ExtractOp::create(b, loc, bounded);
}

Value GradDecomposer::keepsAny(Value du, Value weights, double eps) {
  Value none = linalg::FillOp::create(
                   b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 0, 1)},
                   ValueRange{tensor::EmptyOp::create(
                       b, loc, ArrayRef<int64_t>{}, b.getI1Type())})
                   .getResult(0);
  Value kept =
      linalg::GenericOp::create(
          b, loc, none.getType(), ValueRange{du, weights}, ValueRange{none},
          ArrayRef<AffineMap>{map(2, {0, 1}), map(2, {0}), map(2, {})},
          ArrayRef<IteratorType>{IteratorType::reduction,
                                 IteratorType::reduction},
          [&](OpBuilder &nb, Location, ValueRange a) {
            linalg::YieldOp::create(
                nb, loc,
                arith::OrIOp::create(
                    nb, loc, a[2],
                    crossEntropyKeepsEntry(nb, loc, a[0], a[1], eps))
                    .getResult());
          })
          .getResult(0);
  return tensor::ExtractOp::create(b, loc, kept);
}

Value GradDecomposer::contract(ValueRange ins, ArrayRef<AffineMap> maps,
                               Value acc, unsigned dims) {
  SmallVector<IteratorType> its(dims - 1, IteratorType::parallel);
  its.push_back(IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, acc.getType(), ins, ValueRange{acc}, maps, its,
             [&](OpBuilder &nb, Location, ValueRange a) {
               Value prod = toF32(nb, a[0]);
               if (ins.size() > 1)
                 prod = arith::MulFOp::create(nb, loc, prod, toF32(nb, a[1]));
               linalg::YieldOp::create(
                   nb, loc,
                   arith::AddFOp::create(nb, loc, a.back(), prod).getResult());
             })
      .getResult(0);
}

SmallVector<Value> GradDecomposer::build() {
  Value h = op.getHidden(), w = op.getClassifier(), t = op.getTargets();
  Value bias = op.getBias(), lse = op.getLse();
  tokens = dim(h, 0);
  classes = dim(w, 0);
  features = dim(h, 1);
  Value weights = tokenWeights();
  double eps = op.getFilterOrDefault();
  // The decomposition's own tile where the op names none.
  Value vTile = idx(op.getVocabTileOr(1024)),
        nTile = idx(op.getTokenTileOr(64));
  Value zero = idx(0);
  Type i64 = b.getI64Type();
  Value zero64 = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value one64 = arith::ConstantIntOp::create(b, loc, 1, 64);

  SmallVector<Value> init = {fill({tokens, features}, 0.0),
                             op.getGradClassifierInit()};
  if (op.getGradBiasInit())
    init.push_back(op.getGradBiasInit());
  init.append({zero64, zero64, zero64});
  bool withBias = op.getGradBiasInit() != nullptr;
  auto outer = scf::ForOp::create(
      b, loc, zero, classes, vTile, init,
      [&](OpBuilder &ob, Location, Value v0, ValueRange st) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ob.getInsertionBlock());
        Value size = arith::MinSIOp::create(
            b, loc, vTile, arith::SubIOp::create(b, loc, classes, v0));
        Value wRows = slice(w, {v0, zero}, {size, features});
        Value bRows = bias ? slice(bias, {v0}, {size}) : Value();
        SmallVector<Value> tileInit = {st[0], fill({size, features}, 0.0)};
        if (withBias)
          tileInit.push_back(fill({size}, 0.0));
        tileInit.append(st.take_back(3).begin(), st.take_back(3).end());
        auto inner = scf::ForOp::create(
            b, loc, zero, tokens, nTile, tileInit,
            [&](OpBuilder &ib, Location, Value n0, ValueRange in) {
              OpBuilder::InsertionGuard g2(b);
              b.setInsertionPointToStart(ib.getInsertionBlock());
              Value rows = arith::MinSIOp::create(
                  b, loc, nTile, arith::SubIOp::create(b, loc, tokens, n0));
              Value hRows = slice(h, {n0, zero}, {rows, features});
              SmallVector<Value> grads(in.drop_back(3));
              SmallVector<Type> types;
              for (Value v : grads)
                types.push_back(v.getType());
              types.push_back(b.getI1Type());
              // With class_max, a tile whose tokens are all bounded below
              // the filter is dropped before its logits are recomputed.
              Value bounded = arith::ConstantIntOp::create(b, loc, 0, 1);
              if (op.getClassMax() && eps > 0)
                bounded = boundedTile(n0, rows, v0, size, weights, eps);
              auto ifBounded = scf::IfOp::create(b, loc, types, bounded,
                                                 /*withElseRegion=*/true);
              {
                OpBuilder::InsertionGuard g3(b);
                b.setInsertionPointToStart(&ifBounded.getThenRegion().front());
                SmallVector<Value> same(grads);
                same.push_back(bounded);
                scf::YieldOp::create(b, loc, same);
                b.setInsertionPointToStart(&ifBounded.getElseRegion().front());
                Value z = logitsTile(hRows, rows, wRows, size, bRows);
                Value du = logitGradients(
                    z, slice(lse, {n0}, {rows}), slice(weights, {n0}, {rows}),
                    slice(t, {n0}, {rows}), v0, rows, size);
                // The filter: skip when no entry is kept (|du| > eps |w_n|);
                // never in exact mode.
                Value skip = arith::ConstantIntOp::create(b, loc, 0, 1);
                if (eps > 0)
                  skip = arith::XOrIOp::create(
                      b, loc, keepsAny(du, slice(weights, {n0}, {rows}), eps),
                      arith::ConstantIntOp::create(b, loc, 1, 1));
                auto ifKeep = scf::IfOp::create(b, loc, ArrayRef<Type>(types).drop_back(), skip,
                                                /*withElseRegion=*/true);
                {
                  OpBuilder::InsertionGuard g4(b);
                  b.setInsertionPointToStart(&ifKeep.getThenRegion().front());
                  scf::YieldOp::create(b, loc, grads);
                  b.setInsertionPointToStart(&ifKeep.getElseRegion().front());
                  // grad_hidden rows += du W; grad_classifier rows += du^T h;
                  // grad_bias += column sums of du.
                  Value ghRows = slice(in[0], {n0, zero}, {rows, features});
                  ghRows = contract(
                      {du, wRows},
                      {map(3, {0, 2}), map(3, {2, 1}), map(3, {0, 1})}, ghRows,
                      3);
                  SmallVector<Value> next = {
                      insert(ghRows, in[0], {n0, zero}, {rows, features}),
                      contract({du, hRows},
                               {map(3, {2, 0}), map(3, {2, 1}), map(3, {0, 1})},
                               in[1], 3)};
                  if (withBias)
                    next.push_back(contract(
                        {du}, {map(2, {1, 0}), map(2, {0})}, in[2], 2));
                  scf::YieldOp::create(b, loc, next);
                }
                SmallVector<Value> out(ifKeep.getResults());
                out.push_back(skip);
                scf::YieldOp::create(b, loc, out);
              }
              // Counts: tiles, filtered, filtered before recomputing.
              SmallVector<Value> yields(ifBounded.getResults().drop_back());
              Value filtered = arith::OrIOp::create(
                  b, loc, bounded, ifBounded.getResults().back());
              unsigned n = in.size();
              yields.push_back(arith::AddIOp::create(b, loc, in[n - 3], one64));
              yields.push_back(arith::AddIOp::create(
                  b, loc, in[n - 2],
                  arith::ExtUIOp::create(b, loc, i64, filtered)));
              yields.push_back(arith::AddIOp::create(
                  b, loc, in[n - 1],
                  arith::ExtUIOp::create(b, loc, i64, bounded)));
              scf::YieldOp::create(b, loc, yields);
            });
        // The tile's rows of grad_classifier (and grad_bias), rounded once.
        Value gwRows = slice(st[1], {v0, zero}, {size, features});
        SmallVector<Value> next = {
            inner.getResult(0), insert(convertInto(inner.getResult(1), gwRows),
                                       st[1], {v0, zero}, {size, features})};
        if (withBias)
          next.push_back(insert(
              convertInto(inner.getResult(2), slice(st[2], {v0}, {size})),
              st[2], {v0}, {size}));
        for (Value count : inner.getResults().take_back(3))
          next.push_back(count);
        scf::YieldOp::create(b, loc, next);
      });
  SmallVector<Value> results = {
      convertInto(outer.getResult(0), op.getGradHiddenInit()),
      outer.getResult(1)};
  if (withBias)
    results.push_back(outer.getResult(2));
  if (Value counts = op.getFilterCountsInit()) {
    int64_t size = cast<ShapedType>(counts.getType()).getDimSize(0);
    ResultRange totals = outer.getResults().take_back(3);
    for (int64_t i = 0; i < size; ++i)
      counts = tensor::InsertOp::create(b, loc, totals[i], counts,
                                        ValueRange{idx(i)});
    results.push_back(counts);
  }
  return results;
}

namespace {
struct DecomposeLinearCrossEntropyGrad
    : public OpRewritePattern<LinearCrossEntropyGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearCrossEntropyGradOp op,
                                PatternRewriter &rewriter) const override {
    // On memrefs the op is the GPU mapping's.
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "on memrefs");
    rewriter.replaceOp(op, GradDecomposer(rewriter, op).build());
    return success();
  }
};
} // namespace

void mlir::softmax::detail::populateCrossEntropyGradDecomposePatterns(
    RewritePatternSet &patterns) {
  patterns.add<DecomposeLinearCrossEntropyGrad>(patterns.getContext());
}
