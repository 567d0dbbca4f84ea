//===- SoftmaxInterfaces.cpp - SemanticOpInterface of the softmax ops ----===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

using namespace mlir;
using namespace mlir::softmax;

#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxInterfaces.cpp.inc"

std::optional<NormalizeKind> SoftmaxOp::getNormalizeKind() {
  return NormalizeKind::Softmax;
}

std::optional<NormalizeKind> LogSoftmaxOp::getNormalizeKind() {
  return NormalizeKind::LogSoftmax;
}

std::optional<NormalizeKind> LogSumExpOp::getNormalizeKind() {
  return std::nullopt;
}

// Attention's row is the scores of one query against every key.
Value AttentionOp::getReducedInput() { return getKey(); }

int64_t AttentionOp::getReductionDimension() { return 2; }

// Both mappings (AttentionToCPU.cpp, AttentionToGPU.cpp) carry the online
// state over blocks of keys; there is no attribute to choose another.
Algorithm AttentionOp::getAlgorithm() { return Algorithm::Online; }

bool AttentionOp::hasSelectableAlgorithm() { return false; }

void AttentionOp::setAlgorithm(Algorithm algorithm) {
  assert(algorithm == Algorithm::Online &&
         "softmax.attention has no algorithm attribute: it is always online");
  (void)algorithm;
}

std::optional<NormalizeKind> AttentionOp::getNormalizeKind() {
  return NormalizeKind::Softmax;
}
