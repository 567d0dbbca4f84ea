//===- GPUPipeline.cpp - the softmax-to-nvvm and softmax-to-rocdl pipelines ===//
//
// Both pipelines share everything but their ends: bufferization, the one
// GPU mapping (softmax-map-to-gpu), kernel outlining, and the host lowering
// to calls of the runtime ABI that lib/Runtime implements.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
enum class GPUEnd { NVVM, ROCDL };
} // namespace

static void buildGPUPipeline(OpPassManager &pm,
                             const GPUPipelineOptions &options, GPUEnd end) {
  std::string chip = options.chip;
  if (chip.empty())
    chip = end == GPUEnd::NVVM ? "sm_90" : "gfx942";
  std::string toolkit = options.toolkit;
  if (toolkit.empty())
    toolkit = end == GPUEnd::NVVM ? "/usr/local/cuda" : "/usr/lib/x86_64-linux-gnu";

  std::string pipeline = llvm::formatv(
      "softmax-raise,softmax-select-algorithm{{target=gpu},canonicalize,"
      "one-shot-bufferize{{bufferize-function-boundaries=true "
      "function-boundary-type-conversion=identity-layout-map "
      "allow-return-allocs-from-loops=true},"
      "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
      "softmax-map-to-gpu{{chip={0} attention-f32-precision={1}},"
      "softmax-stage-gpu-buffers,gpu-kernel-outlining,"
      "convert-linalg-to-loops,lower-affine,convert-scf-to-cf,canonicalize,cse,",
      chip, std::string(options.attentionF32Precision));
  if (end == GPUEnd::NVVM)
    pipeline += llvm::formatv(
        "nvvm-attach-target{{chip={0} features={1} O=3},"
        "gpu.module(convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,canonicalize,"
        "cse,"
        "reconcile-unrealized-casts),",
        chip,
        options.features.empty() ? std::string("+ptx80")
                                 : std::string(options.features));
  else
    pipeline += llvm::formatv(
        "rocdl-attach-target{{chip={0} O=3},"
        "gpu.module(convert-gpu-to-rocdl{{chipset={0} runtime=HIP},"
        "canonicalize,cse,reconcile-unrealized-casts),",
        chip);
  pipeline += llvm::formatv(
      "arith-expand{{include-bf16=true},expand-strided-metadata,"
      "lower-affine,finalize-memref-to-llvm,gpu-to-llvm,"
      "gpu-module-to-binary{{format={0} toolkit={1}},"
      "convert-to-llvm,canonicalize,cse,reconcile-unrealized-casts",
      std::string(options.format), toolkit);
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("softmax GPU pipeline: malformed pipeline");
}

void mlir::softmax::buildSoftmaxToNVVMPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options) {
  buildGPUPipeline(pm, options, GPUEnd::NVVM);
}

void mlir::softmax::buildSoftmaxToROCDLPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options) {
  buildGPUPipeline(pm, options, GPUEnd::ROCDL);
}

void mlir::softmax::registerSoftmaxGPUPipelines() {
  PassPipelineRegistration<GPUPipelineOptions>(
      "softmax-to-nvvm",
      "Lower a module of func ops on tensors or buffers (softmax, linalg) to "
      "NVVM kernels in a gpu.binary and LLVM host code calling the runtime",
      buildSoftmaxToNVVMPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "softmax-to-rocdl",
      "Lower a module of func ops on tensors or buffers (softmax, linalg) to "
      "ROCDL kernels in a gpu.binary and LLVM host code calling the runtime",
      buildSoftmaxToROCDLPipeline);
}
