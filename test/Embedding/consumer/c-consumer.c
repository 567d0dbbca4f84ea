/*===- c-consumer.c - the installed C API, from another project --*- C -*-===*\
|*                                                                            *|
|* Parses FILE, runs softmax-to-cpu through the C API (the one registration   *|
|* call, no pass registered) and prints the module.                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "softmax-mlir-c/Dialects.h"
#include "softmax-mlir-c/Passes.h"
#include "softmax-mlir-c/Pipelines.h"
#include "softmax-mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <stdlib.h>

static void print(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: softmax-c-consumer FILE\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "rb");
  if (!in)
    return 1;
  static char text[1 << 16];
  size_t size = fread(text, 1, sizeof(text) - 1, in);
  fclose(in);
  text[size] = 0;

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirSoftmaxRegisterEverything(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);

  MlirDialectHandle softmax = mlirGetDialectHandle__softmax__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(softmax);
  printf("dialect %.*s\n", (int)ns.length, ns.data);

  /* One of our passes by its constructor, in a pass manager we own. */
  MlirPassManager pm = mlirPassManagerCreate(context);
  mlirPassManagerAddOwnedPass(pm, mlirCreateSoftmaxSoftmaxRaise());
  mlirPassManagerDestroy(pm);

  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreate(text, size));
  if (mlirModuleIsNull(module))
    return 1;
  MlirLogicalResult result =
      mlirSoftmaxRunCPUPipeline(module, mlirStringRefCreateFromCString(""));
  printf("c api softmax-to-cpu: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  mlirOperationPrint(mlirModuleGetOperation(module), print, stdout);
  printf("\n");
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return mlirLogicalResultIsSuccess(result) ? 0 : 1;
}
