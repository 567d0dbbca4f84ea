//===- InitAll.cpp - register everything softmax-mlir provides -----------===//

#include "softmax-mlir/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/BufferizableOpInterfaceImpl.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Pipelines/Pipelines.h"

void mlir::softmax::registerAllDialects(DialectRegistry &registry) {
  registry.insert<SoftmaxDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
}

void mlir::softmax::registerAllPasses() {
  registerSoftmaxPasses();
  registerSoftmaxConversionPasses();
}

void mlir::softmax::registerAllPipelines() {
  registerSoftmaxToCPUPipeline();
  registerSoftmaxGPUPipelines();
}
