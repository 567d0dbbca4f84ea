//===- InitAll.h - register everything softmax-mlir provides ----*- C++ -*-===//
//
// The one registration header: softmax-opt, the mlir-opt plugin and any
// compiler that embeds the project include this.
//
// An embedding compiler needs one call on its registry before it creates
// its context:
//
//   mlir::DialectRegistry registry;
//   registry.insert<mlir::func::FuncDialect, ...>(); // the dialects of its IR
//   mlir::softmax::registerEverything(registry);
//   mlir::MLIRContext context(registry);
//   mlir::PassManager pm(&context);
//   if (failed(mlir::softmax::buildSoftmaxToCPUPipeline(pm, {})))
//     ...;
//
// No upstream pass, pipeline or dialect has to be registered for the
// pipelines of Pipelines/Pipelines.h to run. registerAllPasses() and
// registerAllPipelines() are needed only to refer to our passes and
// pipelines by name (parsePassPipeline, a command line).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_INITALL_H
#define SOFTMAX_MLIR_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::softmax {

/// Adds the softmax dialect with its own external interface models and
/// its transform-dialect extension (transform.softmax.*, with the transform
/// dialect), and every upstream dialect the pipelines produce on their way
/// to LLVM (arith ... llvm, gpu, nvvm, rocdl, omp).
void registerAllDialects(DialectRegistry &registry);

/// Adds the upstream interfaces and dialect extensions the pipelines rely
/// on: bufferization and buffer-deallocation models of the upstream
/// dialects, tiling and value-bounds models, the convert-to-llvm
/// interfaces (func, arith, cf, math, memref, vector, index, ub, gpu, nvvm,
/// openmp), the NVVM and ROCDL target attributes, and the translations to
/// LLVM IR that gpu-module-to-binary and a later mlir-translate need
/// (builtin, llvm, gpu, nvvm, rocdl, openmp).
void registerAllExtensions(DialectRegistry &registry);

/// registerAllDialects + registerAllExtensions: the one call an embedding
/// compiler makes (docs/Embedding.md).
void registerEverything(DialectRegistry &registry);

/// Registers the softmax passes under their names (softmax-raise, ...).
/// Idempotent.
void registerAllPasses();

/// Registers the named pipelines (softmax-to-cpu, softmax-to-nvvm,
/// softmax-to-rocdl) for textual pipelines and command lines. Idempotent.
void registerAllPipelines();

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_INITALL_H
