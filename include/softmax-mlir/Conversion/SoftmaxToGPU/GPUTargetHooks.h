//===- GPUTargetHooks.h - what the GPU mapping asks of a vendor -*- C++ -*-===//
//
// The GPU mapping (SoftmaxToGPU.h) builds its kernels from gpu, vector,
// memref, arith, math and scf. Two things have no target-neutral op
// upstream: a fence ordering global memory between the blocks of the
// device (gpu.barrier orders one block only), and the attention kernel's
// matrix unit (mma.sync's fragment layout, which the kernel's tiles are
// built around, is not gpu.subgroup_mma's). A vendor end implements this
// interface in its own library: NVIDIA in SoftmaxGPUNVVM
// (lib/Conversion/SoftmaxToGPU/NVVM), AMD CDNA in SoftmaxGPUROCDL
// (.../ROCDL). getGPUTargetHooks (SoftmaxToGPU) picks one by the target's
// GPUVendor; a host compiler that links only one end passes it to
// populateSoftmaxToGPUPatterns itself.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_GPUTARGETHOOKS_H
#define SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_GPUTARGETHOOKS_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/AttentionMma.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/TileMma.h"

#include <memory>

namespace mlir::softmax {

/// The ordering of a device fence.
enum class FenceOrdering {
  /// Global stores before the fence are visible to a block that acquires
  /// after observing a later store (the split row's published state).
  Release,
  /// Global loads after the fence see what the releasing blocks stored.
  Acquire,
};

/// How the attention kernel uses the matrix unit (chosen by the mapping
/// from AttentionGPUStrategy and the measured defaults).
struct AttentionMmaConfig {
  int64_t warps = 4;
  /// Shared-memory buffers per K/V tile (2 only where `supportsAsyncCopy`).
  int64_t buffers = 1;
  /// Query rows per warp: 16, or 32 where `maxRowsPerWarp` allows.
  int64_t rowsPerWarp = 16;
  AttentionF32Precision f32Precision = AttentionF32Precision::Exact;
  /// Whether the K/V tile copies go through L1 (NVIDIA: cp.async.ca)
  /// rather than around it (.cg).
  bool tilesThroughL1 = false;
  /// Whether the K/V tiles come by bulk tensor copies (NVIDIA sm_90+, two
  /// buffers): see AttentionMma::tracksTilesOnBarriers.
  bool tensorMapTiles = false;
  /// Whether S = Q K^T runs on warpgroup products (NVIDIA sm_90a: wgmma
  /// m64n64k16, the queries and the K tile read from swizzled shared
  /// memory): needs tensorMapTiles, 16 rows per warp and whole warpgroups.
  bool warpgroupScores = false;
};

/// A vendor's end of the GPU mapping.
class GPUTargetHooks {
public:
  virtual ~GPUTargetHooks();

  virtual GPUVendor vendor() const = 0;
  /// A fence of `ordering` between this thread's global memory accesses and
  /// those of the other blocks of the device, at device (not system) scope.
  virtual void buildDeviceFence(OpBuilder &b, Location loc,
                                FenceOrdering ordering) const = 0;
  /// Whether the end runs f32 attention (on tf32 parts).
  virtual bool hasF32Attention() const = 0;
  /// Whether tiles can be copied asynchronously (2 buffers per tile).
  virtual bool supportsAsyncCopy() const = 0;
  /// The most query rows one warp's accumulators hold (16 or 32).
  virtual int64_t maxRowsPerWarp() const = 0;
  /// gpu-kernel-outlining names a kernel after the function `op` is in:
  /// emits an error at `op` and fails where this end's assembly cannot
  /// spell `name` (default: any name).
  virtual LogicalResult checkKernelName(Operation *op, StringRef name) const;
  /// Thread-block clusters, on ends whose targets have them
  /// (GPUTarget::maxClusterBlocks > 0; the mapping refuses cluster
  /// strategies elsewhere, and the defaults are unreachable). Every thread
  /// of every block of the cluster arrives (ordering its shared memory
  /// writes before the wait of the others) and then waits; the waits end
  /// once all have arrived.
  virtual void buildClusterArrive(OpBuilder &b, Location loc) const;
  virtual void buildClusterWait(OpBuilder &b, Location loc) const;
  /// Element `index` of the f32 workgroup buffer `buffer` as block `rank`
  /// (i32) of this block's cluster holds it.
  virtual Value loadClusterShared(OpBuilder &b, Location loc, Value buffer,
                                  Value index, Value rank) const;
  /// Whether the mapping marks the last pass of a streamed row (its reread
  /// and its stores) `nontemporal`, for this end to keep those bytes from
  /// displacing the rows still to be reread in L2. NVIDIA: yes, lowered by
  /// softmax-nvvm-nontemporal. Default no (CDNA: AMDGPU would honour the
  /// attribute, but no AMD GPU has measured it).
  virtual bool streamsLastPass() const { return false; }
  /// The matrix unit's share of the attention kernel for `op` with
  /// `config` (which the mapping has checked against the queries above).
  virtual std::unique_ptr<detail::AttentionMma>
  makeAttentionMma(OpBuilder &b, Location loc, AttentionOp op,
                   const AttentionMmaConfig &config) const = 0;
  /// The matrix unit's C = A B^T tiles (the fused linear cross-entropy)
  /// for `config`, or null where this end has none for its element type
  /// (the default).
  virtual std::unique_ptr<detail::TileMma>
  makeTileMma(OpBuilder &b, Location loc,
              const detail::TileMmaConfig &config) const {
    return nullptr;
  }
};

/// The NVIDIA end (SoftmaxGPUNVVM): llvm.fence at "device" scope, mma.sync
/// with ldmatrix and cp.async.
const GPUTargetHooks &getNVVMTargetHooks();
/// The rewrites of softmax-nvvm-nontemporal (SoftmaxGPUNVVM): nontemporal
/// llvm.load and llvm.store of 32, 64 or 128 bits become PTX's .cs
/// accesses; any other nontemporal access loses the attribute with a
/// warning.
void populateNVVMNontemporalPatterns(RewritePatternSet &patterns);
/// The AMD CDNA end (SoftmaxGPUROCDL): llvm.fence at "agent" scope, MFMA.
const GPUTargetHooks &getROCDLTargetHooks();

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_GPUTARGETHOOKS_H
