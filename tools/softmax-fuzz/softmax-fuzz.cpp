//===- softmax-fuzz.cpp - libFuzzer target over the passes and pipelines --===//
//
// Each input is [mode][pipeline][8 option bytes][rest]. With an even mode
// the rest is MLIR text (the seed corpus holds every test file's splits, in
// the generic form but for our own ops: onlyOpsWeFuzz);
// with an odd one it drives a generator of softmax-dialect programs (ops,
// shapes with 0 and odd sizes, dtypes, attributes, tensors or buffers, the
// generic form). The module is parsed, verified and run through one of our
// passes or pipelines with an option string built from the option bytes
// (values at and past every option's range). Diagnostics are expected and
// discarded; a crash, a hang (libFuzzer's -timeout), a sanitizer report or
// a pass that succeeds and leaves IR that does not verify is a finding.
//
//   build-asan/bin/softmax-fuzz -max_total_time=60 CORPUS_DIR
//   (scripts/fuzz.sh builds the seed corpus and runs it)
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "softmax-mlir/InitAll.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Reads the input's bytes; past the end, zeros.
struct Bytes {
  const uint8_t *data;
  size_t size, pos = 0;
  uint8_t next() { return pos < size ? data[pos++] : 0; }
  template <typename T, size_t N>
  const T &pick(const T (&table)[N]) {
    return table[next() % N];
  }
};

/// Values at and past the edges of every integer option.
constexpr const char *kInts[] = {"0",  "1",   "2",    "3",          "4",
                                 "7",  "8",   "16",   "17",         "32",
                                 "64", "65",  "1024", "2048",       "-1",
                                 "-4", "2147483648", "4294967296",
                                 "1152921504606846976",
                                 "9223372036854775807"};

/// The pass or pipeline an input runs, with the options it may set.
struct Target {
  const char *pipeline;
  const char *options[6];
};

constexpr Target kTargets[] = {
    {"softmax-raise", {"remarks=true"}},
    {"softmax-select-algorithm", {"target=gpu", "l2-bytes=", "force=online"}},
    {"softmax-decompose",
     {"reduction-tile-size=", "attention-key-tile-size=", "to-state=true",
      "algorithm-target=gpu"}},
    {"softmax-bufferize,softmax-map-to-cpu",
     {"vector-width=", "unroll=", "block=", "three-pass=tiled",
      "l1-bytes=", "exp=polynomial"}},
    {"softmax-bufferize,softmax-map-to-gpu",
     {"threads-per-row=", "rows-per-block=", "vector-width=", "cached-vectors=",
      "splits=", "chip=gfx942"}},
    {"softmax-bufferize,softmax-map-to-gpu",
     {"attention-rows-per-warp=", "attention-buffers=", "chip=sm_80",
      "attention-f32-precision=tf32", "chip=gfx90a"}},
    {"softmax-to-cpu",
     {"vector-width=", "threads=", "three-pass=reload",
      "reduction-tile-size=", "exp=polynomial"}},
    {"softmax-split-attention-keys",
     {"splits=", "parallel-units=", "rows-per-block=", "min-keys-per-split="}},
    {"softmax-split-attention-keys{splits=3},softmax-to-cpu",
     {"vector-width=", "threads=", "reduction-tile-size="}},
    {"softmax-to-nvvm",
     {"format=llvm", "chip=sm_80", "features=+ptx", "chip="}},
    {"softmax-to-rocdl", {"format=llvm", "chip=gfx90a"}},
    {"canonicalize,cse", {}},
};

/// A textual option string: some of the target's options, integer ones
/// completed with an edge value.
std::string optionsFor(const Target &t, Bytes &b) {
  std::string out;
  for (int i = 0; i < 6 && t.options[i]; ++i) {
    if (b.next() % 3)
      continue;
    std::string o = t.options[i];
    if (o.back() == '=')
      o += b.pick(kInts);
    out += (out.empty() ? "" : " ") + o;
  }
  return out;
}

constexpr const char *kDims[] = {"0", "1", "2", "3", "7", "16", "64", "100",
                                 "131", "?"};
constexpr const char *kTypes[] = {"f32", "f16", "bf16", "f64", "i32", "f8E4M3FN"};
// Mostly what the verifier takes, so that most programs reach the passes:
// one draw in eight comes from the hostile tables above.
constexpr const char *kValidTypes[] = {"f32", "f32", "f16", "bf16", "f64"};
constexpr const char *kValidDims[] = {"1", "2", "3", "7", "16", "64", "100",
                                      "131"};
constexpr const char *kValidSizes[] = {"1", "2", "4", "8", "16", "32"};

template <size_t N, size_t M>
const char *biased(Bytes &b, const char *const (&valid)[N],
                   const char *const (&any)[M]) {
  return b.next() % 8 ? b.pick(valid) : b.pick(any);
}

/// A generated program: one function with a softmax-dialect op on tensors
/// or buffers, shapes and attributes from the bytes (not always valid: the
/// verifier's diagnostics are part of what is fuzzed).
std::string generate(Bytes &b) {
  unsigned rank = 1 + b.next() % 4;
  std::string type = biased(b, kValidTypes, kTypes);
  bool buffers = b.next() & 1;
  std::string shape;
  std::vector<std::string> dims;
  for (unsigned i = 0; i < rank; ++i) {
    dims.push_back(biased(b, kValidDims, kDims));
    shape += dims.back() + "x";
  }
  std::string t = (buffers ? "memref<" : "tensor<") + shape + type + ">";
  int64_t dim = b.next() % 8 ? b.next() % rank
                             : static_cast<int64_t>(b.next() % (rank + 1)) - 1;
  const char *masked = (b.next() & 1) ? "zero" : "nan";
  const char *algs[] = {"", " algorithm(online)", " algorithm(three_pass)",
                        " algorithm(exp_pair)", " algorithm(auto)"};
  std::string alg = b.pick(algs);
  std::string strategy;
  switch (b.next() % 4) {
  case 1:
    strategy = " {softmax.strategy = #softmax.gpu_strategy<threads_per_row = " +
               std::string(biased(b, kValidSizes, kInts)) + ">}";
    break;
  case 2:
    strategy = " {softmax.strategy = #softmax.cpu_strategy<vector_width = " +
               std::string(biased(b, kValidSizes, kInts)) + ">}";
    break;
  default:
    break;
  }
  const char *ops[] = {"softmax", "log_softmax", "logsumexp", "attention"};
  std::string op = b.pick(ops);
  std::string out;
  llvm::raw_string_ostream os(out);
  if (op == "attention") {
    constexpr const char *kHeadDims[] = {"16", "32", "64"};
    constexpr const char *kHeadGroups[] = {"1", "2"};
    std::string d = biased(b, kHeadDims, kDims),
                n = biased(b, kValidDims, kDims),
                m = biased(b, kValidDims, kDims);
    std::string q = std::string(buffers ? "memref<" : "tensor<") + "1x2x" + n +
                    "x" + d + "x" + type + ">";
    std::string k = std::string(buffers ? "memref<" : "tensor<") + "1x" +
                    biased(b, kHeadGroups, kDims) + "x" + m + "x" + d + "x" +
                    type + ">";
    std::string attrs = masked == std::string("zero") ? " masked(zero)"
                                                      : " masked(nan)";
    if (b.next() & 1)
      attrs += " causal";
    if (b.next() & 1)
      attrs += std::string(" window(") + b.pick(kInts) + ")";
    if (b.next() & 1)
      attrs += " scale(0.125)";
    // The skip threshold: both forms, tiles from the hostile sizes.
    std::string threshold;
    if (b.next() % 4 == 0) {
      constexpr const char *kKinds[] = {"lambda", "scale_factor"};
      attrs += std::string(" skip(") + b.pick(kKinds) + " %t : f32, tile [" +
               biased(b, kValidSizes, kInts) + ", " +
               biased(b, kValidSizes, kInts) + "])";
      threshold = ", %t: f32";
    }
    os << "func.func @f(%q: " << q << ", %k: " << k << ", %v: " << k
       << ", %o: " << q << threshold << ")" << (buffers ? "" : " -> " + q)
       << " {\n  " << (buffers ? "" : "%r = ")
       << "softmax.attention ins(%q, %k, %v : " << q << ", " << k << ", " << k
       << ") outs(%o : " << q << ")" << attrs << strategy << "\n  return"
       << (buffers ? "" : " %r : " + q) << "\n}\n";
    return out;
  }
  std::string outType = t;
  if (op == "logsumexp") {
    // The reduced dimension dropped (or kept, to exercise the verifier).
    std::string reduced;
    for (unsigned i = 0; i < rank; ++i)
      if (static_cast<int64_t>(i) != dim)
        reduced += (b.next() % 8 ? dims[i] : std::string(b.pick(kDims))) + "x";
    outType = (buffers ? "memref<" : "tensor<") + reduced + type + ">";
  }
  os << "func.func @f(%x: " << t << ", %y: " << outType << ")"
     << (buffers ? "" : " -> " + outType) << " {\n  "
     << (buffers ? "" : "%r = ") << "softmax." << op << " ins(%x : " << t
     << ") outs(%y : " << outType << ") dimension(" << dim << ") masked("
     << masked << ")" << alg << strategy << "\n  return"
     << (buffers ? "" : " %r : " + outType) << "\n}\n";
  return out;
}

/// Whether every op of `text` is one the fuzzer is after: ours in any form;
/// func, builtin, arith, tensor, memref and linalg (what our passes read
/// and write) in the generic form. Upstream's custom parsers and some of
/// its verifiers crash on malformed text (linalg.reduce's parser and the
/// gpu dialect's attribute verifier did within 25000 inputs); those are
/// not ours to find here, so the seed corpus is in the generic form and a
/// mutation that brings back an upstream custom form, or another dialect,
/// is skipped.
bool onlyOpsWeFuzz(StringRef text) {
  auto ours = [](StringRef dialect) { return dialect == "softmax"; };
  auto generic = [&](StringRef dialect) {
    return ours(dialect) || dialect == "func" || dialect == "builtin" ||
           dialect == "arith" || dialect == "tensor" ||
           dialect == "memref" || dialect == "linalg";
  };
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    line = line.ltrim();
    if (line.starts_with("%")) {
      size_t eq = line.find("= ");
      if (eq == StringRef::npos)
        continue;
      line = line.drop_front(eq + 2).ltrim();
    }
    bool quoted = line.consume_front("\"");
    size_t dot =
        line.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789");
    if (dot == StringRef::npos || dot == 0 || line[dot] != '.')
      continue;
    StringRef dialect = line.take_front(dot);
    if (quoted ? !generic(dialect) : !(ours(dialect) || dialect == "func"))
      return false;
  }
  return true;
}

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    registerAllPasses();
    softmax::registerAllPasses();
    softmax::registerAllPipelines();
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllGPUToLLVMIRTranslations(registry);
    softmax::registerAllDialects(registry);
    auto *c = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    // Diagnostics are expected: bad input must get one, not a crash.
    c->getDiagEngine().registerHandler([](Diagnostic &d) {
      if (std::getenv("SOFTMAX_FUZZ_PRINT"))
        llvm::errs() << "softmax-fuzz diagnostic: " << d << "\n";
      return success();
    });
    return c;
  }();
  return *ctx;
}

/// Verifies the IR after every pass that succeeded and aborts when it does not
/// verify. (The pass manager's own verifier would turn invalid IR into a
/// failed run, whose diagnostics the target discards: a finding lost.)
struct AbortOnInvalidIR : PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "softmax-fuzz: " << pass->getArgument()
                 << " succeeded and left IR that does not verify\n";
    std::abort();
  }
};

/// The pass manager of a pipeline text, built once and reused: most of an
/// input's time went to building pass managers and freezing the pattern sets
/// of their canonicalizers over every loaded dialect, which a reused pass
/// manager does once (its initialization is keyed on the context's registry,
/// which does not change). Reuse is also how an embedding compiler runs its
/// pipeline over many modules, so a pass that keeps state from one run to
/// the next is a finding too. Null when the text does not parse.
PassManager *passManagerFor(MLIRContext &ctx, const std::string &pipeline) {
  static llvm::StringMap<std::unique_ptr<PassManager>> cache;
  auto it = cache.find(pipeline);
  if (it != cache.end())
    return it->second.get();
  // Bounded: option strings come from tables, but their combinations are
  // many.
  if (cache.size() >= 4096)
    cache.clear();
  auto pm = std::make_unique<PassManager>(&ctx);
  if (failed(parsePassPipeline(pipeline, *pm))) {
    pm.reset();
  } else {
    pm->enableVerifier(false);
    pm->addInstrumentation(std::make_unique<AbortOnInvalidIR>());
  }
  return cache.insert({pipeline, std::move(pm)}).first->second.get();
}

/// How far inputs got, printed at exit: a run that parses nothing fuzzes
/// nothing.
struct Counts {
  uint64_t inputs = 0, skipped = 0, verified = 0, ran = 0, succeeded = 0;
  ~Counts() {
    llvm::errs() << "softmax-fuzz: " << inputs << " inputs, " << skipped
                 << " skipped (other dialects or forms), " << verified
                 << " parsed and verified, " << ran << " pipelines run, "
                 << succeeded << " succeeded\n";
  }
} counts;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ++counts.inputs;
  Bytes b{data, size};
  uint8_t mode = b.next();
  const Target &target = b.pick(kTargets);
  Bytes opts{data + std::min<size_t>(size, 2), std::min<size_t>(8, size - std::min<size_t>(size, 2))};
  std::string options = optionsFor(target, opts);
  b.pos = std::min<size_t>(size, 10);
  std::string text = (mode & 1) ? generate(b)
                                : std::string(reinterpret_cast<const char *>(
                                                  data + b.pos),
                                              size - b.pos);
  if (!(mode & 1) && !onlyOpsWeFuzz(text)) {
    ++counts.skipped;
    return 0;
  }
  MLIRContext &ctx = context();
  // SOFTMAX_FUZZ_PRINT=1 shows each input's program and pipeline (to
  // triage a finding, or to see what the generator draws).
  static const bool print = std::getenv("SOFTMAX_FUZZ_PRINT");
  if (print)
    llvm::errs() << "softmax-fuzz input:\n" << text << "\n";
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  // The parser verifies what it parsed.
  if (!module)
    return 0;
  ++counts.verified;
  // The passes of the module's own pass manager (no builtin.module(...)
  // anchor: that would nest them under module ops the module does not
  // have, and run nothing). Options go to the last pass of the target.
  std::string pipeline = target.pipeline;
  if (!options.empty())
    pipeline += "{" + options + "}";
  PassManager *pm = passManagerFor(ctx, pipeline);
  if (!pm)
    return 0;
  ++counts.ran;
  LogicalResult ran = pm->run(*module);
  if (print)
    llvm::errs() << "softmax-fuzz pipeline: " << pipeline << ": "
                 << (succeeded(ran) ? "succeeded" : "failed") << "\n";
  if (succeeded(ran))
    ++counts.succeeded;
  return 0;
}
