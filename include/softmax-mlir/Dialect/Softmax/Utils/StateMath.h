//===- StateMath.h - scalar arithmetic of the softmax state -----*- C++ -*-===//
//
// The per-element formulas of every algorithm, in one place, so that the
// linalg lowering and the GPU mapping compute the same thing. Works on
// scalars and on vectors of the accumulation type.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_STATEMATH_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_STATEMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include <cmath>

namespace mlir::softmax {

/// Arithmetic in the accumulation type, on scalars or, when `lanes` is
/// given, on vectors of that many lanes (constants become splats).
class StateMath {
public:
  StateMath(OpBuilder &b, Location loc, FloatType acc, int64_t lanes = 0)
      : b(b), loc(loc), acc(acc),
        vecType(lanes ? VectorType::get({lanes}, acc) : VectorType()) {}

  /// The type every value of this StateMath has.
  Type type() const { return vecType ? Type(vecType) : Type(acc); }

  Value constant(const APFloat &v) {
    FloatAttr attr = b.getFloatAttr(acc, v);
    if (vecType)
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vecType, Attribute(attr)));
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value cst(double v) {
    APFloat f(v);
    bool lost;
    f.convert(acc.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return constant(f);
  }
  Value negInf() {
    return constant(APFloat::getInf(acc.getFloatSemantics(), true));
  }
  Value nan() { return constant(APFloat::getNaN(acc.getFloatSemantics())); }
  /// `v` converted to the accumulation type (same shape).
  Value toAcc(Value v) {
    Type from = getElementTypeOrSelf(v.getType());
    if (from == acc)
      return v;
    Type to = withShapeOf(v, acc);
    if (from.getIntOrFloatBitWidth() < acc.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  /// `v` (accumulation type) converted to element type `to` (same shape).
  Value fromAcc(Value v, Type to) {
    if (to == acc)
      return v;
    Type shaped = withShapeOf(v, to);
    if (to.getIntOrFloatBitWidth() < acc.getWidth())
      return arith::TruncFOp::create(b, loc, shaped, v);
    return arith::ExtFOp::create(b, loc, shaped, v);
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

  //===--------------------------------------------------------------------===//
  // The formulas of the algorithms (docs/Numerics.md)
  //===--------------------------------------------------------------------===//

  /// The merge of two states: M = max(m1, m2), l = l1 s1 + l2 s2 with
  /// s_i = scale(m_i - M). Returns (M, s1, s2) for callers that rescale
  /// accumulators too.
  std::tuple<Value, Value, Value> mergeScales(StateKind kind, Value m1,
                                              Value m2) {
    Value mNew = max(m1, m2);
    return {mNew, scale(kind, sub(m1, mNew)), scale(kind, sub(m2, mNew))};
  }
  std::pair<Value, Value> merge(StateKind kind, Value m1, Value l1, Value m2,
                                Value l2) {
    auto [mNew, s1, s2] = mergeScales(kind, m1, m2);
    return {mNew, add(mul(l1, s1), mul(l2, s2))};
  }

  /// The value a fully masked row gets.
  Value maskedValue(MaskedRows masked, bool probability) {
    if (masked == MaskedRows::NaN)
      return nan();
    return probability ? cst(0.0) : negInf();
  }

  /// One output element of softmax or log_softmax given the row's final
  /// state; `invSum`, when given, is 1 / l, to multiply instead of divide.
  Value normalize(NormalizeKind kind, StateKind state, MaskedRows masked,
                  Value x, Value m, Value l, Value invSum = Value()) {
    bool exponent = state == StateKind::Exponent;
    Value y;
    if (kind == NormalizeKind::LogSoftmax) {
      // x - m - log l, with m * ln 2 applied exactly for exponents.
      Value shifted = exponent ? subScaledLn2(x, m) : sub(x, m);
      y = sub(shifted, log(l));
    } else {
      Value num;
      if (!exponent) {
        num = exp(sub(x, m));
      } else {
        // a * 2^(k - K); a -inf element has no pair and is 0.
        auto [k, a] = expPair(x);
        num = select(eq(x, negInf()), cst(0.0), mul(a, exp2(sub(k, m))));
      }
      y = invSum ? mul(num, invSum) : div(num, l);
    }
    return select(eq(l, cst(0.0)),
                  maskedValue(masked, kind == NormalizeKind::Softmax), y);
  }

  /// The log-sum-exp of a final state.
  Value lse(StateKind state, MaskedRows masked, Value m, Value l) {
    Value logSum = log(l);
    Value y;
    if (state == StateKind::Exponent) {
      // K ln 2 + log A, with the head of ln 2 applied last so that the
      // large part is added to an already accurate small part.
      auto [hi, lo] = ln2Split();
      y = fma(m, hi, fma(m, lo, logSum));
    } else {
      y = add(m, logSum);
    }
    return select(eq(l, cst(0.0)), maskedValue(masked, false), y);
  }

  /// The identity state's offset: the most negative finite value, so that
  /// the difference of two identities is 0, never -inf - -inf.
  Value lowest() {
    return constant(APFloat::getLargest(acc.getFloatSemantics(), true));
  }

protected:
  static Type withShapeOf(Value v, Type element) {
    if (auto vec = dyn_cast<VectorType>(v.getType()))
      return vec.clone(element);
    return element;
  }

  OpBuilder &b;
  Location loc;
  FloatType acc;
  VectorType vecType;
};

/// Combines `values` pairwise, level by level (an odd one out moves up
/// unchanged): no chain is longer than log2(n) combinations, so sums keep
/// short rounding chains and the dependent operations in flight stay few.
inline Value treeReduce(ArrayRef<Value> values,
                        llvm::function_ref<Value(Value, Value)> combine) {
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

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_STATEMATH_H
