//===- CrossEntropyGPU.h - the cross-entropy mappings' share --*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU/Mapping: the forward
// (CrossEntropyToGPU.cpp) and the gradient (CrossEntropyGradToGPU.cpp) of
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

#include "StreamWorkspace.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGPU_H
