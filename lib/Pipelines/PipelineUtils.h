//===- PipelineUtils.h - what the pipeline builders share -------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_LIB_PIPELINES_PIPELINEUTILS_H
#define SOFTMAX_MLIR_LIB_PIPELINES_PIPELINEUTILS_H

#include "softmax-mlir/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

namespace mlir::softmax::pipelines {

/// Bufferization shared by all pipelines: canonicalize, one-shot-bufferize
/// over function boundaries with identity layouts, buffer deallocation,
/// bufferization to memref.
void addBufferization(OpPassManager &pm);

/// Buffers to LLVM, shared by the CPU and the GPU host end: bf16 <-> f32
/// conversions expanded to integer ops, strided metadata expanded,
/// affine lowered, memrefs finalized to LLVM.
void addMemRefToLLVM(OpPassManager &pm);

/// Sends `message` to `emitError`, or to llvm::errs() without one.
inline void report(PipelineErrorHandler emitError, const llvm::Twine &message) {
  if (emitError)
    emitError(message);
  else
    llvm::errs() << "error: " << message << "\n";
}

/// An error handler that emits an error diagnostic at `op`'s location
/// (without the op itself as a note: the options are at fault, not the IR).
inline std::function<void(const llvm::Twine &)> errorAt(Operation *op) {
  return [loc = op->getLoc()](const llvm::Twine &message) {
    mlir::emitError(loc, message);
  };
}

/// Registers a pipeline whose builder checks its options: an invalid value
/// is reported through the pass-pipeline parser's error handler (an error
/// at the option in the pipeline text), never a fatal error.
template <typename Options>
void registerPipeline(
    StringRef argument, StringRef description,
    LogicalResult (*builder)(OpPassManager &, const Options &,
                             PipelineErrorHandler)) {
  registerPassPipeline(
      argument, description,
      [argument, builder](
          OpPassManager &pm, StringRef text,
          function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        std::string parseError;
        llvm::raw_string_ostream os(parseError);
        if (failed(options.parseFromString(text, os)))
          return errorHandler(argument + ": invalid options '" + text +
                              "'" +
                              (parseError.empty()
                                   ? ""
                                   : ": " + StringRef(parseError).trim()));
        LogicalResult result = success();
        if (failed(builder(pm, options, [&](const Twine &message) {
              result = errorHandler(message);
            })))
          return failure();
        return result;
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

} // namespace mlir::softmax::pipelines

#endif // SOFTMAX_MLIR_LIB_PIPELINES_PIPELINEUTILS_H
