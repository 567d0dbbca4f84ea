//===- Pipelines.cpp - C API of the softmax pipelines --------------------===//

#include "softmax-mlir-c/Pipelines.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "softmax-mlir/Pipelines/Pipelines.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// The three pipelines as one shape: options type, its name, its builder.
template <typename Options>
using PipelineBuilder = LogicalResult (*)(OpPassManager &, const Options &,
                                  PipelineErrorHandler);
} // namespace

/// Parses `text` into `options`; on failure, reports through `emitError`.
template <typename Options>
static LogicalResult parseOptions(StringRef name, StringRef text,
                                  Options &options,
                                  PipelineErrorHandler emitError) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (succeeded(options.parseFromString(text, os)))
    return success();
  emitError(name + ": invalid options '" + text + "'" +
            (message.empty() ? "" : ": " + StringRef(message).trim()));
  return failure();
}

template <typename Options>
static MlirLogicalResult build(StringRef name, PipelineBuilder<Options> builder,
                               MlirOpPassManager passManager,
                               MlirStringRef options,
                               MlirStringCallback callback, void *userData) {
  auto emitError = [&](const Twine &message) {
    if (!callback)
      return;
    std::string text = message.str();
    callback(mlirStringRefCreate(text.data(), text.size()), userData);
  };
  Options parsed;
  if (failed(parseOptions(name, unwrap(options), parsed, emitError)))
    return mlirLogicalResultFailure();
  return wrap(builder(*unwrap(passManager), parsed, emitError));
}

template <typename Options>
static MlirLogicalResult run(StringRef name, PipelineBuilder<Options> builder,
                             MlirModule module, MlirStringRef options) {
  ModuleOp moduleOp = unwrap(module);
  auto emitError = [&](const Twine &message) {
    mlir::emitError(moduleOp.getLoc(), message);
  };
  Options parsed;
  if (failed(parseOptions(name, unwrap(options), parsed, emitError)))
    return mlirLogicalResultFailure();
  PassManager pm(moduleOp->getContext());
  if (failed(builder(pm, parsed, emitError)))
    return mlirLogicalResultFailure();
  return wrap(pm.run(moduleOp));
}

MlirLogicalResult mlirSoftmaxBuildCPUPipeline(MlirOpPassManager passManager,
                                              MlirStringRef options,
                                              MlirStringCallback callback,
                                              void *userData) {
  return build<SoftmaxToCPUPipelineOptions>(
      "softmax-to-cpu", buildSoftmaxToCPUPipeline, passManager, options,
      callback, userData);
}

MlirLogicalResult mlirSoftmaxBuildNVVMPipeline(MlirOpPassManager passManager,
                                               MlirStringRef options,
                                               MlirStringCallback callback,
                                               void *userData) {
  return build<SoftmaxToGPUPipelineOptions>(
      "softmax-to-nvvm", buildSoftmaxToNVVMPipeline, passManager, options,
      callback, userData);
}

MlirLogicalResult mlirSoftmaxBuildROCDLPipeline(MlirOpPassManager passManager,
                                                MlirStringRef options,
                                                MlirStringCallback callback,
                                                void *userData) {
  return build<SoftmaxToGPUPipelineOptions>(
      "softmax-to-rocdl", buildSoftmaxToROCDLPipeline, passManager, options,
      callback, userData);
}

MlirLogicalResult mlirSoftmaxRunCPUPipeline(MlirModule module,
                                            MlirStringRef options) {
  return run<SoftmaxToCPUPipelineOptions>(
      "softmax-to-cpu", buildSoftmaxToCPUPipeline, module, options);
}

MlirLogicalResult mlirSoftmaxRunNVVMPipeline(MlirModule module,
                                             MlirStringRef options) {
  return run<SoftmaxToGPUPipelineOptions>(
      "softmax-to-nvvm", buildSoftmaxToNVVMPipeline, module, options);
}

MlirLogicalResult mlirSoftmaxRunROCDLPipeline(MlirModule module,
                                              MlirStringRef options) {
  return run<SoftmaxToGPUPipelineOptions>(
      "softmax-to-rocdl", buildSoftmaxToROCDLPipeline, module, options);
}
