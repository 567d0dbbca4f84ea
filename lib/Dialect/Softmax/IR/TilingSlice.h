//===- TilingSlice.h - the slices the tilings cut ------------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_IR_TILINGSLICE_H
#define SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_IR_TILINGSLICE_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::softmax::detail {

/// The unit-stride tensor.extract_slice of `source` at `offsets`, `sizes`
/// (a tensor.empty of `sizes` when `source` is empty).
inline Value unitSlice(OpBuilder &b, Location loc, Value source,
                       ArrayRef<OpFoldResult> offsets,
                       ArrayRef<OpFoldResult> sizes) {
  // A source with a static 0 among its sizes: the slice is empty, and an
  // extract_slice at offset 0 of that dimension is one upstream's verifier
  // rejects ("offset 0 is out-of-bounds: 0 >= 0"; attention with Nk = 0
  // tiled over its rows).
  auto type = dyn_cast<RankedTensorType>(source.getType());
  if (type && llvm::is_contained(type.getShape(), 0))
    return tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_IR_TILINGSLICE_H
