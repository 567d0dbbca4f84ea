//===- softmax-plugin.cpp - softmax-mlir as an mlir-opt plugin -----------===//
//
// One shared object that is both a dialect plugin and a pass plugin, so a
// stock mlir-opt (Debian's /usr/lib/llvm-22/bin/mlir-opt, linked against
// libMLIR.so like this plugin) can use the softmax dialect, its passes and
// its pipelines:
//
//   mlir-opt --load-dialect-plugin=SoftmaxPlugin.so \
//            --load-pass-plugin=SoftmaxPlugin.so \
//            --pass-pipeline='builtin.module(softmax-raise)' in.mlir
//   mlir-opt --load-dialect-plugin=SoftmaxPlugin.so \
//            --load-pass-plugin=SoftmaxPlugin.so --softmax-raise in.mlir
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "softmax-mlir/InitAll.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Compiler.h"

#include <string>
#include <vector>

namespace {

/// Every pass and pipeline softmax-mlir registers, collected from the
/// sources by CMake (tools/softmax-plugin/CMakeLists.txt).
constexpr const char *kPassArguments[] = {
#include "SoftmaxPassNames.inc"
};

/// The passes given as flags so far, as textual pipeline elements.
std::vector<std::string> &flaggedPipeline() {
  static std::vector<std::string> elements;
  return elements;
}

/// mlir-opt turns every registered pass into a flag (`--canonicalize`) when
/// it builds its pass-list option, which happens before the command line is
/// parsed and so before `--load-pass-plugin` registers anything: the pass
/// names of a plugin are not flags of the tool, and the pass-list parser is
/// private to libMLIR. Upstream's answer is
/// `--pass-pipeline='builtin.module(softmax-raise)'`, which always works.
///
/// For the usual `--softmax-raise` spelling, add one flag per softmax pass
/// here, while the command line is still being parsed (`--load-pass-plugin`
/// runs its callback mid-parse, so later arguments see the new flags). Each
/// flag appends its pass to a pipeline that is handed to the tool's own
/// `--pass-pipeline` option. So the flags must come after
/// `--load-pass-plugin`, keep their order, take options as
/// `--softmax-decompose=reduction-tile-size=4`, and cannot be mixed with the
/// tool's own pass flags (mlir-opt rejects `--pass-pipeline` together with
/// individual pass flags; write one `--pass-pipeline` instead).
///
/// Nothing is added in a tool that already knows the name (softmax-opt) or
/// has no `--pass-pipeline` option.
void addPassFlags() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto pipelineIt = options.find("pass-pipeline");
  if (pipelineIt == options.end())
    return;
  llvm::cl::Option *pipelineOption = pipelineIt->second;

  for (const char *argument : kPassArguments) {
    llvm::StringRef description;
    if (const mlir::PassInfo *info = mlir::PassInfo::lookup(argument))
      description = info->getPassDescription();
    else if (const mlir::PassPipelineInfo *info =
                 mlir::PassPipelineInfo::lookup(argument))
      description = info->getPassDescription();
    else
      continue;
    if (options.count(llvm::StringRef(argument)))
      continue;

    // Lives as long as the process: the library is never unloaded and the
    // option stays registered with the command-line parser.
    new llvm::cl::opt<std::string>(
        llvm::StringRef(argument), llvm::cl::desc(description),
        llvm::cl::value_desc("pass options"), llvm::cl::ValueOptional,
        // --help lists the pass already, under "Passes".
        llvm::cl::Hidden,
        llvm::cl::callback([argument, pipelineOption](const std::string &opts) {
          std::vector<std::string> &elements = flaggedPipeline();
          elements.push_back(opts.empty()
                                 ? std::string(argument)
                                 : std::string(argument) + "{" + opts + "}");
          std::string pipeline = "builtin.module(";
          llvm::interleave(
              elements, [&](const std::string &e) { pipeline += e; },
              [&] { pipeline += ","; });
          pipeline += ")";
          (void)llvm::cl::ProvidePositionalOption(pipelineOption, pipeline,
                                                  /*i=*/0);
        }));
  }
}

} // namespace

/// Dialect plugin entry point: adds the softmax dialect (and the external
/// models its lowerings rely on) to the tool's registry.
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SoftmaxDialect", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::softmax::registerAllDialects(*registry);
          }};
}

/// Pass plugin entry point: registers the softmax passes and pipelines, and
/// flags for them (see addPassFlags).
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SoftmaxPasses", LLVM_VERSION_STRING, []() {
            mlir::softmax::registerAllPasses();
            mlir::softmax::registerAllPipelines();
            addPassFlags();
          }};
}
