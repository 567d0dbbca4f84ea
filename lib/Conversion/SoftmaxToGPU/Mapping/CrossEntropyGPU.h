//===- CrossEntropyGPU.h - the cross-entropy mappings' share --*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU/Mapping: the forward
// (CrossEntropyToGPU.cpp) and the gradient (CrossEntropyGradTile.cpp) of
// the fused linear cross-entropy check the same buffers, build each logit
// from its raw dot the same way, and keep their f32 workspace in stream
// order the same way.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGPU_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGPU_H

#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "softmax-mlir/Conversion/SoftmaxToGPU/TileMma.h"

#include "StreamWorkspace.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::softmax::detail {

/// Emits at `op` why its buffers have no GPU kernel, and fails: the tensor
/// form, strided buffers, a dynamic hidden size, or rows of `hidden` that
/// are not whole 16-byte pieces (the tiles copy 16 bytes at a time).
inline LogicalResult checkCrossEntropyBuffers(Operation *op, Value hidden) {
  auto hType = dyn_cast<MemRefType>(hidden.getType());
  if (!hType)
    return op->emitOpError("GPU mapping takes the op on memrefs (bufferize "
                           "it first, as softmax-to-nvvm does)");
  if (auto why = whyNotContiguousBuffers(op->getOperands(), "GPU mapping"))
    return op->emitOpError(*why);
  Type elt = hType.getElementType();
  int64_t d = hType.getDimSize(1);
  if (ShapedType::isDynamic(d))
    return op->emitOpError("GPU mapping needs a static hidden size (D), "
                           "which its shared-memory tiles are built for");
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  if (d == 0 || (d * eltBytes) % 16 != 0)
    return op->emitOpError()
           << "GPU mapping copies rows in 16-byte pieces: a hidden size of "
           << d << " " << elt << " elements is not a multiple of "
           << 16 / eltBytes;
  return success();
}

/// The logit of the raw dot `x` (f32) of class `cls` (an index in [0, V)):
/// plus `bias[cls]` with a bias, then s tanh(x / s) with a softcap.
inline Value crossEntropyLogit(OpBuilder &b, Location loc, StateMath &sm,
                               Value x, Value bias, Value cls,
                               FloatAttr softcap) {
  if (bias)
    x = sm.add(x, sm.toAcc(memref::LoadOp::create(b, loc, bias, cls)));
  if (softcap) {
    Value s = sm.cst(softcap.getValueAsDouble());
    x = sm.mul(s, math::TanhOp::create(b, loc, sm.div(x, s)));
  }
  return x;
}

/// `values` where `keep` holds, else `change(values)`: an scf.if around
/// work that few tiles need (its branch is uniform over most warps).
inline SmallVector<Value>
keepOrChange(OpBuilder &b, Location loc, Value keep, ArrayRef<Value> values,
             function_ref<SmallVector<Value>(SmallVector<Value>)> change) {
  auto branch = scf::IfOp::create(b, loc, ValueRange(values).getTypes(), keep,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  scf::YieldOp::create(b, loc, values);
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  scf::YieldOp::create(b, loc, change(SmallVector<Value>(values)));
  return SmallVector<Value>(branch.getResults());
}

/// The warpgroup logit tile (wgmma targets) of the forward and of the
/// gradient's chunked form: two warpgroups, each 64 tokens by 256 classes,
/// four slices of 64 features in flight (4 x 48 KiB of shared memory).
inline void useWarpgroupLogitTile(TileMmaConfig &c) {
  c.warpgroups = true;
  c.warpsM = 8;
  c.warpsN = 1;
  c.warpRows = 16;
  c.warpCols = 256;
  c.stages = 4;
}

/// The logits of class tiles [j0, j1) of one block, `innerSteps` slices of
/// the hidden size each, in one pipeline (the forward's schedule: a slice
/// is staged into the buffer of the last slice whose products every warp
/// has completed, across tiles too; past the end the last slice again).
/// `stageSlice(t, buf)` stages slice t of the block's sequence (tile j0 + t
/// / innerSteps) and returns TileMma::stage's token; `body(j, acc,
/// carried)` takes tile j's settled accumulators and the values carried
/// from tile to tile (`init` first) and returns the next. Returns the last
/// carried values; no copy is in flight after it.
inline SmallVector<Value> forEachLogitTile(
    OpBuilder &b, Location loc, TileMma &mma, Value j0, Value j1,
    int64_t innerSteps, ValueRange init, Value warpRow, Value warpCol,
    function_ref<Value(Value, Value)> stageSlice,
    function_ref<SmallVector<Value>(Value, ArrayRef<Value>, ValueRange)> body) {
  IndexArith ix(b, loc);
  const TileMmaConfig &c = mma.getConfig();
  Value total = ix.mul(ix.sub(j1, j0), ix.idx(innerSteps));
  Value last = ix.sub(total, ix.idx(1));
  int64_t ahead = c.stages - 1 - mma.productsInFlight();
  Value token;
  for (int64_t t = 0; t < ahead; ++t)
    token = stageSlice(ix.minI(ix.idx(t), last), ix.idx(t));
  auto outer = scf::ForOp::create(
      b, loc, j0, j1, ix.idx(1), init,
      [&](OpBuilder &, Location, Value j, ValueRange carried) {
        auto inner = scf::ForOp::create(
            b, loc, ix.idx(0), ix.idx(innerSteps), ix.idx(1), mma.zero(),
            [&](OpBuilder &, Location, Value k, ValueRange acc) {
              Value t = ix.add(ix.mul(ix.sub(j, j0), ix.idx(innerSteps)), k);
              Value next = ix.add(t, ix.idx(ahead));
              stageSlice(ix.minI(next, last), ix.rem(next, c.stages));
              mma.waitSlice(t, token, ahead);
              SmallVector<Value> out = mma.multiply(
                  llvm::to_vector(acc), ix.rem(t, c.stages), warpRow, warpCol);
              gpu::BarrierOp::create(b, loc);
              scf::YieldOp::create(b, loc, out);
            });
        SmallVector<Value> acc =
            mma.settle(SmallVector<Value>(inner.getResults()));
        scf::YieldOp::create(b, loc, body(j, acc, carried));
      });
  mma.drain(token, total, ahead);
  return outer.getResults();
}

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGPU_H
