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
struct SemanticOpBufferization
    : public DstBufferizableOpInterfaceExternalModel<
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
    FailureOr<Value> init = getBuffer(rewriter, typed.getInit(), options, state);
    if (failed(input) || failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    auto bufferized = OpTy::create(
        rewriter, op->getLoc(), /*result=*/Type(), *input, *init,
        typed.getDimension(), typed.getMasked(), typed.getAlgorithm(),
        typed.getAccTypeAttr());
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
/// Top-k reads its input and overwrites probs, indices and log_probs in
/// place (the GPU mapping's form).
struct TopKOpInterface
    : public DstBufferizableOpInterfaceExternalModel<TopKOpInterface, TopKOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<TopKOp>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto topk = cast<TopKOp>(op);
    SmallVector<Value> buffers;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    rewriter.setInsertionPoint(op);
    TopKOp::create(rewriter, op->getLoc(), /*result_tensors=*/TypeRange(),
                   buffers, topk.getProperties(),
                   llvm::to_vector(op->getDiscardableAttrs()));
    replaceOpWithBufferizedValues(rewriter, op,
                                  ArrayRef<Value>(buffers).drop_front());
    return success();
  }
};

/// softmax.linear_cross_entropy and its gradient have
/// decompositions on tensors and no mapping on buffers yet: bufferizing
/// one says so, where
/// one-shot bufferization would only say that the op was not bufferized
/// (the GPU pipelines bufferize before they map).
template <typename OpTy>
struct UnmappedOpRefusal
    : public DstBufferizableOpInterfaceExternalModel<UnmappedOpRefusal<OpTy>,
                                                     OpTy> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  LogicalResult bufferize(Operation *op, RewriterBase &,
                          const BufferizationOptions &,
                          BufferizationState &) const {
    return op->emitOpError(
        "has no mapping on buffers yet (no GPU kernel): decompose it on "
        "tensors first (softmax-decompose, as softmax-to-cpu does)");
  }
};

} // namespace

void mlir::softmax::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SoftmaxDialect *) {
    SoftmaxOp::attachInterface<SemanticOpBufferization<SoftmaxOp>>(*ctx);
    LogSoftmaxOp::attachInterface<SemanticOpBufferization<LogSoftmaxOp>>(
        *ctx);
    LogSumExpOp::attachInterface<SemanticOpBufferization<LogSumExpOp>>(*ctx);
    AttentionOp::attachInterface<AttentionOpInterface>(*ctx);
    LinearCrossEntropyOp::attachInterface<
        UnmappedOpRefusal<LinearCrossEntropyOp>>(*ctx);
    LinearCrossEntropyGradOp::attachInterface<
        UnmappedOpRefusal<LinearCrossEntropyGradOp>>(*ctx);
    TopKOp::attachInterface<TopKOpInterface>(*ctx);
  });
}
