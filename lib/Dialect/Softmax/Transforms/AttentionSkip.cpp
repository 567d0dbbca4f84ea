//===- AttentionSkip.cpp - the skip rule in the reference lowering -------===//
//
// softmax.attention's skip threshold in linalg: per key tile, every row's
// verdict from the state algebra (StateMath::rowAllowsSkip, the one place
// the rule is written), the and of the verdicts of each query tile of Qt
// rows, and the state of a skipped tile's rows kept as it was. The key-tiled
// decomposition (AttentionKeyTiling.cpp) calls these once per key tile; the
// result is the reference every target's skipping is checked against, so
// it decides on the same rows and keys as the op's description, not on a
// kernel's.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Transforms/AttentionDecompose.h"

#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::softmax;

static SmallVector<utils::IteratorType> parallelLoops(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

Value AttentionDecomposer::logThreshold() { return perBatchThreshold(true); }

Value AttentionDecomposer::lambdas() { return perBatchThreshold(false); }

Value AttentionDecomposer::perBatchThreshold(bool log) {
  MLIRContext *ctx = op.getContext();
  Value threshold = op.getThreshold();
  bool perBatch = isa<ShapedType>(threshold.getType());
  // lambda = a / L divides by the entry's own key count when the op is
  // ragged.
  bool scaleFactor = *op.getThresholdKind() == SkipThresholdKind::ScaleFactor;
  Value lengths = scaleFactor ? op.getKeyLengths() : Value();
  Value nk = index(keys), keysF32;
  if (scaleFactor && !lengths)
    keysF32 = keyCountAsF32(b, loc, nk);
  Value empty = tensor::EmptyOp::create(b, loc, {batch}, f32);
  AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  if (perBatch) {
    ins.push_back(threshold);
    maps.push_back(id1);
  }
  if (lengths) {
    ins.push_back(lengths);
    maps.push_back(id1);
  }
  maps.push_back(id1);
  return linalg::GenericOp::create(
             b, loc, empty.getType(), ins, empty, maps, parallelLoops(1),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               StateMath sm(nb, l, f32);
               Value t = perBatch ? args[0] : threshold;
               if (lengths)
                 keysF32 = keyCountAsF32(
                     nb, l, clampKeyLength(nb, l, args[perBatch ? 1 : 0], nk));
               linalg::YieldOp::create(nb, l,
                                       log ? sm.logSkipThreshold(t, keysF32)
                                           : sm.skipLambda(t, keysF32));
             })
      .getResult(0);
}

Value AttentionDecomposer::reduceQueryTiles(Value rows, bool all) {
  MLIRContext *ctx = op.getContext();
  int64_t qt = op.getSkipQueryRows();
  // Pad the rows to a whole number of tiles with the reduction's identity
  // (rows past Nq neither hold a tile back nor make it live), then view
  // them as [B, H, tiles, Qt].
  AffineExpr n;
  bindSymbols(ctx, n);
  OpFoldResult pad = affine::makeComposedFoldedAffineApply(
      b, loc, AffineMap::get(0, 1, (-n) % qt), {queries});
  Attribute zero = b.getIndexAttr(0);
  Value identity = arith::ConstantOp::create(b, loc, b.getBoolAttr(all));
  OpFoldResult tiles = affine::makeComposedFoldedAffineApply(
      b, loc, AffineMap::get(0, 1, n.ceilDiv(qt)), {queries});
  Value init =
      linalg::FillOp::create(
          b, loc, identity,
          tensor::EmptyOp::create(b, loc, {batch, heads, tiles}, b.getI1Type())
              .getResult())
          .getResult(0);
  // No rows at all (a static 0 among B, H, Nq): the identity, without a
  // tensor.pad, whose buffer copy is a subview at offset 0 of a dimension of
  // size 0 that upstream's verifier rejects (as in extractSliceOrEmpty).
  if (llvm::is_contained(cast<RankedTensorType>(rows.getType()).getShape(), 0))
    return init;
  Value padded = tensor::PadOp::create(b, loc, Type(), rows, {zero, zero, zero},
                                       {zero, zero, pad}, identity)
                     .getResult();
  auto paddedType = cast<RankedTensorType>(padded.getType());
  int64_t paddedRows = paddedType.getDimSize(2);
  auto tiledType = RankedTensorType::get(
      {paddedType.getDimSize(0), paddedType.getDimSize(1),
       ShapedType::isDynamic(paddedRows) ? ShapedType::kDynamic
                                         : paddedRows / qt,
       qt},
      b.getI1Type());
  Value tiled = tensor::ExpandShapeOp::create(
      b, loc, tiledType, padded, {{0}, {1}, {2, 3}},
      {batch, heads, tiles, b.getIndexAttr(qt)});
  return linalg::ReduceOp::create(
             b, loc, tiled, init, /*dimensions=*/{3},
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value r = all ? arith::AndIOp::create(nb, l, args[0], args[1])
                                   .getResult()
                             : arith::OrIOp::create(nb, l, args[0], args[1])
                                   .getResult();
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

Value AttentionDecomposer::broadcastQueryTiles(Value tiles) {
  MLIRContext *ctx = op.getContext();
  int64_t qt = op.getSkipQueryRows();
  OpFoldResult numTiles = tensor::getMixedSize(b, loc, tiles, 2);
  Value empty = tensor::EmptyOp::create(
      b, loc, {batch, heads, numTiles, b.getIndexAttr(qt)}, b.getI1Type());
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  Value spread = linalg::GenericOp::create(
                     b, loc, empty.getType(), tiles, empty,
                     {id4.getMajorSubMap(3), id4}, parallelLoops(4),
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       linalg::YieldOp::create(nb, l, args[0]);
                     })
                     .getResult(0);
  Value rows =
      tensor::CollapseShapeOp::create(b, loc, spread, {{0}, {1}, {2, 3}});
  Attribute zero = b.getIndexAttr(0);
  return extractSliceOrEmpty(b, loc, rows, {zero, zero, zero},
                             {batch, heads, queries});
}

AttentionDecomposer::TileSkip AttentionDecomposer::skipDecision(Value tileMax,
                                                                Value m,
                                                                Value logLambda,
                                                                bool count) {
  MLIRContext *ctx = op.getContext();
  AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
  AffineMap batchOf3 = id3.getMajorSubMap(1);
  Type i1 = b.getI1Type();
  Value empty = tensor::EmptyOp::create(b, loc, {batch, heads, queries}, i1);
  auto rows = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType(), empty.getType()},
      ValueRange{tileMax, m, logLambda}, ValueRange{empty, empty},
      {id3, id3, batchOf3, id3, id3}, parallelLoops(3),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        StateMath sm(nb, l, f32);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{sm.rowAllowsSkip(args[0], args[1], args[2]),
                       sm.rowSeesTile(args[0])});
      });
  Value allow = rows.getResult(0), sees = rows.getResult(1);
  bool perRow = op.getSkipQueryRows() == 1;
  Value tileAllow = perRow ? allow : reduceQueryTiles(allow, /*all=*/true);
  TileSkip result;
  result.skip = perRow ? allow : broadcastQueryTiles(tileAllow);
  if (!count)
    return result;

  // A pair is live if some row sees some key of the tile; only live pairs
  // count, so a tile that causal or window hides from a whole query tile
  // adds to neither number.
  Value tileSees = perRow ? sees : reduceQueryTiles(sees, /*all=*/false);
  Type i64 = b.getI64Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value acc =
      linalg::FillOp::create(
          b, loc, zero,
          tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i64).getResult())
          .getResult(0);
  AffineMap scalar = AffineMap::get(3, 0, {}, ctx);
  auto sums = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType(), acc.getType()},
      ValueRange{tileSees, tileAllow}, ValueRange{acc, acc},
      {id3, id3, scalar, scalar},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::reduction),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto add = [&](Value flag, Value sum) -> Value {
          return arith::AddIOp::create(
              nb, l, sum, arith::ExtUIOp::create(nb, l, i64, flag));
        };
        Value skipped = arith::AndIOp::create(nb, l, args[0], args[1]);
        linalg::YieldOp::create(
            nb, l, ValueRange{add(args[0], args[2]), add(skipped, args[3])});
      });
  result.live = tensor::ExtractOp::create(b, loc, sums.getResult(0));
  result.skipped = tensor::ExtractOp::create(b, loc, sums.getResult(1));
  return result;
}

Value AttentionDecomposer::keepSkipped(Value skip, Value kept, Value updated) {
  MLIRContext *ctx = op.getContext();
  int64_t rank = cast<ShapedType>(kept.getType()).getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  return linalg::GenericOp::create(
             b, loc, updated.getType(), ValueRange{skip, kept}, updated,
             {id.getMajorSubMap(3), id, id}, parallelLoops(rank),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l,
                   arith::SelectOp::create(nb, l, args[0], args[1], args[2])
                       .getResult());
             })
      .getResult(0);
}
