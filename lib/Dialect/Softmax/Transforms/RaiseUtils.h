//===- RaiseUtils.h - matchers shared by the raising patterns ---*- C++ -*-===//
//
// Private to lib/Dialect/Softmax/Transforms. Matching is a pure function of
// the IR that returns what it found or why it found nothing; the patterns
// rewrite from a match, and softmax-raise reports the reasons of the
// candidates it left alone.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_RAISEUTILS_H
#define SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_RAISEUTILS_H

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Utils/ElementView.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/APFloat.h"
#include <optional>
#include <string>

namespace mlir::softmax::raise {

using mlir::softmax::isElementwiseLinalgOp;
using mlir::softmax::splatFloatValue;
inline bool isElementwise(linalg::LinalgOp op) {
  return isElementwiseLinalgOp(op);
}

/// Why a match failed, keeping the reason of the attempt that got furthest
/// (the highest stage).
struct Why {
  int stage = -1;
  std::string reason;
  /// Records `text` if it comes from at least as far as the last reason;
  /// returns std::nullopt so that matchers can `return why.fail(...)`.
  std::nullopt_t fail(int atStage, const llvm::Twine &text) {
    if (atStage >= stage) {
      stage = atStage;
      reason = text.str();
    }
    return std::nullopt;
  }
};

enum class FamilyKind { Softmax, LogSoftmax, LogSumExp };

/// A softmax, log-softmax or log-sum-exp found at a root op.
struct FamilyMatch {
  FamilyKind kind;
  /// The normalized input, in `space`: the root's loops for softmax and
  /// log-softmax, those plus the reduced dimension (last) for log-sum-exp.
  Element input;
  SmallVector<int64_t> space;
  unsigned dim;
  /// Whether the max reduction is seeded with -inf (else the lowest finite
  /// value): decides what a row of -inf yields for log-sum-exp.
  bool maxSeedNegInf;
};

/// Matches the softmax-family formula that `root` (an op on tensors with
/// one result) computes: exp(x - max x) / sum exp(x - max x) (also as a
/// product with the reciprocal), (x - max x) - log sum exp(x - max x) (also
/// x - lse), or max x + log sum exp(x - max x), each over one dimension,
/// whatever ops spell it.
/// `result` is the result of `root` that is matched.
std::optional<FamilyMatch> matchSoftmaxFamily(linalg::LinalgOp root,
                                              unsigned result, Why &why);

/// The stage a match reached that counts as softmax- or attention-shaped:
/// a candidate that failed at or after it is reported.
constexpr int kSoftmaxShapedStage = 1;
constexpr int kAttentionShapedStage = 1;

/// Whether the P V product `op` is attention that softmax-raise raises;
/// `why` says how far the match got otherwise.
bool matchesAttention(linalg::LinalgOp op, Why &why);

/// Whether `op`'s result is a linear cross-entropy that softmax-raise
/// raises (its mean, sum or [N] losses); `why` says how far the match got
/// otherwise.
bool matchesCrossEntropy(linalg::LinalgOp op, Why &why);

/// A softmax- or attention-shaped computation that was not raised.
struct Candidate {
  Operation *op;
  std::string what;
  std::string reason;
  bool isAttention;
};

/// The candidates under `root` that are left unraised: every root of a
/// softmax-family match that got to a sum of exp, every product of a
/// softmax with a matrix that did not become attention, and every gather
/// of log-probabilities (an NLL) that did not become a cross-entropy.
SmallVector<Candidate> findUnraisedCandidates(Operation *root);

/// out[b..., m, n] += sum_k lhs[b..., m, k] * rhs[b..., k, n], or
/// rhs[b..., n, k] when `rhsTransposed`.
struct BatchedMatmul {
  Value lhs, rhs, init;
  bool rhsTransposed;
};

/// Any linalg spelling of a batched matmul of rank 2 to 4 on tensors:
/// linalg.matmul, linalg.batch_matmul (with or without indexing maps),
/// linalg.contract, linalg.generic.
std::optional<BatchedMatmul> matchBatchedMatmul(Operation *operation);

/// An init that may be overwritten rather than accumulated into: zero
/// everywhere, or undefined.
bool isZeroOrUndef(Value init);

/// The permutation of `rank` dimensions that swaps the last two.
SmallVector<int64_t> swapLastTwo(unsigned rank);

/// The tensor that `t` is the transpose of (last two dimensions swapped),
/// when `t` is made by linalg.transpose or a generic copy that transposes.
Value transposeSource(Value t);

} // namespace mlir::softmax::raise

#endif // SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_RAISEUTILS_H
