//===- ROCDLTargetHooks.cpp - the AMD CDNA end of the GPU mapping ---------===//

#include "../LLVMFence.h"
#include "ROCDLAttentionMma.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
class ROCDLTargetHooks final : public GPUTargetHooks {
public:
  GPUVendor vendor() const override { return GPUVendor::AMD; }
  void buildDeviceFence(OpBuilder &b, Location loc,
                        FenceOrdering ordering) const override {
    // AMDGPU's name of the whole-device scope.
    softmax::detail::buildLLVMDeviceFence(b, loc, ordering, "agent");
  }
  // CDNA's MFMA end has no f32 path and copies tiles synchronously; its
  // 16x16 accumulators hold 16 query rows per wavefront.
  bool hasF32Attention() const override { return false; }
  bool supportsAsyncCopy() const override { return false; }
  int64_t maxRowsPerWarp() const override { return 16; }
  std::unique_ptr<softmax::detail::AttentionMma>
  makeAttentionMma(OpBuilder &b, Location loc, AttentionOp op,
                   const AttentionMmaConfig &c) const override {
    return softmax::detail::makeROCDLAttentionMma(b, loc, op, c.warps);
  }
  std::unique_ptr<softmax::detail::TileMma>
  makeTileMma(OpBuilder &b, Location loc,
              const softmax::detail::TileMmaConfig &c) const override {
    // CDNA has no warpgroup product.
    if ((!c.elt.isF16() && !c.elt.isBF16()) || c.warpgroups)
      return nullptr;
    return softmax::detail::makeROCDLTileMma(b, loc, c);
  }
};
} // namespace

const GPUTargetHooks &mlir::softmax::getROCDLTargetHooks() {
  static const ROCDLTargetHooks hooks;
  return hooks;
}
