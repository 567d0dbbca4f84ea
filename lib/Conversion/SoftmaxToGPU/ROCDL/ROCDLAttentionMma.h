//===- ROCDLAttentionMma.h - the AMD CDNA end's matrix units ----*- C++ -*-===//

#ifndef LIB_CONVERSION_SOFTMAXTOGPU_ROCDL_ROCDLATTENTIONMMA_H
#define LIB_CONVERSION_SOFTMAXTOGPU_ROCDL_ROCDLATTENTIONMMA_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/AttentionMma.h"

namespace mlir::softmax::detail {

/// MFMA 16x16x16 on 64-lane wavefronts (CDNA gfx90a, gfx942), 1 buffer.
std::unique_ptr<AttentionMma> makeROCDLAttentionMma(OpBuilder &b, Location loc,
                                                    AttentionOp op,
                                                    int64_t warps);

} // namespace mlir::softmax::detail

#endif // LIB_CONVERSION_SOFTMAXTOGPU_ROCDL_ROCDLATTENTIONMMA_H
