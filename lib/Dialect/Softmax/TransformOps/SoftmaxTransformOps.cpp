//===- SoftmaxTransformOps.cpp - the softmax transform extension ---------===//
//
// The extension's registration, select_algorithm and the pattern
// descriptors; the mapping ops are in MappingOps.cpp.
//
//===----------------------------------------------------------------------===//

// TransformDialect.h first, parsed as Debian's libMLIR was built (NDEBUG):
// with the project's assertions on, its registerTransformOps would call
// detail::checkImplementsTransformOpInterface, which only an assertions
// build of MLIR defines (cmake/StatisticABI.h does the same for
// Statistic.h). Its own includes come first, parsed as usual, so that only
// this header sees NDEBUG. The interpreter still refuses an op without
// TransformOpInterface when it runs one, and the tests run every op.
#include "mlir/IR/Dialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/TypeID.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#ifndef NDEBUG
#define NDEBUG
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#undef NDEBUG
#include <cassert> // assert() again, as -UNDEBUG asked.
#endif

#include "softmax-mlir/Dialect/Softmax/TransformOps/SoftmaxTransformOps.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::softmax;

#define GET_OP_CLASSES
#include "softmax-mlir/Dialect/Softmax/TransformOps/SoftmaxTransformOps.cpp.inc"

//===----------------------------------------------------------------------===//
// select_algorithm
//===----------------------------------------------------------------------===//

LogicalResult transform::SoftmaxSelectAlgorithmOp::verify() {
  // The GPU model and a forced algorithm do not read the L2 size: accepting
  // it would be a silent no-op.
  if (getL2Bytes() && (getTarget() != "cpu" || getForce()))
    return emitOpError("l2_bytes is a parameter of the CPU cost model; it "
                       "has no effect with target = \"gpu\" or with force");
  return success();
}

void transform::SoftmaxSelectAlgorithmOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getOpsMutable(), effects);
  modifiesPayload(effects);
}

DiagnosedSilenceableFailure transform::SoftmaxSelectAlgorithmOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  if (!isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp>(target)) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError() << "expects softmax.softmax, "
                                  "softmax.log_softmax or softmax.logsumexp "
                                  "ops, not "
                               << target->getName();
    diag.attachNote(target->getLoc()) << "target op";
    return diag;
  }
  // Both were verified (the attributes' constraints).
  CostModelTarget model = *parseCostModelTarget(getTarget());
  std::optional<Algorithm> forced;
  if (std::optional<StringRef> force = getForce())
    forced = parseConcreteAlgorithm(*force);
  int64_t l2Bytes =
      getL2Bytes() ? static_cast<int64_t>(*getL2Bytes()) : kDefaultL2Bytes;
  rewriter.modifyOpInPlace(
      target, [&] { resolveAlgorithm(target, model, forced, l2Bytes); });
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// set_unified_max
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::SoftmaxSetUnifiedMaxOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto attention = dyn_cast<AttentionOp>(target);
  std::optional<std::string> why =
      attention
          ? whyNoUnifiedMax(attention, getPhi().convertToFloat())
          : std::optional<std::string>("expects softmax.attention "
                                       "ops, not " +
                                       target->getName().getStringRef().str());
  if (why) {
    DiagnosedSilenceableFailure diag = emitSilenceableError() << *why;
    diag.attachNote(target->getLoc()) << "target op";
    return diag;
  }
  rewriter.modifyOpInPlace(
      attention, [&] { setUnifiedMax(attention, getPhi().convertToFloat()); });
  return DiagnosedSilenceableFailure::success();
}

void transform::SoftmaxSetUnifiedMaxOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getOpsMutable(), effects);
  transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// split_attention_keys
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::SoftmaxSplitAttentionKeysOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &results, transform::TransformState &state) {
  AttentionKeySplitModel model;
  if (auto v = getParallelUnits())
    model.parallelUnits = *v;
  if (auto v = getRowsPerBlock())
    model.rowsPerBlock = *v;
  if (auto v = getMinKeysPerSplit())
    model.minKeysPerSplit = *v;
  SmallVector<Operation *> parts;
  for (Operation *target : state.getPayloadOps(getTarget())) {
    auto op = dyn_cast<AttentionOp>(target);
    if (!op) {
      results.set(cast<OpResult>(getParts()), {});
      DiagnosedSilenceableFailure diag =
          emitSilenceableError()
          << "expects softmax.attention ops, not " << target->getName();
      diag.attachNote(target->getLoc()) << "target op";
      return diag;
    }
    int64_t count = getSplits() ? static_cast<int64_t>(*getSplits())
                                : chooseAttentionKeySplits(op, model);
    FailureOr<SmallVector<AttentionOp>> split =
        splitAttentionAlongKeys(rewriter, op, count);
    if (failed(split))
      return DiagnosedSilenceableFailure::definiteFailure();
    for (AttentionOp part : *split)
      parts.push_back(part);
  }
  results.set(cast<OpResult>(getParts()), parts);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// Pattern descriptors
//===----------------------------------------------------------------------===//

void transform::ApplySoftmaxRaisePatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  populateSoftmaxRaisePatterns(patterns);
}

void transform::ApplySoftmaxDecomposePatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  // The descriptor has no target option: an op still `auto` gets the CPU
  // cost model's choice, as its description says (select_algorithm first
  // picks another target's).
  populateSoftmaxExpandPatterns(patterns, CostModelTarget::CPU);
  populateSoftmaxCrossEntropyDecomposePatterns(patterns);
  populateSoftmaxTopKDecomposePatterns(patterns);
}

void transform::ApplySoftmaxStateToLinalgPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  populateSoftmaxStateToLinalgPatterns(patterns);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

namespace {
class SoftmaxTransformDialectExtension
    : public transform::TransformDialectExtension<
          SoftmaxTransformDialectExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SoftmaxTransformDialectExtension)

  using Base::Base;

  void init() {
    // The payload ops the extension matches, and the per-op strategy
    // attributes of the softmax dialect a script may spell.
    declareDependentDialect<SoftmaxDialect>();

    // What the patterns and the mappings create.
    declareGeneratedDialect<amdgpu::AMDGPUDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<cf::ControlFlowDialect>();
    declareGeneratedDialect<gpu::GPUDialect>();
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<LLVM::LLVMDialect>();
    declareGeneratedDialect<math::MathDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<nvgpu::NVGPUDialect>();
    declareGeneratedDialect<NVVM::NVVMDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
    declareGeneratedDialect<vector::VectorDialect>();

    registerTransformOps<
#define GET_OP_LIST
#include "softmax-mlir/Dialect/Softmax/TransformOps/SoftmaxTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::softmax::registerTransformDialectExtension(
    DialectRegistry &registry) {
  registry.addExtensions<SoftmaxTransformDialectExtension>();
}
