//===- BufferizableOpInterfaceImpl.cpp - one-shot bufferization ----------===//
//
// The semantic ops are destination-style: on buffers they read the input
// and overwrite the init in place, as the GPU mapping expects.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/BufferizableOpInterfaceImpl.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::softmax;

namespace {
template <typename OpTy>
struct SemanticOpInterface
    : public DstBufferizableOpInterfaceExternalModel<SemanticOpInterface<OpTy>,
                                                     OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    // The init is overwritten entirely, never read.
    return &operand == &cast<OpTy>(op).getInputMutable();
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto typed = cast<OpTy>(op);
    FailureOr<Value> input =
        getBuffer(rewriter, typed.getInput(), options, state);
    FailureOr<Value> init = getBuffer(rewriter, typed.getInit(), options, state);
    if (failed(input) || failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    OpTy::create(rewriter, op->getLoc(), /*result=*/Type(), *input, *init,
                 typed.getDimension(), typed.getMasked(), typed.getAlgorithm(),
                 typed.getAccTypeAttr());
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};
} // namespace

void mlir::softmax::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SoftmaxDialect *) {
    SoftmaxOp::attachInterface<SemanticOpInterface<SoftmaxOp>>(*ctx);
    LogSoftmaxOp::attachInterface<SemanticOpInterface<LogSoftmaxOp>>(*ctx);
    LogSumExpOp::attachInterface<SemanticOpInterface<LogSumExpOp>>(*ctx);
  });
}
