//===- SoftmaxDialect.cpp - softmax dialect registration ----------------===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxOpsDialect.cpp.inc"
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxEnums.cpp.inc"

void SoftmaxDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxOps.cpp.inc"
      >();
}
