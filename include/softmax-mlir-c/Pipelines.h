/*===- Pipelines.h - C API of the softmax pipelines ---------------*- C -*-===*\
|*                                                                            *|
|* Build softmax-to-cpu, softmax-to-nvvm or softmax-to-rocdl into a pass      *|
|* manager, or run one on a module. Options are the pipelines' textual        *|
|* options ("vector-width=8 threads=2", "chip=sm_90 format=isa"); an empty    *|
|* string takes the defaults. No pass has to be registered.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SOFTMAX_MLIR_C_PIPELINES_H
#define SOFTMAX_MLIR_C_PIPELINES_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Adds the pipeline's passes to `passManager` (an op pass manager on
/// builtin.module, e.g. mlirPassManagerGetAsOpPassManager). On options that
/// do not parse or a value out of range, adds nothing, calls
/// `errorCallback` with the message (like mlirParsePassPipeline) and fails.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirSoftmaxBuildCPUPipeline(
    MlirOpPassManager passManager, MlirStringRef options,
    MlirStringCallback errorCallback, void *userData);
MLIR_CAPI_EXPORTED MlirLogicalResult mlirSoftmaxBuildNVVMPipeline(
    MlirOpPassManager passManager, MlirStringRef options,
    MlirStringCallback errorCallback, void *userData);
MLIR_CAPI_EXPORTED MlirLogicalResult mlirSoftmaxBuildROCDLPipeline(
    MlirOpPassManager passManager, MlirStringRef options,
    MlirStringCallback errorCallback, void *userData);

/// Runs the pipeline on `module` in place. Every problem (bad options, a
/// pass failing) is reported as a diagnostic on the module's context
/// (mlirContextAttachDiagnosticHandler) and makes the result a failure.
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirSoftmaxRunCPUPipeline(MlirModule module, MlirStringRef options);
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirSoftmaxRunNVVMPipeline(MlirModule module, MlirStringRef options);
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirSoftmaxRunROCDLPipeline(MlirModule module, MlirStringRef options);

#ifdef __cplusplus
}
#endif

#endif // SOFTMAX_MLIR_C_PIPELINES_H
