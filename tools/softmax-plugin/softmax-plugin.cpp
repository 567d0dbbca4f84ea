//===- softmax-plugin.cpp - softmax-mlir as an mlir-opt plugin -----------===//
//
// One shared object that is both a dialect plugin and a pass plugin, so a
// stock mlir-opt (Debian's /usr/lib/llvm-22/bin/mlir-opt, linked against
// libMLIR.so like this plugin) can use the softmax dialect, its passes and
// its pipelines:
//
//   mlir-opt --load-dialect-plugin=SoftmaxPlugin.so \
//            --load-pass-plugin=SoftmaxPlugin.so --softmax-raise in.mlir
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "softmax-mlir/InitAll.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

/// Dialect plugin entry point: adds the softmax dialect (and the external
/// models its lowerings rely on) to the tool's registry.
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SoftmaxDialect", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::softmax::registerAllDialects(*registry);
          }};
}

/// Pass plugin entry point: registers the softmax passes and pipelines.
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SoftmaxPasses", LLVM_VERSION_STRING, []() {
            mlir::softmax::registerAllPasses();
            mlir::softmax::registerAllPipelines();
          }};
}
