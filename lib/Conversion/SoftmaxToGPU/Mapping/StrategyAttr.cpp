//===- StrategyAttr.cpp - GPU strategies <-> their typed attributes -------===//
//
// The C++ strategies stay the mapping's in-memory form; these convert them
// to and from #softmax.gpu_strategy and #softmax.attention_gpu_strategy,
// the spelling of a per-op request and of the record on a launch.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

using namespace mlir;
using namespace mlir::softmax;

GPUStrategyAttr mlir::softmax::getGPUStrategyAttr(MLIRContext *ctx,
                                                  const GPUStrategy &s) {
  // The unroll applies to streamed rows only, the merge to split rows.
  std::optional<int64_t> unroll;
  if (s.cachedVectors == 0)
    unroll = s.unroll;
  std::optional<SplitMerge> merge;
  if (s.splits > 1)
    merge = s.splitMerge.value_or(SplitMerge::Global);
  // The mapping leaves `reread` set only where the row is read again.
  return GPUStrategyAttr::get(ctx, s.threadsPerRow, s.rowsPerBlock,
                              s.vectorWidth, s.cachedVectors, unroll, s.splits,
                              merge, s.reread);
}

GPUStrategy mlir::softmax::applyGPUStrategyAttr(GPUStrategy base,
                                                GPUStrategyAttr attr) {
  if (std::optional<int64_t> v = attr.getThreadsPerRow())
    base.threadsPerRow = *v;
  if (std::optional<int64_t> v = attr.getRowsPerBlock())
    base.rowsPerBlock = *v;
  if (std::optional<int64_t> v = attr.getVectorWidth())
    base.vectorWidth = *v;
  if (std::optional<int64_t> v = attr.getCachedVectors())
    base.cachedVectors = *v;
  if (std::optional<int64_t> v = attr.getUnroll())
    base.unroll = *v;
  if (std::optional<int64_t> v = attr.getSplits())
    base.splits = *v;
  if (std::optional<SplitMerge> v = attr.getSplitMerge())
    base.splitMerge = *v;
  if (std::optional<RereadOrder> v = attr.getReread())
    base.reread = *v;
  return base;
}

MatrixInstruction
mlir::softmax::getAttentionMatrixInstruction(const GPUTarget &target,
                                             Type elementType,
                                             AttentionF32Precision precision) {
  if (target.vendor == GPUVendor::AMD)
    return MatrixInstruction::Mfma16x16x16;
  if (!elementType.isF32())
    return MatrixInstruction::M16n8k16;
  return precision == AttentionF32Precision::Exact
             ? MatrixInstruction::M16n8k8Tf32x3
             : MatrixInstruction::M16n8k8Tf32;
}

FailureOr<AttentionGPUStrategy>
mlir::softmax::applyAttentionGPURequest(AttentionOp op, const GPUTarget &target,
                                        AttentionGPUStrategy overrides) {
  Attribute request = op->getAttr(SoftmaxDialect::getStrategyAttrName());
  if (!request)
    return overrides;
  auto attr = dyn_cast<AttentionGPUStrategyAttr>(request);
  if (!attr)
    return op.emitOpError() << "asks for " << request
                            << "; the GPU mapping takes a "
                               "#softmax.attention_gpu_strategy";
  if (attr.getRowsPerBlock() || attr.getKeysPerTile())
    return op.emitOpError(
        "asks for rows_per_block or keys_per_tile, which the GPU mapping "
        "derives (warps per block, 64-key tiles); ask for rows_per_warp");
  if (std::optional<int64_t> v = attr.getRowsPerWarp())
    overrides.rowsPerWarp = *v;
  if (std::optional<int64_t> v = attr.getBuffers())
    overrides.buffers = *v;
  // A request for one of split-KV and stream-K replaces the pass's choice
  // of the other.
  if (std::optional<int64_t> v = attr.getKeySplits()) {
    overrides.keySplits = *v;
    if (!attr.getStreamK())
      overrides.streamK = 0;
  }
  if (std::optional<int64_t> v = attr.getPackedHeads())
    overrides.packedHeads = *v;
  if (std::optional<int64_t> v = attr.getStreamK()) {
    overrides.streamK = *v;
    if (!attr.getKeySplits())
      overrides.keySplits = 0;
  }
  if (std::optional<TileCopy> copy = attr.getTileCopy())
    overrides.tileCopy = *copy;
  if (std::optional<SkipValues> values = attr.getSkipValues())
    overrides.skipValues = *values;
  if (std::optional<MatrixInstruction> mma = attr.getMma()) {
    Type elt = cast<ShapedType>(op.getQuery().getType()).getElementType();
    if (*mma == MatrixInstruction::WgmmaM64nNk16 &&
        (!target.warpgroupMma || elt.isF32()))
      return op.emitOpError()
             << "asks for mma wgmma.m64nNk16, which runs on sm_90a with f16 "
                "or bf16 inputs (PTX offers wgmma to the arch-specific "
                "target only), not "
             << elt << " on " << target.chip;
    // sm_90a runs the scores of 16-bit inputs on either instruction.
    if (target.warpgroupMma && !elt.isF32() &&
        (*mma == MatrixInstruction::WgmmaM64nNk16 ||
         *mma == MatrixInstruction::M16n8k16)) {
      overrides.warpgroupScores = *mma == MatrixInstruction::WgmmaM64nNk16;
      return overrides;
    }
    // Only f32 on NVIDIA has a choice: the precision.
    if (*mma == MatrixInstruction::M16n8k8Tf32x3 ||
        *mma == MatrixInstruction::M16n8k8Tf32) {
      AttentionF32Precision precision = *mma == MatrixInstruction::M16n8k8Tf32x3
                                            ? AttentionF32Precision::Exact
                                            : AttentionF32Precision::TF32;
      if (getAttentionMatrixInstruction(target, elt, precision) == *mma)
        overrides.f32Precision = precision;
    }
    MatrixInstruction runs =
        getAttentionMatrixInstruction(target, elt, overrides.f32Precision);
    if (runs != *mma)
      return op.emitOpError()
             << "asks for mma " << stringifyMatrixInstruction(*mma) << ", but "
             << elt << " attention on " << target.chip << " runs "
             << stringifyMatrixInstruction(runs);
  }
  return overrides;
}
