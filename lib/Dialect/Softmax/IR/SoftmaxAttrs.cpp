//===- SoftmaxAttrs.cpp - strategy attribute verifiers -------------------===//
//
// What a strategy attribute promises on its own (positive sizes, powers of
// two, no `auto`); what depends on the op, the shape or the chip (a vector
// width dividing the row, threads per block) the mappings check.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::softmax;

#define GET_ATTRDEF_CLASSES
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxAttrs.cpp.inc"

void SoftmaxDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxAttrs.cpp.inc"
      >();
}

namespace {
/// The checks on one optional size parameter, with the parameter's name in
/// every message.
struct SizeCheck {
  function_ref<InFlightDiagnostic()> emitError;
  StringRef name;
  std::optional<int64_t> value;

  LogicalResult inRange(int64_t lo, int64_t hi) const {
    if (value && (*value < lo || *value > hi))
      return emitError() << name << " must be in [" << lo << ", " << hi
                         << "], got " << *value;
    return success();
  }
  LogicalResult atLeast(int64_t lo) const {
    if (value && *value < lo)
      return emitError() << name << " must be at least " << lo << ", got "
                         << *value;
    return success();
  }
  LogicalResult powerOfTwo(int64_t hi = 0) const {
    if (value &&
        (*value < 1 || !llvm::isPowerOf2_64(*value) || (hi && *value > hi))) {
      InFlightDiagnostic diag = emitError();
      diag << name << " must be a power of two";
      if (hi)
        diag << " in [1, " << hi << "]";
      return diag << ", got " << *value;
    }
    return success();
  }
  LogicalResult oneOf(ArrayRef<int64_t> allowed) const {
    if (value && !llvm::is_contained(allowed, *value)) {
      InFlightDiagnostic diag = emitError();
      diag << name << " must be ";
      llvm::interleave(allowed, diag, " or ");
      return diag << ", got " << *value;
    }
    return success();
  }
};
} // namespace

// The CPU mapping's lanes are a power of two up to 64 (a 2048-bit vector of
// f32), its unroll at most 16 accumulators (SoftmaxToCPU.cpp).
LogicalResult CPUStrategyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    std::optional<Algorithm> algorithm, std::optional<int64_t> vectorWidth,
    std::optional<int64_t> unroll, std::optional<int64_t> block,
    std::optional<ThreePassVariant> threePass, std::optional<VectorExp>) {
  if (algorithm == Algorithm::Auto)
    return emitError() << "algorithm must be three_pass, online or exp_pair, "
                          "not auto (leave it out to keep the op's)";
  if (failed(
          SizeCheck{emitError, "vector_width", vectorWidth}.powerOfTwo(64)) ||
      failed(SizeCheck{emitError, "unroll", unroll}.inRange(1, 16)) ||
      failed(SizeCheck{emitError, "block", block}.atLeast(1)))
    return failure();
  if (threePass == ThreePassVariant::Auto)
    return emitError() << "three_pass must be recompute, reload or tiled, not "
                          "auto (leave it out for the heuristic's)";
  if (threePass && algorithm && *algorithm != Algorithm::ThreePass)
    return emitError() << "three_pass applies to algorithm three_pass only, "
                          "not "
                       << stringifyAlgorithm(*algorithm);
  return success();
}

// Threads per row must be a power of two for the xor-shuffle merge. The
// vector width need only divide the row length, which the mapping checks
// (SoftmaxToGPU.cpp). Cached vectors may be 0: the row is streamed.
LogicalResult GPUStrategyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    std::optional<int64_t> threadsPerRow, std::optional<int64_t> rowsPerBlock,
    std::optional<int64_t> vectorWidth, std::optional<int64_t> cachedVectors,
    std::optional<int64_t> unroll, std::optional<int64_t> splits,
    std::optional<SplitMerge> splitMerge, std::optional<RereadOrder> reread) {
  return success(
      succeeded(SizeCheck{emitError, "threads_per_row", threadsPerRow}
                    .powerOfTwo()) &&
      succeeded(
          SizeCheck{emitError, "rows_per_block", rowsPerBlock}.atLeast(1)) &&
      succeeded(SizeCheck{emitError, "vector_width", vectorWidth}.atLeast(1)) &&
      succeeded(
          SizeCheck{emitError, "cached_vectors", cachedVectors}.atLeast(0)) &&
      succeeded(SizeCheck{emitError, "unroll", unroll}.inRange(1, 16)) &&
      succeeded(SizeCheck{emitError, "splits", splits}.atLeast(1)));
}

LogicalResult
AttentionCPUStrategyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 std::optional<int64_t> vectorWidth,
                                 std::optional<int64_t> keysPerBlock) {
  if (failed(
          SizeCheck{emitError, "vector_width", vectorWidth}.powerOfTwo(64)) ||
      failed(
          SizeCheck{emitError, "keys_per_block", keysPerBlock}.powerOfTwo(64)))
    return failure();
  if (vectorWidth && keysPerBlock && *vectorWidth != *keysPerBlock)
    return emitError() << "keys_per_block (" << *keysPerBlock
                       << ") must equal vector_width (" << *vectorWidth
                       << "): the CPU kernel scores one key per lane";
  return success();
}

// The kernels' shapes (AttentionToGPU.cpp): 16 or 32 query rows per warp,
// one to three K/V buffers; CDNA's MFMA end takes 16 rows and one buffer.
LogicalResult AttentionGPUStrategyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    std::optional<MatrixInstruction> mma, std::optional<int64_t> rowsPerWarp,
    std::optional<int64_t> rowsPerBlock, std::optional<int64_t> keysPerTile,
    std::optional<int64_t> buffers, std::optional<int64_t> keySplits,
    std::optional<int64_t> packedHeads, std::optional<int64_t> streamK,
    std::optional<TileCopy> tileCopy, std::optional<SkipValues> skipValues) {
  if (failed(
          SizeCheck{emitError, "rows_per_warp", rowsPerWarp}.oneOf({16, 32})) ||
      failed(SizeCheck{emitError, "key_splits", keySplits}.inRange(1, 1024)) ||
      failed(SizeCheck{emitError, "packed_heads", packedHeads}.atLeast(1)) ||
      failed(SizeCheck{emitError, "stream_k", streamK}.inRange(1, 4096)) ||
      failed(SizeCheck{emitError, "buffers", buffers}.inRange(1, 3)) ||
      failed(SizeCheck{emitError, "rows_per_block", rowsPerBlock}.atLeast(1)) ||
      failed(SizeCheck{emitError, "keys_per_tile", keysPerTile}.powerOfTwo()))
    return failure();
  if (rowsPerWarp && rowsPerBlock && *rowsPerBlock % *rowsPerWarp)
    return emitError() << "rows_per_block (" << *rowsPerBlock
                       << ") must be a multiple of rows_per_warp ("
                       << *rowsPerWarp << ")";
  if (mma == MatrixInstruction::Mfma16x16x16 &&
      ((rowsPerWarp && *rowsPerWarp != 16) || (buffers && *buffers != 1)))
    return emitError() << "mfma16x16x16 (CDNA) runs 16 rows per warp and one "
                          "buffer";
  if (tileCopy == TileCopy::Tma &&
      ((buffers && *buffers != 2) || mma == MatrixInstruction::Mfma16x16x16))
    return emitError() << "tile_copy = tma (NVIDIA sm_90) runs two buffers "
                          "per tile";
  // V with K is the two-buffer TMA schedule of the dense kernel.
  if (skipValues == SkipValues::WithKeys &&
      ((buffers && *buffers != 2) || tileCopy == TileCopy::CpAsync ||
       mma == MatrixInstruction::Mfma16x16x16))
    return emitError() << "skip_values = with_keys runs on TMA tiles (NVIDIA "
                          "sm_90, two buffers per tile)";
  return success();
}

// The fused linear cross-entropy's logit kernel (CrossEntropyToGPU.cpp).
LogicalResult CrossEntropyGPUStrategyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    std::optional<MatrixInstruction> mma, std::optional<int64_t> rowsPerBlock,
    std::optional<int64_t> classesPerTile, std::optional<int64_t> kTile,
    std::optional<int64_t> stages, std::optional<int64_t> vocabSplits) {
  if (failed(SizeCheck{emitError, "rows_per_block", rowsPerBlock}.atLeast(1)) ||
      failed(SizeCheck{emitError, "classes_per_tile", classesPerTile}.atLeast(
          1)) ||
      failed(SizeCheck{emitError, "k_tile", kTile}.powerOfTwo()) ||
      failed(SizeCheck{emitError, "stages", stages}.inRange(1, 4)) ||
      failed(
          SizeCheck{emitError, "vocab_splits", vocabSplits}.inRange(1, 4096)))
    return failure();
  return success();
}

LogicalResult SoftmaxDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  if (attr.getName() != getStrategyAttrName())
    return op->emitError() << "'" << attr.getName().strref()
                           << "' is not an attribute of the softmax dialect "
                              "(a strategy is '"
                           << getStrategyAttrName() << "')";
  Attribute value = attr.getValue();
  if (!isa<CPUStrategyAttr, GPUStrategyAttr, AttentionCPUStrategyAttr,
           AttentionGPUStrategyAttr, CrossEntropyGPUStrategyAttr>(value))
    return op->emitError() << "'" << getStrategyAttrName()
                           << "' must be a strategy attribute, not " << value;
  // On a semantic op it is a request, which must be for that op's mapping.
  if (isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp>(op) &&
      !isa<CPUStrategyAttr, GPUStrategyAttr>(value))
    return op->emitOpError()
           << "takes a #softmax.cpu_strategy or #softmax.gpu_strategy as '"
           << getStrategyAttrName() << "', not " << value;
  if (isa<CrossEntropyGPUStrategyAttr>(value) &&
      isa<SoftmaxDialect>(op->getDialect()))
    return op->emitOpError()
           << "takes no #softmax.cross_entropy_gpu_strategy request (it "
              "records a mapping; cross-entropy-vocab-splits chooses the "
              "splits)";
  if (isa<AttentionOp>(op) &&
      !isa<AttentionCPUStrategyAttr, AttentionGPUStrategyAttr>(value))
    return op->emitOpError() << "takes a #softmax.attention_cpu_strategy or "
                                "#softmax.attention_gpu_strategy as '"
                             << getStrategyAttrName() << "', not " << value;
  return success();
}
