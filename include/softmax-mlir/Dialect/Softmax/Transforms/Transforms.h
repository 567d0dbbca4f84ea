//===- Transforms.h - softmax pattern sets and helpers ----------*- C++ -*-===//
//
// The pattern sets and entry points behind the softmax passes, exported so
// that a host compiler can run them inside its own pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_TRANSFORMS_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_TRANSFORMS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include <functional>
#include <optional>

namespace mlir::softmax {

/// linalg.softmax and decomposed linalg forms -> softmax semantic ops, the
/// attention chains of populateSoftmaxRaiseAttentionPatterns and the
/// cross-entropies of populateSoftmaxRaiseCrossEntropyPatterns.
void populateSoftmaxRaisePatterns(RewritePatternSet &patterns);

/// linalg attention chains (Q K^T, scale, additive mask, softmax over the
/// last dimension, P V) -> softmax.attention. The softmax must already be a
/// softmax.softmax or a linalg.softmax; populateSoftmaxRaisePatterns raises
/// the decomposed forms to one.
void populateSoftmaxRaiseAttentionPatterns(RewritePatternSet &patterns);

/// linalg cross-entropy of a linear classifier (h W^T (+ b), a log_softmax
/// over the classes, the NLL of the targets with an ignored index, reduced
/// by none, sum or the mean over kept tokens) ->
/// softmax.linear_cross_entropy. The log_softmax must already be a
/// softmax.log_softmax; populateSoftmaxRaisePatterns raises it to one.
void populateSoftmaxRaiseCrossEntropyPatterns(RewritePatternSet &patterns);

/// The target of the algorithm cost model.
enum class CostModelTarget { CPU, GPU };

/// Parses "cpu" or "gpu".
std::optional<CostModelTarget> parseCostModelTarget(StringRef name);

/// Semantic ops -> softmax.partial + softmax.normalize / softmax.lse.
/// Ops still marked `auto` first get selectAlgorithm's choice for
/// `autoTarget` (softmax-select-algorithm, run before, leaves none). With a
/// `filter`, only the ops it accepts are expanded.
void populateSoftmaxExpandPatterns(
    RewritePatternSet &patterns, CostModelTarget autoTarget,
    std::function<bool(Operation *)> filter = nullptr);

/// softmax.attention (on tensors) -> its decomposition
/// (AttentionOp::decomposeOperation: scores and weighted values as
/// linalg.generic contractions around softmax.partial, then the
/// normalization and softmax.lse), or, with `keyTileSize > 0`, the same
/// tiled along the keys by tileAttentionAlongKeys. Ops that cannot be
/// decomposed (whyAttentionNotDecomposable) are left alone. With a
/// `filter`, only the ops it accepts are rewritten.
void populateSoftmaxAttentionDecomposePatterns(
    RewritePatternSet &patterns, int64_t keyTileSize = 0,
    std::function<bool(Operation *)> filter = nullptr);

/// softmax.linear_cross_entropy -> its reference form: a loop over tiles
/// of the vocabulary (vocab_tile classes) whose [N, Vt] f32 logits fold
/// into each token's softmax.partial state, the target logits as a dot of
/// each hidden row with its target's classifier row, softmax.lse, the
/// per-token losses and the reduction. No [N, V] tensor is built. Also
/// softmax.linear_cross_entropy_grad -> loops over (token block, class
/// tile) recomputing the logits, with the gradient filter.
void populateSoftmaxCrossEntropyDecomposePatterns(RewritePatternSet &patterns);

/// softmax.topk -> softmax.logsumexp and k selection passes (linalg
/// reductions over the row), the reference form; with `filter`, only the
/// ops it accepts (softmax-to-cpu keeps those its one-read kernel maps).
void populateSoftmaxTopKDecomposePatterns(
    RewritePatternSet &patterns,
    std::function<bool(Operation *)> filter = nullptr);

/// Replaces a paged softmax.attention (page_table, on tensors) by the same
/// op over dense [B, Hkv, Nk, D] keys and values gathered through its page
/// table (a linalg.generic of tensor.extract): the reference form of
/// paging, which the decompositions start from. Returns the dense op.
FailureOr<AttentionOp> gatherAttentionPages(RewriterBase &rewriter,
                                            AttentionOp op);

/// The dense op of gatherAttentionPages at the builder's insertion point,
/// without replacing the paged `op` (on tensors).
AttentionOp buildGatheredAttention(OpBuilder &b, AttentionOp op);

/// Replaces `op` (on tensors) with an scf.for over tiles of `keyTileSize`
/// keys (the last one may be shorter) that carries the state (m, l)
/// [B, H, Nq] and the unnormalized output O [B, H, Nq, Dv] (f32) from the
/// identity state; each iteration computes its tile's masked scores (the
/// causal, window and mask tests use the global key index), their state
/// from the identity by softmax.partial, exp(S_t - m_t) V_t, and merges
/// them with `softmax.merge ... acc(...) state(max)`. After the loop, the
/// normalization of the decomposition. Returns the loop, or failure with a
/// diagnostic on `op` (a tile size below 1, memrefs, a dynamic H / Hkv).
FailureOr<scf::ForOp> tileAttentionAlongKeys(RewriterBase &rewriter,
                                             AttentionOp op,
                                             int64_t keyTileSize);

/// The cost model of the key split (docs/Attention.md, "Split-KV"): an
/// attention kernel runs one block per `rowsPerBlock` query rows of each
/// (batch, query head) on `parallelUnits` (resident blocks, or CPU
/// threads), and the keys are split so that the last wave of blocks keeps
/// its units busy: the fewest splits (1 included) whose
/// wave efficiency (blocks / units over its ceiling) is within 85% of the
/// best, at most `maxSplits` and keeping `minKeysPerSplit` keys per split.
struct AttentionKeySplitModel {
  int64_t parallelUnits = 132; // H200 SMs
  int64_t rowsPerBlock = 64;   // the tensor-core kernel's block
  int64_t minKeysPerSplit = 256;
  int64_t maxSplits = 128;
};

/// The split count the model chooses for `op`: 1 (no split) unless every
/// dimension it reads (B, H, Nq, Nk) is static.
int64_t chooseAttentionKeySplits(AttentionOp op,
                                 const AttentionKeySplitModel &model);
/// The model for a kernel of `blocks` blocks before the split, over `keys`
/// keys: the GPU mapping's own count of blocks (GQA packing changes it).
int64_t chooseKeySplits(int64_t blocks, int64_t keys,
                        const AttentionKeySplitModel &model);

/// The keys [start, end) of split `split` (0-based, a constant or a value)
/// of `splits` over `keys` keys and `queries` query rows: splits of
/// max(ceil(Nk / splits), causal ? Nq - 1 : 0) keys counted back from the
/// last key, the first taking the remainder (possibly none). The one rule
/// of splitAttentionAlongKeys and of the GPU kernel's split blocks. With a
/// `granule` (a paged op's page size, which divides Nk) the size is
/// rounded up to a multiple of it, so every boundary is a page boundary.
std::pair<OpFoldResult, OpFoldResult>
getAttentionKeySplitRange(OpBuilder &b, Location loc, OpFoldResult keys,
                          OpFoldResult queries, int64_t splits, bool causal,
                          OpFoldResult split, int64_t granule = 1);

/// Replaces `op` (on tensors) with `splits` partial softmax.attention ops
/// over consecutive ranges of its keys, each yielding its f32 output and
/// lse (masked(zero)), their states merged by softmax.merge and normalized
/// as the decomposition does. Splits hold ceil(Nk / splits) keys (with
/// causal, at least Nq - 1, so that only the last split meets the
/// diagonal), counted back from the last key; the first may be shorter or
/// empty. `splits` is capped at a static Nk. Returns the partial attentions
/// in key order (the op itself when nothing was split), or failure with a
/// diagnostic: memrefs, a window, a dynamic H / Hkv, a
/// count below 1.
FailureOr<SmallVector<AttentionOp>>
splitAttentionAlongKeys(RewriterBase &rewriter, AttentionOp op, int64_t splits);

/// State ops -> linalg.generic over arith/math.
void populateSoftmaxStateToLinalgPatterns(RewritePatternSet &patterns);

/// Tiles every softmax.partial and softmax.normalize under `root` along its
/// reduction dimension by `tileSize`, carrying the state through scf.for.
LogicalResult tileSoftmaxReductions(Operation *root, int64_t tileSize);

/// The L2 size the CPU cost model assumes unless told otherwise.
constexpr int64_t kDefaultL2Bytes = 1 << 20;

/// The cost model of softmax-select-algorithm
/// (docs/Passes/softmax-select-algorithm.md). `rowLength` is the static
/// length of the reduced dimension, if known.
Algorithm selectAlgorithm(CostModelTarget target,
                          std::optional<int64_t> rowLength,
                          unsigned elementBytes, int64_t l2Bytes);

/// The cost model's choice for `op`, from its row length and element size
/// (SemanticOpInterface). This is how `auto` is resolved, by
/// softmax-select-algorithm and by every pass that meets an unresolved op
/// (each with the target its ODS description names). An op without a
/// selectable algorithm (attention) gets the one it has.
Algorithm selectAlgorithm(SemanticOpInterface op, CostModelTarget target,
                          int64_t l2Bytes = kDefaultL2Bytes);

/// Parses "three_pass", "online" or "exp_pair" (not "auto").
std::optional<Algorithm> parseConcreteAlgorithm(StringRef name);

/// What softmax-select-algorithm (and transform.softmax.select_algorithm)
/// does to one softmax, log_softmax or logsumexp op: sets `forced` when
/// given, otherwise the cost model's choice where the op is still `auto`.
/// Returns the op's algorithm.
Algorithm resolveAlgorithm(Operation *op, CostModelTarget target,
                           std::optional<Algorithm> forced,
                           int64_t l2Bytes = kDefaultL2Bytes);

/// Why `op` cannot take `algorithm(unified_max, phi = phi)`: a phi that is
/// not finite, or a skip threshold (whose rule needs the running max);
/// std::nullopt when it can.
std::optional<std::string> whyNoUnifiedMax(AttentionOp op, float phi);
/// Sets `algorithm(unified_max, phi = phi)` on `op` (whyNoUnifiedMax must be
/// std::nullopt), replacing a phi it had: softmax-select-algorithm's
/// attention-unified-max and transform.softmax.set_unified_max.
void setUnifiedMax(AttentionOp op, float phi);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_TRANSFORMS_H
