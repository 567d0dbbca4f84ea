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

#include <cmath>

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

std::optional<std::string> mlir::softmax::whyNoUnifiedMax(AttentionOp op,
                                                          float phi) {
  if (!std::isfinite(phi))
    return std::string("a unified max needs a finite phi");
  if (op.hasSkipThreshold())
    return std::string("has a skip threshold, whose rule compares each tile "
                       "with the running max");
  return std::nullopt;
}

void mlir::softmax::setUnifiedMax(AttentionOp op, float phi) {
  op.setUnifiedMaxAttr(Builder(op.getContext()).getF32FloatAttr(phi));
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
    // it is left as it is, `force` included, unless a unified max is asked
    // for.
    std::optional<float> phi;
    if (!attentionUnifiedMax.empty()) {
      double value;
      if (StringRef(attentionUnifiedMax).getAsDouble(value) ||
          !std::isfinite(static_cast<float>(value))) {
        getOperation()->emitError()
            << "softmax-select-algorithm: attention-unified-max must be a "
               "finite number (phi), not '"
            << attentionUnifiedMax << "'";
        return signalPassFailure();
      }
      phi = static_cast<float>(value);
    }
    getOperation()->walk([&](SemanticOpInterface op) {
      resolveAlgorithm(op, *costTarget, forced, l2Bytes);
    });
    if (!phi)
      return;
    getOperation()->walk([&](AttentionOp op) {
      // A thresholded op cannot take it; it is told, not changed silently.
      if (std::optional<std::string> why = whyNoUnifiedMax(op, *phi))
        op.emitWarning() << "keeps the online max: " << *why;
      else
        setUnifiedMax(op, *phi);
    });
  }
};
} // namespace
