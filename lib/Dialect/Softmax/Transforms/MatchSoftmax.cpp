//===- MatchSoftmax.cpp - what computes a softmax, log-softmax or lse -----===//
//
// The three formulas, matched on what one element of the root stands for
// (ElementView), so that every spelling of them reduces to the same
// expression:
//
//   softmax      exp(x - m) / s            or exp(x - m) * (1 / s)
//   log-softmax  (x - m) - log s           or x - (m + log s)
//   lse          m + log s                 (on the reduced shape)
//
// with m = max_d x broadcast along d and s = sum_d exp(x - m). Each part is
// checked against the others by value (ElementView::equivalent), so a max
// computed twice, an exp fused into the sum, or a log taken before the
// broadcast are all the same formula.
//
//===----------------------------------------------------------------------===//

#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::raise;

namespace {

// How far a match got, for the reason it reports.
enum Stage : int {
  kRoot = 0,
  kShaped = kSoftmaxShapedStage, // combines something with a sum of exp
  kSum,                          // the sum of exp(...) is found
  kShift,                        // its argument is x - m
  kMax,                          // m is a max reduction
  kConsistent,                   // every part refers to the same x and d
};

/// Whether `seed` starts a max reduction without changing the softmax:
/// -inf; NaN for maxnumf, which ignores it; or a finite value at or below
/// -1e30 (IREE seeds with -1e30) or the lowest finite value, which differs from
/// the true max only on rows that lie wholly below it, where the front end's
/// own formula underflows to 0 / 0. `negInf` says whether a row of -inf yields
/// NaN in the log-sum-exp (else -inf).
bool isMaxSeed(const std::optional<APFloat> &seed, Combiner combiner,
               bool &negInf) {
  if (!seed)
    return false;
  if (seed->isNaN()) {
    negInf = true;
    return combiner == Combiner::MaxNum;
  }
  negInf = seed->isInfinity() && seed->isNegative();
  if (negInf)
    return true;
  APFloat limit(-1e30);
  bool losesInfo;
  limit.convert(seed->getSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return seed->isNegative() &&
         (seed->isLargest() || seed->compare(limit) != APFloat::cmpGreaterThan);
}

/// x - m with m = max_d x broadcast along d, in `view`.
struct Shift {
  Element x;
  unsigned dim;
  bool negInf;
};

std::optional<Shift> matchShift(const ElementView &view, const Element &e,
                                Why &why) {
  auto sub = e.def<arith::SubFOp>();
  if (!sub)
    return why.fail(kShift, "the exp argument is not a subtraction x - max x");
  Element x = view.operand(e, 0), m = view.operand(e, 1);
  std::optional<ReductionRead> max = view.reductionOf(m);
  if (!max ||
      (max->combiner != Combiner::Max && max->combiner != Combiner::MaxNum))
    return why.fail(kShift, "the subtracted value is not a max reduction");
  if (max->extended)
    return why.fail(kMax, "the max is not broadcast along the reduced "
                          "dimension");
  bool negInf = false;
  if (!isMaxSeed(max->seed, max->combiner, negInf))
    return why.fail(kMax, "the max reduction does not start at -inf, NaN "
                          "(maxnumf) or a value at or below -1e30");
  if (!view.equivalent(max->element, x))
    return why.fail(kMax, "the max is taken over other values than the ones "
                          "it is subtracted from");
  return Shift{x, max->dim, negInf};
}

/// s = sum_d exp(shift): the read `e` of a sum reduction of exp(x - m).
struct SumOfExp {
  ReductionRead sum;
  Shift shift;
};

std::optional<SumOfExp> matchSumOfExp(const ElementView &view,
                                      const Element &e, Why &why) {
  std::optional<ReductionRead> sum = view.reductionOf(e);
  if (!sum || sum->combiner != Combiner::Sum)
    return why.fail(kRoot, "no sum reduction");
  ElementView inner = view.reductionSpace(*sum);
  Element summed = sum->element;
  if (!summed.def<math::ExpOp>())
    return why.fail(kRoot, "the summed values are not exp(...)");
  // From here on the computation is softmax-shaped: a sum of exp.
  if (!sum->seed || !sum->seed->isZero())
    return why.fail(kSum, "the sum reduction does not start at 0");
  std::optional<Shift> shift = matchShift(inner, inner.operand(summed, 0), why);
  if (!shift)
    return std::nullopt;
  if (shift->dim != sum->dim)
    return why.fail(kConsistent, "the max and the sum reduce different "
                                 "dimensions");
  return SumOfExp{*sum, *shift};
}

std::optional<FamilyMatch> matchLogSoftmax(const ElementView &view,
                                           const Element &root, Why &why);

/// exp(x - m) / s, its product with 1 / s, or exp(x - lse).
std::optional<FamilyMatch> matchSoftmax(const ElementView &view,
                                        const Element &root, Why &why) {
  Element num, den;
  if (root.def<arith::DivFOp>()) {
    num = view.operand(root, 0);
    den = view.operand(root, 1);
  } else if (root.def<arith::MulFOp>()) {
    for (unsigned i = 0; i < 2; ++i) {
      Element r = view.operand(root, 1 - i);
      if (r.def<arith::DivFOp>()) {
        std::optional<double> one = view.operand(r, 0).constantValue();
        if (one && *one == 1.0) {
          num = view.operand(root, i);
          den = view.operand(r, 1);
          break;
        }
      }
    }
    if (!num.isKnown())
      return why.fail(kRoot, "a product with no reciprocal");
  } else if (root.def<math::ExpOp>()) {
    // exp(x - lse): the softmax through its log.
    std::optional<FamilyMatch> m =
        matchLogSoftmax(view, view.operand(root, 0), why);
    if (m)
      m->kind = FamilyKind::Softmax;
    return m;
  } else {
    return why.fail(kRoot, "not a division");
  }
  if (!num.def<math::ExpOp>())
    return why.fail(kRoot, "the numerator is not exp(...)");
  std::optional<SumOfExp> s = matchSumOfExp(view, den, why);
  if (!s)
    return std::nullopt;
  if (s->sum.extended)
    return why.fail(kConsistent, "the sum is not broadcast along the reduced "
                                 "dimension");
  if (!view.equivalent(s->sum.element, num))
    return why.fail(kConsistent, "the numerator is not the exp that is "
                                 "summed");
  return FamilyMatch{FamilyKind::Softmax, s->shift.x,
                     SmallVector<int64_t>(view.getExtents()), s->shift.dim,
                     s->shift.negInf};
}

/// log(s), where `e` is the log.
std::optional<SumOfExp> matchLogOfSum(const ElementView &view,
                                      const Element &e, Why &why) {
  if (!e.def<math::LogOp>())
    return why.fail(kRoot, "no log");
  return matchSumOfExp(view, view.operand(e, 0), why);
}

/// (x - m) - log s, or x - (m + log s).
std::optional<FamilyMatch> matchLogSoftmax(const ElementView &view,
                                           const Element &root, Why &why) {
  if (!root.def<arith::SubFOp>())
    return why.fail(kRoot, "not a subtraction");
  Element lhs = view.operand(root, 0), rhs = view.operand(root, 1);
  if (rhs.def<math::LogOp>()) {
    std::optional<SumOfExp> s = matchLogOfSum(view, rhs, why);
    if (!s)
      return std::nullopt;
    if (s->sum.extended)
      return why.fail(kConsistent, "the sum is not broadcast along the "
                                   "reduced dimension");
    // lhs must be the shifted value that is exponentiated and summed.
    std::optional<Shift> shift = matchShift(view, lhs, why);
    if (!shift)
      return std::nullopt;
    if (shift->dim != s->shift.dim ||
        !view.equivalent(lhs, view.operand(s->sum.element, 0)))
      return why.fail(kConsistent, "the log-sum is not of the shifted values "
                                   "it is subtracted from");
    return FamilyMatch{FamilyKind::LogSoftmax, shift->x,
                       SmallVector<int64_t>(view.getExtents()), shift->dim,
                       shift->negInf};
  }
  if (rhs.def<arith::AddFOp>()) {
    for (unsigned i = 0; i < 2; ++i) {
      Element m = view.operand(rhs, i), log = view.operand(rhs, 1 - i);
      if (!log.def<math::LogOp>())
        continue;
      std::optional<SumOfExp> s = matchLogOfSum(view, log, why);
      if (!s)
        continue;
      if (s->sum.extended)
        return why.fail(kConsistent, "the sum is not broadcast along the "
                                     "reduced dimension");
      Element shifted = view.operand(s->sum.element, 0);
      if (!view.equivalent(view.operand(shifted, 1), m) ||
          !view.equivalent(s->shift.x, lhs))
        return why.fail(kConsistent, "x - (m + log s) does not use the x and "
                                     "m of s");
      return FamilyMatch{FamilyKind::LogSoftmax, lhs,
                         SmallVector<int64_t>(view.getExtents()),
                         s->shift.dim, s->shift.negInf};
    }
    return why.fail(kRoot, "no log of a sum in x - (m + log s)");
  }
  return why.fail(kRoot, "the subtrahend is not a log");
}

/// m + log s on the reduced shape.
std::optional<FamilyMatch> matchLogSumExp(const ElementView &view,
                                          const Element &root, Why &why) {
  if (!root.def<arith::AddFOp>())
    return why.fail(kRoot, "not an addition");
  for (unsigned i = 0; i < 2; ++i) {
    Element m = view.operand(root, i), log = view.operand(root, 1 - i);
    if (!log.def<math::LogOp>())
      continue;
    std::optional<SumOfExp> s = matchLogOfSum(view, log, why);
    if (!s)
      continue;
    if (!s->sum.extended)
      return why.fail(kConsistent, "the log-sum is broadcast: not a "
                                   "log-sum-exp result");
    ElementView inner = view.reductionSpace(s->sum);
    Element shifted = inner.operand(s->sum.element, 0);
    if (!inner.equivalent(inner.operand(shifted, 1), view.lift(m, 1)))
      return why.fail(kConsistent, "the max added is not the max "
                                   "subtracted inside the sum");
    // The reduced dimension's extent, from the reduction's own loops.
    SmallVector<int64_t> space(view.getExtents());
    auto red = cast<OpResult>(view.operand(log, 0).tensor);
    auto op = cast<linalg::LinalgOp>(red.getOwner());
    SmallVector<unsigned> dims;
    op.getReductionDims(dims);
    space.push_back(op.getStaticLoopRanges()[dims[0]]);
    return FamilyMatch{FamilyKind::LogSumExp, s->shift.x, space, s->sum.dim,
                       s->shift.negInf};
  }
  return why.fail(kRoot, "no log of a sum in m + log s");
}

} // namespace

std::optional<FamilyMatch> raise::matchSoftmaxFamily(linalg::LinalgOp root,
                                                     unsigned result,
                                                     Why &why) {
  if (!root.hasPureTensorSemantics() || !isElementwise(root) ||
      result >= root->getNumResults() || !root.getBlock())
    return why.fail(kRoot, "not an elementwise op on tensors");
  auto type = cast<RankedTensorType>(root->getResult(result).getType());
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
          type.getElementType()))
    return why.fail(kRoot, "not on f16, bf16, f32 or f64");
  ElementView view(root.getContext(), type.getShape());
  Element e = view.elementOf(root->getResult(result));
  // A result rounded to the output type at the end: the op rounds too.
  while (e.def<arith::TruncFOp>() || e.def<arith::ExtFOp>())
    e = view.operand(e, 0);
  if (std::optional<FamilyMatch> m = matchSoftmax(view, e, why))
    return m;
  if (std::optional<FamilyMatch> m = matchLogSoftmax(view, e, why))
    return m;
  if (std::optional<FamilyMatch> m = matchLogSumExp(view, e, why))
    return m;
  // log(sum exp(x)) with no max subtracted (ONNX's ReduceLogSumExp as
  // torch-mlir lowers it): softmax-shaped, but exp overflows there where
  // logsumexp does not, so it is reported, not raised.
  if (e.def<math::LogOp>()) {
    Element sum = view.operand(e, 0);
    auto red = sum.isRead() ? sum.tensor.getDefiningOp<linalg::LinalgOp>()
                            : linalg::LinalgOp();
    if (red && red.getNumReductionLoops() >= 1 && red.getNumDpsInputs() == 1 &&
        red.getBlock()) {
      Value input = red.getDpsInputs()[0];
      auto type = dyn_cast<RankedTensorType>(input.getType());
      Element in = type ? ElementView(root.getContext(), type.getShape())
                              .elementOf(input)
                        : Element();
      auto add = red.getBlock()->getTerminator()->getOperand(0)
                     .getDefiningOp<arith::AddFOp>();
      if (add && in.def<math::ExpOp>())
        return why.fail(kShift, "log of a sum of exp with no max subtracted: "
                                "exp overflows there where logsumexp does "
                                "not");
    }
  }
  return std::nullopt;
}
