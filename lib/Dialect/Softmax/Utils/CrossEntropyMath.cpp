//===- CrossEntropyMath.cpp - the cross-entropy gradient's formulas -------===//

#include "softmax-mlir/Dialect/Softmax/Utils/CrossEntropyMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;

static Value f32(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// 1 + 2 c lse: the z-loss's factor on a token's probabilities.
static Value zLossFactor(OpBuilder &b, Location loc, Value lse, double zLoss) {
  return arith::AddFOp::create(
      b, loc, f32(b, loc, 1.0),
      arith::MulFOp::create(b, loc, f32(b, loc, 2 * zLoss), lse));
}

Value mlir::softmax::crossEntropyTokenWeight(OpBuilder &b, Location loc,
                                             Value target, Value gradLoss,
                                             Value classes,
                                             int64_t ignoreIndex) {
  using P = arith::CmpIPredicate;
  Type tt = target.getType();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(tt, v));
  };
  Value v = arith::IndexCastOp::create(b, loc, tt, classes);
  Value inRange = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, P::sge, target, cst(0)),
      arith::CmpIOp::create(b, loc, P::slt, target, v));
  Value kept = arith::CmpIOp::create(b, loc, P::ne, target, cst(ignoreIndex));
  Value w = arith::SelectOp::create(
      b, loc, inRange, gradLoss,
      f32(b, loc, std::numeric_limits<double>::quiet_NaN()));
  return arith::SelectOp::create(b, loc, kept, w, f32(b, loc, 0.0));
}

Value mlir::softmax::crossEntropyLogitGradient(OpBuilder &b, Location loc,
                                               Value z, Value lse, Value weight,
                                               Value isTarget, double zLoss,
                                               std::optional<double> softcap,
                                               ExpUnits units) {
  StateMath sm(b, loc, b.getF32Type());
  Value p = sm.scale(StateKind::Max, sm.sub(z, lse), units);
  if (zLoss != 0.0)
    p = arith::MulFOp::create(b, loc, p, zLossFactor(b, loc, lse, zLoss));
  Value g = arith::SubFOp::create(
      b, loc, p,
      arith::SelectOp::create(b, loc, isTarget, f32(b, loc, 1.0),
                              f32(b, loc, 0.0)));
  g = arith::MulFOp::create(b, loc, g, weight);
  if (softcap) {
    // d(s tanh(u / s)) / du = 1 - (z / s)^2.
    Value r = arith::DivFOp::create(b, loc, z, f32(b, loc, *softcap));
    g = arith::MulFOp::create(
        b, loc, g,
        arith::SubFOp::create(b, loc, f32(b, loc, 1.0),
                              arith::MulFOp::create(b, loc, r, r)));
  }
  return g;
}

Value mlir::softmax::crossEntropyKeepsEntry(OpBuilder &b, Location loc,
                                            Value du, Value weight,
                                            double filter) {
  Value limit = arith::MulFOp::create(b, loc, f32(b, loc, filter),
                                      math::AbsFOp::create(b, loc, weight));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT,
                               math::AbsFOp::create(b, loc, du), limit);
}

Value mlir::softmax::crossEntropyBoundsToken(OpBuilder &b, Location loc,
                                             Value groupMax, Value lse,
                                             Value weight, Value targetInTile,
                                             double zLoss, double filter) {
  // In the log domain: groupMax - lse + log|1 + 2 c lse| <= log(filter').
  Value d = arith::SubFOp::create(b, loc, groupMax, lse);
  if (zLoss != 0.0)
    d = arith::AddFOp::create(
        b, loc, d,
        math::LogOp::create(
            b, loc, math::AbsFOp::create(b, loc, zLossFactor(b, loc, lse, zLoss))));
  double limit = std::log(filter * (1.0 - std::ldexp(1.0, -10)));
  Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, d,
                                      f32(b, loc, limit));
  Value zero = f32(b, loc, 0.0);
  Value ignored =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, weight, zero);
  Value ordered =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, weight, zero);
  Value elsewhere = arith::XOrIOp::create(
      b, loc, targetInTile, arith::ConstantIntOp::create(b, loc, 1, 1));
  return arith::AndIOp::create(
      b, loc, arith::AndIOp::create(b, loc, small, ordered),
      arith::OrIOp::create(b, loc, elsewhere, ignored));
}
