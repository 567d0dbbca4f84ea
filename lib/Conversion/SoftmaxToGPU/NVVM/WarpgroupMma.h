//===- WarpgroupMma.h - sm_90a warpgroup products, shared -------*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU/NVVM: what the linear
// cross-entropy's logit tiles (TileWgmmaNVVM.cpp) and the attention
// kernel's scores (AttentionMmaNVVM.cpp) both build around
// wgmma.mma_async: the matrix descriptor of a 128-byte-swizzled K-major
// operand (the layout the tensor-memory accelerator's boxes land in,
// TensorMapTiles.h), the product itself, and the wait that hands the
// accumulators back to ordinary code.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_NVVM_WARPGROUPMMA_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_NVVM_WARPGROUPMMA_H

#include "mlir/IR/Builders.h"

namespace mlir::softmax::detail {

/// The i64 matrix descriptor of a K-major operand whose rows of 128 bytes
/// lie in 128-byte-swizzled atoms of 8 rows, starting at shared address
/// `address` (i64): start >> 4 in bits 0-13, the leading byte offset 16
/// (unused by swizzled K-major operands) >> 4 in 16-29, the stride between
/// 8-row atoms (1024 bytes) >> 4 in 32-45, swizzle mode 1 (128 bytes) in
/// 62-63. The k-th 16 columns of a row start 32 k bytes in (16-bit
/// elements): the hardware applies the swizzle to the computed addresses.
Value swizzledOperandDescriptor(OpBuilder &b, Location loc, Value address);

/// The f32 accumulator struct of wgmma m64nNk16 (N / 2 f32 a thread).
Type warpgroupAccumulatorType(OpBuilder &b, int64_t n);

/// acc + A B^T by wgmma.mma_async m64n`n`k16, both operands K-major in
/// shared memory (descriptors `descA`, `descB`), `elt` f16 or bf16.
Value warpgroupMma(OpBuilder &b, Location loc, Value acc, Value descA,
                   Value descB, int64_t n, Type elt);

/// Waits for every warpgroup product of the thread (wait_group 0) and
/// returns the accumulators, taken as the wait's operands: to LLVM the
/// products' inline PTX wrote them when it was issued, and NVVM's wait op
/// has no operands, so nothing else keeps their reads after the wait.
Value settleWarpgroupAccumulators(OpBuilder &b, Location loc, Value acc);

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_NVVM_WARPGROUPMMA_H
