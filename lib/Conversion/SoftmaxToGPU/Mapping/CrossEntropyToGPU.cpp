//===- CrossEntropyToGPU.cpp - softmax.linear_cross_entropy -> gpu.launch -===//
//
// Cut Cross-Entropy's forward (arXiv 2411.09009) in three kernels, the
// N x V logits never in memory:
//
// 1. Logit tiles. A block owns `blockRows` tokens and one of `splits`
//    contiguous ranges of the classes. For each tile of `blockCols`
//    classes it multiplies hidden by the classifier's rows on the matrix
//    unit (TileMma: the inner dimension in slices staged in shared memory,
//    the next slice copied while the current one is multiplied, across
//    class tiles too), then folds the tile's logits (bias, softcap, -inf
//    past V) into each lane's online state (m, l) per row (StateFold, log2
//    units) and picks out the target's logit where its class is in the
//    tile. At the end the lanes and warps of a row merge their states, and
//    the block writes the split's lse and target logit per token.
// 2. Finish: a thread per token merges the splits' lse (softmax.merge's
//    rule, through StateMath), and writes lse and the loss lse - z_t +
//    c lse^2 (0 for an ignored token, NaN for a target out of range).
// 3. For sum and mean, one block adds the losses and the kept tokens.
//
// The workspace is two [splits, N] f32 buffers (and two [N] for a
// reduction): 0.4 MiB at N 8192 with 6 splits. docs/CrossEntropy.md, "GPU
// kernel".
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

#include "CrossEntropyGPU.h"
#include "SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"


using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

/// Blocks of the logit kernel one multiprocessor holds: its threads keep
/// about 240 registers each (ptxas, bf16 at 64 x 64 accumulators a warp),
/// of the 64K a multiprocessor has, and its shared memory (a block's
/// limit stands for the multiprocessor's: 227 of 228 KiB on sm_90, all 64
/// KiB of LDS on CDNA).
int64_t blocksPerMultiprocessor(const TileMmaConfig &mma, int64_t lanes,
                                int64_t smemBytes, const GPUTarget &target) {
  int64_t byRegisters = 65536 / (mma.warps() * lanes * 256);
  int64_t bySmem =
      target.maxSharedMemoryPerBlock / std::max<int64_t>(smemBytes, 1);
  return std::max<int64_t>(1, std::min(byRegisters, bySmem));
}

/// The plan of one linear cross-entropy forward (docs/CrossEntropy.md).
struct CrossEntropyPlan {
  TileMmaConfig mma;
  /// Contiguous ranges of class tiles, one per block row of the grid; 0:
  /// chosen on the device from the token count (unknown at compile time).
  int64_t splits = 1;
  /// Whether the inner dimension needs a bound (D % kTile != 0).
  bool boundInner = false;
};

/// The splits whose busiest multiprocessor has the least to do. A block
/// takes ceil(class tiles / splits) tiles (the last range fewer, and
/// ranges past the class tiles none), and the blocks spread evenly over the
/// multiprocessors, so the busiest holds ceil(blocks / multiprocessors)
/// full ranges. Counting only blocks would pick 250 splits for 16 tokens of
/// V 128256 (501 tiles): ranges of 3 tiles in 167 blocks, 35
/// multiprocessors with two of them, 0.63 of an even spread; ranges of 2
/// in 251 blocks give 0.95. Of the plans within 5% of the best, the most
/// blocks that are all resident at once (more copies in flight for few
/// tokens), else the fewest. With an unknown token count, 0: the host code
/// takes enough for one wave once it knows the count (runtimeVocabSplits).
int64_t chooseVocabSplits(int64_t tokens, int64_t classes,
                          const TileMmaConfig &mma, const GPUTarget &target,
                          int64_t perMultiprocessor) {
  int64_t sms = target.multiprocessors;
  int64_t slots = perMultiprocessor * sms;
  if (ShapedType::isDynamic(tokens))
    return 0;
  int64_t tokenTiles =
      std::max<int64_t>(1, llvm::divideCeil(tokens, mma.blockRows()));
  // An unknown class count: one wave of resident blocks.
  if (ShapedType::isDynamic(classes))
    return std::max<int64_t>(1, llvm::divideCeil(slots, tokenTiles));
  int64_t classTiles =
      std::max<int64_t>(1, llvm::divideCeil(classes, mma.blockCols()));
  int64_t most = std::min(classTiles, 4 * slots);
  struct Plan {
    int64_t splits, blocks;
    double spread;
  };
  SmallVector<Plan> plans;
  double best = 0;
  for (int64_t splits = 1; splits <= most; ++splits) {
    // Fewer splits give the same ranges without the empty ones.
    int64_t per = llvm::divideCeil(classTiles, splits);
    if (static_cast<int64_t>(llvm::divideCeil(classTiles, per)) != splits)
      continue;
    int64_t blocks = tokenTiles * splits;
    double spread = static_cast<double>(tokenTiles * classTiles) /
                    (sms * llvm::divideCeil(blocks, sms) * per);
    plans.push_back({splits, blocks, spread});
    best = std::max(best, spread);
  }
  // The plans come by growing block counts.
  const Plan *pick = nullptr;
  for (const Plan &p : plans) {
    if (p.spread < best - 0.05)
      continue;
    if (!pick || p.blocks <= slots)
      pick = &p;
  }
  return pick->splits;
}

/// On the host, for a token count known only at run time: ceil(slots /
/// token tiles) ranges, at least 1 and at most the class tiles.
Value runtimeVocabSplits(OpBuilder &b, Location loc, Value tokenTiles,
                         Value classTiles, int64_t slots) {
  IndexArith ix(b, loc);
  Value s = arith::CeilDivUIOp::create(b, loc, ix.idx(slots), tokenTiles);
  return ix.maxI(ix.minI(s, classTiles), ix.idx(1));
}

class LogitTileKernel : IndexArith {
public:
  LogitTileKernel(OpBuilder &b, Location loc, LinearCrossEntropyOp op,
                  TileMma &mma, const CrossEntropyPlan &plan, Value splits,
                  Value lsePart, Value targetPart)
      : IndexArith(b, loc), op(op), mma(mma), plan(plan), c(plan.mma),
        splits(splits), lsePart(lsePart), targetPart(targetPart) {}

  /// `smem`: the operands' tiles (TileMma::tileBuffers), then three
  /// [warpsN, blockRows] f32 buffers for the warps' merge.
  void build(gpu::LaunchOp launch, ArrayRef<Value> smem);

private:
  /// The tile's logits folded into the lane's states `st` (m, l and the
  /// target's logit, per slot).
  SmallVector<Value> fold(Value classTile, ArrayRef<Value> acc, ValueRange st);
  /// Each row's largest logit of the tile `xs` (past V -inf) into
  /// class_max: the tile is the group (classTile), its lanes of a row
  /// joined by shuffles, one of them storing.
  void storeClassMax(Value classTile, ArrayRef<Value> xs);
  /// The lanes, then the warps, of each row merged; the split's lse and
  /// target logit written.
  void mergeAndStore(ArrayRef<Value> st, ArrayRef<Value> smem, Value split);

  LinearCrossEntropyOp op;
  TileMma &mma;
  const CrossEntropyPlan &plan;
  const TileMmaConfig &c;
  Value splits, lsePart, targetPart;
  std::unique_ptr<StateMath> sm;
  Value tokens, classes, row0, warpRow, warpCol, warpN;
  SmallVector<Value> rows, targets;
};

} // namespace

SmallVector<Value> LogitTileKernel::fold(Value classTile, ArrayRef<Value> acc,
                                         ValueRange st) {
  int64_t slots = mma.slots();
  SmallVector<Value> xs = mma.elements(acc);
  // Column of element i: base + colOffset(i).
  Value tileBase = mul(classTile, idx(c.blockCols()));
  Value base = add(tileBase, add(warpCol, mma.laneCol()));
  Value lastClass = sub(classes, idx(1));
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = crossEntropyLogit(b, loc, *sm, xs[i], op.getBias(),
                              minI(add(base, idx(mma.colOffset(i))), lastClass),
                              op.getSoftcapAttr());
  // Two selects an element (the column past V, the target's column) are
  // needed in few tiles: past V only in the last, a row's target in one of
  // V / blockCols. Branching around them keeps the common tile's fold at
  // max, fma, ex2 and add an element: 4 PTX instructions instead of 10
  // (64-bit compares among them), 1.5-2.7% less forward time on an H200
  // (bf16, N 8192, D 2048-4096, V 128256-256000).
  Value whole = cmp(arith::CmpIPredicate::sle,
                    add(tileBase, idx(c.blockCols())), classes);
  xs = keepOrChange(b, loc, whole, xs, [&](SmallVector<Value> v) {
    Value limit = sub(classes, base);
    Value negInf = sm->negInf();
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = sm->select(
          cmp(arith::CmpIPredicate::slt, idx(mma.colOffset(i)), limit), v[i],
          negInf);
    return v;
  });
  // No slot's target in the tile: a target before it (or -1, past the
  // tokens) wraps around to a large unsigned offset.
  Value none;
  for (int64_t s = 0; s < slots; ++s) {
    Value out = cmp(arith::CmpIPredicate::uge, sub(targets[s], tileBase),
                    idx(c.blockCols()));
    none = none ? andI(none, out) : out;
  }
  SmallVector<Value> zt(st.slice(2 * slots, slots));
  zt = keepOrChange(b, loc, none, zt, [&](SmallVector<Value> z) {
    SmallVector<Value> rel;
    for (int64_t s = 0; s < slots; ++s)
      rel.push_back(sub(targets[s], base));
    for (size_t i = 0; i < xs.size(); ++i) {
      int64_t s = mma.slotOf(i);
      z[s] = sm->select(
          cmp(arith::CmpIPredicate::eq, rel[s], idx(mma.colOffset(i))), xs[i],
          z[s]);
    }
    return z;
  });
  if (op.getClassMaxInit())
    storeClassMax(classTile, xs);
  // m' = max(m, max x log2 e), l = l 2^(m - m') + sum 2^(x log2 e - m'),
  // each lane over its own columns (no shuffle per tile).
  FoldRule rule(StateKind::Max, ExpUnits::Log2);
  rule.log2Scale = sm->log2e();
  rule.slotOf = [&](int64_t i) { return mma.slotOf(i); };
  SmallVector<Value> m(st.take_front(slots));
  StateFold fold(*sm, rule, m, xs);
  SmallVector<Value> next, sums;
  for (int64_t s = 0; s < slots; ++s) {
    next.push_back(fold.offset(s));
    sums.push_back(fold.rescaled(st[slots + s], s));
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    int64_t s = mma.slotOf(i);
    sums[s] = fold.addTerm(sums[s], i);
  }
  next.append(sums);
  next.append(zt);
  return next;
}

void LogitTileKernel::storeClassMax(Value classTile, ArrayRef<Value> xs) {
  int64_t slots = mma.slots();
  SmallVector<Value> top(slots);
  for (size_t i = 0; i < xs.size(); ++i) {
    Value &t = top[mma.slotOf(i)];
    t = t ? arith::MaximumFOp::create(b, loc, t, xs[i]).getResult() : xs[i];
  }
  auto lanes = static_cast<int32_t>(mma.lanes());
  for (int32_t x : mma.rowLaneXors())
    for (Value &t : top)
      t = arith::MaximumFOp::create(
          b, loc, t,
          gpu::ShuffleOp::create(b, loc, t, x, lanes, gpu::ShuffleMode::XOR)
              .getShuffleResult());
  Value leader = cmp(arith::CmpIPredicate::eq, mma.laneCol(), idx(0));
  for (int64_t s = 0; s < slots; ++s) {
    auto store = scf::IfOp::create(
        b, loc,
        andI(leader, cmp(arith::CmpIPredicate::slt, rows[s], tokens)), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    memref::StoreOp::create(b, loc, top[s], op.getClassMaxInit(),
                            ValueRange{rows[s], classTile});
  }
}

void LogitTileKernel::mergeAndStore(ArrayRef<Value> st, ArrayRef<Value> smem,
                                    Value split) {
  int64_t slots = mma.slots();
  SmallVector<Value> m(st.take_front(slots)), l(st.slice(slots, slots)),
      zt(st.slice(2 * slots, slots));
  auto mergeLog2 = [&](int64_t s, Value m2, Value l2, Value z2) {
    Value mNew = sm->offsetMax(m[s], m2);
    l[s] = sm->add(
        sm->mul(l[s], sm->rescale(StateKind::Max, m[s], mNew, ExpUnits::Log2)),
        sm->mul(l2, sm->rescale(StateKind::Max, m2, mNew, ExpUnits::Log2)));
    m[s] = mNew;
    // One lane (and one warp, one split) holds the target's logit, the
    // others 0: the sum is that logit exactly.
    zt[s] = sm->add(zt[s], z2);
  };
  auto lanes = static_cast<int32_t>(mma.lanes());
  for (int32_t x : mma.rowLaneXors())
    for (int64_t s = 0; s < slots; ++s) {
      auto shuffle = [&](Value v) {
        return gpu::ShuffleOp::create(b, loc, v, x, lanes,
                                      gpu::ShuffleMode::XOR)
            .getShuffleResult();
      };
      mergeLog2(s, shuffle(m[s]), shuffle(l[s]), shuffle(zt[s]));
    }
  // The warps that share rows: every lane of a row holds its merged state
  // now, so each stores the same values (no leader needed).
  size_t at = mma.tileBuffers(Attribute()).size();
  Value smemM = smem[at], smemL = smem[at + 1], smemZ = smem[at + 2];
  if (c.warpsN > 1) {
    auto parked = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::ne, warpN, idx(0)), false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&parked.getThenRegion().front());
      for (int64_t s = 0; s < slots; ++s) {
        Value r = add(warpRow, mma.slotRow(s));
        memref::StoreOp::create(b, loc, m[s], smemM, ValueRange{warpN, r});
        memref::StoreOp::create(b, loc, l[s], smemL, ValueRange{warpN, r});
        memref::StoreOp::create(b, loc, zt[s], smemZ, ValueRange{warpN, r});
      }
    }
    gpu::BarrierOp::create(b, loc);
  }
  auto first = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, warpN, idx(0)), false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&first.getThenRegion().front());
  for (int64_t s = 0; s < slots; ++s) {
    Value r = add(warpRow, mma.slotRow(s));
    for (int64_t w = 1; w < c.warpsN; ++w) {
      SmallVector<Value> at = {idx(w), r};
      mergeLog2(s, memref::LoadOp::create(b, loc, smemM, at),
                memref::LoadOp::create(b, loc, smemL, at),
                memref::LoadOp::create(b, loc, smemZ, at));
    }
    auto inside = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, rows[s], tokens), false);
    OpBuilder::InsertionGuard gi(b);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    // A split without classes keeps the identity: l = 0, lse -inf.
    Value lse = sm->lseOf(StateKind::Max, m[s], l[s], ExpUnits::Log2);
    memref::StoreOp::create(b, loc, lse, lsePart, ValueRange{split, rows[s]});
    memref::StoreOp::create(b, loc, zt[s], targetPart,
                            ValueRange{split, rows[s]});
  }
}

void LogitTileKernel::build(gpu::LaunchOp launch, ArrayRef<Value> smem) {
  Value tid = launch.getThreadIds().x;
  mma.begin(tid, smem);
  sm = mma.rowMath();
  Value hidden = op.getHidden(), classifier = op.getClassifier();
  tokens = memref::DimOp::create(b, loc, hidden, 0);
  classes = memref::DimOp::create(b, loc, classifier, 0);
  Value warp = div(tid, mma.lanes());
  warpN = rem(warp, c.warpsN);
  warpRow = mul(div(warp, c.warpsN), idx(c.warpRows));
  warpCol = mul(warpN, idx(c.warpCols));
  row0 = mul(launch.getBlockIds().x, idx(c.blockRows()));
  Value split = launch.getBlockIds().y;
  Value classTiles =
      arith::CeilDivUIOp::create(b, loc, classes, idx(c.blockCols()));
  Value perSplit = arith::CeilDivUIOp::create(b, loc, classTiles, splits);
  Value j0 = minI(mul(split, perSplit), classTiles);
  Value j1 = minI(add(j0, perSplit), classTiles);

  // Each slot's token and target (-1 past the tokens: no class matches).
  int64_t slots = mma.slots();
  Value targetsBuf = op.getTargets();
  for (int64_t s = 0; s < slots; ++s) {
    rows.push_back(add(add(row0, warpRow), mma.slotRow(s)));
    auto load = scf::IfOp::create(
        b, loc, TypeRange{b.getIndexType()},
        cmp(arith::CmpIPredicate::slt, rows.back(), tokens), true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&load.getThenRegion().front());
    Value t = memref::LoadOp::create(b, loc, targetsBuf, rows.back());
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::IndexCastOp::create(b, loc, b.getIndexType(), t)});
    b.setInsertionPointToStart(&load.getElseRegion().front());
    scf::YieldOp::create(b, loc, ValueRange{idx(-1)});
    targets.push_back(load.getResult(0));
  }

  SmallVector<Value> init(slots, sm->identityOffset());
  init.append(slots, sm->identitySum());
  init.append(slots, sm->cst(0.0));
  int64_t features = cast<MemRefType>(hidden.getType()).getDimSize(1);
  int64_t innerSteps = llvm::divideCeil(features, c.kTile);
  Value innerBound = plan.boundInner ? idx(features) : Value();
  // Slice t of the block's sequence: class tile j0 + t / innerSteps, inner
  // columns (t % innerSteps) kTile, into buffer `buf`.
  auto stageSlice = [&](Value t, Value buf) {
    Value tile = add(j0, div(t, innerSteps));
    return mma.stage(hidden, row0, tokens, classifier,
                     mul(tile, idx(c.blockCols())), classes,
                     mul(rem(t, innerSteps), idx(c.kTile)), innerBound, buf);
  };

  Value any = andI(cmp(arith::CmpIPredicate::slt, j0, j1),
                   cmp(arith::CmpIPredicate::sgt, tokens, idx(0)));
  auto work = scf::IfOp::create(b, loc, ValueRange(init).getTypes(), any, true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&work.getThenRegion().front());
    SmallVector<Value> states = forEachLogitTile(
        b, loc, mma, j0, j1, innerSteps, init, warpRow, warpCol, stageSlice,
        [&](Value j, ArrayRef<Value> acc, ValueRange st) {
          return fold(j, acc, st);
        });
    scf::YieldOp::create(b, loc, states);
    b.setInsertionPointToStart(&work.getElseRegion().front());
    scf::YieldOp::create(b, loc, init);
  }
  SmallVector<Value> state(work.getResults());
  mergeAndStore(state, smem, split);
}

/// Kernel 2: each token's splits merged into lse; lse and the loss written.
static void buildFinish(OpBuilder &b, Location loc, LinearCrossEntropyOp op,
                        gpu::LaunchOp launch, int64_t threads, Value splits,
                        Value lsePart, Value targetPart, Value losses,
                        Value kept) {
  IndexArith ix(b, loc);
  StateMath sm(b, loc, b.getF32Type());
  Value tokens = memref::DimOp::create(b, loc, op.getHidden(), 0);
  Value classes = memref::DimOp::create(b, loc, op.getClassifier(), 0);
  Value n = ix.add(ix.mul(launch.getBlockIds().x, ix.idx(threads)),
                   launch.getThreadIds().x);
  auto inside = scf::IfOp::create(
      b, loc, ix.cmp(arith::CmpIPredicate::slt, n, tokens), false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&inside.getThenRegion().front());
  SmallVector<Value> init = {sm.identityOffset(), sm.identitySum(),
                             sm.cst(0.0)};
  auto loop = scf::ForOp::create(
      b, loc, ix.idx(0), splits, ix.idx(1), init,
      [&](OpBuilder &, Location, Value s, ValueRange st) {
        Value lse = memref::LoadOp::create(b, loc, lsePart, ValueRange{s, n});
        auto [ms, ls] = sm.stateOfLse(lse);
        auto [m, l] = sm.merge(StateKind::Max, st[0], st[1], ms, ls);
        Value z = sm.add(st[2], memref::LoadOp::create(b, loc, targetPart,
                                                       ValueRange{s, n}));
        scf::YieldOp::create(b, loc, ValueRange{m, l, z});
      });
  Value lse = sm.lseOf(StateKind::Max, loop.getResult(0), loop.getResult(1));
  Value loss = sm.sub(lse, loop.getResult(2));
  if (FloatAttr z = op.getZLossAttr())
    loss = sm.fma(sm.mul(sm.cst(z.getValueAsDouble()), lse), lse, loss);
  Value t = memref::LoadOp::create(b, loc, op.getTargets(), n);
  Type tType = t.getType();
  Value t64 =
      tType.isInteger(64)
          ? t
          : arith::ExtSIOp::create(b, loc, b.getI64Type(), t).getResult();
  Value v64 =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), classes).getResult();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  Value ignored = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t64,
                                        c64(op.getIgnoreIndex()));
  Value inRange = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t64, c64(0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t64, v64));
  loss = sm.select(ignored, sm.cst(0.0), sm.select(inRange, loss, sm.nan()));
  if (Value lseOut = op.getLseInit())
    memref::StoreOp::create(b, loc, lse, lseOut, n);
  if (!losses) {
    memref::StoreOp::create(b, loc, loss, op.getLossInit(), n);
    return;
  }
  memref::StoreOp::create(b, loc, loss, losses, n);
  memref::StoreOp::create(b, loc, sm.select(ignored, sm.cst(0.0), sm.cst(1.0)),
                          kept, n);
}

/// Kernel 3 (sum and mean): one block adds the losses and kept tokens,
/// each thread a strided share, then shuffles and workgroup memory.
static void buildReduce(OpBuilder &b, Location loc, LinearCrossEntropyOp op,
                        gpu::LaunchOp launch, int64_t threads, int64_t warpSize,
                        Value losses, Value kept) {
  IndexArith ix(b, loc);
  StateMath sm(b, loc, b.getF32Type());
  Value tid = launch.getThreadIds().x;
  Value tokens = memref::DimOp::create(b, loc, op.getHidden(), 0);
  auto loop = scf::ForOp::create(
      b, loc, tid, tokens, ix.idx(threads),
      ValueRange{sm.cst(0.0), sm.cst(0.0)},
      [&](OpBuilder &, Location, Value i, ValueRange acc) {
        scf::YieldOp::create(
            b, loc,
            ValueRange{
                sm.add(acc[0], memref::LoadOp::create(b, loc, losses, i)),
                sm.add(acc[1], memref::LoadOp::create(b, loc, kept, i))});
      });
  SmallVector<Value> sums(loop.getResults());
  SmallVector<Value> smem(launch.getWorkgroupAttributions());
  auto width = static_cast<int32_t>(warpSize);
  auto warpSum = [&](Value v) {
    for (int32_t x = width / 2; x >= 1; x /= 2)
      v = sm.add(
          v, gpu::ShuffleOp::create(b, loc, v, x, width, gpu::ShuffleMode::XOR)
                 .getShuffleResult());
    return v;
  };
  Value warp = ix.div(tid, warpSize);
  Value lead =
      ix.cmp(arith::CmpIPredicate::eq, ix.rem(tid, warpSize), ix.idx(0));
  for (int64_t i = 0; i < 2; ++i)
    sums[i] = warpSum(sums[i]);
  {
    auto park = scf::IfOp::create(b, loc, lead, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&park.getThenRegion().front());
    for (int64_t i = 0; i < 2; ++i)
      memref::StoreOp::create(b, loc, sums[i], smem[i], warp);
  }
  gpu::BarrierOp::create(b, loc);
  auto first = scf::IfOp::create(
      b, loc, ix.cmp(arith::CmpIPredicate::eq, tid, ix.idx(0)), false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&first.getThenRegion().front());
  Value total = sm.cst(0.0), count = sm.cst(0.0);
  for (int64_t w = 0; w < threads / warpSize; ++w) {
    total = sm.add(total, memref::LoadOp::create(b, loc, smem[0], ix.idx(w)));
    count = sm.add(count, memref::LoadOp::create(b, loc, smem[1], ix.idx(w)));
  }
  if (op.getReduction() == LossReduction::Mean)
    total = sm.div(total, count);
  memref::StoreOp::create(b, loc, total, op.getLossInit(), ValueRange{});
}

LogicalResult mlir::softmax::mapLinearCrossEntropyOpToGPU(
    RewriterBase &rewriter, LinearCrossEntropyOp op, const GPUTarget &target,
    const GPUTargetHooks &hooks, int64_t forcedSplits) {
  if (failed(checkCrossEntropyBuffers(op, op.getHidden())))
    return failure();
  auto hType = cast<MemRefType>(op.getHidden().getType());
  Type elt = hType.getElementType();
  int64_t d = hType.getDimSize(1);

  CrossEntropyPlan plan;
  plan.mma.elt = elt;
  // Few tokens (a static count up to 32): one row of 4 warps, each 16 or
  // 32 tokens by 64 classes, instead of 128-token tiles whose rows past
  // the tokens the tensor cores would multiply for nothing.
  int64_t tokenCount = hType.getDimSize(0);
  bool fewTokens = !ShapedType::isDynamic(tokenCount) && tokenCount <= 32;
  if (fewTokens) {
    plan.mma.warpsM = 1;
    plan.mma.warpsN = 4;
    plan.mma.warpRows = tokenCount <= 16 ? 16 : 32;
    // These blocks wait on W's slices, not on the products: a third buffer
    // puts one more slice in flight. H100, 8-30 tokens of D 4096, V
    // 128256: 0.43 ms against 0.46 with two (the matmul 0.38-0.39);
    // bench/results/cross_entropy/README.md, "Few tokens".
    plan.mma.stages = 3;
  } else if (target.warpgroupMma) {
    useWarpgroupLogitTile(plan.mma);
  }

  std::unique_ptr<TileMma> mma =
      hooks.makeTileMma(rewriter, op.getLoc(), plan.mma);
  if (!mma)
    return op.emitOpError()
           << "has no GPU kernel for " << elt << " inputs on " << target.chip
           << " (the fused linear cross-entropy runs f16 and bf16 on NVIDIA "
              "tensor cores and CDNA matrix cores; decompose it on tensors "
              "for the CPU)";
  // The unit's own shape (an end may narrow the slices to fit its shared
  // memory).
  plan.mma = mma->getConfig();
  // class_max's groups are whole tiles of one warp column: a row's largest
  // logit of a group is then one warp's, stored once per tile.
  if (op.getClassMaxInit() &&
      (plan.mma.warpsN != 1 ||
       plan.mma.blockCols() != LinearCrossEntropyOp::getClassMaxWidth()))
    return op.emitOpError()
           << "GPU mapping writes class_max from logit tiles of "
           << LinearCrossEntropyOp::getClassMaxWidth()
           << " classes in one warp column (the warpgroup tile of sm_90a, "
              "more than 32 tokens); this target's tile is "
           << plan.mma.blockRows() << " x " << plan.mma.blockCols() << " in "
           << plan.mma.warpsN << " warp columns";
  plan.boundInner = d % plan.mma.kTile != 0;
  // The operands' tiles; above 48 KiB a kernel's shared memory must be
  // dynamic (the launch opts in), below static buffers keep it
  // self-contained.
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<MemRefType> tileTypes = mma->tileBuffers(workgroup);
  // The warps' merge buffers: after the tiles in a dynamic pool (a pool
  // takes every buffer, SharedTiles.h), else workgroup attributions.
  auto mergeType = MemRefType::get({plan.mma.warpsN, plan.mma.blockRows()},
                                   rewriter.getF32Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
  SmallVector<MemRefType> buffers(tileTypes);
  buffers.append(3, mergeType);
  // Bulk tensor copies land with the 128-byte swizzle, whose buffers start
  // at multiples of 1024 bytes (each view of the pool, and the pool's
  // start rounded up at run time).
  int64_t alignment = plan.mma.warpgroups ? 1024 : 16;
  int64_t smemBytes = alignment > 16 ? alignment : 0;
  for (MemRefType t : buffers)
    smemBytes += llvm::alignTo(
        t.getNumElements() * t.getElementTypeBitWidth() / 8, alignment);
  if (smemBytes > target.maxSharedMemoryPerBlock)
    return op.emitOpError() << "GPU mapping needs " << smemBytes
                            << " bytes of workgroup memory; " << target.chip
                            << " has " << target.maxSharedMemoryPerBlock;
  bool dynamic = smemBytes > 48 * 1024 || plan.mma.warpgroups;
  auto wType = cast<MemRefType>(op.getClassifier().getType());
  int64_t perMultiprocessor =
      blocksPerMultiprocessor(plan.mma, mma->lanes(), smemBytes, target);
  plan.splits =
      forcedSplits > 0
          ? forcedSplits
          : chooseVocabSplits(hType.getDimSize(0), wType.getDimSize(0),
                              plan.mma, target, perMultiprocessor);

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  IndexArith ix(rewriter, loc);
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  Value tokens = memref::DimOp::create(rewriter, loc, op.getHidden(), 0);
  Value one = ix.idx(1);
  int64_t dyn = ShapedType::kDynamic;

  // The kernel copies rows of hidden and classifier 16 bytes at a time.
  assertAligned16(rewriter, loc, {op.getHidden(), op.getClassifier()},
                  "softmax.linear_cross_entropy on the GPU needs hidden and "
                  "classifier buffers aligned to 16 bytes");

  // Workspace in stream order: the splits' lse and target logits, and for a
  // reduction the per-token losses and kept flags.
  StreamWorkspace ws(rewriter, loc);
  Type tokenType = ws.tokenType;
  Value &token = ws.token;
  Value tokenTiles =
      ix.maxI(arith::CeilDivUIOp::create(rewriter, loc, tokens,
                                         ix.idx(plan.mma.blockRows())),
              one);
  Value splits = ix.idx(plan.splits);
  SmallVector<Value> partSizes = {tokens};
  if (!plan.splits) {
    Value classTiles = arith::CeilDivUIOp::create(
        rewriter, loc,
        memref::DimOp::create(rewriter, loc, op.getClassifier(), 0),
        ix.idx(plan.mma.blockCols()));
    splits = runtimeVocabSplits(rewriter, loc, tokenTiles, classTiles,
                                perMultiprocessor * target.multiprocessors);
    partSizes.insert(partSizes.begin(), splits);
  }
  int64_t partRows = plan.splits ? plan.splits : dyn;
  Value lsePart = ws.alloc({partRows, dyn}, partSizes);
  Value targetPart = ws.alloc({partRows, dyn}, partSizes);
  bool reduce = op.getReduction() != LossReduction::None;
  Value losses = reduce ? ws.alloc({dyn}, tokens) : Value();
  Value kept = reduce ? ws.alloc({dyn}, tokens) : Value();

  // Kernel 1: a block per (token tile, split); at least one token tile, so
  // that no grid is empty (a block past the tokens writes nothing).
  mma->prepareHost(op.getHidden(), op.getClassifier());
  SmallVector<Type> attributions;
  if (!dynamic)
    attributions.append(buffers.begin(), buffers.end());
  auto tiles = gpu::LaunchOp::create(
      rewriter, loc, tokenTiles, splits, one,
      ix.idx(plan.mma.warps() * mma->lanes()), one, one,
      dynamic ? arith::ConstantIntOp::create(rewriter, loc, smemBytes, 32)
                    .getResult()
              : Value(),
      tokenType, ValueRange{token}, attributions);
  tiles->setAttr(
      SoftmaxDialect::getStrategyAttrName(),
      CrossEntropyGPUStrategyAttr::get(
          ctx,
          plan.mma.warpgroups ? MatrixInstruction::WgmmaM64nNk16
          : target.vendor == GPUVendor::NVIDIA
              ? MatrixInstruction::M16n8k16
              : MatrixInstruction::Mfma16x16x16,
          plan.mma.blockRows(), plan.mma.blockCols(), plan.mma.kTile,
          plan.mma.stages,
          plan.splits ? std::optional<int64_t>(plan.splits) : std::nullopt));
  {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&tiles.getBody().front());
    SmallVector<Value> smem =
        dynamic ? viewDynamicSharedMemory(rewriter, loc, buffers, alignment)
                : SmallVector<Value>(tiles.getWorkgroupAttributions());
    LogitTileKernel(rewriter, loc, op, *mma, plan, splits, lsePart, targetPart)
        .build(tiles, smem);
    gpu::TerminatorOp::create(rewriter, loc);
  }
  token = tiles.getAsyncToken();

  // Kernel 2: a thread per token.
  constexpr int64_t kFinishThreads = 256;
  Value finishBlocks = ix.maxI(
      arith::CeilDivUIOp::create(rewriter, loc, tokens, ix.idx(kFinishThreads)),
      one);
  auto finish = gpu::LaunchOp::create(rewriter, loc, finishBlocks, one, one,
                                      ix.idx(kFinishThreads), one, one, nullptr,
                                      tokenType, ValueRange{token});
  {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&finish.getBody().front());
    buildFinish(rewriter, loc, op, finish, kFinishThreads, splits, lsePart,
                targetPart, losses, kept);
    gpu::TerminatorOp::create(rewriter, loc);
  }
  token = finish.getAsyncToken();

  if (reduce) {
    int64_t threads = std::min<int64_t>(1024, target.maxThreadsPerBlock);
    int64_t warps = threads / target.warpSize;
    auto shared =
        MemRefType::get({warps}, f32, MemRefLayoutAttrInterface(), workgroup);
    auto sum = gpu::LaunchOp::create(
        rewriter, loc, one, one, one, ix.idx(threads), one, one, nullptr,
        tokenType, ValueRange{token}, TypeRange{shared, shared});
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&sum.getBody().front());
    buildReduce(rewriter, loc, op, sum, threads, target.warpSize, losses, kept);
    gpu::TerminatorOp::create(rewriter, loc);
    token = sum.getAsyncToken();
  }
  ws.finish();
  rewriter.eraseOp(op);
  return success();
}
