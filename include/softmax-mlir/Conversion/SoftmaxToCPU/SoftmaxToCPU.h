//===- SoftmaxToCPU.h - map softmax ops onto vector loops -------*- C++ -*-===//
//
// The CPU mapping: softmax ops on buffers become an scf.parallel over rows
// whose body folds each row with vector loads, a vector exp and per-lane
// states (vector, memref, scf, arith, math only). Upstream passes take it
// from there to OpenMP (threads) and LLVM (native vector width).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_CONVERSION_SOFTMAXTOCPU_SOFTMAXTOCPU_H
#define SOFTMAX_MLIR_CONVERSION_SOFTMAXTOCPU_SOFTMAXTOCPU_H

#include "mlir/IR/PatternMatch.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Utils/OptionRange.h"
#include <optional>
#include <string>

namespace mlir::softmax {

/// What the mapping needs to know about the CPU.
struct CPUTarget {
  /// Width of the widest vector registers, in bits (512 with AVX-512, 256
  /// with AVX2, 128 with SSE or NEON).
  int64_t vectorBits = 256;
  int64_t l1Bytes = 32 * 1024;
  int64_t l2Bytes = 1024 * 1024;
};

/// The machine the compiler runs on: vector width from LLVM's host feature
/// detection, cache sizes from the C library where it reports them.
CPUTarget hostCPUTarget();

// ThreePassVariant (SoftmaxAttrs.td, the dialect's enums): how three_pass
// sweeps the row: max, sum, output in three sweeps with the output pass
// recomputing exp(x - max) or reloading it (stored to the output by the sum
// pass); or tiled: max and sum of each L1-sized block back to back (the
// second reads the block from L1), block states merged, then the output
// sweep. Auto: the heuristic's.
//
// VectorExp (SoftmaxAttrs.td): the expansion of the kernels' vector
// math.exp: VectorMath::fastExp, or upstream's polynomial approximation
// (populateMathPolynomialApproximationPatterns for exp: it also covers
// overflow and infinities, which softmax's arguments x - max <= 0 never
// need).

/// How one reduction is spread over vector lanes. As the mapping's
/// `overrides`, 0 (Auto) leaves a field to the heuristic. The typed form is
/// #softmax.cpu_strategy (getCPUStrategyAttr, applyCPUStrategyAttr).
struct CPUStrategy {
  /// f32 lanes per vector.
  int64_t vectorWidth = 0;
  /// Vectors folded per loop iteration, into as many accumulators.
  int64_t unroll = 0;
  /// Loop iterations whose sums accumulate from zero before they are added
  /// (compensated) to the row's sum: short f32 sums keep the error of the
  /// row's sum at a few ulps whatever its length.
  int64_t block = 0;
  /// three_pass only: see ThreePassVariant.
  ThreePassVariant threePass = ThreePassVariant::Auto;
  /// How the kernels' vector math.exp is expanded (expandVectorExp).
  VectorExp exp = VectorExp::Fast;
};

/// The values each strategy field accepts as an override (0: the
/// heuristic's or the host's), from softmax-map-to-cpu's options, a
/// #softmax.cpu_strategy request or the C++ overrides alike. A block of
/// 65536 iterations already sums 2^20 elements at width 16 before its
/// compensated add; larger blocks gain nothing and overflowed the index
/// arithmetic (2^60 wrote zeros).
inline constexpr OptionRange kCPUVectorWidthRange{
    "vector-width", 1, 64, /*powerOfTwo=*/true, "the host's width"};
inline constexpr OptionRange kCPUUnrollRange{"unroll", 1, 16, false,
                                             "the heuristic's"};
inline constexpr OptionRange kCPUBlockRange{"block", 1, 65536, false,
                                            "the heuristic's"};
inline constexpr OptionRange kCPUCacheBytesRange{"cache size", 1,
                                                 int64_t(1) << 40, false,
                                                 "the host's"};

/// The heuristic of docs/Passes/softmax-map-to-cpu.md, from the target and
/// the row length in bytes (input plus output) if static.
CPUStrategy chooseCPUStrategy(const CPUTarget &target,
                              std::optional<int64_t> rowBytes);

/// `s` with every field `overrides` fixes (vector width, unroll, block:
/// non-zero; three_pass: not auto; exp) replacing its own.
CPUStrategy applyCPUOverrides(CPUStrategy s, const CPUStrategy &overrides);

/// A diagnostic on `op` for a vector width, unroll or block the CPU
/// kernels cannot take.
LogicalResult checkCPUStrategy(Operation *op, const CPUStrategy &s);

/// Why `op` cannot be mapped to CPU vector loops, or nullopt when it can.
/// The mapping takes bufferized softmax, log_softmax and logsumexp ops on
/// identity-layout memrefs of f16, bf16 or f32 with f32 accumulation, along
/// any dimension. A buffer reduced along its last dimension may be rows of
/// a larger one (any outer strides, unit stride along the row; a
/// logsumexp's output any strides), as may softmax.topk's buffers.
/// `requireBuffers` false asks the question before bufferization.
std::optional<std::string> whyNotMappableToCPU(Operation *op,
                                               bool requireBuffers = true);

/// Rewrites one softmax, log_softmax or logsumexp op on memrefs into vector
/// loops. Non-zero (non-Auto) fields of `overrides` replace the heuristic's
/// choice, and a #softmax.cpu_strategy request on the op
/// (SoftmaxDialect::getStrategyAttrName()) replaces those: that is how a
/// host compiler or a transform passes a typed strategy for one op. The
/// strategy used is recorded on the loop. Emits a diagnostic and fails on
/// what the mapping cannot honour.
LogicalResult mapSoftmaxOpToCPU(RewriterBase &rewriter, Operation *op,
                                const CPUTarget &target,
                                const CPUStrategy &overrides);

/// The record of a strategy: every field of `s` that applies to `algorithm`
/// (three_pass only for three_pass), with the algorithm.
CPUStrategyAttr getCPUStrategyAttr(MLIRContext *ctx, Algorithm algorithm,
                                   const CPUStrategy &s);

/// `base` with every parameter `attr` gives replacing its field (`algorithm`
/// is not a field: the op's decides). applyCPUStrategyAttr({}, attr) is the
/// request as `overrides`.
CPUStrategy applyCPUStrategyAttr(CPUStrategy base, CPUStrategyAttr attr);

/// Why `op` cannot be mapped to CPU vector loops, or nullopt when it can:
/// memrefs with identity layouts and static head dimensions of at most 512.
std::optional<std::string> whyNotMappableToCPU(AttentionOp op);

/// Rewrites one softmax.attention on memrefs into an scf.parallel over
/// query rows, each visiting its keys in blocks of the vector width with
/// the online state carried (docs/Attention.md). `overrides.vectorWidth`,
/// when not 0, replaces the target's width, and a
/// #softmax.attention_cpu_strategy request on the op replaces that.
LogicalResult mapAttentionOpToCPU(RewriterBase &rewriter, AttentionOp op,
                                  const CPUTarget &target,
                                  const CPUStrategy &overrides);

/// Rewrites one softmax.topk on memrefs into an scf.parallel over rows,
/// each read once: the online (m, l) in vector loops and, per vector, the
/// candidates above the k-th kept value inserted into a heap of k
/// (docs/TopK.md, "The CPU kernel"). `overrides` as for mapSoftmaxOpToCPU;
/// the op takes no strategy request.
LogicalResult mapTopKOpToCPU(RewriterBase &rewriter, TopKOp op,
                             const CPUTarget &target,
                             const CPUStrategy &overrides);

struct SoftmaxMapToCPUOptions; // Conversion/Passes.h

/// The target and strategy overrides the CPU mapping runs with.
struct CPUMapping {
  CPUTarget target;
  CPUStrategy overrides;
};

/// The options of softmax-map-to-cpu (the same struct builds the mapping of
/// transform.softmax.map_to_cpu) as a mapping: the host's target with the
/// cache sizes the options give, and the strategy fields they fix (0 and
/// auto leave a field to the heuristic). Reports the first invalid value
/// through `emitError` and fails.
FailureOr<CPUMapping>
getCPUMappingFromOptions(const SoftmaxMapToCPUOptions &options,
                         function_ref<InFlightDiagnostic()> emitError);

/// Maps one softmax, log_softmax, logsumexp (mapSoftmaxOpToCPU),
/// attention (mapAttentionOpToCPU) or topk op (mapTopKOpToCPU) on memrefs.
LogicalResult mapOpToCPU(RewriterBase &rewriter, Operation *op,
                         const CPUMapping &mapping);

/// Patterns rewriting softmax, log_softmax, logsumexp and attention on
/// memrefs into vector loops by `mapping` (mapOpToCPU). An op the mapping
/// cannot honour gets its diagnostic and the pattern fails, leaving it in
/// place. Meant for a single walk (walkAndApplyPatterns), as
/// softmax-map-to-cpu applies them: the greedy driver would retry a failed
/// op and repeat its diagnostic. `mapping` must outlive the patterns, and
/// the dialects softmax-map-to-cpu declares (Passes.td) must be loaded.
void populateSoftmaxToCPUPatterns(RewritePatternSet &patterns,
                                  const CPUMapping &mapping);

/// Patterns rewriting LLVM dialect ops that LLVM 22's x86 backend cannot
/// select into equivalent ones (softmax-cpu-legalize-llvm, Passes.td):
/// today a bf16 masked store, which stores its bits as i16.
void populateCPULegalizeLLVMPatterns(RewritePatternSet &patterns);

/// `overrides` with the op's #softmax.attention_cpu_strategy request
/// applied, or a diagnostic on the op when it cannot be honoured (another
/// kind of strategy, keys_per_block other than the vector width).
FailureOr<CPUStrategy> applyAttentionCPURequest(AttentionOp op,
                                                const CPUTarget &target,
                                                CPUStrategy overrides);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_CONVERSION_SOFTMAXTOCPU_SOFTMAXTOCPU_H
