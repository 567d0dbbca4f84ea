//===- RowView.cpp - a semantic op seen as rows of a matrix ---------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::softmax;

std::optional<Request> mlir::softmax::requestOf(Operation *op) {
  auto fill = [](auto semantic, std::optional<NormalizeKind> kind) {
    return Request{semantic.getInput(), semantic.getInit(), kind,
                   semantic.getAlgorithm(), semantic.getMasked()};
  };
  if (auto s = dyn_cast<SoftmaxOp>(op))
    return fill(s, NormalizeKind::Softmax);
  if (auto s = dyn_cast<LogSoftmaxOp>(op))
    return fill(s, NormalizeKind::LogSoftmax);
  if (auto s = dyn_cast<LogSumExpOp>(op))
    return fill(s, std::nullopt);
  return std::nullopt;
}

std::optional<std::string>
mlir::softmax::whyNotContiguousBuffers(ValueRange buffers, StringRef mapping,
                                       bool requireBuffers) {
  for (Value v : buffers) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type && requireBuffers)
      return (mapping + " expects memrefs; run one-shot-bufferize first").str();
    if (type && !type.getLayout().isIdentity())
      return (mapping + " expects contiguous (identity layout) memrefs").str();
  }
  return std::nullopt;
}

std::optional<std::string>
mlir::softmax::whyNotF32Accumulated(Operation *op, const Request &req,
                                    StringRef mapping) {
  std::string why;
  llvm::raw_string_ostream os(why);
  for (Value v : {req.input, req.output}) {
    Type t = cast<ShapedType>(v.getType()).getElementType();
    if (!isa<Float16Type, BFloat16Type, Float32Type>(t)) {
      os << mapping << " supports f16, bf16 and f32, not '" << t << "'";
      return why;
    }
  }
  if (auto accType = op->getAttrOfType<TypeAttr>("acc_type"))
    if (!accType.getValue().isF32()) {
      os << mapping << " accumulates in f32; acc_type '" << accType.getValue()
         << "' is not supported";
      return why;
    }
  return std::nullopt;
}

Value mlir::softmax::collapseToRank(OpBuilder &b, Location loc, Value memref,
                                    int64_t rank) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == rank)
    return memref;
  if (type.getRank() < rank) {
    // A single row: add a unit leading dimension.
    if (type.getRank() == 0)
      return memref::ExpandShapeOp::create(
          b, loc, MemRefType::get({1}, type.getElementType()), memref,
          ArrayRef<ReassociationIndices>{});
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    SmallVector<ReassociationIndices> reassoc;
    reassoc.push_back({0, 1});
    for (int64_t i = 1; i < type.getRank(); ++i)
      reassoc.push_back({i + 1});
    return memref::ExpandShapeOp::create(
        b, loc, MemRefType::get(shape, type.getElementType()), memref,
        reassoc);
  }
  SmallVector<ReassociationIndices> reassoc(1);
  for (int64_t i = 0; i <= type.getRank() - rank; ++i)
    reassoc[0].push_back(i);
  for (int64_t i = type.getRank() - rank + 1; i < type.getRank(); ++i)
    reassoc.push_back({i});
  return memref::CollapseShapeOp::create(b, loc, memref, reassoc);
}
