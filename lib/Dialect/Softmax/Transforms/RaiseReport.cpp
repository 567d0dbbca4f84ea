//===- RaiseReport.cpp - the candidates softmax-raise left alone ----------===//
//
// A user who runs softmax-raise on a graph needs to know what stayed linalg
// and why, or the unraised softmax runs 10x slower without a word. The
// matchers say how far they got; whatever got to a sum of exp (softmax
// family) or to a product of a softmax with a matrix (attention) is
// softmax-shaped, and its reason is reported.
//
//===----------------------------------------------------------------------===//

#include "RaiseUtils.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::raise;

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
    Why attention;
    if (!matchesAttention(op, attention) &&
        attention.stage >= kAttentionShapedStage)
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
