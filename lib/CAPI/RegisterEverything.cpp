//===- RegisterEverything.cpp - C API of softmax-mlir/InitAll.h ----------===//

#include "softmax-mlir-c/RegisterEverything.h"

#include "mlir/CAPI/IR.h"
#include "softmax-mlir/InitAll.h"

void mlirSoftmaxRegisterEverything(MlirDialectRegistry registry) {
  mlir::softmax::registerEverything(*unwrap(registry));
}

void mlirSoftmaxRegisterAllPasses(void) {
  mlir::softmax::registerAllPasses();
  mlir::softmax::registerAllPipelines();
}
