//===- CrossEntropyGradChunks.cpp - the gradient in chunks of classes -----===//
//
// The linear cross-entropy's gradient on warpgroup targets (sm_90a), its
// outputs owned by blocks instead of added with atomics:
//
// 1. Weights, as the fused form (CrossEntropyGradGPU.h).
// 2. For each chunk of C classes (as many as keep du within 256 MiB):
//    a. Tiles: a block per token tile and range of the chunk's class tiles
//       (128 tokens x 256 classes each, one pipeline across the range, as
//       the forward's blocks) recomputes the logits on warpgroup products,
//       turns them into du and votes (the fused form's tile code); it
//       writes each vote to flags[token tile][class tile] and, where kept,
//       du to a [tokens, C] buffer.
//    b. grad_hidden += du W_c: a block per (128 tokens, 256 features)
//       multiplies the kept du tiles of its tokens by W's rows of their
//       classes (W read by inner rows: the transposed product), and adds
//       the sum into the f32 accumulator it alone writes in this chunk.
//    c. grad_classifier = du^T h: a block per (128 classes, 256 features)
//       multiplies the kept tiles' du^T by h, both by inner rows, and
//       writes its rows of grad_classifier once (every token is in it).
//    The host waits for each chunk before the next reuses the buffer.
// 3. grad_hidden (and grad_bias) rounded into their inits.
//
// Why: the fused form adds each tile's products to the f32 gradients with
// atomics, (128 + 128) D of them per 128 x 128 tile; on the H200 that bound
// the backward at 0.33-0.63x torch.compile's forward + backward. Here each
// product is a plain matrix product over the kept tiles (about 88% of
// cuBLAS's rate), and a filtered tile costs neither product nor write:
// 1.20-1.25x compile at V 256000, 0.74-0.78x at V 128256, where fewer
// tiles are filtered (bench/results/cross_entropy/README.md).
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

#include "CrossEntropyGPU.h"
#include "CrossEntropyGradGPU.h"
#include "SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

/// du's buffer stays within this (at N 8192 bf16: chunks of 16384 classes).
constexpr int64_t kChunkBytes = 256ll << 20;

/// The tile of the logits, votes and du (the forward's warpgroup tile).
constexpr int64_t kTileTokens = 128, kTileClasses = 256;

/// Bulk tensor copies land 128-byte swizzled in buffers that start at
/// multiples of 1024 bytes (the pool's views).
constexpr int64_t kSwizzleAlignment = 1024;

/// Candidate tiles a product block lists at a time (4 a thread), and its
/// threads (the two warpgroups).
constexpr int64_t kWindow = 1024, kThreads = 256;

enum class GradProduct { Hidden, Classifier };

/// Step 2b or 2c: one block's [128 x cols] of a product over the kept du
/// tiles.
class ChunkProductKernel : IndexArith {
public:
  ChunkProductKernel(OpBuilder &b, Location loc, LinearCrossEntropyGradOp op,
                     TileMma &mma, GradProduct kind, const GradBuffers &out,
                     int64_t planes)
      : IndexArith(b, loc), op(op), mma(mma), c(mma.getConfig()), kind(kind),
        out(out), planes(planes) {}

  void build(gpu::LaunchOp launch, ArrayRef<Value> smem);

private:
  /// Whether the filter kept candidate tile `i` (of the token tiles or the
  /// class tiles along the product's inner dimension).
  Value isKept(Value i);
  /// Lists the kept candidates of [base, base + kWindow), in order, into
  /// `list`; returns how many (the same in every thread).
  Value listKept(Value base);
  /// counts[i] (i32) as an index, and back.
  Value loadCount(Value i) {
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(), memref::LoadOp::create(b, loc, counts, i));
  }
  void storeCount(Value v, Value i) {
    memref::StoreOp::create(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI32Type(), v), counts,
        i);
  }
  /// Stages step `s` of the window's sequence (the last step again past
  /// the end): candidate list[s / steps a tile], its part s % steps.
  void stageStep(Value s, Value last, Value buf);
  /// Adds (grad_hidden) or writes (grad_classifier) the block's part.
  void store(ArrayRef<Value> acc);

  LinearCrossEntropyGradOp op;
  TileMma &mma;
  const TileMmaConfig &c;
  GradProduct kind;
  GradBuffers out;
  int64_t planes;
  Value row0, f0, candidates, tileRow, warpRow, tokens, classes;
  /// Thread id; the window's list of kept candidates, and a count per
  /// thread (then their exclusive sums, the total last).
  Value tid, list, counts;
  int64_t features = 0, subSteps = 0;
};

} // namespace

Value ChunkProductKernel::isKept(Value i) {
  SmallVector<Value> at = kind == GradProduct::Hidden
                              ? SmallVector<Value>{tileRow, i}
                              : SmallVector<Value>{i, tileRow};
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                               memref::LoadOp::create(b, loc, out.flags, at),
                               arith::ConstantIntOp::create(b, loc, 0, 32));
}

Value ChunkProductKernel::listKept(Value base) {
  // Thread t judges candidates base + per t ... + per - 1 (one load each,
  // all in flight together), ...
  constexpr int64_t per = kWindow / kThreads;
  Value first = add(base, mul(tid, idx(per)));
  SmallVector<Value> kept;
  Value mine = idx(0);
  for (int64_t j = 0; j < per; ++j) {
    Value c = add(first, idx(j));
    auto in =
        scf::IfOp::create(b, loc, TypeRange{b.getI1Type()},
                          cmp(arith::CmpIPredicate::slt, c, candidates), true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&in.getThenRegion().front());
      scf::YieldOp::create(b, loc, ValueRange{isKept(c)});
      b.setInsertionPointToStart(&in.getElseRegion().front());
      scf::YieldOp::create(
          b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 0, 1)});
    }
    kept.push_back(in.getResult(0));
    mine = add(mine, arith::IndexCastOp::create(
                         b, loc, b.getIndexType(),
                         arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                                in.getResult(0))));
  }
  storeCount(mine, tid);
  gpu::BarrierOp::create(b, loc);
  // ... the first warp turns the counts into exclusive sums (each lane
  // kThreads / 32 of them, the lanes' sums scanned by shuffles) ...
  {
    auto lead = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::ult, tid, idx(mma.lanes())), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    int64_t each = kThreads / mma.lanes();
    Value own = idx(0);
    SmallVector<Value> cs;
    for (int64_t k = 0; k < each; ++k) {
      cs.push_back(loadCount(add(mul(tid, idx(each)), idx(k))));
      own = add(own, cs.back());
    }
    Value i32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), own);
    Value scan = i32;
    auto width = static_cast<int32_t>(mma.lanes());
    for (int32_t d = 1; d < width; d *= 2) {
      auto up =
          gpu::ShuffleOp::create(b, loc, scan, d, width, gpu::ShuffleMode::UP);
      scan = arith::AddIOp::create(
          b, loc, scan,
          arith::SelectOp::create(b, loc, up.getValid(), up.getShuffleResult(),
                                  arith::ConstantIntOp::create(b, loc, 0, 32)));
    }
    Value run =
        sub(arith::IndexCastOp::create(b, loc, b.getIndexType(), scan), own);
    for (int64_t k = 0; k < each; ++k) {
      storeCount(run, add(mul(tid, idx(each)), idx(k)));
      run = add(run, cs[k]);
    }
    // The last lane's running sum is the total.
    auto last = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, tid, idx(mma.lanes() - 1)),
        false);
    b.setInsertionPointToStart(&last.getThenRegion().front());
    storeCount(run, idx(kThreads));
  }
  gpu::BarrierOp::create(b, loc);
  // ... and each thread writes its kept candidates from its sum on.
  Value at = loadCount(tid);
  for (int64_t j = 0; j < per; ++j) {
    auto write = scf::IfOp::create(b, loc, kept[j], false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&write.getThenRegion().front());
      memref::StoreOp::create(b, loc,
                              arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                                         add(first, idx(j))),
                              list, at);
    }
    at = add(at, arith::IndexCastOp::create(
                     b, loc, b.getIndexType(),
                     arith::ExtUIOp::create(b, loc, b.getI32Type(), kept[j])));
  }
  Value total = loadCount(idx(kThreads));
  gpu::BarrierOp::create(b, loc);
  return total;
}

void ChunkProductKernel::stageStep(Value s, Value last, Value buf) {
  Value step = minI(s, last);
  int64_t perTile = subSteps * planes;
  Value tile = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, list, div(step, perTile)));
  Value u = rem(step, perTile);
  Value plane = div(u, subSteps), sub = rem(u, subSteps);
  Value planeRow = mul(plane, out.tokenPad);
  Value inner = add(
      mul(tile, idx(kind == GradProduct::Hidden ? kTileClasses : kTileTokens)),
      mul(sub, idx(c.kTile)));
  if (kind == GradProduct::Hidden)
    // A: du rows of the tokens, classes `inner` of the chunk; B: W's rows
    // of those classes, columns from f0.
    mma.stage(out.du, add(planeRow, row0), Value(), op.getClassifier(), f0,
              Value(), inner, Value(), buf, add(out.chunk0, inner));
  else
    // A: du's rows `inner` (tokens), columns from row0 (the classes); B:
    // h's rows `inner`, columns from f0.
    mma.stage(out.du, row0, Value(), op.getHidden(), f0, Value(),
              add(planeRow, inner), Value(), buf, inner);
}

void ChunkProductKernel::store(ArrayRef<Value> acc) {
  SmallVector<Value> xs = mma.elements(acc);
  Value colBase = add(f0, mma.laneCol());
  bool boundCols = features % c.blockCols() != 0;
  Value limit = kind == GradProduct::Hidden ? tokens : classes;
  Value first = kind == GradProduct::Hidden ? row0 : add(out.chunk0, row0);
  Value dst = kind == GradProduct::Hidden ? out.gh : out.gw;
  Type elt = cast<MemRefType>(dst.getType()).getElementType();
  auto pairType = VectorType::get({2}, elt);
  for (int64_t s = 0; s < mma.slots(); ++s) {
    Value row = add(add(first, warpRow), mma.slotRow(s));
    auto inside = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::slt, row, limit), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    for (size_t i = 0; i + 1 < xs.size(); i += 2) {
      if (mma.slotOf(i) != s)
        continue;
      // Elements i and i + 1: adjacent columns, the first even (D is a
      // multiple of 8, so col < D implies col + 1 < D).
      Value col = add(colBase, idx(mma.colOffset(i)));
      OpBuilder::InsertionGuard gc(b);
      if (boundCols) {
        auto in = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, col, idx(features)), false);
        b.setInsertionPointToStart(&in.getThenRegion().front());
      }
      SmallVector<Value> pair = {xs[i], xs[i + 1]};
      Value vec = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, b.getF32Type()), pair);
      SmallVector<Value, 2> at = {row, col};
      // A pair at an even column is aligned to its size: one request
      // (the memref's element alignment alone splits it in two).
      llvm::MaybeAlign pairAlign(2 * elt.getIntOrFloatBitWidth() / 8);
      if (kind == GradProduct::Hidden) {
        Value old = vector::LoadOp::create(b, loc, pairType, dst, at,
                                           /*nontemporal=*/false, pairAlign);
        vec = arith::AddFOp::create(b, loc, old, vec);
      } else if (!elt.isF32()) {
        vec = arith::TruncFOp::create(b, loc, pairType, vec);
      }
      vector::StoreOp::create(b, loc, vec, dst, at, /*nontemporal=*/false,
                              pairAlign);
    }
  }
}

void ChunkProductKernel::build(gpu::LaunchOp launch, ArrayRef<Value> smem) {
  tid = launch.getThreadIds().x;
  size_t nTiles = smem.size() - 2;
  mma.begin(tid, smem.take_front(nTiles));
  list = smem[nTiles];
  counts = smem[nTiles + 1];
  features = cast<MemRefType>(op.getHidden().getType()).getDimSize(1);
  tokens = memref::DimOp::create(b, loc, op.getHidden(), 0);
  classes = memref::DimOp::create(b, loc, op.getClassifier(), 0);
  // Warps own 16 rows each (warpsN 1), as wgmma's accumulators lie.
  warpRow = mul(div(tid, mma.lanes()), idx(c.warpRows));
  row0 = mul(launch.getBlockIds().x, idx(c.blockRows()));
  f0 = mul(launch.getBlockIds().y, idx(c.blockCols()));
  if (kind == GradProduct::Hidden) {
    // The block's token tile; the chunk's class tiles along the inner
    // dimension.
    tileRow = launch.getBlockIds().x;
    candidates = out.chunkTiles;
    subSteps = kTileClasses / c.kTile;
  } else {
    // The class tile holding the block's 128 classes; the token tiles.
    tileRow = div(row0, kTileClasses);
    candidates = div(out.tokenPad, kTileTokens);
    subSteps = kTileTokens / c.kTile;
  }
  // The candidates in windows of kWindow (one window up to 1024 token or
  // class tiles): each lists its kept tiles, then multiplies them, the
  // next slices in flight (the forward's schedule: a step is staged into
  // the buffer of the last step whose products every warpgroup has
  // completed).
  SmallVector<Value> zero = mma.zero();
  SmallVector<Value> init(zero);
  // Carried besides the accumulators: the steps so far, and the slices
  // staged so far (a slice's buffer and the phase it completes follow from
  // its index across windows).
  init.append({idx(0), idx(0)});
  Value windows = arith::CeilDivUIOp::create(b, loc, candidates, idx(kWindow));
  auto outer = scf::ForOp::create(
      b, loc, idx(0), windows, idx(1), init,
      [&](OpBuilder &, Location, Value w, ValueRange carried) {
        Value total =
            mul(listKept(mul(w, idx(kWindow))), idx(subSteps * planes));
        SmallVector<Value> acc(carried.drop_back(2));
        Value base = carried.back();
        int64_t ahead = c.stages - 1 - mma.productsInFlight();
        auto work = scf::IfOp::create(
            b, loc, ValueRange(zero).getTypes(),
            cmp(arith::CmpIPredicate::sgt, total, idx(0)), true);
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(&work.getThenRegion().front());
          Value last = sub(total, idx(1));
          for (int64_t t = 0; t < ahead; ++t)
            stageStep(idx(t), last, rem(add(base, idx(t)), c.stages));
          auto loop = scf::ForOp::create(
              b, loc, idx(0), total, idx(1), acc,
              [&](OpBuilder &, Location, Value t, ValueRange a) {
                Value next = add(t, idx(ahead));
                stageStep(next, last, rem(add(base, next), c.stages));
                Value slice = add(base, t);
                mma.waitSlice(slice, Value(), ahead);
                SmallVector<Value> out = mma.multiply(
                    llvm::to_vector(a), rem(slice, c.stages), warpRow, idx(0));
                gpu::BarrierOp::create(b, loc);
                scf::YieldOp::create(b, loc, out);
              });
          mma.drain(Value(), add(base, total), ahead);
          scf::YieldOp::create(
              b, loc, mma.settle(SmallVector<Value>(loop.getResults())));
          b.setInsertionPointToStart(&work.getElseRegion().front());
          scf::YieldOp::create(b, loc, acc);
        }
        SmallVector<Value> next(work.getResults());
        next.push_back(add(carried[carried.size() - 2], total));
        // A window without steps stages nothing.
        next.push_back(arith::SelectOp::create(
            b, loc, cmp(arith::CmpIPredicate::sgt, total, idx(0)),
            add(base, add(total, idx(ahead))), base));
        scf::YieldOp::create(b, loc, next);
      });
  Value total = outer.getResults()[zero.size()];
  SmallVector<Value> result(outer.getResults().take_front(zero.size()));
  // grad_hidden's blocks without a kept tile add nothing; grad_classifier's
  // write their zeros.
  if (kind == GradProduct::Hidden) {
    auto any = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::sgt, total, idx(0)), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&any.getThenRegion().front());
    store(result);
    return;
  }
  store(result);
}

LogicalResult softmax::detail::mapLinearCrossEntropyGradChunked(
    RewriterBase &rewriter, LinearCrossEntropyGradOp op,
    const GPUTarget &target, const GPUTargetHooks &hooks) {
  auto hType = cast<MemRefType>(op.getHidden().getType());
  Type elt = hType.getElementType();
  int64_t d = hType.getDimSize(1);
  Location loc = op.getLoc();

  // The logits: the forward's warpgroup tile.
  TileMmaConfig logitsConfig;
  logitsConfig.elt = elt;
  useWarpgroupLogitTile(logitsConfig);
  assert(logitsConfig.blockRows() == kTileTokens &&
         logitsConfig.blockCols() == kTileClasses &&
         "the votes' tile is the logits' tile");
  // The products: 128 rows by up to 256 features, the inner dimension
  // (classes or tokens) in slices of 64, B (W or h) by inner rows, and for
  // grad_classifier A (du^T) too.
  TileMmaConfig hiddenConfig = logitsConfig;
  hiddenConfig.warpCols = std::min<int64_t>(256, llvm::alignTo(d, 64));
  hiddenConfig.bByInner = true;
  TileMmaConfig classifierConfig = hiddenConfig;
  classifierConfig.aByInner = true;
  std::unique_ptr<TileMma> logits =
      hooks.makeTileMma(rewriter, loc, logitsConfig);
  std::unique_ptr<TileMma> prodH =
      hooks.makeTileMma(rewriter, loc, hiddenConfig);
  std::unique_ptr<TileMma> prodW =
      hooks.makeTileMma(rewriter, loc, classifierConfig);
  if (!logits || !prodH || !prodW)
    return op.emitOpError()
           << "has no GPU kernel for " << elt << " inputs on " << target.chip
           << " (the linear cross-entropy's gradient runs f16 and bf16 on "
              "NVIDIA tensor cores; decompose it on tensors for the CPU)";
  if (failed(checkGradTile(op, kTileTokens, kTileClasses)))
    return failure();

  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  auto poolBytes = [&](ArrayRef<MemRefType> types) {
    int64_t bytes = kSwizzleAlignment;
    for (MemRefType t : types)
      bytes +=
          llvm::alignTo(t.getNumElements() * t.getElementTypeBitWidth() / 8,
                        kSwizzleAlignment);
    return bytes;
  };
  SmallVector<MemRefType> tileTypes = logits->tileBuffers(workgroup);
  tileTypes.push_back(MemRefType::get({2}, rewriter.getI32Type(),
                                      MemRefLayoutAttrInterface(), workgroup));
  bool bounds = op.getClassMax() && op.getFilterOrDefault() > 0;
  if (bounds)
    tileTypes.push_back(MemRefType::get({2 * kGradListOffset + 1},
                                        rewriter.getI32Type(),
                                        MemRefLayoutAttrInterface(), workgroup));
  // The products' pools: the tiles, then a window's list of kept tiles
  // and the threads' counts (and their total).
  auto i32Buffer = [&](int64_t n) {
    return MemRefType::get({n}, rewriter.getI32Type(),
                           MemRefLayoutAttrInterface(), workgroup);
  };
  SmallVector<MemRefType> hTypes = prodH->tileBuffers(workgroup);
  SmallVector<MemRefType> wTypes = prodW->tileBuffers(workgroup);
  for (SmallVector<MemRefType> *types : {&hTypes, &wTypes})
    types->append({i32Buffer(kWindow), i32Buffer(kThreads + 1)});
  int64_t most =
      std::max({poolBytes(tileTypes), poolBytes(hTypes), poolBytes(wTypes)});
  if (most > target.maxSharedMemoryPerBlock)
    return op.emitOpError()
           << "GPU mapping needs " << most << " bytes of workgroup memory; "
           << target.chip << " has " << target.maxSharedMemoryPerBlock;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  IndexArith ix(rewriter, loc);
  MLIRContext *ctx = rewriter.getContext();
  Value tokens = memref::DimOp::create(rewriter, loc, op.getHidden(), 0);
  Value classes = memref::DimOp::create(rewriter, loc, op.getClassifier(), 0);
  Value one = ix.idx(1);
  int64_t dyn = ShapedType::kDynamic;
  SmallVector<Value> aligned = {op.getHidden(), op.getClassifier()};
  for (Value init : {op.getGradHiddenInit(), op.getGradClassifierInit()})
    aligned.push_back(init);
  assertAligned16(rewriter, loc, aligned,
                  "softmax.linear_cross_entropy_grad on the GPU needs hidden, "
                  "classifier and gradient buffers aligned to 16 bytes");

  // The chunk: whole class tiles, du within kChunkBytes, at least one tile.
  bool exact = op.getFilterOrDefault() == 0;
  int64_t planes = exact ? 2 : 1;
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  auto ceilDiv = [&](Value a, int64_t by) {
    return ix.maxI(arith::CeilDivUIOp::create(rewriter, loc, a, ix.idx(by)),
                   one);
  };
  Value tokenTiles = ceilDiv(tokens, kTileTokens);
  Value tokenPad = ix.mul(tokenTiles, ix.idx(kTileTokens));
  Value classTiles = ceilDiv(classes, kTileClasses);
  Value chunkTiles = ix.maxI(
      ix.minI(arith::DivUIOp::create(
                  rewriter, loc,
                  ix.idx(kChunkBytes / (kTileClasses * planes * eltBytes)),
                  tokenPad),
              classTiles),
      one);
  Value chunkCols = ix.mul(chunkTiles, ix.idx(kTileClasses));

  // Workspace: the weights, du, the votes, and the f32 accumulators of
  // grad_hidden and grad_bias where their inits are not f32.
  StreamWorkspace ws(rewriter, loc);
  Type tokenType = ws.tokenType;
  GradAccumulators accumulators(rewriter, loc, ws);
  GradBuffers out;
  out.weights = ws.alloc({dyn}, tokens);
  out.gh = accumulators.get(op.getGradHiddenInit(), {dyn, d}, tokens);
  out.gw = op.getGradClassifierInit();
  if (Value gb = op.getGradBiasInit())
    out.gb = accumulators.get(gb, {dyn}, classes);
  out.counts = op.getFilterCountsInit();
  out.du =
      ws.alloc({dyn, dyn}, {ix.mul(ix.idx(planes), tokenPad), chunkCols}, elt);
  out.flags =
      ws.alloc({dyn, dyn}, {tokenTiles, chunkTiles}, rewriter.getI32Type());
  out.tokenPad = tokenPad;

  gpu::LaunchOp weights = launchGradWeights(rewriter, loc, op, target, ws, out);
  // The chunks run on streams of their own, one after another: the host
  // waits for the workspace before the first and for each chunk before the
  // next (a token carried through the loop has no lowering).
  gpu::WaitOp::create(rewriter, loc, Type(),
                      ValueRange{weights.getAsyncToken()});
  logits->prepareHost(op.getHidden(), op.getClassifier());
  prodH->prepareHost(out.du, op.getClassifier());
  prodW->prepareHost(out.du, op.getHidden());
  Value chunks = arith::CeilDivUIOp::create(rewriter, loc, classes, chunkCols);
  auto loop = scf::ForOp::create(rewriter, loc, ix.idx(0), chunks, one);
  {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    out.chunk0 = ix.mul(loop.getInductionVar(), chunkCols);
    Value chunkClasses = ix.minI(chunkCols, ix.sub(classes, out.chunk0));
    Value token = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{})
                      .getAsyncToken();
    auto launch = [&](Value x, Value y, ArrayRef<MemRefType> types,
                      function_ref<void(gpu::LaunchOp, ArrayRef<Value>)> body) {
      auto l = gpu::LaunchOp::create(
          rewriter, loc, x, y, one, ix.idx(logitsConfig.warps() * 32), one, one,
          arith::ConstantIntOp::create(rewriter, loc, poolBytes(types), 32)
              .getResult(),
          tokenType, ValueRange{token});
      OpBuilder::InsertionGuard gl(rewriter);
      rewriter.setInsertionPointToStart(&l.getBody().front());
      body(l, viewDynamicSharedMemory(rewriter, loc, types, kSwizzleAlignment));
      gpu::TerminatorOp::create(rewriter, loc);
      token = l.getAsyncToken();
      return l;
    };
    // The tiles: one wave of blocks (one a multiprocessor: the slices'
    // buffers take its shared memory), each a range of class tiles in one
    // pipeline, as the forward's blocks take theirs.
    out.chunkTiles = ceilDiv(chunkClasses, kTileClasses);
    Value ranges = ix.minI(
        ix.maxI(arith::DivUIOp::create(
                    rewriter, loc, ix.idx(target.multiprocessors), tokenTiles),
                one),
        out.chunkTiles);
    // With class_max a block lists its range in shared memory: at most
    // kGradListOffset tiles (more ranges than a wave holds where the chunk
    // is longer).
    if (bounds)
      ranges = ix.maxI(ranges, arith::CeilDivUIOp::create(
                                   rewriter, loc, out.chunkTiles,
                                   ix.idx(kGradListOffset)));
    out.tilesPerBlock =
        arith::CeilDivUIOp::create(rewriter, loc, out.chunkTiles, ranges);
    Value blocks = arith::CeilDivUIOp::create(rewriter, loc, out.chunkTiles,
                                              out.tilesPerBlock);
    auto tiles = launch(tokenTiles, blocks, tileTypes,
                        [&](gpu::LaunchOp l, ArrayRef<Value> smem) {
                          buildGradTiles(rewriter, loc, op, *logits, nullptr,
                                         nullptr, out, l, smem);
                        });
    tiles->setAttr(SoftmaxDialect::getStrategyAttrName(),
                   CrossEntropyGPUStrategyAttr::get(
                       ctx, MatrixInstruction::WgmmaM64nNk16, kTileTokens,
                       kTileClasses, logitsConfig.kTile, logitsConfig.stages,
                       std::nullopt));
    Value featureTiles = ix.idx(llvm::divideCeil(d, hiddenConfig.blockCols()));
    launch(tokenTiles, featureTiles, hTypes,
           [&](gpu::LaunchOp l, ArrayRef<Value> smem) {
             ChunkProductKernel(rewriter, loc, op, *prodH, GradProduct::Hidden,
                                out, planes)
                 .build(l, smem);
           });
    launch(ceilDiv(chunkClasses, classifierConfig.blockRows()), featureTiles,
           wTypes, [&](gpu::LaunchOp l, ArrayRef<Value> smem) {
             ChunkProductKernel(rewriter, loc, op, *prodW,
                                GradProduct::Classifier, out, planes)
                 .build(l, smem);
           });
    gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{token});
  }

  // Step 3 on a stream of its own, then the workspace freed.
  ws.token = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{})
                 .getAsyncToken();
  accumulators.launchRounds(target);
  ws.finish();
  rewriter.eraseOp(op);
  return success();
}
