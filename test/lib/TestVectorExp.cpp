//===- TestVectorExp.cpp - math.exp -> the CPU mapping's exp -------------===//
//
// Test-only pass: rewrites math.exp on f32 vectors into the exp that
// softmax-map-to-cpu emits, so that an execution test can measure its error
// against libm's f64 exp over a sweep of arguments.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/VectorMath.h"

using namespace mlir;

namespace {
struct VectorExpPattern : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getRank() != 1 || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a 1-D f32 vector");
    softmax::VectorMath vm(rewriter, op.getLoc(), type.getNumElements());
    rewriter.replaceOp(op, vm.fastExp(op.getOperand()));
    return success();
  }
};

struct TestVectorExpPass
    : public PassWrapper<TestVectorExpPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestVectorExpPass)
  StringRef getArgument() const final { return "test-softmax-vector-exp"; }
  StringRef getDescription() const final {
    return "Rewrite math.exp on 1-D f32 vectors into softmax-map-to-cpu's exp";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, math::MathDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<VectorExpPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

namespace mlir::softmax::test {
void registerTestSemanticOpInterfacePass();

void registerTestPasses() {
  PassRegistration<TestVectorExpPass>();
  registerTestSemanticOpInterfacePass();
}
} // namespace mlir::softmax::test
