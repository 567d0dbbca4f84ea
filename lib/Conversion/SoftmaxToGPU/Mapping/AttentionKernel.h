//===- AttentionKernel.h - the attention kernel body, tile by tile -*- C++ -*-===//
//
// The body of the tensor-core attention kernel that mapAttentionOpToGPU
// (AttentionToGPU.cpp) launches: the tile loop over K/V, the online fold,
// the stores (AttentionKernel.cpp), and a skip threshold's votes
// (AttentionSkip.cpp). Private to the mapping library.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONKERNEL_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONKERNEL_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"

#include "AttentionDecode.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::softmax::detail {

/// One block of the attention kernel: its rows of one (batch, head) (or of
/// packed heads, a split of the keys, a stream-K chunk), folded over the
/// staged K/V tiles on the matrix unit `mma` describes.
class AttentionKernel : IndexArith {
public:
  AttentionKernel(OpBuilder &b, Location loc, AttentionOp op, float scale,
                  AttentionMma &mma, int64_t warps, Value nq, Value nk,
                  Value heads, Value kvHeads)
      : IndexArith(b, loc), math(mma.rowMath()), sm(*math), op(op),
        scale(scale), mma(mma), rowsPerBlock(mma.rowsPerWarp() * warps), nq(nq),
        nk(nk), heads(heads), kvHeads(kvHeads), lseOut(op.getLse()) {}

  /// The kernel's body in `launch`, with the buffers of the matrix unit's
  /// `tileBuffers` in `smem`.
  void build(gpu::LaunchOp launch, ArrayRef<Value> smem);

  /// Split-KV: block x of the grid is tile x / splits, split x % splits of
  /// the keys (getAttentionKeySplitRange); it writes its f32 partial O (set
  /// on the matrix unit) and lse into row b splits + split of the partials,
  /// masked(zero).
  void setKeySplits(int64_t count, Value partialLse) {
    splits = count;
    lseOut = partialLse;
  }
  /// Stream-K: block x of the grid folds chunk x of `schedule` (the batch's
  /// key tiles end to end, in equal chunks), one piece per entry it
  /// crosses, writing its f32 partial into row entry + x of the partials.
  void setStreamK(const StreamKSchedule &s, Value batchSize, Value partialLse) {
    stream = s;
    batch = batchSize;
    lseOut = partialLse;
  }
  /// A thresholded op whose query tiles hold one row each (tile [1, Kt],
  /// or one query row per head): each row decides for itself, and the warp
  /// skips the tile's V and P V when all of its rows do.
  void setRowWiseSkip(bool on) { rowWise = on; }
  /// A thresholded op whose query tiles are the block's rows (tile [64,
  /// 64], [128, 64]): the block votes once per key tile, and its warps
  /// fold the tile, or skip it, together.
  void setBlockWideSkip(bool on) { blockWide = on; }
  /// Two buffers, a thresholded decode step: the loop waits for a tile's
  /// K before S and for its V only before P V, so that S (and the vote)
  /// overlap V's copy.
  void setOverlapValues(bool on) { overlapValues = on; }
  /// Thresholded, two TMA buffers (SkipValues::WithKeys): V of a tile is
  /// requested with its K, as in the dense kernel; a skipped tile saves
  /// its fold and P V, and a warp-wide skip tile takes no block vote.
  void setValuesWithKeys(bool on) { valuesWithKeys = on; }
  /// GQA packing: the kernel's rows are query heads times the op's
  /// `queryRows` rows (row r is position r mod queryRows), its lse buffer
  /// `lse` the op's as [B, Hkv', g Nq].
  void setPackedRows(Value queryRows, Value lse) {
    packedRows = queryRows;
    lseOut = lse;
  }

private:
  /// One piece of a stream-K chunk: entry `entry`'s keys [start, end), its
  /// partial's row `slot`, and the loop over the pieces (endPieces).
  struct Piece {
    Value entry, start, end, slot;
    Operation *loop = nullptr;
  };
  /// Opens the loop over the pieces of this block's chunk and leaves the
  /// insertion point where one piece is built; the block ids give the
  /// chunk (x) and the head (y).
  Piece beginPieces(gpu::LaunchOp launch);
  /// Closes what beginPieces opened.
  void endPieces(const Piece &piece);
  /// Adds the mask operand to the scores of tile `kv0`.
  void applyMaskOperand(SmallVector<Value> &sc, Value kv0, Value bIdx,
                        Value hIdx, ArrayRef<Value> rows);
  /// Sets scores past Nk or outside the causal/window limits to -inf, on
  /// the tiles that have any.
  void applyLimits(SmallVector<Value> &sc, Value kv0, ArrayRef<Value> positions,
                   Value blockFirst, Value blockLast, Value offset);
  /// The online update of one tile's scores `sc` from the loop state `st`
  /// (m and l per slot, then O): the new m and l, then O scaled; the
  /// probabilities in `p`.
  /// At a unified max (a fold at a known offset, no rescale) O adds as
  /// it is.
  /// With `keep` (one i1 per slot: the row skips the tile), those rows
  /// keep their (m, l, O) and add no probability.
  SmallVector<Value> foldTile(StateFold &fold, ValueRange st,
                              ArrayRef<Value> sc, SmallVector<Value> &p,
                              ArrayRef<Value> keep = {});
  /// The loop state's start: the identity (m, l) per slot, then zero
  /// accumulators.
  SmallVector<Value> initialState(int64_t slots);
  /// Whether `pred` holds in some thread of the block, once, after the
  /// tile loop: the end's barrier with a reduction, or flags[0] around two
  /// barriers.
  Value blockAnyOnce(Value pred);
  /// ln(lambda) in log2 units for batch entry `bIdx`
  /// (StateMath::logSkipThreshold).
  Value log2Threshold(Value bIdx);
  /// Whether some thread of the block has `pred` at key tile `kv0`: the
  /// end's barrier with a reduction, or a flag in shared memory (`flags`,
  /// two words used in turn by tile parity, so one barrier suffices)
  /// around a plain barrier; vote `which` of a tile takes words 2 which
  /// and 2 which + 1.
  Value blockAny(Value pred, Value kv0, int64_t which = 0);
  /// Waits for the copies requested up to `token`'s and before, leaving
  /// the last `pending` requests (an index from 0 to `most`) in flight.
  void waitLeaving(Value token, Value pending, int64_t most);
  /// One tile of a thresholded op (the loop body after the scores): the
  /// warp's vote on StateMath::rowAllowsSkip over its rows, V requested
  /// only when some warp folds the tile (or with K: setValuesWithKeys),
  /// the fold and P V only in the warps that do; returns the loop state to
  /// yield (with the counts).
  SmallVector<Value> skipTile(StateFold &fold, ValueRange st,
                              ArrayRef<Value> sc, Value kv0, Value buf,
                              Value bIdx, Value kvHead, Value log2Lambda,
                              ArrayRef<Value> rows, Value counts, Value token);
  /// skipTile's V after the vote: requested when `needV` (some warp folds
  /// the tile) unless it came with the tile (`early`), the next tile's V
  /// ahead of it, and the wait for this tile's.
  void requestVotedValues(Value needV, Value early, Value kv0, Value buf,
                          Value bIdx, Value kvHead, Value token);

  /// Scalar f32 arithmetic of the row statistics, the matrix unit end's.
  std::unique_ptr<StateMath> math;
  StateMath &sm;
  AttentionOp op;
  float scale;
  AttentionMma &mma;
  int64_t rowsPerBlock;
  Value nq, nk, heads, kvHeads;
  /// Thresholded ops without the end's barrier reduction: memref<2xi32> in
  /// workgroup memory.
  Value flags;
  /// Split-KV and GQA packing (setKeySplits, setPackedRows); the first key
  /// of the block's split (null: 0).
  int64_t splits = 1;
  bool rowWise = false, blockWide = false, overlapValues = false,
       valuesWithKeys = false;
  /// The end of the block's key range (the tile loop's upper bound).
  Value kvEnd;
  std::optional<StreamKSchedule> stream;
  Value batch;
  Value packedRows, lseOut, keyOffset;
  Value tid;
  /// The first key tile of the block, the O accumulators per lane, and
  /// (thresholded) the loop state's flag that V of the tile was requested
  /// with it.
  Value firstTile;
  size_t accs = 0, speculated = 0;

public:
  void setFlags(Value f) { flags = f; }
  /// Unified max: which of its two kernels this is, with the buffer of one
  /// i32 per block that the first writes (a row of the block left the
  /// range) and the second reads.
  enum class UnifiedPass { AtPhi, Fallback };
  void setUnifiedPass(UnifiedPass p, Value blockFlags) {
    unifiedPass = p;
    redoFlags = blockFlags;
  }

private:
  UnifiedPass unifiedPass = UnifiedPass::AtPhi;
  Value redoFlags;
};


} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONKERNEL_H
