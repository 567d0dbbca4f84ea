// placeholder replaced below
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"
namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXRAISE
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"
}
using namespace mlir;
using namespace mlir::softmax;
void mlir::softmax::populateSoftmaxRaisePatterns(RewritePatternSet &) {}
namespace {
struct SoftmaxRaisePass : public softmax::impl::SoftmaxRaiseBase<SoftmaxRaisePass> {
  void runOnOperation() override {}
};
}
