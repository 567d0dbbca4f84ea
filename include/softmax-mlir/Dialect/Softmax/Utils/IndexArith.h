//===- IndexArith.h - index arithmetic at an insertion point ----*- C++ -*-===//
//
// The index constants and integer arithmetic every kernel builder needs
// (loop bounds, lane and tile coordinates), in one place instead of a
// private helper per kernel. Upstream's ArithBuilder covers the arithmetic
// but not the index constants, and ImplicitLocOpBuilder would change every
// builder the kernels pass around.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_INDEXARITH_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_INDEXARITH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::softmax {

/// Index arithmetic at `b`'s insertion point, at `loc`. Kernel builders
/// derive from it; a rewrite entry point can hold one.
class IndexArith {
public:
  IndexArith(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// `v` as an index constant.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  /// Unsigned division and remainder by a constant.
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, idx(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, idx(y));
  }
  Value minI(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxI(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value minU(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }

protected:
  OpBuilder &b;
  Location loc;
};

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_INDEXARITH_H
