//===- StrategyAttr.cpp - CPUStrategy <-> #softmax.cpu_strategy ----------===//
//
// The C++ strategies stay the mapping's in-memory form; these convert them
// to and from the typed attributes a request and a record are spelled in.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::softmax;

CPUStrategyAttr mlir::softmax::getCPUStrategyAttr(MLIRContext *ctx,
                                                  Algorithm algorithm,
                                                  const CPUStrategy &s) {
  std::optional<ThreePassVariant> threePass;
  if (algorithm == Algorithm::ThreePass)
    threePass = s.threePass;
  return CPUStrategyAttr::get(ctx, algorithm, s.vectorWidth, s.unroll,
                              s.block, threePass, s.exp);
}

CPUStrategy mlir::softmax::applyCPUStrategyAttr(CPUStrategy base,
                                                CPUStrategyAttr attr) {
  if (std::optional<int64_t> v = attr.getVectorWidth())
    base.vectorWidth = *v;
  if (std::optional<int64_t> v = attr.getUnroll())
    base.unroll = *v;
  if (std::optional<int64_t> v = attr.getBlock())
    base.block = *v;
  if (std::optional<ThreePassVariant> v = attr.getThreePass())
    base.threePass = *v;
  if (std::optional<VectorExp> v = attr.getExp())
    base.exp = *v;
  return base;
}

FailureOr<CPUStrategy>
mlir::softmax::applyAttentionCPURequest(AttentionOp op,
                                        const CPUTarget &target,
                                        CPUStrategy overrides) {
  auto lanesOf = [&](const CPUStrategy &s) {
    return s.vectorWidth ? s.vectorWidth : target.vectorBits / 32;
  };
  // What #softmax.attention_cpu_strategy can record, as the softmax
  // mapping requires of its lanes.
  auto checkLanes = [&](const CPUStrategy &s) -> FailureOr<CPUStrategy> {
    int64_t lanes = lanesOf(s);
    if (lanes < 1 || lanes > 64 || !llvm::isPowerOf2_64(lanes))
      return op.emitOpError()
             << "vector width " << lanes << " is not a power of two in [1, 64]";
    return s;
  };
  Attribute request = op->getAttr(SoftmaxDialect::getStrategyAttrName());
  if (!request)
    return checkLanes(overrides);
  auto attr = dyn_cast<AttentionCPUStrategyAttr>(request);
  if (!attr)
    return op.emitOpError() << "asks for " << request
                            << "; the CPU mapping takes a "
                               "#softmax.attention_cpu_strategy";
  if (std::optional<int64_t> v = attr.getVectorWidth())
    overrides.vectorWidth = *v;
  int64_t lanes = lanesOf(overrides);
  if (std::optional<int64_t> keys = attr.getKeysPerBlock();
      keys && *keys != lanes)
    return op.emitOpError() << "asks for keys_per_block " << *keys
                            << ", but the CPU mapping scores one key per "
                               "lane of its "
                            << lanes << "-lane vectors";
  return checkLanes(overrides);
}
