//===- SoftmaxToGPU.h - map softmax ops onto GPU kernels --------*- C++ -*-===//
//
// The one GPU mapping: softmax ops on buffers become gpu.launch ops whose
// bodies use target-neutral dialects (gpu, vector, memref, arith, math,
// scf), plus what a vendor's GPUTargetHooks builds where upstream has no
// neutral op (the device fence, the attention kernel's matrix unit). The
// neutral part is the library SoftmaxGPUMapping; the vendor ends are
// SoftmaxGPUNVVM and SoftmaxGPUROCDL; SoftmaxToGPU (the pass and the
// pattern set) links all three.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_SOFTMAXTOGPU_H
#define SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_SOFTMAXTOGPU_H

#include "mlir/IR/PatternMatch.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Utils/OptionRange.h"
#include <optional>
#include <string>

namespace mlir::softmax {

/// Which end implements GPUTargetHooks for a target (getGPUTargetHooks).
enum class GPUVendor { NVIDIA, AMD };

class GPUTargetHooks; // GPUTargetHooks.h

/// What the mapping needs to know about the target.
struct GPUTarget {
  std::string chip;
  GPUVendor vendor = GPUVendor::NVIDIA;
  /// Threads that execute in lockstep and can shuffle: 32 on NVIDIA, 64 on
  /// CDNA (gfx90a, gfx942).
  int64_t warpSize = 32;
  /// Streaming multiprocessors / compute units.
  int64_t multiprocessors = 132;
  int64_t maxThreadsPerBlock = 1024;
  /// Shared memory (LDS) one block may use, opt-in limit included.
  int64_t maxSharedMemoryPerBlock = 48 * 1024;
  /// The tensor-memory accelerator (NVIDIA sm_90+): bulk tensor copies
  /// through a tensor map, completing on an mbarrier.
  bool tensorMapCopies = false;
  /// Warpgroup matrix products (wgmma, sm_90a only: PTX offers them to the
  /// arch-specific target, not to sm_90's forward-compatible one).
  bool warpgroupMma = false;
  /// The most blocks of a thread-block cluster (NVIDIA sm_90+: 8 portable,
  /// 16 with the non-portable size the runtime allows); 0: no clusters.
  int64_t maxClusterBlocks = 0;
};

/// Looks up sm_80, sm_90, sm_90a, gfx90a or gfx942.
std::optional<GPUTarget> lookupGPUTarget(StringRef chip);

/// The end of `vendor`: getNVVMTargetHooks or getROCDLTargetHooks
/// (defined in SoftmaxToGPU, which links both ends).
const GPUTargetHooks &getGPUTargetHooks(GPUVendor vendor);

/// How one reduction is spread over the GPU. As the mapping's
/// `overrides`, 0 leaves a field to the heuristic. The typed form is
/// #softmax.gpu_strategy (getGPUStrategyAttr, applyGPUStrategyAttr).
struct GPUStrategy {
  /// Threads that cooperate on one row (a power of two).
  int64_t threadsPerRow = 0;
  /// Rows per block (more than one only when threadsPerRow <= warpSize).
  int64_t rowsPerBlock = 1;
  /// Elements per load and store (at most 16 bytes).
  int64_t vectorWidth = 1;
  /// Vectors each thread keeps in registers between reading the row and
  /// writing it; 0 streams the row from memory twice.
  int64_t cachedVectors = 0;
  /// Streamed rows (cachedVectors 0): vectors each thread loads per
  /// iteration, all issued before any is used, so that a thread has that
  /// many loads in flight instead of one.
  int64_t unroll = 1;
  /// Blocks that share one row (more than one: each block folds a chunk,
  /// publishes its state, and the blocks of the row merge all states).
  int64_t splits = 1;
  /// How the blocks of a split row merge their states (splits > 1): in
  /// global memory (the default) or as one thread-block cluster through
  /// its distributed shared memory. As an override, unset leaves it to the
  /// heuristic.
  std::optional<SplitMerge> splitMerge;
  /// Rows read again from memory (streamed softmax and log_softmax, or
  /// three_pass): the direction of the passes after the first. Reverse
  /// runs the second pass from the row's end, where the bytes the first
  /// pass read last may still be in L2. Unset where the row is not read
  /// again; as an override, unset leaves it to the heuristic.
  std::optional<RereadOrder> reread;

  /// Whether the row is split and its blocks merge within a cluster.
  bool mergesInCluster() const {
    return splits > 1 && splitMerge == SplitMerge::Cluster;
  }
};

/// Whether a row of `rowLength` is peeled in vectors of `vectorWidth`: its
/// length is not a multiple of the width, so it is read from the aligned
/// address at or before its start, its first and last vectors masked.
inline bool isPeeledRow(int64_t vectorWidth, int64_t rowLength) {
  return rowLength % vectorWidth != 0;
}

/// The elements a row of `rowLength` spans in aligned vectors of
/// `vectorWidth`: a peeled row may span vectorWidth - 1 elements more than
/// it holds.
inline int64_t rowSpan(int64_t vectorWidth, int64_t rowLength) {
  return isPeeledRow(vectorWidth, rowLength) ? rowLength + vectorWidth - 1
                                             : rowLength;
}

/// The elements of a row that one block of a split row folds: what its
/// threads cache, or (streamed, cachedVectors 0) the row's vectors shared
/// out over the splits. The kernel computes the same from the row length.
int64_t splitChunkElements(const GPUStrategy &s, int64_t rowLength);

/// The values each strategy field accepts as an override (0: the
/// heuristic's), from softmax-map-to-gpu's options, a #softmax.gpu_strategy
/// request or the C++ overrides alike. Cached vectors are registers: 64
/// vectors of 16 bytes are 256 32-bit registers, more than a thread has
/// (255). Splits: one warp merges a row's states (32 lanes on NVIDIA, 64
/// on CDNA).
inline constexpr OptionRange kGPUThreadsPerRowRange{
    "threads-per-row", 1, 1024, /*powerOfTwo=*/true, "the heuristic's"};
inline constexpr OptionRange kGPURowsPerBlockRange{
    "rows-per-block", 1, 1024, /*powerOfTwo=*/true, "the heuristic's"};
inline constexpr OptionRange kGPUVectorWidthRange{
    "vector-width", 1, 16, /*powerOfTwo=*/true, "the heuristic's"};
inline constexpr OptionRange kGPUCachedVectorsRange{
    "cached-vectors", 1, 64, /*powerOfTwo=*/false, "the heuristic's"};
inline constexpr OptionRange kGPUUnrollRange{
    "unroll", 1, 16, /*powerOfTwo=*/false, "the heuristic's"};
inline constexpr OptionRange kGPUSplitsRange{
    "splits", 1, 64, /*powerOfTwo=*/false, "the heuristic's"};

/// The heuristic of docs/Passes/softmax-map-to-gpu.md: from the target, the
/// row length (if static), the row count (if static), the element size,
/// whether the kernel reads each row once (`readsOnce`: logsumexp other
/// than three_pass, which writes no row and so keeps none in registers) and
/// whether its fold carries exponent pairs (`pairStates`: exp_pair, two
/// values an element).
GPUStrategy chooseGPUStrategy(const GPUTarget &target,
                              std::optional<int64_t> rowLength,
                              std::optional<int64_t> rows,
                              unsigned elementBytes, bool readsOnce = false,
                              bool pairStates = false);

/// Rewrites one softmax, log_softmax or logsumexp op on memrefs into GPU
/// kernels. Fields of `overrides` that are non-zero replace the heuristic's
/// choice, and a #softmax.gpu_strategy request on the op
/// (SoftmaxDialect::getStrategyAttrName()) replaces those: that is how a
/// host compiler or a transform passes a typed strategy for one op. The
/// strategy used is recorded on the launch. Emits a diagnostic and fails on
/// what the mapping cannot honour.
LogicalResult mapSoftmaxOpToGPU(RewriterBase &rewriter, Operation *op,
                                const GPUTarget &target,
                                const GPUTargetHooks &hooks,
                                const GPUStrategy &overrides);

/// The record of a strategy: every field of `s`.
GPUStrategyAttr getGPUStrategyAttr(MLIRContext *ctx, const GPUStrategy &s);

/// `base` with every parameter `attr` gives replacing its field. In the
/// attribute `cached_vectors = 0` is a value (stream the row twice), which
/// the 0-means-unset `overrides` of mapSoftmaxOpToGPU cannot say: ask for
/// it through the op's attribute.
GPUStrategy applyGPUStrategyAttr(GPUStrategy base, GPUStrategyAttr attr);

/// How softmax.attention on f32 inputs uses the tf32 tensor cores
/// (NVIDIA only; docs/Attention.md, "f32 inputs").
enum class AttentionF32Precision {
  /// 3xTF32: each f32 operand split into a tf32 part and a remainder, three
  /// mma.sync m16n8k8 products per tile (hi*hi + hi*lo + lo*hi); within
  /// 1e-5 of float64, the default.
  Exact,
  /// One tf32 product per tile: about 1e-3 of float64, asked for only.
  TF32,
};

/// Parses "exact" or "tf32".
std::optional<AttentionF32Precision> parseAttentionF32Precision(StringRef s);

/// How softmax.attention is spread over the GPU; 0 leaves a field to the
/// mapping's measured choice (docs/Attention.md, "GPU lowering"). The typed
/// form is #softmax.attention_gpu_strategy (applyAttentionGPURequest).
struct AttentionGPUStrategy {
  /// Query rows per warp: 16 or 32 (NVIDIA; each K and V fragment read
  /// from shared memory then feeds two mma), 16 on CDNA.
  int64_t rowsPerWarp = 0;
  /// Shared-memory buffers per K/V tile: 1, or 2 (NVIDIA only: the next
  /// tile is copied while the current one is used).
  int64_t buffers = 0;
  /// f32 inputs only: exact (3xTF32) or tf32.
  AttentionF32Precision f32Precision = AttentionF32Precision::Exact;
  /// Blocks that share one query tile's keys (split-KV): each folds a key
  /// range into f32 partials, a second kernel merges them
  /// (chooseAttentionKeySplits over the multiprocessors when 0).
  int64_t keySplits = 0;
  /// Query heads of one KV head run as one query tile (GQA packing); 0
  /// packs all of them when the op has no mask, window or threshold and
  /// its query rows fill less than a block.
  int64_t packedHeads = 0;
  /// Stream-K (LeanAttention): blocks per query-head group that cut the
  /// key tiles of the whole batch into equal chunks, each folding the
  /// pieces of the entries its chunk crosses into f32 partials that a
  /// second kernel merges. 0: the mapping's choice (stream-K for ragged
  /// decode, planStreamK); plain split-KV is asked for with keySplits.
  int64_t streamK = 0;
  /// How K/V tiles reach shared memory; unset: the mapping's choice (TMA
  /// for dense decode on sm_90+, cp.async elsewhere).
  std::optional<TileCopy> tileCopy;
  /// When a thresholded kernel on TMA tiles requests V of a key tile
  /// (SkipValues); unset: after the vote.
  std::optional<SkipValues> skipValues;
  /// Whether S = Q K^T runs on warpgroup products (sm_90a); unset: where
  /// the kernel's shape allows them (AttentionMmaConfig::warpgroupScores).
  std::optional<bool> warpgroupScores;
};

/// Rewrites one softmax.attention on memrefs into a FlashAttention-2-style
/// gpu.launch on the target's matrix units: mma.sync with ldmatrix and
/// cp.async on NVIDIA sm_80+, 16x16x16 MFMA on CDNA (gfx90a, gfx942).
/// Needs f16/bf16 inputs (or f32 on NVIDIA: mma.sync m16n8k8 on tf32
/// parts, `AttentionF32Precision`) and static head dimensions that are
/// multiples of 16 (at most 256). A #softmax.attention_gpu_strategy request
/// on the op replaces `overrides` (applyAttentionGPURequest); the strategy
/// used is recorded on the launch. Emits a diagnostic and fails on what it
/// cannot honour.
LogicalResult mapAttentionOpToGPU(RewriterBase &rewriter, AttentionOp op,
                                  const GPUTarget &target,
                                  const GPUTargetHooks &hooks,
                                  const AttentionGPUStrategy &overrides = {});

/// Rewrites one softmax.topk on memrefs into one gpu.launch: a block of 256
/// threads per row reads the row once in 16-byte loads (where the width
/// divides a static row length), keeps the online (m, l) and a candidate
/// buffer of k plus one step (rounded up to a power of two) in workgroup
/// memory, sorted by a bitonic network whenever a step could overflow it
/// (docs/TopK.md). Emits a diagnostic and fails on what it cannot honour:
/// the tensor form, a k whose buffer exceeds the target's workgroup memory,
/// rows of 2^31 - 1 elements or more.
LogicalResult mapTopKOpToGPU(RewriterBase &rewriter, TopKOp op,
                             const GPUTarget &target);

/// Rewrites one softmax.linear_cross_entropy on memrefs into three
/// gpu.launch ops (docs/CrossEntropy.md, "GPU kernel"): tiles of tokens by
/// ranges of classes multiplied on the matrix unit (hooks.makeTileMma) and
/// folded into online states, a thread per token merging the ranges into
/// lse and the loss, and for sum and mean one block adding the losses. The
/// classes are cut into `vocabSplits` ranges, or the balance model's count
/// when 0. Emits a diagnostic and fails on what it cannot honour: the
/// tensor form, a dynamic or unaligned hidden size, an element type or
/// target without a matrix-unit kernel.
LogicalResult mapLinearCrossEntropyOpToGPU(RewriterBase &rewriter,
                                           LinearCrossEntropyOp op,
                                           const GPUTarget &target,
                                           const GPUTargetHooks &hooks,
                                           int64_t vocabSplits = 0);

/// Rewrites one softmax.linear_cross_entropy_grad on memrefs into
/// gpu.launch ops (docs/CrossEntropy.md, "GPU kernel (backward)"): the token
/// weights, a block per 128 x 128 tile recomputing its logits and du on the
/// matrix unit, filtering it or adding du W and du^T h into f32
/// accumulators, and the accumulators rounded into the inits. Emits a
/// diagnostic and fails on what it cannot honour: the tensor form, a
/// dynamic or unaligned hidden size, an element type or target without a
/// kernel, a named filter tile other than the kernel's.
LogicalResult mapLinearCrossEntropyGradOpToGPU(RewriterBase &rewriter,
                                               LinearCrossEntropyGradOp op,
                                               const GPUTarget &target,
                                               const GPUTargetHooks &hooks);

struct SoftmaxMapToGPUOptions; // Conversion/Passes.h

/// The target and strategy overrides the GPU mapping runs with.
struct GPUMapping {
  GPUTarget target;
  /// The end of target.vendor (getGPUTargetHooks).
  const GPUTargetHooks *hooks = nullptr;
  /// softmax, log_softmax and logsumexp: overrides, every field 0 (the
  /// heuristic's) unless set; GPUStrategy's own defaults are a strategy's.
  GPUStrategy softmax{/*threadsPerRow=*/0,
                      /*rowsPerBlock=*/0,
                      /*vectorWidth=*/0,
                      /*cachedVectors=*/0,
                      /*unroll=*/0,
                      /*splits=*/0,
                      /*splitMerge=*/std::nullopt,
                      /*reread=*/std::nullopt};
  AttentionGPUStrategy attention;
  /// softmax.linear_cross_entropy: the class ranges (0: the balance model's).
  int64_t crossEntropyVocabSplits = 0;
};

/// The options of softmax-map-to-gpu (the same struct builds the mapping of
/// transform.softmax.map_to_gpu) as a mapping: the chip's target and the
/// strategy fields the options fix (0 leaves a field to the heuristic).
/// Reports the first invalid value through `emitError` and fails.
FailureOr<GPUMapping>
getGPUMappingFromOptions(const SoftmaxMapToGPUOptions &options,
                         function_ref<InFlightDiagnostic()> emitError);

/// Maps one softmax, log_softmax, logsumexp (mapSoftmaxOpToGPU), attention
/// (mapAttentionOpToGPU), topk (mapTopKOpToGPU), linear_cross_entropy
/// (mapLinearCrossEntropyOpToGPU) or linear_cross_entropy_grad op
/// (mapLinearCrossEntropyGradOpToGPU) on memrefs.
LogicalResult mapOpToGPU(RewriterBase &rewriter, Operation *op,
                         const GPUMapping &mapping);

/// Patterns rewriting softmax, log_softmax, logsumexp and attention on
/// memrefs into gpu.launch ops by `mapping` (mapOpToGPU). An op the mapping
/// cannot honour gets its diagnostic and the pattern fails, leaving it in
/// place. Meant for a single walk (walkAndApplyPatterns), as
/// softmax-map-to-gpu applies them: the greedy driver would retry a failed
/// op and repeat its diagnostic. `mapping` must outlive the patterns, and
/// the dialects softmax-map-to-gpu declares (Passes.td) must be loaded.
void populateSoftmaxToGPUPatterns(RewritePatternSet &patterns,
                                  const GPUMapping &mapping);

/// The matrix instruction of the attention kernel: m16n8k16 for f16/bf16 on
/// NVIDIA, m16n8k8.tf32x3 or .tf32 for f32 there (`precision`),
/// mfma16x16x16 on CDNA.
MatrixInstruction
getAttentionMatrixInstruction(const GPUTarget &target, Type elementType,
                              AttentionF32Precision precision);

/// `overrides` with the op's #softmax.attention_gpu_strategy request
/// applied (`mma` choosing the f32 precision, `rows_per_warp`, `buffers`),
/// or a diagnostic on the op when it cannot be honoured: another kind of
/// strategy, an instruction the chip and element type do not run, or the
/// derived `rows_per_block` and `keys_per_tile`.
FailureOr<AttentionGPUStrategy>
applyAttentionGPURequest(AttentionOp op, const GPUTarget &target,
                         AttentionGPUStrategy overrides);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_SOFTMAXTOGPU_H
