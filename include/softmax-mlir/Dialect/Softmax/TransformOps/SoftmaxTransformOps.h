//===- SoftmaxTransformOps.h - softmax transform ops ------------*- C++ -*-===//
//
// The transform-dialect extension of softmax-mlir
// (transform.softmax.select_algorithm, map_to_cpu, map_to_gpu and the
// transform.apply_patterns.softmax.* pattern descriptors). InitAll.h's
// registerAllDialects registers it.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMOPS_SOFTMAXTRANSFORMOPS_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMOPS_SOFTMAXTRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpImplementation.h"

namespace mlir {
class DialectRegistry;

namespace softmax {
/// Adds the softmax ops to the transform dialect when it is loaded.
void registerTransformDialectExtension(DialectRegistry &registry);
} // namespace softmax
} // namespace mlir

#define GET_OP_CLASSES
#include "softmax-mlir/Dialect/Softmax/TransformOps/SoftmaxTransformOps.h.inc"

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMOPS_SOFTMAXTRANSFORMOPS_H
