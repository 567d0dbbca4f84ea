//===- TopKOps.cpp - softmax.topk
//------------------------------------------===//
//
// The verifier of the fused softmax + top-k; its decomposition is in
// Transforms/TopKDecompose.cpp.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

using namespace mlir;
using namespace mlir::softmax;

LogicalResult TopKOp::verify() {
  auto x = cast<ShapedType>(getInput().getType());
  // All tensors (results of the inits' types) or all memrefs (no results).
  bool onTensors = isa<RankedTensorType>(x);
  for (Value v : getOperands())
    if (isa<RankedTensorType>(v.getType()) != onTensors)
      return emitOpError("operands must be all tensors or all memrefs");
  if (x.getRank() != 2)
    return emitOpError() << "needs rows [B, V], not rank " << x.getRank();
  int64_t k = getK();
  if (k < 1)
    return emitOpError() << "k must be positive, not " << k;
  int64_t rows = x.getDimSize(0);
  SmallVector<Value> outs = {getProbsInit(), getIndicesInit()};
  if (Value lp = getLogProbsInit())
    outs.push_back(lp);
  // The row count the input or else the first output fixes.
  for (Value out : outs)
    if (ShapedType::isDynamic(rows))
      rows = cast<ShapedType>(out.getType()).getDimSize(0);
  for (Value out : outs) {
    auto t = cast<ShapedType>(out.getType());
    bool rowsAgree = ShapedType::isDynamic(rows) ||
                     ShapedType::isDynamic(t.getDimSize(0)) ||
                     t.getDimSize(0) == rows;
    if (t.getRank() != 2 || !rowsAgree || t.getDimSize(1) != k)
      return emitOpError() << "outputs must be [B, k] = ["
                           << (ShapedType::isDynamic(rows)
                                   ? std::string("?")
                                   : std::to_string(rows))
                           << ", " << k << "], not " << t;
  }
  return success();
}
