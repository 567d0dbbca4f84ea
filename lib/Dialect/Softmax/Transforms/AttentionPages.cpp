//===- AttentionPages.cpp - paged keys and values as dense ones ----------===//
//
// The reference form of a paged KV cache: key j of sequence b is row
// j mod page_size of page table[b, j / page_size], so gathering every
// sequence's pages gives the dense [B, Hkv, Nk, D] keys and values that the
// decompositions take. The fused kernels (CPU, GPU) read the pages in place
// instead; this is what they are checked against.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

/// `pages` (the key or value of `op`, [num_pages, page_size, Hkv, D]) as
/// [B, Hkv, Nk, D], Nk = P page_size.
static Value gatherPages(OpBuilder &b, Location loc, AttentionOp op,
                         Value pages) {
  auto type = cast<RankedTensorType>(pages.getType());
  Value table = op.getPageTable();
  auto size = [&](Value v, int64_t d) {
    return tensor::getMixedSize(b, loc, v, d);
  };
  OpFoldResult keys = getAttentionSize(b, op, AttentionDim::Nk);
  Value init = tensor::EmptyOp::create(
      b, loc, {size(table, 0), size(pages, 2), keys, size(pages, 3)},
      type.getElementType());
  Value pageSize = tensor::DimOp::create(b, loc, pages, 1);
  Value numPages = tensor::DimOp::create(b, loc, pages, 0);
  AffineMap id = AffineMap::getMultiDimIdentityMap(4, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             ArrayRef<AffineMap>{id},
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange) {
               auto index = [&](int64_t d) -> Value {
                 return linalg::IndexOp::create(nb, l, d);
               };
               Value bIdx = index(0), head = index(1), j = index(2);
               Value slot = arith::DivUIOp::create(nb, l, j, pageSize);
               Value row = arith::RemUIOp::create(nb, l, j, pageSize);
               Value entry = tensor::ExtractOp::create(nb, l, table,
                                                       ValueRange{bIdx, slot});
               Value page = pageOfKey(nb, l, entry, numPages);
               linalg::YieldOp::create(
                   nb, l,
                   tensor::ExtractOp::create(
                       nb, l, pages, ValueRange{page, row, head, index(3)})
                       .getResult());
             })
      .getResult(0);
}

AttentionOp mlir::softmax::buildGatheredAttention(OpBuilder &b,
                                                  AttentionOp op) {
  Location loc = op.getLoc();
  auto dense = AttentionOp::create(
      b, loc, op.getResultTypes(), op.getQuery(),
      gatherPages(b, loc, op, op.getKey()),
      gatherPages(b, loc, op, op.getValue()), op.getMask(), op.getThreshold(),
      op.getKeyLengths(), /*page_table=*/Value(), op.getOutput(), op.getLse(),
      op.getSkipCounts(), op.getMaskedAttr(), op.getScaleAttr(),
      op.getCausalAttr(), op.getWindowAttr(), op.getThresholdKindAttr(),
      op.getSkipTileAttr(), op.getUnifiedMaxAttr());
  dense->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  return dense;
}

FailureOr<AttentionOp>
mlir::softmax::gatherAttentionPages(RewriterBase &rewriter, AttentionOp op) {
  if (!op.isPaged())
    return op;
  if (!op.hasPureTensorSemantics())
    return op.emitOpError("gathering the pages of a paged attention needs "
                          "tensors (run it before bufferization)");
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  AttentionOp dense = buildGatheredAttention(rewriter, op);
  rewriter.replaceOp(op, dense->getResults());
  return dense;
}
