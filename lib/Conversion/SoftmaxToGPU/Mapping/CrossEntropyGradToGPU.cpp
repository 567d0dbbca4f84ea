//===- CrossEntropyGradToGPU.cpp - linear_cross_entropy_grad -> gpu -------===//
//
// Cut Cross-Entropy's backward (arXiv 2411.09009) in three steps, the
// N x V logits and their gradient never in memory:
//
// 1. Weights: one block counts the kept tokens (for a mean) and writes each
//    token's weight w_n (crossEntropyTokenWeight); the f32 accumulators of
//    the gradients are zeroed (gpu.memset).
// 2. Tiles (CrossEntropyGradTile.cpp): a block per (128 tokens, 128
//    classes). It recomputes the
//    tile's logits on the matrix unit (TileMma, as the forward), turns each
//    into du (crossEntropyLogitGradient) in registers, and votes: when the
//    filter keeps no entry (crossEntropyKeepsEntry: |du| > filter |w_n|)
//    the tile is done (counted as filtered). With the forward's class_max
//    a tile whose tokens it bounds below the filter
//    (crossEntropyBoundsToken) is done before its logits are recomputed.
//    Otherwise du goes to shared memory in the inputs' type, its column
//    sums to grad_bias, and for each 64-feature chunk of D (h and W chunks
//    staged as for the logits, the next in flight) two more products run:
//    du W (rows of grad_hidden) and du^T h (rows of grad_classifier), each
//    added to the f32 accumulators with atomics: a token's gradient sums
//    over every class tile, a class's over every token tile.
// 3. Round: accumulators that are not the inits themselves (f16 or bf16
//    inits) are rounded into them once.
//
// The accumulators are f32 (users report divergence with bf16 ones: Liger
// #512, OLMo-core #370, Megatron-LM #2206): N x D and V x D floats of
// workspace unless the inits are f32. docs/CrossEntropy.md, "GPU kernel
// (backward)". On warpgroup targets the chunked form replaces step 2's
// products (CrossEntropyGradChunks.cpp); both use the tile kernel of
// CrossEntropyGradTile.cpp.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Dialect/Softmax/Utils/CrossEntropyMath.h"

#include "CrossEntropyGPU.h"
#include "CrossEntropyGradGPU.h"
#include "SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

/// Step 1: one block counts the kept tokens (for a mean) and writes each
/// token's weight; thread 0 zeroes the filter counts.
static void buildWeights(OpBuilder &b, Location loc,
                         LinearCrossEntropyGradOp op, gpu::LaunchOp launch,
                         int64_t threads, int64_t warpSize, Value weights,
                         Value counts) {
  IndexArith ix(b, loc);
  StateMath sm(b, loc, b.getF32Type());
  Value tid = launch.getThreadIds().x;
  Value tokens = memref::DimOp::create(b, loc, op.getHidden(), 0);
  Value classes = memref::DimOp::create(b, loc, op.getClassifier(), 0);
  Value targets = op.getTargets(), dl = op.getGradLoss();
  Type tt = cast<MemRefType>(targets.getType()).getElementType();
  auto isKept = [&](Value t) {
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, t,
        arith::ConstantOp::create(b, loc,
                                  b.getIntegerAttr(tt, op.getIgnoreIndex())));
  };
  LossReduction red = op.getReduction();
  Value scale;
  if (red != LossReduction::None)
    scale = memref::LoadOp::create(b, loc, dl, ValueRange{});
  if (red == LossReduction::Mean) {
    auto loop = scf::ForOp::create(
        b, loc, tid, tokens, ix.idx(threads), ValueRange{sm.cst(0)},
        [&](OpBuilder &, Location, Value n, ValueRange acc) {
          Value t = memref::LoadOp::create(b, loc, targets, n);
          scf::YieldOp::create(
              b, loc,
              ValueRange{
                  sm.add(acc[0], sm.select(isKept(t), sm.cst(1), sm.cst(0)))});
        });
    Value count = loop.getResult(0);
    auto width = static_cast<int32_t>(warpSize);
    for (int32_t x = width / 2; x >= 1; x /= 2)
      count = sm.add(count, gpu::ShuffleOp::create(b, loc, count, x, width,
                                                   gpu::ShuffleMode::XOR)
                                .getShuffleResult());
    Value perWarp = launch.getWorkgroupAttributions()[0];
    {
      auto lead = scf::IfOp::create(
          b, loc,
          ix.cmp(arith::CmpIPredicate::eq, ix.rem(tid, warpSize), ix.idx(0)),
          false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&lead.getThenRegion().front());
      memref::StoreOp::create(b, loc, count, perWarp, ix.div(tid, warpSize));
    }
    gpu::BarrierOp::create(b, loc);
    // Every thread adds the warps' counts (the same order: the same sum).
    Value total = sm.cst(0);
    for (int64_t w = 0; w < threads / warpSize; ++w)
      total = sm.add(total, memref::LoadOp::create(b, loc, perWarp, ix.idx(w)));
    scale = sm.div(scale, total);
  }
  scf::ForOp::create(
      b, loc, tid, tokens, ix.idx(threads), ValueRange{},
      [&](OpBuilder &, Location, Value n, ValueRange) {
        Value t = memref::LoadOp::create(b, loc, targets, n);
        Value g = scale ? scale : memref::LoadOp::create(b, loc, dl, n);
        memref::StoreOp::create(
            b, loc,
            crossEntropyTokenWeight(b, loc, t, g, classes, op.getIgnoreIndex()),
            weights, n);
        scf::YieldOp::create(b, loc);
      });
  if (counts) {
    auto lead = scf::IfOp::create(
        b, loc, ix.cmp(arith::CmpIPredicate::eq, tid, ix.idx(0)), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&lead.getThenRegion().front());
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    for (int64_t i = 0, e = cast<MemRefType>(counts.getType()).getDimSize(0);
         i < e; ++i)
      memref::StoreOp::create(b, loc, zero, counts, ix.idx(i));
  }
}

/// Step 3: the f32 accumulator `src` rounded into `dst` (same shape), a
/// grid-stride loop over its elements.
static void buildRound(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                       int64_t threads, Value src, Value dst) {
  IndexArith ix(b, loc);
  auto type = cast<MemRefType>(src.getType());
  Value total = ix.idx(1), inner = ix.idx(1);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value size = memref::DimOp::create(b, loc, src, d);
    total = ix.mul(total, size);
    if (d == 1)
      inner = size;
  }
  Value first = ix.add(ix.mul(launch.getBlockIds().x, ix.idx(threads)),
                       launch.getThreadIds().x);
  Value stride = ix.mul(launch.getGridSizeX(), ix.idx(threads));
  Type elt = cast<MemRefType>(dst.getType()).getElementType();
  scf::ForOp::create(b, loc, first, total, stride, ValueRange{},
                     [&](OpBuilder &, Location, Value i, ValueRange) {
                       SmallVector<Value> at = {i};
                       if (type.getRank() == 2)
                         at = {arith::DivUIOp::create(b, loc, i, inner),
                               arith::RemUIOp::create(b, loc, i, inner)};
                       Value v = memref::LoadOp::create(b, loc, src, at);
                       memref::StoreOp::create(
                           b, loc, arith::TruncFOp::create(b, loc, elt, v), dst,
                           at);
                       scf::YieldOp::create(b, loc);
                     });
}

Value GradAccumulators::get(Value init, ArrayRef<int64_t> shape,
                            ValueRange sizes) {
  Value acc = init;
  if (!cast<MemRefType>(init.getType()).getElementType().isF32()) {
    acc = ws.alloc(shape, sizes);
    rounds.push_back({acc, init});
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  ws.token = gpu::MemsetOp::create(b, loc, ws.tokenType, ValueRange{ws.token},
                                   acc, zero)
                 .getAsyncToken();
  return acc;
}

void GradAccumulators::launchRounds(const GPUTarget &target) {
  IndexArith ix(b, loc);
  constexpr int64_t kRoundThreads = 256;
  Value one = ix.idx(1);
  for (auto [acc, init] : rounds) {
    auto round =
        gpu::LaunchOp::create(b, loc, ix.idx(8 * target.multiprocessors), one,
                              one, ix.idx(kRoundThreads), one, one, nullptr,
                              ws.tokenType, ValueRange{ws.token});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&round.getBody().front());
    buildRound(b, loc, round, kRoundThreads, acc, init);
    gpu::TerminatorOp::create(b, loc);
    ws.token = round.getAsyncToken();
  }
}

gpu::LaunchOp softmax::detail::launchGradWeights(OpBuilder &b, Location loc,
                                                 LinearCrossEntropyGradOp op,
                                                 const GPUTarget &target,
                                                 StreamWorkspace &ws,
                                                 const GradBuffers &out) {
  IndexArith ix(b, loc);
  Value one = ix.idx(1);
  int64_t threads = std::min<int64_t>(1024, target.maxThreadsPerBlock);
  auto perWarp = MemRefType::get(
      {threads / target.warpSize}, b.getF32Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  auto weights = gpu::LaunchOp::create(
      b, loc, one, one, one, ix.idx(threads), one, one, nullptr, ws.tokenType,
      ValueRange{ws.token}, TypeRange{perWarp});
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&weights.getBody().front());
  buildWeights(b, loc, op, weights, threads, target.warpSize, out.weights,
               out.counts);
  gpu::TerminatorOp::create(b, loc);
  ws.token = weights.getAsyncToken();
  return weights;
}

LogicalResult softmax::detail::checkGradTile(LinearCrossEntropyGradOp op,
                                             int64_t tileTokens,
                                             int64_t tileClasses) {
  // The filter judges the kernel's tile: a tile the op names is a contract
  // where it changes the result (a filter) or what is reported (counts).
  bool tileMatters =
      op.getFilterOrDefault() > 0 || op.getFilterCountsInit() != nullptr;
  if (!tileMatters || (op.getTokenTileOr(tileTokens) == tileTokens &&
                       op.getVocabTileOr(tileClasses) == tileClasses))
    return success();
  InFlightDiagnostic diag = op.emitOpError()
                            << "GPU kernel filters tiles of " << tileTokens
                            << " tokens x " << tileClasses
                            << " classes, not what the op names:";
  if (auto n = op.getTokenTile())
    diag << " token_tile(" << *n << ")";
  if (auto v = op.getVocabTile())
    diag << " vocab_tile(" << *v << ")";
  return diag << " (leave them out to take the kernel's, or use filter(0.0) "
                 "without filter_counts)";
}

LogicalResult mlir::softmax::mapLinearCrossEntropyGradOpToGPU(
    RewriterBase &rewriter, LinearCrossEntropyGradOp op,
    const GPUTarget &target, const GPUTargetHooks &hooks) {
  if (failed(checkCrossEntropyBuffers(op, op.getHidden())))
    return failure();
  if (target.warpgroupMma)
    return mapLinearCrossEntropyGradChunked(rewriter, op, target, hooks);
  auto hType = cast<MemRefType>(op.getHidden().getType());
  Type elt = hType.getElementType();
  int64_t d = hType.getDimSize(1);

  // The logits' tile (the forward's) and the two products of du by chunks
  // of W and h, whose inner dimension is the tile's classes or tokens.
  // The token rows halve until the tiles, du and the vote's flag fit the
  // target's workgroup memory: on CDNA (64 KiB) the forward's 128 tokens
  // x 128 classes with du take 69 KiB, 64 tokens 44 KiB.
  Location loc = op.getLoc();
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  bool exact = op.getFilterOrDefault() == 0;
  std::unique_ptr<TileMma> mma, prodH, prodW;
  TileMmaConfig logitsConfig;
  SmallVector<MemRefType> tileTypes;
  int64_t tileBytes = 0;
  for (int64_t warpRows = TileMmaConfig().warpRows;; warpRows /= 2) {
    logitsConfig = TileMmaConfig();
    logitsConfig.elt = elt;
    logitsConfig.warpRows = warpRows;
    mma = hooks.makeTileMma(rewriter, loc, logitsConfig);
    if (!mma)
      break;
    logitsConfig = mma->getConfig();
    // du W: [tokens, a chunk of D] over the tile's classes; du^T h:
    // [classes, a chunk of D] over its tokens. Both read du (one buffer)
    // and the chunk the logits' schedule staged, by inner rows.
    TileMmaConfig p = logitsConfig;
    p.warpCols = logitsConfig.kTile / p.warpsN;
    p.stages = 1;
    p.bByInner = true;
    p.warpRows = logitsConfig.blockRows() / p.warpsM;
    p.kTile = logitsConfig.blockCols();
    prodH = hooks.makeTileMma(rewriter, loc, p);
    p.aByInner = true;
    p.warpRows = logitsConfig.blockCols() / p.warpsM;
    p.kTile = logitsConfig.blockRows();
    prodW = hooks.makeTileMma(rewriter, loc, p);
    if (!prodH || !prodW)
      break;
    tileTypes = mma->tileBuffers(workgroup);
    // du: [hi (, lo in exact mode)][tokens][classes + padding].
    MemRefType duType = prodH->tileBuffers(workgroup)[0];
    tileTypes.push_back(MemRefType::get(
        {exact ? 2 : 1, duType.getDimSize(1), duType.getDimSize(2)}, elt,
        MemRefLayoutAttrInterface(), workgroup));
    // The vote's flag after the tiles, in the same pool (SharedTiles.h),
    // and class_max's where it bounds tiles.
    int64_t flags = op.getClassMax() && op.getFilterOrDefault() > 0 ? 2 : 1;
    tileTypes.push_back(MemRefType::get({flags}, rewriter.getI32Type(),
                                        MemRefLayoutAttrInterface(), workgroup));
    tileBytes = 0;
    for (MemRefType t : tileTypes)
      tileBytes += t.getNumElements() * t.getElementTypeBitWidth() / 8;
    if (tileBytes <= target.maxSharedMemoryPerBlock || warpRows <= 16)
      break;
  }
  if (!mma || !prodH || !prodW)
    return op.emitOpError()
           << "has no GPU kernel for " << elt << " inputs on " << target.chip
           << " (the linear cross-entropy's gradient runs f16 and bf16 on "
              "NVIDIA tensor cores and CDNA matrix cores; decompose it on "
              "tensors for the CPU)";
  int64_t tileTokens = logitsConfig.blockRows(),
          tileClasses = logitsConfig.blockCols();
  if (failed(checkGradTile(op, tileTokens, tileClasses)))
    return failure();
  if (tileBytes > target.maxSharedMemoryPerBlock)
    return op.emitOpError() << "GPU mapping needs " << tileBytes
                            << " bytes of workgroup memory; " << target.chip
                            << " has " << target.maxSharedMemoryPerBlock;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  IndexArith ix(rewriter, loc);
  MLIRContext *ctx = rewriter.getContext();
  Value tokens = memref::DimOp::create(rewriter, loc, op.getHidden(), 0);
  Value classes = memref::DimOp::create(rewriter, loc, op.getClassifier(), 0);
  Value one = ix.idx(1);
  int64_t dyn = ShapedType::kDynamic;
  // Hidden and classifier are copied 16 bytes at a time; an f32 gradient
  // init is an accumulator, added to in pairs of 8 bytes.
  SmallVector<Value> aligned = {op.getHidden(), op.getClassifier()};
  for (Value init : {op.getGradHiddenInit(), op.getGradClassifierInit()})
    if (cast<MemRefType>(init.getType()).getElementType().isF32())
      aligned.push_back(init);
  assertAligned16(rewriter, loc, aligned,
                  "softmax.linear_cross_entropy_grad on the GPU needs hidden, "
                  "classifier (and f32 gradient) buffers aligned to 16 bytes");

  // Workspace in stream order: the weights, and an f32 accumulator per
  // gradient whose init is not f32 (an f32 init accumulates in place).
  StreamWorkspace ws(rewriter, loc);
  Type tokenType = ws.tokenType;
  Value &token = ws.token;
  GradAccumulators accumulators(rewriter, loc, ws);
  GradBuffers out;
  out.weights = ws.alloc({dyn}, tokens);
  out.gh = accumulators.get(op.getGradHiddenInit(), {dyn, d}, tokens);
  out.gw = accumulators.get(op.getGradClassifierInit(), {dyn, d}, classes);
  if (Value gb = op.getGradBiasInit())
    out.gb = accumulators.get(gb, {dyn}, classes);
  out.counts = op.getFilterCountsInit();
  launchGradWeights(rewriter, loc, op, target, ws, out);

  // Step 2: a block per tile (at least one per grid dimension).
  auto tilesOf = [&](Value n, int64_t per) {
    return ix.maxI(arith::CeilDivUIOp::create(rewriter, loc, n, ix.idx(per)),
                   one);
  };
  auto tiles = gpu::LaunchOp::create(
      rewriter, loc, tilesOf(tokens, tileTokens), tilesOf(classes, tileClasses),
      one, ix.idx(logitsConfig.warps() * mma->lanes()), one, one,
      arith::ConstantIntOp::create(rewriter, loc, tileBytes, 32).getResult(),
      tokenType, ValueRange{token});
  tiles->setAttr(SoftmaxDialect::getStrategyAttrName(),
                 CrossEntropyGPUStrategyAttr::get(
                     ctx,
                     target.vendor == GPUVendor::NVIDIA
                         ? MatrixInstruction::M16n8k16
                         : MatrixInstruction::Mfma16x16x16,
                     tileTokens, tileClasses, logitsConfig.kTile,
                     logitsConfig.stages, std::nullopt));
  {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(&tiles.getBody().front());
    SmallVector<Value> smem = viewDynamicSharedMemory(rewriter, loc, tileTypes);
    buildGradTiles(rewriter, loc, op, *mma, prodH.get(), prodW.get(), out,
                   tiles, smem);
    gpu::TerminatorOp::create(rewriter, loc);
  }
  token = tiles.getAsyncToken();

  accumulators.launchRounds(target);
  ws.finish();
  rewriter.eraseOp(op);
  return success();
}
