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

/// The i64 matrix descriptor of an operand whose rows of 128 bytes lie in
/// 128-byte-swizzled atoms of 8 rows, starting at shared address `address`
/// (i64): start >> 4 in bits 0-13, the leading byte offset >> 4 in 16-29,
/// the stride between 8-row atoms (1024 bytes) >> 4 in 32-45, swizzle mode
/// 1 (128 bytes) in 62-63. A K-major operand's rows are its M (N) rows and
/// the leading offset is unused (16); the k-th 16 columns of a row start
/// 32 k bytes in (16-bit elements). An operand by inner rows (M- or
/// N-major: rows are K, each 64 M or N elements) takes `leadingBytes`, the
/// distance between its boxes of 64 M (N) elements. The hardware applies
/// the swizzle to the computed addresses.
Value swizzledOperandDescriptor(OpBuilder &b, Location loc, Value address,
                                int64_t leadingBytes = 16);

/// The f32 accumulator struct of wgmma m64nNk16 (N / 2 f32 a thread).
Type warpgroupAccumulatorType(OpBuilder &b, int64_t n);

/// The shared address (i64) `bytes` past the start of the workgroup
/// buffer `buffer`, as matrix descriptors take it.
Value sharedAddressI64(OpBuilder &b, Location loc, Value buffer, Value bytes);

/// acc + A B^T over `columns` inner columns (a multiple of 16) by one
/// wgmma.mma_async m64n`n`k16 per 16, from swizzled boxes of 64 x 64
/// elements starting at the shared addresses `aAt` and `bAt` (i64; a box
/// of A is `aBoxBytes` long, of B `bBoxBytes`). A K-major operand's k-th
/// 16 columns are in box k / 4, 32 (k % 4) bytes into each row; an operand
/// `byInner` (its boxes [64 inner rows][64 M or N], the product's
/// transposed form, 16-bit only) has its k-th 16 inner rows 2048 k bytes
/// in (`columns` at most 64), and its next 64 M (N) a box further on.
/// `elt` f16 or bf16. The caller fences before and commits after.
Value warpgroupMmaColumns(OpBuilder &b, Location loc, Value acc, Value aAt,
                          int64_t aBoxBytes, Value bAt, int64_t bBoxBytes,
                          int64_t columns, int64_t n, Type elt,
                          bool aByInner = false, bool bByInner = false);

/// The f32 scalars of an accumulator struct, in order.
SmallVector<Value> warpgroupAccumulatorElements(OpBuilder &b, Location loc,
                                                Value acc);

/// Waits for every warpgroup product of the thread (wait_group 0) and
/// returns the accumulators, taken as the wait's operands: to LLVM the
/// products' inline PTX wrote them when it was issued, and NVVM's wait op
/// has no operands, so nothing else keeps their reads after the wait.
Value settleWarpgroupAccumulators(OpBuilder &b, Location loc, Value acc);

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_NVVM_WARPGROUPMMA_H
