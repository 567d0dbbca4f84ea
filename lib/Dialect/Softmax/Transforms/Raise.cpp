//===- Raise.cpp - linalg softmax forms -> softmax dialect ---------------===//
//
// Front ends spell softmax in many op shapes (torch-mlir fuses steps and
// tracks an argmax next to the max, TOSA multiplies by a reciprocal,
// StableHLO keeps every step apart, keepdim reductions go through unit
// dimensions). MatchSoftmax.cpp matches what the root computes, whatever the
// spelling; the patterns here rewrite a match into a softmax op, and the pass
// reports the softmax-shaped computations it left alone, with the reason.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXRAISE
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::raise;

namespace {

bool isSoftmaxFloat(Type type) {
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type);
}

struct RaiseLinalgSoftmax : public OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "expects tensor semantics");
    auto type = cast<ShapedType>(op.getInput().getType());
    if (!isSoftmaxFloat(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    // linalg.softmax computes exp(x - max) / sum: NaN for a row of -inf.
    rewriter.replaceOpWithNewOp<SoftmaxOp>(
        op, op.getOutput().getType(), op.getInput(), op.getOutput(),
        op.getDimension(), MaskedRows::NaN, Algorithm::Auto,
        /*acc_type=*/nullptr);
    return success();
  }
};

/// The type of the scalar an element computes.
Type typeOf(const Element &e) {
  if (e.kind == Element::Kind::Read)
    return cast<ShapedType>(e.tensor.getType()).getElementType();
  if (e.kind == Element::Kind::Scalar)
    return e.scalar.getType();
  return Type();
}

/// The input of a raised op: `x` as a tensor over `view`'s space. An extf
/// is exact, so its operand is normalized instead (the op accumulates in
/// f32 whatever the input type).
Value materializeInput(OpBuilder &b, Location loc, const ElementView &view,
                       Element x) {
  while (auto ext = x.def<arith::ExtFOp>()) {
    Element in = view.operand(x, 0);
    if (!isSoftmaxFloat(typeOf(in)))
      break;
    x = in;
  }
  Type type = typeOf(x);
  if (!type || !isSoftmaxFloat(type))
    return Value();
  return view.materialize(b, loc, x, type);
}

/// Replaces `result` of `op`; the op goes once none of its results is used.
void replaceResult(PatternRewriter &rewriter, Operation *op, Value result,
                   Value with) {
  rewriter.replaceAllUsesWith(result, with);
  if (op->use_empty())
    rewriter.eraseOp(op);
}

/// The log-sum-exp of a match, as a tensor of the shape of `result`.
Value buildLogSumExp(PatternRewriter &rewriter, linalg::LinalgOp root,
                     Value result, const FamilyMatch &m, MaskedRows masked) {
  Location loc = root.getLoc();
  MLIRContext *ctx = root.getContext();
  auto rootType = cast<RankedTensorType>(result.getType());
  unsigned n = rootType.getRank();
  ElementView space(ctx, m.space);
  Element x = m.input;
  Value input;
  unsigned dim = m.dim;
  // root index -> index of the op's result.
  AffineMap toResult = AffineMap::getMultiDimIdentityMap(n, ctx);
  SmallVector<int64_t> resultShape(rootType.getShape());

  // x read straight from a tensor whose dimensions are some of the
  // space's (unit dimensions aside): normalize that tensor in place.
  if (x.isRead() && !x.tensor.getDefiningOp<linalg::LinalgOp>()) {
    auto type = cast<RankedTensorType>(x.tensor.getType());
    SmallVector<AffineExpr> results;
    std::optional<unsigned> reduced;
    bool direct = isSoftmaxFloat(type.getElementType());
    for (auto [pos, e] : llvm::enumerate(space.simplify(x.map).getResults())) {
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        if (d.getPosition() == dim)
          reduced = pos;
        else
          results.push_back(e);
      } else if (auto c = dyn_cast<AffineConstantExpr>(e);
                 c && c.getValue() == 0 && type.getDimSize(pos) == 1) {
        results.push_back(e);
      } else {
        direct = false;
      }
    }
    if (direct && reduced) {
      input = x.tensor;
      dim = *reduced;
      toResult = AffineMap::get(n, 0, results, ctx);
      resultShape.clear();
      for (auto [pos, size] : llvm::enumerate(type.getShape()))
        if (pos != *reduced)
          resultShape.push_back(size);
    }
  }
  if (!input)
    input = materializeInput(rewriter, loc, space, x);
  if (!input)
    return Value();
  Value init = tensor::EmptyOp::create(rewriter, loc, resultShape,
                                       rootType.getElementType());
  if (llvm::any_of(resultShape, ShapedType::isDynamic)) {
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    sizes.erase(sizes.begin() + dim);
    init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                   rootType.getElementType());
  }
  Value lse = LogSumExpOp::create(rewriter, loc, init.getType(), input, init,
                                  dim, masked, Algorithm::Auto, nullptr)
                  .getResult();
  ElementView rootView(ctx, rootType.getShape());
  Element read;
  read.kind = Element::Kind::Read;
  read.tensor = read.materialized = lse;
  read.map = read.materializedMap = toResult;
  return rootView.materialize(rewriter, loc, read, rootType.getElementType());
}

/// Raises the decomposed forms, rooted at the last elementwise op.
struct RaiseDecomposed : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    // Each result of a multi-result elementwise op (one that also stores
    // the exp, say) may be a root.
    Why why;
    std::optional<FamilyMatch> m;
    unsigned r = 0;
    for (; r < op->getNumResults() && !m; ++r)
      if (!op->getResult(r).use_empty())
        m = matchSoftmaxFamily(op, r, why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why.reason);
    OpResult result = op->getResult(r - 1);
    // x - lse whose exp is taken next is a softmax rooted at the exp: leave
    // it to that root, which would otherwise keep this one alive.
    for (Operation *user : result.getUsers()) {
      auto next = dyn_cast<linalg::LinalgOp>(user);
      Why ignored;
      for (unsigned u = 0; next && u < next->getNumResults(); ++u)
        if (matchSoftmaxFamily(next, u, ignored))
          return rewriter.notifyMatchFailure(op, "a user is the root");
    }
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(result.getType());
    if (m->kind == FamilyKind::LogSumExp) {
      // With a -inf max seed, an all -inf row computes -inf - -inf = NaN;
      // with the lowest finite seed it computes log(0) + lowest = -inf.
      MaskedRows masked = m->maxSeedNegInf ? MaskedRows::NaN : MaskedRows::Zero;
      Value lse = buildLogSumExp(rewriter, op, result, *m, masked);
      if (!lse)
        return rewriter.notifyMatchFailure(op, "cannot build the input");
      replaceResult(rewriter, op, result, lse);
      return success();
    }
    ElementView view(getContext(), m->space);
    Value input = materializeInput(rewriter, loc, view, m->input);
    if (!input)
      return rewriter.notifyMatchFailure(op, "cannot build the input");
    // The op overwrites its init; a computed one would only keep its
    // producer alive.
    Value init = op.getDpsInitOperand(result.getResultNumber())->get();
    if (!init.getDefiningOp<tensor::EmptyOp>())
      init = tensor::EmptyOp::create(rewriter, loc,
                                     tensor::getMixedSizes(rewriter, loc, init),
                                     type.getElementType());
    // Softmax and log-softmax of a row of -inf compute -inf - -inf (or
    // 0 / 0) whatever the max seed: NaN.
    Value raised;
    if (m->kind == FamilyKind::Softmax)
      raised = SoftmaxOp::create(rewriter, loc, type, input, init, m->dim,
                                 MaskedRows::NaN, Algorithm::Auto, nullptr)
                   .getResult();
    else
      raised = LogSoftmaxOp::create(rewriter, loc, type, input, init, m->dim,
                                    MaskedRows::NaN, Algorithm::Auto, nullptr)
                   .getResult();
    replaceResult(rewriter, op, result, raised);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

bool isSemanticOp(Operation *op) {
  return isa<SoftmaxOp, LogSoftmaxOp, LogSumExpOp, AttentionOp,
             LinearCrossEntropyOp>(op);
}

struct SoftmaxRaisePass
    : public softmax::impl::SoftmaxRaiseBase<SoftmaxRaisePass> {
  using SoftmaxRaiseBase::SoftmaxRaiseBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    int64_t before = 0;
    root->walk([&](Operation *op) { before += isSemanticOp(op); });

    RewritePatternSet patterns(&getContext());
    populateSoftmaxRaisePatterns(patterns);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();

    int64_t after = 0;
    root->walk([&](Operation *op) { after += isSemanticOp(op); });
    SmallVector<Candidate> missed = findUnraisedCandidates(root);
    int64_t raised = std::max<int64_t>(0, after - before);
    int64_t candidates = raised + missed.size();
    numRaised = raised;
    numCandidates = candidates;
    // Pass statistics print only where LLVM counts them (LLVM_ENABLE_STATS;
    // Debian's release build does not), so the remarks carry the counts
    // too.
    if (remarkCounts)
      mlir::emitRemark(root->getLoc()) << "softmax-raise: " << candidates
                         << " candidates, " << raised << " raised";
    for (const Candidate &c : missed) {
      if (c.isAttention)
        ++numAttentionNotRaised;
      if (remarks)
        c.op->emitRemark() << "softmax-raise: " << c.what
                           << " not raised: " << c.reason;
    }
  }
};

} // namespace

void mlir::softmax::populateSoftmaxRaisePatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseLinalgSoftmax, RaiseDecomposed>(patterns.getContext());
  populateSoftmaxRaiseAttentionPatterns(patterns);
  populateSoftmaxRaiseCrossEntropyPatterns(patterns);
}
