//===- InitAll.h - register everything softmax-mlir provides ----*- C++ -*-===//
//
// The one registration header: softmax-opt, the mlir-opt plugin and any
// compiler that embeds the project include this.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_INITALL_H
#define SOFTMAX_MLIR_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::softmax {

/// Adds the softmax dialect and the external interface models its
/// lowerings rely on.
void registerAllDialects(DialectRegistry &registry);

/// Registers the softmax passes.
void registerAllPasses();

/// Registers the named pipelines (softmax-to-cpu, ...).
void registerAllPipelines();

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_INITALL_H
