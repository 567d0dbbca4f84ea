//===- TopKToGPU.cpp - softmax.topk on buffers -> gpu.launch -------------===//
//
// The fused softmax + top-k of arXiv 1805.02867: a block per row (or per
// part of a row, when rows leave multiprocessors idle) reads it once,
// folding every element into the thread's online state (m, l) and
// appending the elements above a running threshold tau to a candidate
// buffer in workgroup memory. The row is read in steps of `threads *
// width` consecutive elements; when a step could overflow the buffer, the
// block puts the k best first (a bitonic selection network over (value
// descending, index ascending): chunks of K sorted, pairs of chunks halved
// keeping their K best) and raises tau to the k-th value. Because the
// steps walk the row in index order, an element equal to tau comes after
// the k-th kept one in the op's order, so the filter is the strict x > tau
// once k are kept (before that, everything but NaN passes: -inf elements
// can be chosen, NaN never). At the end the buffer is pruned once more,
// the row's state merged across the block, and the first k written with
// exp(x - m) / l; parts write their state and k best to workspace, and a
// merge kernel prunes them together (docs/TopK.md).
//
// Upstream has no selection (linalg has reductions, the vector dialect a
// sort of nothing): the kernel is built here from gpu.barrier, workgroup
// attributions and memref.atomic_rmw.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

#include "StreamWorkspace.h"
#include "WarpMerge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// The most blocks one row is split over.
constexpr int64_t kMaxParts = 32;

/// The plan of one top-k kernel (docs/TopK.md, "GPU kernel").
struct TopKPlan {
  /// Threads of the block that reads a row.
  int64_t threads = 256;
  /// Elements per load: 16 bytes where the row length allows.
  int64_t width = 1;
  /// Loads each thread issues before it folds any (the bytes in flight).
  int64_t loads = 4;
  /// Candidate slots: k plus one step, rounded up to a power of two (the
  /// merge kernel: every part's k, rounded up).
  int64_t capacity = 0;
  /// The most blocks a row is split over (1: one kernel, no merge).
  int64_t maxParts = 1;
  int64_t step() const { return threads * width; }
  int64_t sharedBytes(int64_t warps) const {
    return capacity * 8 + 4 + warps * 8;
  }
};

class TopKKernel : IndexArith {
public:
  TopKKernel(OpBuilder &b, Location loc, const TopKPlan &plan,
             const GPUTarget &target, TopKOp op)
      : IndexArith(b, loc), plan(plan), target(target), op(op),
        x(op.getInput()), f32(b.getF32Type()), i32(b.getI32Type()),
        sm(b, loc, f32) {
    inElt = cast<MemRefType>(x.getType()).getElementType();
  }

  /// The row kernel: a block per (row, part) folds its part of the row.
  /// Without `parts` (one block a row) it writes the op's results; with
  /// them, the part's state, its count of kept candidates and its k best
  /// (sentinels past the count) to `parts` (m, l: [rows, P] f32; taken:
  /// [rows, P] i32; vals: [rows, P k] f32; idxs: [rows, P k] i32), the
  /// part `chunk` elements long.
  void build(gpu::LaunchOp launch, ArrayRef<Value> parts = {},
             Value chunk = Value());
  /// The merge kernel: a block per row takes its `partCount` parts' states
  /// and candidates, prunes the candidates and writes the op's results.
  void buildMerge(gpu::LaunchOp launch, ArrayRef<Value> parts,
                  Value partCount);

private:
  Value i32c(int64_t c) {
    return arith::ConstantIntOp::create(b, loc, i32, c);
  }
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, loc, i32, index);
  }
  Value toIndex(Value i) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  }
  /// An scf.for whose body `body(iv, iterArgs)` builds with this builder
  /// and returns the next iter_args.
  scf::ForOp forLoop(Value lb, Value ub, Value step, ValueRange inits,
                     function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto loop = scf::ForOp::create(b, loc, lb, ub, step, inits);
    OpBuilder::InsertionGuard g(b);
    Block *block = loop.getBody();
    if (inits.empty())
      b.setInsertionPoint(block->getTerminator());
    else
      b.setInsertionPointToEnd(block);
    SmallVector<Value> next =
        body(loop.getInductionVar(), loop.getRegionIterArgs());
    if (!inits.empty())
      scf::YieldOp::create(b, loc, next);
    return loop;
  }
  /// An scf.if; each branch builds with this builder and returns its
  /// results (of `types`).
  ValueRange ifElse(Value cond, TypeRange types,
                    function_ref<SmallVector<Value>()> thenBody,
                    function_ref<SmallVector<Value>()> elseBody = nullptr) {
    auto ifOp = scf::IfOp::create(b, loc, types, cond,
                                  /*withElseRegion=*/!types.empty());
    OpBuilder::InsertionGuard g(b);
    auto fill = [&](Block *block, function_ref<SmallVector<Value>()> fn) {
      if (types.empty())
        b.setInsertionPoint(block->getTerminator());
      else
        b.setInsertionPointToEnd(block);
      SmallVector<Value> results = fn();
      if (!types.empty())
        scf::YieldOp::create(b, loc, results);
    };
    fill(ifOp.thenBlock(), thenBody);
    if (!types.empty())
      fill(ifOp.elseBlock(), elseBody);
    return ifOp.getResults();
  }
  void store(Value value, Value buffer, ValueRange at) {
    memref::StoreOp::create(b, loc, value, buffer, at);
  }
  Value load(Value buffer, ValueRange at) {
    return memref::LoadOp::create(b, loc, buffer, at);
  }
  /// a ranks before b in the op's order: value descending, index ascending.
  Value before(Value av, Value ai, Value bv, Value bi) {
    Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, av, bv);
    Value eq = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, av, bv);
    Value lower =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ai, bi);
    return arith::OrIOp::create(b, loc, gt,
                                arith::AndIOp::create(b, loc, eq, lower));
  }
  /// Puts the best of the first `count` candidates (i32) first, in the
  /// op's order: at least k of them (the power of two at or above k),
  /// the slots up to the next power of two filled with a sentinel (-inf,
  /// INT_MAX) that ranks after every element. Ends with a barrier.
  void sortCandidates(Value count);
  /// Swaps slots `lo` and `hi` unless the better one is where
  /// `betterFirst` (i1) says: at lo when true, at hi when false.
  void compareExchange(Value lo, Value hi, Value betterFirst);
  /// The threads' states merged over the block: every thread gets the row's.
  std::pair<Value, Value> blockMerge(Value m, Value l);
  /// The workgroup buffers of the launch.
  void bindShared(gpu::LaunchOp launch);
  /// Writes row `row`'s k results from the sorted candidates, `held` (i32)
  /// of them real, and the row's state (m, l).
  void writeResults(Value row, Value held, Value m, Value l);

  const TopKPlan &plan;
  const GPUTarget &target;
  TopKOp op;
  /// The rows.
  Value x;
  FloatType f32;
  IntegerType i32;
  StateMath sm;
  Type inElt;
  Value tid, vals, idxs, counter, smemM, smemL;
};
} // namespace

std::pair<Value, Value> TopKKernel::blockMerge(Value m, Value l) {
  int64_t warps = plan.threads / target.warpSize;
  if (warps == 1)
    return softmax::detail::warpMergeStates(b, loc, sm, StateKind::Max, m, l,
                                            target.warpSize, target.warpSize,
                                            softmax::detail::kRowExpUnits);
  return softmax::detail::rowMergeStates(b, loc, sm, StateKind::Max, m, l, tid,
                                         warps, target.warpSize, smemM, smemL,
                                         softmax::detail::kRowExpUnits);
}

void TopKKernel::compareExchange(Value lo, Value hi, Value betterFirst) {
  Value av = load(vals, lo), ai = load(idxs, lo);
  Value bv = load(vals, hi), bi = load(idxs, hi);
  Value swap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     before(bv, bi, av, ai), betterFirst);
  auto sel = [&](Value y, Value z) {
    return arith::SelectOp::create(b, loc, swap, y, z).getResult();
  };
  store(sel(bv, av), vals, lo);
  store(sel(bi, ai), idxs, lo);
  store(sel(av, bv), vals, hi);
  store(sel(ai, bi), idxs, hi);
}

void TopKKernel::sortCandidates(Value count) {
  // Chunks of K = the power of two at or above k (at least 2), over the
  // n slots of the power of two at or above max(count, K) (n <=
  // capacity). log2 n = max(log2 K, #{s >= 1 : 2^(s-1) < count}); no
  // count-leading-zeros op needed.
  int64_t chunk = std::max<int64_t>(2, llvm::PowerOf2Ceil(op.getK()));
  int64_t logK = llvm::Log2_64(chunk);
  Value logN = idx(logK);
  for (int64_t s = logK + 1; (int64_t(1) << (s - 1)) < plan.capacity; ++s) {
    Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                       count, i32c(int64_t(1) << (s - 1)));
    logN = arith::SelectOp::create(b, loc, more, idx(s), logN);
  }
  Value n = arith::ShLIOp::create(b, loc, idx(1), logN);
  Value sentinelV = sm.negInf();
  Value sentinelI = i32c(std::numeric_limits<int32_t>::max());
  forLoop(add(toIndex(count), tid), n, idx(plan.threads), {},
          [&](Value i, ValueRange) {
            store(sentinelV, vals, i);
            store(sentinelI, idxs, i);
            return SmallVector<Value>{};
          });
  gpu::BarrierOp::create(b, loc);
  Value half = arith::ShRUIOp::create(b, loc, n, idx(1));
  Value i1True = arith::ConstantIntOp::create(b, loc, 1, 1);
  // 1. Every chunk sorted, best first: a bitonic network over blocks of
  // 2^s (s = 1..log2 K), strides 2^(s-1) down to 1, a barrier after each
  // stride; below K the blocks alternate direction, at K all put the
  // better first.
  forLoop(idx(1), idx(logK + 1), idx(1), {}, [&](Value s, ValueRange) {
    Value size = arith::ShLIOp::create(b, loc, idx(1), s);
    Value last = cmp(arith::CmpIPredicate::eq, s, idx(logK));
    forLoop(idx(0), s, idx(1), {}, [&](Value j, ValueRange) {
      Value logStride = sub(sub(s, idx(1)), j);
      Value stride = arith::ShLIOp::create(b, loc, idx(1), logStride);
      forLoop(tid, half, idx(plan.threads), {}, [&](Value p, ValueRange) {
        Value high = arith::ShLIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, p, logStride),
            add(logStride, idx(1)));
        Value lo =
            arith::OrIOp::create(b, loc, high, andI(p, sub(stride, idx(1))));
        Value first = arith::OrIOp::create(
            b, loc, cmp(arith::CmpIPredicate::eq, andI(lo, size), idx(0)),
            last);
        compareExchange(lo, add(lo, stride), first);
        return SmallVector<Value>{};
      });
      gpu::BarrierOp::create(b, loc);
      return SmallVector<Value>{};
    });
    return SmallVector<Value>{};
  });
  // 2. Pairs of sorted chunks halved until one is left: at level v the
  // live chunks start at multiples of K 2^v. Of chunks A and B (both best
  // first), A[i] takes the better of A[i] and B[K - 1 - i]: the K best of
  // both, in a bitonic order, which a half-cleaner network (strides K/2
  // to 1) sorts best first. Only K of every 2^v K slots take part, so a
  // level costs half the one before.
  forLoop(idx(0), sub(logN, idx(logK)), idx(1), {}, [&](Value v,
                                                         ValueRange) {
    Value apart = arith::ShLIOp::create(b, loc, idx(chunk), v);
    // Merges at this level: n / (2 apart), each over K slots.
    Value merges = arith::ShRUIOp::create(b, loc, n, add(v, idx(logK + 1)));
    Value work = mul(merges, idx(chunk));
    forLoop(tid, work, idx(plan.threads), {}, [&](Value p, ValueRange) {
      Value c = div(p, chunk), e = rem(p, chunk);
      Value first = mul(c, mul(apart, idx(2)));
      Value a = add(first, e);
      Value other = add(sub(add(first, apart), e), idx(chunk - 1));
      Value av = load(vals, a), ai = load(idxs, a);
      Value bv = load(vals, other), bi = load(idxs, other);
      Value keep = before(av, ai, bv, bi);
      store(arith::SelectOp::create(b, loc, keep, av, bv), vals, a);
      store(arith::SelectOp::create(b, loc, keep, ai, bi), idxs, a);
      return SmallVector<Value>{};
    });
    gpu::BarrierOp::create(b, loc);
    for (int64_t stride = chunk / 2; stride >= 1; stride /= 2) {
      Value pairs = mul(merges, idx(chunk / 2));
      forLoop(tid, pairs, idx(plan.threads), {}, [&](Value p, ValueRange) {
        Value c = div(p, chunk / 2), q = rem(p, chunk / 2);
        Value lo = add(mul(c, mul(apart, idx(2))),
                       add(mul(div(q, stride), idx(2 * stride)),
                           rem(q, stride)));
        compareExchange(lo, add(lo, idx(stride)), i1True);
        return SmallVector<Value>{};
      });
      gpu::BarrierOp::create(b, loc);
    }
    return SmallVector<Value>{};
  });
}

void TopKKernel::bindShared(gpu::LaunchOp launch) {
  tid = launch.getThreadIds().x;
  auto attributions = launch.getWorkgroupAttributions();
  vals = attributions[0];
  idxs = attributions[1];
  counter = attributions[2];
  smemM = attributions[3];
  smemL = attributions[4];
}

void TopKKernel::build(gpu::LaunchOp launch, ArrayRef<Value> parts,
                       Value chunk) {
  bindShared(launch);
  Value row = launch.getBlockIds().x;
  int64_t k = op.getK();
  int64_t width = plan.width;
  // This block's columns [c0, n): the whole row, or its part.
  Value n = memref::DimOp::create(b, loc, x, 1);
  Value c0 = idx(0);
  if (!parts.empty()) {
    c0 = mul(launch.getBlockIds().y, chunk);
    n = minU(add(c0, chunk), n);
  }
  Value zero32 = i32c(0);
  Value at0 = idx(0);

  ifElse(cmp(arith::CmpIPredicate::eq, tid, idx(0)), {}, [&] {
    store(zero32, counter, at0);
    return SmallVector<Value>{};
  });
  gpu::BarrierOp::create(b, loc);

  auto vecType = VectorType::get({width}, inElt);
  auto inf = APFloat::getInf(cast<FloatType>(inElt).getFloatSemantics(),
                             /*Negative=*/true);
  Value infVec =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vecType, inf));
  llvm::MaybeAlign align(width * inElt.getIntOrFloatBitWidth() / 8);
  // More than capacity - step candidates: the next step could overflow.
  Value pruneAt = i32c(plan.capacity - plan.step());
  Value i1True = arith::ConstantIntOp::create(b, loc, 1, 1);

  FoldRule rule(StateKind::Max, softmax::detail::kRowExpUnits);
  rule.group = FoldRule::Group::Tree;

  // iter_args: the thread's (m, l), then tau and whether k are kept.
  SmallVector<Value> inits = {sm.identityOffset(), sm.identitySum(),
                              sm.negInf(),
                              arith::ConstantIntOp::create(b, loc, 0, 1)};
  scf::ForOp loop = forLoop(
      c0, n, idx(plan.loads * plan.step()), inits,
      [&](Value base, ValueRange args) {
        Value tau = args[2], full = args[3];
        // Every load of the round first: `loads` vectors in flight.
        SmallVector<Value> cols, valids;
        SmallVector<SmallVector<Value>> elems;
        SmallVector<Value> all;
        for (int64_t u = 0; u < plan.loads; ++u) {
          Value col =
              add(base, add(idx(u * plan.step()), mul(tid, idx(width))));
          Value valid = ult(col, n);
          cols.push_back(col);
          valids.push_back(valid);
          Value vec = ifElse(
              valid, vecType,
              [&] {
                return SmallVector<Value>{vector::LoadOp::create(
                    b, loc, vecType, x, ValueRange{row, col},
                    /*nontemporal=*/false, align)};
              },
              [&] { return SmallVector<Value>{infVec}; })[0];
          SmallVector<Value> lanes;
          for (int64_t e = 0; e < width; ++e)
            lanes.push_back(sm.toAcc(
                vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{e})));
          all.append(lanes);
          elems.push_back(std::move(lanes));
        }
        // The online fold of the round (-inf past the row adds nothing).
        StateFold fold(sm, rule, {args[0]}, all);
        Value mNew = fold.offset();
        Value lNew = fold.newSum(args[1]);

        for (int64_t u = 0; u < plan.loads; ++u) {
          // This step's candidates: x > tau once k are kept, else every
          // element but NaN (x >= tau = -inf).
          SmallVector<Value> passes;
          Value count = zero32;
          for (Value xe : elems[u]) {
            Value strict = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OGT, xe, tau);
            Value any = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OGE, xe, tau);
            Value pass = andI(
                valids[u], arith::SelectOp::create(b, loc, full, strict, any));
            passes.push_back(pass);
            count = arith::AddIOp::create(
                b, loc, count, arith::ExtUIOp::create(b, loc, i32, pass));
          }
          // One atomic per thread and step: its candidates take
          // consecutive slots.
          ifElse(
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, count,
                                    zero32),
              {}, [&] {
                Value slot = memref::AtomicRMWOp::create(
                    b, loc, i32, arith::AtomicRMWKind::addi, count, counter,
                    ValueRange{at0});
                for (int64_t e = 0; e < width; ++e) {
                  Value at = toIndex(slot);
                  Value colE = toI32(add(cols[u], idx(e)));
                  Value xe = elems[u][e];
                  ifElse(passes[e], {}, [&] {
                    store(xe, vals, at);
                    store(colE, idxs, at);
                    return SmallVector<Value>{};
                  });
                  slot = arith::AddIOp::create(
                      b, loc, slot,
                      arith::ExtUIOp::create(b, loc, i32, passes[e]));
                }
                return SmallVector<Value>{};
              });
          gpu::BarrierOp::create(b, loc);
          Value held = load(counter, at0);
          // Every thread has read the count before the next step adds.
          gpu::BarrierOp::create(b, loc);
          // Sort when the next step could overflow the buffer, and as soon
          // as k are held: until then every element passes, and the first
          // sort is the cheaper the earlier it comes (one step's 2048 bf16
          // candidates take 66 stages of 1024 pairs, a full buffer of 4096
          // 78 stages of 2048).
          Value prune = arith::OrIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, held,
                                    pruneAt),
              andI(arith::XOrIOp::create(b, loc, full, i1True),
                   arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                         held, i32c(k))));
          ValueRange pruned = ifElse(
              prune, TypeRange{f32, b.getI1Type()},
              [&] {
                sortCandidates(held);
                // held >= k: keep the k best, tau the k-th.
                Value kth = load(vals, idx(k - 1));
                gpu::BarrierOp::create(b, loc);
                ifElse(cmp(arith::CmpIPredicate::eq, tid, idx(0)), {}, [&] {
                  store(i32c(k), counter, at0);
                  return SmallVector<Value>{};
                });
                gpu::BarrierOp::create(b, loc);
                return SmallVector<Value>{kth, i1True};
              },
              [&] { return SmallVector<Value>{tau, full}; });
          tau = pruned[0];
          full = pruned[1];
        }
        return SmallVector<Value>{mNew, lNew, tau, full};
      });

  Value held = load(counter, at0);
  sortCandidates(held);
  Value m, l;
  std::tie(m, l) = blockMerge(loop.getResult(0), loop.getResult(1));
  if (parts.empty()) {
    writeResults(row, held, m, l);
    return;
  }
  // The part's k best in order, sentinels (-inf, INT_MAX: after every
  // element in the merge's sort) past the kept ones.
  Value part = launch.getBlockIds().y;
  Value taken = arith::MinSIOp::create(b, loc, held, i32c(k));
  ifElse(cmp(arith::CmpIPredicate::eq, tid, idx(0)), {}, [&] {
    store(m, parts[0], ValueRange{row, part});
    store(l, parts[1], ValueRange{row, part});
    store(taken, parts[2], ValueRange{row, part});
    return SmallVector<Value>{};
  });
  Value first = mul(part, idx(k));
  forLoop(tid, idx(k), idx(plan.threads), {}, [&](Value j, ValueRange) {
    Value real = ult(j, toIndex(taken));
    Value slot = minU(j, idx(plan.capacity - 1));
    Value xv = arith::SelectOp::create(b, loc, real, load(vals, slot),
                                       sm.negInf());
    Value xi = arith::SelectOp::create(
        b, loc, real, load(idxs, slot),
        i32c(std::numeric_limits<int32_t>::max()));
    store(xv, parts[3], ValueRange{row, add(first, j)});
    store(xi, parts[4], ValueRange{row, add(first, j)});
    return SmallVector<Value>{};
  });
}

void TopKKernel::buildMerge(gpu::LaunchOp launch, ArrayRef<Value> parts,
                            Value partCount) {
  bindShared(launch);
  Value row = launch.getBlockIds().x;
  int64_t k = op.getK();
  // The parts' states, one a thread (the block merge takes the identity
  // from the others), and their kept counts summed the same way.
  Value mine = ult(tid, partCount);
  Value at = minU(tid, sub(partCount, idx(1)));
  Value m = sm.select(mine, load(parts[0], ValueRange{row, at}),
                      sm.identityOffset());
  Value l = sm.select(mine, load(parts[1], ValueRange{row, at}),
                      sm.identitySum());
  Value taken = arith::SelectOp::create(
      b, loc, mine, load(parts[2], ValueRange{row, at}), i32c(0));
  ifElse(cmp(arith::CmpIPredicate::eq, tid, idx(0)), {}, [&] {
    store(i32c(0), counter, idx(0));
    return SmallVector<Value>{};
  });
  gpu::BarrierOp::create(b, loc);
  memref::AtomicRMWOp::create(b, loc, i32, arith::AtomicRMWKind::addi, taken,
                              counter, ValueRange{idx(0)});
  Value count = mul(partCount, idx(k));
  forLoop(tid, count, idx(plan.threads), {}, [&](Value j, ValueRange) {
    store(load(parts[3], ValueRange{row, j}), vals, j);
    store(load(parts[4], ValueRange{row, j}), idxs, j);
    return SmallVector<Value>{};
  });
  gpu::BarrierOp::create(b, loc);
  Value held = load(counter, idx(0));
  // Every part's candidates, sentinels included, pruned together: the
  // first k are the row's (a row's top k are each among their part's).
  sortCandidates(toI32(count));
  std::tie(m, l) = blockMerge(m, l);
  writeResults(row, held, m, l);
}

void TopKKernel::writeResults(Value row, Value held, Value m, Value l) {
  int64_t k = op.getK();
  // Position j < min(held, k) gets the j-th candidate; the rest index -1,
  // probability 0, log-probability -inf. A row of all -inf (l = 0) has
  // probability 0 everywhere; a row with a NaN has a NaN m and so NaN
  // probabilities, as softmax gives.
  Value taken = toIndex(arith::MinSIOp::create(b, loc, held, i32c(k)));
  Value noMass = sm.eq(l, sm.cst(0.0));
  Value logL = sm.log(l);
  Type idxElt =
      cast<MemRefType>(op.getIndicesInit().getType()).getElementType();
  Value lpOut = op.getLogProbsInit();
  forLoop(tid, idx(k), idx(plan.threads), {}, [&](Value j, ValueRange) {
    Value real = ult(j, taken);
    Value slot = minU(j, idx(plan.capacity - 1));
    Value xv = load(vals, slot), xi = load(idxs, slot);
    Value p = sm.select(noMass, sm.cst(0.0),
                        sm.div(sm.term(StateKind::Max, xv, m,
                                       softmax::detail::kRowExpUnits),
                               l));
    p = sm.select(real, p, sm.cst(0.0));
    Value index = arith::SelectOp::create(b, loc, real, xi, i32c(-1));
    if (idxElt != i32)
      index = arith::ExtSIOp::create(b, loc, idxElt, index);
    store(p, op.getProbsInit(), ValueRange{row, j});
    store(index, op.getIndicesInit(), ValueRange{row, j});
    if (lpOut) {
      Value lp = sm.sub(sm.logTerm(StateKind::Max, xv, m), logL);
      lp = sm.select(noMass, sm.negInf(), lp);
      lp = sm.select(real, lp, sm.negInf());
      store(lp, lpOut, ValueRange{row, j});
    }
    return SmallVector<Value>{};
  });
}

LogicalResult mlir::softmax::mapTopKOpToGPU(RewriterBase &rewriter, TopKOp op,
                                            const GPUTarget &target) {
  SmallVector<Value> buffers = {op.getInput(), op.getProbsInit(),
                                op.getIndicesInit()};
  if (Value lp = op.getLogProbsInit())
    buffers.push_back(lp);
  if (!isa<MemRefType>(op.getInput().getType()))
    return op.emitOpError("GPU mapping takes the op on memrefs (bufferize "
                          "it first, as softmax-to-nvvm does)");
  if (auto why = whyNotContiguousBuffers(buffers, "GPU mapping"))
    return op.emitOpError(*why);
  auto xType = cast<MemRefType>(op.getInput().getType());
  int64_t rows = xType.getDimSize(0), cols = xType.getDimSize(1);
  if (!ShapedType::isDynamic(cols) &&
      cols >= std::numeric_limits<int32_t>::max())
    return op.emitOpError() << "GPU mapping keeps indices in 32 bits: rows of "
                            << cols << " elements are too long";

  TopKPlan plan;
  plan.threads = std::min<int64_t>(256, target.maxThreadsPerBlock);
  // 16-byte loads where the width divides a static row length (so every
  // vector is aligned and wholly in the row or wholly past it).
  int64_t eltBytes = xType.getElementTypeBitWidth() / 8;
  plan.width = 1;
  if (!ShapedType::isDynamic(cols))
    for (int64_t w = 16 / eltBytes; w > 1; w /= 2)
      if (cols % w == 0) {
        plan.width = w;
        break;
      }
  int64_t k = op.getK();
  int64_t warps = plan.threads / target.warpSize;
  plan.capacity =
      static_cast<int64_t>(llvm::PowerOf2Ceil(k + plan.step()));
  // Workgroup attributions are static shared memory, which CUDA caps at
  // 48 KiB per kernel whatever the opt-in limit of dynamic memory.
  int64_t limit = std::min<int64_t>(target.maxSharedMemoryPerBlock, 48 * 1024);
  if (plan.sharedBytes(warps) > limit)
    return op.emitOpError()
           << "k (" << k << ") needs " << plan.sharedBytes(warps)
           << " bytes of workgroup memory for its candidates (" << plan.capacity
           << " slots); the GPU mapping has " << limit;
  if (rows == 0) {
    rewriter.eraseOp(op);
    return success();
  }
  if (!ShapedType::isDynamic(rows) && rows > INT32_MAX)
    return op.emitOpError() << "GPU mapping would launch " << rows
                            << " blocks; a grid holds at most 2147483647";

  // Rows split over blocks: each part at least one round of loads, the
  // merge kernel's candidates (every part's k) in its 48 KiB.
  int64_t round = plan.loads * plan.step();
  TopKPlan mergePlan = plan;
  if (!ShapedType::isDynamic(cols))
    for (int64_t p = std::min<int64_t>(cols / round, kMaxParts); p >= 2;
         --p) {
      mergePlan.capacity = static_cast<int64_t>(llvm::PowerOf2Ceil(p * k));
      if (mergePlan.sharedBytes(warps) <= limit) {
        plan.maxParts = p;
        break;
      }
    }

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  IndexArith ix(rewriter, loc);
  Value rowCount = memref::DimOp::create(rewriter, loc, op.getInput(), 0);
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t size, Type elt) {
    return MemRefType::get({size}, elt, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
  Value one = ix.idx(1);
  // A launch of `plan`'s blocks over (x, y); `body` builds the kernel.
  auto launchBlocks = [&](const TopKPlan &p, Value x, Value y, Value token,
                          function_ref<void(gpu::LaunchOp)> body) {
    SmallVector<Type> attributions = {shared(p.capacity, f32),
                                      shared(p.capacity, i32), shared(1, i32),
                                      shared(warps, f32), shared(warps, f32)};
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, x, y, one, ix.idx(p.threads), one, one,
        /*dynamicSharedMemorySize=*/nullptr,
        token ? token.getType() : Type(),
        token ? ValueRange{token} : ValueRange{}, attributions);
    OpBuilder::InsertionGuard bodyGuard(rewriter);
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    body(launch);
    gpu::TerminatorOp::create(rewriter, loc);
    return launch;
  };
  auto wholeRows = [&] {
    launchBlocks(plan, rowCount, one, Value(), [&](gpu::LaunchOp launch) {
      TopKKernel(rewriter, loc, plan, target, op).build(launch);
    });
  };
  if (plan.maxParts == 1) {
    wholeRows();
    rewriter.eraseOp(op);
    return success();
  }

  // The parts of a row: only as many blocks as there are multiprocessors
  // (floor(SMs / rows) parts), each part a whole number of rounds (so that
  // its loads stay aligned), at most maxParts; one part (half as many rows
  // as multiprocessors or more) runs the one-kernel form. Each part prunes
  // its candidates at least twice (when it first holds k, and at its end),
  // so parts that do not fill idle multiprocessors cost more pruning than
  // they save: measured on the H200 at V 128256, bf16, with full sorts as
  // the prune (bench/results/gpu_topk.md), k 50: parts for 4 blocks per
  // multiprocessor took B 1 from 109 us to 47, B 8 from 110 to 52, but
  // B 64 from 112 to 119 and B 256 from 171 to 256; ceil(SMs / rows)
  // parts took k 1024 at B 64 from 332 to 409.
  Value n = ix.idx(cols);
  Value wanted = arith::DivUIOp::create(
      rewriter, loc, ix.idx(target.multiprocessors), ix.maxI(rowCount, one));
  Value parts = ix.maxI(ix.minI(wanted, ix.idx(plan.maxParts)), one);
  Value chunk = ix.mul(
      arith::CeilDivUIOp::create(
          rewriter, loc, arith::CeilDivUIOp::create(rewriter, loc, n, parts),
          ix.idx(round)),
      ix.idx(round));
  parts = arith::CeilDivUIOp::create(rewriter, loc, n, chunk);
  auto split = scf::IfOp::create(
      rewriter, loc, ix.cmp(arith::CmpIPredicate::ugt, parts, one),
      /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&split.getThenRegion().front());
    detail::StreamWorkspace ws(rewriter, loc);
    int64_t dyn = ShapedType::kDynamic;
    Value kParts = ix.mul(parts, ix.idx(k));
    SmallVector<Value> partBuffers = {
        ws.alloc({dyn, dyn}, {rowCount, parts}),
        ws.alloc({dyn, dyn}, {rowCount, parts}),
        ws.alloc({dyn, dyn}, {rowCount, parts}, i32),
        ws.alloc({dyn, dyn}, {rowCount, kParts}),
        ws.alloc({dyn, dyn}, {rowCount, kParts}, i32)};
    auto folds = launchBlocks(plan, rowCount, parts, ws.token,
                              [&](gpu::LaunchOp launch) {
                                TopKKernel(rewriter, loc, plan, target, op)
                                    .build(launch, partBuffers, chunk);
                              });
    auto merge = launchBlocks(mergePlan, rowCount, one,
                              folds.getAsyncToken(), [&](gpu::LaunchOp launch) {
                                TopKKernel(rewriter, loc, mergePlan, target, op)
                                    .buildMerge(launch, partBuffers, parts);
                              });
    ws.token = merge.getAsyncToken();
    ws.finish();
  }
  {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&split.getElseRegion().front());
    wholeRows();
  }
  rewriter.eraseOp(op);
  return success();
}
