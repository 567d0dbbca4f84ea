//===- AttentionShape.h - the sizes softmax.attention is made of -*- C++ -*-===//
//
// The sizes of softmax.attention's operands (B, H, Hkv, Nq, Nk, D, Dv) as the
// verifier relates them, for its tiling (AttentionTiling.cpp) and its
// decomposition (Transforms/AttentionDecompose.h).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_ATTENTIONSHAPE_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_ATTENTIONSHAPE_H

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
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

/// The op's window for index arithmetic: the attribute, at most 2^40. A
/// window of 2^40 keys already reaches every key of any buffer that fits in
/// memory (2^40 keys of 2-byte elements are 2 TiB), so the clamp changes no
/// result, and keeps `diagonal + window` inside int64 (an unclamped
/// window(INT64_MAX) overflowed and masked every row).
std::optional<int64_t> getIndexableWindow(AttentionOp op);

/// A key count (an index) as the f32 that `scale_factor`'s lambda = a / Nk
/// divides by.
Value keyCountAsF32(OpBuilder &b, Location loc, Value keys);

/// A batch entry's key count L_b from its `key_lengths` element (i32):
/// clamped to [0, `keys`] (Nk, an index), as an index. The one place the
/// clamp is written: every lowering reads a ragged entry's keys through it.
Value clampKeyLength(OpBuilder &b, Location loc, Value length, Value keys);

/// The page that a page table entry (i32) names, clamped to [0, numPages)
/// (an index): a table padded with -1 or garbage past a sequence's pages
/// still reads in bounds. The one place the clamp is written.
Value pageOfKey(OpBuilder &b, Location loc, Value entry, Value numPages);

/// The leading indices of key (or value) row `row` of kv head `kvHead` of
/// batch entry `bIdx` in `src` (the op's key or value buffer): (b, kv head,
/// row), or for a paged op (page, row in the page, kv head) through its
/// page table (pageOfKey). Every lowering that reads a key row in place
/// addresses it so.
SmallVector<Value> kvRowIndices(OpBuilder &b, Location loc, AttentionOp op,
                                Value src, Value bIdx, Value kvHead, Value row);

/// The key count of batch entry `bIdx` of a buffer op: `keys` (Nk), or, with
/// `key_lengths`, that entry's length loaded and clamped (clampKeyLength).
Value loadKeyCount(OpBuilder &b, Location loc, AttentionOp op, Value bIdx,
                   Value keys);

/// The skip threshold of a buffer op for batch entry `bIdx`, as
/// StateMath::logSkipThreshold takes it: the threshold (loaded from its [B]
/// buffer, or the scalar) and, for the `scale_factor` form, the key count
/// `keys` (an index) as f32, null for the `lambda` form.
std::pair<Value, Value> loadSkipThreshold(OpBuilder &b, Location loc,
                                          AttentionOp op, Value bIdx,
                                          Value keys);

/// Why `op` has no reference decomposition (and no key tiling), or
/// std::nullopt when it has one.
std::optional<std::string> whyAttentionNotDecomposable(AttentionOp op);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_ATTENTIONSHAPE_H
