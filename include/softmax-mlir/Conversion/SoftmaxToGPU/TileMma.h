//===- TileMma.h - a block's C = A B^T tiles on the matrix unit -*- C++ -*-===//
//
// The fused linear cross-entropy (CrossEntropyToGPU.cpp) multiplies tiles
// of two row-major operands that share their inner dimension, hidden
// [N, D] and classifier [V, D], and folds each [rows x cols] product into
// online states instead of storing it. What differs between vendors is
// the matrix unit: how a K-slice of both operands reaches shared memory,
// how a warp multiplies its part of the block's tile, and which rows and
// columns a lane's accumulator elements hold. TileMma is that difference;
// the NVIDIA end (mma.sync with ldmatrix and cp.async) implements it, and
// GPUTargetHooks::makeTileMma hands one to the mapping (null where an end
// has none, which the mapping reports).
//
// Upstream's gpu.subgroup_mma ops hide the fragment layout that the fold
// needs (which row each accumulator element is), and nvgpu.mma.sync
// deduces no PTX type for bf16: the product is built here.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_TILEMMA_H
#define SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_TILEMMA_H

#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include <memory>

namespace mlir::softmax::detail {

/// The shape of a block's product: `warpsM x warpsN` warps, each owning a
/// `warpRows x warpCols` part of the block's `blockRows() x blockCols()`
/// tile of C; the inner dimension in slices of `kTile`, each staged in one
/// of `stages` shared-memory buffers per operand. The defaults, measured on
/// the H200 for the linear cross-entropy at N 8192, V 128256, D 2048 / 4096
/// (bench/results/cross_entropy/history-gpu_tile_sweep.json, TFLOP/s):
/// 323 / 310, against 316 / 277 with slices of 32, 316 / 296 with 32 and
/// three buffers, 327 / 319 with 4 x 2 warps (blocks of 256 tokens, twice
/// the wasted rows for few tokens) and 264-276 with 8 warps and slices of
/// 32.
struct TileMmaConfig {
  Type elt;
  int64_t warpsM = 2, warpsN = 2;
  int64_t warpRows = 64, warpCols = 64;
  int64_t kTile = 64;
  int64_t stages = 2;
  /// Whether A (B) lies in its buffers by inner rows, [kTile, rows] instead
  /// of [rows, kTile]: the gradient's products multiply du^T and chunks of
  /// row-major W and h by their rows (CrossEntropyGradTile.cpp). The
  /// mma.sync end does not stage such an operand (the kernel fills its
  /// buffer); the warpgroup end stages it by boxes of 64 inner rows (its
  /// source [inner, rows]) and multiplies it transposed.
  bool aByInner = false, bByInner = false;
  /// Whether warpgroups multiply (sm_90's wgmma): each group of 4 warps
  /// owns 64 rows by all `warpCols` columns (warpsN 1, warpRows 16: warp w
  /// holds rows 16 w to 16 w + 15, as wgmma's accumulators lie), and both
  /// operands come by bulk tensor copies into 128-byte-swizzled buffers.
  bool warpgroups = false;
  int64_t warps() const { return warpsM * warpsN; }
  int64_t blockRows() const { return warpsM * warpRows; }
  int64_t blockCols() const { return warpsN * warpCols; }
};

/// One warp's share of C = A B^T for a block of `config.warps()` warps.
class TileMma : protected IndexArith {
public:
  TileMma(OpBuilder &b, Location loc, const TileMmaConfig &config)
      : IndexArith(b, loc), config(config) {}
  virtual ~TileMma() = default;

  const TileMmaConfig &getConfig() const { return config; }
  /// Lanes per warp.
  virtual int64_t lanes() const = 0;
  /// The shared-memory buffers of A and of B, in this order, each
  /// [stages, rows, kTile + padding].
  virtual SmallVector<MemRefType> tileBuffers(Attribute workgroup) const = 0;
  /// Lane bookkeeping for thread `tid` of the block; `smem` holds the
  /// buffers of `tileBuffers`.
  virtual void begin(Value tid, ArrayRef<Value> smem) = 0;
  /// Starts copying columns [k0, k0 + kTile) of rows [aRow0, aRow0 +
  /// blockRows()) of the 2-D `a` and of rows [bRow0, bRow0 + blockCols())
  /// of `b` into buffer `buf` of each. Rows at or past `aRows` (`bRows`)
  /// repeat the last one; columns at or past `cols` read as 0. B's inner
  /// columns start at `bK0` where given (else k0). An operand by inner rows
  /// is its source's rows [k0, k0 + kTile) by columns from its row0.
  /// Returns what `wait` waits for.
  virtual Value stage(Value a, Value aRow0, Value aRows, Value bSrc,
                      Value bRow0, Value bRows, Value k0, Value cols, Value buf,
                      Value bK0 = Value()) = 0;
  /// Waits for every copy but the last `pending` groups requested.
  virtual void wait(Value token, int64_t pending) = 0;
  /// Host code before the launch, where the end needs something of the
  /// operands `a` and `b` of `stage` (the warpgroup end: their tensor
  /// maps).
  virtual void prepareHost(Value a, Value b) {}
  /// Waits until slice `t` (staged into buffer t % stages, with `pending`
  /// slices staged after it; `token` the last `stage`'s result) is visible
  /// to every thread of the block.
  virtual void waitSlice(Value t, Value token, int64_t pending) {
    wait(token, pending);
    gpu::BarrierOp::create(b, loc);
  }
  /// Waits for every copy still in flight: slices `waited` to `waited +
  /// pending - 1` were staged but not waited for.
  virtual void drain(Value token, Value waited, int64_t pending) {
    wait(token, 0);
  }

  /// Zero accumulators of the warp's tile.
  virtual SmallVector<Value> zero() = 0;
  /// acc + the product of the warp's rows of A (in buffer `aBuf`) and
  /// columns of B (in buffer `bBuf`) over a kTile slice; the warp's part
  /// starts at row `warpRow` and column `warpCol` of the block's tile.
  virtual SmallVector<Value> multiply(ArrayRef<Value> acc, Value aBuf,
                                      Value bBuf, Value warpRow,
                                      Value warpCol) = 0;
  /// Slices whose products may still be running when `multiply` returns:
  /// the kernel stages each slice this many slices later, and reads the
  /// accumulators only after `settle`.
  virtual int64_t productsInFlight() const { return 0; }
  /// The accumulators once every product into them has completed.
  virtual SmallVector<Value> settle(ArrayRef<Value> acc) {
    return SmallVector<Value>(acc);
  }
  /// The same with both slices in buffer `buf`.
  SmallVector<Value> multiply(ArrayRef<Value> acc, Value buf, Value warpRow,
                              Value warpCol) {
    return multiply(acc, buf, buf, warpRow, warpCol);
  }
  /// The f32 scalars of `acc`; element i is row slot `slotOf(i)` and
  /// column `colOf(i)` of the warp's part.
  virtual SmallVector<Value> elements(ArrayRef<Value> acc) = 0;
  /// Rows of the warp's part whose elements a lane holds.
  virtual int64_t slots() const = 0;
  virtual int64_t slotOf(int64_t i) const = 0;
  /// The row of `slot` in the warp's part.
  virtual Value slotRow(int64_t slot) = 0;
  /// The lane's part of column `colOf(i)`: colOf(i) = laneCol() +
  /// colOffset(i), so that a per-tile bound is compared with constants.
  virtual Value laneCol() = 0;
  virtual int64_t colOffset(int64_t i) const = 0;
  /// The xor distances between the lanes that hold one row, and between
  /// those that hold one column (the lane whose slot 0 is row 0 is the
  /// first of its column's).
  virtual ArrayRef<int32_t> rowLaneXors() const = 0;
  virtual ArrayRef<int32_t> colLaneXors() const = 0;
  /// Atomically adds the f32 pair (`x0`, `x1`) to the adjacent elements
  /// at `indices` and the next column of the 2-D global f32 `dst` in one
  /// request (the pair 8-byte aligned); false where the end has no such
  /// request (the caller then adds each).
  virtual bool atomicAddPair(Value dst, ValueRange indices, Value x0,
                             Value x1) {
    return false;
  }
  /// The f32 arithmetic of the fold: StateMath with the end's fast exp2.
  virtual std::unique_ptr<StateMath> rowMath() = 0;

protected:
  TileMmaConfig config;
};

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_TILEMMA_H
