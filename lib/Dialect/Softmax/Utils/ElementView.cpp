//===- ElementView.cpp - what one tensor element computes -----------------===//

#include "softmax-mlir/Dialect/Softmax/Utils/ElementView.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::softmax;

//===----------------------------------------------------------------------===//
// Free helpers
//===----------------------------------------------------------------------===//

bool mlir::softmax::isElementwiseLinalgOp(linalg::LinalgOp op) {
  return op.getNumReductionLoops() == 0 &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isIdentity();
         });
}

std::optional<APFloat> mlir::softmax::splatFloatValue(Value value) {
  Attribute attr;
  if (auto fill = value.getDefiningOp<linalg::FillOp>()) {
    if (matchPattern(fill.getInputs()[0], m_Constant(&attr)))
      if (auto f = dyn_cast<FloatAttr>(attr))
        return f.getValue();
    return std::nullopt;
  }
  if (matchPattern(value, m_Constant(&attr)))
    if (auto splat = dyn_cast<SplatElementsAttr>(attr))
      if (isa<FloatType>(splat.getElementType()))
        return splat.getSplatValue<APFloat>();
  return std::nullopt;
}

std::optional<double> Element::constantValue() const {
  if (kind != Kind::Constant || !constant)
    return std::nullopt;
  APFloat v = *constant;
  bool losesInfo;
  v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return v.convertToDouble();
}

static bool isNarrowFloat(Type type) {
  return isa<Float16Type, BFloat16Type, Float32Type>(type);
}

/// The map from the result indices of a reshape to its source indices, or
/// null when a size it needs is dynamic.
static AffineMap reshapeMap(Operation *op) {
  MLIRContext *ctx = op->getContext();
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    RankedTensorType result = expand.getResultType();
    SmallVector<AffineExpr> exprs;
    for (const ReassociationIndices &group :
         expand.getReassociationIndices()) {
      AffineExpr e = getAffineConstantExpr(0, ctx);
      int64_t stride = 1;
      for (int64_t j : llvm::reverse(group)) {
        e = e + getAffineDimExpr(j, ctx) * stride;
        if (j == group.front())
          break;
        if (result.isDynamicDim(j))
          return AffineMap();
        stride *= result.getDimSize(j);
      }
      exprs.push_back(e);
    }
    return AffineMap::get(result.getRank(), 0, exprs, ctx);
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    RankedTensorType source = collapse.getSrcType();
    SmallVector<AffineExpr> exprs(source.getRank());
    for (auto [g, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      AffineExpr d = getAffineDimExpr(g, ctx);
      int64_t stride = 1;
      for (int64_t j : llvm::reverse(group)) {
        AffineExpr e = stride == 1 ? d : d.floorDiv(stride);
        if (j == group.front()) {
          exprs[j] = e;
          break;
        }
        if (source.isDynamicDim(j))
          return AffineMap();
        exprs[j] = e % source.getDimSize(j);
        stride *= source.getDimSize(j);
      }
    }
    return AffineMap::get(collapse.getResultType().getRank(), 0, exprs, ctx);
  }
  return AffineMap();
}

//===----------------------------------------------------------------------===//
// Simplification with extents
//===----------------------------------------------------------------------===//

namespace {
/// One term `coefficient * d_dim` (dim < 0: a constant) of a sum.
struct LinearTerm {
  int64_t coefficient;
  int64_t dim;
};
} // namespace

/// The terms of `e` when it is a sum of dims times constants plus a
/// constant.
static bool linearTerms(AffineExpr e, SmallVectorImpl<LinearTerm> &terms) {
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    terms.push_back({c.getValue(), -1});
    return true;
  }
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    terms.push_back({1, d.getPosition()});
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearTerms(bin.getLHS(), terms) && linearTerms(bin.getRHS(), terms);
  if (bin.getKind() == AffineExprKind::Mul) {
    auto d = dyn_cast<AffineDimExpr>(bin.getLHS());
    auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (d && c) {
      terms.push_back({c.getValue(), d.getPosition()});
      return true;
    }
  }
  return false;
}

static AffineExpr simplifyExpr(AffineExpr e, ArrayRef<int64_t> extents) {
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return e;
  AffineExpr lhs = simplifyExpr(bin.getLHS(), extents);
  AffineExpr rhs = simplifyExpr(bin.getRHS(), extents);
  auto divisor = dyn_cast<AffineConstantExpr>(rhs);
  bool divides = bin.getKind() == AffineExprKind::FloorDiv ||
                 bin.getKind() == AffineExprKind::Mod;
  SmallVector<LinearTerm> terms;
  if (divides && divisor && divisor.getValue() > 0 &&
      linearTerms(lhs, terms)) {
    // lhs = C * high + low with 0 <= low < C: lhs floordiv C = high and
    // lhs mod C = low.
    int64_t c = divisor.getValue(), lo = 0, hi = 0;
    MLIRContext *ctx = e.getContext();
    AffineExpr high = getAffineConstantExpr(0, ctx),
               low = getAffineConstantExpr(0, ctx);
    bool bounded = true;
    for (const LinearTerm &t : terms) {
      AffineExpr term = t.dim < 0 ? getAffineConstantExpr(1, ctx)
                                  : getAffineDimExpr(t.dim, ctx);
      if (t.coefficient % c == 0) {
        high = high + term * (t.coefficient / c);
        continue;
      }
      low = low + term * t.coefficient;
      int64_t extent = t.dim < 0 ? 1 : extents[t.dim];
      if (t.dim >= 0 && (ShapedType::isDynamic(extent) || t.coefficient < 0)) {
        bounded = false;
        continue;
      }
      int64_t top = t.dim < 0 ? t.coefficient : t.coefficient * (extent - 1);
      lo += std::min<int64_t>(0, top);
      hi += std::max<int64_t>(0, top);
    }
    if (bounded && lo >= 0 && hi < c)
      return bin.getKind() == AffineExprKind::FloorDiv ? high : low;
  }
  return getAffineBinaryOpExpr(bin.getKind(), lhs, rhs);
}

//===----------------------------------------------------------------------===//
// ElementView
//===----------------------------------------------------------------------===//

ElementView::ElementView(MLIRContext *ctx, ArrayRef<int64_t> extents,
                         bool throughReshapes)
    : ctx(ctx), extents(extents), throughReshapes(throughReshapes) {}

AffineMap ElementView::identity() const {
  return AffineMap::getMultiDimIdentityMap(getRank(), ctx);
}

AffineMap ElementView::simplify(AffineMap map) const {
  if (!map)
    return map;
  // A dimension of extent 1 is always 0.
  SmallVector<AffineExpr> dims;
  for (unsigned i = 0, e = map.getNumDims(); i < e; ++i)
    dims.push_back(i < extents.size() && extents[i] == 1
                       ? getAffineConstantExpr(0, ctx)
                       : getAffineDimExpr(i, ctx));
  map = map.replaceDimsAndSymbols(dims, {}, map.getNumDims(), 0);
  SmallVector<AffineExpr> results;
  for (AffineExpr e : map.getResults())
    results.push_back(simplifyExpr(e, extents));
  return simplifyAffineMap(
      AffineMap::get(map.getNumDims(), 0, results, ctx));
}

bool ElementView::sameMap(AffineMap a, AffineMap b) const {
  if (!a || !b)
    return a == b;
  return a.getNumDims() == b.getNumDims() && simplify(a) == simplify(b);
}

Element ElementView::readOf(Value tensor, AffineMap map) const {
  Element e;
  e.kind = Element::Kind::Read;
  e.tensor = tensor;
  e.map = map;
  e.materialized = tensor;
  e.materializedMap = map;
  return e;
}

Element ElementView::elementOf(Value tensor, AffineMap map) const {
  map = simplify(map);
  if (std::optional<APFloat> splat = splatFloatValue(tensor)) {
    Element e;
    e.kind = Element::Kind::Constant;
    e.constant = *splat;
    return e;
  }
  auto result = dyn_cast<OpResult>(tensor);
  if (!result)
    return readOf(tensor, map);
  Operation *owner = result.getOwner();
  // A result that the op writes once per loop point (its init indexed by a
  // permutation of all loops) is elementwise even when other results of
  // the op reduce (an exp stored next to the sum of it).
  AffineMap outMap;
  auto op = dyn_cast<linalg::LinalgOp>(owner);
  if (op && op.hasPureTensorSemantics() && op.getBlock())
    outMap = op.getMatchingIndexingMap(
        op.getDpsInitOperand(result.getResultNumber()));
  if (outMap && outMap.isPermutation()) {
    Value yielded =
        op.getBlock()->getTerminator()->getOperand(result.getResultNumber());
    Element e = resolve(yielded, inversePermutation(outMap).compose(map));
    if (e.kind == Element::Kind::Scalar && !e.materialized) {
      e.materialized = tensor;
      e.materializedMap = map;
    }
    return e;
  }
  if (throughReshapes &&
      isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(owner))
    if (AffineMap reshape = reshapeMap(owner))
      return elementOf(owner->getOperand(0), reshape.compose(map));
  if (auto cast = dyn_cast<tensor::CastOp>(owner))
    return elementOf(cast.getSource(), map);
  return readOf(tensor, map);
}

Element ElementView::resolve(Value scalar, AffineMap map) const {
  Element e;
  Attribute attr;
  if (matchPattern(scalar, m_Constant(&attr))) {
    if (auto f = dyn_cast<FloatAttr>(attr)) {
      e.kind = Element::Kind::Constant;
      e.constant = f.getValue();
      return e;
    }
    e.kind = Element::Kind::Scalar;
    e.scalar = scalar;
    return e;
  }
  if (auto arg = dyn_cast<BlockArgument>(scalar)) {
    auto op = dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp());
    if (!op || !map) {
      // A function argument, or some other value from above.
      e.kind = Element::Kind::Scalar;
      e.scalar = scalar;
      return e;
    }
    OpOperand *operand = op.getMatchingOpOperand(arg);
    // A body that reads its init accumulates: not an elementwise step.
    if (!operand || !op.isDpsInput(operand))
      return e;
    if (!isa<ShapedType>(operand->get().getType()))
      return resolve(operand->get(), AffineMap());
    return elementOf(operand->get(),
                     op.getMatchingIndexingMap(operand).compose(map));
  }
  Operation *def = scalar.getDefiningOp();
  bool inBody = map && isa_and_nonnull<linalg::LinalgOp>(def->getParentOp());
  if (!inBody) {
    e.kind = Element::Kind::Scalar;
    e.scalar = scalar;
    return e;
  }
  if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    e.kind = Element::Kind::Index;
    e.map = AffineMap::get(map.getNumDims(), 0, map.getResult(index.getDim()),
                           ctx);
    return e;
  }
  // A cast of a constant is a constant (a scale stored as f64 and truncated
  // to f32, say).
  if (isa<arith::TruncFOp, arith::ExtFOp>(def)) {
    Element in = resolve(def->getOperand(0), map);
    auto type = dyn_cast<FloatType>(scalar.getType());
    if (in.isConstant() && type) {
      APFloat v = *in.constant;
      bool losesInfo;
      v.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      e.kind = Element::Kind::Constant;
      e.constant = v;
      return e;
    }
  }
  e.kind = Element::Kind::Scalar;
  e.scalar = scalar;
  e.map = map;
  return e;
}

Element ElementView::operand(const Element &e, unsigned i) const {
  return resolve(e.scalar.getDefiningOp()->getOperand(i), e.map);
}

Element ElementView::skipNarrowCasts(Element e) const {
  while (e.kind == Element::Kind::Scalar && e.map) {
    Operation *op = e.scalar.getDefiningOp();
    if (!isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(op) ||
        !isNarrowFloat(op->getOperand(0).getType()) ||
        !isNarrowFloat(op->getResult(0).getType()))
      break;
    e = resolve(op->getOperand(0), e.map);
  }
  return e;
}

/// Attributes that change what an op computes (fast-math flags only allow
/// it to be computed differently).
static bool sameSemanticAttrs(Operation *a, Operation *b) {
  auto filtered = [](Operation *op) {
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != "fastmath")
        attrs.push_back(attr);
    return attrs;
  };
  return filtered(a) == filtered(b);
}

bool ElementView::equivalent(const Element &a, const Element &b,
                             unsigned depth) const {
  if (a.kind != b.kind || !a.isKnown() || depth > kMaxDepth)
    return false;
  switch (a.kind) {
  case Element::Kind::Unknown:
    return false;
  case Element::Kind::Constant: {
    double x = *a.constantValue(), y = *b.constantValue();
    return x == y || (std::isnan(x) && std::isnan(y));
  }
  case Element::Kind::Index:
    return sameMap(a.map, b.map);
  case Element::Kind::Read: {
    if (a.tensor == b.tensor && sameMap(a.map, b.map))
      return true;
    std::optional<ReductionRead> ra = reductionOf(a), rb = reductionOf(b);
    if (!ra || !rb || ra->combiner == Combiner::Other ||
        ra->combiner != rb->combiner || ra->dim != rb->dim ||
        ra->extended != rb->extended || !ra->seed || !rb->seed ||
        ra->seed->compare(*rb->seed) != APFloat::cmpEqual)
      return false;
    ElementView sa = reductionSpace(*ra), sb = reductionSpace(*rb);
    return sa.getExtents() == sb.getExtents() &&
           sa.equivalent(ra->element, rb->element, depth + 1);
  }
  case Element::Kind::Scalar: {
    if (a.scalar == b.scalar && sameMap(a.map, b.map))
      return true;
    if (!a.map || !b.map)
      return false;
    Operation *x = a.scalar.getDefiningOp(), *y = b.scalar.getDefiningOp();
    if (!x || !y || x->getName() != y->getName() ||
        x->getNumOperands() != y->getNumOperands() ||
        x->getNumRegions() != 0 || y->getNumRegions() != 0 ||
        a.scalar.getType() != b.scalar.getType() || !sameSemanticAttrs(x, y))
      return false;
    auto operandsMatch = [&](bool swapped) {
      unsigned n = x->getNumOperands();
      for (unsigned i = 0; i < n; ++i) {
        unsigned j = swapped ? n - 1 - i : i;
        if (!equivalent(operand(a, i), operand(b, j), depth + 1))
          return false;
      }
      return true;
    };
    return operandsMatch(false) ||
           (x->getNumOperands() == 2 &&
            x->hasTrait<OpTrait::IsCommutative>() && operandsMatch(true));
  }
  }
  return false;
}

/// The combiner of a reduction body that yields `yielded` into `acc`, and
/// the value it combines.
static std::pair<Combiner, Value> combinerOf(Value yielded, Value acc) {
  Operation *op = yielded.getDefiningOp();
  if (!op)
    return {Combiner::Other, Value()};
  auto other = [&](Value lhs, Value rhs) {
    return lhs == acc ? rhs : rhs == acc ? lhs : Value();
  };
  if (isa<arith::AddFOp>(op))
    return {Combiner::Sum, other(op->getOperand(0), op->getOperand(1))};
  if (isa<arith::MaximumFOp>(op))
    return {Combiner::Max, other(op->getOperand(0), op->getOperand(1))};
  if (isa<arith::MaxNumFOp>(op))
    return {Combiner::MaxNum, other(op->getOperand(0), op->getOperand(1))};
  // select(x > acc, x, acc), as front ends that also track the argmax
  // spell the max.
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
    if (!cmp)
      return {Combiner::Other, Value()};
    Value t = select.getTrueValue(), f = select.getFalseValue();
    Value x = f == acc ? t : t == acc ? f : Value();
    if (!x)
      return {Combiner::Other, Value()};
    using P = arith::CmpFPredicate;
    P p = cmp.getPredicate();
    bool greater = p == P::OGT || p == P::OGE || p == P::UGT || p == P::UGE;
    bool less = p == P::OLT || p == P::OLE || p == P::ULT || p == P::ULE;
    // The selected value must be the larger one.
    Value big = greater ? cmp.getLhs() : less ? cmp.getRhs() : Value();
    Value small = greater ? cmp.getRhs() : less ? cmp.getLhs() : Value();
    bool pickBig = (x == t && big == x && small == acc) ||
                   (x == f && big == acc && small == x);
    if (pickBig)
      return {Combiner::Max, x};
  }
  return {Combiner::Other, Value()};
}

std::optional<ReductionRead>
ElementView::reductionOf(const Element &read) const {
  if (!read.isRead())
    return std::nullopt;
  auto result = dyn_cast<OpResult>(read.tensor);
  auto op = result ? dyn_cast<linalg::LinalgOp>(result.getOwner())
                   : linalg::LinalgOp();
  if (!op || !op.hasPureTensorSemantics() || !op.getBlock() ||
      op.getNumReductionLoops() != 1)
    return std::nullopt;
  unsigned resultNumber = result.getResultNumber();
  OpOperand *init = op.getDpsInitOperand(resultNumber);
  AffineMap out = op.getMatchingIndexingMap(init);
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  unsigned r = reductions[0];
  if (out.isFunctionOfDim(r))
    return std::nullopt;

  // Which dimension of the reader's space is the reduced one: the one the
  // read does not depend on, or a new trailing one.
  AffineMap readMap = read.map;
  SmallVector<unsigned> free;
  for (unsigned i = 0; i < getRank(); ++i)
    if (!readMap.isFunctionOfDim(i) && extents[i] != 1)
      free.push_back(i);
  if (free.size() > 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ReductionRead red;
  red.extended = free.empty();
  red.dim = red.extended ? getRank() : free[0];
  if (!red.extended && !ShapedType::isDynamic(ranges[r]) &&
      !ShapedType::isDynamic(extents[red.dim]) && ranges[r] != extents[red.dim])
    return std::nullopt;
  unsigned rank = getRank() + (red.extended ? 1 : 0);

  // The reduction's loops in terms of the reader's space: each parallel
  // loop is what the read indexes its result position with.
  SmallVector<AffineExpr> loops(op.getNumLoops());
  for (unsigned l = 0; l < op.getNumLoops(); ++l) {
    if (l == r) {
      loops[l] = getAffineDimExpr(red.dim, ctx);
      continue;
    }
    std::optional<unsigned> pos =
        out.getResultPosition(getAffineDimExpr(l, ctx));
    if (!pos)
      return std::nullopt;
    loops[l] = readMap.getResult(*pos);
  }
  for (auto [pos, e] : llvm::enumerate(out.getResults())) {
    if (isa<AffineDimExpr>(e))
      continue;
    // A keepdim result position: read at 0.
    AffineMap at = simplify(AffineMap::get(getRank(), 0,
                                           readMap.getResult(pos), ctx));
    auto c = dyn_cast<AffineConstantExpr>(at.getResult(0));
    auto expected = dyn_cast<AffineConstantExpr>(e);
    if (!c || !expected || c.getValue() != expected.getValue())
      return std::nullopt;
  }

  auto [combiner, combined] = combinerOf(
      op.getBlock()->getTerminator()->getOperand(resultNumber),
      op.getMatchingBlockArgument(init));
  red.combiner = combiner;
  // The seed: a fill, a splat, or any elementwise op that yields one
  // constant (a generic that broadcasts a 0-d constant, say).
  Value seed = init->get();
  red.seed = splatFloatValue(seed);
  if (auto type = dyn_cast<RankedTensorType>(seed.getType()); !red.seed && type)
    red.seed = ElementView(ctx, type.getShape()).elementOf(seed).constant;
  if (combined)
    red.element = reductionSpace(red).resolve(
        combined, AffineMap::get(rank, 0, loops, ctx));
  return red;
}

ElementView ElementView::reductionSpace(const ReductionRead &r) const {
  if (!r.extended)
    return *this;
  SmallVector<int64_t> ext(extents);
  ext.push_back(ShapedType::kDynamic);
  // The extent of the new dimension is the reduction's loop range; the
  // callers that need it (materialize) read it from the reduced tensor.
  return ElementView(ctx, ext, throughReshapes);
}

Element ElementView::lift(const Element &e, unsigned extraDims) const {
  Element l = e;
  auto liftMap = [&](AffineMap m) {
    return m ? AffineMap::get(m.getNumDims() + extraDims, 0, m.getResults(),
                              ctx)
             : m;
  };
  l.map = liftMap(e.map);
  l.materializedMap = liftMap(e.materializedMap);
  return l;
}

//===----------------------------------------------------------------------===//
// Materialization
//===----------------------------------------------------------------------===//

namespace {
/// Rebuilds an element inside a new linalg.generic body.
struct Rebuilder {
  explicit Rebuilder(const ElementView &view) : view(view) {}
  const ElementView &view;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  /// Scalars already emitted, so a shared subexpression is emitted once.
  llvm::DenseMap<std::pair<Value, AffineMap>, Value> emitted;

  /// Collects the reads of `e`; false when part of it is not understood.
  bool collect(const Element &e) {
    switch (e.kind) {
    case Element::Kind::Unknown:
      return false;
    case Element::Kind::Constant:
    case Element::Kind::Index:
      return true;
    case Element::Kind::Read:
      for (auto [v, m] : llvm::zip(inputs, maps))
        if (v == e.tensor && m == e.map)
          return true;
      inputs.push_back(e.tensor);
      maps.push_back(e.map);
      return true;
    case Element::Kind::Scalar: {
      if (!e.map)
        return true;
      Operation *op = e.scalar.getDefiningOp();
      if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1)
        return false;
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        if (!collect(view.operand(e, i)))
          return false;
      return true;
    }
    }
    return false;
  }
};
} // namespace

/// Emits `e` in a generic body whose block arguments are `args` (one per
/// read in `rebuilder.inputs`).
static Value emitElement(OpBuilder &b, Location loc, const ElementView &view,
                         Rebuilder &rb, ValueRange args, const Element &e,
                         Type want) {
  switch (e.kind) {
  case Element::Kind::Unknown:
    return Value();
  case Element::Kind::Constant: {
    auto type = dyn_cast<FloatType>(want);
    if (!type)
      return Value();
    APFloat v = *e.constant;
    bool losesInfo;
    v.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &losesInfo);
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, v));
  }
  case Element::Kind::Index: {
    auto d = dyn_cast<AffineDimExpr>(e.map.getResult(0));
    if (!d)
      return Value();
    return linalg::IndexOp::create(b, loc, d.getPosition());
  }
  case Element::Kind::Read:
    for (auto [i, v, m] : llvm::enumerate(rb.inputs, rb.maps))
      if (v == e.tensor && m == e.map)
        return args[i];
    return Value();
  case Element::Kind::Scalar: {
    if (!e.map)
      return e.scalar;
    auto key = std::make_pair(e.scalar, e.map);
    if (Value done = rb.emitted.lookup(key))
      return done;
    Operation *op = e.scalar.getDefiningOp();
    IRMapping mapping;
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      Value v = emitElement(b, loc, view, rb, args, view.operand(e, i),
                            op->getOperand(i).getType());
      if (!v)
        return Value();
      mapping.map(op->getOperand(i), v);
    }
    Value v = b.clone(*op, mapping)->getResult(0);
    rb.emitted[key] = v;
    return v;
  }
  }
  return Value();
}

Value ElementView::materialize(OpBuilder &b, Location loc, const Element &e,
                               Type elementType) const {
  if (e.materialized && sameMap(e.materializedMap, identity())) {
    auto type = dyn_cast<RankedTensorType>(e.materialized.getType());
    if (type && type.getShape() == ArrayRef<int64_t>(extents) &&
        type.getElementType() == elementType)
      return e.materialized;
  }
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return Value();
  Rebuilder rb(*this);
  if (!rb.collect(e))
    return Value();
  SmallVector<AffineMap> maps(rb.maps);
  maps.push_back(identity());
  Value init = tensor::EmptyOp::create(b, loc, extents, elementType);
  SmallVector<utils::IteratorType> iterators(getRank(),
                                             utils::IteratorType::parallel);
  bool failed = false;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, rb.inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = emitElement(nb, nloc, *this, rb, args.drop_back(), e,
                              elementType);
        if (!v || v.getType() != elementType) {
          failed = true;
          v = args.back();
        }
        linalg::YieldOp::create(nb, nloc, v);
      });
  if (failed) {
    generic->erase();
    init.getDefiningOp()->erase();
    return Value();
  }
  return generic->getResult(0);
}
