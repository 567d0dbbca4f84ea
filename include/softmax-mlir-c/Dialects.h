/*===- Dialects.h - C API of the softmax dialect ------------------*- C -*-===*\
|*                                                                            *|
|* The dialect handle, as upstream's mlir-c/Dialect/<D>.h declare theirs:     *|
|*                                                                            *|
|*   mlirDialectHandleInsertDialect(mlirGetDialectHandle__softmax__(), reg);  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SOFTMAX_MLIR_C_DIALECTS_H
#define SOFTMAX_MLIR_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Softmax, softmax);

#ifdef __cplusplus
}
#endif

#endif // SOFTMAX_MLIR_C_DIALECTS_H
