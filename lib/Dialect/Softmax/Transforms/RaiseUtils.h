//===- RaiseUtils.h - helpers shared by the raising patterns ----*- C++ -*-===//
//
// Private to lib/Dialect/Softmax/Transforms: the softmax matcher (Raise.cpp)
// and the attention matcher (RaiseAttention.cpp) look through the same kinds
// of linalg producers.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_RAISEUTILS_H
#define SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_RAISEUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/APFloat.h"
#include <optional>

namespace mlir::softmax::raise {

/// A linalg op whose every result element depends only on the operand
/// elements it reads at its own indices (plus broadcasts): no reduction, and
/// every init indexed by the identity.
bool isElementwise(linalg::LinalgOp op);

/// The float that `value` holds in every element: a `linalg.fill` of a
/// constant, or a splat constant tensor.
std::optional<llvm::APFloat> splatFloatValue(Value value);

} // namespace mlir::softmax::raise

#endif // SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_RAISEUTILS_H
