//===- Softmax.h - softmax dialect ------------------------------*- C++ -*-===//
//
// The softmax dialect, its enums, attributes, interfaces and ops.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAX_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAX_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxTraits.h"

#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxOpsDialect.h.inc"
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxAttrs.h.inc"

#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxInterfaces.h.inc"

#define GET_OP_CLASSES
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxOps.h.inc"

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAX_H
