//===- AttentionDecode.h - split-KV and GQA packing of the GPU kernel -----===//
//
// What the attention mapping adds for decode-shaped calls (few query rows,
// long KV caches): GQA packing, where the query heads of one KV head share
// a query tile so that each K/V tile staged serves all of them, and
// split-KV, where several blocks fold disjoint key ranges of one query tile
// into f32 partials that a second kernel merges through the state algebra
// (docs/Attention.md, "Decode on the GPU").
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONDECODE_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONDECODE_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

namespace mlir::softmax::detail {

/// How a decode-shaped attention is laid over the grid.
struct AttentionDecodePlan {
  /// Query heads per query tile (1: not packed).
  int64_t packedHeads = 1;
  /// Blocks per query tile's keys (1: not split).
  int64_t keySplits = 1;
};

/// The plan for `op` from the request in `overrides` (0: choose) for a
/// kernel of `blockRows` query rows per block that needs `smemBytes` of
/// shared memory per block, or a diagnostic on `op` for a request it
/// cannot honour.
FailureOr<AttentionDecodePlan>
planAttentionDecode(AttentionOp op, const GPUTarget &target,
                    const AttentionGPUStrategy &overrides, int64_t blockRows,
                    int64_t smemBytes);

/// `buffer` [B, H, Nq, ...] (identity layout) viewed as
/// [B, H / packed, packed Nq, ...]: the query heads of a group side by
/// side in the rows.
Value packQueryHeads(OpBuilder &b, Location loc, Value buffer, int64_t packed);

/// The second kernel of split-KV, on the stream of `token`: for every row
/// of `out` [B, H, Nq, Dv] (and `lse` [B, H, Nq], if given), the states
/// (lse_s, 1) of `splits` partials `partO` [B splits, H, Nq, Dv] and
/// `partLse` [B splits, H, Nq] (StateMath::stateOfLse) merged with their
/// accumulators, normalized with `op`'s masked-row rule. Returns the
/// launch's token.
Value buildPartialMerge(OpBuilder &b, Location loc, AttentionOp op, Value partO,
                        Value partLse, Value out, Value lse, int64_t splits,
                        Value token);

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_MAPPING_ATTENTIONDECODE_H
