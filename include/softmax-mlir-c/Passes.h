/*===- Passes.h - C API of the softmax passes ---------------------*- C -*-===*\
|*                                                                            *|
|* Generated from the passes' ODS, like upstream's mlir-c/Dialect/GPU.h:      *|
|*   mlirRegisterSoftmaxPasses(), mlirCreateSoftmaxSoftmaxRaise(), ...        *|
|*   mlirRegisterSoftmaxConversionPasses(),                                   *|
|*   mlirCreateSoftmaxConversionSoftmaxMapToGPU(), ...                        *|
|*   mlirRegisterSoftmaxPipelinesPasses(),                                    *|
|*   mlirCreateSoftmaxPipelinesSoftmaxCheckNoHostFallback()                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SOFTMAX_MLIR_C_PASSES_H
#define SOFTMAX_MLIR_C_PASSES_H

#include "mlir-c/Pass.h"

#include "softmax-mlir-c/SoftmaxConversionPasses.capi.h.inc"
#include "softmax-mlir-c/SoftmaxPasses.capi.h.inc"
#include "softmax-mlir-c/SoftmaxPipelinesPasses.capi.h.inc"

#endif // SOFTMAX_MLIR_C_PASSES_H
