//===- Dialects.cpp - C API of the softmax dialect -----------------------===//

#include "softmax-mlir-c/Dialects.h"

#include "mlir/CAPI/Registration.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Softmax, softmax,
                                      mlir::softmax::SoftmaxDialect)
