//===- AttentionShape.cpp - the sizes of softmax.attention -------------===//
//
// Where each size of softmax.attention can be read, and when it can be
// decomposed.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// Where an attention size can be read: dimension `index` of `operand`.
/// The mask's batch and head dimensions broadcast when they are a static
/// 1, so they tell nothing about B and H.
struct DimSource {
  Value operand;
  int64_t index;
  bool broadcasts = false;
};
} // namespace

static SmallVector<DimSource> sourcesOf(AttentionOp op, AttentionDim dim) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value o = op.getOutput(), lse = op.getLse(), mask = op.getMask();
  SmallVector<DimSource> sources;
  auto add = [&](Value x, int64_t index, bool broadcasts = false) {
    if (x)
      sources.push_back({x, index, broadcasts});
  };
  // Paged keys and values ([num_pages, page_size, Hkv, D]) have no batch
  // dimension and no Nk: the page table has B, and Nk is its pages times
  // the page size (getStaticAttentionSize, getAttentionSize).
  bool paged = op.isPaged();
  switch (dim) {
  case AttentionDim::B:
    for (Value x : {q, o, lse, op.getKeyLengths(), op.getPageTable()})
      add(x, 0);
    if (!paged) {
      add(k, 0);
      add(v, 0);
    }
    add(mask, 0, /*broadcasts=*/true);
    break;
  case AttentionDim::H:
    for (Value x : {q, o, lse})
      add(x, 1);
    add(mask, 1, /*broadcasts=*/true);
    break;
  case AttentionDim::Hkv:
    add(k, paged ? 2 : 1);
    add(v, paged ? 2 : 1);
    break;
  case AttentionDim::Nq:
    for (Value x : {q, o, lse, mask})
      add(x, 2);
    break;
  case AttentionDim::Nk:
    if (!paged) {
      add(k, 2);
      add(v, 2);
    }
    add(mask, 3);
    break;
  case AttentionDim::D:
    add(q, 3);
    add(k, 3);
    break;
  case AttentionDim::Dv:
    add(v, 3);
    add(o, 3);
    break;
  }
  return sources;
}

std::optional<int64_t> mlir::softmax::getStaticAttentionSize(AttentionOp op,
                                                             AttentionDim dim) {
  if (dim == AttentionDim::Nk && op.isPaged()) {
    int64_t pages = cast<ShapedType>(op.getPageTable().getType()).getDimSize(1);
    int64_t pageSize = cast<ShapedType>(op.getKey().getType()).getDimSize(1);
    if (!ShapedType::isDynamic(pages) && !ShapedType::isDynamic(pageSize))
      return pages * pageSize;
  }
  for (const DimSource &s : sourcesOf(op, dim)) {
    int64_t size = cast<ShapedType>(s.operand.getType()).getDimSize(s.index);
    if (!ShapedType::isDynamic(size) && !(s.broadcasts && size == 1))
      return size;
  }
  return std::nullopt;
}

OpFoldResult mlir::softmax::getAttentionSize(OpBuilder &b, AttentionOp op,
                                             AttentionDim dim) {
  if (std::optional<int64_t> size = getStaticAttentionSize(op, dim))
    return b.getIndexAttr(*size);
  auto mixedSize = [&](Value v, int64_t d) -> OpFoldResult {
    if (isa<RankedTensorType>(v.getType()))
      return tensor::getMixedSize(b, op.getLoc(), v, d);
    return memref::getMixedSize(b, op.getLoc(), v, d);
  };
  if (dim == AttentionDim::Nk && op.isPaged()) {
    // Not static (getStaticAttentionSize): a product of two values.
    Location loc = op.getLoc();
    return arith::MulIOp::create(b, loc,
                                 getValueOrCreateConstantIndexOp(
                                     b, loc, mixedSize(op.getPageTable(), 1)),
                                 getValueOrCreateConstantIndexOp(
                                     b, loc, mixedSize(op.getKey(), 1)))
        .getResult();
  }
  // Query comes first in every list but Nk's and Hkv's, where key does,
  // and they always exist.
  DimSource first = sourcesOf(op, dim).front();
  if (isa<RankedTensorType>(first.operand.getType()))
    return tensor::getMixedSize(b, op.getLoc(), first.operand, first.index);
  return memref::getMixedSize(b, op.getLoc(), first.operand, first.index);
}

bool mlir::softmax::coversAttentionDim(AttentionOp op, AttentionDim dim,
                                       OpFoldResult offset,
                                       OpFoldResult size) {
  if (!isConstantIntValue(offset, 0))
    return false;
  if (std::optional<int64_t> full = getStaticAttentionSize(op, dim))
    return getConstantIntValue(size) == full;
  // A dynamic size is whole if it is the size of an operand that has it:
  // what getIterationDomain hands to the tiling drivers.
  auto value = dyn_cast<Value>(size);
  auto dimOp = value ? value.getDefiningOp<tensor::DimOp>() : tensor::DimOp();
  if (!dimOp)
    return false;
  return llvm::any_of(sourcesOf(op, dim), [&](const DimSource &s) {
    return !s.broadcasts && dimOp.getSource() == s.operand &&
           getConstantIntValue(dimOp.getIndex()) == s.index;
  });
}

std::optional<int64_t> mlir::softmax::getStaticHeadGroup(AttentionOp op) {
  std::optional<int64_t> heads = getStaticAttentionSize(op, AttentionDim::H);
  std::optional<int64_t> kvHeads = getStaticAttentionSize(op, AttentionDim::Hkv);
  if (!heads || !kvHeads)
    return std::nullopt;
  // H = Hkv = 0 is valid and empty; any group size reads the right heads.
  return *kvHeads == 0 ? 1 : *heads / *kvHeads;
}

/// True if every query head reads key/value head 0, whatever H is.
static bool hasOneKvHead(AttentionOp op) {
  return getStaticAttentionSize(op, AttentionDim::Hkv) == 1;
}

static std::string sizeString(std::optional<int64_t> size) {
  return size ? std::to_string(*size) : std::string("?");
}

std::optional<std::string>
mlir::softmax::whyAttentionNotDecomposable(AttentionOp op) {
  if (!isa<RankedTensorType>(op.getQuery().getType()))
    return std::string("decomposition expects tensors; run softmax-decompose "
                       "before bufferization");
  if (!op.getScaleOrDefault())
    return std::string("has no scale and no static head dimension");
  // linalg indexing maps take no symbols, so the group size must be a
  // constant of the key/value maps (h floordiv G).
  if (!hasOneKvHead(op) && !getStaticHeadGroup(op))
    return "decomposition needs a static number of query heads per "
           "key/value head (H and Hkv static, or Hkv = 1), got H = " +
           sizeString(getStaticAttentionSize(op, AttentionDim::H)) +
           ", Hkv = " + sizeString(getStaticAttentionSize(op, AttentionDim::Hkv));
  return std::nullopt;
}


std::optional<int64_t> mlir::softmax::getIndexableWindow(AttentionOp op) {
  std::optional<uint64_t> w = op.getWindow();
  if (!w)
    return std::nullopt;
  constexpr uint64_t kMax = uint64_t(1) << 40;
  return static_cast<int64_t>(std::min(*w, kMax));
}

std::pair<Value, Value>
mlir::softmax::loadSkipThreshold(OpBuilder &b, Location loc, AttentionOp op,
                                 Value bIdx, Value keys) {
  Value t = op.getThreshold();
  if (isa<MemRefType>(t.getType()))
    t = memref::LoadOp::create(b, loc, t, ValueRange{bIdx});
  if (*op.getThresholdKind() != SkipThresholdKind::ScaleFactor)
    return {t, Value()};
  return {t, keyCountAsF32(b, loc, keys)};
}

Value mlir::softmax::keyCountAsF32(OpBuilder &b, Location loc, Value keys) {
  return arith::SIToFPOp::create(
      b, loc, b.getF32Type(),
      arith::IndexCastOp::create(b, loc, b.getI64Type(), keys));
}

Value mlir::softmax::clampKeyLength(OpBuilder &b, Location loc, Value length,
                                    Value keys) {
  Value n = arith::IndexCastOp::create(b, loc, b.getIndexType(), length);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, n, keys),
                                zero);
}

Value mlir::softmax::loadKeyCount(OpBuilder &b, Location loc, AttentionOp op,
                                  Value bIdx, Value keys) {
  Value lengths = op.getKeyLengths();
  if (!lengths)
    return keys;
  Value length = memref::LoadOp::create(b, loc, lengths, ValueRange{bIdx});
  return clampKeyLength(b, loc, length, keys);
}

Value mlir::softmax::pageOfKey(OpBuilder &b, Location loc, Value entry,
                               Value numPages) {
  Value page = arith::IndexCastOp::create(b, loc, b.getIndexType(), entry);
  Value last = arith::SubIOp::create(b, loc, numPages,
                                     arith::ConstantIndexOp::create(b, loc, 1));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, page, last), zero);
}

SmallVector<Value> mlir::softmax::kvRowIndices(OpBuilder &b, Location loc,
                                               AttentionOp op, Value src,
                                               Value bIdx, Value kvHead,
                                               Value row) {
  Value table = op.getPageTable();
  if (!table)
    return {bIdx, kvHead, row};
  Value pageSize = memref::DimOp::create(b, loc, src, 1);
  Value entry = memref::LoadOp::create(
      b, loc, table,
      ValueRange{bIdx, arith::DivUIOp::create(b, loc, row, pageSize)});
  return {pageOfKey(b, loc, entry, memref::DimOp::create(b, loc, src, 0)),
          arith::RemUIOp::create(b, loc, row, pageSize), kvHead};
}
