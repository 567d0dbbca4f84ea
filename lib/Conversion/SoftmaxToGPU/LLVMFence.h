//===- LLVMFence.h - the device fence of the LLVM GPU ends --*- C++ -*-===//
//
// Both vendor ends build the device fence as an llvm.fence; they differ
// only in the name of the whole-device scope.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_LLVMFENCE_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_LLVMFENCE_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::softmax::detail {

/// llvm.fence of `ordering` at the syncscope `scope` (NVPTX: "device",
/// AMDGPU: "agent").
inline void buildLLVMDeviceFence(OpBuilder &b, Location loc,
                                 FenceOrdering ordering, StringRef scope) {
  LLVM::FenceOp::create(b, loc,
                        ordering == FenceOrdering::Release
                            ? LLVM::AtomicOrdering::release
                            : LLVM::AtomicOrdering::acquire,
                        scope);
}

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_LLVMFENCE_H
