//===- TilingSlice.h - the slices the tilings cut ------------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_IR_TILINGSLICE_H
#define SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_IR_TILINGSLICE_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::softmax::detail {

/// The unit-stride tensor.extract_slice of `source` at `offsets`, `sizes`.
inline Value unitSlice(OpBuilder &b, Location loc, Value source,
                       ArrayRef<OpFoldResult> offsets,
                       ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_IR_TILINGSLICE_H
