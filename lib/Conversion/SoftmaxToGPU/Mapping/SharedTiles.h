//===- SharedTiles.h - tiles in shared memory, 16-byte copies ---*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU: what the tensor-core kernels
// (attention, linear cross-entropy) share around their tiles: the check
// that the buffers they copy 16 bytes at a time are aligned, and the views
// of the dynamic shared-memory pool that hold the tiles past 48 KiB.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_SHAREDTILES_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_SHAREDTILES_H

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"

namespace mlir::softmax::detail {

/// A host-side cf.assert that every buffer's aligned pointer is a multiple
/// of 16 bytes: the kernels copy 16 bytes at a time (cp.async on NVIDIA,
/// 16-byte loads on CDNA), and a misaligned buffer would fault on the
/// device. (cudaMalloc, hipMalloc and PyTorch allocations are aligned.)
inline void assertAligned16(OpBuilder &b, Location loc, ValueRange buffers,
                            StringRef message) {
  IndexArith ix(b, loc);
  Value aligned;
  for (Value buffer : buffers) {
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    Value ok = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, address, ix.idx(16)), ix.idx(0));
    aligned = aligned ? arith::AndIOp::create(b, loc, aligned, ok) : ok;
  }
  cf::AssertOp::create(b, loc, aligned, message);
}

/// Views of `types`, one after the other, in the kernel's dynamic shared
/// memory (inside the launch). A kernel with a pool keeps every shared
/// buffer in it, none in workgroup attributions: the NVPTX backend declares
/// the pool as a one-byte `.shared` variable, not an extern array, so the
/// views reach over static buffers laid out after it (the linear
/// cross-entropy gradient's vote flag was overwritten by the first tile's
/// cp.async copies, and no tile was ever filtered). With `alignment` above
/// the pool's 16 bytes, the views start at the first multiple of it in the
/// pool (the launch asks for `alignment` bytes more), and each view at a
/// multiple of it past that.
inline SmallVector<Value> viewDynamicSharedMemory(OpBuilder &b, Location loc,
                                                  ArrayRef<MemRefType> types,
                                                  int64_t alignment = 16) {
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value pool = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  IndexArith ix(b, loc);
  Value start;
  if (alignment > 16) {
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, pool);
    start = ix.rem(ix.sub(ix.idx(alignment), ix.rem(address, alignment)),
                   alignment);
  }
  SmallVector<Value> views;
  int64_t offset = 0;
  for (MemRefType t : types) {
    Value at = start ? ix.add(start, ix.idx(offset)) : ix.idx(offset);
    views.push_back(
        memref::ViewOp::create(b, loc, t, pool, at, ValueRange{}));
    offset += t.getNumElements() * t.getElementTypeBitWidth() / 8;
    if (alignment > 16)
      offset = llvm::alignTo(offset, alignment);
  }
  return views;
}

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_SHAREDTILES_H
