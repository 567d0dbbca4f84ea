//===- LegalizeLLVM.cpp - the softmax-cpu-legalize-llvm pass -------------===//
//
// Rewrites of LLVM dialect ops that LLVM 22's x86 instruction selection
// fails on, into ops with the same effect (Passes.td says which and why).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXCPULEGALIZELLVM
#include "softmax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// A bf16 masked store stores its bits as i16. With AVX512-BF16, LLVM 22
/// splits `llvm.masked.store.v64bf16` with a 33-lane mask into a vector part
/// and a scalar bf16 store it cannot select (`llc -mcpu=cooperlake` on the
/// three-line function aborts); the i16 store of the same bits compiles on
/// every x86 level we build for.
struct BF16MaskedStoreAsBits : OpRewritePattern<LLVM::MaskedStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::MaskedStoreOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getValue().getType());
    if (!type || !type.getElementType().isBF16())
      return failure();
    Value bits = LLVM::BitcastOp::create(rewriter, op.getLoc(),
                                         type.clone(rewriter.getI16Type()),
                                         op.getValue());
    rewriter.modifyOpInPlace(op, [&] { op.getValueMutable().assign(bits); });
    return success();
  }
};

struct SoftmaxCPULegalizeLLVMPass
    : public softmax::impl::SoftmaxCPULegalizeLLVMBase<
          SoftmaxCPULegalizeLLVMPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateCPULegalizeLLVMPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::softmax::populateCPULegalizeLLVMPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BF16MaskedStoreAsBits>(patterns.getContext());
}
