//===- StateMath.cpp - the algebra of the online softmax state -----------===//
//
// Each formula emits its operations in one fixed order (operands before
// the operation, left to right), which the kernels' output depends on:
// the sequences below are spelled out with named values rather than
// nested calls, whose argument order C++ leaves open.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include <cmath>

using namespace mlir;
using namespace mlir::softmax;

//===----------------------------------------------------------------------===//
// Constants, conversions, arithmetic
//===----------------------------------------------------------------------===//

StateMath::StateMath(OpBuilder &b, Location loc, FloatType acc, int64_t lanes)
    : b(b), loc(loc), acc(acc),
      vecType(lanes ? VectorType::get({lanes}, acc) : VectorType()) {}

Value StateMath::constant(const APFloat &v) {
  FloatAttr attr = b.getFloatAttr(acc, v);
  if (vecType)
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vecType, Attribute(attr)));
  return arith::ConstantOp::create(b, loc, attr);
}

Value StateMath::cst(double v) {
  APFloat f(v);
  bool lost;
  f.convert(acc.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return constant(f);
}

Value StateMath::negInf() {
  return constant(APFloat::getInf(acc.getFloatSemantics(), true));
}

Value StateMath::nan() {
  return constant(APFloat::getNaN(acc.getFloatSemantics()));
}

Type StateMath::withShapeOf(Value v, Type element) {
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    return vec.clone(element);
  return element;
}

Value StateMath::toAcc(Value v) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == acc)
    return v;
  Type to = withShapeOf(v, acc);
  if (from.getIntOrFloatBitWidth() < acc.getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value StateMath::fromAcc(Value v, Type to) {
  if (to == acc)
    return v;
  Type shaped = withShapeOf(v, to);
  if (to.getIntOrFloatBitWidth() < acc.getWidth())
    return arith::TruncFOp::create(b, loc, shaped, v);
  return arith::ExtFOp::create(b, loc, shaped, v);
}

Value StateMath::add(Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value StateMath::sub(Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value StateMath::mul(Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value StateMath::div(Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y);
}
Value StateMath::exp(Value x) { return math::ExpOp::create(b, loc, x); }
Value StateMath::log(Value x) { return math::LogOp::create(b, loc, x); }
Value StateMath::log2(Value x) { return math::Log2Op::create(b, loc, x); }
Value StateMath::fma(Value x, Value y, Value z) {
  return math::FmaOp::create(b, loc, x, y, z);
}
Value StateMath::eq(Value x, Value y) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
}
Value StateMath::select(Value c, Value t, Value f) {
  return arith::SelectOp::create(b, loc, c, t, f);
}

Value StateMath::splat(Value scalar) {
  return vector::BroadcastOp::create(b, loc, type(), scalar);
}
Value StateMath::lane(Value v, int64_t i) {
  return vector::ExtractOp::create(b, loc, v, i);
}
Value StateMath::reduceAdd(Value v) {
  // A halving tree, not vector.reduction <add>: without reassociation that
  // op is an ordered sum (LLVM emits one dependent add per lane), whose
  // error grows like lanes * u on rows of equal terms; at 64 lanes it
  // reached 1.06e-6 against the flat 1e-6 f32 bound. The tree is log2(lanes)
  // vector adds, exact on equal terms, error at most log2(lanes) u.
  auto type = cast<VectorType>(v.getType());
  int64_t n = type.getNumElements();
  while (n > 1 && n % 2 == 0) {
    n /= 2;
    Value lo = vector::ExtractStridedSliceOp::create(b, loc, v, {0}, {n}, {1});
    Value hi = vector::ExtractStridedSliceOp::create(b, loc, v, {n}, {n}, {1});
    v = add(lo, hi);
  }
  SmallVector<Value> rest;
  for (int64_t i = 0; i < n; ++i)
    rest.push_back(lane(v, i));
  return treeReduce(rest, [&](Value x, Value y) { return add(x, y); });
}

//===----------------------------------------------------------------------===//
// Hooks
//===----------------------------------------------------------------------===//

Value StateMath::offsetMax(Value x, Value y) {
  return arith::MaximumFOp::create(b, loc, x, y);
}
Value StateMath::reduceOffsetMax(Value v) {
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXIMUMF,
                                     v);
}
Value StateMath::pow2(Value d) { return math::Exp2Op::create(b, loc, d); }
Value StateMath::fastExp2(Value x) { return math::Exp2Op::create(b, loc, x); }

//===----------------------------------------------------------------------===//
// Identity, offsets, terms
//===----------------------------------------------------------------------===//

Value StateMath::identityOffset() {
  return constant(APFloat::getLargest(acc.getFloatSemantics(), true));
}
Value StateMath::identitySum() { return cst(0.0); }

Value StateMath::log2e() { return cst(M_LOG2E); }
Value StateMath::ln2() { return cst(M_LN2); }

Value StateMath::elementOffset(StateKind kind, Value x) {
  if (kind == StateKind::Max)
    return x;
  Value factor = log2e();
  return math::RoundEvenOp::create(b, loc, mul(x, factor));
}

std::pair<Value, Value> StateMath::ln2Split() {
  if (acc.isF64()) {
    Value hi = ln2();
    return {hi, cst(2.3190468138462996e-17)};
  }
  double hi = static_cast<float>(M_LN2);
  Value head = cst(hi);
  return {head, cst(M_LN2 - hi)};
}

Value StateMath::subScaledLn2(Value x, Value k) {
  auto [hi, lo] = ln2Split();
  Value negK = arith::NegFOp::create(b, loc, k);
  Value head = fma(negK, hi, x);
  return fma(negK, lo, head);
}

Value StateMath::logTerm(StateKind kind, Value x, Value m) {
  return kind == StateKind::Exponent ? subScaledLn2(x, m) : sub(x, m);
}

Value StateMath::term(StateKind kind, Value x, Value m, ExpUnits units) {
  if (kind == StateKind::Max)
    return scale(kind, sub(x, m), units);
  return exp(logTerm(kind, x, m));
}

std::pair<Value, Value> StateMath::expPair(Value x) {
  Value k = elementOffset(StateKind::Exponent, x);
  return {k, term(StateKind::Exponent, x, k)};
}

Value StateMath::pairTerm(Value k, Value a, Value m) {
  return mul(a, pow2(sub(k, m)));
}

Value StateMath::log2Units(Value x) {
  Value factor = log2e();
  return mul(x, factor);
}

float StateMath::log2UnitsFactor(float scale) {
  return scale * static_cast<float>(M_LOG2E);
}

//===----------------------------------------------------------------------===//
// Rescale and merge
//===----------------------------------------------------------------------===//

Value StateMath::scale(StateKind kind, Value diff, ExpUnits units) {
  if (kind == StateKind::Exponent)
    return pow2(diff);
  switch (units) {
  case ExpUnits::Natural:
    return exp(diff);
  case ExpUnits::Log2Scaled: {
    Value factor = log2e();
    return fastExp2(mul(diff, factor));
  }
  case ExpUnits::Log2:
    return fastExp2(diff);
  }
  llvm_unreachable("unknown exp units");
}

Value StateMath::rescale(StateKind kind, Value m, Value mNew, ExpUnits units) {
  return scale(kind, sub(m, mNew), units);
}

StateMath::MergeScales StateMath::mergeScales(StateKind kind, Value m1,
                                              Value m2, MaxOrder order,
                                              ExpUnits units) {
  Value mNew =
      order == MaxOrder::StateFirst ? offsetMax(m1, m2) : offsetMax(m2, m1);
  Value s1 = rescale(kind, m1, mNew, units);
  Value s2 = rescale(kind, m2, mNew, units);
  return {mNew, s1, s2};
}

StateMath::MergeScales StateMath::infSafeMergeScales(StateKind kind, Value m1,
                                                     Value m2, ExpUnits units) {
  MergeScales s = mergeScales(kind, m1, m2, MaxOrder::StateFirst, units);
  Value one = cst(1.0);
  s.lhs = select(eq(m1, s.offset), one, s.lhs);
  s.rhs = select(eq(m2, s.offset), one, s.rhs);
  return s;
}

Value StateMath::mergeSums(const MergeScales &s, Value x1, Value x2) {
  Value y1 = mul(x1, s.lhs);
  Value y2 = mul(x2, s.rhs);
  return add(y1, y2);
}

std::pair<Value, Value> StateMath::merge(StateKind kind, Value m1, Value l1,
                                         Value m2, Value l2, ExpUnits units) {
  MergeScales s = mergeScales(kind, m1, m2, MaxOrder::StateFirst, units);
  return {s.offset, mergeSums(s, l1, l2)};
}

std::tuple<Value, Value, Value>
StateMath::mergeCompensated(StateKind kind, Value m1, Value l1, Value c1,
                            Value m2, Value l2, MaxOrder order) {
  MergeScales s = mergeScales(kind, m1, m2, order);
  Value y1 = mul(l1, s.lhs);
  Value d1 = mul(c1, s.lhs);
  Value y2 = mul(l2, s.rhs);
  auto [sum, comp] = kahanAdd(y1, d1, y2);
  return {s.offset, sum, comp};
}

std::pair<Value, Value> StateMath::mergeLanes(StateKind kind, Value m,
                                              Value l) {
  Value mNew = reduceOffsetMax(m);
  Value s = rescale(kind, m, splat(mNew));
  return {mNew, reduceAdd(mul(l, s))};
}

std::pair<Value, Value> StateMath::kahanAdd(Value sum, Value comp, Value term) {
  Value y = sub(term, comp);
  Value t = add(sum, y);
  return {t, sub(sub(t, sum), y)};
}

Value StateMath::kahanTotal(Value sum, Value comp) { return sub(sum, comp); }

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

std::pair<Value, Value> StateMath::stateOfLse(Value lse) {
  Value empty = eq(lse, negInf());
  return {select(empty, identityOffset(), lse),
          select(empty, identitySum(), cst(1.0))};
}

Value StateMath::emptyRow(Value l) {
  Value zero = cst(0.0);
  return eq(l, zero);
}

Value StateMath::reciprocal(Value l) {
  Value one = cst(1.0);
  return div(one, l);
}

Value StateMath::maskedValue(MaskedRows masked, bool probability) {
  if (masked == MaskedRows::NaN)
    return nan();
  return probability ? cst(0.0) : negInf();
}

Value StateMath::maskRow(MaskedRows masked, bool probability, Value l,
                         Value y) {
  Value empty = emptyRow(l);
  Value fill = maskedValue(masked, probability);
  return select(empty, fill, y);
}

Value StateMath::normalized(NormalizeKind kind, StateKind state, Value x,
                            Value m, Value l, Value rowValue, bool pairs,
                            ExpUnits units) {
  if (kind == NormalizeKind::LogSoftmax) {
    Value shifted = logTerm(state, x, m);
    return sub(shifted, rowValue ? rowValue : log(l));
  }
  Value num;
  if (state == StateKind::Exponent && pairs) {
    // a * 2^(k - K); a -inf element has no pair and is 0.
    auto [k, a] = expPair(x);
    Value minusInf = eq(x, negInf());
    Value zero = cst(0.0);
    num = select(minusInf, zero, pairTerm(k, a, m));
  } else {
    num = term(state, x, m, units);
  }
  return rowValue ? mul(num, rowValue) : div(num, l);
}

Value StateMath::normalize(NormalizeKind kind, StateKind state,
                           MaskedRows masked, Value x, Value m, Value l,
                           Value invSum, ExpUnits units) {
  Value y = normalized(kind, state, x, m, l, invSum, /*pairs=*/true, units);
  return maskRow(masked, kind == NormalizeKind::Softmax, l, y);
}

Value StateMath::lseOf(StateKind state, Value m, Value l, ExpUnits units) {
  if (units == ExpUnits::Log2) {
    Value inLog2 = add(m, log2(l));
    return mul(inLog2, ln2());
  }
  Value logSum = log(l);
  if (state == StateKind::Max)
    return add(m, logSum);
  // K ln 2 + log A, with the head of ln 2 applied last so that the large
  // part is added to an already accurate small part.
  auto [hi, lo] = ln2Split();
  return fma(m, hi, fma(m, lo, logSum));
}

Value StateMath::lse(StateKind state, MaskedRows masked, Value m, Value l) {
  Value y = lseOf(state, m, l);
  return maskRow(masked, /*probability=*/false, l, y);
}

//===----------------------------------------------------------------------===//
// Skipping key tiles
//===----------------------------------------------------------------------===//

Value StateMath::logSkipThreshold(Value t, Value keys) {
  using P = arith::CmpFPredicate;
  Value lambda = skipLambda(t, keys);
  // Ordered compares: NaN is off too.
  Value on = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OGT, lambda, cst(0.0)),
      arith::CmpFOp::create(b, loc, P::OLT, lambda, cst(1.0)));
  return select(on, log(lambda), negInf());
}

Value StateMath::skipLambda(Value t, Value keys) {
  return keys ? div(t, keys) : t;
}

Value StateMath::rowSeesTile(Value tileMax) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, tileMax,
                               identityOffset());
}

Value StateMath::rowAllowsSkip(Value tileMax, Value m, Value logLambda) {
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                      sub(tileMax, m), logLambda);
  Value blind = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE,
                                      tileMax, identityOffset());
  return arith::OrIOp::create(b, loc, below, blind);
}

Value StateMath::unifiedSumInRange(Value l) {
  Value lo = cst(std::ldexp(1.0, -kUnifiedSumLog2Bound));
  Value hi = cst(std::ldexp(1.0, kUnifiedSumLog2Bound));
  // Ordered comparisons: NaN is out of range.
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, l, lo);
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, l, hi);
  return arith::AndIOp::create(b, loc, above, below);
}

//===----------------------------------------------------------------------===//
// treeReduce
//===----------------------------------------------------------------------===//

Value mlir::softmax::treeReduce(
    ArrayRef<Value> values, llvm::function_ref<Value(Value, Value)> combine) {
  SmallVector<Value> level(values);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(combine(level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}
