//===- AttentionSkip.cpp - a skip threshold's votes in the kernel ----------===//
//
// The thresholded tile of the attention kernel (AttentionKernel.h): each
// row's verdict on the skip rule, the warp's or the block's vote, V's copy
// only for folded tiles, the fold and P V only where the vote keeps the
// tile, and the counts; the block votes they use. docs/Attention.md,
// "Skipping key tiles" and "GPU lowering".
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"

#include "SharedTiles.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

Value AttentionKernel::blockAnyOnce(Value pred) {
  if (mma.reducesAtBarrier())
    return mma.barrierAny(pred);
  // flags[0] was zeroed before the loop; the first barrier orders that
  // store before any thread's.
  gpu::BarrierOp::create(b, loc);
  auto set = scf::IfOp::create(b, loc, pred, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&set.getThenRegion().front());
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 1, 32),
                            flags, ValueRange{idx(0)});
  }
  gpu::BarrierOp::create(b, loc);
  Value word = memref::LoadOp::create(b, loc, flags, ValueRange{idx(0)});
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, word,
                               arith::ConstantIntOp::create(b, loc, 0, 32));
}

void AttentionKernel::waitLeaving(Value token, Value pending, int64_t most) {
  // The count of copy groups a wait leaves is an attribute: one wait per
  // value.
  if (most == 0) {
    mma.wait(token);
    return;
  }
  auto ifMost = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, pending, idx(most)),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifMost.getThenRegion().front());
  mma.wait(token, most);
  b.setInsertionPointToStart(&ifMost.getElseRegion().front());
  waitLeaving(token, pending, most - 1);
}

Value AttentionKernel::log2Threshold(Value bIdx) {
  auto [t, keys] = loadSkipThreshold(b, loc, op, bIdx, nk);
  // The scores and m are in log2 units: (t - m) log2(e) < ln(lambda)
  // log2(e) is the op's rule.
  return sm.log2Units(sm.logSkipThreshold(t, keys));
}

Value AttentionKernel::blockAny(Value pred, Value kv0, int64_t which) {
  if (mma.reducesAtBarrier())
    return mma.barrierAny(pred);
  Value base = idx(2 * which);
  Value odd = rem(div(sub(kv0, firstTile), kKeysPerTile), 2);
  Value parity = add(base, odd);
  // flags[parity] was zeroed before the loop or one tile ago, with the
  // loop's barrier since; every thread read flags[1 - parity] a tile ago,
  // before this tile's first barrier, so it is reset here for the next.
  auto set = scf::IfOp::create(b, loc, pred, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&set.getThenRegion().front());
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 1, 32),
                            flags, ValueRange{parity});
  }
  gpu::BarrierOp::create(b, loc);
  Value word = memref::LoadOp::create(b, loc, flags, ValueRange{parity});
  Value any =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, word,
                            arith::ConstantIntOp::create(b, loc, 0, 32));
  auto reset =
      scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::eq, tid, idx(0)),
                        /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&reset.getThenRegion().front());
  memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 0, 32),
                          flags, ValueRange{add(base, sub(idx(1), odd))});
  return any;
}

SmallVector<Value> AttentionKernel::skipTile(StateFold &fold, ValueRange st,
                                             ArrayRef<Value> sc, Value kv0,
                                             Value buf, Value bIdx,
                                             Value kvHead, Value log2Lambda,
                                             ArrayRef<Value> rows, Value counts,
                                             Value token) {
  int64_t slots = mma.slots();
  auto andI = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };
  auto orI = [&](Value x, Value y) -> Value {
    return arith::OrIOp::create(b, loc, x, y);
  };
  Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto notI = [&](Value x) -> Value {
    return arith::XOrIOp::create(b, loc, x, yes);
  };
  // Each row's verdict (the op's rule, from the tile's own row max before
  // it joins m): rows past Nq let the tile go. A row sees the tile when
  // some key of it is visible to it. Where the warp's or the block's vote
  // decides, each lane judges its own share of each row (laneOffset): the
  // rule holds for the row's max exactly when it holds for every lane's
  // share (x - m rounds monotonically in x), so the vote waits for no
  // exchange across the row's lanes, and the fold's exchange runs beside
  // it. With nothing skipped this took the causal warp tile from 4.6-5.1%
  // to 1.0-1.9% over the dense kernel (H100, bench/blasst/overhead_ab.py;
  // bench/results/blasst/block_tiles.md, "Session 32").
  SmallVector<Value> rowAllows, rowSees;
  Value allow = yes, sees = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (int64_t r = 0; r < slots; ++r) {
    Value g = rowWise ? fold.groupOffset(r) : fold.laneOffset(r);
    Value valid = cmp(arith::CmpIPredicate::slt, rows[r], nq);
    rowAllows.push_back(
        orI(notI(valid), sm.rowAllowsSkip(g, st[r], log2Lambda)));
    rowSees.push_back(andI(valid, sm.rowSeesTile(g)));
    allow = andI(allow, rowAllows.back());
    sees = orI(sees, rowSees.back());
  }
  // The warp skips the tile (no fold, no P V) when each of its rows lets
  // it: one vote over the warp on whether some row holds the tile, and
  // with the counts of a warp-wide query tile, a second on whether some
  // row sees it. A block-wide query tile is decided by the block's vote
  // instead (and its counts by a second one), before the fold: its warps
  // fold the tile or skip it together.
  Type i32 = b.getI32Type();
  // warpSees, blockSees: with counts, whether some row of the warp or of
  // the block sees the tile.
  Value warpSkip, needV, warpSees, blockSees;
  bool twoBuffers = mma.stages() == 2;
  if (blockWide) {
    // With one buffer, V requested with the tile is read by every warp
    // after this vote's barrier: each thread's copies must have landed
    // before it.
    if (!twoBuffers)
      mma.wait(token);
    needV = blockAny(notI(allow), kv0);
    warpSkip = notI(needV);
    if (counts)
      blockSees = blockAny(sees, kv0, /*which=*/1);
  } else {
    SmallVector<Value> preds{notI(allow)};
    if (counts && !rowWise)
      preds.push_back(sees);
    SmallVector<Value> any = mma.warpAny(preds);
    warpSkip = notI(any[0]);
    if (counts && !rowWise)
      warpSees = any[1];
  }
  // With V requested with K, V has landed with the tile (the loop's wait)
  // and no vote decides its copy.
  if (!valuesWithKeys) {
    if (!blockWide) {
      if (!twoBuffers)
        mma.wait(token);
      needV = blockAny(notI(warpSkip), kv0);
    }
    requestVotedValues(needV, st[speculated], kv0, buf, bIdx, kvHead, token);
  }
  // A skipped tile leaves (m, l, O) as they were; where each row is a
  // query tile of its own, so do the rows of a folded tile that skip it.
  // The fold and P V share one branch, after V's wait: ptxas interleaves
  // the exponentials with the P V products only within a block. With the
  // fold before the vote's barrier and P V after V's wait, the causal
  // d 128 warp-tile kernel (8 warps, one block per SM) took 1.32x the
  // dense kernel's time with nothing skipped, its warps stalled on the
  // exponentials' results (short scoreboard 1.06 cycles per issue against
  // the dense kernel's 0.28); in one branch 1.11x (H100, N 16384 and
  // 65536). Non-causal, the [64, 64] block tile went from 1.08-1.12x to
  // 1.01-1.06x; the [16, 64] warp tile of 4 warps from 1.05x to 1.15x.
  // bench/results/blasst/block_tiles.md, "Session 29".
  // m' (the lanes' exchange of their shares) is taken before the branch
  // and joins the state by a select after it: were it used only inside the
  // branch, LLVM would sink the exchange past the vote, which would then
  // wait for it again.
  SmallVector<Value> mNew;
  if (!rowWise)
    for (int64_t r = 0; r < slots; ++r)
      mNew.push_back(fold.offset(r));
  SmallVector<Value> kept(st.take_front(2 * slots + accs));
  SmallVector<Type> types;
  for (Value v : kept)
    types.push_back(v.getType());
  auto folded = scf::IfOp::create(b, loc, types, warpSkip,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&folded.getThenRegion().front());
    scf::YieldOp::create(b, loc, kept);
    b.setInsertionPointToStart(&folded.getElseRegion().front());
    SmallVector<Value> p;
    SmallVector<Value> state = foldTile(
        fold, st, sc, p, rowWise ? ArrayRef(rowAllows) : ArrayRef<Value>());
    SmallVector<Value> o(state.begin() + 2 * slots, state.end());
    state.resize(2 * slots);
    state.append(mma.accumulate(p, o, buf));
    scf::YieldOp::create(b, loc, state);
  }
  SmallVector<Value> next(folded.getResults());
  for (auto [r, m] : llvm::enumerate(mNew))
    next[r] = arith::SelectOp::create(b, loc, warpSkip, st[r], m);
  if (counts) {
    Value live = st[2 * slots + accs], skipped = st[2 * slots + accs + 1];
    auto addIf = [&](Value sum, Value pred) -> Value {
      return arith::AddIOp::create(b, loc, sum,
                                   arith::ExtUIOp::create(b, loc, i32, pred));
    };
    if (rowWise) {
      // Per row, i32, counted by the row's leader lane: at most one pair
      // per row and key tile.
      Value leader = mma.isRowLeader();
      for (int64_t r = 0; r < slots; ++r) {
        Value seen = andI(leader, rowSees[r]);
        live = addIf(live, seen);
        skipped = addIf(skipped, andI(seen, rowAllows[r]));
      }
    } else {
      // Per warp or block, i32: at most one pair per key tile.
      Value tileSees = blockWide ? blockSees : warpSees;
      live = addIf(live, tileSees);
      skipped = addIf(skipped, andI(tileSees, warpSkip));
    }
    next.push_back(live);
    next.push_back(skipped);
  }
  if (!valuesWithKeys)
    next.push_back(needV);
  return next;
}

void AttentionKernel::requestVotedValues(Value needV, Value early, Value kv0,
                                         Value buf, Value bIdx, Value kvHead,
                                         Value token) {
  Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto andI = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };
  auto notI = [&](Value x) -> Value {
    return arith::XOrIOp::create(b, loc, x, yes);
  };
  bool twoBuffers = mma.stages() == 2;
  // A V requested with the tile (the last tile was folded) has landed for
  // this thread, and past the barrier for every thread; every warp has
  // read K. A V not requested yet is requested now if some warp folds the
  // tile. With one buffer, the next K follows (into the buffer every warp
  // is done with); with two, it was requested as the tile began, and the
  // next V is requested with it when this tile is folded, so that V of a
  // run of folded tiles is in flight as early as the dense schedule's.
  if (mma.tracksTilesOnBarriers()) {
    // Each tile completes one phase of its buffer's V barrier: by the copy
    // requested with the tile (the last tile was folded), by a late copy,
    // or, where no warp folds and none was requested, by an arrival
    // without a copy. Every tile waits for its phase, so a V requested
    // early for a tile that is then skipped has landed before its buffer
    // takes the next copy (two copies into one buffer are not ordered).
    Value nextKv = add(kv0, idx(kKeysPerTile));
    auto ifLate = scf::IfOp::create(b, loc, notI(early),
                                    /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifLate.getThenRegion().front());
      auto copy = scf::IfOp::create(b, loc, needV, /*withElseRegion=*/true);
      b.setInsertionPointToStart(&copy.getThenRegion().front());
      mma.stage(/*value=*/true, bIdx, kvHead, kv0, buf);
      b.setInsertionPointToStart(&copy.getElseRegion().front());
      mma.skipCopy(/*value=*/true, buf);
    }
    Value ahead = andI(needV, cmp(arith::CmpIPredicate::slt, nextKv, kvEnd));
    {
      auto ifAhead = scf::IfOp::create(b, loc, ahead, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifAhead.getThenRegion().front());
      mma.stage(/*value=*/true, bIdx, kvHead, nextKv, sub(idx(1), buf));
    }
    mma.waitTileHalf(div(sub(kv0, firstTile), kKeysPerTile), buf,
                     /*value=*/true);
  } else {
    Value late = andI(needV, notI(early));
    {
      auto ifLate = scf::IfOp::create(b, loc, late, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifLate.getThenRegion().front());
      Value lateV = mma.stage(/*value=*/true, bIdx, kvHead, kv0, buf);
      if (!twoBuffers) {
        mma.wait(lateV);
        gpu::BarrierOp::create(b, loc);
      }
    }
    if (!twoBuffers) {
      mma.stage(/*value=*/false, bIdx, kvHead, add(kv0, idx(kKeysPerTile)), buf);
    } else {
      Value nextKv = add(kv0, idx(kKeysPerTile));
      Value ahead = andI(needV, cmp(arith::CmpIPredicate::slt, nextKv, kvEnd));
      auto ifAhead = scf::IfOp::create(b, loc, ahead, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifAhead.getThenRegion().front());
        mma.stage(/*value=*/true, bIdx, kvHead, nextKv, sub(idx(1), buf));
      }
      // V of this tile, leaving in flight what was requested after it: the
      // next K (requested as this tile began, so after an early V and before
      // a late one) and the next V.
      auto ifNeed = scf::IfOp::create(b, loc, needV, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifNeed.getThenRegion().front());
      Value one = idx(1), zero = idx(0);
      auto count = [&](Value flag) -> Value {
        return arith::SelectOp::create(b, loc, flag, one, zero);
      };
      Value hasNext = cmp(arith::CmpIPredicate::slt, nextKv, kvEnd);
      waitLeaving(token, add(count(andI(early, hasNext)), count(ahead)), 2);
      gpu::BarrierOp::create(b, loc);
    }
  }
}
