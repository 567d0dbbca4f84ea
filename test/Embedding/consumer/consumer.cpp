//===- consumer.cpp - embed softmax-mlir through find_package ------------===//
//
// A host compiler in miniature: registers the dialects of its own IR (func,
// tensor) and the one softmax-mlir call, parses a file and runs one of our
// pipelines on it, built from C++ (no pass registered), or softmax-decompose
// by name (after registerAllPasses). Prints the module; with --ptx=FILE,
// writes the first kernel's PTX (softmax-to-nvvm format=isa) to FILE.
// cpu-patterns and nvvm-patterns compose the mapping's pattern sets in the
// host's own driver instead: softmax-raise and softmax-bufferize, then
// populateSoftmaxTo{CPU,GPU}Patterns (the GPU one with the NVIDIA end's
// hooks named explicitly) in a walk, then the after-mapping pipeline.
//
//   softmax-consumer FILE cpu|nvvm|rocdl|decompose|cpu-patterns|nvvm-patterns
//                    [OPTIONS] [--ptx=FILE]
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/InitAll.h"
#include "softmax-mlir/Pipelines/Pipelines.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

static int usage() {
  llvm::errs() << "usage: softmax-consumer FILE "
                  "cpu|nvvm|rocdl|decompose|cpu-patterns|nvvm-patterns "
                  "[OPTIONS] [--ptx=FILE]\n";
  return 2;
}

/// Writes the text of the first gpu.binary object to `path`.
static LogicalResult writeFirstKernel(ModuleOp module, llvm::StringRef path) {
  gpu::ObjectAttr object;
  module.walk([&](gpu::BinaryOp binary) {
    if (!object && !binary.getObjects().empty())
      object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  });
  if (!object)
    return failure();
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return failure();
  os << object.getObject().getValue();
  return success();
}

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  std::string file = argv[1], pipeline = argv[2], options, ptxPath;
  for (int i = 3; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--ptx="))
      ptxPath = arg.str();
    else
      options += (options.empty() ? "" : " ") + arg.str();
  }

  // What our own IR uses, plus everything softmax-mlir's pipelines need.
  DialectRegistry registry;
  registry.insert<func::FuncDialect, tensor::TensorDialect>();
  softmax::registerEverything(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(file, sourceMgr,
                                                           &context);
  if (!module)
    return 1;

  LogicalResult result = failure();
  if (pipeline == "decompose") {
    // By name: only this needs the passes registered.
    softmax::registerAllPasses();
    PassManager pm(&context);
    if (failed(parsePassPipeline("softmax-decompose", pm))) {
      llvm::errs() << "consumer: softmax-decompose is not registered\n";
      return 1;
    }
    result = pm.run(*module);
  } else if (pipeline == "cpu") {
    auto parsed =
        softmax::SoftmaxToCPUPipelineOptions::createFromString(options);
    if (!parsed)
      return 1;
    result = softmax::runSoftmaxToCPUPipeline(*module, *parsed);
  } else if (pipeline == "nvvm" || pipeline == "rocdl") {
    auto parsed =
        softmax::SoftmaxToGPUPipelineOptions::createFromString(options);
    if (!parsed)
      return 1;
    result = pipeline == "nvvm"
                 ? softmax::runSoftmaxToNVVMPipeline(*module, *parsed)
                 : softmax::runSoftmaxToROCDLPipeline(*module, *parsed);
  } else if (pipeline == "cpu-patterns" || pipeline == "nvvm-patterns") {
    softmax::registerAllPasses();
    softmax::registerAllPipelines();
    PassManager bufferize(&context);
    if (failed(parsePassPipeline("softmax-raise,softmax-bufferize",
                                 bufferize, llvm::errs())) ||
        failed(bufferize.run(*module))) {
      llvm::errs() << "consumer: softmax-raise,softmax-bufferize failed\n";
      return 1;
    }
    // Outside a pass, the dialects the mapping builds are loaded by hand
    // (a pass declares them instead).
    context.loadAllAvailableDialects();
    RewritePatternSet patterns(&context);
    softmax::CPUMapping cpu;
    softmax::GPUMapping gpu;
    if (pipeline == "cpu-patterns") {
      cpu.target = softmax::hostCPUTarget();
      softmax::populateSoftmaxToCPUPatterns(patterns, cpu);
    } else {
      gpu.target = *softmax::lookupGPUTarget("sm_90");
      gpu.hooks = &softmax::getNVVMTargetHooks();
      softmax::populateSoftmaxToGPUPatterns(patterns, gpu);
    }
    walkAndApplyPatterns(*module, std::move(patterns));
    PassManager pm(&context);
    if (pipeline == "cpu-patterns") {
      softmax::SoftmaxToCPUPipelineOptions cpuOptions;
      if (failed(softmax::buildSoftmaxToCPUAfterMappingPipeline(pm,
                                                                cpuOptions)))
        return 1; // the builder has printed why
    } else {
      softmax::SoftmaxToGPUPipelineOptions gpuOptions;
      gpuOptions.chip = "sm_90";
      gpuOptions.format = "isa";
      if (failed(softmax::buildSoftmaxToNVVMAfterMappingPipeline(pm,
                                                                 gpuOptions)))
        return 1; // the builder has printed why
    }
    result = pm.run(*module);
  } else {
    return usage();
  }
  if (failed(result)) {
    llvm::errs() << "consumer: " << pipeline << " failed\n";
    return 1;
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  if (!ptxPath.empty() && failed(writeFirstKernel(*module, ptxPath))) {
    llvm::errs() << "consumer: no kernel to write to " << ptxPath << "\n";
    return 1;
  }
  return 0;
}
