//===- AttentionDecompose.h - the pieces softmax.attention lowers to -*- C++ -*-===//
//
// softmax.attention's reference lowering, for any target: masked scores by a
// linalg contraction, their (max, sum) state by softmax.partial, the
// weighted values by a second contraction, and a final normalization.
// AttentionOp::decomposeOperation builds them once over all keys;
// tileAttentionAlongKeys (Transforms.h) builds the first three per tile of
// keys inside a loop and merges the tiles with softmax.merge.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_ATTENTIONDECOMPOSE_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_ATTENTIONDECOMPOSE_H

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include <array>
#include <optional>
#include <string>

namespace mlir::softmax {

/// The sizes softmax.attention's shapes are made of.
enum class AttentionDim { B, H, Hkv, Nq, Nk, D, Dv };

/// The size `dim` of `op` if some operand has it statically (the verifier
/// guarantees that they agree).
std::optional<int64_t> getStaticAttentionSize(AttentionOp op, AttentionDim dim);

/// The size `dim` of `op`: static if any operand knows it statically (the
/// verifier guarantees they agree), else a tensor.dim / memref.dim of the
/// first operand that has it.
OpFoldResult getAttentionSize(OpBuilder &b, AttentionOp op, AttentionDim dim);

/// True if [offset, offset + size) is all of `dim`: offset 0 and a size
/// equal to the static size, or a dynamic size read from an operand.
bool coversAttentionDim(AttentionOp op, AttentionDim dim, OpFoldResult offset,
                        OpFoldResult size);

/// The static number of query heads per key/value head, H / Hkv, when both
/// are static.
std::optional<int64_t> getStaticHeadGroup(AttentionOp op);

/// Why `op` has no reference decomposition (and no key tiling), or
/// std::nullopt when it has one.
std::optional<std::string> whyAttentionNotDecomposable(AttentionOp op);

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

private:
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

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_ATTENTIONDECOMPOSE_H
