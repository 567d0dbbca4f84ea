//===- Passes.h - passes of the named pipelines -----------------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_PIPELINES_PASSES_H
#define SOFTMAX_MLIR_PIPELINES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>

namespace mlir::softmax {

#define GEN_PASS_DECL
#include "softmax-mlir/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "softmax-mlir/Pipelines/Passes.h.inc"

/// What a computation that would be compiled for the host looks like.
enum class HostFallbackKind { SoftmaxOp, LinalgSoftmax, Softmax, Attention };

/// A softmax- or attention-shaped computation found outside kernels.
struct HostFallback {
  Operation *op;
  HostFallbackKind kind;
  /// What makes it softmax-shaped, for the message ("math.exp whose
  /// result is reduced", ...).
  std::string why;
  /// The neighbour that completes the shape (the reduction, the matmul),
  /// when it is another op.
  Operation *related = nullptr;
};

/// Returns the softmax- or attention-shaped computation rooted at `op`, if
/// `op` is one (a softmax.* op, a linalg.softmax, or a linalg op whose body
/// computes exp and that reduces, or shares a tensor or buffer with a
/// reduction or contraction). Does not look at where `op` lives.
std::optional<HostFallback> findSoftmaxShaped(Operation *op);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_PIPELINES_PASSES_H
