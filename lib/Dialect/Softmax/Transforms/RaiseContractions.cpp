//===- RaiseContractions.cpp - matrix products in front-end IR -----------===//
//
// The products that the raising patterns start from or walk back through:
// any linalg spelling of a batched matmul, its zero init, and the
// transposes that feed one (attention's K^T, a classifier's W^T).
//
//===----------------------------------------------------------------------===//

#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <numeric>

using namespace mlir;
using namespace mlir::softmax;
using raise::BatchedMatmul;

/// yield(acc + a * b) over the two inputs, either order, each possibly
/// extended (how named matmuls of f16 into f32 spell it).
static bool isMulAddBody(Block &body) {
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc   ? add.getRhs()
                  : add.getRhs() == acc ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  auto strip = [](Value v) {
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext ? ext.getIn() : v;
  };
  Value a = strip(mul.getLhs()), b = strip(mul.getRhs());
  Value x = body.getArgument(0), y = body.getArgument(1);
  return (a == x && b == y) || (a == y && b == x);
}

std::optional<BatchedMatmul> raise::matchBatchedMatmul(Operation *operation) {
  auto op = dyn_cast_or_null<linalg::LinalgOp>(operation);
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 || !op.getBlock())
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  int64_t rank = op.getRank(init);
  if (rank < 2 || rank > 4 || op.getNumLoops() != rank + 1 ||
      op.getNumReductionLoops() != 1)
    return std::nullopt;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  AffineMap out = op.getMatchingIndexingMap(init);
  if (!out.isProjectedPermutation() || out.isFunctionOfDim(reductions[0]))
    return std::nullopt;

  AffineExpr k = getAffineDimExpr(reductions[0], op.getContext());
  ArrayRef<AffineExpr> o = out.getResults();
  SmallVector<AffineExpr> lhs(o.drop_back()), rhs(o.drop_back(2)),
      rhsTransposed(o.drop_back(2));
  lhs.push_back(k);
  rhs.append({k, o.back()});
  rhsTransposed.append({o.back(), k});
  auto resultsOf = [&](unsigned input) {
    return op.getMatchingIndexingMap(op.getDpsInputOperand(input)).getResults();
  };
  if (resultsOf(0) != ArrayRef(lhs))
    return std::nullopt;
  bool transposed = resultsOf(1) == ArrayRef(rhsTransposed);
  if (!transposed && resultsOf(1) != ArrayRef(rhs))
    return std::nullopt;
  if (!isMulAddBody(*op.getBlock()))
    return std::nullopt;
  return BatchedMatmul{op.getDpsInputs()[0], op.getDpsInputs()[1], init->get(),
                       transposed};
}

bool raise::isZeroOrUndef(Value init) {
  if (init.getDefiningOp<tensor::EmptyOp>())
    return true;
  std::optional<APFloat> value = splatFloatValue(init);
  // Or a generic that broadcasts a zero scalar (generalized fills).
  if (auto type = dyn_cast<RankedTensorType>(init.getType()); !value && type)
    value = ElementView(init.getContext(), type.getShape())
                .elementOf(init)
                .constant;
  return value && value->isZero();
}

SmallVector<int64_t> raise::swapLastTwo(unsigned rank) {
  SmallVector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank - 2], perm[rank - 1]);
  return perm;
}

Value raise::transposeSource(Value t) {
  unsigned rank = cast<ShapedType>(t.getType()).getRank();
  MLIRContext *ctx = t.getContext();
  // As written: no reshape looked through, extents unknown.
  Element e = ElementView(ctx, SmallVector<int64_t>(rank, ShapedType::kDynamic),
                          /*throughReshapes=*/false)
                  .elementOf(t);
  SmallVector<unsigned> perm;
  for (int64_t d : swapLastTwo(rank))
    perm.push_back(d);
  AffineMap swap = AffineMap::getPermutationMap(perm, ctx);
  if (e.isRead() && e.map == swap)
    return e.tensor;
  // One copy that swaps the last two dimensions, whatever feeds it (the
  // view above looks through every copy, down to a tensor that none of
  // them swaps alone).
  auto copy = t.getDefiningOp<linalg::LinalgOp>();
  if (!copy || !copy.hasPureTensorSemantics() || copy.getNumDpsInputs() != 1 ||
      copy.getNumDpsInits() != 1 || copy.getNumReductionLoops() != 0 ||
      !copy.getBlock())
    return Value();
  OpOperand *in = copy.getDpsInputOperand(0);
  Value yielded = copy.getBlock()->getTerminator()->getOperand(0);
  if (yielded != copy.getMatchingBlockArgument(in))
    return Value();
  AffineMap inMap = copy.getMatchingIndexingMap(in);
  AffineMap outMap = copy.getMatchingIndexingMap(copy.getDpsInitOperand(0));
  if (!inMap.isPermutation() || !outMap.isPermutation())
    return Value();
  // out[outMap(l)] = in[inMap(l)]: out at index i reads in at
  // inMap(outMap^-1(i)).
  if (inMap.compose(inversePermutation(outMap)) != swap)
    return Value();
  return in->get();
}
