//===- KernelBuilder.cpp - the body of one softmax GPU kernel ------------===//
//
// The kernel plan of SoftmaxToGPU.cpp: thread loads and folds, row merges
// through shuffles and workgroup memory, split-row publication, output.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "WarpMerge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

Value KernelBuilder::vectorInRow(Value col, Value valid) {
  Value head = cmp(arith::CmpIPredicate::uge, col, shift);
  Value tail =
      cmp(arith::CmpIPredicate::ule, add(col, idx(s.vectorWidth)), rowEnd);
  return andI(valid, andI(head, tail));
}

bool KernelBuilder::masksByBounds() const {
  // A cached row stores each vector at the column it loaded it from, and
  // LLVM keeps whatever the two masks share alive in between: with per-lane
  // 64-bit columns, seven 64-bit values a vector of 8. Two bounds a vector
  // keep fewer. Registers (ptxas, sm_90) and time (H100,
  // bench/results/peeled_mask/): bf16 64x50257 in a cluster 155 -> 119 (4
  // blocks a multiprocessor, not 3: 18.7 -> 13.9 us), 4096x4097 59 -> 48
  // and 4096x8191 110 -> 79 (-11% each); split f32 rows, f32 64x50257 in a
  // cluster 167 -> 124. Where the blocks a multiprocessor holds do not
  // change, the bounds are slower: f32 rows of 4-lane vectors in one block
  // (registers unchanged, 0.5-4% slower) and blocks of 512 threads (bf16
  // 4096x16383 105 -> 80, one block either way, 7.6% slower) keep the
  // per-lane columns, as streamed rows do (1024x50257: 32 registers against
  // 42, two blocks of 1024 threads a multiprocessor).
  return s.cachedVectors > 0 && (s.vectorWidth >= 8 || s.splits > 1) &&
         s.threadsPerRow * s.rowsPerBlock <= 256;
}

Value KernelBuilder::lanesInRow(OpBuilder &at, Value col, Value valid) {
  // The helpers build with `b`: point it where `at` builds.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(at.getInsertionBlock(), at.getInsertionPoint());
  auto splat = [&](Value v, Type vectorType) {
    return vector::BroadcastOp::create(b, loc, vectorType, v);
  };
  // The lane numbers as a constant: the GPU pipelines lower no vector.step.
  auto laneNumbers = [&](VectorType type) {
    unsigned bits = type.getElementType().isIndex()
                        ? 64
                        : type.getElementType().getIntOrFloatBitWidth();
    SmallVector<APInt> steps;
    for (int64_t i = 0; i < s.vectorWidth; ++i)
      steps.push_back(APInt(bits, i));
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(type, steps));
  };
  Value head, tail;
  if (masksByBounds()) {
    // Lane k is inside the row when shift - col <= k < rowEnd - col, each
    // bound clamped to [0, width] and compared in i32.
    auto lanesType = VectorType::get({s.vectorWidth}, b.getI32Type());
    auto bound = [&](Value end) {
      Value v = arith::MaxSIOp::create(b, loc, sub(end, col), idx(0));
      v = arith::MinSIOp::create(b, loc, v, idx(s.vectorWidth));
      return splat(arith::IndexCastOp::create(b, loc, b.getI32Type(), v),
                   lanesType);
    };
    Value lanes = laneNumbers(lanesType);
    head = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, lanes,
                                 bound(shift));
    tail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lanes,
                                 bound(rowEnd));
  } else {
    // Lane k is inside the row when shift <= col + k < rowEnd.
    auto indices = VectorType::get({s.vectorWidth}, b.getIndexType());
    Value cols = arith::AddIOp::create(b, loc, laneNumbers(indices),
                                       splat(col, indices));
    head = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, cols,
                                 splat(shift, indices));
    tail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, cols,
                                 splat(rowEnd, indices));
  }
  Value ok = splat(valid, VectorType::get({s.vectorWidth}, b.getI1Type()));
  return arith::AndIOp::create(b, loc, ok,
                               arith::AndIOp::create(b, loc, head, tail));
}

SmallVector<Value> KernelBuilder::loadVector(Value row, Value col,
                                             Value valid) {
  auto inf = APFloat::getInf(cast<FloatType>(inElt).getFloatSemantics(),
                             /*Negative=*/true);
  Value v;
  if (peeled) {
    // The vector's address is aligned (rowBase + col is a multiple of the
    // width): whole vectors load as one access; the row's first and last
    // load the lanes inside it (upstream's masked load; masked-off lanes
    // are not read).
    Value at = add(rowBase, col);
    auto ifOp = scf::IfOp::create(
        b, loc, vectorInRow(col, valid),
        [&](OpBuilder &t, Location l) {
          Value v =
              vector::LoadOp::create(t, l, inVector(), xFlat, at,
                                     nontemporal(inElt), alignment(inElt));
          scf::YieldOp::create(t, l, v);
        },
        [&](OpBuilder &e, Location l) {
          // The lane mask only where it is used, off the loop's main path.
          Value mask = lanesInRow(e, col, valid);
          Value pass = arith::ConstantOp::create(
              e, l, DenseElementsAttr::get(inVector(), inf));
          Value v = vector::MaskedLoadOp::create(e, l, inVector(), xFlat, at,
                                                 mask, pass, alignment(inElt));
          scf::YieldOp::create(e, l, v);
        });
    v = ifOp.getResult(0);
  } else {
    auto ifOp = scf::IfOp::create(
        b, loc, valid,
        [&](OpBuilder &t, Location l) {
          Value v =
              vector::LoadOp::create(t, l, inVector(), x, ValueRange{row, col},
                                     nontemporal(inElt), alignment(inElt));
          scf::YieldOp::create(t, l, v);
        },
        [&](OpBuilder &e, Location l) {
          Value v = arith::ConstantOp::create(
              e, l, DenseElementsAttr::get(inVector(), inf));
          scf::YieldOp::create(e, l, v);
        });
    v = ifOp.getResult(0);
  }
  if (inElt != acc)
    v = arith::ExtFOp::create(b, loc, VectorType::get({s.vectorWidth}, acc), v);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < s.vectorWidth; ++i)
    elements.push_back(vector::ExtractOp::create(b, loc, v, i));
  return elements;
}

void KernelBuilder::storeVector(Value row, Value col, Value valid,
                                ArrayRef<Value> values) {
  SmallVector<Value> converted;
  for (Value v : values)
    converted.push_back(sm.fromAcc(v, outElt));
  Value vec = vector::FromElementsOp::create(b, loc, outVector(), converted);
  if (peeled) {
    Value at = add(rowBase, col);
    scf::IfOp::create(
        b, loc, vectorInRow(col, valid),
        [&](OpBuilder &t, Location l) {
          vector::StoreOp::create(t, l, vec, yFlat, at, nontemporal(outElt),
                                  alignment(outElt));
          scf::YieldOp::create(t, l);
        },
        [&](OpBuilder &e, Location l) {
          Value mask = lanesInRow(e, col, valid);
          vector::MaskedStoreOp::create(e, l, yFlat, at, mask, vec,
                                        alignment(outElt));
          scf::YieldOp::create(e, l);
        });
    return;
  }
  scf::IfOp::create(b, loc, valid, [&](OpBuilder &t, Location l) {
    vector::StoreOp::create(t, l, vec, y, ValueRange{row, col},
                            nontemporal(outElt), alignment(outElt));
    scf::YieldOp::create(t, l);
  });
}

FoldRule KernelBuilder::foldRule() const {
  if (req.algorithm == Algorithm::ExpPair) {
    // exp(x_i) = a_i 2^k_i; K' = max(K, max k_i); the group adds
    // sum a_i 2^(k_i - K'). -inf elements count nothing.
    FoldRule rule(StateKind::Exponent);
    rule.pairs = true;
    rule.minusInf = MinusInf::IdentityPair;
    return rule;
  }
  // m' = max(m, max x_i); the group adds sum e^(x_i - m') (kRowExpUnits).
  FoldRule rule(StateKind::Max, kRowExpUnits);
  rule.group = FoldRule::Group::Tree;
  return rule;
}

StateFold KernelBuilder::foldGroup(Value m, ArrayRef<Value> xs) {
  StateFold f(sm, foldRule(), {m}, xs);
  f.offset();
  (void)f.terms();
  f.rescale();
  f.termSum();
  return f;
}

std::pair<Value, Value> KernelBuilder::fold(Value m, Value l,
                                            ArrayRef<Value> xs) {
  StateFold f = foldGroup(m, xs);
  Value sum = f.newSum(l);
  return {f.offset(), sum};
}

std::pair<Value, Value> KernelBuilder::warpMerge(Value m, Value l,
                                                 int64_t width) {
  return warpMergeStates(b, loc, sm, stateKind, m, l, width, target.warpSize,
                         kRowExpUnits);
}

std::pair<Value, Value> KernelBuilder::rowMerge(Value m, Value l) {
  int64_t warp = target.warpSize;
  if (s.threadsPerRow <= warp)
    return warpMerge(m, l, s.threadsPerRow);
  // Across warps, through workgroup memory.
  return rowMergeStates(b, loc, sm, stateKind, m, l, lane,
                        s.threadsPerRow / warp, warp, smemM, smemL,
                        kRowExpUnits);
}

void KernelBuilder::forEachVector(
    llvm::function_ref<void(int64_t, Value, Value)> body) {
  for (int64_t k = 0; k < s.cachedVectors; ++k) {
    Value vecIndex = add(idx(k * s.threadsPerRow), lane);
    Value col = add(chunkBegin, mul(vecIndex, idx(s.vectorWidth)));
    Value valid = andI(rowValid, ult(col, chunkEnd));
    body(k, valid, col);
  }
}

SmallVector<Value> KernelBuilder::elementsOf(ArrayRef<StreamedVector> vectors) {
  SmallVector<Value> all;
  for (const StreamedVector &v : vectors)
    llvm::append_range(all, v.elements);
  return all;
}

SmallVector<Value> KernelBuilder::streamRow(
    ValueRange inits,
    llvm::function_ref<SmallVector<Value>(ArrayRef<StreamedVector>, ValueRange)>
        body) {
  // A thread's next load issues only once the fold that uses its last one
  // has: with one vector an iteration, each thread has one 16-byte load in
  // flight. Unrolled, the iteration's vectors are all loaded first; past
  // the first, a vector may lie beyond the row's end (the last iteration),
  // and loads nothing.
  int64_t stride = s.threadsPerRow * s.vectorWidth;
  int64_t groupElements = s.unroll * stride;
  Value group = idx(groupElements);
  Value first = add(chunkBegin, mul(lane, idx(s.vectorWidth)));
  Value end = arith::SelectOp::create(b, loc, rowValid, chunkEnd, first);
  // reread = reverse: the passes after the first alternate, the second
  // from the thread's last group back to its first. Iteration k of the
  // thread's n groups then takes group n - 1 - k.
  bool reverse =
      s.reread == RereadOrder::Reverse && streamedPasses % 2 == 1;
  ++streamedPasses;
  Value lo = first, hi = end, step = group, groups;
  if (reverse) {
    Value span = arith::SelectOp::create(b, loc, ult(first, end),
                                         sub(end, first), idx(0));
    groups = div(add(span, idx(groupElements - 1)), groupElements);
    lo = idx(0);
    hi = groups;
    step = idx(1);
  }
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, step, inits,
      [&](OpBuilder &t, Location l, Value iv, ValueRange iter) {
        // The helpers build with `b`: point it into the loop body.
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(t.getInsertionBlock(), t.getInsertionPoint());
        Value col =
            reverse ? add(first, mul(sub(sub(groups, idx(1)), iv), group))
                    : iv;
        SmallVector<StreamedVector> vectors(s.unroll);
        for (int64_t u = 0; u < s.unroll; ++u) {
          StreamedVector &v = vectors[u];
          v.col = u == 0 ? col : add(col, idx(u * stride));
          v.valid = u == 0 ? arith::ConstantIntOp::create(b, l, 1, 1)
                           : ult(v.col, end);
          v.elements = loadVector(row, v.col, v.valid);
        }
        SmallVector<Value> next = body(vectors, iter);
        scf::YieldOp::create(b, l, next);
      });
  return SmallVector<Value>(loop.getResults());
}

std::pair<Value, Value> KernelBuilder::threadState() {
  Value m0 = sm.identityOffset(), l0 = sm.identitySum();
  bool threePass = req.algorithm == Algorithm::ThreePass;
  if (s.cachedVectors > 0) {
    forEachVector([&](int64_t, Value valid, Value col) {
      cached.push_back(loadVector(row, col, valid));
    });
    SmallVector<Value> all;
    for (auto &v : cached)
      llvm::append_range(all, v);
    if (req.algorithm == Algorithm::ExpPair)
      return fold(m0, l0, all);
    // The row is in registers, so the thread takes its max before its sum
    // (one exp per element) and keeps the exps for the output; from the
    // identity, nothing is rescaled.
    StateFold f(sm, foldRule(), {m0}, all);
    Value m = f.offset();
    if (threePass)
      return {m, l0};
    threadMax = m;
    cachedExps.assign(f.terms());
    return {m, f.termSum()};
  }
  if (threePass) {
    SmallVector<Value> m = streamRow(
        ValueRange{m0}, [&](ArrayRef<StreamedVector> vectors, ValueRange iter) {
          StateFold f(sm, foldRule(), {iter[0]}, elementsOf(vectors));
          return SmallVector<Value>{f.offset()};
        });
    return {m[0], l0};
  }
  // A streamed row adds thousands of groups into one thread's sum: the sum
  // carries a Kahan compensation (rescaled with it), or its error would grow
  // with the row length.
  SmallVector<Value> state =
      streamRow(ValueRange{m0, l0, l0},
                [&](ArrayRef<StreamedVector> vectors, ValueRange iter) {
                  StateFold f = foldGroup(iter[0], elementsOf(vectors));
                  auto [sum, comp] = f.newSumCompensated(iter[1], iter[2]);
                  return SmallVector<Value>{f.offset(), sum, comp};
                });
  return {state[0], state[1]};
}

void KernelBuilder::writeOutputs(Value m, Value l) {
  if (!req.normalize) {
    // logsumexp: the first thread of the row writes it (split rows: of the
    // block that published the row's last state).
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, idx(0));
    if (splitWriter)
      first = andI(first, splitWriter);
    scf::IfOp::create(
        b, loc, andI(first, rowValid), [&](OpBuilder &t, Location lc) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(t.getInsertionBlock(), t.getInsertionPoint());
          Value v = sm.fromAcc(sm.lse(stateKind, req.masked, m, l), outElt);
          memref::StoreOp::create(b, lc, v, y, row);
          scf::YieldOp::create(b, lc);
        });
    return;
  }
  Value inv;
  if (*req.normalize == NormalizeKind::Softmax)
    inv = sm.reciprocal(l);
  auto normalizeAll = [&](ArrayRef<Value> xs) {
    SmallVector<Value> ys;
    for (Value v : xs)
      ys.push_back(sm.normalize(*req.normalize, stateKind, req.masked, v, m, l,
                                inv, kRowExpUnits));
    return ys;
  };
  if (s.cachedVectors > 0) {
    // softmax from the kept exps: y = e * exp(threadMax - m) / l, one
    // multiply per element; the masked-row rule as in StateMath::normalize.
    Value scale;
    if (!cachedExps.empty() && *req.normalize == NormalizeKind::Softmax) {
      scale = sm.mul(sm.rescale(stateKind, threadMax, m, kRowExpUnits), inv);
      scale = sm.select(sm.emptyRow(l), sm.cst(0.0), scale);
    }
    forEachVector([&](int64_t k, Value valid, Value col) {
      if (!scale) {
        storeVector(row, col, valid, normalizeAll(cached[k]));
        return;
      }
      SmallVector<Value> ys;
      for (int64_t i = 0; i < s.vectorWidth; ++i)
        ys.push_back(sm.mul(cachedExps[k * s.vectorWidth + i], scale));
      if (req.masked == MaskedRows::NaN)
        for (Value &y : ys)
          y = sm.maskRow(req.masked, /*probability=*/true, l, y);
      storeVector(row, col, valid, ys);
    });
    return;
  }
  // The last pass reads each vector for the last time and writes one no
  // later pass reads: both nontemporal, so that they do not push the rows
  // still to be reread out of L2.
  lastPass = true;
  streamRow(ValueRange{}, [&](ArrayRef<StreamedVector> vectors, ValueRange) {
    for (const StreamedVector &v : vectors)
      storeVector(row, v.col, v.valid, normalizeAll(v.elements));
    return SmallVector<Value>{};
  });
  lastPass = false;
}

std::pair<Value, Value> KernelBuilder::mergeClusterRow(Value m, Value l,
                                                       int64_t round) {
  // The row's first thread leaves the block's state in shared memory; the
  // barrier orders it before every block's reads (arrive releases, wait
  // acquires). Every block then merges all states, so the row's last
  // publisher need not be found and nothing waits in a loop.
  Value mSlot = idx(2 * round), lSlot = idx(2 * round + 1);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, idx(0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &t, Location lc) {
    memref::StoreOp::create(t, lc, m, smemStates, ValueRange{mSlot});
    memref::StoreOp::create(t, lc, l, smemStates, ValueRange{lSlot});
    scf::YieldOp::create(t, lc);
  });
  hooks.buildClusterArrive(b, loc);
  hooks.buildClusterWait(b, loc);
  return mergeChunkStates([&](Value chunkIndex) -> std::pair<Value, Value> {
    Value rank =
        arith::IndexCastUIOp::create(b, loc, b.getI32Type(), chunkIndex);
    return {hooks.loadClusterShared(b, loc, smemStates, mSlot, rank),
            hooks.loadClusterShared(b, loc, smemStates, lSlot, rank)};
  });
}

std::pair<Value, Value> KernelBuilder::mergeSplitRow(Value m, Value l,
                                                     ValueRange split,
                                                     int64_t round,
                                                     bool waitForAll) {
  if (clusterMerge)
    return mergeClusterRow(m, l, round);
  Value states = split[0], counters = split[1];
  Value splits = idx(s.splits);
  // Round r of the row uses its own slots and counts to (r + 1) * splits.
  Value rowBase = mul(add(mul(idx(round), rows), row), splits);
  Value slot = add(rowBase, chunk);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, idx(0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &t, Location lc) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(t.getInsertionBlock(), t.getInsertionPoint());
    memref::StoreOp::create(b, lc, m, states, ValueRange{slot, idx(0)});
    memref::StoreOp::create(b, lc, l, states, ValueRange{slot, idx(1)});
    // Publish: the state stores are ordered before the count. The readers
    // are blocks of the same device: device scope, not system scope.
    hooks.buildDeviceFence(b, lc, FenceOrdering::Release);
    Value one = arith::ConstantIntOp::create(b, lc, b.getI32Type(), 1);
    Value before = memref::AtomicRMWOp::create(
        b, lc, arith::AtomicRMWKind::addi, one, counters, ValueRange{row});
    Value goal = arith::ConstantIntOp::create(b, lc, b.getI32Type(),
                                              (round + 1) * s.splits);
    if (!waitForAll) {
      // Nothing but the result needs the row's state: the block that
      // publishes last merges and writes it, and no block waits.
      Value last = arith::CmpIOp::create(
          b, lc, arith::CmpIPredicate::eq,
          arith::AddIOp::create(b, lc, before, one), goal);
      scf::IfOp::create(b, lc, last, [&](OpBuilder &f, Location fl) {
        hooks.buildDeviceFence(f, fl, FenceOrdering::Acquire);
        scf::YieldOp::create(f, fl);
      });
      memref::StoreOp::create(
          b, lc, arith::ExtUIOp::create(b, lc, b.getI32Type(), last),
          smemTicket, idx(0));
      scf::YieldOp::create(b, lc);
      return;
    }
    // Wait for the row's other blocks; they are resident (they took their
    // tickets), so the wait ends.
    Value zero = arith::ConstantIntOp::create(b, lc, b.getI32Type(), 0);
    scf::WhileOp::create(
        b, lc, TypeRange{}, ValueRange{},
        [&](OpBuilder &w, Location wl, ValueRange) {
          Value count =
              memref::AtomicRMWOp::create(w, wl, arith::AtomicRMWKind::addi,
                                          zero, counters, ValueRange{row});
          Value more = arith::CmpIOp::create(w, wl, arith::CmpIPredicate::slt,
                                             count, goal);
          scf::ConditionOp::create(w, wl, more, ValueRange{});
        },
        [&](OpBuilder &w, Location wl, ValueRange) {
          scf::YieldOp::create(w, wl);
        });
    hooks.buildDeviceFence(b, lc, FenceOrdering::Acquire);
    scf::YieldOp::create(b, lc);
  });
  gpu::BarrierOp::create(b, loc);
  if (!waitForAll)
    splitWriter = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        memref::LoadOp::create(b, loc, smemTicket, idx(0)),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  // Where blocks do not wait, only the last block's merge is complete, and
  // only it writes.
  return mergeChunkStates([&](Value chunkIndex) -> std::pair<Value, Value> {
    Value other = add(rowBase, chunkIndex);
    return {memref::LoadOp::create(b, loc, states, ValueRange{other, idx(0)}),
            memref::LoadOp::create(b, loc, states, ValueRange{other, idx(1)})};
  });
}

std::pair<Value, Value> KernelBuilder::mergeChunkStates(
    function_ref<std::pair<Value, Value>(Value)> load) {
  // Every warp merges the row's states (splits <= warp size): lane i loads
  // chunk i's (the lanes past the last load it again and add the identity).
  Value laneInWarp = rem(lane, target.warpSize);
  Value valid = ult(laneInWarp, idx(s.splits));
  auto [mo, lo] = load(minU(laneInWarp, idx(s.splits - 1)));
  return warpMerge(sm.select(valid, mo, sm.identityOffset()),
                   sm.select(valid, lo, sm.identitySum()), target.warpSize);
}

void KernelBuilder::build(gpu::LaunchOp launch, ValueRange split) {
  Value tid = launch.getThreadIds().x;
  Value bid = launch.getBlockIds().x;
  auto attributions = launch.getWorkgroupAttributions();
  smemM = attributions[0];
  smemL = attributions[1];
  lane = rem(tid, s.threadsPerRow);
  chunkBegin = idx(0);
  Value ticket;
  clusterMerge = s.mergesInCluster();
  if (clusterMerge) {
    // A cluster per row: the hardware runs its blocks together.
    smemStates = attributions[2];
    row = gpu::ClusterIdOp::create(b, loc, gpu::Dimension::x);
    chunk = gpu::ClusterBlockIdOp::create(b, loc, gpu::Dimension::x);
  } else if (s.splits > 1) {
    // Blocks take work in the order they start, from a ticket counter, so
    // that the blocks of a row that wait for each other are all running.
    smemTicket = attributions[2];
    Value counters = split[1];
    Value isFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, idx(0));
    scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &t, Location lc) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(t.getInsertionBlock(), t.getInsertionPoint());
      Value one = arith::ConstantIntOp::create(b, lc, b.getI32Type(), 1);
      Value got = memref::AtomicRMWOp::create(b, lc, arith::AtomicRMWKind::addi,
                                              one, counters, ValueRange{rows});
      memref::StoreOp::create(b, lc, got, smemTicket, idx(0));
      scf::YieldOp::create(b, lc);
    });
    gpu::BarrierOp::create(b, loc);
    ticket = arith::IndexCastUIOp::create(
        b, loc, b.getIndexType(),
        memref::LoadOp::create(b, loc, smemTicket, idx(0)));
    row = div(ticket, s.splits);
    chunk = rem(ticket, s.splits);
  }
  if (s.splits > 1) {
    // A cached chunk is what the block's registers hold; a streamed one is
    // the row's vectors shared out (splitChunkElements).
    // Peeled rows span up to vectorWidth - 1 more elements than they hold
    // (rowSpan, which the mapping's checks use on the static length).
    Value span = peeled ? add(n, idx(s.vectorWidth - 1)) : n;
    Value chunkLen =
        s.cachedVectors > 0
            ? idx(s.cachedVectors * s.threadsPerRow * s.vectorWidth)
            : mul(arith::CeilDivUIOp::create(
                      b, loc,
                      arith::CeilDivUIOp::create(b, loc, span,
                                                 idx(s.vectorWidth)),
                      idx(s.splits)),
                  idx(s.vectorWidth));
    chunkBegin = mul(chunk, chunkLen);
    chunkEnd = add(chunkBegin, chunkLen);
  } else {
    row = add(mul(bid, idx(s.rowsPerBlock)), div(tid, s.threadsPerRow));
  }
  rowValid = ult(row, rows);
  Value end = n;
  if (peeled) {
    // Columns count from the aligned address at or before the row's start
    // (the buffer's start is aligned, as for every vector access here).
    auto flat = [&](Value v) -> Value {
      return memref::CollapseShapeOp::create(
          b, loc, v, ArrayRef<ReassociationIndices>{{0, 1}});
    };
    xFlat = flat(x);
    if (req.normalize)
      yFlat = flat(y);
    Value start = mul(row, n);
    shift = rem(start, s.vectorWidth);
    rowBase = sub(start, shift);
    rowEnd = end = add(n, shift);
  }
  chunkEnd = s.splits > 1 ? minU(chunkEnd, end) : end;

  auto [m, l] = threadState();
  std::tie(m, l) = rowMerge(m, l);
  if (s.splits > 1)
    std::tie(m, l) = mergeSplitRow(m, l, split, 0,
                                   req.normalize.has_value() ||
                                       req.algorithm == Algorithm::ThreePass);
  if (req.algorithm == Algorithm::ThreePass) {
    // Second pass: the sum against the row's max, then merged as states
    // with that common offset.
    Value rowMax = m;
    Value sum = sm.identitySum();
    if (s.cachedVectors > 0) {
      SmallVector<Value> all;
      for (auto &v : cached)
        llvm::append_range(all, v);
      StateFold f = StateFold::atOffset(
          sm, FoldRule(StateKind::Max, kRowExpUnits), Value(), rowMax, all);
      cachedExps.assign(f.terms());
      sum = f.termSum();
      threadMax = rowMax;
    } else {
      sum = streamRow(ValueRange{sum, sum},
                      [&](ArrayRef<StreamedVector> vectors, ValueRange iter) {
                        StateFold f = StateFold::atOffset(
                            sm, FoldRule(StateKind::Max, kRowExpUnits), Value(),
                            rowMax, elementsOf(vectors));
                        auto [acc, c] = f.newSumCompensated(iter[0], iter[1]);
                        return SmallVector<Value>{acc, c};
                      })[0];
    }
    std::tie(m, l) = rowMerge(rowMax, sum);
    if (s.splits > 1)
      std::tie(m, l) = mergeSplitRow(m, l, split, 1, req.normalize.has_value());
  }
  if (clusterMerge) {
    // Every block merged the same states: the first writes a logsumexp.
    // The others may read this block's shared memory until they arrive
    // once more; it waits for that before it exits.
    splitWriter =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, chunk, idx(0));
    hooks.buildClusterArrive(b, loc);
  }
  writeOutputs(m, l);
  if (clusterMerge)
    hooks.buildClusterWait(b, loc);
}
