//===- AttentionDecode.cpp - split-KV and GQA packing of the GPU kernel ---===//
//
// A decode step has 1-16 query rows per (batch, head) against thousands of
// keys: one block per query tile leaves most multiprocessors idle and
// stages every KV tile once per query head. Packing gives the query heads
// of a KV head one tile; splitting gives each tile's keys to several
// blocks, whose partials a second kernel merges; stream-K gives every
// block an equal run of the whole batch's key tiles. The split follows the
// one rule of the IR split (getAttentionKeySplitRange, chooseKeySplits),
// the merge the state algebra (StateMath).
//
//===----------------------------------------------------------------------===//

#include "AttentionDecode.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/AttentionMma.h"
#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

bool mlir::softmax::detail::skipsRowWise(AttentionOp op) {
  if (!op.hasSkipThreshold())
    return false;
  auto q = cast<MemRefType>(op.getQuery().getType());
  return op.getSkipQueryRows() == 1 ||
         (!q.isDynamicDim(2) && q.getDimSize(2) == 1);
}

/// Why `op` cannot have its query heads packed, or std::nullopt.
static std::optional<std::string> whyNotPackable(AttentionOp op) {
  auto q = cast<MemRefType>(op.getQuery().getType());
  if (q.isDynamicDim(1) || !getStaticAttentionSize(op, AttentionDim::Hkv))
    return "dynamic query or KV head counts";
  if (op.getMask())
    return "a mask operand (its rows belong to one head each)";
  if (op.getWindow())
    return "a window";
  if (op.hasSkipThreshold() && !skipsRowWise(op))
    return "a skip threshold whose query tiles hold several rows of one head "
           "(tile [1, 64], or one query row, packs)";
  return std::nullopt;
}

FailureOr<int64_t> mlir::softmax::detail::planPackedHeads(
    AttentionOp op, const AttentionGPUStrategy &overrides, int64_t blockRows) {
  auto q = cast<MemRefType>(op.getQuery().getType());
  std::optional<std::string> noPack = whyNotPackable(op);
  int64_t group =
      noPack ? 1
             : q.getDimSize(1) /
                   std::max<int64_t>(
                       *getStaticAttentionSize(op, AttentionDim::Hkv), 1);
  int64_t p = overrides.packedHeads;
  if (p > 1) {
    if (noPack)
      return op.emitOpError() << "GPU attention mapping packs query heads ("
                              << p << " asked for) only without " << *noPack;
    if (group % p)
      return op.emitOpError() << "packed heads (" << p << ") must divide the "
                              << group << " query heads of each KV head";
    return p;
  }
  // Fewer query rows than a block holds: the heads of a KV head fill it,
  // and each staged K/V tile serves all of them.
  if (p == 0 && group > 1 && !q.isDynamicDim(2) && q.getDimSize(2) < blockRows)
    return group;
  return 1;
}

int64_t mlir::softmax::detail::decodeWarps(int64_t rows, int64_t rowsPerWarp,
                                           int64_t warps) {
  if (ShapedType::isDynamic(rows) || rows >= rowsPerWarp * warps)
    return warps;
  return std::clamp<int64_t>(
      llvm::divideCeil(std::max<int64_t>(rows, 1), rowsPerWarp), 1, warps);
}

/// The blocks of `threads` threads and `smemBytes` of shared memory one
/// multiprocessor holds at once: what it has of the shared memory (the
/// per-block opt-in limit stands for the multiprocessor's 228 KiB on
/// sm_90) and of its registers (64K per multiprocessor; ptxas gives the
/// d 128 kernels all 255 a thread may have).
static int64_t residentBlocks(const GPUTarget &target, int64_t threads,
                              int64_t smemBytes) {
  int64_t bySmem = target.maxSharedMemoryPerBlock / smemBytes;
  int64_t byRegisters = 65536 / (256 * threads);
  return std::max<int64_t>(1, std::min(bySmem, byRegisters));
}

/// The split count of a decode kernel of `blocks` blocks over `keys` keys,
/// on `sms` multiprocessors holding `resident` blocks each: the fewest
/// splits within 2% of the cheapest, where a split count costs the busiest
/// multiprocessor's time. It runs ceil(blocks S / sms) blocks of
/// ceil(keys / S) keys in waves of at most `resident`; a wave of k >= 2
/// blocks reads at the multiprocessor's rate, a lone block at 0.6 of it,
/// and a block adds about 2 tiles of prologue and epilogue. Fitted on the
/// H200 (bench/results/decode/gpu_decode_sweep.md, d 128, two buffers):
/// B8 H32 Hkv8 L32768 read 3905 GB/s in 256 blocks (2 a multiprocessor),
/// 2920 in 448 (3 and one more alone: the 0.6), 3641-3782 in 768-1536 (the
/// prologues); the model picks each sweep's best split count for B8 L32768
/// and B1 L131072, and 2 splits (3839; best 3, 3960) for B64 at 8704 keys.
/// A model of block slots (the fewest splits within 85% of the best last
/// wave over 396 slots) took 6 (3812) and 43 (3250, the best 3448).
static int64_t chooseDecodeKeySplits(int64_t blocks, int64_t keys, int64_t sms,
                                     int64_t resident,
                                     const AttentionKeySplitModel &model) {
  if (blocks <= 0 || sms < 1)
    return 1;
  int64_t most =
      std::clamp<int64_t>(keys / model.minKeysPerSplit, 1, model.maxSplits);
  auto cost = [&](int64_t s) {
    int64_t perSm = llvm::divideCeil(blocks * s, sms);
    double waves = 0;
    for (int64_t left = perSm; left > 0; left -= resident) {
      int64_t k = std::min(left, resident);
      waves += k >= 2 ? double(k) : double(k) / 0.6;
    }
    int64_t tiles = llvm::divideCeil(llvm::divideCeil(keys, s), kKeysPerTile);
    return waves * double(tiles + 2);
  };
  double best = cost(1);
  for (int64_t s = 2; s <= most; ++s)
    best = std::min(best, cost(s));
  for (int64_t s = 1; s <= most; ++s)
    if (cost(s) <= 1.02 * best)
      return s;
  return most;
}

FailureOr<int64_t>
mlir::softmax::detail::planKeySplits(AttentionOp op, const GPUTarget &target,
                                     const AttentionGPUStrategy &overrides,
                                     int64_t packed, int64_t blockRows,
                                     int64_t threads, int64_t smemBytes) {
  auto q = cast<MemRefType>(op.getQuery().getType());
  std::optional<int64_t> keys = getStaticAttentionSize(op, AttentionDim::Nk);
  int64_t s = overrides.keySplits;
  if (s > 1 && op.getWindow())
    return op.emitOpError("GPU attention mapping does not split the keys of "
                          "a windowed attention: a split's window would "
                          "depend on its keys' global positions");
  // A thresholded op splits as softmax-split-attention-keys splits it: each
  // split's block folds its key tiles from the split's first key (so that
  // tile is never skipped), lambda counts all the op's keys, and the
  // blocks add their pairs to the counts.
  if (s > 0)
    return s;
  if (op.getWindow() || !q.hasStaticShape() || !keys)
    return 1;
  int64_t nq = q.getDimSize(2) * packed;
  int64_t blocks = q.getDimSize(0) * (q.getDimSize(1) / packed) *
                   llvm::divideCeil(nq, blockRows);
  AttentionKeySplitModel model;
  int64_t resident = residentBlocks(target, threads, smemBytes);
  model.parallelUnits = target.multiprocessors * resident;
  model.rowsPerBlock = blockRows;
  s = chooseDecodeKeySplits(blocks, *keys, target.multiprocessors, resident,
                            model);
  // Ragged entries (key_lengths) give blocks of unequal work, which finer
  // splits balance where stream-K is not taken (planStreamK replaces the
  // split otherwise): at least 8 waves, still 256 keys a split or more.
  // Measured on the H200 (B 64, H 32, Hkv 8, lengths 1024-16384): 3469
  // GB/s at the wave model's 2 splits, 3775 at 8; paged 3153 and 3556
  // (bench/results/decode/gpu_ragged.md).
  if (op.hasKeyLengths()) {
    int64_t most =
        std::clamp<int64_t>(*keys / model.minKeysPerSplit, 1, model.maxSplits);
    s = std::max(s,
                 std::min<int64_t>(
                     most, llvm::divideCeil(8 * model.parallelUnits, blocks)));
  }
  // Under causal a split holds at least Nq - 1 keys.
  if (op.getCausal() && q.getDimSize(2) > 1)
    s = std::clamp<int64_t>(*keys / (q.getDimSize(2) - 1), 1, s);
  return s;
}

/// Why `op` cannot run stream-K with `packed` heads per tile and blocks of
/// `blockRows` query rows, or std::nullopt.
static std::optional<std::string> whyNotStreamK(AttentionOp op, int64_t packed,
                                                int64_t blockRows) {
  auto q = cast<MemRefType>(op.getQuery().getType());
  if (op.getWindow())
    return "a window (its limits follow the keys' global positions)";
  if (op.hasSkipThreshold())
    return "a skip threshold";
  if (op.hasUnifiedMax())
    return "a unified max";
  if (q.isDynamicDim(2) || q.getDimSize(2) * packed > blockRows)
    return "more query rows than one block holds (a chunk is a run of key "
           "tiles of one query tile)";
  if (op.getCausal() && q.getDimSize(2) > 1)
    return "causal with more than one query row (a piece would need the "
           "diagonal of its entry's last keys)";
  if (q.isDynamicDim(1))
    return "a dynamic head count";
  return std::nullopt;
}

FailureOr<int64_t>
mlir::softmax::detail::planStreamK(AttentionOp op, const GPUTarget &target,
                                   const AttentionGPUStrategy &overrides,
                                   int64_t packed, int64_t blockRows,
                                   int64_t threads, int64_t smemBytes) {
  std::optional<std::string> why = whyNotStreamK(op, packed, blockRows);
  if (int64_t p = overrides.streamK) {
    if (overrides.keySplits)
      return op.emitOpError() << "GPU attention mapping takes stream-K (" << p
                              << " blocks per head group) or a key split ("
                              << overrides.keySplits << "), not both";
    if (why)
      return op.emitOpError()
             << "GPU attention mapping runs stream-K only without " << *why;
    return p;
  }
  if (overrides.keySplits || why || !op.hasKeyLengths())
    return 0;
  // One wave: as many blocks as the multiprocessors hold at once, over
  // the head groups. Measured on the H200 (B 64, H 32, Hkv 8, lengths
  // 1024-16384, d 128, 3 resident; bench/results/decode/gpu_ragged.md):
  // 49 chunks (392 blocks) read 3937 GB/s ragged, 3856 paged, 3824 with
  // pages of 16; 33 (2 a multiprocessor) 3889, 3518, 3332; 66 (past one
  // wave) 3220; 17 (one block alone) 2594. Chunks of a whole batch are
  // long enough that a block's prologue is a few tiles of hundreds.
  auto q = cast<MemRefType>(op.getQuery().getType());
  int64_t groups = std::max<int64_t>(q.getDimSize(1) / packed, 1);
  int64_t slots =
      residentBlocks(target, threads, smemBytes) * target.multiprocessors;
  int64_t chunks = std::max<int64_t>(1, slots / groups);
  // No more chunks than the cache has tiles.
  std::optional<int64_t> keys = getStaticAttentionSize(op, AttentionDim::Nk);
  if (keys && !q.isDynamicDim(0))
    chunks = std::min(
        chunks,
        std::max<int64_t>(1, q.getDimSize(0) *
                                 llvm::divideCeil(*keys, kKeysPerTile)));
  return chunks;
}

Value StreamKSchedule::chunkTiles(OpBuilder &b, Location loc,
                                  Value total) const {
  IndexArith ix(b, loc);
  Value c = arith::CeilDivUIOp::create(b, loc, total, ix.idx(chunks));
  return ix.maxI(c, ix.idx(1));
}

Value StreamKSchedule::tilesBefore(OpBuilder &b, Location loc,
                                   Value entry) const {
  Value v = memref::LoadOp::create(b, loc, tileStarts, ValueRange{entry});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value mlir::softmax::detail::buildTileStarts(OpBuilder &b, Location loc,
                                             AttentionOp op, Value keys,
                                             Value batch,
                                             const StreamKSchedule &schedule,
                                             Value token) {
  IndexArith ix(b, loc);
  constexpr int64_t threads = 128;
  Value entries = ix.add(batch, ix.idx(1));
  Value one = ix.idx(1);
  auto launch = gpu::LaunchOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, entries, ix.idx(threads)), one,
      one, ix.idx(threads), one, one,
      /*dynamicSharedMemorySize=*/nullptr,
      gpu::AsyncTokenType::get(b.getContext()), ValueRange{token});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value entry = ix.add(ix.mul(launch.getBlockIds().x, ix.idx(threads)),
                       launch.getThreadIds().x);
  auto inRange = scf::IfOp::create(
      b, loc, ix.cmp(arith::CmpIPredicate::ult, entry, entries),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(&inRange.getThenRegion().front());
  // 8 lengths an iteration, loaded before any is added (the loop is bound
  // by their latency); one past the entry counts 0.
  constexpr int64_t unroll = 8;
  Value last = ix.sub(entry, one);
  auto sum = scf::ForOp::create(
      b, loc, ix.idx(0), entry, ix.idx(unroll), ValueRange{ix.idx(0)},
      [&](OpBuilder &nb, Location l, Value e, ValueRange acc) {
        IndexArith lx(nb, l);
        SmallVector<Value> tiles;
        for (int64_t u = 0; u < unroll; ++u) {
          Value i = lx.add(e, lx.idx(u));
          Value len = loadKeyCount(nb, l, op, lx.minI(i, last), keys);
          Value t = arith::CeilDivUIOp::create(nb, l, len, lx.idx(kKeysPerTile));
          tiles.push_back(arith::SelectOp::create(
              nb, l, lx.cmp(arith::CmpIPredicate::ult, i, entry), t,
              lx.idx(0)));
        }
        Value total = acc[0];
        for (Value t : tiles)
          total = lx.add(total, t);
        scf::YieldOp::create(nb, l, ValueRange{total});
      });
  Value total =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), sum.getResult(0));
  memref::StoreOp::create(b, loc, total, schedule.tileStarts,
                          ValueRange{entry});
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  return launch.getAsyncToken();
}

Value mlir::softmax::detail::packQueryHeads(OpBuilder &b, Location loc,
                                            Value buffer, int64_t packed) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  ArrayRef<int64_t> shape = type.getShape();
  // [B, H, Nq, rest] -> [B, H / p, p, Nq, rest] -> [B, H / p, p Nq, rest].
  SmallVector<int64_t> expanded = {shape[0], shape[1] / packed, packed};
  SmallVector<OpFoldResult> sizes = {memref::getMixedSize(b, loc, buffer, 0),
                                     b.getIndexAttr(shape[1] / packed),
                                     b.getIndexAttr(packed)};
  SmallVector<ReassociationIndices> expand = {{0}, {1, 2}};
  SmallVector<ReassociationIndices> collapse = {{0}, {1}, {2, 3}};
  for (int64_t i = 2; i < rank; ++i) {
    expanded.push_back(shape[i]);
    sizes.push_back(memref::getMixedSize(b, loc, buffer, i));
    expand.push_back({i + 1});
    if (i > 2)
      collapse.push_back({i + 1});
  }
  Value view = memref::ExpandShapeOp::create(
      b, loc, MemRefType::get(expanded, type.getElementType()), buffer, expand,
      sizes);
  return memref::CollapseShapeOp::create(b, loc, view, collapse);
}

Value mlir::softmax::detail::buildPartialMerge(
    OpBuilder &b, Location loc, AttentionOp op, Value partO, Value partLse,
    Value out, Value lse, int64_t splits, Value token,
    const StreamKSchedule *schedule) {
  IndexArith ix(b, loc);
  auto dim = [&](Value v, int64_t i) -> Value {
    return memref::DimOp::create(b, loc, v, i);
  };
  int64_t dv = cast<MemRefType>(out.getType()).getDimSize(3);
  Type tokenType = gpu::AsyncTokenType::get(b.getContext());
  Value one = ix.idx(1);
  // A block per row, a thread per value column.
  auto launch = gpu::LaunchOp::create(
      b, loc, dim(out, 2), dim(out, 1), dim(out, 0), ix.idx(dv), one, one,
      /*dynamicSharedMemorySize=*/nullptr, tokenType, ValueRange{token});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value row = launch.getBlockIds().x, head = launch.getBlockIds().y,
        batch = launch.getBlockIds().z, col = launch.getThreadIds().x;
  FloatType f32 = b.getF32Type();
  StateMath sm(b, loc, f32);
  // Partial rows [first, first + count) of the row's (batch, head).
  Value first = ix.mul(batch, ix.idx(splits)), count = ix.idx(splits);
  if (schedule) {
    // Entry b's tiles [s0, s1) cross chunks s0 / C to ceil(s1 / C) - 1,
    // none when s0 = s1; its piece of chunk p is row b + p.
    Value c = schedule->chunkTiles(b, loc,
                                   schedule->tilesBefore(b, loc, dim(out, 0)));
    Value s0 = schedule->tilesBefore(b, loc, batch);
    Value s1 = schedule->tilesBefore(b, loc, ix.add(batch, one));
    Value p0 = arith::DivUIOp::create(b, loc, s0, c);
    Value p1 = arith::CeilDivUIOp::create(b, loc, s1, c);
    first = ix.add(batch, p0);
    count = arith::SelectOp::create(b, loc,
                                    ix.cmp(arith::CmpIPredicate::ugt, s1, s0),
                                    ix.sub(p1, p0), ix.idx(0));
  }
  SmallVector<Value> init = {sm.identityOffset(), sm.identitySum(),
                             sm.cst(0.0)};
  // `unroll` partials per iteration, all loaded before any is merged: the
  // loop is bound by the loads' latency, not the merge's math. Measured on
  // the H200 (B1 H32 Hkv8 L131072, 32 splits): one partial an iteration
  // took 10.2 us of the call's 143. A partial past the count is the
  // identity (lse -inf, O 0).
  int64_t unroll = schedule ? 4 : std::clamp<int64_t>(splits, 1, 8);
  Value last = ix.sub(count, one);
  auto loop = scf::ForOp::create(
      b, loc, ix.idx(0), count, ix.idx(unroll), init,
      [&](OpBuilder &nb, Location l, Value s, ValueRange st) {
        StateMath lm(nb, l, f32);
        IndexArith lx(nb, l);
        SmallVector<std::pair<Value, Value>> parts;
        for (int64_t u = 0; u < unroll; ++u) {
          Value i = lx.add(s, lx.idx(u));
          Value part = lx.add(first, lx.minI(i, last));
          Value valid = lx.cmp(arith::CmpIPredicate::ult, i, count);
          Value partLseValue = memref::LoadOp::create(
              nb, l, partLse, ValueRange{part, head, row});
          Value o = memref::LoadOp::create(nb, l, partO,
                                           ValueRange{part, head, row, col});
          parts.push_back(
              {lm.select(valid, partLseValue, lm.negInf()),
               lm.select(valid, o, lm.cst(0.0))});
        }
        SmallVector<Value> state(st);
        for (auto [partLseValue, o] : parts) {
          auto [m, sum] = lm.stateOfLse(partLseValue);
          // exp2((m_i - M) log2 e): one ex2.approx each, where math.exp is
          // libdevice's expf, 11 instructions.
          StateMath::MergeScales scales = lm.infSafeMergeScales(
              StateKind::Max, state[0], m, ExpUnits::Log2Scaled);
          state = {scales.offset, lm.mergeSums(scales, state[1], sum),
                   lm.mergeSums(scales, state[2], o)};
        }
        scf::YieldOp::create(nb, l, state);
      });
  Value m = loop.getResult(0), l = loop.getResult(1), acc = loop.getResult(2);
  MaskedRows masked = op.getMasked();
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  Value y = sm.maskRow(masked, /*probability=*/true, l, sm.div(acc, l));
  memref::StoreOp::create(b, loc, sm.fromAcc(y, outElt), out,
                          ValueRange{batch, head, row, col});
  if (lse) {
    auto leader = scf::IfOp::create(
        b, loc, ix.cmp(arith::CmpIPredicate::eq, col, ix.idx(0)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(&leader.getThenRegion().front());
    memref::StoreOp::create(b, loc, sm.lse(StateKind::Max, masked, m, l), lse,
                            ValueRange{batch, head, row});
  }
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  return launch.getAsyncToken();
}
