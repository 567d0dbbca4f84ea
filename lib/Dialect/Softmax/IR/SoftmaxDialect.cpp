//===- SoftmaxDialect.cpp - softmax dialect registration ----------------===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::softmax;

#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxOpsDialect.cpp.inc"
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxAttrs.cpp.inc"

void SoftmaxDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxOps.cpp.inc"
      >();
}
