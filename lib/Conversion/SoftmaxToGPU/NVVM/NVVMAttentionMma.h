//===- NVVMAttentionMma.h - the NVIDIA end's matrix units -------*- C++ -*-===//

#ifndef LIB_CONVERSION_SOFTMAXTOGPU_NVVM_NVVMATTENTIONMMA_H
#define LIB_CONVERSION_SOFTMAXTOGPU_NVVM_NVVMATTENTIONMMA_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/AttentionMma.h"

namespace mlir::softmax::detail {

/// mma.sync m16n8k16 with ldmatrix and cp.async (NVIDIA sm_80+), with 1
/// or 2 buffers per tile, 16 or 32 query rows per warp, the queries held
/// in registers or read from shared memory per tile.
std::unique_ptr<AttentionMma>
makeNVVMAttentionMma(OpBuilder &b, Location loc, AttentionOp op, int64_t warps,
                     int64_t buffers, int64_t rowsPerWarp, bool queriesInSmem,
                     bool tilesThroughL1 = false);
/// f32 inputs on mma.sync m16n8k8 tf32 (NVIDIA sm_80+): three products of
/// tf32 parts (exact) or one (tf32); the queries in shared memory.
std::unique_ptr<AttentionMma>
makeNVVMF32AttentionMma(OpBuilder &b, Location loc, AttentionOp op,
                        int64_t warps, int64_t buffers, int64_t rowsPerWarp,
                        AttentionF32Precision precision);

} // namespace mlir::softmax::detail

#endif // LIB_CONVERSION_SOFTMAXTOGPU_NVVM_NVVMATTENTIONMMA_H
