//===- Raise.cpp - linalg softmax forms -> softmax dialect ---------------===//
//
// Front ends spell softmax as a handful of linalg ops: a max reduction, a
// broadcast subtraction, exp, a sum reduction and a division, spread over
// any number of generic/map/broadcast/reduce ops (torch-mlir fuses some of
// them, StableHLO-to-linalg keeps them apart). Instead of one pattern per
// spelling, the matcher below views every tensor as an elementwise
// expression over its producers' bodies, so all spellings reduce to the
// same three formulas.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "RaiseUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXRAISE
#include "softmax-mlir/Dialect/Softmax/Transforms/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;
using raise::isElementwise;

bool raise::isElementwise(linalg::LinalgOp op) {
  return op.getNumReductionLoops() == 0 &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isIdentity();
         });
}

std::optional<APFloat> raise::splatFloatValue(Value value) {
  Attribute attr;
  if (auto fill = value.getDefiningOp<linalg::FillOp>()) {
    if (matchPattern(fill.getInputs()[0], m_Constant(&attr)))
      if (auto f = dyn_cast<FloatAttr>(attr))
        return f.getValue();
    return std::nullopt;
  }
  if (matchPattern(value, m_Constant(&attr)))
    if (auto splat = dyn_cast<SplatElementsAttr>(attr))
      if (isa<FloatType>(splat.getElementType()))
        return splat.getSplatValue<APFloat>();
  return std::nullopt;
}

namespace {

//===----------------------------------------------------------------------===//
// Elementwise views
//===----------------------------------------------------------------------===//

/// What one element of a tensor (or one scalar in a linalg body) stands for,
/// relative to the iteration space of the op being matched.
struct Term {
  enum class Kind { Unknown, Scalar, Tensor, Broadcast };
  Kind kind = Kind::Unknown;
  /// Scalar: an SSA value computed in some linalg body.
  Value scalar;
  /// Scalar: the tensor this value is the element of, when there is one.
  /// Tensor: an opaque tensor read at the same indices.
  /// Broadcast: a tensor of one rank less, read with `dim` dropped.
  Value tensor;
  int64_t dim = -1;

  bool isScalar() const { return kind == Kind::Scalar; }
  /// The tensor that this term reads elementwise, if any.
  Value elementOf() const {
    return kind == Kind::Scalar || kind == Kind::Tensor ? tensor : Value();
  }
  template <typename OpTy>
  OpTy def() const {
    return isScalar() ? scalar.getDefiningOp<OpTy>() : OpTy();
  }
};

Term follow(Value scalar);

/// The element of `tensor`: the yielded scalar of its elementwise producer,
/// or the tensor itself when its producer is not elementwise.
Term view(Value tensor) {
  auto result = dyn_cast<OpResult>(tensor);
  auto op = result ? dyn_cast<linalg::LinalgOp>(result.getOwner())
                   : linalg::LinalgOp();
  if (!op || !isElementwise(op) || !op.getBlock())
    return {Term::Kind::Tensor, Value(), tensor};
  Value yielded =
      op.getBlock()->getTerminator()->getOperand(result.getResultNumber());
  Term term = follow(yielded);
  if (term.isScalar() && !term.tensor)
    term.tensor = tensor;
  return term;
}

/// If `map` drops exactly one dimension and keeps the others in order,
/// returns that dimension.
std::optional<int64_t> droppedDim(AffineMap map) {
  if (!map.isProjectedPermutation() ||
      map.getNumResults() + 1 != map.getNumDims())
    return std::nullopt;
  int64_t expected = 0;
  std::optional<int64_t> dropped;
  for (AffineExpr e : map.getResults()) {
    int64_t pos = cast<AffineDimExpr>(e).getPosition();
    if (pos != expected) {
      if (dropped || pos != expected + 1)
        return std::nullopt;
      dropped = expected++;
    }
    ++expected;
  }
  return dropped ? dropped : std::optional<int64_t>(map.getNumDims() - 1);
}

/// Resolves a scalar: a block argument of a linalg body becomes the operand
/// it reads (elementwise or broadcast); any other value stays a scalar.
Term follow(Value scalar) {
  auto arg = dyn_cast<BlockArgument>(scalar);
  if (!arg)
    return {Term::Kind::Scalar, scalar, Value()};
  auto op = dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp());
  if (!op)
    return {};
  OpOperand *operand = op.getMatchingOpOperand(arg);
  if (!operand || !op.isDpsInput(operand))
    return {};
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (map.isIdentity())
    return view(operand->get());
  if (std::optional<int64_t> dim = droppedDim(map))
    return {Term::Kind::Broadcast, Value(), operand->get(), *dim};
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class Combiner { Max, Sum };

struct Reduction {
  /// What is reduced: a term in the reduction op's iteration space.
  Term element;
  int64_t dim;
  /// For max reductions: whether the init is -inf (else -FLT_MAX).
  bool initIsNegInf = false;
};

/// Matches `tensor` as a single-dimension max or sum reduction seeded with
/// its identity (-inf or -FLT_MAX for max, 0 for sum).
std::optional<Reduction> reductionOf(Value tensor, Combiner combiner) {
  auto op = tensor.getDefiningOp<linalg::LinalgOp>();
  if (!op || op.getNumReductionLoops() != 1 || op.getNumDpsInits() != 1 ||
      !op.getBlock())
    return std::nullopt;
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  OpOperand *init = op.getDpsInitOperand(0);
  if (droppedDim(op.getMatchingIndexingMap(init)) != (int64_t)dims[0])
    return std::nullopt;
  std::optional<APFloat> seed = raise::splatFloatValue(init->get());
  if (!seed)
    return std::nullopt;
  bool negInf = seed->isInfinity() && seed->isNegative();
  if (combiner == Combiner::Max && !negInf &&
      !(seed->isNegative() && seed->isLargest()))
    return std::nullopt;
  if (combiner == Combiner::Sum && !seed->isZero())
    return std::nullopt;

  Operation *yielded =
      op.getBlock()->getTerminator()->getOperand(0).getDefiningOp();
  if (!yielded || yielded->getNumOperands() != 2)
    return std::nullopt;
  bool isMax = isa<arith::MaximumFOp, arith::MaxNumFOp>(yielded);
  if ((combiner == Combiner::Max) != isMax ||
      (combiner == Combiner::Sum && !isa<arith::AddFOp>(yielded)))
    return std::nullopt;
  Value acc = op.getMatchingBlockArgument(init);
  Value lhs = yielded->getOperand(0), rhs = yielded->getOperand(1);
  if (rhs != acc)
    std::swap(lhs, rhs);
  if (rhs != acc || lhs == acc)
    return std::nullopt;
  return Reduction{follow(lhs), dims[0], negInf};
}

//===----------------------------------------------------------------------===//
// The three formulas
//===----------------------------------------------------------------------===//

/// x - broadcast(max(x, dim)), with the x and the max it refers to.
struct Shifted {
  Value x;
  Value max;
  int64_t dim;
  bool maxInitIsNegInf;
};

std::optional<Shifted> matchShifted(const Term &term) {
  auto sub = term.def<arith::SubFOp>();
  if (!sub)
    return std::nullopt;
  Term lhs = follow(sub.getLhs()), rhs = follow(sub.getRhs());
  Value x = lhs.elementOf();
  if (!x || rhs.kind != Term::Kind::Broadcast)
    return std::nullopt;
  std::optional<Reduction> max = reductionOf(rhs.tensor, Combiner::Max);
  if (!max || max->dim != rhs.dim || max->element.elementOf() != x)
    return std::nullopt;
  return Shifted{x, rhs.tensor, rhs.dim, max->initIsNegInf};
}

std::optional<Shifted> matchExpShifted(const Term &term) {
  auto exp = term.def<math::ExpOp>();
  if (!exp)
    return std::nullopt;
  return matchShifted(follow(exp.getOperand()));
}

/// sum(exp(x - broadcast(max x)), dim).
std::optional<Shifted> matchSumOfExp(Value tensor) {
  std::optional<Reduction> sum = reductionOf(tensor, Combiner::Sum);
  if (!sum)
    return std::nullopt;
  std::optional<Shifted> shifted = matchExpShifted(sum->element);
  if (!shifted || shifted->dim != sum->dim)
    return std::nullopt;
  return shifted;
}

bool same(const Shifted &a, const Shifted &b) {
  return a.x == b.x && a.dim == b.dim && a.max == b.max;
}

/// exp(x - max) / broadcast(sum(exp(x - max))).
std::optional<Shifted> matchSoftmax(const Term &root) {
  auto div = root.def<arith::DivFOp>();
  if (!div)
    return std::nullopt;
  std::optional<Shifted> num = matchExpShifted(follow(div.getLhs()));
  Term den = follow(div.getRhs());
  if (!num || den.kind != Term::Kind::Broadcast || den.dim != num->dim)
    return std::nullopt;
  std::optional<Shifted> sum = matchSumOfExp(den.tensor);
  if (!sum || !same(*sum, *num))
    return std::nullopt;
  return num;
}

/// The sum S in log(S), where the log is taken before or after broadcasting.
/// Returns S and whether it was broadcast along `dim`.
std::optional<std::pair<Value, int64_t>> matchLogOfSum(const Term &term) {
  if (term.kind == Term::Kind::Broadcast) {
    auto log = view(term.tensor).def<math::LogOp>();
    if (!log)
      return std::nullopt;
    Value sum = follow(log.getOperand()).elementOf();
    if (!sum)
      return std::nullopt;
    return std::make_pair(sum, term.dim);
  }
  auto log = term.def<math::LogOp>();
  if (!log)
    return std::nullopt;
  Term inner = follow(log.getOperand());
  if (inner.kind != Term::Kind::Broadcast)
    return std::nullopt;
  return std::make_pair(inner.tensor, inner.dim);
}

/// (x - max) - broadcast(log(sum(exp(x - max)))).
std::optional<Shifted> matchLogSoftmax(const Term &root) {
  auto sub = root.def<arith::SubFOp>();
  if (!sub)
    return std::nullopt;
  std::optional<Shifted> shifted = matchShifted(follow(sub.getLhs()));
  auto log = matchLogOfSum(follow(sub.getRhs()));
  if (!shifted || !log || log->second != shifted->dim)
    return std::nullopt;
  std::optional<Shifted> sum = matchSumOfExp(log->first);
  if (!sum || !same(*sum, *shifted))
    return std::nullopt;
  return shifted;
}

/// max + log(sum(exp(x - broadcast(max)))), on the reduced shape.
std::optional<Shifted> matchLogSumExp(const Term &root) {
  auto add = root.def<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  for (auto [maxSide, logSide] : {std::pair(add.getLhs(), add.getRhs()),
                                  std::pair(add.getRhs(), add.getLhs())}) {
    Value max = follow(maxSide).elementOf();
    auto log = follow(logSide).def<math::LogOp>();
    if (!max || !log)
      continue;
    Value sum = follow(log.getOperand()).elementOf();
    std::optional<Shifted> shifted = sum ? matchSumOfExp(sum) : std::nullopt;
    if (shifted && shifted->max == max)
      return shifted;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct RaiseLinalgSoftmax : public OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "expects tensor semantics");
    auto type = cast<ShapedType>(op.getInput().getType());
    if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
            type.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    // linalg.softmax computes exp(x - max) / sum: NaN for a row of -inf.
    rewriter.replaceOpWithNewOp<SoftmaxOp>(
        op, op.getOutput().getType(), op.getInput(), op.getOutput(),
        op.getDimension(), MaskedRows::NaN, Algorithm::Auto,
        /*acc_type=*/nullptr);
    return success();
  }
};

/// Raises the decomposed forms, rooted at the last elementwise op.
struct RaiseDecomposed : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !isElementwise(op) ||
        op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not a single-result "
                                             "elementwise op on tensors");
    Value result = op->getResult(0);
    auto type = cast<RankedTensorType>(result.getType());
    if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
            type.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Term root = view(result);
    Value init = op.getDpsInitOperand(0)->get();

    auto compatible = [&](const Shifted &s) {
      return cast<ShapedType>(s.x.getType()).getElementType() ==
             type.getElementType();
    };
    if (std::optional<Shifted> s = matchSoftmax(root); s && compatible(*s)) {
      rewriter.replaceOpWithNewOp<SoftmaxOp>(op, type, s->x, init, s->dim,
                                             MaskedRows::NaN, Algorithm::Auto,
                                             nullptr);
      return success();
    }
    if (std::optional<Shifted> s = matchLogSoftmax(root); s && compatible(*s)) {
      rewriter.replaceOpWithNewOp<LogSoftmaxOp>(op, type, s->x, init, s->dim,
                                                MaskedRows::NaN,
                                                Algorithm::Auto, nullptr);
      return success();
    }
    if (std::optional<Shifted> s = matchLogSumExp(root); s && compatible(*s)) {
      // With a -inf max seed, an all -inf row computes -inf - -inf = NaN;
      // with -FLT_MAX it computes log(0) + -FLT_MAX = -inf.
      MaskedRows masked =
          s->maxInitIsNegInf ? MaskedRows::NaN : MaskedRows::Zero;
      rewriter.replaceOpWithNewOp<LogSumExpOp>(op, type, s->x, init, s->dim,
                                               masked, Algorithm::Auto,
                                               nullptr);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no softmax form ends here");
  }
};

struct SoftmaxRaisePass
    : public softmax::impl::SoftmaxRaiseBase<SoftmaxRaisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateSoftmaxRaisePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::softmax::populateSoftmaxRaisePatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseLinalgSoftmax, RaiseDecomposed>(patterns.getContext());
  populateSoftmaxRaiseAttentionPatterns(patterns);
}
