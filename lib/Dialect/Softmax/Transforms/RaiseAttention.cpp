//===- RaiseAttention.cpp - linalg attention -> softmax.attention ---------===//
//
// Front ends spell attention as five linalg steps: S = Q K^T (a batched
// matmul that transposes K through its indexing maps, or after an explicit
// transpose), a scale, an optional additive mask, a softmax over the last
// dimension, and O = P V. The pattern is rooted at the P V product and walks
// back. The scale and the mask are elementwise and may be split over several
// ops or fused into one, so, as in Raise.cpp, they are matched on what one
// element of the softmax input stands for, not on ops. The softmax itself
// is matched as an op: the decomposed forms become softmax.softmax through
// the patterns of Raise.cpp first.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "RaiseUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::softmax;
using raise::isElementwise;
using raise::kAttentionShapedStage;
using raise::Why;

/// The stage of a failure before P is known to be a softmax: not
/// attention-shaped, not reported.
constexpr int kBeforeShaped = kAttentionShapedStage - 1;

namespace {

bool isAttentionFloat(Type type) {
  return isa<Float16Type, BFloat16Type, Float32Type>(type);
}

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

double toDouble(APFloat value) {
  bool losesInfo;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

// The element views of this file do not look through reshapes: the head
// flattening around the matmuls is matched explicitly below, in the frame
// of the scores. Extents are left unknown so that maps compare as written.
using Elem = Element;

ElementView viewOf(MLIRContext *ctx, AffineMap map) {
  unsigned rank = map ? map.getNumDims() : 0;
  return ElementView(ctx, SmallVector<int64_t>(rank, ShapedType::kDynamic),
                     /*throughReshapes=*/false);
}

Elem elementOf(Value tensor, AffineMap map) {
  return viewOf(tensor.getContext(), map).elementOf(tensor, map);
}

Elem resolve(Value scalar, AffineMap map) {
  return viewOf(scalar.getContext(), map).resolve(scalar, map);
}

Elem skipCasts(Elem e) {
  if (!e.map)
    return e;
  return viewOf(e.map.getContext(), e.map).skipNarrowCasts(e);
}

//===----------------------------------------------------------------------===//
// Scale and mask
//===----------------------------------------------------------------------===//

/// A tensor read at the root's own indices, times a constant.
struct Scaled {
  Value tensor;
  double scale = 1.0;
};

/// Whether `map` reads a tensor of the root's `shape` at the root's own
/// indices; a unit dimension may be read at 0 (torch-mlir's broadcast
/// copies spell a batch of 1 so).
bool isOwnIndices(AffineMap map, ArrayRef<int64_t> shape) {
  if (map.getNumResults() != shape.size() || map.getNumDims() != shape.size())
    return false;
  for (auto [p, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!(d && d.getPosition() == p) &&
        !(c && c.getValue() == 0 && shape[p] == 1))
      return false;
  }
  return true;
}

/// t, t * c, c * t or t / c, nested any number of times, with t read at
/// the indices of a root of `shape`.
std::optional<Scaled> matchScaled(Elem e, ArrayRef<int64_t> shape) {
  e = skipCasts(e);
  if (e.isRead()) {
    if (!isOwnIndices(e.map, shape) ||
        cast<ShapedType>(e.tensor.getType()).getShape() != shape)
      return std::nullopt;
    return Scaled{e.tensor, 1.0};
  }
  auto constantOf = [&](Value v) -> std::optional<double> {
    Elem c = skipCasts(resolve(v, e.map));
    if (!c.constant)
      return std::nullopt;
    return toDouble(*c.constant);
  };
  if (auto mul = e.def<arith::MulFOp>()) {
    for (auto [t, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      std::optional<double> k = constantOf(c);
      if (!k)
        continue;
      if (std::optional<Scaled> inner = matchScaled(resolve(t, e.map), shape))
        return Scaled{inner->tensor, inner->scale * *k};
    }
    return std::nullopt;
  }
  if (auto div = e.def<arith::DivFOp>()) {
    std::optional<double> k = constantOf(div.getRhs());
    if (!k)
      return std::nullopt;
    if (std::optional<Scaled> inner =
            matchScaled(resolve(div.getLhs(), e.map), shape))
      return Scaled{inner->tensor, inner->scale / *k};
  }
  return std::nullopt;
}

/// The softmax input: scale * S, plus the mask when there is one.
struct ScoreExpr {
  Value scores;
  double scale = 1.0;
  /// The mask: a tensor read at `maskMap`, or, when the graph computes it
  /// in the same body as the scores, the terms whose sum it is, to be
  /// materialized as a tensor of `termsType` read at `maskMap`.
  Value mask;
  AffineMap maskMap;
  SmallVector<Elem> maskTerms;
  RankedTensorType termsType;

  bool hasMask() const { return mask || !maskTerms.empty(); }
  ShapedType maskType() const {
    return mask ? cast<ShapedType>(mask.getType()) : termsType;
  }
};

/// Marks the dimensions of the root that `e` depends on.
bool markUsedDims(const Elem &e, SmallVectorImpl<bool> &used,
                  unsigned depth = 0) {
  if (depth > ElementView::kMaxDepth || !e.isKnown())
    return false;
  if (e.kind == Elem::Kind::Read || e.kind == Elem::Kind::Index) {
    for (unsigned d = 0; d < used.size(); ++d)
      used[d] = used[d] || e.map.isFunctionOfDim(d);
    return true;
  }
  if (e.kind != Elem::Kind::Scalar || !e.map)
    return true;
  Operation *op = e.scalar.getDefiningOp();
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (!markUsedDims(resolve(op->getOperand(i), e.map), used, depth + 1))
      return false;
  return true;
}

/// The mask is added after scaling, as the op does; (S + M) * c would scale
/// the mask too and is not matched.
std::optional<ScoreExpr>
matchScoreExpr(Value input, unsigned rank,
               llvm::function_ref<bool(Value)> isScores) {
  MLIRContext *ctx = input.getContext();
  ArrayRef<int64_t> shape = cast<ShapedType>(input.getType()).getShape();
  Elem root =
      skipCasts(elementOf(input, AffineMap::getMultiDimIdentityMap(rank, ctx)));
  // A constant added to every score (HF TF's `stable_softmax` adds 1e-9)
  // cancels in the softmax, up to the rounding of the sum: dropped.
  while (root.def<arith::AddFOp>() || root.def<arith::SubFOp>()) {
    Operation *op = root.scalar.getDefiningOp();
    Elem rhs = skipCasts(resolve(op->getOperand(1), root.map));
    Elem lhs = skipCasts(resolve(op->getOperand(0), root.map));
    if (rhs.constant && std::isfinite(toDouble(*rhs.constant)))
      root = lhs;
    else if (isa<arith::AddFOp>(op) && lhs.constant &&
             std::isfinite(toDouble(*lhs.constant)))
      root = rhs;
    else
      break;
  }
  if (std::optional<Scaled> s = matchScaled(root, shape);
      s && isScores(s->tensor))
    return ScoreExpr{s->tensor, s->scale, Value(), AffineMap()};
  // select(keep, c * S, fill): an i1 mask that hides a key where it is
  // false. A fill of -inf is exactly the op's; torch's finfo.min (the
  // lowest finite value) differs only on a query row whose every key is
  // hidden, which it averages uniformly over V where the op yields
  // `masked` (a causal mask never hides a row's diagonal).
  if (auto select = root.def<arith::SelectOp>()) {
    Elem keep = resolve(select.getCondition(), root.map);
    Elem fill = skipCasts(resolve(select.getFalseValue(), root.map));
    std::optional<Scaled> s =
        matchScaled(resolve(select.getTrueValue(), root.map), shape);
    bool hides = fill.constant && fill.constant->isNegative() &&
                 (fill.constant->isInfinity() || fill.constant->isLargest());
    if (!s || !isScores(s->tensor) || !keep.isRead() || !hides ||
        !cast<ShapedType>(keep.tensor.getType()).getElementType().isInteger(1))
      return std::nullopt;
    return ScoreExpr{s->tensor, s->scale, keep.tensor, keep.map};
  }
  auto add = root.def<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())}) {
    std::optional<Scaled> s = matchScaled(resolve(lhs, root.map), shape);
    // The mask is whatever tensor holds the added values: an argument, or
    // one computed from one (a padding mask turned into -1e4 * (1 - m)).
    Elem mask = skipCasts(resolve(rhs, root.map));
    if (s && isScores(s->tensor) && mask.materialized &&
        isa<FloatType>(elementTypeOf(mask.materialized)))
      return ScoreExpr{s->tensor, s->scale, mask.materialized,
                       mask.materializedMap};
  }
  // c * S + m1 + m2 + ..., the mask terms computed in the scores' own body
  // (a causal and a padding mask built in the IR, as CLIP's TOSA does): the
  // mask is their sum, materialized over the dimensions it depends on.
  SmallVector<Elem> terms;
  std::function<void(Elem)> flatten = [&](Elem e) {
    if (auto a = e.def<arith::AddFOp>()) {
      flatten(resolve(a.getLhs(), e.map));
      flatten(resolve(a.getRhs(), e.map));
      return;
    }
    terms.push_back(e);
  };
  flatten(root);
  std::optional<Scaled> scores;
  SmallVector<Elem> maskTerms;
  for (const Elem &t : terms) {
    std::optional<Scaled> s = scores ? std::nullopt : matchScaled(t, shape);
    if (s && isScores(s->tensor))
      scores = s;
    else
      maskTerms.push_back(t);
  }
  if (!scores || maskTerms.empty() ||
      llvm::any_of(shape, ShapedType::isDynamic))
    return std::nullopt;
  Type elt = root.scalar.getType();
  SmallVector<bool> used(rank, false);
  for (const Elem &t : maskTerms)
    if (!markUsedDims(t, used))
      return std::nullopt;
  SmallVector<int64_t> termsShape;
  SmallVector<AffineExpr> reads;
  for (unsigned d = 0; d < rank; ++d) {
    termsShape.push_back(used[d] ? shape[d] : 1);
    reads.push_back(used[d] ? getAffineDimExpr(d, ctx)
                            : getAffineConstantExpr(0, ctx));
  }
  ScoreExpr expr{scores->tensor, scores->scale, Value(),
                 AffineMap::get(rank, 0, reads, ctx)};
  expr.maskTerms = std::move(maskTerms);
  expr.termsType = RankedTensorType::get(termsShape, elt);
  return expr;
}

/// The sum of the mask terms of `expr` as a tensor of its termsType.
Value materializeMaskTerms(OpBuilder &b, Location loc, const ScoreExpr &expr) {
  RankedTensorType type = expr.termsType;
  ElementView view(b.getContext(), type.getShape(), /*throughReshapes=*/false);
  Value sum;
  for (const Elem &t : expr.maskTerms) {
    Value v = view.materialize(b, loc, t, type.getElementType());
    if (!v)
      return Value();
    if (sum) {
      Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                           type.getElementType());
      v = linalg::AddOp::create(b, loc, ValueRange{sum, v}, ValueRange{init})
              ->getResult(0);
    }
    sum = v;
  }
  return sum;
}

/// Whether a mask read at `map` (root indices -> mask indices) is one the op
/// takes after a reshape: indexed by the query and key positions last, in
/// that order, and by some of the batch dimensions before them, in order;
/// a size-1 dimension may be read at 0.
bool isBroadcastMask(AffineMap map, ShapedType type, unsigned rank) {
  unsigned n = map.getNumResults();
  if (n < 2 || map.getNumSymbols() != 0)
    return false;
  int64_t last = -1;
  for (auto [pos, e] : llvm::enumerate(map.getResults())) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      if (c.getValue() != 0 || type.getDimSize(pos) != 1 || pos + 2 >= n)
        return false;
      continue;
    }
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || static_cast<int64_t>(d.getPosition()) <= last)
      return false;
    last = d.getPosition();
  }
  auto dimAt = [&](unsigned pos) {
    return cast<AffineDimExpr>(map.getResult(pos)).getPosition();
  };
  return isa<AffineDimExpr>(map.getResult(n - 2)) && dimAt(n - 2) == rank - 2 &&
         dimAt(n - 1) == rank - 1;
}

//===----------------------------------------------------------------------===//
// Matrix products (the matchers are in RaiseContractions.cpp)
//===----------------------------------------------------------------------===//

using raise::BatchedMatmul;
using raise::isZeroOrUndef;
using raise::matchBatchedMatmul;
using raise::swapLastTwo;
using raise::transposeSource;

Value transposeLastTwo(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<int64_t> perm = swapLastTwo(type.getRank());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, t);
  applyPermutationToVector(sizes, perm);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, t, init, perm)->getResult(0);
}

//===----------------------------------------------------------------------===//
// Grouped-query heads
//===----------------------------------------------------------------------===//

/// A [B, Hkv, N, D] tensor whose every head a [B, H, N, D] operand repeats
/// `group` times in a row.
struct Repeated {
  Value source;
  int64_t group;
};

/// Matches the repeat_interleave over heads that front ends emit for GQA
/// (`k[:, :, None].expand(B, Hkv, G, N, D).reshape(B, Hkv * G, N, D)`): a
/// broadcast to [B, Hkv, G, N, D], collapsed over (Hkv, G). Head h then
/// reads head h / G, which is the op's pairing; a repeat that tiles
/// (G outer) pairs heads differently and is not matched.
std::optional<Repeated> unrepeatHeads(Value t) {
  auto collapse = t.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getSrcType().getRank() != 5 ||
      collapse.getResultType().getRank() != 4 ||
      collapse.getReassociationIndices()[1] != ReassociationIndices{1, 2})
    return std::nullopt;
  MLIRContext *ctx = t.getContext();
  Elem e = elementOf(collapse.getSrc(),
                     AffineMap::getMultiDimIdentityMap(5, ctx));
  if (!e.isRead())
    return std::nullopt;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  int64_t group = collapse.getSrcType().getDimSize(2);
  if (e.map == AffineMap::get(5, 0, {d(0), d(1), d(3), d(4)}, ctx))
    return Repeated{e.tensor, group};
  // The same with the group dimension inserted first as a unit dimension.
  if (e.map != AffineMap::get(5, 0,
                              {d(0), d(1), getAffineConstantExpr(0, ctx), d(3),
                               d(4)},
                              ctx))
    return std::nullopt;
  auto expand = e.tensor.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getSrcType().getRank() != 4)
    return std::nullopt;
  SmallVector<int64_t> shape(expand.getResultType().getShape());
  shape.erase(shape.begin() + 2);
  if (ArrayRef(shape) != expand.getSrcType().getShape())
    return std::nullopt;
  return Repeated{expand.getSrc(), group};
}

//===----------------------------------------------------------------------===//
// Reshapes to the op's 4-D form
//===----------------------------------------------------------------------===//

/// A rank-`rank` operand as 4-D with leading unit dimensions: [BH, N, D]
/// becomes [1, BH, N, D] (one batch of BH heads, so that a mask shared by
/// all of them stays a broadcast) and [N, D] becomes [1, 1, N, D].
Value expandLeading(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  unsigned lead = 4 - type.getRank();
  if (lead == 0)
    return v;
  SmallVector<int64_t> shape(lead, 1);
  llvm::append_range(shape, type.getShape());
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices first;
  for (unsigned i = 0; i <= lead; ++i)
    first.push_back(i);
  groups.push_back(first);
  for (unsigned i = lead + 1; i < 4; ++i)
    groups.push_back({i});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
}

/// The mask as [B or 1, H or 1, Nq, Nk]: drops the unit dimensions it reads
/// at 0, then inserts one for each batch dimension it broadcasts over.
Value maskTo4D(OpBuilder &b, Location loc, Value mask, AffineMap map,
               unsigned rank) {
  unsigned lead = 4 - rank;
  bool aligned = llvm::all_of(llvm::enumerate(map.getResults()), [&](auto it) {
    auto d = dyn_cast<AffineDimExpr>(it.value());
    return !d || d.getPosition() + lead == it.index();
  });
  if (map.getNumResults() == 4 && aligned)
    return mask;

  SmallVector<ReassociationIndices> collapse;
  ReassociationIndices pending;
  SmallVector<unsigned> rootDims;
  for (auto [pos, e] : llvm::enumerate(map.getResults())) {
    pending.push_back(pos);
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      collapse.push_back(pending);
      pending.clear();
      rootDims.push_back(d.getPosition());
    }
  }
  if (collapse.size() != map.getNumResults())
    mask = tensor::CollapseShapeOp::create(b, loc, mask, collapse);
  auto type = cast<RankedTensorType>(mask.getType());
  if (type.getRank() == 4)
    return mask;

  SmallVector<ReassociationIndices> expand;
  SmallVector<int64_t> shape;
  unsigned next = 0;
  for (unsigned t = 0; t < 4; ++t) {
    pending.push_back(t);
    if (next < rootDims.size() && rootDims[next] + lead == t) {
      shape.push_back(type.getDimSize(next++));
      expand.push_back(pending);
      pending.clear();
    } else {
      shape.push_back(1);
    }
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), mask,
      expand);
}

//===----------------------------------------------------------------------===//
// Heads flattened around the matmuls
//===----------------------------------------------------------------------===//

// torch-mlir lowers a 4-D matmul to linalg.batch_matmul by merging batch and
// heads around it: tensor.collapse_shape to [B*H, N, D] before, and
// tensor.expand_shape back to [B, H, Nq, Nk] after. The scale, the mask and
// the softmax stay 4-D, so the match runs in their frame and looks through
// those reshapes.

bool mergesBatchAndHeads(ArrayRef<ReassociationIndices> groups) {
  return groups.size() == 3 && groups[0] == ReassociationIndices{0, 1} &&
         groups[1] == ReassociationIndices{2} &&
         groups[2] == ReassociationIndices{3};
}

/// The [B, H, N, D] tensor that `v` flattens to [B*H, N, D]. Row b*H + h of
/// the matmul is then head h of batch b only if every operand splits B*H
/// the same way, which is known when H is static and `heads`.
Value unflattenHeads(Value v, int64_t heads) {
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !mergesBatchAndHeads(collapse.getReassociationIndices()) ||
      ShapedType::isDynamic(heads) ||
      collapse.getSrcType().getDimSize(1) != heads)
    return Value();
  return collapse.getSrc();
}

/// The [B*H, Nq, Nk] tensor that `s` expands to [B, H, Nq, Nk].
Value flattenedSource(Value s) {
  auto expand = s.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || !mergesBatchAndHeads(expand.getReassociationIndices()))
    return Value();
  return expand.getSrc();
}

//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

/// What a P V product computes when it is attention.
struct AttentionMatch {
  BatchedMatmul pv;
  unsigned rank, frame;
  MaskedRows masked;
  Value query;
  std::pair<Value, bool> key, value;
  ScoreExpr expr;
  float scale;
  Type outType;
  /// When not empty: the mask is broadcast to this shape (over the
  /// queries) before it is given to the op.
  SmallVector<int64_t> maskQueryShape;
};

/// Why the leading (batch and head) sizes of query, key and value do not
/// make one softmax.attention, or nullopt. A contraction's verifier relates
/// only the sizes it can see: with a dynamic key length, a query batch of 1
/// against a key batch of 2 passes linalg and would build an attention that
/// fails its own verifier. The last leading size is the heads (H against
/// Hkv: a multiple), the others batches (equal).
static std::optional<std::string> whyLeadingDimsDisagree(Value query, Value key,
                                                         Value value) {
  ArrayRef<int64_t> q = cast<ShapedType>(query.getType()).getShape(),
                    k = cast<ShapedType>(key.getType()).getShape(),
                    v = cast<ShapedType>(value.getType()).getShape();
  // Ranks that differ (a flattened B*H query against 4-D keys) are
  // related by the reshapes the rewrite inserts; only equal ranks are
  // compared here.
  if (q.size() != k.size() || k.size() != v.size() || q.size() < 2)
    return std::nullopt;
  size_t lead = q.size() - 2;
  auto known = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b);
  };
  for (size_t i = 0; i < lead; ++i) {
    if (known(k[i], v[i]) && k[i] != v[i])
      return ("key and value disagree in leading dimension " + Twine(i))
          .str();
    bool heads = i + 1 == lead;
    if (known(q[i], k[i]) &&
        (heads ? (k[i] == 0 || q[i] % k[i] != 0) : q[i] != k[i]))
      return ("query and key disagree in leading dimension " + Twine(i) +
              (heads ? " (heads: not a multiple)" : " (batch)"))
          .str();
  }
  return std::nullopt;
}

/// Matches attention rooted at the P V product `op`. Stage 1 of `why` is
/// reached once P is known to be a softmax: the product is then
/// attention-shaped.
std::optional<AttentionMatch> matchAttention(linalg::LinalgOp op, Why &why) {
    std::optional<BatchedMatmul> pv = matchBatchedMatmul(op);
    if (!pv)
      return why.fail(kBeforeShaped, "not a batched matmul");
    unsigned rank = op.getRank(op.getDpsInitOperand(0));

    // The rank of P, X and S: the matmul's, or 4 when P V runs on
    // [B*H, Nq, Nk] flattened from them.
    Value probs = pv->lhs, input;
    unsigned frame = rank;
    if (auto collapse = probs.getDefiningOp<tensor::CollapseShapeOp>();
        collapse && mergesBatchAndHeads(collapse.getReassociationIndices())) {
      if (!probs.hasOneUse())
        return why.fail(kBeforeShaped, "probabilities have other "
                                       "users");
      probs = collapse.getSrc();
      frame = 4;
    }
    MaskedRows masked;
    if (auto softmax = probs.getDefiningOp<SoftmaxOp>()) {
      if (softmax.getDimension() != frame - 1)
        return why.fail(kAttentionShapedStage, "softmax is not over the last "
                                               "dimension");
      if (!softmax.getAccumulatorType().isF32())
        return why.fail(kAttentionShapedStage, "softmax does not accumulate "
                                               "in f32");
      input = softmax.getInput();
      masked = softmax.getMasked();
    } else if (auto softmax = probs.getDefiningOp<linalg::SoftmaxOp>()) {
      if (!softmax.hasPureTensorSemantics() ||
          softmax.getDimension() != frame - 1)
        return why.fail(kAttentionShapedStage, "softmax is not over the last "
                                               "dimension");
      input = softmax.getInput();
      // exp(-inf - -inf) for a row of -inf, as in Raise.cpp.
      masked = MaskedRows::NaN;
    } else {
      return why.fail(kBeforeShaped, "left operand is not a softmax");
    }
    if (!probs.hasOneUse())
      return why.fail(kAttentionShapedStage, "probabilities have other users");
    if (!isAttentionFloat(elementTypeOf(input)))
      return why.fail(kAttentionShapedStage, "softmax is not on f16, bf16 or "
                                             "f32");

    // X = scale * S (+ mask), S = Q K^T written into a zero init.
    auto matmulOf = [&](Value s) -> Value {
      Value flat = frame == 4 ? flattenedSource(s) : Value();
      Value t = flat ? flat : s;
      std::optional<BatchedMatmul> m = matchBatchedMatmul(t.getDefiningOp());
      return m && isZeroOrUndef(m->init) ? t : Value();
    };
    std::optional<ScoreExpr> expr = matchScoreExpr(
        input, frame, [&](Value s) { return static_cast<bool>(matmulOf(s)); });
    if (!expr)
      return why.fail(kAttentionShapedStage,
                      "softmax input is not c * S (+ mask) with c constant and "
                      "S = Q K^T a batched matmul into zeros");
    Value scores = matmulOf(expr->scores);
    std::optional<BatchedMatmul> qk =
        matchBatchedMatmul(scores.getDefiningOp());
    // A mask that does not depend on the query position (a key-padding
    // mask, [B, 1, 1, Nk]) is broadcast over the queries first: the op
    // takes one mask row per query.
    SmallVector<int64_t> maskQueryShape;
    if (expr->hasMask() && !expr->maskMap.isFunctionOfDim(frame - 2)) {
      auto inputShape = cast<ShapedType>(input.getType()).getShape();
      for (unsigned p = 0; p < frame; ++p)
        maskQueryShape.push_back(
            expr->maskMap.isFunctionOfDim(p) || p + 2 >= frame ? inputShape[p]
                                                               : 1);
      if (llvm::any_of(maskQueryShape, ShapedType::isDynamic))
        return why.fail(kAttentionShapedStage,
                        "a mask broadcast over queries needs static "
                        "shapes");
    }
    if (expr->hasMask() && maskQueryShape.empty() &&
        !isBroadcastMask(expr->maskMap, expr->maskType(), frame))
      return why.fail(kAttentionShapedStage, "mask is not [B or 1, H or 1, "
                                             "Nq, Nk] up to unit dimensions");
    // Every step from S to the softmax is dropped; a step that something
    // else reads would have to be computed twice.
    if (scores != expr->scores && !scores.hasOneUse())
      return why.fail(kAttentionShapedStage, "scores have other users");
    for (Value v = expr->scores; v != input;) {
      if (!v.hasOneUse())
        return why.fail(kAttentionShapedStage, "scores have other users");
      auto user = dyn_cast<linalg::LinalgOp>(*v.user_begin());
      if (!user || user->getNumResults() != 1 || !isElementwise(user))
        return why.fail(kAttentionShapedStage, "scores have other users");
      v = user->getResult(0);
    }
    if (!input.hasOneUse())
      return why.fail(kAttentionShapedStage, "scores have other users");

    // Q, K and V in the frame; K as [.., Nk, D] and V as [.., Nk, Dv]. When
    // the graph holds K or V the other way round and no transpose made them
    // so, one is inserted.
    int64_t heads =
        frame == 4 ? cast<ShapedType>(input.getType()).getDimSize(1) : 0;
    // An operand that is already [B*H, N, D] (a function argument, say)
    // stays so and is expanded to [B, H, N, D] by the rewrite: the scores
    // split B*H the same way, so row b*H + h is head h of batch b.
    int64_t batch =
        frame == 4 ? cast<ShapedType>(input.getType()).getDimSize(0) : 0;
    auto inFrame = [&](Value v) -> Value {
      unsigned r = cast<ShapedType>(v.getType()).getRank();
      if (r == frame)
        return v;
      if (Value u = unflattenHeads(v, heads))
        return u;
      if (frame == 4 && r == 3 && !ShapedType::isDynamic(heads) &&
          !ShapedType::isDynamic(batch))
        return v;
      return Value();
    };
    auto operandInFrame =
        [&](Value v, bool swapped) -> std::optional<std::pair<Value, bool>> {
      if (!swapped) {
        Value f = inFrame(v);
        return f ? std::optional(std::pair(f, false)) : std::nullopt;
      }
      if (Value source = transposeSource(v))
        if (Value f = inFrame(source))
          return std::pair(f, false);
      Value f = inFrame(v);
      if (!f)
        return std::nullopt;
      if (Value source = transposeSource(f))
        return std::pair(source, false);
      return std::pair(f, true);
    };
    Value query = inFrame(qk->lhs);
    auto key = operandInFrame(qk->rhs, !qk->rhsTransposed);
    auto value = operandInFrame(pv->rhs, pv->rhsTransposed);
    if (!query || !key || !value)
      return why.fail(
          kAttentionShapedStage,
          "Q, K or V is flattened from other batch and head counts than "
          "the scores");
    bool transposeKey = key->second, transposeValue = value->second;

    // A scale applied to Q folds into the op's.
    double scale = expr->scale;
    if (std::optional<Scaled> s =
            cast<ShapedType>(query.getType()).getRank() != frame
                ? std::nullopt
                : matchScaled(
            elementOf(query, AffineMap::getMultiDimIdentityMap(
                                 frame, op.getContext())),
            cast<ShapedType>(query.getType()).getShape());
        s && s->tensor != query &&
        elementTypeOf(s->tensor) == elementTypeOf(query)) {
      query = s->tensor;
      scale *= s->scale;
    }

    if (frame == 4 && !transposeKey && !transposeValue) {
      std::optional<Repeated> rk = unrepeatHeads(key->first),
                              rv = unrepeatHeads(value->first);
      if (rk || rv) {
        if (!rk || !rv || rk->group != rv->group ||
            ShapedType::isDynamic(rk->group))
          return why.fail(kAttentionShapedStage,
                          "key and value do not repeat their heads alike");
        key->first = rk->source;
        value->first = rv->source;
      }
    }

    Type type = elementTypeOf(query);
    if (!isAttentionFloat(type))
      return why.fail(kAttentionShapedStage, "query is not f16, bf16 or f32");
    if (elementTypeOf(key->first) != type ||
        elementTypeOf(value->first) != type)
      return why.fail(kAttentionShapedStage, "query, key and value element "
                                             "types differ");
    Type outType = elementTypeOf(op->getResult(0));
    if (outType != type && !outType.isF32())
      return why.fail(kAttentionShapedStage, "output is neither f32 nor the "
                                             "query element type");
    if (expr->hasMask() && expr->maskType().getElementType() != type &&
        !expr->maskType().getElementType().isF32() &&
        !expr->maskType().getElementType().isInteger(1))
      return why.fail(kAttentionShapedStage, "mask is neither i1, f32 nor the "
                                             "query element type");
    auto scaleF32 = static_cast<float>(scale);
    if (!std::isfinite(scaleF32))
      return why.fail(kAttentionShapedStage, "scale is not finite in f32");
    if (std::optional<std::string> bad =
            whyLeadingDimsDisagree(query, key->first, value->first))
      return why.fail(kAttentionShapedStage, *bad);

    return AttentionMatch{*pv,    rank,  frame,    masked,  query,         *key,
                          *value, *expr, scaleF32, outType, maskQueryShape};
}

struct RaiseAttention : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    Why why;
    std::optional<AttentionMatch> m = matchAttention(op, why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why.reason);
    std::optional<BatchedMatmul> pv = m->pv;
    unsigned rank = m->rank, frame = m->frame;
    MaskedRows masked = m->masked;
    Value query = m->query;
    std::optional<std::pair<Value, bool>> key = m->key, value = m->value;
    bool transposeKey = key->second, transposeValue = value->second;
    std::optional<ScoreExpr> expr = m->expr;
    float scaleF32 = m->scale;
    Type outType = m->outType;
    Location loc = op.getLoc();
    Value k = key->first, v = value->first;
    if (transposeKey)
      k = transposeLastTwo(rewriter, loc, k);
    if (transposeValue)
      v = transposeLastTwo(rewriter, loc, v);
    auto splitHeads = [&](Value t) -> Value {
      auto type = cast<RankedTensorType>(t.getType());
      if (frame != 4 || type.getRank() != 3)
        return t;
      auto in = cast<ShapedType>(expr->scores.getType());
      SmallVector<int64_t> shape{in.getDimSize(0), in.getDimSize(1),
                                 type.getDimSize(1), type.getDimSize(2)};
      return tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
          t, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    };
    query = splitHeads(query);
    k = splitHeads(k);
    v = splitHeads(v);
    Value q4 = expandLeading(rewriter, loc, query);
    Value k4 = expandLeading(rewriter, loc, k);
    Value v4 = expandLeading(rewriter, loc, v);
    Value mask;
    if (!expr->maskTerms.empty()) {
      expr->mask = materializeMaskTerms(rewriter, loc, *expr);
      if (!expr->mask)
        return rewriter.notifyMatchFailure(op, "cannot build the mask");
    }
    if (!m->maskQueryShape.empty()) {
      // mask'[p] = mask[map(p)] over the frame, unit where it broadcasts.
      ArrayRef<int64_t> shape = m->maskQueryShape;
      Type elt = elementTypeOf(expr->mask);
      Value empty = tensor::EmptyOp::create(rewriter, loc, shape, elt);
      SmallVector<utils::IteratorType> loops(frame,
                                             utils::IteratorType::parallel);
      AffineMap id = rewriter.getMultiDimIdentityMap(frame);
      Value full =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{empty.getType()}, ValueRange{expr->mask},
              ValueRange{empty}, ArrayRef<AffineMap>{expr->maskMap, id}, loops,
              [](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(b, l, args[0]);
              })
              ->getResult(0);
      SmallVector<AffineExpr> reads;
      for (unsigned p = 0; p < frame; ++p)
        reads.push_back(shape[p] == 1 && p + 2 < frame
                            ? rewriter.getAffineConstantExpr(0)
                            : rewriter.getAffineDimExpr(p));
      expr->mask = full;
      expr->maskMap = AffineMap::get(frame, 0, reads, rewriter.getContext());
    }
    if (expr->mask)
      mask = maskTo4D(rewriter, loc, expr->mask, expr->maskMap, frame);

    // The op writes its output. A matmul into a zero (or undefined) init
    // computes the same; into anything else, the init is added afterwards.
    Value init = pv->init, dest4;
    bool accumulate = !isZeroOrUndef(init);
    if (frame != rank) {
      // [B, H, Nq, Dv]; the flattened init does not say how B*H splits.
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, q4);
      sizes.back() = tensor::getMixedSizes(rewriter, loc, v4).back();
      dest4 = tensor::EmptyOp::create(rewriter, loc, sizes, outType);
    } else {
      Value dest = init;
      if (auto fill = init.getDefiningOp<linalg::FillOp>();
          fill && !accumulate)
        dest = fill.getOutputs()[0];
      else if (!init.getDefiningOp<tensor::EmptyOp>())
        dest = tensor::EmptyOp::create(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, init),
            outType);
      dest4 = expandLeading(rewriter, loc, dest);
    }

    auto attention = AttentionOp::create(
        rewriter, loc, TypeRange{dest4.getType()}, q4, k4, v4, mask,
        /*threshold=*/Value(), /*key_lengths=*/Value(),
        /*page_table=*/Value(), dest4, /*lse=*/Value(),
        /*skip_counts=*/Value(), masked, rewriter.getF32FloatAttr(scaleF32),
        /*causal=*/false,
        /*window=*/nullptr, /*threshold_kind=*/nullptr, /*skip_tile=*/nullptr,
        /*unified_max=*/nullptr);
    Value result = attention.getOutputResult();
    if (rank != 4) {
      // Undoes both the leading unit dimensions of a 2-D or 3-D frame and
      // the split of B*H.
      SmallVector<ReassociationIndices> groups(1);
      for (unsigned i = 0; i <= 4 - rank; ++i)
        groups[0].push_back(i);
      for (unsigned i = 5 - rank; i < 4; ++i)
        groups.push_back({i});
      result = tensor::CollapseShapeOp::create(rewriter, loc, init.getType(),
                                               result, groups);
    }
    if (accumulate)
      result = linalg::AddOp::create(rewriter, loc, ValueRange{result, init},
                                     ValueRange{init})
                   ->getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

bool raise::matchesAttention(linalg::LinalgOp op, Why &why) {
  return matchAttention(op, why).has_value();
}

void mlir::softmax::populateSoftmaxRaiseAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseAttention>(patterns.getContext());
}
