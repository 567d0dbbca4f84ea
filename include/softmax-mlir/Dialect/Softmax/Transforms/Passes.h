//===- Passes.h - softmax dialect passes ------------------------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_PASSES_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

namespace mlir::softmax {

#define GEN_PASS_DECL
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"

/// softmax-decompose restricted to the semantic ops `filter` accepts; the
/// others are left as they are (for a later mapping, such as
/// softmax-map-to-cpu). C++ only: a filter has no textual form.
std::unique_ptr<Pass>
createSoftmaxDecompose(const SoftmaxDecomposeOptions &options,
                       std::function<bool(Operation *)> filter);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_PASSES_H
