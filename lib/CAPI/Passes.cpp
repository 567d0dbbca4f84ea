//===- Passes.cpp - C API of the softmax passes --------------------------===//

#include "softmax-mlir-c/Passes.h"

#include "mlir/CAPI/Pass.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Pipelines/Passes.h"

using namespace mlir;
using namespace mlir::softmax;

#ifdef __cplusplus
extern "C" {
#endif

#include "softmax-mlir-c/SoftmaxConversionPasses.capi.cpp.inc"
#include "softmax-mlir-c/SoftmaxPasses.capi.cpp.inc"
#include "softmax-mlir-c/SoftmaxPipelinesPasses.capi.cpp.inc"

#ifdef __cplusplus
}
#endif
