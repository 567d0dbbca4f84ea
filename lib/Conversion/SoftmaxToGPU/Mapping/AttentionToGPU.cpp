//===- AttentionToGPU.cpp - softmax.attention -> tensor-core gpu.launch ---===//
//
// FlashAttention-2's structure, on any matrix unit AttentionMma describes
// (mma.sync on NVIDIA, MFMA on CDNA): a block of warps owns 16 query rows
// per warp of one (batch, head); the queries stay in registers as operand
// fragments; K and V tiles of 64 keys are staged in shared memory; per tile
//
//   S = Q K^T            on the matrix unit
//   s2 = S scale log2(e) (exp2 below; masking only on tiles that need it)
//   m' = max(m, rowmax s2)   (shuffles among the lanes of a row)
//   P = exp2(s2 - m'), a = exp2(m - m'), l = l a + rowsum P, O = O a
//   O += P V             P reused from S's accumulator registers
//
// and O / l, (m + log2 l) ln 2 at the end. With a unified max a first
// kernel takes m' = phi (no row max, no rescale) and flags the blocks with
// a row out of range, which a second, online kernel redoes. Causal and
// window limits bound the tile loop, so tiles no query of the block may
// see are never loaded.
// Upstream has the pieces (nvgpu.ldmatrix, nvvm.mma.sync, amdgpu.mfma,
// gpu.shuffle) but no op for a contraction whose accumulator is rescaled
// between tiles, so the kernel is built here. docs/Attention.md, "GPU
// lowering".
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"

#include "AttentionDecode.h"
#include "SharedTiles.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"
#include <numeric>

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

std::unique_ptr<StateMath> AttentionMma::rowMath() {
  return std::make_unique<StateMath>(b, loc, b.getF32Type());
}

Value AttentionMma::rowReduce(Value v,
                              function_ref<Value(Value, Value)> combine) {
  for (int32_t offset : rowLaneXors()) {
    Value w = gpu::ShuffleOp::create(b, loc, v, offset, lanes(),
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    v = combine(v, w);
  }
  return v;
}

Value AttentionMma::warpOr(Value bits) {
  for (int32_t offset = lanes() / 2; offset >= 1; offset /= 2) {
    Value w = gpu::ShuffleOp::create(b, loc, bits, offset, lanes(),
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    bits = arith::OrIOp::create(b, loc, bits, w);
  }
  return bits;
}

SmallVector<Value> AttentionMma::kvIndices(Value src, Value bIdx, Value kvHead,
                                           Value row, Value col) {
  // One page table load per copy. Looking up a tile's pages once and
  // picking each copy's by a select was measured slower on the H200 (B 64,
  // pages of 64, 4 splits: 3130 GB/s against 3366 with a load per copy;
  // bench/results/decode/history-run2-tile-pages-gpu_ragged.md).
  SmallVector<Value> at = kvRowIndices(b, loc, op, src, bIdx, kvHead, row);
  at.push_back(col);
  return at;
}

namespace {

/// Warps per block. With 32 query rows per warp (the NVIDIA default), 4:
/// 128 rows per block, FA2's shape. With 16 (CDNA, or asked for): measured
/// on the H200, causal d >= 128 runs 1.3x faster with 8
/// warps (each staged tile serves twice the queries, and the diagonal tiles
/// are fewer), everything else 1.1-1.3x slower (one block of 8 warps per
/// SM waits longer at each barrier than two blocks of 4); the 8-warp
/// staging needs d % 32 == 0. f32 past d 128 keeps 4 warps: 128 rows of
/// f32 queries and the K and V tiles would not fit in shared memory.
int64_t warpsFor(AttentionOp op, int64_t d, bool nvidia, int64_t rows,
                 bool isF32) {
  if (rows == 32 || (isF32 && d > 128))
    return 4;
  return nvidia && op.getCausal() && d >= 128 && d % 32 == 0 ? 8 : 4;
}

/// The default query rows per warp. f32 (NVIDIA) measured on the H200
/// (bench/results/gpu_attention_f32.md): exact and causal, 16 rows
/// (against 32): at d 128 with 8 warps 59.6 TFLOP/s against 49.8 (B1 H32
/// N4096), 34.9 against 29.3 at N 1000, where 32 rows spill (ptxas: 1128
/// bytes); at d 64 (4 warps) 48.7 against 46.5 (B2 H16 N2048), 43.7
/// against 40.6 at N 1000. Non-causal, 32 rows are as fast or faster
/// (exact d 64: 69.8 against 63.6), and tf32 everywhere (100-152 against
/// 65-121). Past d 128 only 16 rows fit f32 tiles in shared
/// memory.
int64_t defaultRowsPerWarp(AttentionOp op, bool nvidia, bool isF32,
                           const AttentionGPUStrategy &overrides) {
  if (!nvidia)
    return 16;
  if (!isF32)
    return 32;
  int64_t d = cast<MemRefType>(op.getQuery().getType()).getDimSize(3);
  bool exact = overrides.f32Precision == AttentionF32Precision::Exact;
  return d > 128 || (exact && op.getCausal()) ? 16 : 32;
}

/// Fills in the fields `overrides` leaves at 0, or explains why a given one
/// cannot be honoured. Defaults, measured on the H200: 32 rows per warp on
/// NVIDIA (0.93-0.97x FA2 against 0.72-0.92x with 16: each ldmatrix fragment
/// feeds two mma, so the kernel reads about a third less shared memory per
/// mma), the queries then read from shared memory per tile (registers hold the
/// O and S accumulators of 32 rows, not also the queries); one buffer per tile
/// (two measured 0-2% slower with 32 rows per warp, and 5-14% slower on causal
/// with 16).
FailureOr<AttentionGPUStrategy>
chooseAttentionStrategy(AttentionOp op, const GPUTargetHooks &hooks, bool isF32,
                        const AttentionGPUStrategy &overrides) {
  bool nvidia = hooks.vendor() == GPUVendor::NVIDIA;
  AttentionGPUStrategy s;
  s.rowsPerWarp = overrides.rowsPerWarp
                      ? overrides.rowsPerWarp
                      : defaultRowsPerWarp(op, nvidia, isF32, overrides);
  s.buffers = overrides.buffers ? overrides.buffers : 1;
  s.f32Precision = overrides.f32Precision;
  bool wide = hooks.maxRowsPerWarp() >= 32;
  if (s.rowsPerWarp != 16 && (s.rowsPerWarp != 32 || !wide))
    return op->emitOpError()
           << "attention-rows-per-warp must be 16"
           << (wide ? " or 32" : " on CDNA (32 is NVIDIA only)") << ", not "
           << s.rowsPerWarp;
  bool async = hooks.supportsAsyncCopy();
  if (s.buffers != 1 && (s.buffers > 3 || !async))
    return op->emitOpError()
           << "attention-buffers must be 1"
           << (async ? ", 2 or 3"
                     : " on CDNA (2 and 3 need asynchronous copies)")
           << ", not " << s.buffers;
  // A thresholded tile's V waits for its vote, one tile ahead at most.
  if (s.buffers == 3 && op.hasSkipThreshold())
    return op->emitOpError("attention-buffers 3 does not combine with a skip "
                           "threshold (1 or 2 do)");
  return s;
}

class AttentionKernel : IndexArith {
public:
  AttentionKernel(OpBuilder &b, Location loc, AttentionOp op, float scale,
                  AttentionMma &mma, int64_t warps, Value nq, Value nk,
                  Value heads, Value kvHeads)
      : IndexArith(b, loc), math(mma.rowMath()), sm(*math), op(op),
        scale(scale), mma(mma), rowsPerBlock(mma.rowsPerWarp() * warps), nq(nq),
        nk(nk), heads(heads), kvHeads(kvHeads), lseOut(op.getLse()) {}

  /// The kernel's body in `launch`, with the buffers of the matrix unit's
  /// `tileBuffers` in `smem`.
  void build(gpu::LaunchOp launch, ArrayRef<Value> smem);

  /// Split-KV: block x of the grid is tile x / splits, split x % splits of
  /// the keys (getAttentionKeySplitRange); it writes its f32 partial O (set
  /// on the matrix unit) and lse into row b splits + split of the partials,
  /// masked(zero).
  void setKeySplits(int64_t count, Value partialLse) {
    splits = count;
    lseOut = partialLse;
  }
  /// Stream-K: block x of the grid folds chunk x of `schedule` (the batch's
  /// key tiles end to end, in equal chunks), one piece per entry it
  /// crosses, writing its f32 partial into row entry + x of the partials.
  void setStreamK(const StreamKSchedule &s, Value batchSize, Value partialLse) {
    stream = s;
    batch = batchSize;
    lseOut = partialLse;
  }
  /// A thresholded op whose query tiles hold one row each (tile [1, Kt],
  /// or one query row per head): each row decides for itself, and the warp
  /// skips the tile's V and P V when all of its rows do.
  void setRowWiseSkip(bool on) { rowWise = on; }
  /// A thresholded op whose query tiles are the block's rows (tile [64,
  /// 64], [128, 64]): the block votes once per key tile, and its warps
  /// fold the tile, or skip it, together.
  void setBlockWideSkip(bool on) { blockWide = on; }
  /// Two buffers, a thresholded decode step: the loop waits for a tile's
  /// K before S and for its V only before P V, so that S (and the vote)
  /// overlap V's copy.
  void setOverlapValues(bool on) { overlapValues = on; }
  /// GQA packing: the kernel's rows are query heads times the op's
  /// `queryRows` rows (row r is position r mod queryRows), its lse buffer
  /// `lse` the op's as [B, Hkv', g Nq].
  void setPackedRows(Value queryRows, Value lse) {
    packedRows = queryRows;
    lseOut = lse;
  }

private:
  /// One piece of a stream-K chunk: entry `entry`'s keys [start, end), its
  /// partial's row `slot`, and the loop over the pieces (endPieces).
  struct Piece {
    Value entry, start, end, slot;
    Operation *loop = nullptr;
  };
  /// Opens the loop over the pieces of this block's chunk and leaves the
  /// insertion point where one piece is built; the block ids give the
  /// chunk (x) and the head (y).
  Piece beginPieces(gpu::LaunchOp launch);
  /// Closes what beginPieces opened.
  void endPieces(const Piece &piece);
  /// Adds the mask operand to the scores of tile `kv0`.
  void applyMaskOperand(SmallVector<Value> &sc, Value kv0, Value bIdx,
                        Value hIdx, ArrayRef<Value> rows);
  /// Sets scores past Nk or outside the causal/window limits to -inf, on
  /// the tiles that have any.
  void applyLimits(SmallVector<Value> &sc, Value kv0, ArrayRef<Value> positions,
                   Value blockFirst, Value blockLast, Value offset);
  /// The online update of one tile's scores `sc` from the loop state `st`
  /// (m and l per slot, then O): the new m and l, then O scaled; the
  /// probabilities in `p`.
  /// At a unified max (a fold at a known offset, no rescale) O adds as
  /// it is.
  /// With `keep` (one i1 per slot: the row skips the tile), those rows
  /// keep their (m, l, O) and add no probability.
  SmallVector<Value> foldTile(StateFold &fold, ValueRange st,
                              ArrayRef<Value> sc, SmallVector<Value> &p,
                              ArrayRef<Value> keep = {});
  /// The loop state's start: the identity (m, l) per slot, then zero
  /// accumulators.
  SmallVector<Value> initialState(int64_t slots);
  /// Whether `pred` holds in some thread of the block, once, after the
  /// tile loop: the end's barrier with a reduction, or flags[0] around two
  /// barriers.
  Value blockAnyOnce(Value pred);
  /// ln(lambda) in log2 units for batch entry `bIdx`
  /// (StateMath::logSkipThreshold).
  Value log2Threshold(Value bIdx);
  /// Whether some thread of the block has `pred` at key tile `kv0`: the
  /// end's barrier with a reduction, or a flag in shared memory (`flags`,
  /// two words used in turn by tile parity, so one barrier suffices)
  /// around a plain barrier; vote `which` of a tile takes words 2 which
  /// and 2 which + 1.
  Value blockAny(Value pred, Value kv0, int64_t which = 0);
  /// Waits for the copies requested up to `token`'s and before, leaving
  /// the last `pending` requests (an index from 0 to `most`) in flight.
  void waitLeaving(Value token, Value pending, int64_t most);
  /// One tile of a thresholded op (the loop body after the scores): the
  /// warp's vote on StateMath::rowAllowsSkip over its rows, V requested
  /// only when some warp folds the tile, the fold and P V only in the
  /// warps that do; returns the loop state to yield (with the counts).
  SmallVector<Value> skipTile(StateFold &fold, ValueRange st,
                              ArrayRef<Value> sc, Value kv0, Value buf,
                              Value bIdx, Value kvHead, Value log2Lambda,
                              ArrayRef<Value> rows, Value counts, Value token);

  /// Scalar f32 arithmetic of the row statistics, the matrix unit end's.
  std::unique_ptr<StateMath> math;
  StateMath &sm;
  AttentionOp op;
  float scale;
  AttentionMma &mma;
  int64_t rowsPerBlock;
  Value nq, nk, heads, kvHeads;
  /// Thresholded ops without the end's barrier reduction: memref<2xi32> in
  /// workgroup memory.
  Value flags;
  /// Split-KV and GQA packing (setKeySplits, setPackedRows); the first key
  /// of the block's split (null: 0).
  int64_t splits = 1;
  bool rowWise = false, blockWide = false, overlapValues = false;
  /// The end of the block's key range (the tile loop's upper bound).
  Value kvEnd;
  std::optional<StreamKSchedule> stream;
  Value batch;
  Value packedRows, lseOut, keyOffset;
  Value tid;
  /// The first key tile of the block, the O accumulators per lane, and
  /// (thresholded) the loop state's flag that V of the tile was requested
  /// with it.
  Value firstTile;
  size_t accs = 0, speculated = 0;

public:
  void setFlags(Value f) { flags = f; }
  /// Unified max: which of its two kernels this is, with the buffer of one
  /// i32 per block that the first writes (a row of the block left the
  /// range) and the second reads.
  enum class UnifiedPass { AtPhi, Fallback };
  void setUnifiedPass(UnifiedPass p, Value blockFlags) {
    unifiedPass = p;
    redoFlags = blockFlags;
  }

private:
  UnifiedPass unifiedPass = UnifiedPass::AtPhi;
  Value redoFlags;
};

} // namespace

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
  // some key of it is visible to it.
  SmallVector<Value> rowAllows, rowSees;
  Value allow = yes, sees = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (int64_t r = 0; r < slots; ++r) {
    Value g = fold.groupOffset(r);
    Value valid = cmp(arith::CmpIPredicate::slt, rows[r], nq);
    rowAllows.push_back(
        orI(notI(valid), sm.rowAllowsSkip(g, st[r], log2Lambda)));
    rowSees.push_back(andI(valid, sm.rowSeesTile(g)));
    allow = andI(allow, rowAllows.back());
    sees = orI(sees, rowSees.back());
  }
  // The warp skips the tile (no fold, no P V) when each of its rows lets
  // it. One reduction over the warp: bit 0, some row holds the tile; bit 1
  // (the counts of a warp-wide query tile), some row sees it. A block-wide
  // query tile is decided by the block's vote instead (and its counts by
  // a second one), before the fold: its warps fold the tile or skip it
  // together.
  Type i32 = b.getI32Type();
  Value warpSkip, needV, blockSees;
  std::function<Value(int64_t)> bit;
  if (blockWide) {
    needV = blockAny(notI(allow), kv0);
    warpSkip = notI(needV);
    if (counts)
      blockSees = blockAny(sees, kv0, /*which=*/1);
  } else {
    Value bits = arith::ExtUIOp::create(b, loc, i32, notI(allow));
    if (counts && !rowWise)
      bits = arith::OrIOp::create(
          b, loc, bits,
          arith::ShLIOp::create(b, loc,
                                arith::ExtUIOp::create(b, loc, i32, sees),
                                arith::ConstantIntOp::create(b, loc, 1, 32)));
    Value warpBits = mma.warpOr(bits);
    bit = [&, warpBits](int64_t mask) -> Value {
      Value set = arith::AndIOp::create(
          b, loc, warpBits, arith::ConstantIntOp::create(b, loc, mask, 32));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, set,
                                   arith::ConstantIntOp::create(b, loc, 0, 32));
    };
    warpSkip = notI(bit(1));
  }
  // A skipped tile leaves (m, l, O) as they were; where each row is a
  // query tile of its own, so do the rows of a folded tile that skip it.
  SmallVector<Value> kept(st.take_front(2 * slots + accs));
  SmallVector<Type> types;
  for (Value v : kept)
    types.push_back(v.getType());
  for (Value v : sc)
    types.push_back(v.getType());
  auto folded = scf::IfOp::create(b, loc, types, warpSkip,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&folded.getThenRegion().front());
    SmallVector<Value> same = kept;
    same.append(sc.begin(), sc.end());
    scf::YieldOp::create(b, loc, same);
    b.setInsertionPointToStart(&folded.getElseRegion().front());
    SmallVector<Value> p;
    SmallVector<Value> next = foldTile(
        fold, st, sc, p, rowWise ? ArrayRef(rowAllows) : ArrayRef<Value>());
    next.append(p);
    scf::YieldOp::create(b, loc, next);
  }
  ValueRange results = folded.getResults();
  SmallVector<Value> next(results.take_front(2 * slots));
  SmallVector<Value> o(results.slice(2 * slots, accs));
  SmallVector<Value> p(results.drop_front(2 * slots + accs));

  // A V requested with the tile (the last tile was folded) has landed for
  // this thread, and past the barrier for every thread; every warp has
  // read K. A V not requested yet is requested now if some warp folds the
  // tile. With one buffer, the next K follows (into the buffer every warp
  // is done with); with two, it was requested as the tile began, and the
  // next V is requested with it when this tile is folded, so that V of a
  // run of folded tiles is in flight as early as the dense schedule's.
  Value early = st[speculated];
  bool twoBuffers = mma.stages() == 2;
  if (!twoBuffers)
    mma.wait(token);
  if (!blockWide)
    needV = blockAny(notI(warpSkip), kv0);
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
  SmallVector<Type> accTypes;
  for (Value v : o)
    accTypes.push_back(v.getType());
  auto pv = scf::IfOp::create(b, loc, accTypes, warpSkip,
                              /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&pv.getThenRegion().front());
    scf::YieldOp::create(b, loc, o);
    b.setInsertionPointToStart(&pv.getElseRegion().front());
    scf::YieldOp::create(b, loc, mma.accumulate(p, o, buf));
  }
  next.append(pv.getResults().begin(), pv.getResults().end());
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
      Value tileSees = blockWide ? blockSees : bit(2);
      live = addIf(live, tileSees);
      skipped = addIf(skipped, andI(tileSees, warpSkip));
    }
    next.push_back(live);
    next.push_back(skipped);
  }
  next.push_back(needV);
  return next;
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
    speculated = init.size();
    if (skips)
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
            if (skips)
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
            // A thresholded tile's V waits for its vote (skipTile).
            if (!skips)
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

std::optional<AttentionF32Precision>
mlir::softmax::parseAttentionF32Precision(StringRef s) {
  if (s == "exact")
    return AttentionF32Precision::Exact;
  if (s == "tf32")
    return AttentionF32Precision::TF32;
  return std::nullopt;
}

/// Why the K/V tiles of `op` cannot come by bulk tensor copies, or
/// std::nullopt: the end reads them as [B, Hkv, Nk, D] boxes of 64 keys by
/// 64 elements through a tensor map, with zeros past the last key, two
/// buffers, and one phase per tile loop.
static std::optional<std::string>
whyNotTensorMapTiles(AttentionOp op, const GPUTarget &target, bool isF32,
                     int64_t buffers, const AttentionGPUStrategy &overrides) {
  if (!target.tensorMapCopies)
    return "on sm_90 (" + target.chip + " has no tensor-memory accelerator)";
  if (isF32)
    return std::string("for f16 and bf16 (its boxes are 128-byte rows of 64 "
                       "elements)");
  for (Value kv : {op.getKey(), op.getValue()}) {
    auto t = cast<MemRefType>(kv.getType());
    if (t.getDimSize(3) % 64 || !t.getLayout().isIdentity())
      return std::string("for K and V with the identity layout and head "
                         "dimensions that are multiples of 64");
  }
  if (op.isPaged())
    return std::string("without a page table");
  if (op.hasKeyLengths())
    return std::string("without key_lengths (rows past an entry's length are "
                       "masked only after they are read)");
  if (overrides.streamK > 0)
    return std::string("without stream-K");
  if (buffers != 2)
    return std::string("with two buffers per tile");
  return std::nullopt;
}

LogicalResult mlir::softmax::mapAttentionOpToGPU(
    RewriterBase &rewriter, AttentionOp op, const GPUTarget &target,
    const GPUTargetHooks &hooks, const AttentionGPUStrategy &passOverrides) {
  if (hooks.vendor() != target.vendor)
    return op->emitOpError() << "GPU attention mapping for " << target.chip
                             << " was given another vendor's target hooks";
  FailureOr<AttentionGPUStrategy> requested =
      applyAttentionGPURequest(op, target, passOverrides);
  if (failed(requested))
    return failure();
  AttentionGPUStrategy overrides = *requested;
  // The measured defaults (warpsFor, defaultRowsPerWarp) are per vendor.
  bool nvidia = target.vendor == GPUVendor::NVIDIA;
  // The threshold must be honoured or refused, never dropped. The kernel
  // decides per staged key tile for one warp's rows, for the block's
  // (blockSkipWarps, the warps that make the query tile: a block goes
  // through the key tiles in step, one barrier per tile, so a tile costs
  // the block less only when all its warps skip it), or for each row
  // (skipsRowWise: the warp holds any rows). So those are the tiles it
  // can skip.
  bool skips = op.hasSkipThreshold();
  bool rowWise = skipsRowWise(op);
  int64_t blockSkipWarps = 0;
  if (skips) {
    int64_t qt = op.getSkipQueryRows(), kt = op.getSkipKeys();
    bool wide = hooks.maxRowsPerWarp() >= 32;
    // 32 rows a warp (the dense kernel's, where the chip has them) for
    // tiles of 32 and 128 rows; 64 rows make one warpgroup of 16-row warps.
    int64_t perWarp = overrides.rowsPerWarp ? overrides.rowsPerWarp
                      : wide && (qt == 32 || qt == 128) ? 32
                                                        : 16;
    int64_t tileWarps = qt % perWarp ? 0 : qt / perWarp;
    if (kt != kKeysPerTile ||
        (!rowWise && (!llvm::is_contained({16, 32, 64, 128}, qt) ||
                      !llvm::is_contained({1, 2, 4, 8}, tileWarps))))
      return op->emitOpError()
             << "GPU attention mapping skips key tiles of " << kKeysPerTile
             << " keys for the query rows of one to eight warps, or for "
                "each row: it honours skip tiles of [1, 64], [16, 64], [32, "
                "64], [64, 64] and [128, 64]"
             << (overrides.rowsPerWarp
                     ? " whose rows are 1 to 8 times attention-rows-per-warp"
                     : "")
             << ", not [" << qt << ", " << kt << "]";
    // Eight warps stage each K/V row in 16-byte pieces, a warp's 32 at a
    // time (NVVMAttentionMma::stage).
    if (!rowWise && tileWarps == 8)
      for (MemRefType t : {cast<MemRefType>(op.getQuery().getType()),
                           cast<MemRefType>(op.getValue().getType())})
        if (t.getDimSize(3) % 32)
          return op->emitOpError()
                 << "GPU attention mapping skips a tile [" << qt
                 << ", 64] with 8 warps of " << perWarp
                 << " rows, which needs head dimensions that are multiples "
                    "of 32";
    if (!rowWise) {
      overrides.rowsPerWarp = perWarp;
      if (tileWarps > 1)
        blockSkipWarps = tileWarps;
    }
  }
  // Every shaped operand is a buffer: query, key, value, mask, threshold,
  // output, lse, counts.
  SmallVector<Value> shaped;
  for (Value operand : op->getOperands())
    if (isa<ShapedType>(operand.getType()))
      shaped.push_back(operand);
  if (auto why = whyNotContiguousBuffers(shaped, "GPU mapping"))
    return op->emitOpError(*why);
  auto q = cast<MemRefType>(op.getQuery().getType());
  auto v = cast<MemRefType>(op.getValue().getType());
  Type elt = q.getElementType();
  bool isF32 = elt.isF32();
  bool f32 = hooks.hasF32Attention();
  if (!isa<Float16Type, BFloat16Type>(elt) && !(isF32 && f32))
    return op->emitOpError()
           << "GPU attention mapping runs on f16 or bf16 tensor cores"
           << (f32 ? " or f32 on tf32 tensor cores"
                   : " (f32 attention is NVIDIA only: CDNA's MFMA end has "
                     "no f32 path)")
           << ", not " << elt << " inputs";
  for (int64_t dim : {q.getDimSize(3), v.getDimSize(3)})
    if (ShapedType::isDynamic(dim) || dim % 16 || dim == 0 || dim > 256)
      return op->emitOpError("GPU attention mapping needs static head "
                             "dimensions that are multiples of 16, from 16 "
                             "to 256");
  std::optional<float> scale = op.getScaleOrDefault();
  if (!scale)
    return op->emitOpError("has no scale and no static head dimension");

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto dim = [&](Value val, int64_t i) -> Value {
    return memref::DimOp::create(rewriter, loc, val, i);
  };
  IndexArith ix(rewriter, loc);
  FailureOr<AttentionGPUStrategy> strategy =
      chooseAttentionStrategy(op, hooks, isF32, overrides);
  if (failed(strategy))
    return failure();
  int64_t rowsPerWarp = strategy->rowsPerWarp, buffers = strategy->buffers;
  int64_t warps = blockSkipWarps ? blockSkipWarps
                                 : warpsFor(op, q.getDimSize(3), nvidia,
                                            rowsPerWarp, isF32);
  // Decode shapes: the query heads of a KV head packed into one tile's
  // rows, and only as many warps as those rows need.
  FailureOr<int64_t> packedOr =
      planPackedHeads(op, overrides, rowsPerWarp * warps);
  if (failed(packedOr))
    return failure();
  int64_t packed = *packedOr;
  int64_t kernelRows =
      q.isDynamicDim(2) ? ShapedType::kDynamic : q.getDimSize(2) * packed;
  bool decodeShaped =
      !ShapedType::isDynamic(kernelRows) && kernelRows < rowsPerWarp * warps;
  if (decodeShaped) {
    // Fewer rows than the prefill block: a memory-bound decode step. 16
    // rows per warp and two buffers, measured on the H200 (B8 H32 Hkv8
    // d128, one row against 32768 keys): 3810 GB/s of KV read against 3509
    // with 32 rows and one buffer (cuDNN 4179); at 131072 keys (B1) 3242
    // against 2793. Two buffers need asynchronous copies; a threshold's
    // query tile sets the rows unless each row is a tile of its own.
    if (!overrides.rowsPerWarp && (!skips || rowWise))
      rowsPerWarp = 16;
    // Three buffers (two tiles in flight) measured 0.96-0.98x of two at
    // every split count (B8 L32768: 3847 GB/s against 3910; B1 L131072:
    // 3445 against 3587).
    if (!overrides.buffers && hooks.supportsAsyncCopy())
      buffers = 2;
    warps = blockSkipWarps ? blockSkipWarps
                           : warpsFor(op, q.getDimSize(3), nvidia, rowsPerWarp,
                                      isF32);
  }
  // A thresholded prefill kernel takes two buffers with TMA tiles where the
  // chip has them (its V still waits for the vote). Measured on the H200
  // in one process (bench/results/blasst/README.md, "Prefill on TMA
  // tiles"; B1 H32 d128, structured keys, against our dense kernel):
  // nothing skipped 0.91-1.01x against 0.88-0.97x with one cp.async
  // buffer, lambda 1e-3 1.22-1.62x against 1.22-1.54x. The dense kernel
  // keeps one buffer: two with TMA measured 0.95-0.99x of it.
  bool skipPrefillTma = skips && !decodeShaped && !overrides.buffers &&
                        overrides.tileCopy != TileCopy::CpAsync &&
                        !whyNotTensorMapTiles(op, target, isF32, /*buffers=*/2,
                                              overrides);
  if (skipPrefillTma)
    buffers = 2;
  // Dense prefill on sm_90a: the scores on warpgroup products, which take
  // 16 rows a warp and two TMA buffers. Measured on the H200 in one run
  // (bench/results/attention_wgmma/README.md; TFLOP/s against the mma.sync
  // kernel of 32 rows a warp and one cp.async buffer): causal 1.16-1.23x
  // at d 128 and 1.17x at d 64, non-causal d 64 1.14x, but non-causal d
  // 128 0.96-0.98x, which keeps mma.sync.
  int64_t headDim = q.getDimSize(3);
  bool warpgroupPrefill =
      target.warpgroupMma && !decodeShaped && !skips && !isF32 &&
      !overrides.rowsPerWarp && !overrides.buffers && !overrides.tileCopy &&
      overrides.warpgroupScores.value_or(true) &&
      (op.getCausal() || headDim <= 64) &&
      !whyNotTensorMapTiles(op, target, isF32, /*buffers=*/2, overrides);
  if (warpgroupPrefill) {
    rowsPerWarp = 16;
    buffers = 2;
    warps = warpsFor(op, headDim, nvidia, rowsPerWarp, isF32);
  }
  warps = decodeWarps(kernelRows, rowsPerWarp, warps);
  AttentionMmaConfig config;
  config.warps = warps;
  config.buffers = buffers;
  config.rowsPerWarp = rowsPerWarp;
  config.f32Precision = strategy->f32Precision;
  // A decode block of several warps copies its tiles through L1: measured
  // on the H200 (B1 H32 Hkv8, 16 rows against 65536 keys, 4 warps) 2835
  // GB/s against 2607 around it, where one-warp blocks lose 6-15% (B8
  // L32768 3717 against 3957) and prefill kernels do not care (0.99-1.01x;
  // bench/results/decode/README.md, "Tiles through L1 in decode blocks of
  // several warps" and "Hardware counters").
  //
  // Where the chip has a tensor-memory accelerator, dense decode takes
  // bulk tensor copies instead (NVVM/TensorMapTiles.h), measured on the
  // H200 in one process (bench/results/decode/gpu_decode_tma.md): B8 H32
  // Hkv8 L32768 4196 GB/s against 3918 by cp.async (cuDNN 4181); B1
  // L131072 3825 against 3594 (cuDNN 3856); 4 causal rows 4160 against
  // 3904; 16 rows in 4-warp blocks 3048 against 2849 through L1. A
  // request for them must be honoured or refused.
  std::optional<std::string> noTensorMap =
      whyNotTensorMapTiles(op, target, isF32, buffers, overrides);
  if (overrides.tileCopy == TileCopy::Tma && noTensorMap)
    return op->emitOpError()
           << "GPU attention mapping copies K/V tiles by TMA only "
           << *noTensorMap;
  config.tensorMapTiles =
      !noTensorMap &&
      (overrides.tileCopy == TileCopy::Tma ||
       (!overrides.tileCopy &&
        (decodeShaped || skipPrefillTma || warpgroupPrefill)));
  config.tilesThroughL1 =
      decodeShaped && warps > 1 && !isF32 && !config.tensorMapTiles;
  // The scores on warpgroup products (sm_90a), where the tiles come by TMA
  // in swizzled boxes, each warp owns 16 rows and the warps make whole
  // warpgroups; decode-shaped blocks keep mma.sync.
  std::optional<std::string> noWarpgroups;
  if (!target.warpgroupMma || isF32)
    noWarpgroups = "on sm_90a with f16 or bf16 inputs";
  else if (!config.tensorMapTiles)
    noWarpgroups = "with K/V tiles by TMA (tile_copy = tma)";
  else if (rowsPerWarp != 16 || warps % 4 != 0)
    noWarpgroups = "with 16 rows per warp in whole warpgroups of 4 warps";
  else if (decodeShaped)
    noWarpgroups = "in prefill-shaped kernels";
  if (overrides.warpgroupScores == true && noWarpgroups)
    return op->emitOpError()
           << "asks for mma wgmma.m64nNk16, which the GPU attention mapping "
              "runs only "
           << *noWarpgroups;
  config.warpgroupScores =
      !noWarpgroups && overrides.warpgroupScores.value_or(true);
  std::unique_ptr<AttentionMma> mma =
      hooks.makeAttentionMma(rewriter, loc, op, config);
  // Nk and Hkv through AttentionShape: paged keys hold them elsewhere.
  auto size = [&](AttentionDim d) {
    return getValueOrCreateConstantIndexOp(rewriter, loc,
                                           getAttentionSize(rewriter, op, d));
  };
  Value nq = dim(op.getQuery(), 2), nk = size(AttentionDim::Nk);
  Value heads = dim(op.getQuery(), 1), kvHeads = size(AttentionDim::Hkv);
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<MemRefType> tileTypes = mma->tileBuffers(workgroup);
  bool flagWords = (skips || op.hasUnifiedMax()) && !mma->reducesAtBarrier();
  // A block-wide tile's counts take a second vote (whether some row sees
  // the tile), with its own two words.
  if (flagWords)
    tileTypes.push_back(MemRefType::get(
        {blockSkipWarps && op.getSkipCounts() ? 4 : 2}, rewriter.getI32Type(),
        MemRefLayoutAttrInterface(), workgroup));
  SmallVector<int64_t> tileBytes;
  for (MemRefType t : tileTypes)
    tileBytes.push_back(t.getNumElements() * t.getElementTypeBitWidth() / 8);
  int64_t bytes =
      std::accumulate(tileBytes.begin(), tileBytes.end(), int64_t(0));
  // Swizzled boxes land at 1024-byte boundaries of the pool, whose start
  // only the kernel knows.
  if (mma->tileAlignment() > 16)
    bytes += mma->tileAlignment();
  if (bytes > target.maxSharedMemoryPerBlock)
    return op->emitOpError()
           << "GPU attention mapping needs " << bytes
           << " bytes of shared memory per block for these head dimensions; "
           << target.chip << " has " << target.maxSharedMemoryPerBlock
           << (skips && rowsPerWarp == 32
                   ? " (the skip tile [32, 64] sets 32 rows per warp; "
                     "[16, 64] halves the queries' share)"
                   : "");
  // Above 48 KiB a kernel's shared memory must be dynamic (the launch opts
  // in); below, static buffers keep the kernel self-contained.
  bool dynamic = bytes > 48 * 1024 || config.tensorMapTiles;

  // Packed heads read through views of the query, output and lse; split
  // keys of each tile go to blocks that write f32 partials for a second
  // kernel to merge.
  int64_t blockRows = mma->rowsPerWarp() * warps;
  FailureOr<int64_t> splitsOr = planKeySplits(
      op, target, overrides, packed, blockRows, warps * mma->lanes(), bytes);
  if (failed(splitsOr))
    return failure();
  int64_t splits = *splitsOr;
  // Stream-K replaces the split: chunks of the batch's key tiles.
  FailureOr<int64_t> streamOr = planStreamK(
      op, target, overrides, packed, blockRows, warps * mma->lanes(), bytes);
  if (failed(streamOr))
    return failure();
  StreamKSchedule schedule;
  schedule.chunks = *streamOr;
  bool streamK = schedule.chunks > 0;
  if (streamK)
    splits = 1;
  bool partials = splits > 1 || streamK;
  Value query = op.getQuery(), output = op.getOutput(), lse = op.getLse();
  Value queryRows = nq;
  if (packed > 1) {
    query = packQueryHeads(rewriter, loc, query, packed);
    output = packQueryHeads(rewriter, loc, output, packed);
    if (lse)
      lse = packQueryHeads(rewriter, loc, lse, packed);
    heads = dim(query, 1);
    nq = dim(query, 2);
  }
  Value tiles =
      arith::CeilDivUIOp::create(rewriter, loc, nq, ix.idx(blockRows));
  Type tokenType;
  Value token, partO, partLse;
  if (partials) {
    // The partials [B splits, H, Nq(, Dv)] (stream-K: [B + chunks, ...]),
    // f32, allocated in stream order before the two kernels and freed
    // after them.
    tokenType = gpu::AsyncTokenType::get(rewriter.getContext());
    token = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{})
                .getAsyncToken();
    Value parts = streamK ? ix.add(dim(query, 0), ix.idx(schedule.chunks))
                          : ix.mul(dim(query, 0), ix.idx(splits));
    int64_t dvStatic = v.getDimSize(3);
    int64_t dyn = ShapedType::kDynamic;
    auto allocO = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({dyn, dyn, dyn, dvStatic}, rewriter.getF32Type()),
        tokenType, ValueRange{token}, ValueRange{parts, heads, nq},
        ValueRange{});
    auto allocLse = gpu::AllocOp::create(
        rewriter, loc, MemRefType::get({dyn, dyn, dyn}, rewriter.getF32Type()),
        tokenType, ValueRange{allocO.getAsyncToken()},
        ValueRange{parts, heads, nq}, ValueRange{});
    token = allocLse.getAsyncToken();
    partO = allocO.getMemref();
    partLse = allocLse.getMemref();
  }
  if (streamK) {
    // The schedule: a small kernel writes each entry's first key tile.
    auto alloc = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI32Type()),
        tokenType, ValueRange{token},
        ValueRange{ix.add(dim(query, 0), ix.idx(1))}, ValueRange{});
    schedule.tileStarts = alloc.getMemref();
    token = buildTileStarts(rewriter, loc, op, nk, dim(query, 0), schedule,
                            alloc.getAsyncToken());
  }
  mma->setQueryAndOutput(query, partials ? partO : output);
  mma->prepareHost();

  // The kernel copies Q, K and V 16 bytes at a time and stores O in
  // aligned runs.
  assertAligned16(rewriter, loc,
                  {op.getQuery(), op.getKey(), op.getValue(), op.getOutput()},
                  "softmax.attention on the GPU needs query, key, value "
                  "and output buffers aligned to 16 bytes");
  Value one = ix.idx(1);
  SmallVector<Type> attributions;
  if (!dynamic)
    attributions.assign(tileTypes.begin(), tileTypes.end());
  Value dynamicBytes;
  if (dynamic)
    dynamicBytes = arith::ConstantIntOp::create(rewriter, loc, bytes, 32);
  if (Value counts = op.getSkipCounts()) {
    // The blocks add their pairs to the counts: a one-thread kernel on the
    // same stream zeroes them first.
    auto zeroing =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&zeroing.getBody().front());
    Value c0 = arith::ConstantIntOp::create(rewriter, loc, 0, 64);
    for (int64_t i = 0; i < 2; ++i)
      memref::StoreOp::create(rewriter, loc, c0, counts, ValueRange{ix.idx(i)});
    gpu::TerminatorOp::create(rewriter, loc);
  }
  Value gridX = streamK      ? ix.idx(schedule.chunks)
                : splits > 1 ? ix.mul(tiles, ix.idx(splits))
                             : tiles;
  // A unified max runs two kernels (AttentionKernel::build says why) with
  // a flag per block between them, allocated in stream order.
  bool unified = op.hasUnifiedMax();
  Value redoFlags;
  if (unified) {
    tokenType = gpu::AsyncTokenType::get(rewriter.getContext());
    if (!token)
      token = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{})
                  .getAsyncToken();
    Value blocks = ix.mul(gridX, ix.mul(heads, dim(op.getQuery(), 0)));
    auto alloc = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI32Type()),
        tokenType, ValueRange{token}, ValueRange{blocks}, ValueRange{});
    token = alloc.getAsyncToken();
    redoFlags = alloc.getMemref();
  }
  auto buildLaunch = [&](AttentionMma &unit,
                         std::optional<AttentionKernel::UnifiedPass> pass) {
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, gridX, heads, streamK ? one : dim(op.getQuery(), 0),
        ix.idx(warps * unit.lanes()), one, one, dynamicBytes, tokenType,
        token ? ValueRange{token} : ValueRange{}, attributions);
    launch->setAttr(
        SoftmaxDialect::getStrategyAttrName(),
        AttentionGPUStrategyAttr::get(
            rewriter.getContext(),
            config.warpgroupScores
                ? MatrixInstruction::WgmmaM64nNk16
                : getAttentionMatrixInstruction(target, elt,
                                                strategy->f32Precision),
            unit.rowsPerWarp(), blockRows, kKeysPerTile, unit.stages(), splits,
            packed,
            streamK ? std::optional<int64_t>(schedule.chunks) : std::nullopt,
            config.tensorMapTiles ? std::optional(TileCopy::Tma)
                                  : std::nullopt));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    SmallVector<Value> smem(launch.getWorkgroupAttributions());
    if (dynamic) {
      // Both tiles as views of the dynamic pool, V after K.
      SmallVector<Value> views = viewDynamicSharedMemory(
          rewriter, loc, tileTypes,
          mma->tileAlignment());
      smem.append(views.begin(), views.end());
    }
    AttentionKernel kernel(rewriter, loc, op, *scale, unit, warps, nq, nk,
                           heads, kvHeads);
    if (flagWords)
      kernel.setFlags(smem.back());
    kernel.setRowWiseSkip(rowWise);
    kernel.setBlockWideSkip(blockSkipWarps != 0);
    // Measured on the H200 (B8 H32 Hkv8 L32768 one row, peak-16
    // structured keys): the thresholded kernel 0.81x of dense with nothing
    // skipped when it waited for V with K, 0.86x with the waits apart
    // (B1 L131072: 0.86x, 0.97x); the dense kernel 0.99x with them apart
    // (the extra barrier), so it keeps one wait.
    kernel.setOverlapValues(decodeShaped && skips);
    if (packed > 1)
      kernel.setPackedRows(queryRows, lse);
    if (splits > 1)
      kernel.setKeySplits(splits, partLse);
    if (streamK)
      kernel.setStreamK(schedule, dim(op.getQuery(), 0), partLse);
    if (pass)
      kernel.setUnifiedPass(*pass, redoFlags);
    kernel.build(launch, smem);
    gpu::TerminatorOp::create(rewriter, loc);
    return launch;
  };
  using Pass = AttentionKernel::UnifiedPass;
  gpu::LaunchOp launch =
      buildLaunch(*mma, unified ? std::optional(Pass::AtPhi) : std::nullopt);
  if (unified) {
    // The second kernel's own matrix unit: an AttentionMma keeps the state
    // of the kernel it builds.
    std::unique_ptr<AttentionMma> again =
        hooks.makeAttentionMma(rewriter, loc, op, config);
    again->setQueryAndOutput(query, partials ? partO : output);
    again->prepareHost();
    token = launch.getAsyncToken();
    launch = buildLaunch(*again, Pass::Fallback);
    token =
        gpu::DeallocOp::create(rewriter, loc, tokenType,
                               ValueRange{launch.getAsyncToken()}, redoFlags)
            .getAsyncToken();
    if (splits == 1)
      gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{token});
  }
  if (partials) {
    token = buildPartialMerge(rewriter, loc, op, partO, partLse, output, lse,
                              splits, unified ? token : launch.getAsyncToken(),
                              streamK ? &schedule : nullptr);
    SmallVector<Value> buffers = {partO, partLse};
    if (streamK)
      buffers.push_back(schedule.tileStarts);
    for (Value buffer : buffers)
      token = gpu::DeallocOp::create(rewriter, loc, tokenType,
                                     ValueRange{token}, buffer)
                  .getAsyncToken();
    gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{token});
  }
  rewriter.eraseOp(op);
  return success();
}
