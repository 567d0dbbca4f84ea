//===- RowView.cpp - a semantic op seen as rows of a matrix ---------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::softmax;

Request mlir::softmax::rowKernelRequest(SemanticOpInterface op,
                                       Algorithm algorithm) {
  return Request{op.getInputs().front(), op.getDestinations().front(),
                 op.getNormalizeKind(), algorithm, op.getMasked()};
}

std::optional<std::string>
mlir::softmax::whyNotContiguousBuffers(ValueRange buffers, StringRef mapping,
                                       bool requireBuffers,
                                       StridedBuffers strided) {
  for (Value v : buffers) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type && requireBuffers)
      return (mapping + " expects memrefs; run one-shot-bufferize first").str();
    if (type && !type.getLayout().isIdentity()) {
      if (strided == StridedBuffers::Refused)
        return (mapping + " expects contiguous (identity layout) memrefs")
            .str();
      if (strided == StridedBuffers::UnitStrideRows &&
          !type.isLastDimUnitStride())
        return (mapping + " expects memrefs whose last dimension has unit "
                          "stride")
            .str();
    }
    // Index arithmetic over a buffer of more than 2^63 elements would
    // overflow (the collapsed row views multiply the static sizes).
    if (type && type.hasStaticShape() &&
        !llvm::is_contained(type.getShape(), 0)) {
      int64_t elements = 1;
      for (int64_t d : type.getShape())
        if (llvm::MulOverflow(elements, d, elements)) {
          std::string why;
          llvm::raw_string_ostream os(why);
          os << mapping << ": the element count of " << type
             << " overflows int64";
          return why;
        }
    }
    // A buffer in another memory space (GPU workgroup memory, say) is not
    // one the mapped host code or a launch from it can address.
    if (type && type.getMemorySpace()) {
      std::string why;
      llvm::raw_string_ostream os(why);
      os << mapping << " expects buffers in the default memory space, not "
         << type.getMemorySpace();
      return why;
    }
  }
  return std::nullopt;
}

std::optional<std::string>
mlir::softmax::whyNotF32Accumulated(SemanticOpInterface op,
                                    StringRef mapping) {
  std::string why;
  llvm::raw_string_ostream os(why);
  SmallVector<Value> buffers(op.getInputs());
  llvm::append_range(buffers, op.getDestinations());
  for (Value v : buffers) {
    Type t = cast<ShapedType>(v.getType()).getElementType();
    if (!isa<Float16Type, BFloat16Type, Float32Type>(t)) {
      os << mapping << " supports f16, bf16 and f32, not '" << t << "'";
      return why;
    }
  }
  // f64 data was refused above, so the accumulator is f32 unless acc_type
  // asks for another.
  if (FloatType acc = op.getAccumulatorType(); !acc.isF32()) {
    os << mapping << " accumulates in f32; acc_type '" << acc
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
  return collapseGroups(b, loc, memref, reassoc);
}

Value mlir::softmax::collapseGroups(OpBuilder &b, Location loc, Value memref,
                                    ArrayRef<ReassociationIndices> groups) {
  // The result type is computed here: upstream's builder gives a group that
  // holds a static 0 and a dynamic size the static size 0, which its own
  // verifier rejects (memref<?x0x100xf32> collapsed to memref<0xf32>).
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> shape;
  for (const ReassociationIndices &group : groups) {
    int64_t size = 1;
    for (int64_t d : group) {
      if (type.isDynamicDim(d)) {
        size = ShapedType::kDynamic;
        break;
      }
      size *= type.getDimSize(d);
    }
    shape.push_back(size);
  }
  return memref::CollapseShapeOp::create(
      b, loc, MemRefType::get(shape, type.getElementType()), memref, groups);
}
