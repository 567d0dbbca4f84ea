//===- StreamWorkspace.h - kernels' workspace in stream order -*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU/Mapping: the mappings whose
// kernels hand partial results to a later kernel (the linear
// cross-entropy's class ranges, top-k's row parts) allocate them with
// gpu.alloc async, chain the launches on one token, and free them after.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_STREAMWORKSPACE_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_STREAMWORKSPACE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::softmax::detail {

/// Buffers allocated in stream order (gpu.alloc async after the
/// previous step's token), the launches chained on `token`, and at the end
/// every buffer freed and the host waiting for the stream.
struct StreamWorkspace {
  StreamWorkspace(OpBuilder &b, Location loc)
      : b(b), loc(loc), tokenType(gpu::AsyncTokenType::get(b.getContext())),
        token(gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                  .getAsyncToken()) {}

  /// A [shape] buffer of `elt` (f32 if null; `sizes`: its dynamic sizes).
  Value alloc(ArrayRef<int64_t> shape, ValueRange sizes, Type elt = Type()) {
    auto a = gpu::AllocOp::create(
        b, loc, MemRefType::get(shape, elt ? elt : b.getF32Type()), tokenType,
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

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_STREAMWORKSPACE_H
