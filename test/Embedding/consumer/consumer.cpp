//===- consumer.cpp - embed softmax-mlir through find_package ------------===//
//
// Parses a module with a softmax.softmax op, runs softmax-decompose on it
// and prints the result.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "softmax-mlir/InitAll.h"

#include "llvm/Support/raw_ostream.h"

static const char *const kModule = R"mlir(
func.func @softmax(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %e = tensor.empty() : tensor<4x128xf32>
  %y = softmax.softmax ins(%x : tensor<4x128xf32>) outs(%e : tensor<4x128xf32>)
                       dimension(1) masked(zero) algorithm(three_pass)
  return %y : tensor<4x128xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::tensor::TensorDialect>();
  mlir::softmax::registerAllDialects(registry);
  mlir::softmax::registerAllPasses();

  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module) {
    llvm::errs() << "consumer: failed to parse the input module\n";
    return 1;
  }
  llvm::outs() << "// parsed\n";
  module->print(llvm::outs());

  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline("softmax-decompose", pm))) {
    llvm::errs() << "consumer: softmax-decompose is not registered\n";
    return 1;
  }
  if (mlir::failed(pm.run(*module))) {
    llvm::errs() << "consumer: softmax-decompose failed\n";
    return 1;
  }
  llvm::outs() << "// decomposed\n";
  module->print(llvm::outs());
  return 0;
}
