//===- NVVMAttentionMma.h - the NVIDIA end's matrix units -------*- C++ -*-===//

#ifndef LIB_CONVERSION_SOFTMAXTOGPU_NVVM_NVVMATTENTIONMMA_H
#define LIB_CONVERSION_SOFTMAXTOGPU_NVVM_NVVMATTENTIONMMA_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/AttentionMma.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/TileMma.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::softmax::detail {

/// The row statistics' f32 arithmetic on NVIDIA: the log2-unit exps are
/// ex2.approx.ftz. Without ftz (what math.exp2 becomes) ptxas adds a
/// denormal range fix-up around each MUFU.EX2; measured 4-7% of the
/// attention kernel's time on the H200. Flushed results are below 2^-126 of
/// the row's largest term, which contributes 1 to the sum.
class NVVMRowMath : public StateMath {
public:
  NVVMRowMath(OpBuilder &b, Location loc) : StateMath(b, loc, b.getF32Type()) {}
  Value fastExp2(Value x) override;
};

/// The xor distances between the lanes of mma.sync's m16n8 accumulators
/// (and wgmma's, which lie the same way) that hold one row (the quad) and
/// those that hold one column.
inline ArrayRef<int32_t> m16n8RowLaneXors() {
  static constexpr int32_t xors[] = {1, 2};
  return xors;
}
inline ArrayRef<int32_t> m16n8ColLaneXors() {
  static constexpr int32_t xors[] = {4, 8, 16};
  return xors;
}

/// The f32 scalars of 2x2 accumulator vectors, in order.
SmallVector<Value> flattenAccumulators(OpBuilder &b, Location loc,
                                       ArrayRef<Value> accs);
/// One mma.sync m16n8k`k` with row-major A and column-major B fragments in
/// registers (`type` both), accumulating into `c`, a 2x2 vector of the f32
/// accumulators a lane holds; the result in the same form (`accType`).
Value mmaSync(OpBuilder &b, Location loc, ArrayRef<Value> a, ArrayRef<Value> bv,
              Value c, int64_t k, NVVM::MMATypes type, Type accType);

/// mma.sync m16n8k16 with ldmatrix and cp.async (NVIDIA sm_80+), with 1
/// or 2 buffers per tile, 16 or 32 query rows per warp, the queries held
/// in registers or read from shared memory per tile; or with K/V tiles by
/// bulk tensor copies (sm_90, TensorMapTiles.h).
std::unique_ptr<AttentionMma>
makeNVVMAttentionMma(OpBuilder &b, Location loc, AttentionOp op, int64_t warps,
                     int64_t buffers, int64_t rowsPerWarp, bool queriesInSmem,
                     bool tilesThroughL1 = false, bool tensorMapTiles = false,
                     bool warpgroupScores = false);
/// f32 inputs on mma.sync m16n8k8 tf32 (NVIDIA sm_80+): three products of
/// tf32 parts (exact) or one (tf32); the queries in shared memory.
std::unique_ptr<AttentionMma>
makeNVVMF32AttentionMma(OpBuilder &b, Location loc, AttentionOp op,
                        int64_t warps, int64_t buffers, int64_t rowsPerWarp,
                        AttentionF32Precision precision);

/// C = A B^T tiles of f16 or bf16 on mma.sync m16n8k16 (NVIDIA sm_80+):
/// both operands staged by cp.async into rows padded by 16 bytes, A
/// fragments by ldmatrix.x4, B fragments two at a time by ldmatrix.x4.
std::unique_ptr<TileMma> makeNVVMTileMma(OpBuilder &b, Location loc,
                                         const TileMmaConfig &config);
/// The same on sm_90's wgmma m64nNk16 (config.warpgroups): operands by
/// bulk tensor copies into 128-byte-swizzled slices of 64 columns, read by
/// matrix descriptors (TileWgmmaNVVM.cpp).
std::unique_ptr<TileMma> makeNVVMWarpgroupTileMma(OpBuilder &b, Location loc,
                                                  const TileMmaConfig &config);

} // namespace mlir::softmax::detail

#endif // LIB_CONVERSION_SOFTMAXTOGPU_NVVM_NVVMATTENTIONMMA_H
