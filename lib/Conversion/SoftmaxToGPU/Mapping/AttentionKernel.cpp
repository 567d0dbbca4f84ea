//===- AttentionKernel.cpp - the attention kernel body ---------------------===//
//
// The tile loop of the tensor-core attention kernel (AttentionKernel.h):
// the K/V copies and their waits, the scores, masks and limits, the online
// fold, P V, the stores; stream-K pieces; a unified max's two passes.
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

void AttentionKernel::applyMaskOperand(SmallVector<Value> &sc, Value kv0,
                                       Value bIdx, Value hIdx,
                                       ArrayRef<Value> rows) {
  // Additive (in log2 units like the scores) or boolean (false gives
  // -inf). Keys past Nk read the last column, rows past Nq the last row;
  // both are discarded.
  Value mask = op.getMask();
  auto mType = cast<MemRefType>(mask.getType());
  Value mb = mType.getDimSize(0) == 1 ? idx(0) : bIdx;
  Value mh = mType.getDimSize(1) == 1 ? idx(0) : hIdx;
  Value lastRow = sub(nq, idx(1)), lastKey = sub(nk, idx(1));
  for (size_t i = 0; i < sc.size(); ++i) {
    Value row = minI(rows[mma.slotOf(i)], lastRow);
    Value j = minI(add(kv0, mma.keyOf(i)), lastKey);
    if (keyOffset)
      j = add(j, keyOffset);
    Value m = memref::LoadOp::create(b, loc, mask, ValueRange{mb, mh, row, j});
    if (m.getType().isInteger(1)) {
      sc[i] = arith::SelectOp::create(b, loc, m, sc[i], sm.negInf());
      continue;
    }
    if (!m.getType().isF32())
      m = arith::ExtFOp::create(b, loc, b.getF32Type(), m);
    sc[i] = sm.add(sc[i], sm.log2Units(m));
  }
}

void AttentionKernel::applyLimits(SmallVector<Value> &sc, Value kv0,
                                  ArrayRef<Value> positions, Value blockFirst,
                                  Value blockLast, Value offset) {
  using P = arith::CmpIPredicate;
  std::optional<int64_t> window = getIndexableWindow(op);
  bool causal = op.getCausal();
  auto orI = [&](Value x, Value y) {
    return arith::OrIOp::create(b, loc, x, y);
  };
  auto andI = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y);
  };
  Value tileEnd = add(kv0, idx(kKeysPerTile));
  Value needs = cmp(P::sgt, tileEnd, nk);
  if (causal)
    needs = orI(needs, cmp(P::sgt, sub(tileEnd, idx(1)), blockFirst));
  if (window) {
    needs = orI(needs, cmp(P::sle, kv0, sub(blockLast, idx(*window))));
    if (!causal)
      needs = orI(needs, cmp(P::sge, sub(tileEnd, idx(1)),
                             add(blockFirst, idx(*window))));
  }
  SmallVector<Type> types(sc.size(), b.getF32Type());
  auto masked = scf::IfOp::create(b, loc, types, needs,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&masked.getThenRegion().front());
  SmallVector<Value> out;
  for (size_t i = 0; i < sc.size(); ++i) {
    // Query i's bottom-right diagonal is key i + Nk - Nq.
    Value diag = add(positions[mma.slotOf(i)], offset);
    Value j = add(kv0, mma.keyOf(i));
    Value ok = cmp(P::slt, j, nk);
    if (causal)
      ok = andI(ok, cmp(P::sle, j, diag));
    if (window) {
      ok = andI(ok, cmp(P::sgt, j, sub(diag, idx(*window))));
      if (!causal)
        ok = andI(ok, cmp(P::slt, j, add(diag, idx(*window))));
    }
    out.push_back(arith::SelectOp::create(b, loc, ok, sc[i], sm.negInf()));
  }
  scf::YieldOp::create(b, loc, out);
  b.setInsertionPointToStart(&masked.getElseRegion().front());
  scf::YieldOp::create(b, loc, sc);
  for (size_t i = 0; i < sc.size(); ++i)
    sc[i] = masked.getResult(i);
}

SmallVector<Value> AttentionKernel::foldTile(StateFold &fold, ValueRange st,
                                             ArrayRef<Value> sc,
                                             SmallVector<Value> &p,
                                             ArrayRef<Value> keep) {
  int64_t slots = mma.slots();
  SmallVector<Value> next, rowSum(slots), alpha(slots);
  for (int64_t r = 0; r < slots; ++r) {
    next.push_back(fold.offset(r));
    rowSum[r] = fold.rescaled(st[slots + r], r);
    alpha[r] = fold.rescale(r);
  }
  p.assign(sc.size(), Value());
  for (size_t i = 0; i < sc.size(); ++i) {
    int64_t r = mma.slotOf(i);
    rowSum[r] = fold.addTerm(rowSum[r], i);
    p[i] = fold.term(i);
    if (!keep.empty())
      p[i] = sm.select(keep[r], sm.cst(0.0), p[i]);
  }
  // A row that keeps its state: its m and l as they were, O scaled by 1.
  for (int64_t r = 0; r < (keep.empty() ? 0 : slots); ++r) {
    next[r] = sm.select(keep[r], st[r], next[r]);
    rowSum[r] = sm.select(keep[r], st[slots + r], rowSum[r]);
    if (alpha[r])
      alpha[r] = sm.select(keep[r], sm.cst(1.0), alpha[r]);
  }
  next.append(rowSum);
  SmallVector<Value> o(st.slice(2 * slots, accs));
  next.append(alpha.front() ? mma.scale(o, alpha) : o);
  return next;
}

SmallVector<Value> AttentionKernel::initialState(int64_t slots) {
  SmallVector<Value> init(slots, sm.identityOffset());
  init.append(slots, sm.identitySum());
  init.append(mma.zeroAccumulators());
  return init;
}

AttentionKernel::Piece AttentionKernel::beginPieces(gpu::LaunchOp launch) {
  using P = arith::CmpIPredicate;
  Type index = b.getIndexType();
  Value chunk = launch.getBlockIds().x;
  Value total = stream->tilesBefore(b, loc, batch);
  Value c = stream->chunkTiles(b, loc, total);
  Value g0 = minI(mul(chunk, c), total);
  Value g1 = minI(add(g0, c), total);
  // The entry of tile g0: the last b < B with tileStarts[b] <= g0 (an
  // entry without tiles shares its start with the next one), by bisection
  // on [lo, hi).
  auto search = scf::WhileOp::create(
      b, loc, TypeRange{index, index}, ValueRange{idx(0), batch},
      [&](OpBuilder &nb, Location l, ValueRange range) {
        IndexArith lx(nb, l);
        Value more = lx.cmp(P::ugt, lx.sub(range[1], range[0]), lx.idx(1));
        scf::ConditionOp::create(nb, l, more, range);
      },
      [&](OpBuilder &nb, Location l, ValueRange range) {
        IndexArith lx(nb, l);
        Value mid = lx.div(lx.add(range[0], range[1]), 2);
        Value right = lx.cmp(P::ule, stream->tilesBefore(nb, l, mid), g0);
        scf::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, right, mid, range[0]),
                       arith::SelectOp::create(nb, l, right, range[1], mid)});
      });
  // The pieces: from tile t of entry e, up to the entry's end or g1.
  auto pieces = scf::WhileOp::create(
      b, loc, TypeRange{index, index}, ValueRange{g0, search.getResult(0)},
      [&](OpBuilder &nb, Location l, ValueRange at) {
        IndexArith lx(nb, l);
        scf::ConditionOp::create(nb, l, lx.cmp(P::ult, at[0], g1), at);
      },
      [&](OpBuilder &, Location, ValueRange) {});
  Block *body = &pieces.getAfter().front();
  b.setInsertionPointToStart(body);
  Value t = body->getArgument(0), e = body->getArgument(1);
  Value s0 = stream->tilesBefore(b, loc, e);
  Value end = minI(stream->tilesBefore(b, loc, add(e, idx(1))), g1);
  Value keys = loadKeyCount(b, loc, op, e, nk);
  Piece piece;
  piece.entry = e;
  piece.start = mul(sub(t, s0), idx(kKeysPerTile));
  piece.end = minI(mul(sub(end, s0), idx(kKeysPerTile)), keys);
  piece.slot = add(e, chunk);
  piece.loop = pieces;
  // The last piece's warps are done with the shared buffers; an entry
  // without keys has no piece.
  gpu::BarrierOp::create(b, loc);
  auto nonEmpty = scf::IfOp::create(b, loc, cmp(P::ult, piece.start, piece.end),
                                    /*withElseRegion=*/false);
  b.setInsertionPointToEnd(body);
  scf::YieldOp::create(b, loc, ValueRange{end, add(e, idx(1))});
  b.setInsertionPointToStart(&nonEmpty.getThenRegion().front());
  return piece;
}

void AttentionKernel::endPieces(const Piece &piece) {
  b.setInsertionPointAfter(piece.loop);
}

void AttentionKernel::build(gpu::LaunchOp launch, ArrayRef<Value> smem) {
  // Blocks start in index order: with causal or window limits the last
  // query tiles have the most keys, so they take the first block indices
  // and the short ones fill in at the end.
  Value blockX = launch.getBlockIds().x, split;
  Value tileCount = launch.getGridSize().x;
  if (splits > 1) {
    split = rem(blockX, splits);
    blockX = div(blockX, splits);
    tileCount = div(tileCount, splits);
  }
  // Stream-K blocks are chunks of one query tile's keys.
  Value qTile = stream ? idx(0) : sub(sub(tileCount, idx(1)), blockX);
  Value hIdx = launch.getBlockIds().y, bIdx = launch.getBlockIds().z;
  tid = launch.getThreadIds().x;
  Value warp = div(tid, mma.lanes());
  Value kvHead = arith::DivUIOp::create(
      b, loc, hIdx, arith::DivUIOp::create(b, loc, heads, kvHeads));
  // The op's query rows, which packing puts side by side per head.
  Value queryRows = packedRows ? packedRows : nq;
  // Stream-K: what follows runs once per piece of the block's chunk.
  std::optional<Piece> piece;
  if (stream) {
    piece = beginPieces(launch);
    bIdx = piece->entry;
    keyOffset = piece->start;
    nk = sub(piece->end, piece->start);
    mma.setKeyOffset(keyOffset);
  }
  // A ragged entry has its own key count: every limit, the split ranges
  // and a scale_factor's lambda = a / L_b read it.
  if (!stream)
    nk = loadKeyCount(b, loc, op, bIdx, nk);
  // A threshold's lambda = a / Nk counts all the op's keys, not a split's.
  bool skips = op.hasSkipThreshold();
  Value log2Lambda = skips ? log2Threshold(bIdx) : Value();
  // A split folds its own keys [start, end) as keys [0, end - start).
  Value lastSplit;
  if (splits > 1) {
    auto [start, end] = getAttentionKeySplitRange(b, loc, nk, queryRows, splits,
                                                  op.getCausal(), split);
    keyOffset = getValueOrCreateConstantIndexOp(b, loc, start);
    nk = sub(getValueOrCreateConstantIndexOp(b, loc, end), keyOffset);
    mma.setKeyOffset(keyOffset);
    lastSplit = cmp(arith::CmpIPredicate::eq, split, idx(splits - 1));
  }
  mma.begin(tid, smem, nq, nk);

  Value blockRow = mul(qTile, idx(rowsPerBlock));
  Value warpRow = add(blockRow, mul(warp, idx(mma.rowsPerWarp())));
  SmallVector<Value> rows, positions;
  for (int64_t s = 0; s < mma.slots(); ++s) {
    rows.push_back(add(warpRow, mma.slotRow(s)));
    positions.push_back(
        packedRows ? arith::RemUIOp::create(b, loc, rows.back(), packedRows)
                         .getResult()
                   : rows.back());
  }
  mma.loadQuery(bIdx, hIdx, warpRow);

  // The keys the block may see: bottom-right diagonal of query i is
  // i + Nk - Nq. Only a causal op's last split meets the diagonal; the
  // others lie left of row 0's (getAttentionKeySplitRange), which an
  // offset of their own key count says.
  Value offset = sub(nk, queryRows);
  if (lastSplit && op.getCausal())
    offset = arith::SelectOp::create(b, loc, lastSplit, offset, nk);
  Value zero = idx(0);
  Value kvLo = zero, kvHi = nk;
  // Packed rows hold every position of each head they pack: the block's
  // limits are those of positions 0 and Nq - 1.
  Value blockLast = packedRows
                        ? add(sub(queryRows, idx(1)), offset)
                        : add(add(blockRow, idx(rowsPerBlock - 1)), offset);
  Value blockFirst = packedRows ? offset : add(blockRow, offset);
  std::optional<int64_t> window = getIndexableWindow(op);
  if (op.getCausal())
    kvHi = maxI(minI(add(blockLast, idx(1)), nk), zero);
  if (window) {
    kvLo = maxI(minI(add(sub(blockFirst, idx(*window)), idx(1)), nk), zero);
    if (!op.getCausal())
      kvHi = maxI(minI(add(blockLast, idx(*window)), nk), zero);
  }
  // Tiles start at multiples of 64 below kvLo.
  kvLo = mul(div(kvLo, kKeysPerTile), idx(kKeysPerTile));
  firstTile = kvLo;
  kvEnd = kvHi;

  // Loop state: m per slot, l per slot, then the O accumulators.
  int64_t slots = mma.slots();
  SmallVector<Value> init = initialState(slots);
  float scaleLog2 = StateMath::log2UnitsFactor(scale);

  // A unified max: every slot's offset is phi, in the scores' log2 units.
  bool unified = op.hasUnifiedMax();
  Value phi = unified ? sm.log2Units(sm.cst(op.getUnifiedMaxPhi())) : Value();
  // With two or three buffers, later tiles are requested as a tile starts.
  int64_t stages = mma.stages();
  bool pipelined = stages >= 2;
  Value zeroBuf = idx(0);
  Value counts = op.getSkipCounts();
  accs = init.size() - 2 * slots;

  // The loop over the block's key tiles, with its prologue and epilogue:
  // online, or (atPhi) a unified max's pass at phi.
  auto tileLoop = [&](bool atPhi) {
    SmallVector<Value> init = initialState(slots);
    if (atPhi)
      std::fill_n(init.begin(), slots, phi);
    // The loads overlap the math. With two buffers per tile, tile j + 1 is
    // requested as tile j starts (one barrier per tile). With one, K of the
    // first tile is requested here; in each iteration V is requested before
    // S and its softmax, and the next K before P V (FA2's order).
    // With three, tiles j + 1 and j + 2 are in flight while j is folded.
    // Tiles on barriers: nothing is requested for a block without tiles,
    // so every copy is waited for in the loop.
    bool byBarrier = mma.tracksTilesOnBarriers();
    Value kGroup;
    {
      OpBuilder::InsertionGuard g(b);
      if (byBarrier) {
        auto any = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, kvLo, kvHi),
            /*withElseRegion=*/false);
        b.setInsertionPointToStart(&any.getThenRegion().front());
      }
      kGroup = mma.stage(/*value=*/false, bIdx, kvHead, kvLo, zeroBuf);
      if (pipelined)
        mma.stage(/*value=*/true, bIdx, kvHead, kvLo, zeroBuf);
    }
    for (int64_t ahead = 1; ahead < stages - 1; ++ahead) {
      Value kv = add(kvLo, idx(ahead * kKeysPerTile));
      auto more =
          scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, kv, kvHi),
                            /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&more.getThenRegion().front());
      mma.stage(/*value=*/false, bIdx, kvHead, kv, idx(ahead));
      mma.stage(/*value=*/true, bIdx, kvHead, kv, idx(ahead));
    }
    // With a skip threshold: the live and skipped (warp, tile) pairs.
    if (counts)
      init.append(2, arith::ConstantIntOp::create(b, loc, 0, 32));
    // V of a tile is requested with it when the last tile was folded: the
    // dense schedule while tiles are folded, no V load while they are
    // skipped, one late V at each end of a skipped run.
    // With V requested with K (setValuesWithKeys) there is no such flag.
    speculated = init.size();
    if (skips && !valuesWithKeys)
      init.push_back(arith::ConstantIntOp::create(b, loc, 1, 1));
    // The flags serve the skip votes, or the unified max's one vote after
    // its pass at phi (blockAnyOnce).
    if (flags) {
      Value leader = cmp(arith::CmpIPredicate::eq, tid, idx(0));
      auto first = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&first.getThenRegion().front());
      Value zero32 = arith::ConstantIntOp::create(b, loc, 0, 32);
      int64_t words = cast<MemRefType>(flags.getType()).getNumElements();
      for (int64_t i = 0; i < words; ++i)
        memref::StoreOp::create(b, loc, zero32, flags, ValueRange{idx(i)});
    }
    auto loop = scf::ForOp::create(
        b, loc, kvLo, kvHi, idx(kKeysPerTile), init,
        [&](OpBuilder &, Location, Value kv0, ValueRange st) {
          // K of tile kv0 has landed for every thread, and every warp is
          // done with the buffer about to be refilled. With two buffers V
          // of the tile, requested after its K, may still be in flight
          // while S is computed (waitForValues waits for it before P V).
          // A thresholded tile waits for its V after the vote (skipTile).
          if (byBarrier) {
            Value tile = div(sub(kv0, kvLo), kKeysPerTile);
            Value tileBuf = rem(tile, stages);
            if (skips && !valuesWithKeys)
              mma.waitTileHalf(tile, tileBuf, /*value=*/false);
            else
              mma.waitTile(tile, tileBuf);
          } else if (pipelined && overlapValues)
            waitLeaving(kGroup,
                        skips ? arith::SelectOp::create(b, loc, st[speculated],
                                                        idx(1), idx(0))
                                    .getResult()
                              : idx(1),
                        1);
          else if (stages > 2)
            // Tile j's two groups, leaving tile j + 1's (if it exists) in
            // flight.
            waitLeaving(
                kGroup,
                arith::SelectOp::create(b, loc,
                                        cmp(arith::CmpIPredicate::slt,
                                            add(kv0, idx(kKeysPerTile)), kvHi),
                                        idx(2), idx(0)),
                2);
          else
            mma.wait(kGroup);
          gpu::BarrierOp::create(b, loc);
          Value buf = zeroBuf, vGroup;
          if (pipelined) {
            Value tile = div(sub(kv0, kvLo), kKeysPerTile);
            buf = rem(tile, stages);
            // The buffer of tile j - 1, which every warp is done with.
            Value next = add(kv0, idx((stages - 1) * kKeysPerTile));
            auto more = scf::IfOp::create(
                b, loc, cmp(arith::CmpIPredicate::slt, next, kvHi),
                /*withElseRegion=*/false);
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(&more.getThenRegion().front());
            Value other = stages == 2 ? sub(idx(1), buf)
                                      : rem(add(tile, idx(stages - 1)), stages);
            mma.stage(/*value=*/false, bIdx, kvHead, next, other);
            // A thresholded tile's V waits for its vote (skipTile), unless
            // it comes with K.
            if (!skips || valuesWithKeys)
              mma.stage(/*value=*/true, bIdx, kvHead, next, other);
          } else if (!skips) {
            vGroup = mma.stage(/*value=*/true, bIdx, kvHead, kv0, buf);
          } else {
            {
              auto early = scf::IfOp::create(b, loc, st[speculated],
                                             /*withElseRegion=*/false);
              OpBuilder::InsertionGuard g(b);
              b.setInsertionPointToStart(&early.getThenRegion().front());
              mma.stage(/*value=*/true, bIdx, kvHead, kv0, buf);
            }
          }

          // Scores in log2 units: s c with c = scale log2(e). Without a mask
          // operand and with c > 0 the product can be folded into the
          // exponent, exp2(fma(s, c, -m')), with the row max taken on s
          // (max(s) c = max(s c)): one instruction per score instead of two.
          // Measured on the H200: 1.8-2.6% faster at d 64,
          // 1.5-4.5% slower at d 128, where the longer-lived raw scores push
          // ptxas (already at 255 registers) into spills; so d <= 64 only. A
          // mask operand is added in log2 units, so it needs the product.
          int64_t headDim =
              cast<MemRefType>(op.getQuery().getType()).getDimSize(3);
          bool folded = !op.getMask() && scaleLog2 > 0 && headDim <= 64;
          Value c = sm.cst(scaleLog2);
          SmallVector<Value> sc = mma.scores(buf);
          if (!folded)
            for (Value &x : sc)
              x = sm.mul(x, c);
          if (op.getMask())
            applyMaskOperand(sc, kv0, bIdx, hIdx, rows);
          applyLimits(sc, kv0, positions, blockFirst, blockLast, offset);

          // Online update per slot, in log2 units, each slot's max taken
          // across the lanes of its row: m' = max(m, rowmax s2),
          // a = exp2(m - m'), P = exp2(s2 - m'), l = l a + rowsum P.
          FoldRule rule(StateKind::Max, ExpUnits::Log2);
          if (folded)
            rule.log2Scale = c;
          rule.slotOf = [&](int64_t i) { return mma.slotOf(i); };
          rule.acrossLanes = [&](Value v) {
            return mma.rowReduce(
                v, [&](Value x, Value y) { return sm.offsetMax(x, y); });
          };
          rule.ownGroup = skips;
          SmallVector<Value> m(st.take_front(slots));
          // At phi: terms against phi, no row max, no rescale.
          StateFold fold =
              atPhi ? StateFold::atOffset(sm, rule,
                                          SmallVector<Value>(slots, Value()),
                                          SmallVector<Value>(slots, phi), sc)
                    : StateFold(sm, rule, m, sc);
          if (skips) {
            scf::YieldOp::create(b, loc,
                                 skipTile(fold, st, sc, kv0, buf, bIdx, kvHead,
                                          log2Lambda, rows, counts, kGroup));
            return;
          }
          SmallVector<Value> p;
          SmallVector<Value> next = foldTile(fold, st, sc, p);
          SmallVector<Value> o(next.begin() + 2 * slots, next.end());
          next.resize(2 * slots);

          if (!pipelined) {
            // V has landed, and every warp is done with this tile's K:
            // request the next one (past the end it reloads the last rows;
            // unused).
            mma.wait(vGroup);
            gpu::BarrierOp::create(b, loc);
            mma.stage(/*value=*/false, bIdx, kvHead,
                      add(kv0, idx(kKeysPerTile)), buf);
          } else if (overlapValues) {
            // V of this tile, leaving the next tile's K and V in flight.
            Value hasNext = cmp(arith::CmpIPredicate::slt,
                                add(kv0, idx(kKeysPerTile)), kvHi);
            waitLeaving(
                kGroup,
                arith::SelectOp::create(b, loc, hasNext, idx(2), idx(0)), 2);
            gpu::BarrierOp::create(b, loc);
          }
          next.append(mma.accumulate(p, o, buf));
          scf::YieldOp::create(b, loc, next);
        });

    // No copy may still be in flight when the block ends.
    if (!byBarrier)
      mma.wait(kGroup);
    return loop;
  };

  scf::ForOp loop;
  if (!unified)
    loop = tileLoop(false);
  if (counts) {
    // One lane per warp adds the warp's pairs, thread 0 the block's, or
    // each row leader its rows' (the mapping zeroed them).
    auto leader = scf::IfOp::create(
        b, loc,
        rowWise     ? mma.isRowLeader()
        : blockWide ? cmp(arith::CmpIPredicate::eq, tid, idx(0))
                    : cmp(arith::CmpIPredicate::eq, rem(tid, mma.lanes()),
                          idx(0)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&leader.getThenRegion().front());
    for (int64_t i = 0; i < 2; ++i)
      memref::AtomicRMWOp::create(
          b, loc, arith::AtomicRMWKind::addi,
          arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                 loop.getResult(2 * slots + accs + i)),
          counts, ValueRange{idx(i)});
  }

  // Final: the row's sums, O / l, the masked value for rows with l = 0. A
  // split's partials are f32 and masked(zero): the merge applies the op's
  // rule.
  bool partials = splits > 1 || stream;
  MaskedRows masked = partials ? MaskedRows::Zero : op.getMasked();
  Type outElt =
      partials ? b.getF32Type()
               : cast<MemRefType>(op.getOutput().getType()).getElementType();
  Value fillO = sm.maskedValue(masked, /*probability=*/true);
  Value fillL = sm.maskedValue(masked, /*probability=*/false);
  Value outBatch = stream       ? piece->slot
                   : splits > 1 ? add(mul(bIdx, idx(splits)), split)
                                : bIdx;
  // Each slot's l, summed over the lanes of its row.
  auto rowSums = [&](ArrayRef<Value> state) {
    SmallVector<Value> sums;
    for (int64_t r = 0; r < slots; ++r)
      sums.push_back(mma.rowReduce(
          state[slots + r], [&](Value x, Value y) { return sm.add(x, y); }));
    return sums;
  };
  auto store = [&](ArrayRef<Value> state, ArrayRef<Value> sums) {
    SmallVector<Value> acc(state.slice(2 * slots, accs));
    for (int64_t r = 0; r < slots; ++r) {
      Value l = sums[r];
      Value empty = sm.emptyRow(l);
      Value inv = sm.reciprocal(l);
      auto ifRow =
          scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::slt, rows[r], nq),
                            /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifRow.getThenRegion().front());
      mma.storeRow(r, acc, outBatch, hIdx, rows[r], [&](Value v) {
        return sm.fromAcc(sm.select(empty, fillO, sm.mul(v, inv)), outElt);
      });
      if (Value lse = lseOut) {
        // (m + log2 l) ln 2, written by one lane of the row.
        auto ifLeader = scf::IfOp::create(b, loc, mma.isRowLeader(), false);
        b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
        Value v =
            sm.select(empty, fillL,
                      sm.lseOf(StateKind::Max, state[r], l, ExpUnits::Log2));
        memref::StoreOp::create(b, loc, v, lse,
                                ValueRange{outBatch, hIdx, rows[r]});
      }
    }
  };

  if (!unified) {
    SmallVector<Value> state(loop.getResults());
    store(state, rowSums(state));
    if (piece)
      endPieces(*piece);
    return;
  }
  // Unified max, two kernels: this one's pass at phi, and a second kernel
  // in which only the blocks that this one flags (a row whose sum at phi is
  // out of range, StateMath::unifiedSumInRange) fold their tiles again,
  // online, and write their rows again. Both passes in one kernel (one
  // loop run twice, or a loop each) made ptxas spill 232-280 bytes at 255
  // registers where one loop takes 217 (B8 H32 Hkv8 L32768 d128), 6-11%
  // slower at the plans' split counts.
  Value block =
      add(launch.getBlockIds().x,
          mul(launch.getGridSize().x,
              add(launch.getBlockIds().y,
                  mul(launch.getGridSize().y, launch.getBlockIds().z))));
  Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
  if (unifiedPass == UnifiedPass::Fallback) {
    Value flag = memref::LoadOp::create(b, loc, redoFlags, ValueRange{block});
    auto again = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, flag,
                              arith::ConstantIntOp::create(b, loc, 0, 32)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&again.getThenRegion().front());
    SmallVector<Value> state(tileLoop(false).getResults());
    store(state, rowSums(state));
    return;
  }
  SmallVector<Value> state(tileLoop(true).getResults());
  SmallVector<Value> sums = rowSums(state);
  store(state, sums);
  Value redo = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (int64_t r = 0; r < slots; ++r) {
    Value out =
        arith::XOrIOp::create(b, loc, sm.unifiedSumInRange(sums[r]), yes);
    Value valid = cmp(arith::CmpIPredicate::slt, rows[r], nq);
    redo = arith::OrIOp::create(b, loc, redo,
                                arith::AndIOp::create(b, loc, valid, out));
  }
  Value vote = blockAnyOnce(redo);
  auto leader =
      scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::eq, tid, idx(0)),
                        /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&leader.getThenRegion().front());
  memref::StoreOp::create(b, loc,
                          arith::ExtUIOp::create(b, loc, b.getI32Type(), vote),
                          redoFlags, ValueRange{block});
}
