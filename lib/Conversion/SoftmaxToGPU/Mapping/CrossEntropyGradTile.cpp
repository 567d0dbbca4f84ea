//===- CrossEntropyGradTile.cpp - the gradient's logit tile kernel -------===//
//
// Step 2 of linear_cross_entropy_grad on the GPU (the steps:
// CrossEntropyGradToGPU.cpp): a block recomputes a tile of logits on the
// matrix unit, turns them into du in registers and votes on the filter.
// The fused form multiplies a kept tile's du into both gradients with
// atomics; the chunked form (CrossEntropyGradChunks.cpp) runs the tile
// over a range of class tiles and writes du and the votes to memory for
// its products.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Utils/CrossEntropyMath.h"

#include "CrossEntropyGPU.h"
#include "CrossEntropyGradGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

class GradTileKernel : IndexArith {
public:
  GradTileKernel(OpBuilder &b, Location loc, LinearCrossEntropyGradOp op,
                 TileMma &logits, TileMma *prodH, TileMma *prodW,
                 const GradBuffers &out)
      : IndexArith(b, loc), op(op), mma(logits), prodH(prodH), prodW(prodW),
        c(logits.getConfig()), out(out) {}

  /// `smem`: as buildGradTiles.
  void build(gpu::LaunchOp launch, ArrayRef<Value> smem);
  /// The chunked form: a block per (token tile, range of the chunk's class
  /// tiles), the slices of consecutive tiles in one pipeline (the
  /// forward's schedule), each tile's vote and du written after its
  /// product.
  void buildChunked(gpu::LaunchOp launch, ArrayRef<Value> smem);

private:
  /// The inner dimension in kTile steps, the next slices in flight (the
  /// forward's schedule): `body(step, buffer, carried)` after the step's
  /// wait, a barrier after it.
  SmallVector<Value>
  pipelined(ValueRange init,
            function_ref<SmallVector<Value>(Value, Value, ValueRange)> body);
  /// The chunked form: the block's vote into `flags`, and a kept tile's du
  /// (hi, and lo in exact mode) into `du`.
  void storeTile(ArrayRef<Value> grads, Value keep);
  /// du `g` in the inputs' type, one value per plane: its rounding hi,
  /// and in exact mode the rest lo = du - hi, so that hi + lo carries du
  /// to about 2^-16 (bf16 alone: 2^-9 per entry, 1.6e-3 norm-wise in the
  /// gradients at N 8192, V 128256, over the 1e-3 the exact mode promises).
  SmallVector<Value, 2> duPlanes(Value g);
  /// Thread 0 counts the tile as visited, and as filtered unless `keep`.
  void countTile(Value keep);
  /// Thread 0 counts `n` (an index) tiles as visited and filtered before
  /// their logits were recomputed.
  void countBounded(Value n);
  /// Whether class_max bounds token `row` below the filter in classes
  /// [c0, c0 + width) (crossEntropyBoundsToken; a row past the tokens is
  /// bounded).
  Value boundsToken(Value row, Value c0, int64_t width);
  /// Stores 1 (i32) into `dst[at]` unless class_max bounds token `row` in
  /// the tile of classes from `c0` (boundsToken).
  void markUnbounded(Value row, Value c0, Value dst, Value at);
  /// The chunked form with class_max: the block's tiles [j0, j1) that
  /// class_max does not bound, listed in `scratch` from
  /// kGradListOffset on; returns their count (every thread, after a
  /// barrier). The bounded ones are counted.
  Value listUnbounded(gpu::LaunchOp launch, Value scratch, Value j0, Value j1);
  /// Lane bookkeeping shared by both forms; `tileIds` and `v0` are set per
  /// tile by the caller.
  void begin(gpu::LaunchOp launch, ArrayRef<Value> tiles);
  /// du of the lane's accumulator elements (0 past N and V).
  SmallVector<Value> gradients(ArrayRef<Value> acc);
  /// Whether the filter keeps any du of the block (crossEntropyKeepsEntry).
  Value vote(ArrayRef<Value> du, Value flag, Value slot);
  /// grad_bias += the block's column sums of du.
  void addBias(ArrayRef<Value> du);
  /// acc (a product's accumulators) added into rows [row0 + ...) of the
  /// [rows, D] accumulator `dst`, columns from `col0`.
  void addTile(TileMma &p, ArrayRef<Value> acc, Value dst, Value row0,
               Value rows, Value col0, Value pRow, Value pCol);

  LinearCrossEntropyGradOp op;
  TileMma &mma, *prodH, *prodW;
  const TileMmaConfig &c;
  GradBuffers out;
  Value tokens, classes, n0, v0, warp, warpRow, warpCol, base;
  /// Thread 0 of the block; the block's (token tile, class tile).
  Value isFirst;
  SmallVector<Value, 2> tileIds;
  /// Each slot's token weight (set by `gradients`, read by `vote`).
  SmallVector<Value> weights;
  int64_t features = 0;
};

} // namespace

SmallVector<Value> GradTileKernel::pipelined(
    ValueRange init,
    function_ref<SmallVector<Value>(Value, Value, ValueRange)> body) {
  int64_t steps = llvm::divideCeil(features, c.kTile);
  Value bound = features % c.kTile ? idx(features) : Value();
  auto stage = [&](Value t, Value buf) {
    return mma.stage(op.getHidden(), n0, tokens, op.getClassifier(), v0,
                     classes, mul(t, idx(c.kTile)), bound, buf);
  };
  // A step is staged into the buffer of the last step whose products every
  // warp has completed.
  int64_t ahead = c.stages - 1 - mma.productsInFlight();
  Value last = idx(steps - 1), token;
  for (int64_t t = 0; t < ahead; ++t)
    token = stage(minI(idx(t), last), idx(t));
  auto loop = scf::ForOp::create(
      b, loc, idx(0), idx(steps), idx(1), init,
      [&](OpBuilder &, Location, Value t, ValueRange carried) {
        Value next = add(t, idx(ahead));
        stage(minI(next, last), rem(next, c.stages));
        mma.waitSlice(t, token, ahead);
        SmallVector<Value> outv = body(t, rem(t, c.stages), carried);
        gpu::BarrierOp::create(b, loc);
        scf::YieldOp::create(b, loc, outv);
      });
  // No copy may be in flight past the loop.
  mma.drain(token, idx(steps), ahead);
  return loop.getResults();
}

SmallVector<Value> GradTileKernel::gradients(ArrayRef<Value> acc) {
  StateMath sm(b, loc, b.getF32Type());
  weights.clear();
  SmallVector<Value> xs0 = mma.elements(acc);
  Value limit = sub(classes, base);
  double zLoss = op.getZLossAttr() ? op.getZLossAttr().getValueAsDouble() : 0;
  std::optional<double> cap;
  if (FloatAttr s = op.getSoftcapAttr())
    cap = s.getValueAsDouble();
  // Each slot's token: lse, weight, its target, and the target's column
  // relative to the lane's base (a row past the tokens: -1, no column
  // matches).
  SmallVector<Value> inRow, lse, targets, rel;
  for (int64_t s = 0; s < mma.slots(); ++s) {
    Value row = add(add(n0, warpRow), mma.slotRow(s));
    inRow.push_back(cmp(arith::CmpIPredicate::slt, row, tokens));
    auto load = scf::IfOp::create(
        b, loc, TypeRange{b.getF32Type(), b.getF32Type(), b.getIndexType()},
        inRow.back(), true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&load.getThenRegion().front());
    Value t = memref::LoadOp::create(b, loc, op.getTargets(), row);
    scf::YieldOp::create(
        b, loc,
        ValueRange{memref::LoadOp::create(b, loc, op.getLse(), row),
                   memref::LoadOp::create(b, loc, out.weights, row),
                   arith::IndexCastOp::create(b, loc, b.getIndexType(), t)});
    b.setInsertionPointToStart(&load.getElseRegion().front());
    scf::YieldOp::create(b, loc, ValueRange{sm.cst(0), sm.cst(0), idx(-1)});
    b.setInsertionPointAfter(load);
    lse.push_back(load.getResult(0));
    weights.push_back(load.getResult(1));
    targets.push_back(load.getResult(2));
    rel.push_back(sub(targets.back(), base));
  }
  Value lastClass = sub(classes, idx(1));
  // As in the forward's fold, the target's -1 and the zeros past V or past
  // the tokens are branched around: few tiles need them.
  auto gradient = [&](size_t i, Value x, Value isTarget) {
    return crossEntropyLogitGradient(b, loc, x, lse[mma.slotOf(i)],
                                     weights[mma.slotOf(i)], isTarget, zLoss,
                                     cap, ExpUnits::Log2Scaled);
  };
  SmallVector<Value> xs, du;
  Value notTarget = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (size_t i = 0; i < xs0.size(); ++i) {
    xs.push_back(crossEntropyLogit(
        b, loc, sm, xs0[i], op.getBias(),
        minI(add(base, idx(mma.colOffset(i))), lastClass),
        op.getSoftcapAttr()));
    du.push_back(gradient(i, xs.back(), notTarget));
  }
  // A target before the tile (or -1, past the tokens) wraps around to a
  // large unsigned offset.
  Value none, allRows;
  for (int64_t s = 0; s < mma.slots(); ++s) {
    Value out = cmp(arith::CmpIPredicate::uge, sub(targets[s], v0),
                    idx(c.blockCols()));
    none = none ? andI(none, out) : out;
    allRows = allRows ? andI(allRows, inRow[s]) : inRow[s];
  }
  // A tile holding a target recomputes each du with its column's rule
  // (one formula, crossEntropyLogitGradient); the others keep theirs.
  du = keepOrChange(b, loc, none, du, [&](SmallVector<Value> g) {
    for (size_t i = 0; i < g.size(); ++i) {
      Value isTarget = cmp(arith::CmpIPredicate::eq, rel[mma.slotOf(i)],
                           idx(mma.colOffset(i)));
      g[i] = gradient(i, xs[i], isTarget);
    }
    return g;
  });
  Value whole = andI(allRows, cmp(arith::CmpIPredicate::sle,
                                  add(v0, idx(c.blockCols())), classes));
  return keepOrChange(b, loc, whole, du, [&](SmallVector<Value> g) {
    for (size_t i = 0; i < g.size(); ++i) {
      int64_t off = mma.colOffset(i);
      Value valid = andI(inRow[mma.slotOf(i)],
                         cmp(arith::CmpIPredicate::slt, idx(off), limit));
      g[i] = sm.select(valid, g[i], sm.cst(0));
    }
    return g;
  });
}

Value GradTileKernel::vote(ArrayRef<Value> du, Value flag, Value slot) {
  double eps = op.getFilterOrDefault();
  Value any;
  for (size_t i = 0; i < du.size(); ++i) {
    Value big =
        crossEntropyKeepsEntry(b, loc, du[i], weights[mma.slotOf(i)], eps);
    any = any ? arith::OrIOp::create(b, loc, any, big) : big;
  }
  {
    auto raise = scf::IfOp::create(b, loc, any, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&raise.getThenRegion().front());
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 1, 32),
                            flag, slot);
  }
  gpu::BarrierOp::create(b, loc);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                               memref::LoadOp::create(b, loc, flag, slot),
                               arith::ConstantIntOp::create(b, loc, 0, 32));
}

void GradTileKernel::addBias(ArrayRef<Value> du) {
  StateMath sm(b, loc, b.getF32Type());
  // The lane's columns: its elements summed over their rows.
  std::map<int64_t, Value> sums;
  for (size_t i = 0; i < du.size(); ++i) {
    Value &s = sums[mma.colOffset(i)];
    s = s ? sm.add(s, du[i]) : du[i];
  }
  auto lanes = static_cast<int32_t>(mma.lanes());
  for (auto &[off, s] : sums)
    for (int32_t x : mma.colLaneXors())
      s = sm.add(
          s, gpu::ShuffleOp::create(b, loc, s, x, lanes, gpu::ShuffleMode::XOR)
                 .getShuffleResult());
  Value first = cmp(arith::CmpIPredicate::eq, mma.slotRow(0), idx(0));
  auto lead = scf::IfOp::create(b, loc, first, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&lead.getThenRegion().front());
  Value limit = sub(classes, base);
  for (auto &[off, s] : sums) {
    auto inside = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, idx(off), limit), false);
    OpBuilder::InsertionGuard gi(b);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, s, out.gb,
                                ValueRange{add(base, idx(off))});
  }
}

void GradTileKernel::addTile(TileMma &p, ArrayRef<Value> acc, Value dst,
                             Value row0, Value rows, Value col0, Value pRow,
                             Value pCol) {
  SmallVector<Value> xs = p.elements(acc);
  Value colBase = add(add(col0, pCol), p.laneCol());
  Value colLimit = sub(idx(features), colBase);
  bool boundCols = features % c.kTile != 0;
  for (int64_t s = 0; s < p.slots(); ++s) {
    Value row = add(add(row0, pRow), p.slotRow(s));
    auto inside = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, row, rows), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    for (size_t i = 0; i < xs.size(); ++i) {
      if (p.slotOf(i) != s)
        continue;
      int64_t off = p.colOffset(i);
      // Element i + 1 the next column of the same row, at an even column
      // (D is even): one request for both where the end has one.
      bool pair = i + 1 < xs.size() && p.slotOf(i + 1) == s &&
                  p.colOffset(i + 1) == off + 1 && off % 2 == 0;
      OpBuilder::InsertionGuard gc(b);
      if (boundCols) {
        // D is a multiple of 8: column off < D implies off + 1 < D.
        auto col = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, idx(off), colLimit), false);
        b.setInsertionPointToStart(&col.getThenRegion().front());
      }
      SmallVector<Value> at = {row, add(colBase, idx(off))};
      if (pair && p.atomicAddPair(dst, at, xs[i], xs[i + 1])) {
        ++i;
        continue;
      }
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, xs[i],
                                  dst, at);
    }
  }
}

void GradTileKernel::storeTile(ArrayRef<Value> grads, Value keep) {
  {
    auto lead = scf::IfOp::create(b, loc, isFirst, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    memref::StoreOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), keep), out.flags,
        tileIds);
  }
  auto kept = scf::IfOp::create(b, loc, keep, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&kept.getThenRegion().front());
  // Each row of the tile, the padding rows' zeros too: the products read
  // whole tiles. Element i + 1 is the next column of element i's row where
  // i is even (both ends' accumulators): one 4-byte store for both.
  Type elt = c.elt;
  bool exact = op.getFilterOrDefault() == 0;
  Value col0 = sub(add(v0, add(warpCol, mma.laneCol())), out.chunk0);
  auto pairType = VectorType::get({2}, elt);
  SmallVector<SmallVector<Value, 2>> planes;
  for (Value g : grads)
    planes.push_back(duPlanes(g));
  for (int64_t plane = 0; plane < (exact ? 2 : 1); ++plane) {
    Value planeRow = add(mul(idx(plane), out.tokenPad), add(n0, warpRow));
    for (size_t i = 0; i + 1 < grads.size(); i += 2) {
      assert(mma.slotOf(i) == mma.slotOf(i + 1) &&
             mma.colOffset(i + 1) == mma.colOffset(i) + 1 &&
             "element pairs are adjacent columns of one row");
      SmallVector<Value> pair = {planes[i][plane], planes[i + 1][plane]};
      Value vec = vector::FromElementsOp::create(b, loc, pairType, pair);
      // One 4-byte request a pair (even columns; the element alignment
      // alone splits it in two 2-byte stores).
      vector::StoreOp::create(
          b, loc, vec, out.du,
          ValueRange{add(planeRow, mma.slotRow(mma.slotOf(i))),
                     add(col0, idx(mma.colOffset(i)))},
          /*nontemporal=*/false,
          llvm::MaybeAlign(2 * elt.getIntOrFloatBitWidth() / 8));
    }
  }
  if (out.gb)
    addBias(grads);
}

SmallVector<Value, 2> GradTileKernel::duPlanes(Value g) {
  Value hi = arith::TruncFOp::create(b, loc, c.elt, g);
  if (op.getFilterOrDefault() != 0)
    return {hi};
  Value back = arith::ExtFOp::create(b, loc, b.getF32Type(), hi);
  return {hi, arith::TruncFOp::create(b, loc, c.elt,
                                      arith::SubFOp::create(b, loc, g, back))};
}

void GradTileKernel::countTile(Value keep) {
  if (!out.counts)
    return;
  auto count = scf::IfOp::create(b, loc, isFirst, false);
  OpBuilder::InsertionGuard gc(b);
  b.setInsertionPointToStart(&count.getThenRegion().front());
  Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
  memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one,
                              out.counts, ValueRange{idx(0)});
  Value skipped = arith::ExtUIOp::create(
      b, loc, b.getI64Type(),
      arith::XOrIOp::create(b, loc, keep,
                            arith::ConstantIntOp::create(b, loc, 1, 1)));
  memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, skipped,
                              out.counts, ValueRange{idx(1)});
}

void GradTileKernel::countBounded(Value n) {
  if (!out.counts)
    return;
  Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
  int64_t size = cast<MemRefType>(out.counts.getType()).getDimSize(0);
  for (int64_t i = 0; i < size; ++i)
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, n64,
                                out.counts, ValueRange{idx(i)});
}

Value GradTileKernel::boundsToken(Value row, Value c0, int64_t width) {
  int64_t groupWidth = LinearCrossEntropyOp::getClassMaxWidth();
  Value classMax = op.getClassMax();
  double zLoss = op.getZLossAttr() ? op.getZLossAttr().getValueAsDouble() : 0;
  auto inside = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()},
                                  cmp(arith::CmpIPredicate::slt, row, tokens),
                                  true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&inside.getThenRegion().front());
  StateMath sm(b, loc, b.getF32Type());
  Value c1 = add(c0, idx(width));
  Value g0 = div(c0, groupWidth);
  Value g1 = minI(arith::CeilDivUIOp::create(b, loc, c1, idx(groupWidth)),
                  memref::DimOp::create(b, loc, classMax, 1));
  auto top = scf::ForOp::create(
      b, loc, g0, g1, idx(1), ValueRange{sm.negInf()},
      [&](OpBuilder &, Location, Value grp, ValueRange m) {
        Value x = memref::LoadOp::create(b, loc, classMax, ValueRange{row, grp});
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::MaximumFOp::create(b, loc, m[0], x).getResult()});
      });
  Value t = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, op.getTargets(), row));
  Value in = andI(cmp(arith::CmpIPredicate::sge, t, c0),
                  cmp(arith::CmpIPredicate::slt, t, c1));
  scf::YieldOp::create(
      b, loc,
      ValueRange{crossEntropyBoundsToken(
          b, loc, top.getResult(0), memref::LoadOp::create(b, loc, op.getLse(), row),
          memref::LoadOp::create(b, loc, out.weights, row), in, zLoss,
          op.getFilterOrDefault())});
  b.setInsertionPointToStart(&inside.getElseRegion().front());
  scf::YieldOp::create(
      b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 1, 1).getResult()});
  return inside.getResult(0);
}

void GradTileKernel::markUnbounded(Value row, Value c0, Value dst,
                                   Value at) {
  Value bounded = boundsToken(row, c0, c.blockCols());
  auto mark = scf::IfOp::create(
      b, loc,
      arith::XOrIOp::create(b, loc, bounded,
                            arith::ConstantIntOp::create(b, loc, 1, 1)),
      false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&mark.getThenRegion().front());
  memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 1, 32),
                          dst, at);
}

Value GradTileKernel::listUnbounded(gpu::LaunchOp launch, Value scratch,
                                    Value j0, Value j1) {
  Value tid = launch.getThreadIds().x;
  Value range = sub(j1, j0);
  Value zero32 = arith::ConstantIntOp::create(b, loc, 0, 32);
  // marks[k]: whether some token of tile j0 + k is not bounded.
  {
    auto clear = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, tid, range), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&clear.getThenRegion().front());
    memref::StoreOp::create(b, loc, zero32, scratch, tid);
  }
  gpu::BarrierOp::create(b, loc);
  // A (token, tile) pair a thread, tiles fastest: class_max's row read in
  // order.
  int64_t threads = c.warps() * mma.lanes();
  scf::ForOp::create(
      b, loc, tid, mul(range, idx(c.blockRows())), idx(threads), ValueRange{},
      [&](OpBuilder &, Location, Value p, ValueRange) {
        Value k = arith::RemUIOp::create(b, loc, p, range);
        Value row = add(n0, arith::DivUIOp::create(b, loc, p, range));
        markUnbounded(row, add(out.chunk0, mul(add(j0, k), idx(c.blockCols()))),
                      scratch, k);
        scf::YieldOp::create(b, loc);
      });
  gpu::BarrierOp::create(b, loc);
  Value countAt = idx(2 * kGradListOffset);
  {
    auto lead = scf::IfOp::create(b, loc, isFirst, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    auto loop = scf::ForOp::create(
        b, loc, idx(0), range, idx(1), ValueRange{idx(0)},
        [&](OpBuilder &, Location, Value k, ValueRange n) {
          Value marked = cmp(arith::CmpIPredicate::ne,
                             memref::LoadOp::create(b, loc, scratch, k),
                             zero32);
          // Written at every step, kept only where marked (the count moves
          // on past it).
          memref::StoreOp::create(
              b, loc,
              arith::IndexCastOp::create(b, loc, b.getI32Type(), add(j0, k)),
              scratch, add(idx(kGradListOffset), n[0]));
          scf::YieldOp::create(
              b, loc,
              ValueRange{add(n[0], arith::SelectOp::create(b, loc, marked,
                                                           idx(1), idx(0))
                                       .getResult())});
        });
    Value listed = loop.getResult(0);
    memref::StoreOp::create(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI32Type(), listed),
        scratch, countAt);
    // A block past the tokens has no tile to count.
    countBounded(arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, n0, tokens), sub(range, listed),
        idx(0)));
  }
  gpu::BarrierOp::create(b, loc);
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(), memref::LoadOp::create(b, loc, scratch, countAt));
}

void GradTileKernel::begin(gpu::LaunchOp launch, ArrayRef<Value> tiles) {
  Value tid = launch.getThreadIds().x;
  mma.begin(tid, tiles);
  Value hidden = op.getHidden();
  features = cast<MemRefType>(hidden.getType()).getDimSize(1);
  tokens = memref::DimOp::create(b, loc, hidden, 0);
  classes = memref::DimOp::create(b, loc, op.getClassifier(), 0);
  warp = div(tid, mma.lanes());
  warpRow = mul(div(warp, c.warpsN), idx(c.warpRows));
  warpCol = mul(rem(warp, c.warpsN), idx(c.warpCols));
  n0 = mul(launch.getBlockIds().x, idx(c.blockRows()));
  isFirst = cmp(arith::CmpIPredicate::eq, tid, idx(0));
}

void GradTileKernel::buildChunked(gpu::LaunchOp launch, ArrayRef<Value> smem) {
  size_t nTiles = mma.tileBuffers(Attribute()).size();
  begin(launch, smem.take_front(nTiles));
  Value flag = smem[nTiles];
  Value bx = launch.getBlockIds().x;
  double eps = op.getFilterOrDefault();
  bool bounds = op.getClassMax() && eps > 0;
  // The block's class tiles of the chunk.
  Value j0 = mul(launch.getBlockIds().y, out.tilesPerBlock);
  Value j1 = minI(add(j0, out.tilesPerBlock), out.chunkTiles);
  // Every tile of the range votes for nothing first: a block past the
  // tokens (an empty grid dimension is launched as one block) has no tile,
  // and the products must read no stale vote.
  {
    auto lead = scf::IfOp::create(b, loc, isFirst, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    scf::ForOp::create(b, loc, j0, j1, idx(1), ValueRange{},
                       [&](OpBuilder &, Location, Value j, ValueRange) {
                         memref::StoreOp::create(
                             b, loc,
                             arith::ConstantIntOp::create(b, loc, 0, 32),
                             out.flags, ValueRange{bx, j});
                         scf::YieldOp::create(b, loc);
                       });
    if (eps > 0)
      for (int64_t slot = 0; slot < 2; ++slot)
        memref::StoreOp::create(b, loc,
                                arith::ConstantIntOp::create(b, loc, 0, 32),
                                flag, idx(slot));
  }
  // The tiles to recompute: k-th of the range, or with class_max the k-th
  // it does not bound.
  Value count = sub(j1, j0);
  std::function<Value(Value)> tileAt = [&](Value k) { return add(j0, k); };
  if (bounds) {
    Value scratch = smem.back();
    count = listUnbounded(launch, scratch, j0, j1);
    tileAt = [&, scratch](Value k) -> Value {
      return arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          memref::LoadOp::create(b, loc, scratch,
                                 add(idx(kGradListOffset), k)));
    };
  }
  Value any = andI(cmp(arith::CmpIPredicate::slt, n0, tokens),
                   cmp(arith::CmpIPredicate::sgt, count, idx(0)));
  auto work = scf::IfOp::create(b, loc, any, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&work.getThenRegion().front());
  int64_t innerSteps = llvm::divideCeil(features, c.kTile);
  Value bound = features % c.kTile ? idx(features) : Value();
  // Slice t: the (t / innerSteps)-th tile, features (t % innerSteps) kTile
  // on.
  auto stage = [&](Value t, Value buf) {
    Value tile = tileAt(div(t, innerSteps));
    return mma.stage(op.getHidden(), n0, tokens, op.getClassifier(),
                     add(out.chunk0, mul(tile, idx(c.blockCols()))), classes,
                     mul(rem(t, innerSteps), idx(c.kTile)), bound, buf);
  };
  forEachLogitTile(
      b, loc, mma, idx(0), count, innerSteps, ValueRange{}, warpRow, warpCol,
      stage, [&](Value k, ArrayRef<Value> acc, ValueRange) {
        Value j = tileAt(k);
        v0 = add(out.chunk0, mul(j, idx(c.blockCols())));
        base = add(v0, add(warpCol, mma.laneCol()));
        tileIds = {bx, j};
        SmallVector<Value> grads = gradients(acc);
        Value keep = arith::ConstantIntOp::create(b, loc, 1, 1);
        if (eps > 0) {
          // Two vote flags, used by turns: after this tile's vote every
          // thread is done reading the other (the last tile's), which
          // thread 0 then clears for the next.
          Value slot = rem(k, 2);
          keep = vote(grads, flag, slot);
          auto clear = scf::IfOp::create(b, loc, isFirst, false);
          OpBuilder::InsertionGuard gc(b);
          b.setInsertionPointToStart(&clear.getThenRegion().front());
          memref::StoreOp::create(b, loc,
                                  arith::ConstantIntOp::create(b, loc, 0, 32),
                                  flag, sub(idx(1), slot));
        }
        countTile(keep);
        storeTile(grads, keep);
        return SmallVector<Value>();
      });
}

void GradTileKernel::build(gpu::LaunchOp launch, ArrayRef<Value> smem) {
  if (out.du)
    return buildChunked(launch, smem);
  size_t nTiles = mma.tileBuffers(Attribute()).size();
  begin(launch, smem.take_front(nTiles));
  Value tid = launch.getThreadIds().x;
  Value du = smem[nTiles], flag = smem[nTiles + 1];
  prodH->begin(tid, {du, smem[1]});
  prodW->begin(tid, {du, smem[0]});
  v0 = mul(launch.getBlockIds().y, idx(c.blockCols()));
  base = add(v0, add(warpCol, mma.laneCol()));
  Value first = isFirst;
  tileIds = {launch.getBlockIds().x, launch.getBlockIds().y};
  double eps = op.getFilterOrDefault();

  // A block past the tokens or classes (an empty grid dimension is
  // launched as one block) has no tile.
  Value any = andI(cmp(arith::CmpIPredicate::slt, n0, tokens),
                   cmp(arith::CmpIPredicate::slt, v0, classes));
  auto work = scf::IfOp::create(b, loc, any, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&work.getThenRegion().front());
  if (eps > 0) {
    auto reset = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard gr(b);
    b.setInsertionPointToStart(&reset.getThenRegion().front());
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 0, 32),
                            flag, idx(0));
  }
  if (op.getClassMax() && eps > 0) {
    // Slot 1 of the flag: whether some token is not bounded by class_max.
    {
      auto reset = scf::IfOp::create(b, loc, first, false);
      OpBuilder::InsertionGuard gr(b);
      b.setInsertionPointToStart(&reset.getThenRegion().front());
      memref::StoreOp::create(
          b, loc, arith::ConstantIntOp::create(b, loc, 0, 32), flag, idx(1));
    }
    gpu::BarrierOp::create(b, loc);
    // A token a thread.
    scf::ForOp::create(
        b, loc, tid, idx(c.blockRows()), idx(c.warps() * mma.lanes()),
        ValueRange{}, [&](OpBuilder &, Location, Value r, ValueRange) {
          markUnbounded(add(n0, r), v0, flag, idx(1));
          scf::YieldOp::create(b, loc);
        });
    gpu::BarrierOp::create(b, loc);
    Value unbounded = cmp(arith::CmpIPredicate::ne,
                          memref::LoadOp::create(b, loc, flag, idx(1)),
                          arith::ConstantIntOp::create(b, loc, 0, 32));
    {
      auto counted = scf::IfOp::create(
          b, loc,
          andI(first, arith::XOrIOp::create(
                          b, loc, unbounded,
                          arith::ConstantIntOp::create(b, loc, 1, 1))),
          false);
      OpBuilder::InsertionGuard gc(b);
      b.setInsertionPointToStart(&counted.getThenRegion().front());
      countBounded(idx(1));
    }
    // The rest only for a tile class_max does not bound.
    auto rest = scf::IfOp::create(b, loc, unbounded, false);
    b.setInsertionPointToStart(&rest.getThenRegion().front());
  }
  // The tile's logits (the loop's barriers publish the flag's reset).
  SmallVector<Value> acc =
      mma.settle(pipelined(mma.zero(), [&](Value, Value buf, ValueRange a) {
        return mma.multiply(llvm::to_vector(a), buf, warpRow, warpCol);
      }));
  SmallVector<Value> grads = gradients(acc);
  Value keep = eps > 0 ? vote(grads, flag, idx(0))
                       : arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
  countTile(keep);
  auto kept = scf::IfOp::create(b, loc, keep, false);
  b.setInsertionPointToStart(&kept.getThenRegion().front());
  const TileMmaConfig &pc = prodH->getConfig();
  Value pRow = mul(div(warp, pc.warpsN), idx(pc.warpRows));
  Value pCol = mul(rem(warp, pc.warpsN), idx(pc.warpCols));
  // du in the inputs' type, [plane][tokens][classes] of the tile.
  bool exact = eps == 0;
  for (size_t i = 0; i < grads.size(); ++i)
    for (auto [plane, part] : llvm::enumerate(duPlanes(grads[i])))
      memref::StoreOp::create(
          b, loc, part, du,
          ValueRange{idx(plane), add(warpRow, mma.slotRow(mma.slotOf(i))),
                     add(add(warpCol, mma.laneCol()), idx(mma.colOffset(i)))});
  if (out.gb)
    addBias(grads);
  // The products read du from every warp's part; the loop's first barrier
  // (after its first wait) publishes it.
  pipelined({}, [&](Value t, Value buf, ValueRange) {
    Value d0 = mul(t, idx(c.kTile));
    auto product = [&](TileMma &p) {
      SmallVector<Value> acc = p.multiply(p.zero(), idx(0), buf, pRow, pCol);
      return exact ? p.multiply(acc, idx(1), buf, pRow, pCol) : acc;
    };
    addTile(*prodH, product(*prodH), out.gh, n0, tokens, d0, pRow, pCol);
    addTile(*prodW, product(*prodW), out.gw, v0, classes, d0, pRow, pCol);
    return SmallVector<Value>();
  });
}

void softmax::detail::buildGradTiles(OpBuilder &b, Location loc,
                                     LinearCrossEntropyGradOp op,
                                     TileMma &logits, TileMma *prodH,
                                     TileMma *prodW, const GradBuffers &out,
                                     gpu::LaunchOp launch,
                                     ArrayRef<Value> smem) {
  GradTileKernel(b, loc, op, logits, prodH, prodW, out).build(launch, smem);
}
