//===- AttentionDecompose.h - the pieces softmax.attention lowers to -*- C++
//-*-===//
//
// softmax.attention's reference lowering, for any target: masked scores by a
// linalg contraction, their (max, sum) state by softmax.partial, the
// weighted values by a second contraction, and a final normalization.
// decomposeAttention builds them once over all keys (and is the op's
// AggregatedOpInterface, attached as an external model: the elementwise
// bodies use the state algebra of MLIRSoftmaxUtils, which sits above the
// dialect); tileAttentionAlongKeys (Transforms.h) builds the first three per
// tile of keys inside a loop and merges the tiles with softmax.merge, and,
// for an op with a skip threshold, keeps the state of the tiles it skips.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ATTENTIONDECOMPOSE_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ATTENTIONDECOMPOSE_H

#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"
#include <array>

namespace mlir {
class DialectRegistry;
namespace softmax {

/// The decomposition of `op` (on tensors) over all keys, at the builder's
/// insertion point: the values that replace its results. Fails with an
/// error on the op when whyAttentionNotDecomposable says why.
FailureOr<SmallVector<Value>> decomposeAttention(OpBuilder &b, AttentionOp op);

/// The unit-stride slice of the tensor `source` at `offsets` and `sizes`,
/// or, where `source` has a dimension of static size 0, a tensor.empty of
/// the slice's shape. Why: tensor.extract_slice's verifier rejects offset 0
/// on a dimension of static size 0 ("offset 0 is out-of-bounds: 0 >= 0"),
/// though that slice is in bounds, and empty.
Value extractSliceOrEmpty(OpBuilder &b, Location loc, Value source,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes);

/// The slice [offset, offset + size) of the tensor `source` along dimension
/// `dim`, whole along the others (extractSliceOrEmpty).
Value sliceAlong(OpBuilder &b, Location loc, Value source, int64_t dim,
                 OpFoldResult offset, OpFoldResult size);

/// Attaches linalg::AggregatedOpInterface (decomposeAttention) to
/// softmax.attention, so that transform.structured.decompose_interface
/// reaches it.
void registerAttentionDecomposeExternalModel(DialectRegistry &registry);

/// Builds the pieces of the decomposition of one softmax.attention on
/// tensors, at the builder's insertion point. Requires
/// whyAttentionNotDecomposable(op) to be std::nullopt.
class AttentionDecomposer {
public:
  AttentionDecomposer(OpBuilder &b, AttentionOp op);

  /// The scaled, masked scores of every query against the keys `key`
  /// ([B, Hkv, n, D], `op`'s key or a slice of it along Nk) as f32
  /// [B, H, Nq, n]: `scale * <q, k>`, plus the additive mask, -inf where the
  /// i1 mask, `causal` or `window` hides the key. `mask` is the mask's
  /// matching columns (null without a mask) and `keyOffset` the index of
  /// the first key of `key` among all Nk, which the causal and window tests
  /// add to the column index.
  Value scores(Value key, Value mask, OpFoldResult keyOffset);

  /// The state (max, sum) of `scores` along the keys: softmax.partial from
  /// the identity state, algorithm(online). [B, H, Nq] f32 each.
  std::pair<Value, Value> state(Value scores);

  /// exp(scores - max) times `value` (the value rows of the same keys,
  /// [B, Hkv, n, Dv]): the unnormalized output, f32 [B, H, Nq, Dv].
  Value weightedValues(Value scores, Value max, Value value);

  /// The identity state (-FLT_MAX, 0) and a zero accumulator: the iter_args
  /// a loop over key tiles starts from.
  std::array<Value, 3> identity();

  /// Nk, the number of keys of the op.
  OpFoldResult numKeys() const { return keys; }

  /// The op's results from the final state and accumulator: `acc / sum`
  /// rounded to the output element type (the masked value where the sum is
  /// 0: the row saw no key), and softmax.lse of (max, sum) when the op has
  /// an lse.
  SmallVector<Value> finish(Value max, Value sum, Value acc);

  //===--------------------------------------------------------------------===//
  // Unified max (AttentionUnifiedMax.cpp), for an op with one
  //===--------------------------------------------------------------------===//

  /// phi in every row, f32 [B, H, Nq]: the offset of the unified state.
  Value unifiedOffset();

  /// sum_j exp(scores - phi) per row, f32 [B, H, Nq] (weightedValues at
  /// unifiedOffset gives the matching accumulator).
  Value unifiedSum(Value scores);

  /// `unified` (the final max, sum and accumulator at phi) when every
  /// row's `sum` is in StateMath::unifiedSumInRange, else what `online`
  /// builds (in the else region of the scf.if that decides).
  SmallVector<Value> unifiedOrOnline(Value sum, ValueRange unified,
                                     function_ref<SmallVector<Value>()> online);

  //===--------------------------------------------------------------------===//
  // Skipping key tiles (AttentionSkip.cpp), for an op with a threshold
  //===--------------------------------------------------------------------===//

  /// ln(lambda) per batch entry, f32 [B]: StateMath::logSkipThreshold of
  /// the threshold operand (a / Nk for `scale_factor`).
  Value logThreshold();

  /// lambda itself per batch entry, f32 [B]: StateMath::skipLambda of the
  /// threshold operand (a / Nk for `scale_factor`).
  Value lambdas();

  /// One key tile's skip decision at the op's skip tile.
  struct TileSkip {
    /// [B, H, Nq] i1: whether the row's query tile skips the key tile.
    Value skip;
    /// i64: the key tile's live (query tile, key tile) pairs, and how many
    /// of them are skipped (null unless `count`).
    Value live, skipped;
  };
  /// The decision for a key tile whose per-row max scores are `tileMax`,
  /// against the running max `m` of the earlier tiles ([B, H, Nq] f32
  /// each), with `logLambda` from logThreshold.
  TileSkip skipDecision(Value tileMax, Value m, Value logLambda, bool count);

  /// `kept` where `skip` ([B, H, Nq] i1) holds, `updated` elsewhere: a
  /// state ([B, H, Nq]) or an accumulator ([B, H, Nq, Dv]).
  Value keepSkipped(Value skip, Value kept, Value updated);

private:
  /// [B] f32 of the threshold operand: ln(lambda) when `log`, else lambda.
  Value perBatchThreshold(bool log);
  /// [B, H, Nq] i1 -> [B, H, ceil(Nq / Qt)]: the and (`all`) or the or of
  /// each query tile's rows; rows past Nq count as `all`'s identity.
  Value reduceQueryTiles(Value rows, bool all);
  /// [B, H, ceil(Nq / Qt)] i1 -> [B, H, Nq]: each row gets its tile's value.
  Value broadcastQueryTiles(Value tiles);

  Value fill(ArrayRef<OpFoldResult> sizes, const APFloat &value);
  Value index(OpFoldResult v);
  /// The key/value head a query head reads, as an affine expression of `h`.
  AffineExpr kvHead(AffineExpr h) const;

  OpBuilder &b;
  AttentionOp op;
  Location loc;
  FloatType f32;
  OpFoldResult batch, heads, queries, keys, valueDim;
  std::optional<int64_t> group;
};

} // namespace softmax
} // namespace mlir

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ATTENTIONDECOMPOSE_H
