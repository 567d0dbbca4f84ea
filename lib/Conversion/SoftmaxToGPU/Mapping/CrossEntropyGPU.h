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

/// f32 buffers allocated in stream order (gpu.alloc async after the
/// previous step's token), the launches chained on `token`, and at the end
/// every buffer freed and the host waiting for the stream.
struct StreamWorkspace {
  StreamWorkspace(OpBuilder &b, Location loc)
      : b(b), loc(loc), tokenType(gpu::AsyncTokenType::get(b.getContext())),
        token(gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                  .getAsyncToken()) {}

  /// A [shape] f32 buffer (`sizes`: its dynamic sizes).
  Value alloc(ArrayRef<int64_t> shape, ValueRange sizes) {
    auto a = gpu::AllocOp::create(
        b, loc, MemRefType::get(shape, b.getF32Type()), tokenType,
        ValueRange{token}, sizes, ValueRange{});
    token = a.getAsyncToken();
    buffers.push_back(a.getMemref());
    return a.getMemref();
  }
  /// Frees the buffers after the last step and waits for the stream.
  void finish() {
    for (Value buffer : buffers)
      token = gpu::DeallocOp::create(b, loc, tokenType, ValueRange{token},
                                     buffer)
                  .getAsyncToken();
    gpu::WaitOp::create(b, loc, Type(), ValueRange{token});
  }

  OpBuilder &b;
  Location loc;
  Type tokenType;
  /// What the next step waits for.
  Value token;
  SmallVector<Value> buffers;
};

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGPU_H
