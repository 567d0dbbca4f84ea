//===- AttentionTiling.cpp - TilingInterface for softmax.attention -------===//
//
// The iteration domain is (B, H, Nq, Nk): every (batch, query head, query
// row) is independent, so those three tile into smaller attention ops. Nk is
// a reduction whose tiles cannot simply be concatenated (each would
// normalize on its own); it is in the domain so that asking to tile it fails
// with a message instead of being dropped, and tileAttentionAlongKeys
// (Transforms.h) tiles it with merged states. Tiling Nq under causal or
// window would move the bottom-right diagonal (it depends on Nq), so that
// fails too.
//
//===----------------------------------------------------------------------===//

#include "TilingSlice.h"
#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// Loops of the iteration domain.
enum Loop : unsigned { kBatch = 0, kHead = 1, kQuery = 2, kKey = 3 };
} // namespace

SmallVector<utils::IteratorType> AttentionOp::getLoopIteratorTypes() {
  using utils::IteratorType;
  return {IteratorType::parallel, IteratorType::parallel,
          IteratorType::parallel, IteratorType::reduction};
}

SmallVector<Range> AttentionOp::getIterationDomain(OpBuilder &b) {
  Attribute zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<Range> domain;
  for (AttentionDim dim : {AttentionDim::B, AttentionDim::H, AttentionDim::Nq,
                           AttentionDim::Nk})
    domain.push_back(Range{zero, getAttentionSize(b, *this, dim), one});
  return domain;
}

/// The nominal size of a tile of `size` (a constant, or the upper bound of
/// a ragged affine.min): tiles start at its multiples.
static FailureOr<int64_t> nominalTileSize(OpFoldResult size) {
  return ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
}

/// The key/value heads that the query heads [offset, offset + size) read,
/// or failure (with a diagnostic) when they are not a slice that keeps the
/// tiled op's own head mapping h / (H' / Hkv') right.
static FailureOr<std::pair<OpFoldResult, OpFoldResult>>
kvHeadsOf(OpBuilder &b, AttentionOp op, OpFoldResult offset,
          OpFoldResult size) {
  Location loc = op.getLoc();
  if (coversAttentionDim(op, AttentionDim::H, offset, size))
    return std::make_pair(
        OpFoldResult(b.getIndexAttr(0)),
        tensor::getMixedSize(b, loc, op.getKey(), op.isPaged() ? 2 : 1));
  if (getStaticAttentionSize(op, AttentionDim::Hkv) == 1)
    return std::make_pair(OpFoldResult(b.getIndexAttr(0)),
                          OpFoldResult(b.getIndexAttr(1)));
  std::optional<int64_t> group = getStaticHeadGroup(op);
  if (!group)
    return op.emitOpError("cannot tile the query heads when H / Hkv is not "
                          "static (H and Hkv static, or Hkv = 1)");
  if (*group == 1)
    return std::make_pair(offset, size);
  // A tile of a multiple of G query heads reads whole groups; a tile of a
  // divisor of G lies inside one group. Anything else would straddle a
  // group boundary with a mapping the tiled op cannot express. Tiles start
  // at multiples of the nominal size, which the upper bound of a (possibly
  // ragged, affine.min) size recovers.
  FailureOr<int64_t> nominal = nominalTileSize(size);
  if (failed(nominal) || *nominal < 1 ||
      (*nominal % *group != 0 && *group % *nominal != 0)) {
    InFlightDiagnostic diag = op.emitOpError()
                              << "cannot tile the query heads by ";
    if (failed(nominal))
      diag << "a size with no constant bound";
    else
      diag << *nominal;
    return diag << ": a tile must hold a multiple or a divisor of the "
                << *group << " query heads that share a key/value head";
  }
  AffineExpr d0 = b.getAffineDimExpr(0);
  return std::make_pair(
      affine::makeComposedFoldedAffineApply(b, loc, d0.floorDiv(*group),
                                            {offset}),
      affine::makeComposedFoldedAffineApply(b, loc, d0.ceilDiv(*group),
                                            {size}));
}

FailureOr<TilingResult>
AttentionOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  if (!isa<RankedTensorType>(getQuery().getType()))
    return emitOpError("tiling expects tensors; tile before bufferization");
  if (!coversAttentionDim(*this, AttentionDim::Nk, offsets[kKey],
                          sizes[kKey]))
    return emitOpError(
        "cannot tile the keys (Nk) through TilingInterface: each tile would "
        "normalize on its own; tileAttentionAlongKeys "
        "(softmax-decompose attention-key-tile-size=N) merges the tiles' "
        "states");
  // A thresholded op tiles into thresholded ops that decide on the same
  // tiles: its query tiles start at row 0, so a tile of rows must hold
  // whole query tiles (tiles start at multiples of the nominal size); its
  // key tiles are untouched. Counts are a sum over all tiles, which a
  // result slice cannot express.
  if (hasSkipThreshold()) {
    if (getSkipCounts())
      return emitOpError(
          "cannot tile a thresholded attention with skip_counts through "
          "TilingInterface: each tile would count only its own pairs; tile "
          "it without the counts, or tile its keys with softmax-decompose");
    int64_t qt = getSkipQueryRows();
    if (qt > 1 && !coversAttentionDim(*this, AttentionDim::Nq, offsets[kQuery],
                                      sizes[kQuery])) {
      FailureOr<int64_t> nominal = nominalTileSize(sizes[kQuery]);
      if (failed(nominal) || *nominal < 1 || *nominal % qt != 0) {
        InFlightDiagnostic diag =
            emitOpError() << "cannot tile the query rows of a thresholded "
                             "attention by ";
        if (failed(nominal))
          diag << "a size with no constant bound";
        else
          diag << *nominal;
        return diag << ": a tile must hold whole query tiles of its skip "
                       "tile (a multiple of "
                    << qt << " rows)";
      }
    }
  }
  if ((getCausal() || getWindow()) &&
      !coversAttentionDim(*this, AttentionDim::Nq, offsets[kQuery],
                          sizes[kQuery]))
    return emitOpError(
        "cannot tile the query rows (Nq) of a causal or windowed attention: "
        "its diagonal i + Nk - Nq is aligned to the bottom right, so a tile "
        "of rows would see other keys");
  FailureOr<std::pair<OpFoldResult, OpFoldResult>> kv =
      kvHeadsOf(b, *this, offsets[kHead], sizes[kHead]);
  if (failed(kv))
    return failure();

  Location loc = getLoc();
  Attribute zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  auto size = [&](Value v, int64_t d) {
    return tensor::getMixedSize(b, loc, v, d);
  };
  OpFoldResult b0 = offsets[kBatch], h0 = offsets[kHead],
               i0 = offsets[kQuery];
  OpFoldResult nb = sizes[kBatch], nh = sizes[kHead], ni = sizes[kQuery];
  // Keys and values of the tile's batch entries and key/value heads; paged
  // ones ([num_pages, page_size, Hkv, D]) serve every batch entry, through
  // the page table's rows of the tile.
  auto kvTile = [&](Value src) {
    if (isPaged())
      return detail::unitSlice(
          b, loc, src, {zero, zero, kv->first, zero},
          {size(src, 0), size(src, 1), kv->second, size(src, 3)});
    return detail::unitSlice(b, loc, src, {b0, kv->first, zero, zero},
                             {nb, kv->second, size(src, 2), size(src, 3)});
  };
  SmallVector<Value> operands = {
      detail::unitSlice(b, loc, getQuery(), {b0, h0, i0, zero},
                        {nb, nh, ni, size(getQuery(), 3)}),
      kvTile(getKey()), kvTile(getValue())};
  if (Value mask = getMask()) {
    // A static 1 in the mask's batch or head dimension broadcasts: its one
    // row serves every tile.
    auto type = cast<ShapedType>(mask.getType());
    bool bcastB = type.getDimSize(0) == 1, bcastH = type.getDimSize(1) == 1;
    operands.push_back(detail::unitSlice(
        b, loc, mask, {bcastB ? zero : b0, bcastH ? zero : h0, i0, zero},
        {bcastB ? one : nb, bcastH ? one : nh, ni, size(mask, 3)}));
  }
  if (Value threshold = getThreshold()) {
    // One lambda per batch entry follows the batch tile; a scalar serves all.
    operands.push_back(isa<ShapedType>(threshold.getType())
                           ? detail::unitSlice(b, loc, threshold, {b0}, {nb})
                           : threshold);
  }
  // Key counts are per batch entry.
  if (Value lengths = getKeyLengths())
    operands.push_back(detail::unitSlice(b, loc, lengths, {b0}, {nb}));
  if (Value table = getPageTable())
    operands.push_back(
        detail::unitSlice(b, loc, table, {b0, zero}, {nb, size(table, 1)}));
  Value output = detail::unitSlice(b, loc, getOutput(), {b0, h0, i0, zero},
                                   {nb, nh, ni, size(getOutput(), 3)});
  operands.push_back(output);
  SmallVector<Type> resultTypes = {output.getType()};
  if (Value lse = getLse()) {
    Value lseTile = detail::unitSlice(b, loc, lse, {b0, h0, i0}, {nb, nh, ni});
    operands.push_back(lseTile);
    resultTypes.push_back(lseTile.getType());
  }
  // Same operands present, so the same segment sizes and attributes.
  auto tiled = AttentionOp::create(
      b, loc, resultTypes, operands, getProperties(),
      llvm::to_vector(getOperation()->getDiscardableAttrs()));
  SmallVector<Operation *> slices;
  for (Value v : operands)
    if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>())
      slices.push_back(slice);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()),
                      slices};
}

LogicalResult AttentionOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets.assign(offsets.begin(), offsets.begin() + kKey);
  resultSizes.assign(sizes.begin(), sizes.begin() + kKey);
  if (resultNumber == 0) {
    // The output adds Dv, never tiled.
    resultOffsets.push_back(b.getIndexAttr(0));
    resultSizes.push_back(tensor::getMixedSize(b, getLoc(), getOutput(), 3));
  }
  return success();
}
