//===- RaiseReport.cpp - the candidates softmax-raise left alone ----------===//
//
// A user who runs softmax-raise on a graph needs to know what stayed linalg
// and why, or the unraised softmax runs 10x slower without a word. The
// matchers say how far they got; whatever got to a sum of exp (softmax
// family) or to a product of a softmax with a matrix (attention) is
// softmax-shaped, and its reason is reported; so is a gather of
// log-probabilities that did not become a cross-entropy.
//
//===----------------------------------------------------------------------===//

#include "RaiseUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::raise;

/// Whether `e` is, or is computed elementwise from, a softmax (a dropout
/// mask applied to the probabilities, say).
static bool readsSoftmax(const ElementView &view, const Element &e,
                         unsigned depth = 0) {
  if (depth > 8)
    return false;
  if (e.isRead())
    return isa_and_nonnull<SoftmaxOp, linalg::SoftmaxOp>(
        e.tensor.getDefiningOp());
  if (e.kind != Element::Kind::Scalar || !e.map)
    return false;
  Operation *op = e.scalar.getDefiningOp();
  for (unsigned i = 0; op && i < op->getNumOperands(); ++i)
    if (readsSoftmax(view, view.operand(e, i), depth + 1))
      return true;
  return false;
}

/// A product with one reduction loop whose operand is a softmax: P V, or
/// something that looks like it.
static bool isProductOfSoftmax(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 1 || op.getNumDpsInputs() != 2)
    return false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    if (!type)
      continue;
    ElementView view(op.getContext(), type.getShape(),
                     /*throughReshapes=*/true);
    if (readsSoftmax(view, view.elementOf(in->get())))
      return true;
  }
  return false;
}

/// Whether the body of `op` gathers from a softmax.log_softmax result
/// (tensor.extract): the NLL of a cross-entropy.
static bool gathersLogProbs(linalg::LinalgOp op) {
  if (!op.getBlock())
    return false;
  return llvm::any_of(op.getBlock()->getOps<tensor::ExtractOp>(),
                      [](tensor::ExtractOp e) {
                        return e.getTensor().getDefiningOp<LogSoftmaxOp>();
                      });
}

/// Why the loss downstream of the gather `gather` is not a cross-entropy
/// that softmax-raise raises: the furthest reason over the ops that use its
/// result, a few steps on (the losses, their sum, the mean).
static std::string whyNotCrossEntropy(linalg::LinalgOp gather) {
  Why why;
  SmallVector<std::pair<Operation *, unsigned>> work = {{gather, 0}};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    auto [op, depth] = work.pop_back_val();
    if (depth > 8 || !seen.insert(op).second)
      continue;
    if (auto l = dyn_cast<linalg::LinalgOp>(op); l && l != gather)
      matchesCrossEntropy(l, why);
    for (Operation *user : op->getUsers())
      work.push_back({user, depth + 1});
  }
  return why.stage >= 0 ? why.reason : "no loss reads the gathered values";
}

SmallVector<Candidate> raise::findUnraisedCandidates(Operation *root) {
  SmallVector<Candidate> found;
  llvm::SmallPtrSet<Operation *, 8> familyRoots;
  root->walk([&](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics())
      return;
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      Why family;
      if (op->getResult(r).use_empty() || matchSoftmaxFamily(op, r, family) ||
          family.stage < kSoftmaxShapedStage)
        continue;
      familyRoots.insert(op);
      found.push_back({op, "softmax-shaped computation", family.reason,
                       /*isAttention=*/false});
      return;
    }
    if (gathersLogProbs(op)) {
      found.push_back({op, "cross-entropy-shaped computation",
                       whyNotCrossEntropy(op), /*isAttention=*/false});
      return;
    }
    Why attention;
    if (!matchesAttention(op, attention) &&
        (attention.stage >= kAttentionShapedStage || isProductOfSoftmax(op)))
      found.push_back({op, "attention-shaped computation", attention.reason,
                       /*isAttention=*/true});
  });
  // One report per computation: a root whose result feeds another root
  // (a log taken of a softmax that was not raised, say) is part of it.
  SmallVector<Candidate> outermost;
  for (Candidate &c : found) {
    bool inner = !c.isAttention &&
                 llvm::any_of(c.op->getUsers(), [&](Operation *user) {
                   return familyRoots.contains(user);
                 });
    if (!inner)
      outermost.push_back(std::move(c));
  }
  return outermost;
}
