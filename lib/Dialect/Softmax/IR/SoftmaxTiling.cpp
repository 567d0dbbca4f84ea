//===- SoftmaxTiling.cpp - TilingInterface for the state ops -------------===//
//
// softmax.partial has the reduction dimension in its iteration domain; its
// state operands are destinations, so a tiling loop that threads them as
// iter_args merges one tile after another into the running state. This is
// what keeps a tiled reduction equal to the untiled one (unlike upstream
// linalg.softmax, whose tiling along its reduction dimension normalizes
// every slice on its own).
//
//===----------------------------------------------------------------------===//

#include "TilingSlice.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::softmax;

static SmallVector<Range> domainOf(OpBuilder &b, Location loc, Value input) {
  SmallVector<Range> domain;
  Attribute zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  for (OpFoldResult size : tensor::getMixedSizes(b, loc, input))
    domain.push_back(Range{zero, size, one});
  return domain;
}

static SmallVector<OpFoldResult> dropDim(ArrayRef<OpFoldResult> values,
                                         int64_t dim) {
  SmallVector<OpFoldResult> result(values);
  result.erase(result.begin() + dim);
  return result;
}

//===----------------------------------------------------------------------===//
// PartialOp
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> PartialOp::getLoopIteratorTypes() {
  int64_t rank = getInput().getType().getRank();
  SmallVector<utils::IteratorType> types(rank, utils::IteratorType::parallel);
  types[getDimension()] = utils::IteratorType::reduction;
  return types;
}

SmallVector<Range> PartialOp::getIterationDomain(OpBuilder &b) {
  return domainOf(b, getLoc(), getInput());
}

FailureOr<TilingResult>
PartialOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  int64_t dim = getDimension();
  SmallVector<OpFoldResult> stateOffsets = dropDim(offsets, dim);
  SmallVector<OpFoldResult> stateSizes = dropDim(sizes, dim);
  Value x = detail::unitSlice(b, loc, getInput(), offsets, sizes);
  Value m = detail::unitSlice(b, loc, getMaxInit(), stateOffsets, stateSizes);
  Value l = detail::unitSlice(b, loc, getSumInit(), stateOffsets, stateSizes);
  Value c = detail::unitSlice(b, loc, getCompInit(), stateOffsets, stateSizes);
  Type t = m.getType();
  auto tiled = PartialOp::create(b, loc, t, t, t, x, m, l, c, dim,
                                 getAlgorithm());
  return TilingResult{{tiled},
                      SmallVector<Value>(tiled->getResults()),
                      {x.getDefiningOp(), m.getDefiningOp(), l.getDefiningOp(),
                       c.getDefiningOp()}};
}

LogicalResult PartialOp::getResultTilePosition(
    OpBuilder &, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets = dropDim(offsets, getDimension());
  resultSizes = dropDim(sizes, getDimension());
  return success();
}

//===----------------------------------------------------------------------===//
// NormalizeOp
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> NormalizeOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(getInput().getType().getRank(),
                                          utils::IteratorType::parallel);
}

SmallVector<Range> NormalizeOp::getIterationDomain(OpBuilder &b) {
  return domainOf(b, getLoc(), getInput());
}

FailureOr<TilingResult>
NormalizeOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  int64_t dim = getDimension();
  SmallVector<OpFoldResult> stateOffsets = dropDim(offsets, dim);
  SmallVector<OpFoldResult> stateSizes = dropDim(sizes, dim);
  Value x = detail::unitSlice(b, loc, getInput(), offsets, sizes);
  Value m = detail::unitSlice(b, loc, getMax(), stateOffsets, stateSizes);
  Value l = detail::unitSlice(b, loc, getSum(), stateOffsets, stateSizes);
  Value init = detail::unitSlice(b, loc, getInit(), offsets, sizes);
  auto tiled = NormalizeOp::create(b, loc, init.getType(), x, m, l, init, dim,
                                   getKind(), getState(), getMasked());
  return TilingResult{{tiled},
                      SmallVector<Value>(tiled->getResults()),
                      {x.getDefiningOp(), m.getDefiningOp(), l.getDefiningOp(),
                       init.getDefiningOp()}};
}

LogicalResult NormalizeOp::getResultTilePosition(
    OpBuilder &, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets.assign(offsets.begin(), offsets.end());
  resultSizes.assign(sizes.begin(), sizes.end());
  return success();
}
