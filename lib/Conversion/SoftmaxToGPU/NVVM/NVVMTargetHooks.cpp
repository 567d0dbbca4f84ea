//===- NVVMTargetHooks.cpp - the NVIDIA end of the GPU mapping ------------===//

#include "../LLVMFence.h"
#include "NVVMAttentionMma.h"
#include "TensorMapTiles.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
class NVVMTargetHooks final : public GPUTargetHooks {
public:
  GPUVendor vendor() const override { return GPUVendor::NVIDIA; }
  void buildDeviceFence(OpBuilder &b, Location loc,
                        FenceOrdering ordering) const override {
    // NVPTX's name of the whole-GPU scope (fence.acq_rel.gpu).
    softmax::detail::buildLLVMDeviceFence(b, loc, ordering, "device");
  }
  LogicalResult checkKernelName(Operation *op, StringRef name) const override {
    // NVPTX's printer dies (a fatal error, found by softmax-fuzz) on a
    // symbol it cannot spell.
    auto ok = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; };
    if (!name.empty() && !llvm::isDigit(name.front()) && llvm::all_of(name, ok))
      return success();
    return op->emitOpError()
           << "is in function '" << name
           << "', whose outlined kernel PTX cannot name (letters, digits, "
              "'_' and '$' only, not starting with a digit)";
  }
  // barrier.cluster.arrive / wait: release and acquire by default (PTX
  // ISA 8.0), every thread of the warp at the same instruction (aligned).
  void buildClusterArrive(OpBuilder &b, Location loc) const override {
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  }
  void buildClusterWait(OpBuilder &b, Location loc) const override {
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  }
  Value loadClusterShared(OpBuilder &b, Location loc, Value buffer, Value index,
                          Value rank) const override {
    // mapa turns this block's shared address into block `rank`'s in the
    // cluster's window (ld.shared::cluster).
    IndexArith ix(b, loc);
    Value own = softmax::detail::sharedAddress(b, loc, buffer,
                                               ix.mul(index, ix.idx(4)));
    Value peer = NVVM::MapaOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*sharedCluster=*/7),
        own, rank);
    return LLVM::LoadOp::create(b, loc, b.getF32Type(), peer);
  }
  // A streamed row's reread and stores as .cs: 0.73-0.78 -> 0.82-0.96 of
  // copy for bf16 rows of 128256 (H100, bench/gpu/probe/l2_hint_softmax.cu).
  bool streamsLastPass() const override { return true; }
  bool hasF32Attention() const override { return true; }
  bool supportsAsyncCopy() const override { return true; }
  int64_t maxRowsPerWarp() const override { return 32; }
  std::unique_ptr<softmax::detail::AttentionMma>
  makeAttentionMma(OpBuilder &b, Location loc, AttentionOp op,
                   const AttentionMmaConfig &c) const override {
    auto elt = cast<ShapedType>(op.getQuery().getType()).getElementType();
    // f32 reads its queries from shared memory at either row count (its A
    // fragments come by ldmatrix of 8x4 f32 blocks).
    if (elt.isF32())
      return softmax::detail::makeNVVMF32AttentionMma(
          b, loc, op, c.warps, c.buffers, c.rowsPerWarp, c.f32Precision);
    return softmax::detail::makeNVVMAttentionMma(
        b, loc, op, c.warps, c.buffers, c.rowsPerWarp,
        /*queriesInSmem=*/c.rowsPerWarp == 32 || c.warpgroupScores,
        c.tilesThroughL1, c.tensorMapTiles, c.warpgroupScores);
  }
  std::unique_ptr<softmax::detail::TileMma>
  makeTileMma(OpBuilder &b, Location loc,
              const softmax::detail::TileMmaConfig &c) const override {
    if (!c.elt.isF16() && !c.elt.isBF16())
      return nullptr;
    if (c.warpgroups)
      return softmax::detail::makeNVVMWarpgroupTileMma(b, loc, c);
    return softmax::detail::makeNVVMTileMma(b, loc, c);
  }
};
} // namespace

const GPUTargetHooks &mlir::softmax::getNVVMTargetHooks() {
  static const NVVMTargetHooks hooks;
  return hooks;
}
