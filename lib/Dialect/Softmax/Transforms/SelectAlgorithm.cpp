//===- SelectAlgorithm.cpp - the algorithm cost model --------------------===//
//
// Picks three_pass, online or exp_pair for every semantic op still marked
// auto: the one place where `auto` is resolved (the mappings and
// softmax-decompose call selectAlgorithm with an explicit target for what
// reaches them unresolved). The model is deliberately small and documented
// in docs/Passes/softmax-select-algorithm.md; issue-level benchmarks refine
// its constants.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXSELECTALGORITHM
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

std::optional<Algorithm> mlir::softmax::parseConcreteAlgorithm(StringRef name) {
  std::optional<Algorithm> alg = symbolizeAlgorithm(name);
  if (!alg || *alg == Algorithm::Auto)
    return std::nullopt;
  return alg;
}

std::optional<CostModelTarget>
mlir::softmax::parseCostModelTarget(StringRef name) {
  if (name == "cpu")
    return CostModelTarget::CPU;
  if (name == "gpu")
    return CostModelTarget::GPU;
  return std::nullopt;
}

Algorithm mlir::softmax::selectAlgorithm(CostModelTarget target,
                                         std::optional<int64_t> rowLength,
                                         unsigned elementBytes,
                                         int64_t l2Bytes) {
  // GPU: memory bound; online reads the row once for its state where
  // three_pass reads it twice, and exp_pair's integer bookkeeping buys
  // nothing when exp is a single MUFU instruction.
  if (target == CostModelTarget::GPU)
    return Algorithm::Online;
  // CPU: a row that stays in L2 makes the extra max pass cheap, and
  // three_pass has the cheapest inner loops. Past that every pass costs a
  // trip to memory and exp_pair's two passes win (Dukhan & Ablavatski).
  if (rowLength && *rowLength * static_cast<int64_t>(elementBytes) <=
                       l2Bytes / 2)
    return Algorithm::ThreePass;
  return Algorithm::ExpPair;
}

Algorithm mlir::softmax::selectAlgorithm(SemanticOpInterface op,
                                         CostModelTarget target,
                                         int64_t l2Bytes) {
  if (!op.hasSelectableAlgorithm())
    return op.getAlgorithm();
  auto input = cast<ShapedType>(op.getReducedInput().getType());
  return selectAlgorithm(target, op.getStaticRowLength(),
                         input.getElementTypeBitWidth() / 8, l2Bytes);
}

Algorithm mlir::softmax::resolveAlgorithm(Operation *op,
                                          CostModelTarget target,
                                          std::optional<Algorithm> forced,
                                          int64_t l2Bytes) {
  auto semantic = dyn_cast<SemanticOpInterface>(op);
  if (!semantic)
    return Algorithm::Auto;
  if (!semantic.hasSelectableAlgorithm())
    return semantic.getAlgorithm();
  Algorithm chosen = forced ? *forced : semantic.getAlgorithm();
  if (chosen == Algorithm::Auto)
    chosen = selectAlgorithm(semantic, target, l2Bytes);
  semantic.setAlgorithm(chosen);
  return chosen;
}

namespace {
struct SoftmaxSelectAlgorithmPass
    : public softmax::impl::SoftmaxSelectAlgorithmBase<SoftmaxSelectAlgorithmPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<Algorithm> forced;
    if (!force.empty() && !(forced = parseConcreteAlgorithm(force))) {
      getOperation()->emitError()
          << "softmax-select-algorithm: unknown algorithm '" << force
          << "' (expected three_pass, online or exp_pair)";
      return signalPassFailure();
    }
    if (l2Bytes < 1) {
      getOperation()->emitError()
          << "softmax-select-algorithm: l2-bytes must be a size of 1 or more "
             "bytes, not "
          << static_cast<int64_t>(l2Bytes);
      return signalPassFailure();
    }
    std::optional<CostModelTarget> costTarget = parseCostModelTarget(target);
    if (!costTarget) {
      getOperation()->emitError()
          << "softmax-select-algorithm: unknown target '" << target
          << "' (expected cpu or gpu)";
      return signalPassFailure();
    }
    // Attention has no choice (SemanticOpInterface::hasSelectableAlgorithm):
    // it is left as it is, `force` included.
    getOperation()->walk([&](SemanticOpInterface op) {
      resolveAlgorithm(op, *costTarget, forced, l2Bytes);
    });
  }
};
} // namespace
