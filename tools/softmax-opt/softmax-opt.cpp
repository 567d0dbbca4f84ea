//===- softmax-opt.cpp - the softmax-mlir optimizer driver ---------------===//
//
// mlir-opt with every upstream dialect and pass plus softmax-mlir's own.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "softmax-mlir/InitAll.h"

namespace mlir::softmax::test {
void registerTestPasses();
} // namespace mlir::softmax::test

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::softmax::test::registerTestPasses();
  mlir::softmax::registerAllPasses();
  mlir::softmax::registerAllPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::softmax::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "softmax-mlir optimizer driver\n", registry));
}
