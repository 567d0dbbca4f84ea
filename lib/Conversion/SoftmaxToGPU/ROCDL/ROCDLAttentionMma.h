//===- ROCDLAttentionMma.h - the AMD CDNA end's matrix units ----*- C++ -*-===//

#ifndef LIB_CONVERSION_SOFTMAXTOGPU_ROCDL_ROCDLATTENTIONMMA_H
#define LIB_CONVERSION_SOFTMAXTOGPU_ROCDL_ROCDLATTENTIONMMA_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/AttentionMma.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/TileMma.h"

namespace mlir::softmax::detail {

/// MFMA 16x16x16 on 64-lane wavefronts (CDNA gfx90a, gfx942), 1 buffer.
std::unique_ptr<AttentionMma> makeROCDLAttentionMma(OpBuilder &b, Location loc,
                                                    AttentionOp op,
                                                    int64_t warps);

/// C = A B^T tiles of f16 or bf16 on MFMA 16x16x16 (CDNA), staged
/// synchronously, in slices of at most 32 features (`config`'s kTile capped
/// so that two buffers fit the 64 KiB of LDS).
std::unique_ptr<TileMma> makeROCDLTileMma(OpBuilder &b, Location loc,
                                          TileMmaConfig config);

} // namespace mlir::softmax::detail

#endif // LIB_CONVERSION_SOFTMAXTOGPU_ROCDL_ROCDLATTENTIONMMA_H
