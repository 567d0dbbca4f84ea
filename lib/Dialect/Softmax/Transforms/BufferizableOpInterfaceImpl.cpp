//===- BufferizableOpInterfaceImpl.cpp - one-shot bufferization ----------===//
//
// The semantic ops (attention included) are destination-style: on buffers
// they read their inputs and overwrite their inits in place, as the GPU
// mapping expects.
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
struct SemanticOpBufferization : public DstBufferizableOpInterfaceExternalModel<
                                     SemanticOpBufferization<OpTy>, OpTy> {
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
    FailureOr<Value> init =
        getBuffer(rewriter, typed.getInit(), options, state);
    if (failed(input) || failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    auto bufferized =
        OpTy::create(rewriter, op->getLoc(), /*result=*/Type(), *input, *init,
                     typed.getDimension(), typed.getMasked(),
                     typed.getAlgorithm(), typed.getAccTypeAttr());
    // A per-op softmax.strategy reaches the mapping on buffers.
    bufferized->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};

/// Attention reads query, key, value, the mask and the threshold, and
/// overwrites output, lse and skip_counts in place.
struct AttentionOpInterface
    : public DstBufferizableOpInterfaceExternalModel<AttentionOpInterface,
                                                     AttentionOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<AttentionOp>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto attn = cast<AttentionOp>(op);
    SmallVector<Value> buffers;
    for (Value operand : op->getOperands()) {
      // The scalar threshold stays as it is.
      if (!isa<TensorType>(operand.getType())) {
        buffers.push_back(operand);
        continue;
      }
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    // The same operands in the same order, as buffers: the same segment
    // sizes and attributes.
    rewriter.setInsertionPoint(op);
    AttentionOp::create(rewriter, op->getLoc(), /*result_tensors=*/TypeRange(),
                        buffers, attn.getProperties(),
                        llvm::to_vector(op->getDiscardableAttrs()));
    SmallVector<Value> replacements{
        buffers[attn.getOutputMutable().getOperandNumber()]};
    for (OpOperand &lse : attn.getLseMutable())
      replacements.push_back(buffers[lse.getOperandNumber()]);
    for (OpOperand &counts : attn.getSkipCountsMutable())
      replacements.push_back(buffers[counts.getOperandNumber()]);
    replaceOpWithBufferizedValues(rewriter, op, replacements);
    return success();
  }
};
/// Top-k and the fused linear cross-entropy (forward and gradient) read
/// their inputs and overwrite their inits in place (the GPU mapping's
/// form): the same operands as buffers, the same properties.
template <typename OpTy>
struct InPlaceDpsOpInterface : public DstBufferizableOpInterfaceExternalModel<
                                   InPlaceDpsOpInterface<OpTy>, OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<OpTy>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dps = cast<OpTy>(op);
    SmallVector<Value> buffers;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    rewriter.setInsertionPoint(op);
    OpTy::create(rewriter, op->getLoc(), /*result_tensors=*/TypeRange(),
                 buffers, dps.getProperties(),
                 llvm::to_vector(op->getDiscardableAttrs()));
    SmallVector<Value> inits;
    for (OpOperand &init : dps.getDpsInitsMutable())
      inits.push_back(buffers[init.getOperandNumber()]);
    replaceOpWithBufferizedValues(rewriter, op, inits);
    return success();
  }
};

} // namespace

void mlir::softmax::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SoftmaxDialect *) {
    SoftmaxOp::attachInterface<SemanticOpBufferization<SoftmaxOp>>(*ctx);
    LogSoftmaxOp::attachInterface<SemanticOpBufferization<LogSoftmaxOp>>(*ctx);
    LogSumExpOp::attachInterface<SemanticOpBufferization<LogSumExpOp>>(*ctx);
    AttentionOp::attachInterface<AttentionOpInterface>(*ctx);
    LinearCrossEntropyOp::attachInterface<
        InPlaceDpsOpInterface<LinearCrossEntropyOp>>(*ctx);
    LinearCrossEntropyGradOp::attachInterface<
        InPlaceDpsOpInterface<LinearCrossEntropyGradOp>>(*ctx);
    TopKOp::attachInterface<InPlaceDpsOpInterface<TopKOp>>(*ctx);
  });
}
