//===- WarpMerge.h - merging softmax states across a warp -------*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU: the xor-shuffle butterfly that
// the row kernels (KernelBuilder) and the top-k kernel (TopKToGPU) use to
// merge the (m, l) states of a warp's lanes through the state algebra's
// merge, and the merge of a row's warps through workgroup memory.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_WARPMERGE_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_WARPMERGE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

namespace mlir::softmax::detail {

/// The units of the row kernels' exps (KernelBuilder, TopKToGPU): each is
/// exp2((x - m) log2 e), a subtract, a multiply and one ex2.approx, where
/// math.exp lowers to libdevice's range-reduced expf, 11 instructions. A
/// bf16 streamed row's loop took 139 PTX instructions a 16-byte load with
/// it and takes 65 without: at the H200's copy bandwidth, 139 is more than
/// its multiprocessors issue. The merges' scales too: a row's butterfly
/// waits on five of them in a chain.
inline constexpr ExpUnits kRowExpUnits = ExpUnits::Log2Scaled;

/// Merges the states of `width` consecutive lanes (a power of two no larger
/// than the warp of `warpSize` lanes): every lane gets their merge, its
/// scales taken in `units`.
inline std::pair<Value, Value> warpMergeStates(OpBuilder &b, Location loc,
                                               StateMath &sm, StateKind kind,
                                               Value m, Value l, int64_t width,
                                               int64_t warpSize,
                                               ExpUnits units) {
  auto shuffleWidth = static_cast<int32_t>(warpSize);
  for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
    Value m2 = gpu::ShuffleOp::create(b, loc, m, offset, shuffleWidth,
                                      gpu::ShuffleMode::XOR)
                   .getShuffleResult();
    Value l2 = gpu::ShuffleOp::create(b, loc, l, offset, shuffleWidth,
                                      gpu::ShuffleMode::XOR)
                   .getShuffleResult();
    std::tie(m, l) = sm.merge(kind, m, l, m2, l2, units);
  }
  return {m, l};
}

/// Merges the states of the `warps` whole warps of a row (`lane`: the
/// thread's index in the row): a butterfly within each warp, then lane 0 of
/// every warp parks its state in `smemM` / `smemL` (`warps` slots) and
/// every warp merges all of them, so that every thread has the row's state
/// without a broadcast. Ends with a barrier: the buffers may be written
/// again by the next merge.
inline std::pair<Value, Value>
rowMergeStates(OpBuilder &b, Location loc, StateMath &sm, StateKind kind,
               Value m, Value l, Value lane, int64_t warps, int64_t warpSize,
               Value smemM, Value smemL, ExpUnits units) {
  std::tie(m, l) =
      warpMergeStates(b, loc, sm, kind, m, l, warpSize, warpSize, units);
  IndexArith ix(b, loc);
  Value warpId = ix.div(lane, warpSize);
  Value laneInWarp = ix.rem(lane, warpSize);
  scf::IfOp::create(b, loc,
                    ix.cmp(arith::CmpIPredicate::eq, laneInWarp, ix.idx(0)),
                    [&](OpBuilder &t, Location lc) {
                      memref::StoreOp::create(t, lc, m, smemM, warpId);
                      memref::StoreOp::create(t, lc, l, smemL, warpId);
                      scf::YieldOp::create(t, lc);
                    });
  gpu::BarrierOp::create(b, loc);
  Value slot = ix.minU(laneInWarp, ix.idx(warps - 1));
  Value inRange = ix.ult(laneInWarp, ix.idx(warps));
  Value mw = sm.select(inRange, memref::LoadOp::create(b, loc, smemM, slot),
                       sm.identityOffset());
  Value lw = sm.select(inRange, memref::LoadOp::create(b, loc, smemL, slot),
                       sm.identitySum());
  // The whole warp butterflies, so that every lane ends with the row state
  // (a narrower butterfly would leave the upper lanes with identities).
  auto merged =
      warpMergeStates(b, loc, sm, kind, mw, lw, warpSize, warpSize, units);
  gpu::BarrierOp::create(b, loc);
  return merged;
}

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_WARPMERGE_H
