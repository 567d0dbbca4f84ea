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

#include "softmax-mlir/Dialect/Softmax/IR/AttentionDecompose.h"

#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// Where an attention size can be read: dimension `index` of `operand`.
/// The mask's batch and head dimensions broadcast when they are a static
/// 1, so they tell nothing about B and H.
struct DimSource {
  Value operand;
  int64_t index;
  bool broadcasts = false;
};
} // namespace

static SmallVector<DimSource> sourcesOf(AttentionOp op, AttentionDim dim) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value o = op.getOutput(), lse = op.getLse(), mask = op.getMask();
  SmallVector<DimSource> sources;
  auto add = [&](Value x, int64_t index, bool broadcasts = false) {
    if (x)
      sources.push_back({x, index, broadcasts});
  };
  switch (dim) {
  case AttentionDim::B:
    for (Value x : {q, k, v, o, lse})
      add(x, 0);
    add(mask, 0, /*broadcasts=*/true);
    break;
  case AttentionDim::H:
    for (Value x : {q, o, lse})
      add(x, 1);
    add(mask, 1, /*broadcasts=*/true);
    break;
  case AttentionDim::Hkv:
    add(k, 1);
    add(v, 1);
    break;
  case AttentionDim::Nq:
    for (Value x : {q, o, lse, mask})
      add(x, 2);
    break;
  case AttentionDim::Nk:
    add(k, 2);
    add(v, 2);
    add(mask, 3);
    break;
  case AttentionDim::D:
    add(q, 3);
    add(k, 3);
    break;
  case AttentionDim::Dv:
    add(v, 3);
    add(o, 3);
    break;
  }
  return sources;
}

std::optional<int64_t> mlir::softmax::getStaticAttentionSize(AttentionOp op,
                                                             AttentionDim dim) {
  for (const DimSource &s : sourcesOf(op, dim)) {
    int64_t size = cast<ShapedType>(s.operand.getType()).getDimSize(s.index);
    if (!ShapedType::isDynamic(size) && !(s.broadcasts && size == 1))
      return size;
  }
  return std::nullopt;
}

OpFoldResult mlir::softmax::getAttentionSize(OpBuilder &b, AttentionOp op,
                                             AttentionDim dim) {
  if (std::optional<int64_t> size = getStaticAttentionSize(op, dim))
    return b.getIndexAttr(*size);
  // Query, key and value come first in every list, and they always exist.
  DimSource first = sourcesOf(op, dim).front();
  if (isa<RankedTensorType>(first.operand.getType()))
    return tensor::getMixedSize(b, op.getLoc(), first.operand, first.index);
  return memref::getMixedSize(b, op.getLoc(), first.operand, first.index);
}

bool mlir::softmax::coversAttentionDim(AttentionOp op, AttentionDim dim,
                                       OpFoldResult offset,
                                       OpFoldResult size) {
  if (!isConstantIntValue(offset, 0))
    return false;
  if (std::optional<int64_t> full = getStaticAttentionSize(op, dim))
    return getConstantIntValue(size) == full;
  // A dynamic size is whole if it is the size of an operand that has it:
  // what getIterationDomain hands to the tiling drivers.
  auto value = dyn_cast<Value>(size);
  auto dimOp = value ? value.getDefiningOp<tensor::DimOp>() : tensor::DimOp();
  if (!dimOp)
    return false;
  return llvm::any_of(sourcesOf(op, dim), [&](const DimSource &s) {
    return !s.broadcasts && dimOp.getSource() == s.operand &&
           getConstantIntValue(dimOp.getIndex()) == s.index;
  });
}

std::optional<int64_t> mlir::softmax::getStaticHeadGroup(AttentionOp op) {
  std::optional<int64_t> heads = getStaticAttentionSize(op, AttentionDim::H);
  std::optional<int64_t> kvHeads = getStaticAttentionSize(op, AttentionDim::Hkv);
  if (!heads || !kvHeads)
    return std::nullopt;
  // H = Hkv = 0 is valid and empty; any group size reads the right heads.
  return *kvHeads == 0 ? 1 : *heads / *kvHeads;
}

/// True if every query head reads key/value head 0, whatever H is.
static bool hasOneKvHead(AttentionOp op) {
  return getStaticAttentionSize(op, AttentionDim::Hkv) == 1;
}

static std::string sizeString(std::optional<int64_t> size) {
  return size ? std::to_string(*size) : std::string("?");
}

std::optional<std::string>
mlir::softmax::whyAttentionNotDecomposable(AttentionOp op) {
  if (!isa<RankedTensorType>(op.getQuery().getType()))
    return std::string("decomposition expects tensors; run softmax-decompose "
                       "before bufferization");
  if (!op.getScaleOrDefault())
    return std::string("has no scale and no static head dimension");
  // linalg indexing maps take no symbols, so the group size must be a
  // constant of the key/value maps (h floordiv G).
  if (!hasOneKvHead(op) && !getStaticHeadGroup(op))
    return "decomposition needs a static number of query heads per "
           "key/value head (H and Hkv static, or Hkv = 1), got H = " +
           sizeString(getStaticAttentionSize(op, AttentionDim::H)) +
           ", Hkv = " + sizeString(getStaticAttentionSize(op, AttentionDim::Hkv));
  return std::nullopt;
}

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
  if (hasOneKvHead(op))
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
  maps.push_back(id4);
  // Key j of this slice is key j + keyOffset of the op; query i's
  // bottom-right-aligned diagonal is i + (Nk - Nq), over all Nk keys.
  Value diagShift, firstKey;
  if (causal || window) {
    diagShift = arith::SubIOp::create(b, loc, index(keys), index(queries));
    firstKey = index(keyOffset);
  }
  return linalg::GenericOp::create(
             b, loc, dot.getType(), ins, dot, maps,
             parallelThenReduction(4, false),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               StateMath sm(nb, l, f32);
               Value s = sm.mul(args.back(), sm.cst(scale));
               if (mask)
                 s = boolMask ? sm.select(args[0], s, sm.negInf())
                              : sm.add(s, sm.toAcc(args[0]));
               if (causal || window) {
                 Value row = linalg::IndexOp::create(nb, l, 2);
                 Value col = arith::AddIOp::create(
                     nb, l, linalg::IndexOp::create(nb, l, 3), firstKey);
                 // dist = (i + Nk - Nq) - j, the distance from the diagonal.
                 Value dist = arith::SubIOp::create(
                     nb, l, arith::AddIOp::create(nb, l, row, diagShift), col);
                 auto cmp = [&](arith::CmpIPredicate p, int64_t c) -> Value {
                   Value cst = arith::ConstantIndexOp::create(nb, l, c);
                   return arith::CmpIOp::create(nb, l, p, dist, cst);
                 };
                 using P = arith::CmpIPredicate;
                 Value visible;
                 if (causal)
                   visible = cmp(P::sge, 0);
                 if (window) {
                   int64_t w = static_cast<int64_t>(*window);
                   Value near = cmp(P::slt, w);
                   if (!causal)
                     near = arith::AndIOp::create(nb, l, near, cmp(P::sgt, -w));
                   visible = visible ? arith::AndIOp::create(nb, l, visible, near)
                                           .getResult()
                                     : near;
                 }
                 s = sm.select(visible, s, sm.negInf());
               }
               linalg::YieldOp::create(nb, l, s);
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
                  linalg::YieldOp::create(nb, l,
                                          sm.exp(sm.sub(args[1], args[0])));
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
            Value y = sm.select(sm.eq(args[1], sm.cst(0.0)),
                                sm.maskedValue(masked, /*probability=*/true),
                                sm.div(args[0], args[1]));
            linalg::YieldOp::create(nb, l, sm.fromAcc(y, outElt));
          })
          .getResult(0)};
  if (Value lse = op.getLse())
    results.push_back(LseOp::create(b, loc, lse.getType(), max, sum, lse,
                                    StateKind::Max, masked));
  return results;
}

//===----------------------------------------------------------------------===//
// AggregatedOpInterface
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> AttentionOp::decomposeOperation(OpBuilder &b) {
  if (std::optional<std::string> why = whyAttentionNotDecomposable(*this))
    return emitOpError(*why);
  AttentionDecomposer parts(b, *this);
  Value scores = parts.scores(getKey(), getMask(), b.getIndexAttr(0));
  auto [max, sum] = parts.state(scores);
  Value acc = parts.weightedValues(scores, max, getValue());
  return parts.finish(max, sum, acc);
}
