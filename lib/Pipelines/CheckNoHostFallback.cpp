//===- CheckNoHostFallback.cpp - softmax-check-no-host-fallback ----------===//
//
// A GPU pipeline maps the softmax ops it knows to kernels and compiles the
// rest of the module for the host. This pass stops it when the rest still
// holds something softmax- or attention-shaped, which would otherwise come
// out as a CPU program without a word.
//
// The detector is deliberately small: exp inside a linalg body, next to a
// reduction (or a contraction). It does not try to be softmax-raise.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Pipelines/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXCHECKNOHOSTFALLBACK
#include "softmax-mlir/Pipelines/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

//===----------------------------------------------------------------------===//
// The detector
//===----------------------------------------------------------------------===//

static bool computesExp(linalg::LinalgOp op) {
  return op->walk([](Operation *inner) {
              return isa<math::ExpOp, math::Exp2Op, math::ExpM1Op>(inner)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
      .wasInterrupted();
}

/// Steps from a tensor through reshapes and casts to where it was made.
static Value tensorSource(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def))
      value = expand.getSrc();
    else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
      value = collapse.getSrc();
    else if (auto cast = dyn_cast<tensor::CastOp>(def))
      value = cast.getSource();
    else
      break;
  }
  return value;
}

/// Steps from a buffer through views (subview, cast, reshapes) to the
/// buffer they view.
static Value bufferRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || view.getViewSource() == value)
      break;
    value = view.getViewSource();
  }
  return value;
}

/// Every linalg op that uses `root` or a view of it, with whether it
/// writes it (a DPS init) rather than reads it.
static void collectBufferUsers(
    Value root, SmallVectorImpl<std::pair<linalg::LinalgOp, bool>> &users) {
  SmallVector<Value> worklist{root};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user)) {
        users.push_back({linalgOp, linalgOp.isDpsInit(&use)});
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == value)
          for (Value result : user->getResults())
            worklist.push_back(result);
    }
  }
}

namespace {
/// A linalg op next to the exp op, and which way the data flows.
struct Neighbour {
  linalg::LinalgOp op;
  bool producer; // it writes what the exp op reads; otherwise the reverse
};
} // namespace

static SmallVector<Neighbour> findNeighbours(linalg::LinalgOp op) {
  SmallVector<Neighbour> neighbours;
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    bool reads = !op.isDpsInit(&operand) ||
                 op.payloadUsesValueFromOperand(&operand);
    bool writes = op.isDpsInit(&operand);
    if (isa<RankedTensorType>(value.getType())) {
      if (auto producer =
              tensorSource(value).getDefiningOp<linalg::LinalgOp>())
        neighbours.push_back({producer, /*producer=*/true});
      continue;
    }
    if (!isa<MemRefType>(value.getType()))
      continue;
    SmallVector<std::pair<linalg::LinalgOp, bool>> users;
    collectBufferUsers(bufferRoot(value), users);
    for (auto [user, userWrites] : users) {
      if (user == op)
        continue;
      if (reads && userWrites)
        neighbours.push_back({user, /*producer=*/true});
      else if (writes && !userWrites)
        neighbours.push_back({user, /*producer=*/false});
    }
  }
  // Consumers of tensor results, through reshapes.
  SmallVector<Value> worklist(op->getResults());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto consumer = dyn_cast<linalg::LinalgOp>(user))
        neighbours.push_back({consumer, /*producer=*/false});
      else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                   tensor::CastOp>(user))
        worklist.push_back(user->getResult(0));
    }
  }
  return neighbours;
}

std::optional<HostFallback> mlir::softmax::findSoftmaxShaped(Operation *op) {
  if (isa_and_nonnull<SoftmaxDialect>(op->getDialect()))
    return HostFallback{op, HostFallbackKind::SoftmaxOp,
                        "'" + op->getName().getStringRef().str() + "'"};
  if (isa<linalg::SoftmaxOp>(op))
    return HostFallback{op, HostFallbackKind::LinalgSoftmax, "linalg.softmax"};

  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !computesExp(linalgOp))
    return std::nullopt;
  if (linalgOp.getNumReductionLoops() > 0)
    return HostFallback{op, HostFallbackKind::Softmax,
                        "math.exp reduced in the same op"};

  std::optional<HostFallback> softmax;
  for (Neighbour neighbour : findNeighbours(linalgOp)) {
    if (neighbour.op.getNumReductionLoops() == 0)
      continue;
    if (linalg::isaContractionOpInterface(neighbour.op))
      return HostFallback{op, HostFallbackKind::Attention,
                          neighbour.producer
                              ? "math.exp of a matmul's result"
                              : "math.exp whose result feeds a matmul",
                          neighbour.op};
    if (!softmax)
      softmax = HostFallback{op, HostFallbackKind::Softmax,
                             neighbour.producer
                                 ? "math.exp of a reduction's result"
                                 : "math.exp whose result is reduced",
                             neighbour.op};
  }
  return softmax;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct SoftmaxCheckNoHostFallbackPass
    : public mlir::softmax::impl::SoftmaxCheckNoHostFallbackBase<
          SoftmaxCheckNoHostFallbackPass> {
  using Base::Base;

  void runOnOperation() override {
    bool found = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Kernels are what we want; nothing inside them is host code.
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      std::optional<HostFallback> fallback = findSoftmaxShaped(op);
      if (!fallback)
        return WalkResult::advance();
      found = true;
      ++numHostFallbacks;
      report(*fallback);
      // A softmax op's or linalg.softmax's body is part of it.
      return WalkResult::skip();
    });
    if (found)
      signalPassFailure();
  }

  void report(const HostFallback &fallback) {
    InFlightDiagnostic diag = fallback.op->emitError() << pipeline
                                                       << " would compile ";
    switch (fallback.kind) {
    case HostFallbackKind::SoftmaxOp:
      diag << "this " << fallback.why
           << " op for the host, not into a GPU kernel (softmax-map-to-gpu "
              "did not map it)";
      break;
    case HostFallbackKind::LinalgSoftmax:
      diag << "this linalg.softmax for the host, not into a GPU kernel "
              "(softmax-raise did not raise it)";
      break;
    case HostFallbackKind::Softmax:
    case HostFallbackKind::Attention:
      diag << "this "
           << (fallback.kind == HostFallbackKind::Softmax ? "softmax"
                                                          : "attention")
           << "-shaped computation (" << fallback.why
           << ") for the host, not into a GPU kernel (softmax-raise did not "
              "raise it)";
      break;
    }
    diag << "; pass allow-host-code=true to the pipeline to allow host code";
    if (fallback.related)
      diag.attachNote(fallback.related->getLoc())
          << (fallback.kind == HostFallbackKind::Attention
                  ? "the matmul"
                  : "the reduction");
  }
};
} // namespace
