//===- MappingOps.cpp - transform.softmax.map_to_cpu / map_to_gpu --------===//
//
// Both ops build their mapping from the same options struct as their pass
// (getCPUMappingFromOptions, getGPUMappingFromOptions) and map one payload
// op at a time through the pass's own entry point (mapOpToCPU, mapOpToGPU).
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/TransformOps/SoftmaxTransformOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

using namespace mlir;
using namespace mlir::softmax;

static bool isMappable(Operation *op) {
  return isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp, AttentionOp, TopKOp,
             LinearCrossEntropyOp, LinearCrossEntropyGradOp>(op);
}

static DiagnosedSilenceableFailure
notMappable(transform::TransformOpInterface transformOp, Operation *target) {
  DiagnosedSilenceableFailure diag =
      transformOp.emitSilenceableError()
      << "expects softmax.softmax, softmax.log_softmax, softmax.logsumexp, "
         "softmax.attention, softmax.topk, softmax.linear_cross_entropy or "
         "softmax.linear_cross_entropy_grad ops, not "
      << target->getName();
  diag.attachNote(target->getLoc()) << "target op";
  return diag;
}

/// Copies `from` (its message and notes) as notes of `to`.
template <typename Diag> static void attachAsNotes(Diag &to, Diagnostic &from) {
  to.attachNote(from.getLocation()) << from.str();
  for (Diagnostic &note : from.getNotes())
    to.attachNote(note.getLocation()) << note.str();
}

/// Maps `target` with `map` and returns the one `ResultOp` the mapping put
/// in its place. The mappings report what they cannot honour as error
/// diagnostics on the payload op; those are captured and become notes of a
/// silenceable failure of `transformOp` when the payload is unchanged, and
/// of a definite failure when the mapping had already built IR. `restore`
/// undoes what the caller changed on `target` before the mapping.
template <typename ResultOp>
static DiagnosedSilenceableFailure
mapPayloadOp(transform::TransformOpInterface transformOp, Operation *target,
             transform::ApplyToEachResultList &results, StringRef what,
             function_ref<LogicalResult()> map,
             function_ref<void()> restore = {}) {
  Block *block = target->getBlock();
  Operation *prev = target->getPrevNode();
  Operation *next = target->getNextNode();
  // The ops between the neighbours: the target before, its replacement
  // after (the mappings build in front of the op, then erase it).
  auto between = [&] {
    Block::iterator begin =
        prev ? std::next(prev->getIterator()) : block->begin();
    Block::iterator end = next ? next->getIterator() : block->end();
    return llvm::make_range(begin, end);
  };

  SmallVector<Diagnostic> diagnostics;
  LogicalResult mapped = failure();
  {
    ScopedDiagnosticHandler capture(target->getContext(),
                                    [&](Diagnostic &diag) {
                                      diagnostics.push_back(std::move(diag));
                                      return success();
                                    });
    mapped = map();
  }

  if (failed(mapped)) {
    bool untouched =
        llvm::hasSingleElement(between()) && &*between().begin() == target;
    if (untouched) {
      if (restore)
        restore();
      DiagnosedSilenceableFailure diag = transformOp.emitSilenceableError()
                                         << "could not map to " << what;
      for (Diagnostic &captured : diagnostics)
        attachAsNotes(diag, captured);
      if (diagnostics.empty())
        diag.attachNote(target->getLoc()) << "target op";
      return diag;
    }
    DiagnosedDefiniteFailure diag =
        emitDefiniteFailure(transformOp, "could not map to ")
        << what << " after the mapping had changed the payload";
    for (Diagnostic &captured : diagnostics)
      attachAsNotes(diag, captured);
    return diag;
  }

  // Success: warnings or remarks the mapping emitted go on to the handlers
  // they were meant for.
  DiagnosticEngine &engine = transformOp->getContext()->getDiagEngine();
  for (Diagnostic &diag : diagnostics)
    engine.emit(std::move(diag));

  // An attention may leave helper launches around its kernel (the counts'
  // zeroing, split-KV's merge): the op's own is the one that records its
  // strategy. The cross-entropy gradient's chunked form launches its
  // kernels inside a host loop over the chunks: without one at the top
  // level that records a strategy, the nested one that does.
  SmallVector<ResultOp> produced;
  for (Operation &op : between())
    if (auto result = dyn_cast<ResultOp>(op))
      produced.push_back(result);
  auto hasStrategy = [](ResultOp op) {
    return op->hasAttr(SoftmaxDialect::getStrategyAttrName());
  };
  if (produced.size() > 1)
    llvm::erase_if(produced, [&](ResultOp op) { return !hasStrategy(op); });
  if (produced.size() <= 1 && (produced.empty() || !hasStrategy(produced[0]))) {
    SmallVector<ResultOp> nested;
    for (Operation &op : between())
      op.walk([&](ResultOp result) {
        if (result.getOperation() != &op && hasStrategy(result))
          nested.push_back(result);
      });
    if (nested.size() == 1)
      produced = nested;
  }
  if (produced.size() != 1)
    return emitDefiniteFailure(transformOp)
           << "the mapping to " << what << " left " << produced.size() << " "
           << ResultOp::getOperationName() << " ops, not one";
  results.push_back(produced.front());
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// map_to_cpu
//===----------------------------------------------------------------------===//

/// The softmax-map-to-cpu options the attributes spell; absent ones keep
/// the pass's defaults.
static SoftmaxMapToCPUOptions getPassOptions(transform::SoftmaxMapToCPUOp op) {
  SoftmaxMapToCPUOptions options;
  if (auto v = op.getVectorWidth())
    options.vectorWidth = *v;
  if (auto v = op.getUnroll())
    options.unroll = *v;
  if (auto v = op.getBlock())
    options.block = *v;
  if (auto v = op.getThreePass())
    options.threePass = v->str();
  if (auto v = op.getL1Bytes())
    options.l1Bytes = *v;
  if (auto v = op.getL2Bytes())
    options.l2Bytes = *v;
  if (auto v = op.getExp())
    options.exp = v->str();
  return options;
}

DiagnosedSilenceableFailure transform::SoftmaxMapToCPUOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  if (!isMappable(target))
    return notMappable(*this, target);
  FailureOr<CPUMapping> mapping = getCPUMappingFromOptions(
      getPassOptions(*this), [&] { return emitOpError(); });
  if (failed(mapping))
    return DiagnosedSilenceableFailure::definiteFailure();
  return mapPayloadOp<scf::ParallelOp>(
      *this, target, results, "CPU vector loops",
      [&] { return mapOpToCPU(rewriter, target, *mapping); });
}

//===----------------------------------------------------------------------===//
// map_to_gpu
//===----------------------------------------------------------------------===//

/// The per-op strategy request the GPU mapping reads (SoftmaxToGPU.cpp,
/// AttentionToGPU.cpp): #softmax.gpu_strategy on a softmax, log_softmax or
/// logsumexp, #softmax.attention_gpu_strategy on an attention, under the
/// dialect's one strategy attribute name.
static constexpr StringLiteral kGPUStrategyAttrName =
    SoftmaxDialect::getStrategyAttrName();
static bool isGPUStrategy(Attribute attr) {
  return isa<GPUStrategyAttr, AttentionGPUStrategyAttr>(attr);
}

static SoftmaxMapToGPUOptions getPassOptions(transform::SoftmaxMapToGPUOp op) {
  SoftmaxMapToGPUOptions options;
  if (auto v = op.getChip())
    options.chip = v->str();
  if (auto v = op.getThreadsPerRow())
    options.threadsPerRow = *v;
  if (auto v = op.getRowsPerBlock())
    options.rowsPerBlock = *v;
  if (auto v = op.getVectorWidth())
    options.vectorWidth = *v;
  if (auto v = op.getCachedVectors())
    options.cachedVectors = *v;
  if (auto v = op.getUnroll())
    options.unroll = *v;
  if (auto v = op.getSplits())
    options.splits = *v;
  if (auto v = op.getAttentionRowsPerWarp())
    options.attentionRowsPerWarp = *v;
  if (auto v = op.getAttentionBuffers())
    options.attentionBuffers = *v;
  if (auto v = op.getAttentionKeySplits())
    options.attentionKeySplits = *v;
  if (auto v = op.getAttentionPackedHeads())
    options.attentionPackedHeads = *v;
  if (auto v = op.getAttentionStreamK())
    options.attentionStreamK = *v;
  if (auto v = op.getCrossEntropyVocabSplits())
    options.crossEntropyVocabSplits = *v;
  if (auto v = op.getAttentionF32Precision())
    options.attentionF32Precision = v->str();
  return options;
}

LogicalResult transform::SoftmaxMapToGPUOp::verify() {
  // The chip and the tf32-on-CDNA rule, as the pass checks them.
  if (failed(getGPUMappingFromOptions(getPassOptions(*this),
                                      [&] { return emitOpError(); })))
    return failure();
  if (Attribute strategy = getStrategyAttr();
      strategy && !isGPUStrategy(strategy))
    return emitOpError() << "strategy must be a #softmax.gpu_strategy or a "
                            "#softmax.attention_gpu_strategy, as "
                         << kGPUStrategyAttrName << " takes, not " << strategy;
  return success();
}

DiagnosedSilenceableFailure transform::SoftmaxMapToGPUOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  if (!isMappable(target))
    return notMappable(*this, target);
  // Verified: the chip is known.
  GPUMapping mapping = *getGPUMappingFromOptions(getPassOptions(*this),
                                                 [&] { return emitOpError(); });

  Attribute strategy = getStrategyAttr();
  Attribute previous = target->getAttr(kGPUStrategyAttrName);
  if (strategy) {
    if (isa<AttentionOp>(target) != isa<AttentionGPUStrategyAttr>(strategy)) {
      DiagnosedSilenceableFailure diag =
          emitSilenceableError()
          << "strategy " << strategy << " does not apply to "
          << target->getName()
          << ": an attention takes a #softmax.attention_gpu_strategy, a "
             "softmax, log_softmax or logsumexp a #softmax.gpu_strategy";
      diag.attachNote(target->getLoc()) << "target op";
      return diag;
    }
    rewriter.modifyOpInPlace(
        target, [&] { target->setAttr(kGPUStrategyAttrName, strategy); });
  }
  auto restore = [&] {
    if (!strategy)
      return;
    rewriter.modifyOpInPlace(target, [&] {
      if (previous)
        target->setAttr(kGPUStrategyAttrName, previous);
      else
        target->removeAttr(kGPUStrategyAttrName);
    });
  };
  return mapPayloadOp<gpu::LaunchOp>(
      *this, target, results, "a GPU kernel",
      [&] { return mapOpToGPU(rewriter, target, mapping); }, restore);
}
