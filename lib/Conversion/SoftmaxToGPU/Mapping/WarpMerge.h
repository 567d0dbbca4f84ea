//===- WarpMerge.h - merging softmax states across a warp -------*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU: the xor-shuffle butterfly that
// the row kernels (KernelBuilder) and the top-k kernel (TopKToGPU) use to
// merge the (m, l) states of a warp's lanes through the state algebra's
// merge.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_WARPMERGE_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_WARPMERGE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

namespace mlir::softmax::detail {

/// Merges the states of `width` consecutive lanes (a power of two no larger
/// than the warp of `warpSize` lanes): every lane gets their merge.
inline std::pair<Value, Value> warpMergeStates(OpBuilder &b, Location loc,
                                               StateMath &sm, StateKind kind,
                                               Value m, Value l, int64_t width,
                                               int64_t warpSize) {
  auto shuffleWidth = static_cast<int32_t>(warpSize);
  for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
    Value m2 = gpu::ShuffleOp::create(b, loc, m, offset, shuffleWidth,
                                      gpu::ShuffleMode::XOR)
                   .getShuffleResult();
    Value l2 = gpu::ShuffleOp::create(b, loc, l, offset, shuffleWidth,
                                      gpu::ShuffleMode::XOR)
                   .getShuffleResult();
    std::tie(m, l) = sm.merge(kind, m, l, m2, l2);
  }
  return {m, l};
}

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_WARPMERGE_H
