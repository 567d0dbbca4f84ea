//===- TensorMapTiles.h - tiles by the tensor-memory accelerator -*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU/NVVM: K/V tiles copied by bulk
// tensor copies (sm_90's tensor-memory accelerator) instead of cp.async.
// One thread issues one copy per box of 64 rows x 64 elements (128 bytes),
// which lands with the 128-byte swizzle (16-byte chunk c of row r at chunk
// c ^ (r % 8)), so that ldmatrix reads it without bank conflicts as the
// padded cp.async rows do; each copy completes on an mbarrier. The host
// encodes a tensor map of the source before the launch.
//
// Why not cp.async: a decode block is one warp streaming K and V, and its
// 16-byte copies reach the L2 as 2.6 times as many requests as cuDNN's
// loads for the same bytes (bench/results/decode/README.md, "Hardware
// counters"). Measured on the H200 with only the copies
// (bench/gpu/probe/decode_copy_probe.cu; B8 Hkv8 L32768, 256 one-warp
// blocks): 4021 GB/s by cp.async, 4374 by one bulk copy per 16 KiB tile,
// 2133 by a bulk copy per 256-byte row.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_NVVM_TENSORMAPTILES_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_NVVM_TENSORMAPTILES_H

#include "mlir/IR/Builders.h"

namespace mlir::softmax::detail {

/// Rows and elements (of 16 bits) of one box: a 128-byte swizzle row.
constexpr int64_t kBoxRows = 64, kBoxCols = 64;
/// Alignment of a buffer a swizzled box lands in.
constexpr int64_t kSwizzleAlign = 1024;

/// Host code: a tensor map of `src`, a memref with the identity layout
/// whose innermost dimension holds 16-bit elements, with boxes of 64 rows
/// of its second-innermost dimension by 64 elements (1 in the others),
/// 128-byte swizzle, zeros past the edges. Returns an !llvm.ptr to the
/// device copy (the runtime keeps one per distinct map).
Value createBoxTensorMap(OpBuilder &b, Location loc, Value src);

/// The address (!llvm.ptr<3>) `bytes` past the start of the shared-memory
/// buffer `buffer` (a memref in workgroup memory).
Value sharedAddress(OpBuilder &b, Location loc, Value buffer, Value bytes);

/// Thread `tid` == 0 initializes the mbarriers of `bars` (memref<N x i64>
/// in workgroup memory, arrival count 1 each); then a block barrier.
void initTileBarriers(OpBuilder &b, Location loc, Value bars, Value tid);

/// Arrives on `bar` expecting `bytes` of copies (one thread).
void expectTileBytes(OpBuilder &b, Location loc, Value bar, int64_t bytes);

/// One box of `map` at `coords` (i32, innermost dimension first) into the
/// shared address `dst`, completing on `bar`.
void copyBox(OpBuilder &b, Location loc, Value dst, Value map,
             ValueRange coords, Value bar);

/// Waits until the phase of `bar` with parity `parity` (i32) completed.
void waitBarrierParity(OpBuilder &b, Location loc, Value bar, Value parity);

/// The indices, in a tile buffer of shape [buffers, cols / 64, 64, 64],
/// of element (row, col) of buffer `buf`, where col is a multiple of 8:
/// the box of col / 64 and the swizzled 16-byte chunk within its row.
SmallVector<Value> swizzledTileIndices(OpBuilder &b, Location loc, Value buf,
                                       Value row, Value col);

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_NVVM_TENSORMAPTILES_H
