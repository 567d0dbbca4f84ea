/*===- RegisterEverything.h - register what softmax-mlir needs ----*- C -*-===*\
|*                                                                            *|
|* The C counterpart of softmax-mlir/InitAll.h, in the manner of upstream's   *|
|* mlir-c/RegisterEverything.h.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SOFTMAX_MLIR_C_REGISTEREVERYTHING_H
#define SOFTMAX_MLIR_C_REGISTEREVERYTHING_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Adds the softmax dialect and every dialect, interface and extension the
/// softmax-to-cpu, softmax-to-nvvm and softmax-to-rocdl pipelines need
/// (mlir::softmax::registerEverything). A client adds only the dialects of
/// its own IR besides.
MLIR_CAPI_EXPORTED void
mlirSoftmaxRegisterEverything(MlirDialectRegistry registry);

/// Registers the softmax passes and the named pipelines under their names,
/// for mlirParsePassPipeline. Not needed to build or run the pipelines
/// (softmax-mlir-c/Pipelines.h).
MLIR_CAPI_EXPORTED void mlirSoftmaxRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif // SOFTMAX_MLIR_C_REGISTEREVERYTHING_H
