//===- AttentionUnifiedMax.cpp - the unified max in the reference lowering ===//
//
// softmax.attention's algorithm(unified_max) in linalg: terms exp(s - phi)
// at the op's fixed offset, their sum and weighted values, and the
// fallback: when some row's sum leaves the range of
// StateMath::unifiedSumInRange (the one place the range is written), an
// scf.if recomputes the op on the online path. Both decompositions, over
// all keys and tiled along them, call these.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/AttentionDecompose.h"

#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

Value AttentionDecomposer::unifiedOffset() {
  return fill({batch, heads, queries}, APFloat(op.getUnifiedMaxPhi()));
}

Value AttentionDecomposer::unifiedSum(Value scores) {
  MLIRContext *ctx = op.getContext();
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap rowOf4 = id4.getMajorSubMap(3);
  float phi = op.getUnifiedMaxPhi();
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value zero = fill({batch, heads, queries}, APFloat(0.0f));
  return linalg::GenericOp::create(
             b, loc, zero.getType(), scores, zero, {id4, rowOf4}, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               StateMath sm(nb, l, f32);
               Value t = sm.term(StateKind::Max, args[0], sm.cst(phi));
               linalg::YieldOp::create(nb, l, sm.add(args[1], t));
             })
      .getResult(0);
}

SmallVector<Value> AttentionDecomposer::unifiedOrOnline(
    Value sum, ValueRange unified, function_ref<SmallVector<Value>()> online) {
  MLIRContext *ctx = op.getContext();
  // The and over every row of StateMath::unifiedSumInRange, into a 0-d i1.
  Type i1 = b.getI1Type();
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i1);
  Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value init = linalg::FillOp::create(b, loc, yes, empty).getResult(0);
  AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
  AffineMap scalar = AffineMap::get(3, 0, {}, ctx);
  Value all =
      linalg::GenericOp::create(
          b, loc, init.getType(), sum, init, {id3, scalar},
          SmallVector<utils::IteratorType>(3, utils::IteratorType::reduction),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            StateMath sm(nb, l, f32);
            Value ok = sm.unifiedSumInRange(args[0]);
            Value both = arith::AndIOp::create(nb, l, args[1], ok);
            linalg::YieldOp::create(nb, l, both);
          })
          .getResult(0);
  Value keep = tensor::ExtractOp::create(b, loc, all, ValueRange{});
  SmallVector<Type> types;
  for (Value v : unified)
    types.push_back(v.getType());
  auto branch = scf::IfOp::create(b, loc, types, keep, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  scf::YieldOp::create(b, loc, unified);
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  scf::YieldOp::create(b, loc, online());
  return SmallVector<Value>(branch.getResults());
}
