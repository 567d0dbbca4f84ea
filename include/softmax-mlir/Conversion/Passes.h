//===- Passes.h - softmax conversion passes ---------------------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_CONVERSION_PASSES_H
#define SOFTMAX_MLIR_CONVERSION_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::softmax {

#define GEN_PASS_DECL
#include "softmax-mlir/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "softmax-mlir/Conversion/Passes.h.inc"

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_CONVERSION_PASSES_H
