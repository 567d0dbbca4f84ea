//===- AttentionDecode.h - split-KV and GQA packing of the GPU kernel -----===//
//
// What the attention mapping adds for decode-shaped calls (few query rows,
// long KV caches): GQA packing, where the query heads of one KV head share
// a query tile so that each K/V tile staged serves all of them, and
// split-KV, where several blocks fold disjoint key ranges of one query tile
// into f32 partials that a second kernel merges through the state algebra,
// and stream-K, where each block folds an equal run of the whole batch's
// key tiles into the same partials (docs/Attention.md, "Decode on the
// GPU").
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONDECODE_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONDECODE_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"

namespace mlir::softmax::detail {

/// Whether each query tile of a thresholded `op` holds one row (tile [1,
/// Kt], or one static query row per head): then any rows may share a warp,
/// each deciding on its own tiles.
bool skipsRowWise(AttentionOp op);

/// The query heads per query tile (1: not packed) for `op`, from the
/// request in `overrides` (0: choose) and the `blockRows` query rows a
/// block of the default shape holds, or a diagnostic on `op` for a request
/// it cannot honour.
FailureOr<int64_t> planPackedHeads(AttentionOp op,
                                   const AttentionGPUStrategy &overrides,
                                   int64_t blockRows);

/// Warps per block for `rows` query rows per (batch, head) of the kernel
/// (packed or not) at `rowsPerWarp` rows per warp: the `warps` of the
/// prefill shape, or fewer where the rows would leave whole warps idle.
int64_t decodeWarps(int64_t rows, int64_t rowsPerWarp, int64_t warps);

/// The blocks per query tile's keys (1: not split) for `op` with `packed`
/// query heads per tile, a block of `blockRows` query rows and `threads`
/// threads that needs `smemBytes` of shared memory, from the request in
/// `overrides`.
FailureOr<int64_t> planKeySplits(AttentionOp op, const GPUTarget &target,
                                 const AttentionGPUStrategy &overrides,
                                 int64_t packed, int64_t blockRows,
                                 int64_t threads, int64_t smemBytes);

/// Stream-K (LeanAttention) for `op`: the blocks per query-head group that
/// cut the batch's key tiles into equal chunks, or 0 for none (plain
/// split-KV, planKeySplits), from the request in `overrides`, with
/// `packed` query heads per tile and a block of `blockRows` query rows and
/// `threads` threads that needs `smemBytes` of shared memory; a diagnostic
/// on `op` for a request it cannot honour.
FailureOr<int64_t> planStreamK(AttentionOp op, const GPUTarget &target,
                               const AttentionGPUStrategy &overrides,
                               int64_t packed, int64_t blockRows,
                               int64_t threads, int64_t smemBytes);

/// The stream-K schedule a kernel and its merge share: `tileStarts`
/// [B + 1] i32, entry b the key tiles of the entries before b (entry B all
/// of them), and the chunks per query-head group.
struct StreamKSchedule {
  Value tileStarts;
  int64_t chunks = 0;

  /// The tiles of one chunk for `total` tiles in all: at least 1, and
  /// `chunks` of them cover `total`. Chunk p is tiles [p C, p C + C).
  Value chunkTiles(OpBuilder &b, Location loc, Value total) const;
  /// Entry `entry` of tileStarts, as an index.
  Value tilesBefore(OpBuilder &b, Location loc, Value entry) const;
};

/// A kernel on the stream of `token` that writes `schedule.tileStarts`
/// from `op`'s key lengths (each clamped to [0, `keys`]) for `batch`
/// entries; returns its token. Each of B + 1 threads sums the tiles of the
/// entries before its own: B is a batch (tens to hundreds), and the
/// lengths are read once from memory and then from cache.
Value buildTileStarts(OpBuilder &b, Location loc, AttentionOp op, Value keys,
                      Value batch, const StreamKSchedule &schedule,
                      Value token);

/// `buffer` [B, H, Nq, ...] (identity layout) viewed as
/// [B, H / packed, packed Nq, ...]: the query heads of a group side by
/// side in the rows.
Value packQueryHeads(OpBuilder &b, Location loc, Value buffer, int64_t packed);

/// The second kernel of split-KV, on the stream of `token`: for every row
/// of `out` [B, H, Nq, Dv] (and `lse` [B, H, Nq], if given), the states
/// (lse_s, 1) of `splits` partials `partO` [B splits, H, Nq, Dv] and
/// `partLse` [B splits, H, Nq] (StateMath::stateOfLse) merged with their
/// accumulators, normalized with `op`'s masked-row rule. Returns the
/// launch's token. With a stream-K `schedule` the partials are
/// [B + chunks, ...]: the piece of entry b in chunk p is row b + p (the
/// pieces in key order are cut at entry starts and chunk starts, so b + p
/// counts the cuts before it and no two pieces share a row), and entry b
/// merges those of the chunks its tiles cross; `splits` is unused.
Value buildPartialMerge(OpBuilder &b, Location loc, AttentionOp op, Value partO,
                        Value partLse, Value out, Value lse, int64_t splits,
                        Value token, const StreamKSchedule *schedule = nullptr);

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONDECODE_H
