//===- AttentionDecompose.cpp - softmax.attention -> linalg + state ops ---===//
//
// The reference lowering of softmax.attention (AggregatedOpInterface): two
// linalg.generic contractions around softmax.partial, in f32 throughout, so
// that any target with a linalg path runs attention and the fused kernels
// (CPU, GPU) have something to be checked against. The key/value head of
// query head h is h floordiv (H / Hkv), an affine expression in the
// contractions' indexing maps; causal, window and mask tests read the
// column index through linalg.index.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/AttentionDecompose.h"

#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

//===----------------------------------------------------------------------===//
// AttentionDecomposer
//===----------------------------------------------------------------------===//

static SmallVector<utils::IteratorType> parallelThenReduction(int64_t parallel,
                                                              bool reduction) {
  SmallVector<utils::IteratorType> it(parallel, utils::IteratorType::parallel);
  if (reduction)
    it.push_back(utils::IteratorType::reduction);
  return it;
}

AttentionDecomposer::AttentionDecomposer(OpBuilder &b, AttentionOp op)
    : b(b), op(op), loc(op.getLoc()), f32(Float32Type::get(op.getContext())),
      batch(getAttentionSize(b, op, AttentionDim::B)),
      heads(getAttentionSize(b, op, AttentionDim::H)),
      queries(getAttentionSize(b, op, AttentionDim::Nq)),
      keys(getAttentionSize(b, op, AttentionDim::Nk)),
      valueDim(getAttentionSize(b, op, AttentionDim::Dv)),
      group(getStaticHeadGroup(op)) {}

Value AttentionDecomposer::fill(ArrayRef<OpFoldResult> sizes,
                                const APFloat &value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, f32);
  Value cst = arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, value));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

Value AttentionDecomposer::index(OpFoldResult v) {
  return getValueOrCreateConstantIndexOp(b, loc, v);
}

AffineExpr AttentionDecomposer::kvHead(AffineExpr h) const {
  if (getStaticAttentionSize(op, AttentionDim::Hkv) == 1)
    return getAffineConstantExpr(0, h.getContext());
  // floorDiv(1) folds to h itself: multi-head maps stay projections.
  return h.floorDiv(*group);
}

Value AttentionDecomposer::scores(Value key, Value mask,
                                  OpFoldResult keyOffset) {
  MLIRContext *ctx = op.getContext();
  OpFoldResult n = tensor::getMixedSize(b, loc, key, 2);
  Value zero = fill({batch, heads, queries, n}, APFloat(0.0f));

  // dot[b, h, i, j] = sum_d q[b, h, i, d] * k[b, g(h), j, d], in f32.
  AffineExpr bb, h, i, j, d;
  bindDims(ctx, bb, h, i, j, d);
  SmallVector<AffineMap> contractMaps = {
      AffineMap::get(5, 0, {bb, h, i, d}, ctx),
      AffineMap::get(5, 0, {bb, kvHead(h), j, d}, ctx),
      AffineMap::get(5, 0, {bb, h, i, j}, ctx)};
  Value dot =
      linalg::GenericOp::create(
          b, loc, zero.getType(), ValueRange{op.getQuery(), key}, zero,
          contractMaps, parallelThenReduction(4, true),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            StateMath sm(nb, l, f32);
            linalg::YieldOp::create(
                nb, l,
                sm.add(args[2], sm.mul(sm.toAcc(args[0]), sm.toAcc(args[1]))));
          })
          .getResult(0);

  // s = scale * dot (+ mask), -inf where a key is hidden.
  float scale = *op.getScaleOrDefault();
  bool causal = op.getCausal();
  std::optional<uint64_t> window = op.getWindow();
  AffineExpr b4, h4, i4, j4;
  bindDims(ctx, b4, h4, i4, j4);
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  bool boolMask = false;
  if (mask) {
    auto maskType = cast<ShapedType>(mask.getType());
    boolMask = maskType.getElementType().isInteger(1);
    AffineExpr zeroExpr = getAffineConstantExpr(0, ctx);
    // A static 1 in the mask's batch or head dimension broadcasts.
    AffineExpr mb = maskType.getDimSize(0) == 1 ? zeroExpr : b4;
    AffineExpr mh = maskType.getDimSize(1) == 1 ? zeroExpr : h4;
    ins.push_back(mask);
    maps.push_back(AffineMap::get(4, 0, {mb, mh, i4, j4}, ctx));
  }
  // A ragged entry's key count L_b (key_lengths) takes Nk's place.
  Value lengths = op.getKeyLengths();
  if (lengths) {
    ins.push_back(lengths);
    maps.push_back(AffineMap::get(4, 0, {b4}, ctx));
  }
  maps.push_back(id4);
  // Key j of this slice is key j + keyOffset of the op; query i's
  // bottom-right-aligned diagonal is i + (Nk - Nq), over all Nk keys.
  Value nk = index(keys), nq = index(queries), firstKey, denseShift;
  if (causal || window || lengths)
    firstKey = index(keyOffset);
  if ((causal || window) && !lengths)
    denseShift = arith::SubIOp::create(b, loc, nk, nq);
  return linalg::GenericOp::create(
             b, loc, dot.getType(), ins, dot, maps,
             parallelThenReduction(4, false),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               StateMath sm(nb, l, f32);
               Value s = sm.mul(args.back(), sm.cst(scale));
               if (mask)
                 s = boolMask ? sm.select(args[0], s, sm.negInf())
                              : sm.add(s, sm.toAcc(args[0]));
               if (!causal && !window && !lengths) {
                 linalg::YieldOp::create(nb, l, s);
                 return;
               }
               Value row = causal || window
                               ? linalg::IndexOp::create(nb, l, 2).getResult()
                               : Value();
               Value col = arith::AddIOp::create(
                   nb, l, linalg::IndexOp::create(nb, l, 3), firstKey);
               Value keyCount = nk, visible;
               if (lengths) {
                 keyCount = clampKeyLength(nb, l, args[mask ? 1 : 0], nk);
                 visible = arith::CmpIOp::create(
                     nb, l, arith::CmpIPredicate::slt, col, keyCount);
               }
               if (causal || window) {
                 Value diagShift =
                     lengths ? arith::SubIOp::create(nb, l, keyCount, nq)
                                   .getResult()
                             : denseShift;
                 // dist = (i + Nk - Nq) - j, the distance from the diagonal.
                 Value dist = arith::SubIOp::create(
                     nb, l, arith::AddIOp::create(nb, l, row, diagShift), col);
                 auto cmp = [&](arith::CmpIPredicate p, int64_t c) -> Value {
                   Value cst = arith::ConstantIndexOp::create(nb, l, c);
                   return arith::CmpIOp::create(nb, l, p, dist, cst);
                 };
                 using P = arith::CmpIPredicate;
                 auto both = [&](Value x, Value y) -> Value {
                   return x ? arith::AndIOp::create(nb, l, x, y).getResult()
                            : y;
                 };
                 if (causal)
                   visible = both(visible, cmp(P::sge, 0));
                 if (window) {
                   int64_t w = static_cast<int64_t>(*window);
                   Value near = cmp(P::slt, w);
                   if (!causal)
                     near = arith::AndIOp::create(nb, l, near, cmp(P::sgt, -w));
                   visible = both(visible, near);
                 }
               }
               linalg::YieldOp::create(nb, l,
                                       sm.select(visible, s, sm.negInf()));
             })
      .getResult(0);
}

std::pair<Value, Value> AttentionDecomposer::state(Value scores) {
  const llvm::fltSemantics &sem = f32.getFloatSemantics();
  SmallVector<OpFoldResult> sizes = {batch, heads, queries};
  Value m0 = fill(sizes, APFloat::getLargest(sem, /*Negative=*/true));
  Value l0 = fill(sizes, APFloat::getZero(sem));
  Value c0 = fill(sizes, APFloat::getZero(sem));
  Type t = m0.getType();
  auto partial = PartialOp::create(b, loc, t, t, t, scores, m0, l0, c0,
                                   /*dimension=*/3, Algorithm::Online);
  return {partial.getMax(), partial.getSum()};
}

Value AttentionDecomposer::weightedValues(Value scores, Value max,
                                          Value value) {
  MLIRContext *ctx = op.getContext();
  AffineExpr bb, h, i, n, j;
  bindDims(ctx, bb, h, i, n, j);
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap rowOf4 = AffineMap::get(4, 0, {bb, h, i}, ctx);

  // p = exp(s - m): 0 for a hidden key, as m is finite (at least -FLT_MAX).
  Value p = linalg::GenericOp::create(
                b, loc, scores.getType(), max, scores, {rowOf4, id4},
                parallelThenReduction(4, false),
                [&](OpBuilder &nb, Location l, ValueRange args) {
                  StateMath sm(nb, l, f32);
                  linalg::YieldOp::create(
                      nb, l, sm.term(StateKind::Max, args[1], args[0]));
                })
                .getResult(0);

  // o[b, h, i, n] = sum_j p[b, h, i, j] * v[b, g(h), j, n], in f32.
  Value zero = fill({batch, heads, queries, valueDim}, APFloat(0.0f));
  SmallVector<AffineMap> maps = {AffineMap::get(5, 0, {bb, h, i, j}, ctx),
                                 AffineMap::get(5, 0, {bb, kvHead(h), j, n}, ctx),
                                 AffineMap::get(5, 0, {bb, h, i, n}, ctx)};
  return linalg::GenericOp::create(
             b, loc, zero.getType(), ValueRange{p, value}, zero, maps,
             parallelThenReduction(4, true),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               StateMath sm(nb, l, f32);
               linalg::YieldOp::create(
                   nb, l, sm.add(args[2], sm.mul(args[0], sm.toAcc(args[1]))));
             })
      .getResult(0);
}

std::array<Value, 3> AttentionDecomposer::identity() {
  const llvm::fltSemantics &sem = f32.getFloatSemantics();
  return {fill({batch, heads, queries}, APFloat::getLargest(sem, true)),
          fill({batch, heads, queries}, APFloat::getZero(sem)),
          fill({batch, heads, queries, valueDim}, APFloat::getZero(sem))};
}

SmallVector<Value> AttentionDecomposer::finish(Value max, Value sum,
                                               Value acc) {
  MLIRContext *ctx = op.getContext();
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap rowOf4 = id4.getMajorSubMap(3);
  Type outElt = cast<ShapedType>(op.getOutput().getType()).getElementType();
  MaskedRows masked = op.getMasked();
  // o / l, or the masked value for a row that saw no key (l = 0).
  SmallVector<Value> results = {
      linalg::GenericOp::create(
          b, loc, op.getOutput().getType(), ValueRange{acc, sum},
          op.getOutput(), {id4, rowOf4, id4}, parallelThenReduction(4, false),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            StateMath sm(nb, l, f32);
            Value y = sm.maskRow(masked, /*probability=*/true, args[1],
                                 sm.div(args[0], args[1]));
            linalg::YieldOp::create(nb, l, sm.fromAcc(y, outElt));
          })
          .getResult(0)};
  if (Value lse = op.getLse())
    results.push_back(LseOp::create(b, loc, lse.getType(), max, sum, lse,
                                    StateKind::Max, masked));
  return results;
}

Value mlir::softmax::extractSliceOrEmpty(OpBuilder &b, Location loc,
                                         Value source,
                                         ArrayRef<OpFoldResult> offsets,
                                         ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(source.getType());
  if (llvm::is_contained(type.getShape(), 0))
    return tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

//===----------------------------------------------------------------------===//
// AggregatedOpInterface
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> mlir::softmax::decomposeAttention(OpBuilder &b,
                                                               AttentionOp op) {
  if (std::optional<std::string> why = whyAttentionNotDecomposable(op))
    return op.emitOpError(*why);
  // Over all keys at once there is no key tile to skip: dropping the
  // threshold would silently compute the dense op.
  if (op.hasSkipThreshold())
    return op.emitOpError(
        "has a skip threshold, which the decomposition over all keys cannot "
        "honour; decompose it tiled along its keys (softmax-decompose, "
        "tileAttentionAlongKeys)");
  if (op.isPaged()) {
    // The reference of paging: gather, then decompose the dense op, which
    // only this function sees.
    AttentionOp dense = buildGatheredAttention(b, op);
    FailureOr<SmallVector<Value>> results = decomposeAttention(b, dense);
    dense.erase();
    return results;
  }
  AttentionDecomposer parts(b, op);
  Value scores = parts.scores(op.getKey(), op.getMask(), b.getIndexAttr(0));
  auto online = [&]() -> SmallVector<Value> {
    auto [max, sum] = parts.state(scores);
    return {max, sum, parts.weightedValues(scores, max, op.getValue())};
  };
  if (!op.hasUnifiedMax()) {
    SmallVector<Value> st = online();
    return parts.finish(st[0], st[1], st[2]);
  }
  // Terms at phi; the online state only if some row's sum is out of range.
  Value phi = parts.unifiedOffset();
  Value sum = parts.unifiedSum(scores);
  Value acc = parts.weightedValues(scores, phi, op.getValue());
  SmallVector<Value> st = parts.unifiedOrOnline(sum, {phi, sum, acc}, online);
  return parts.finish(st[0], st[1], st[2]);
}

namespace {
struct AttentionAggregatedModel
    : public linalg::AggregatedOpInterface::ExternalModel<
          AttentionAggregatedModel, AttentionOp> {
  FailureOr<SmallVector<Value>> decomposeOperation(Operation *op,
                                                   OpBuilder &b) const {
    return decomposeAttention(b, cast<AttentionOp>(op));
  }
};
} // namespace

void mlir::softmax::registerAttentionDecomposeExternalModel(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SoftmaxDialect *) {
    AttentionOp::attachInterface<AttentionAggregatedModel>(*ctx);
  });
}
