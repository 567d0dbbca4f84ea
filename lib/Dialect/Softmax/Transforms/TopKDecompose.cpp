//===- TopKDecompose.cpp - softmax.topk to linalg
//--------------------------===//
//
// The reference form of the fused softmax + top-k, on tensors: the rows'
// lse (softmax.logsumexp, online), then k selection passes, each a
// linalg reduction over the row that finds the next element in the order
// (value descending, index ascending) after the one the last pass chose;
// an element is eligible when it comes after that one in the order, so a
// pass needs no mask of what was taken. k passes over the row: a
// reference, not the one-read kernel the op describes (upstream has no
// top-k: linalg has reductions, not a selection).
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

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
using utils::IteratorType;

namespace {
struct DecomposeTopK : public OpRewritePattern<TopKOp> {
  DecomposeTopK(MLIRContext *ctx, std::function<bool(Operation *)> filter)
      : OpRewritePattern(ctx), filter(std::move(filter)) {}
  LogicalResult matchAndRewrite(TopKOp op, PatternRewriter &b) const override {
    if (filter && !filter(op))
      return b.notifyMatchFailure(op, "rejected by the filter");
    // The reference is on tensors; the memref form is the GPU mapping's.
    if (!isa<RankedTensorType>(op.getInput().getType()))
      return b.notifyMatchFailure(op, "on memrefs");
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value x = op.getInput();
    Type f32 = b.getF32Type(), i64 = b.getI64Type();
    OpFoldResult rows = tensor::getMixedSize(b, loc, x, 0);
    auto f32c = [&](OpBuilder &nb, double v) -> Value {
      return arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(v));
    };
    auto fill = [&](Type elt, Attribute v) -> Value {
      Value empty = tensor::EmptyOp::create(b, loc, {rows}, elt);
      Value c = arith::ConstantOp::create(b, loc, cast<TypedAttr>(v));
      return linalg::FillOp::create(b, loc, c, empty).getResult(0);
    };
    double inf = std::numeric_limits<double>::infinity();
    Value lse =
        LogSumExpOp::create(b, loc, fill(f32, b.getF32FloatAttr(0)).getType(),
                            x, fill(f32, b.getF32FloatAttr(0)),
                            /*dimension=*/1, MaskedRows::Zero,
                            Algorithm::Online, nullptr)
            .getResult();
    AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row2 = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    Type idxElt =
        cast<RankedTensorType>(op.getIndicesInit().getType()).getElementType();
    Value lpInit = op.getLogProbsInit();
    SmallVector<Value> init = {fill(f32, b.getF32FloatAttr(inf)),
                               fill(i64, b.getI64IntegerAttr(-1)),
                               op.getProbsInit(), op.getIndicesInit()};
    if (lpInit)
      init.push_back(lpInit);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value kv = arith::ConstantIndexOp::create(b, loc, op.getK());
    auto loop = scf::ForOp::create(
        b, loc, zero, kv, one, init,
        [&](OpBuilder &lb, Location, Value j, ValueRange st) {
          // The next element in the order after (st[0], st[1]).
          Value bestInit[] = {fill(f32, b.getF32FloatAttr(-inf)),
                              fill(i64, b.getI64IntegerAttr(-1))};
          auto best = linalg::GenericOp::create(
              lb, loc, TypeRange{bestInit[0].getType(), bestInit[1].getType()},
              ValueRange{x, st[0], st[1]}, ValueRange(bestInit),
              ArrayRef<AffineMap>{id2, row2, row2, row2, row2},
              ArrayRef<IteratorType>{IteratorType::parallel,
                                     IteratorType::reduction},
              [&](OpBuilder &nb, Location, ValueRange a) {
                using FP = arith::CmpFPredicate;
                using IP = arith::CmpIPredicate;
                Value xv = a[0];
                if (xv.getType() != f32)
                  xv = arith::ExtFOp::create(nb, loc, f32, xv);
                Value i = arith::IndexCastOp::create(
                    nb, loc, i64, linalg::IndexOp::create(nb, loc, 1));
                auto andI = [&](Value p, Value q) -> Value {
                  return arith::AndIOp::create(nb, loc, p, q);
                };
                auto orI = [&](Value p, Value q) -> Value {
                  return arith::OrIOp::create(nb, loc, p, q);
                };
                // Ordered compares: a NaN is never eligible.
                Value after =
                    orI(arith::CmpFOp::create(nb, loc, FP::OLT, xv, a[1]),
                        andI(arith::CmpFOp::create(nb, loc, FP::OEQ, xv, a[1]),
                             arith::CmpIOp::create(nb, loc, IP::sgt, i, a[2])));
                Value none = arith::CmpIOp::create(
                    nb, loc, IP::slt, a[4],
                    arith::ConstantIntOp::create(nb, loc, 0, 64));
                Value better =
                    orI(orI(none,
                            arith::CmpFOp::create(nb, loc, FP::OGT, xv, a[3])),
                        andI(arith::CmpFOp::create(nb, loc, FP::OEQ, xv, a[3]),
                             arith::CmpIOp::create(nb, loc, IP::slt, i, a[4])));
                Value take = andI(after, better);
                linalg::YieldOp::create(
                    nb, loc,
                    ValueRange{
                        arith::SelectOp::create(nb, loc, take, xv, a[3]),
                        arith::SelectOp::create(nb, loc, take, i, a[4])});
              });
          Value bv = best.getResult(0), bi = best.getResult(1);
          // Column j: p = exp(x - lse), log p = x - lse; index -1 and
          // probability 0 where nothing was left, 0 where lse is -inf.
          SmallVector<Value> colInit = {
              fill(f32, b.getF32FloatAttr(0)),
              fill(idxElt, b.getIntegerAttr(idxElt, 0)),
              fill(f32, b.getF32FloatAttr(0))};
          SmallVector<Type> colTypes;
          for (Value v : colInit)
            colTypes.push_back(v.getType());
          auto cols = linalg::GenericOp::create(
              lb, loc, colTypes, ValueRange{bv, bi, lse}, colInit,
              SmallVector<AffineMap>(6, id1),
              ArrayRef<IteratorType>{IteratorType::parallel},
              [&](OpBuilder &nb, Location, ValueRange a) {
                Value none = arith::CmpIOp::create(
                    nb, loc, arith::CmpIPredicate::slt, a[1],
                    arith::ConstantIntOp::create(nb, loc, 0, 64));
                Value empty = arith::CmpFOp::create(
                    nb, loc, arith::CmpFPredicate::OEQ, a[2], f32c(nb, -inf));
                Value gone = arith::OrIOp::create(nb, loc, none, empty);
                Value lp = arith::SubFOp::create(nb, loc, a[0], a[2]);
                Value p = math::ExpOp::create(nb, loc, lp);
                Value idx = a[1];
                if (idxElt != i64)
                  idx = arith::TruncIOp::create(nb, loc, idxElt, idx);
                linalg::YieldOp::create(
                    nb, loc,
                    ValueRange{
                        arith::SelectOp::create(nb, loc, gone, f32c(nb, 0), p),
                        idx,
                        arith::SelectOp::create(nb, loc, gone, f32c(nb, -inf),
                                                lp)});
              });
          SmallVector<Value> next = {bv, bi};
          // Column j as a [B, 1] slice (the unit dimension static, so the
          // [B] column inserts rank-reduced).
          SmallVector<OpFoldResult> offsets = {lb.getIndexAttr(0), j};
          SmallVector<OpFoldResult> sizes = {rows, lb.getIndexAttr(1)};
          SmallVector<OpFoldResult> strides(2, lb.getIndexAttr(1));
          for (unsigned o = 0; o < (lpInit ? 3u : 2u); ++o)
            next.push_back(tensor::InsertSliceOp::create(
                lb, loc, cols.getResult(o), st[2 + o], offsets, sizes,
                strides));
          scf::YieldOp::create(lb, loc, next);
        });
    SmallVector<Value> results = {loop.getResult(2), loop.getResult(3)};
    if (lpInit)
      results.push_back(loop.getResult(4));
    b.replaceOp(op, results);
    return success();
  }
  std::function<bool(Operation *)> filter;
};
} // namespace

void mlir::softmax::populateSoftmaxTopKDecomposePatterns(
    RewritePatternSet &patterns, std::function<bool(Operation *)> filter) {
  patterns.add<DecomposeTopK>(patterns.getContext(), std::move(filter));
}
