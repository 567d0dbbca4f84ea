//===- GPUPipeline.cpp - softmax-to-nvvm and softmax-to-rocdl -------------===//
//
// Both pipelines share everything but their ends: bufferization, the one
// GPU mapping (softmax-map-to-gpu), the check that nothing softmax-shaped
// is left for the host, kernel outlining, and the host lowering to calls
// of the runtime ABI that lib/Runtime implements. Built from pass
// constructors, like upstream's GPUToNVVMPipeline.cpp.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Pipelines/Pipelines.h"

#include "PipelineUtils.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/GPUToROCDL/Runtimes.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "llvm/Support/FileSystem.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Pipelines/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
enum class GPUEnd { NVVM, ROCDL };
} // namespace

/// softmax-to-nvvm, softmax-to-rocdl, or their -after-mapping tails.
static std::string pipelineName(GPUEnd end, bool afterMapping = false) {
  std::string name =
      end == GPUEnd::NVVM ? "softmax-to-nvvm" : "softmax-to-rocdl";
  return afterMapping ? name + "-after-mapping" : name;
}

/// gpu-module-to-binary's names of its formats.
static constexpr const char *kFormats[] = {
    "isa", "assembly", "bin", "binary", "fatbin", "fatbinary", "llvm",
    "offloading"};

static std::string chipOf(const SoftmaxToGPUPipelineOptions &options,
                          GPUEnd end);

/// Why `features` is not a PTX version NVPTX accepts for `chip`, or
/// nullopt (empty: the pipeline's +ptx81). Anything else reached LLVM: an
/// unknown feature only drew its "ignoring feature" warning, a version
/// below the chip's minimum was a fatal error without location.
static std::optional<std::string> checkPTXFeatures(StringRef features,
                                                   StringRef chip) {
  if (features.empty())
    return std::nullopt;
  // The versions LLVM 22's NVPTX target knows from 7.0 on (older ones
  // predate sm_80).
  static constexpr int kVersions[] = {70, 71, 72, 73, 74, 75, 76, 77, 78, 80,
                                      81, 82, 83, 84, 85, 86, 87, 88, 90};
  StringRef digits = features;
  unsigned version = 0;
  if (!digits.consume_front("+ptx") || digits.size() != 2 ||
      digits.getAsInteger(10, version) ||
      !llvm::is_contained(kVersions, static_cast<int>(version)))
    return ("features must be one PTX version, +ptxNN (+ptx70 to +ptx90), "
            "not '" +
            features + "'")
        .str();
  // NVPTX's minimum PTX version per target.
  unsigned minimum = chip == "sm_90a" ? 80 : chip == "sm_90" ? 78 : 70;
  if (version < minimum)
    return ("features " + features + " is below PTX " +
            Twine(minimum / 10) + "." + Twine(minimum % 10) +
            ", the oldest that " + chip + " accepts")
        .str();
  return std::nullopt;
}

/// The message for the first invalid option value of the pipeline or of
/// its after-mapping tail.
static std::optional<std::string>
checkGPUOptions(const SoftmaxToGPUPipelineOptions &options, GPUEnd end,
                bool afterMapping) {
  StringRef chip = options.chip;
  StringRef format = options.format;
  std::string message;
  llvm::raw_string_ostream os(message);
  if (!chip.empty()) {
    std::optional<GPUTarget> target = lookupGPUTarget(chip);
    GPUVendor vendor = end == GPUEnd::NVVM ? GPUVendor::NVIDIA : GPUVendor::AMD;
    if (!target)
      os << "chip '" << chip << "' is not a supported target (expected "
         << (end == GPUEnd::NVVM ? "sm_80, sm_90 or sm_90a" : "gfx90a or gfx942")
         << ")";
    else if (target->vendor != vendor)
      os << "chip '" << chip << "' is not "
         << (end == GPUEnd::NVVM ? "an NVIDIA" : "an AMD")
         << " chip (use "
         << pipelineName(end == GPUEnd::NVVM ? GPUEnd::ROCDL : GPUEnd::NVVM,
                         afterMapping)
         << " for it)";
  }
  if (message.empty() && !llvm::is_contained(kFormats, format))
    os << "format must be isa or bin (or fatbin, llvm, offloading), not '"
       << format << "'";
  if (message.empty() && end == GPUEnd::ROCDL &&
      !StringRef(options.features).empty())
    os << "features is an NVVM option (PTX features); the ROCDL end takes "
          "none";
  if (message.empty() && end == GPUEnd::ROCDL && options.cacheHints.hasValue())
    os << "cache-hints is an NVVM option (PTX's .cs accesses); the ROCDL end "
          "takes none";
  if (message.empty() && end == GPUEnd::NVVM)
    if (std::optional<std::string> why =
            checkPTXFeatures(options.features, chipOf(options, end)))
      os << *why;
  if (message.empty() && !StringRef(options.toolkit).empty() &&
      !llvm::sys::fs::is_directory(options.toolkit))
    os << "toolkit '" << options.toolkit << "' is not a directory";
  StringRef precision = options.attentionF32Precision;
  if (message.empty() && precision != "exact" && precision != "tf32")
    os << "attention-f32-precision must be exact or tf32, not '" << precision
       << "'";
  if (message.empty() && end == GPUEnd::ROCDL && precision == "tf32")
    os << "attention-f32-precision=tf32 needs NVIDIA tf32 tensor cores; the "
          "ROCDL end has no f32 attention";
  if (message.empty())
    if (std::optional<std::string> why =
            OptionRange{"attention-key-splits", 1, 1024, false,
                        "the cost model's"}
                .check(options.attentionKeySplits))
      os << *why;
  if (message.empty())
    if (std::optional<std::string> why =
            OptionRange{"cross-entropy-vocab-splits", 1, 4096, false,
                        "the balance model's"}
                .check(options.crossEntropyVocabSplits))
      os << *why;
  if (message.empty())
    if (std::optional<std::string> why =
            OptionRange{"attention-stream-k", 1, 4096, false,
                        "the mapping's choice"}
                .check(options.attentionStreamK))
      os << *why;
  if (message.empty())
    return std::nullopt;
  return pipelineName(end, afterMapping) + ": " + message;
}

std::optional<std::string> mlir::softmax::checkSoftmaxToGPUPipelineOptions(
    const SoftmaxToGPUPipelineOptions &options, bool rocdl) {
  return checkGPUOptions(options, rocdl ? GPUEnd::ROCDL : GPUEnd::NVVM,
                         /*afterMapping=*/false);
}

static std::string chipOf(const SoftmaxToGPUPipelineOptions &options,
                          GPUEnd end) {
  if (!StringRef(options.chip).empty())
    return options.chip;
  return end == GPUEnd::NVVM ? "sm_90" : "gfx942";
}

/// Everything the pipeline runs after softmax-map-to-gpu; also the
/// -after-mapping pipelines (`pipeline` names the one running, for the
/// messages of softmax-check-no-host-fallback).
static void addAfterGPUMapping(OpPassManager &pm,
                               const SoftmaxToGPUPipelineOptions &options,
                               GPUEnd end, StringRef pipeline) {
  std::string chip = chipOf(options, end);
  std::string toolkit = options.toolkit;
  if (toolkit.empty())
    toolkit = end == GPUEnd::NVVM ? "/usr/local/cuda"
                                  : "/usr/lib/x86_64-linux-gnu";

  // Buffers kernels reach, and nothing softmax-shaped left on the host
  // unless allowed.
  pm.addPass(createSoftmaxStageGPUBuffers());
  if (!options.allowHostCode) {
    SoftmaxCheckNoHostFallbackOptions check;
    check.pipeline = pipeline.str();
    pm.addPass(createSoftmaxCheckNoHostFallback(check));
  }

  // Outline the kernels; loops to cf on both sides.
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // The device end.
  if (end == GPUEnd::NVVM) {
    GpuNVVMAttachTargetOptions target;
    target.chip = chip;
    target.features = StringRef(options.features).empty()
                          ? std::string("+ptx81")
                          : std::string(options.features);
    target.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(target));
    OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
    // The attention kernel's ldmatrix and cp.async.
    kernels.addPass(createConvertNVGPUToNVVMPass());
    kernels.addPass(createConvertGpuOpsToNVVMOps());
    // The streamed rows' last pass as .cs accesses (NVPTX drops the
    // nontemporal attribute).
    if (options.cacheHints)
      kernels.addPass(createSoftmaxNVVMNontemporal());
    kernels.addPass(createCanonicalizerPass());
    kernels.addPass(createCSEPass());
    kernels.addPass(createReconcileUnrealizedCastsPass());
    // The host end of the kernels' TMA copies: nvgpu.tma.create.descriptor
    // before each launch that reads a tensor map.
    pm.addNestedPass<func::FuncOp>(createConvertNVGPUToNVVMPass());
  } else {
    GpuROCDLAttachTargetOptions target;
    target.chip = chip;
    target.optLevel = 3;
    pm.addPass(createGpuROCDLAttachTarget(target));
    OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
    ConvertGpuOpsToROCDLOpsOptions toROCDL;
    toROCDL.chipset = chip;
    toROCDL.runtime = gpu::amd::Runtime::HIP;
    kernels.addPass(createConvertGpuOpsToROCDLOps(toROCDL));
    kernels.addPass(createCanonicalizerPass());
    kernels.addPass(createCSEPass());
    kernels.addPass(createReconcileUnrealizedCastsPass());
  }

  // The host end: runtime calls, the kernels' binaries, LLVM.
  pipelines::addMemRefToLLVM(pm);
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

static LogicalResult
buildGPUPipeline(OpPassManager &pm, const SoftmaxToGPUPipelineOptions &options,
                 GPUEnd end, PipelineErrorHandler emitError) {
  if (std::optional<std::string> error =
          checkGPUOptions(options, end, /*afterMapping=*/false)) {
    pipelines::report(emitError, *error);
    return failure();
  }

  // Raise, choose algorithms for the GPU, bufferize.
  pm.addPass(createSoftmaxRaise());
  SoftmaxSelectAlgorithmOptions select;
  select.target = "gpu";
  pm.addPass(createSoftmaxSelectAlgorithm(select));
  pipelines::addBufferization(pm);

  // The mapping to gpu.launch.
  SoftmaxMapToGPUOptions map;
  map.chip = chipOf(options, end);
  map.attentionF32Precision = options.attentionF32Precision;
  map.attentionKeySplits = options.attentionKeySplits;
  map.attentionStreamK = options.attentionStreamK;
  map.crossEntropyVocabSplits = options.crossEntropyVocabSplits;
  pm.addPass(createSoftmaxMapToGPU(map));
  addAfterGPUMapping(pm, options, end, pipelineName(end));
  return success();
}

static LogicalResult
buildGPUAfterMappingPipeline(OpPassManager &pm,
                             const SoftmaxToGPUPipelineOptions &options,
                             GPUEnd end, PipelineErrorHandler emitError) {
  std::string pipeline = pipelineName(end, /*afterMapping=*/true);
  std::optional<std::string> error =
      checkGPUOptions(options, end, /*afterMapping=*/true);
  // Read by the mapping only: a silent no-op here.
  const char *mappingOption =
      options.attentionF32Precision.hasValue() ? "attention-f32-precision"
      : options.attentionKeySplits.hasValue()  ? "attention-key-splits"
      : options.attentionStreamK.hasValue()    ? "attention-stream-k"
                                               : nullptr;
  if (!error && mappingOption)
    error = pipeline + ": " + mappingOption + " is an option of the mapping (" +
            pipelineName(end) +
            ", softmax-map-to-gpu, transform.softmax.map_to_gpu), not of "
            "the passes after it";
  if (error) {
    pipelines::report(emitError, *error);
    return failure();
  }
  addAfterGPUMapping(pm, options, end, pipeline);
  return success();
}

LogicalResult mlir::softmax::buildSoftmaxToNVVMPipeline(
    OpPassManager &pm, const SoftmaxToGPUPipelineOptions &options,
    PipelineErrorHandler emitError) {
  return buildGPUPipeline(pm, options, GPUEnd::NVVM, emitError);
}

LogicalResult mlir::softmax::buildSoftmaxToROCDLPipeline(
    OpPassManager &pm, const SoftmaxToGPUPipelineOptions &options,
    PipelineErrorHandler emitError) {
  return buildGPUPipeline(pm, options, GPUEnd::ROCDL, emitError);
}

LogicalResult mlir::softmax::buildSoftmaxToNVVMAfterMappingPipeline(
    OpPassManager &pm, const SoftmaxToGPUPipelineOptions &options,
    PipelineErrorHandler emitError) {
  return buildGPUAfterMappingPipeline(pm, options, GPUEnd::NVVM, emitError);
}

LogicalResult mlir::softmax::buildSoftmaxToROCDLAfterMappingPipeline(
    OpPassManager &pm, const SoftmaxToGPUPipelineOptions &options,
    PipelineErrorHandler emitError) {
  return buildGPUAfterMappingPipeline(pm, options, GPUEnd::ROCDL, emitError);
}

static LogicalResult runGPUPipeline(ModuleOp module,
                                    const SoftmaxToGPUPipelineOptions &options,
                                    GPUEnd end) {
  PassManager pm(module->getContext());
  if (failed(buildGPUPipeline(pm, options, end, pipelines::errorAt(module))))
    return failure();
  return pm.run(module);
}

LogicalResult mlir::softmax::runSoftmaxToNVVMPipeline(
    ModuleOp module, const SoftmaxToGPUPipelineOptions &options) {
  return runGPUPipeline(module, options, GPUEnd::NVVM);
}

LogicalResult mlir::softmax::runSoftmaxToROCDLPipeline(
    ModuleOp module, const SoftmaxToGPUPipelineOptions &options) {
  return runGPUPipeline(module, options, GPUEnd::ROCDL);
}

void mlir::softmax::registerSoftmaxGPUPipelines() {
  pipelines::registerPipeline<SoftmaxToGPUPipelineOptions>(
      "softmax-to-nvvm",
      "Lower a module of func ops on tensors or buffers (softmax, linalg) to "
      "NVVM kernels in a gpu.binary and LLVM host code calling the runtime",
      buildSoftmaxToNVVMPipeline);
  pipelines::registerPipeline<SoftmaxToGPUPipelineOptions>(
      "softmax-to-rocdl",
      "Lower a module of func ops on tensors or buffers (softmax, linalg) to "
      "ROCDL kernels in a gpu.binary and LLVM host code calling the runtime",
      buildSoftmaxToROCDLPipeline);
  pipelines::registerPipeline<SoftmaxToGPUPipelineOptions>(
      "softmax-to-nvvm-after-mapping",
      "The passes softmax-to-nvvm runs after softmax-map-to-gpu (buffer "
      "staging, the host-code check, outlining, the NVVM and host ends), "
      "for a module whose ops a transform script mapped "
      "(transform.softmax.map_to_gpu)",
      buildSoftmaxToNVVMAfterMappingPipeline);
  pipelines::registerPipeline<SoftmaxToGPUPipelineOptions>(
      "softmax-to-rocdl-after-mapping",
      "The passes softmax-to-rocdl runs after softmax-map-to-gpu (buffer "
      "staging, the host-code check, outlining, the ROCDL and host ends), "
      "for a module whose ops a transform script mapped "
      "(transform.softmax.map_to_gpu)",
      buildSoftmaxToROCDLAfterMappingPipeline);
}
