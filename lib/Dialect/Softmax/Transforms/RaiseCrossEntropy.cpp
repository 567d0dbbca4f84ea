//===- RaiseCrossEntropy.cpp - linalg cross-entropy -> the fused op -------===//
//
// PyTorch's F.cross_entropy(h @ W.T + b, t) reaches linalg (torch-mlir,
// after its own decomposition of nll_loss_forward) as a classifier product,
// a log_softmax over the classes, and an NLL chain: a mask t != ignore, a
// gather of the log-probability at the target (tensor.extract in a
// generic, the target made safe by a select), its negation zeroed where
// the mask is off, and a sum, or a sum over the count of kept tokens. The
// log_softmax becomes softmax.log_softmax first (Raise.cpp); the pattern
// here is rooted at the loss (the mean's division, the sum, or the [N]
// losses) and walks back, matching what each element computes
// (ElementView), not which ops spell it. A match becomes
// softmax.linear_cross_entropy, whose decomposition never builds the N x V
// logits.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::softmax;
using raise::Why;

namespace {

/// What the loss computes, with the operands of the fused op.
struct CrossEntropyMatch {
  Value hidden, classifier, bias, targets;
  /// The op whose body gathers the target's log-probability.
  Operation *gather = nullptr;
  int64_t ignoreIndex = -100;
  LossReduction reduction = LossReduction::None;
};

/// The integer that `e` holds everywhere: a constant defined outside the
/// bodies, or a splat integer tensor read anywhere.
std::optional<int64_t> intConstant(const Element &e) {
  APInt value;
  if (e.kind == Element::Kind::Scalar && e.scalar &&
      matchPattern(e.scalar, m_ConstantInt(&value)))
    return value.getSExtValue();
  DenseIntElementsAttr dense;
  if (e.isRead() && matchPattern(e.tensor, m_Constant(&dense)) &&
      dense.isSplat())
    return dense.getSplatValue<APInt>().getSExtValue();
  return std::nullopt;
}

/// Whether `e` is 0.0: a float constant, or an integer 0 converted.
bool isZero(const ElementView &view, const Element &e) {
  if (e.isConstant())
    return e.constant->isZero();
  if (e.def<arith::SIToFPOp>() || e.def<arith::UIToFPOp>())
    return intConstant(view.operand(e, 0)) == 0;
  return false;
}

/// `e` as `pick(cond, a, b)`, when it is an arith.select.
bool asSelect(const ElementView &view, const Element &e, Element &cond,
              Element &a, Element &b) {
  if (!e.def<arith::SelectOp>())
    return false;
  cond = view.operand(e, 0);
  a = view.operand(e, 1);
  b = view.operand(e, 2);
  return true;
}

/// The targets and the ignored index of `mask` = (t != ignore), t a tensor
/// [N] of integers read at the space's own index.
bool matchMask(const ElementView &view, const Element &mask,
               CrossEntropyMatch &m) {
  auto cmp = mask.def<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::ne)
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    Element t = view.operand(mask, i);
    std::optional<int64_t> ignore = intConstant(view.operand(mask, 1 - i));
    if (ignore && t.isRead() && t.map == view.identity() &&
        isa<IntegerType>(getElementTypeOrSelf(t.tensor.getType()))) {
      m.targets = t.tensor;
      m.ignoreIndex = *ignore;
      return true;
    }
  }
  return false;
}

/// The classifier product that the logits `logits` [N, V] are: h W^T, as a
/// matmul of h with a transposed W or with W through
/// transposing maps, plus an optional bias [V] broadcast over the tokens.
bool matchLogits(Value logits, CrossEntropyMatch &m, Why &why) {
  auto type = cast<RankedTensorType>(logits.getType());
  ElementView view(logits.getContext(), type.getShape());
  Element z = view.elementOf(logits);
  Element product = z;
  if (z.def<arith::AddFOp>()) {
    AffineMap classes = AffineMap::get(
        2, 0, getAffineDimExpr(1, logits.getContext()), logits.getContext());
    for (unsigned i = 0; i < 2 && !m.bias; ++i) {
      Element b = view.operand(z, 1 - i);
      if (b.isRead() && b.map == classes) {
        m.bias = b.tensor;
        product = view.operand(z, i);
      }
    }
    if (!m.bias) {
      why.fail(3, "the logits add something other than a bias over the "
                  "classes");
      return false;
    }
  }
  if (!product.isRead() || product.map != view.identity()) {
    why.fail(3, "the logits are not a matrix product (plus a bias)");
    return false;
  }
  std::optional<raise::BatchedMatmul> mm =
      raise::matchBatchedMatmul(product.tensor.getDefiningOp());
  if (!mm || cast<ShapedType>(mm->lhs.getType()).getRank() != 2 ||
      !raise::isZeroOrUndef(mm->init)) {
    why.fail(3, "the logits are not a product h W^T into a zero init");
    return false;
  }
  m.hidden = mm->lhs;
  m.classifier = mm->rhsTransposed ? mm->rhs : raise::transposeSource(mm->rhs);
  if (!m.classifier) {
    why.fail(3, "the classifier of the logits is not transposed W ([V, D])");
    return false;
  }
  Type elt = getElementTypeOrSelf(m.hidden.getType());
  if (!isa<Float16Type, BFloat16Type, Float32Type>(elt) ||
      getElementTypeOrSelf(m.classifier.getType()) != elt ||
      (m.bias && getElementTypeOrSelf(m.bias.getType()) != elt)) {
    why.fail(3, "hidden, classifier and bias are not one of f16, bf16, f32");
    return false;
  }
  return true;
}

/// The per-token losses `loss` [N]: select(t != ignore, -log p[n, t'], 0)
/// with p = softmax.log_softmax over the classes of the logits and t' the
/// target (or the target made safe by the same select).
std::optional<CrossEntropyMatch> matchTokenLosses(Value loss, Why &why) {
  auto type = dyn_cast<RankedTensorType>(loss.getType());
  if (!type || type.getRank() != 1 || !type.getElementType().isF32())
    return why.fail(0, "not an f32 tensor [N]");
  ElementView view(loss.getContext(), type.getShape());
  Element mask, kept, dropped;
  if (!asSelect(view, view.elementOf(loss), mask, kept, dropped))
    return why.fail(0, "not a select");
  CrossEntropyMatch m;
  if (!matchMask(view, mask, m) || !isZero(view, dropped))
    return why.fail(1, "not select(t != ignore, x, 0)");
  if (!kept.def<arith::NegFOp>())
    return why.fail(1, "the kept loss is not a negation");
  Element gathered = view.operand(kept, 0);
  auto extract = gathered.def<tensor::ExtractOp>();
  auto logSoftmax = extract ? extract.getTensor().getDefiningOp<LogSoftmaxOp>()
                            : LogSoftmaxOp();
  if (!logSoftmax || logSoftmax.getDimension() != 1 ||
      cast<ShapedType>(logSoftmax.getType(0)).getRank() != 2)
    return why.fail(2, "the loss does not read a log_softmax over the "
                       "classes of [N, V]");
  // log p[n, t'(n)]: the token is the space's own index, the class the
  // target, or select(t != ignore, t, c) (torch-mlir's safe index).
  Element token = view.resolve(extract.getIndices()[0], gathered.map);
  if (token.kind != Element::Kind::Index || token.map != view.identity())
    return why.fail(2, "the gather does not read row n for token n");
  Element cls = view.resolve(extract.getIndices()[1], gathered.map);
  if (cls.def<arith::IndexCastOp>() || cls.def<arith::IndexCastUIOp>())
    cls = view.operand(cls, 0);
  Element safeMask, target, fallback;
  if (asSelect(view, cls, safeMask, target, fallback)) {
    if (!view.equivalent(safeMask, mask) || !intConstant(fallback))
      return why.fail(2, "the class index is not the target made safe by "
                         "the loss's mask");
    cls = target;
  }
  if (!cls.isRead() || cls.tensor != m.targets || cls.map != view.identity())
    return why.fail(2, "the gather does not read the class at the target");
  if (!matchLogits(logSoftmax.getInput(), m, why))
    return std::nullopt;
  m.gather = extract->getParentOp();
  return m;
}

/// The op that makes `result` by reducing one [N] input to rank 0 in one
/// loop, and the op its body yields, of type OpTy.
template <typename OpTy>
std::pair<linalg::LinalgOp, OpTy> reductionToScalar(Value result) {
  auto op = result.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 1 ||
      op.getNumReductionLoops() != 1 || !op.getBlock() ||
      op.getRank(op.getDpsInitOperand(0)) != 0)
    return {};
  auto yielded =
      op.getBlock()->getTerminator()->getOperand(0).getDefiningOp<OpTy>();
  return yielded ? std::pair(op, yielded) : std::pair<linalg::LinalgOp, OpTy>();
}

/// The [N] losses that the rank-0 sum `sum` adds up: a one-loop reduction
/// of addf seeded with 0.
Value summedLosses(Value sum) {
  auto [op, add] = reductionToScalar<arith::AddFOp>(sum);
  if (!op)
    return Value();
  std::optional<APFloat> seed = splatFloatValue(op.getDpsInitOperand(0)->get());
  if (!seed || !seed->isZero())
    return Value();
  Value in = op.getBlock()->getArgument(0), acc = op.getBlock()->getArgument(1);
  if (!((add.getLhs() == in && add.getRhs() == acc) ||
        (add.getLhs() == acc && add.getRhs() == in)))
    return Value();
  return op.getDpsInputOperand(0)->get();
}

/// Whether `count` (rank 0, f32) counts the tokens of `losses` that
/// `m.targets` does not ignore: the sum of extui(t != ignore), converted.
bool countsKeptTokens(const ElementView &scalarView, const Element &count,
                      const CrossEntropyMatch &m) {
  if (!count.def<arith::SIToFPOp>() && !count.def<arith::UIToFPOp>())
    return false;
  Element n = scalarView.operand(count, 0);
  if (!n.isRead())
    return false;
  auto [op, add] = reductionToScalar<arith::AddIOp>(n.tensor);
  if (!op)
    return false;
  Value in = op.getBlock()->getArgument(0);
  auto bit = [&](Value v) {
    auto ext = v.getDefiningOp<arith::ExtUIOp>();
    return ext && ext.getIn() == in;
  };
  if (!bit(add.getLhs()) && !bit(add.getRhs()))
    return false;
  Value maskTensor = op.getDpsInputOperand(0)->get();
  auto type = cast<RankedTensorType>(maskTensor.getType());
  ElementView view(maskTensor.getContext(), type.getShape());
  CrossEntropyMatch seen;
  return matchMask(view, view.elementOf(maskTensor), seen) &&
         seen.targets == m.targets && seen.ignoreIndex == m.ignoreIndex;
}

/// The cross-entropy that `root`'s result is: the mean (sum / count of
/// kept tokens), the sum, or the [N] losses.
std::optional<CrossEntropyMatch> matchCrossEntropy(linalg::LinalgOp root,
                                                   Why &why) {
  if (!root.hasPureTensorSemantics() || root->getNumResults() != 1)
    return why.fail(0, "not a linalg op on tensors with one result");
  Value result = root->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getRank() == 1)
    return matchTokenLosses(result, why);
  if (type.getRank() != 0 || !type.getElementType().isF32())
    return why.fail(0, "not an f32 loss");
  if (Value losses = summedLosses(result)) {
    std::optional<CrossEntropyMatch> m = matchTokenLosses(losses, why);
    if (m)
      m->reduction = LossReduction::Sum;
    return m;
  }
  ElementView view(root.getContext(), {});
  Element e = view.elementOf(result);
  if (!e.def<arith::DivFOp>())
    return why.fail(0, "not a sum or a division");
  Element sum = view.operand(e, 0);
  Value losses = sum.isRead() ? summedLosses(sum.tensor) : Value();
  if (!losses)
    return why.fail(0, "not a sum over a count");
  std::optional<CrossEntropyMatch> m = matchTokenLosses(losses, why);
  if (!m)
    return std::nullopt;
  if (!countsKeptTokens(view, view.operand(e, 1), *m))
    return why.fail(3, "the mean divides by something other than the count "
                       "of tokens not ignored");
  m->reduction = LossReduction::Mean;
  return m;
}

/// Whether `value` is only summed by ops that raise as a sum or a mean (so
/// that the losses are not raised on their own first).
bool onlySummed(Value value) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    return user->getNumResults() == 1 && summedLosses(user->getResult(0));
  });
}

} // namespace

bool raise::matchesCrossEntropy(linalg::LinalgOp op, Why &why) {
  return matchCrossEntropy(op, why).has_value();
}

namespace {

struct RaiseLinearCrossEntropy
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    Why why;
    std::optional<CrossEntropyMatch> m = matchCrossEntropy(op, why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why.reason);
    Value result = op->getResult(0);
    // The numerator of a mean, or losses that a sum adds up: the op at the
    // end raises the whole.
    if (m->reduction == LossReduction::Sum) {
      Why other;
      for (Operation *user : result.getUsers())
        if (auto l = dyn_cast<linalg::LinalgOp>(user);
            l && matchCrossEntropy(l, other))
          return rewriter.notifyMatchFailure(op, "the numerator of a mean");
    }
    if (m->reduction == LossReduction::None && onlySummed(result))
      return rewriter.notifyMatchFailure(op, "summed by the next op");
    auto type = cast<RankedTensorType>(result.getType());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    auto fused = LinearCrossEntropyOp::create(
        rewriter, loc, TypeRange{type}, m->hidden, m->classifier,
        m->targets, m->bias, init, /*lse_init=*/Value(),
        /*class_max_init=*/Value(),
        LossReductionAttr::get(rewriter.getContext(), m->reduction),
        rewriter.getI64IntegerAttr(m->ignoreIndex), /*softcap=*/FloatAttr(),
        /*z_loss=*/FloatAttr());
    SmallVector<Operation *> producers;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        producers.push_back(def);
    rewriter.replaceOp(op, fused.getLoss());
    // The gather's body may assert that each target is in range
    // (torch-mlir's cf.assert), which keeps the dead gather, and with it
    // the N x V log-probabilities, alive. The fused op gives NaN for such a
    // target instead (its description): the loss's dead producers go, the
    // gather with them.
    llvm::SmallPtrSet<Operation *, 16> erased;
    while (!producers.empty()) {
      Operation *dead = producers.pop_back_val();
      if (erased.contains(dead) || !dead->use_empty() ||
          (dead != m->gather && !isOpTriviallyDead(dead)))
        continue;
      for (Value v : dead->getOperands())
        if (Operation *def = v.getDefiningOp())
          producers.push_back(def);
      erased.insert(dead);
      rewriter.eraseOp(dead);
    }
    return success();
  }
};

} // namespace

void mlir::softmax::populateSoftmaxRaiseCrossEntropyPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseLinearCrossEntropy>(patterns.getContext());
}
