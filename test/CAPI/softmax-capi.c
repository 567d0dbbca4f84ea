/*===- softmax-capi.c - the C API of softmax-mlir, end to end -----*- C -*-===*\
|*                                                                            *|
|* Registers the dialects of its IR (func, tensor) plus everything our        *|
|* pipelines need, parses a module, runs softmax-to-cpu and softmax-to-nvvm   *|
|* on it and prints the results; then the failure paths: IR that does not     *|
|* parse, an option value out of range, options that do not parse, and a GPU  *|
|* pipeline that refuses to compile a softmax-shaped computation for the      *|
|* host. Every diagnostic reaches the handler below.                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: softmax-capi-test 2>&1 | FileCheck %s

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "softmax-mlir-c/Dialects.h"
#include "softmax-mlir-c/Passes.h"
#include "softmax-mlir-c/Pipelines.h"
#include "softmax-mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <string.h>

static const char *kSoftmax =
    "func.func @softmax(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {\n"
    "  %e = tensor.empty() : tensor<4x128xf32>\n"
    "  %y = softmax.softmax ins(%x : tensor<4x128xf32>)\n"
    "                       outs(%e : tensor<4x128xf32>)\n"
    "                       dimension(1) masked(zero) algorithm(online)\n"
    "  return %y : tensor<4x128xf32>\n"
    "}\n";

/* A row sum of exps: softmax-shaped, but nothing softmax-raise raises. */
static const char *kSumOfExp =
    "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
    "#row = affine_map<(d0, d1) -> (d0)>\n"
    "func.func @sum_of_exp(%x: tensor<4x8xf32>, %s: tensor<4xf32>)\n"
    "    -> tensor<4xf32> {\n"
    "  %t = tensor.empty() : tensor<4x8xf32>\n"
    "  %e = linalg.generic {indexing_maps = [#id, #id],\n"
    "                       iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%x : tensor<4x8xf32>) outs(%t : tensor<4x8xf32>) {\n"
    "  ^bb0(%a: f32, %b: f32):\n"
    "    %0 = math.exp %a : f32\n"
    "    linalg.yield %0 : f32\n"
    "  } -> tensor<4x8xf32>\n"
    "  %r = linalg.generic {indexing_maps = [#id, #row],\n"
    "                       iterator_types = [\"parallel\", \"reduction\"]}\n"
    "      ins(%e : tensor<4x8xf32>) outs(%s : tensor<4xf32>) {\n"
    "  ^bb0(%a: f32, %b: f32):\n"
    "    %0 = arith.addf %a, %b : f32\n"
    "    linalg.yield %0 : f32\n"
    "  } -> tensor<4xf32>\n"
    "  return %r : tensor<4xf32>\n"
    "}\n";

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult handleDiagnostic(MlirDiagnostic diagnostic,
                                          void *userData) {
  (void)userData;
  fprintf(stdout, "diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  fprintf(stdout, "\n");
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i) {
    fprintf(stdout, "  note: ");
    mlirDiagnosticPrint(mlirDiagnosticGetNote(diagnostic, i), printToStdout,
                        NULL);
    fprintf(stdout, "\n");
  }
  fflush(stdout);
  return mlirLogicalResultSuccess();
}

static void printResult(const char *what, MlirLogicalResult result) {
  fprintf(stdout, "%s: %s\n", what,
          mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  fflush(stdout);
}

static MlirModule parse(MlirContext context, const char *text) {
  return mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
}

static void printModule(MlirModule module) {
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  fprintf(stdout, "\n");
  fflush(stdout);
}

int main(void) {
  /* The dialects of our IR, and what the pipelines need. */
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__tensor__(), registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__softmax__(), registry);
  mlirSoftmaxRegisterEverything(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, handleDiagnostic, NULL, NULL);

  MlirStringRef ns =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__softmax__());
  fprintf(stdout, "dialect: %.*s\n", (int)ns.length, ns.data);
  // CHECK: dialect: softmax

  /* softmax-to-cpu with its defaults. */
  MlirModule module = parse(context, kSoftmax);
  printResult("cpu", mlirSoftmaxRunCPUPipeline(
                         module, mlirStringRefCreateFromCString("")));
  printModule(module);
  mlirModuleDestroy(module);
  // CHECK-LABEL: cpu: success
  // CHECK-NOT: softmax.
  // CHECK-NOT: func.func
  // CHECK: llvm.func @softmax(
  // CHECK-NOT: softmax.
  // CHECK-NOT: cf.br

  /* softmax-to-nvvm: PTX for sm_90 (no GPU needed). */
  module = parse(context, kSoftmax);
  printResult("nvvm", mlirSoftmaxRunNVVMPipeline(
                          module, mlirStringRefCreateFromCString(
                                      "chip=sm_90 format=isa")));
  printModule(module);
  mlirModuleDestroy(module);
  // CHECK-LABEL: nvvm: success
  // CHECK: llvm.func @softmax(
  // CHECK: gpu.launch_func @softmax_kernel::@softmax_kernel
  // CHECK: gpu.binary @softmax_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">
  // CHECK-SAME: .target sm_90
  // CHECK-SAME: .entry softmax_kernel

  /* The same through a pass manager the caller owns, and one of our
     passes by its constructor. */
  module = parse(context, kSoftmax);
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  mlirOpPassManagerAddOwnedPass(opm, mlirCreateSoftmaxSoftmaxSelectAlgorithm());
  printResult("build cpu",
              mlirSoftmaxBuildCPUPipeline(
                  opm, mlirStringRefCreateFromCString("vector-width=8"),
                  printToStdout, NULL));
  printResult("run",
              mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  // CHECK: build cpu: success
  // CHECK: run: success

  /* Errors. IR that does not parse: a null module and a diagnostic. */
  module = parse(context, "func.func @f(");
  fprintf(stdout, "bad ir: %s\n",
          mlirModuleIsNull(module) ? "null module" : "parsed");
  // CHECK: diagnostic: expected non-function type
  // CHECK: bad ir: null module

  /* An option value out of range, and options that do not parse. */
  module = parse(context, kSoftmax);
  printResult("bad value", mlirSoftmaxRunCPUPipeline(
                               module, mlirStringRefCreateFromCString(
                                           "three-pass=fastest")));
  printResult("bad chip", mlirSoftmaxRunNVVMPipeline(
                              module, mlirStringRefCreateFromCString(
                                          "chip=gfx942")));
  printResult("bad option", mlirSoftmaxRunROCDLPipeline(
                                module, mlirStringRefCreateFromCString(
                                            "chips=gfx942")));
  // CHECK: diagnostic: softmax-to-cpu: three-pass must be auto, recompute, reload or tiled, not 'fastest'
  // CHECK: bad value: failure
  // CHECK: diagnostic: softmax-to-nvvm: chip 'gfx942' is not an NVIDIA chip (use softmax-to-rocdl for it)
  // CHECK: bad chip: failure
  // CHECK: diagnostic: softmax-to-rocdl: invalid options 'chips=gfx942': {{.*}}no such option chips
  // CHECK: bad option: failure

  /* The module is untouched by the failed runs. */
  printModule(module);
  mlirModuleDestroy(module);
  // CHECK: softmax.softmax

  /* A bad option given to a builder goes to the callback instead. */
  pm = mlirPassManagerCreate(context);
  fprintf(stdout, "callback: ");
  printResult("\nbuild nvvm",
              mlirSoftmaxBuildNVVMPipeline(
                  mlirPassManagerGetAsOpPassManager(pm),
                  mlirStringRefCreateFromCString("format=ptx"), printToStdout,
                  NULL));
  mlirPassManagerDestroy(pm);
  // CHECK: callback: softmax-to-nvvm: format must be isa or bin (or fatbin, llvm, offloading), not 'ptx'
  // CHECK-NEXT: build nvvm: failure

  /* No silent host code: softmax-to-nvvm stops at the unraised sum of
     exps, unless allowed. */
  module = parse(context, kSumOfExp);
  printResult("host fallback", mlirSoftmaxRunNVVMPipeline(
                                   module, mlirStringRefCreateFromCString("")));
  mlirModuleDestroy(module);
  module = parse(context, kSumOfExp);
  printResult("allowed", mlirSoftmaxRunNVVMPipeline(
                             module, mlirStringRefCreateFromCString(
                                         "allow-host-code=true")));
  mlirModuleDestroy(module);
  // CHECK: diagnostic: softmax-to-nvvm would compile this softmax-shaped computation (math.exp whose result is reduced) for the host, not into a GPU kernel (softmax-raise did not raise it); pass allow-host-code=true to the pipeline to allow host code
  // CHECK: note: the reduction
  // CHECK: host fallback: failure
  // CHECK: allowed: success

  /* The passes and pipelines by name, once registered. */
  mlirSoftmaxRegisterAllPasses();
  module = parse(context, kSoftmax);
  pm = mlirPassManagerCreate(context);
  printResult("parse pipeline",
              mlirParsePassPipeline(
                  mlirPassManagerGetAsOpPassManager(pm),
                  mlirStringRefCreateFromCString(
                      "builtin.module(softmax-decompose)"),
                  printToStdout, NULL));
  printResult("run",
              mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  printModule(module);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  // CHECK: parse pipeline: success
  // CHECK: run: success
  // CHECK-NOT: softmax.softmax
  // CHECK: linalg.generic

  /* The transform-dialect extension comes with the registration: a
     script with transform.softmax ops parses and verifies. */
  module = parse(
      context,
      "module attributes {transform.with_named_sequence} {\n"
      "  transform.named_sequence @lower(%ops: !transform.any_op "
      "{transform.consumed}) {\n"
      "    %loops = transform.softmax.map_to_cpu %ops {vector_width = 8} "
      ": (!transform.any_op) -> !transform.any_op\n"
      "    transform.yield\n"
      "  }\n"
      "}\n");
  fprintf(stdout, "transform script: %s, %s\n",
          mlirModuleIsNull(module) ? "null module" : "parsed",
          mlirContextIsRegisteredOperation(
              context,
              mlirStringRefCreateFromCString("transform.softmax.map_to_gpu"))
              ? "map_to_gpu registered"
              : "map_to_gpu unknown");
  printModule(module);
  mlirModuleDestroy(module);
  // CHECK: transform script: parsed, map_to_gpu registered
  // CHECK: transform.softmax.map_to_cpu %{{.*}} {vector_width = 8 : i64}

  mlirContextDestroy(context);
  fprintf(stdout, "done\n");
  // CHECK: done
  return 0;
}
