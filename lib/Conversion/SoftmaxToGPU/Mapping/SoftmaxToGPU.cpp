//===- SoftmaxToGPU.cpp - softmax ops on buffers -> gpu.launch -----------===//
//
// Every kernel follows one plan (docs/Passes/softmax-map-to-gpu.md):
//
//   1. each thread loads its vectors of the row (16-byte loads, -inf past
//      the end) and folds them into a thread state (m, l);
//   2. the threads of a row merge their states: xor shuffles within a warp,
//      workgroup memory across warps;
//   3. split rows: every block publishes its chunk's state, waits until the
//      row's other blocks have published theirs, and merges them all;
//   4. each thread writes its vectors, normalized, from the registers that
//      still hold them (or re-reads the row when it was too long to keep).
//
// Upstream has no op for a row-wise online reduction with a merge that is
// not a plain arithmetic combiner, so the mapping builds the kernel itself
// from gpu.shuffle, gpu.barrier and workgroup attributions.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"

#include "KernelBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

GPUTargetHooks::~GPUTargetHooks() = default;

LogicalResult GPUTargetHooks::checkKernelName(Operation *, StringRef) const {
  return success();
}

void GPUTargetHooks::buildClusterArrive(OpBuilder &, Location) const {
  llvm_unreachable("the mapping asks for clusters only where the target "
                   "has them");
}

void GPUTargetHooks::buildClusterWait(OpBuilder &, Location) const {
  llvm_unreachable("the mapping asks for clusters only where the target "
                   "has them");
}

Value GPUTargetHooks::loadClusterShared(OpBuilder &, Location, Value, Value,
                                        Value) const {
  llvm_unreachable("the mapping asks for clusters only where the target "
                   "has them");
}

LogicalResult mlir::softmax::mapSoftmaxOpToGPU(RewriterBase &rewriter,
                                               Operation *op,
                                               const GPUTarget &target,
                                               const GPUTargetHooks &hooks,
                                               const GPUStrategy &overrides) {
  auto semantic = dyn_cast<SemanticOpInterface>(op);
  if (!semantic || isa<AttentionOp>(op))
    return op->emitOpError("is not a softmax, log_softmax or logsumexp op");
  // An op softmax-select-algorithm has not resolved gets its GPU choice,
  // the same function with the same target (online, what the kernels
  // below were tuned for).
  Algorithm alg = semantic.getAlgorithm();
  if (alg == Algorithm::Auto)
    alg = selectAlgorithm(semantic, CostModelTarget::GPU);
  Request req = rowKernelRequest(semantic, alg);
  if (auto why =
          whyNotContiguousBuffers({req.input, req.output}, "GPU mapping"))
    return op->emitOpError(*why);
  auto inType = cast<MemRefType>(req.input.getType());
  auto outType = cast<MemRefType>(req.output.getType());
  int64_t dim = semantic.getReductionDimension();
  if (dim != inType.getRank() - 1)
    return op->emitOpError() << "GPU mapping reduces the innermost dimension "
                                "only, not dimension "
                             << dim << " of rank " << inType.getRank();
  if (auto why = whyNotF32Accumulated(semantic, "GPU mapping"))
    return op->emitOpError(*why);

  std::optional<int64_t> rowLength, rowCount;
  if (!inType.isDynamicDim(dim))
    rowLength = inType.getDimSize(dim);
  if (llvm::none_of(inType.getShape().drop_back(), ShapedType::isDynamic)) {
    // No overflow: whyNotContiguousBuffers bounds the element count.
    int64_t r = 1;
    for (int64_t d : inType.getShape().drop_back())
      r *= d;
    rowCount = r;
  }
  // No row: nothing to read or write, no kernel (a grid of 0 blocks is not
  // a launch either runtime accepts).
  if (rowCount == 0) {
    rewriter.eraseOp(op);
    return success();
  }
  // The widest element a vector moves sizes the vectors. logsumexp writes
  // one value a row, not a row: its input's alone (bf16 rows with an f32
  // result read 16 bytes a load, not 8).
  unsigned elementBytes =
      (isa<LogSumExpOp>(op) ? inType.getElementTypeBitWidth()
                            : std::max(inType.getElementTypeBitWidth(),
                                       outType.getElementTypeBitWidth())) /
      8;
  bool readsOnce = isa<LogSumExpOp>(op) && alg != Algorithm::ThreePass;
  GPUStrategy s = chooseGPUStrategy(target, rowLength, rowCount, elementBytes,
                                    readsOnce, alg == Algorithm::ExpPair);
  if (overrides.threadsPerRow)
    s.threadsPerRow = overrides.threadsPerRow;
  if (overrides.rowsPerBlock)
    s.rowsPerBlock = overrides.rowsPerBlock;
  if (overrides.vectorWidth)
    s.vectorWidth = overrides.vectorWidth;
  if (overrides.cachedVectors)
    s.cachedVectors = overrides.cachedVectors;
  if (overrides.splits)
    s.splits = overrides.splits;
  if (overrides.splitMerge)
    s.splitMerge = overrides.splitMerge;
  // A request on the op, `softmax.strategy = #softmax.gpu_strategy<...>`,
  // wins over the pass options.
  bool requestedUnroll = false, requestedReread = false;
  if (Attribute request = op->getAttr(SoftmaxDialect::getStrategyAttrName())) {
    auto gpu = dyn_cast<GPUStrategyAttr>(request);
    if (!gpu)
      return op->emitOpError() << "asks for " << request
                               << "; the GPU mapping takes a "
                                  "#softmax.gpu_strategy";
    s = applyGPUStrategyAttr(s, gpu);
    requestedUnroll = gpu.getUnroll().has_value();
    requestedReread = gpu.getReread().has_value();
  }
  // The options' unroll is for the rows that stream, their reread order
  // for the rows read again; a request's applies to its op whatever it is
  // (checked below).
  if (overrides.unroll && !requestedUnroll && s.cachedVectors == 0)
    s.unroll = overrides.unroll;
  bool rereads = s.cachedVectors == 0 && !readsOnce;
  if (overrides.reread && !requestedReread && rereads)
    s.reread = overrides.reread;

  // Every field within the range of its option (SoftmaxToGPU.h), however
  // it was asked for: the pass options are checked against the same table
  // up front, a #softmax.gpu_strategy request's verifier checks only its
  // structure, and the C++ overrides are checked nowhere else. Here 0 is a
  // value of its own only for cached vectors (the row is streamed).
  const std::pair<OptionRange, int64_t> fields[] = {
      {kGPUThreadsPerRowRange, s.threadsPerRow},
      {kGPURowsPerBlockRange, s.rowsPerBlock},
      {kGPUVectorWidthRange, s.vectorWidth},
      {kGPUCachedVectorsRange, s.cachedVectors},
      {kGPUUnrollRange, s.unroll},
      {kGPUSplitsRange, s.splits}};
  for (auto [range, value] : fields) {
    if (value == 0 && range.name == kGPUCachedVectorsRange.name)
      continue;
    range.zero = {};
    if (std::optional<std::string> why = range.check(value))
      return op->emitOpError() << "strategy: " << *why;
  }
  // Each factor is at most 1024 (above): the product does not overflow.
  if (s.threadsPerRow * s.rowsPerBlock > target.maxThreadsPerBlock)
    return op->emitOpError()
           << "threads per row (" << s.threadsPerRow
           << ") times rows per block (" << s.rowsPerBlock
           << ") must be at most " << target.maxThreadsPerBlock << " threads";
  if (s.threadsPerRow > target.warpSize && s.rowsPerBlock != 1)
    return op->emitOpError("rows per block must be 1 when a row spans more "
                           "than one warp");
  if (s.splits > target.warpSize)
    return op->emitOpError()
           << "splits (" << s.splits << ") exceed the warp size "
           << target.warpSize << ": one warp merges the states of a row";
  // Registers hold a cached row whole: there is nothing to unroll.
  if (s.cachedVectors > 0 && s.unroll > 1)
    return op->emitOpError()
           << "unroll (" << s.unroll
           << ") applies to streamed rows; ask for cached_vectors = 0 or "
              "unroll = 1";
  // Registers hold a cached row, and logsumexp reads its row once: only a
  // streamed row read again has a second pass to turn around.
  if (s.reread == RereadOrder::Reverse && !rereads)
    return op->emitOpError()
           << "reread = reverse applies to streamed rows read again "
              "(softmax, log_softmax or three_pass with cached_vectors = 0); "
              "this one "
           << (s.cachedVectors > 0 ? "keeps its row in registers"
                                   : "reads its row once");
  // By default a streamed row's second pass runs backwards on NVIDIA: it
  // starts on the bytes the first pass read last, which L2 still holds.
  // Measured on an H100 in one process (bench/results/vocab_defaults/
  // README.md, "reread = reverse"): bf16 softmax 4096x128256 2252 GB/s
  // against 2037, 256x262144 1733 against 1613, 512x262144 2007 against
  // 1925, 256x128256 2025 against 1977, 1024x50257 2126 against 2074,
  // log_softmax 256x128256 and 512x262144 +3% and +5%; 200x128256 1866
  // against 1905, within its spread. On the H200 (another run) +4-6% on
  // 4096x128256, 256x262144, 512x262144 and log_softmax 512x262144, within
  // 0.5-2.6% either way on the smaller shapes. CDNA keeps forward (not
  // measured).
  RereadOrder byDefault = target.vendor == GPUVendor::NVIDIA
                              ? RereadOrder::Reverse
                              : RereadOrder::Forward;
  s.reread = rereads ? std::optional(s.reread.value_or(byDefault))
                     : std::nullopt;
  // Any width takes any row length: rows that are not a multiple of it are
  // peeled (rowSpan). Registers cover a row only of a known length.
  if (s.cachedVectors > 0 && !rowLength)
    return op->emitOpError("cached vectors need a static row length; ask "
                           "for 0 to stream the row twice");
  if (s.splits > 1) {
    if (!rowLength)
      return op->emitOpError("split rows need a static row length");
    int64_t chunk = splitChunkElements(s, *rowLength);
    int64_t span = rowSpan(s.vectorWidth, *rowLength);
    if (chunk * s.splits < span || chunk * (s.splits - 1) >= *rowLength)
      return op->emitOpError()
             << "splits (" << s.splits << ") of " << chunk
             << " elements do not tile the row length " << *rowLength;
    if (s.splits > target.multiprocessors)
      return op->emitOpError()
             << "splits (" << s.splits << ") exceed the "
             << target.multiprocessors
             << " multiprocessors: the blocks of a row could not all be "
                "resident while they wait for each other";
    if (s.splitMerge == SplitMerge::Cluster && !target.maxClusterBlocks)
      return op->emitOpError()
             << "split_merge = cluster needs thread-block clusters (NVIDIA "
                "sm_90 and later), which "
             << target.chip << " does not have";
    if (s.splitMerge == SplitMerge::Cluster &&
        s.splits > target.maxClusterBlocks)
      return op->emitOpError()
             << "splits (" << s.splits << ") exceed the "
             << target.maxClusterBlocks << " blocks of a cluster on "
             << target.chip << "; ask for split_merge = global";
  } else if (s.cachedVectors > 0 && rowLength &&
             s.cachedVectors * s.threadsPerRow * s.vectorWidth <
                 rowSpan(s.vectorWidth, *rowLength)) {
    return op->emitOpError()
           << "cached vectors (" << s.cachedVectors
           << ") do not cover the row length " << *rowLength << " ("
           << s.threadsPerRow << " threads of " << s.vectorWidth
           << "-element vectors); ask for more cached vectors, or 0 to "
              "stream the row twice";
  }

  // CUDA and HIP grids hold at most 2^31 - 1 blocks in x.
  if (rowCount) {
    int64_t blocks = llvm::divideCeil(*rowCount, s.rowsPerBlock), total;
    if (llvm::MulOverflow(blocks, s.splits, total) || total > INT32_MAX)
      return op->emitOpError()
             << "GPU mapping would launch " << blocks << " x " << s.splits
             << " blocks; a grid holds at most 2147483647";
  }

  Location loc = op->getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Value x = collapseToRank(rewriter, loc, req.input, 2);
  Value y = collapseToRank(rewriter, loc, req.output, req.normalize ? 2 : 1);
  Value rows = memref::DimOp::create(rewriter, loc, x, 0);
  Value n = memref::DimOp::create(rewriter, loc, x, 1);
  IndexArith ix(rewriter, loc);

  // Split rows need per-launch scratch (the states of the chunks, one
  // counter per row and the ticket counter), allocated and zeroed in stream
  // order before the launch and freed after it. Upstream lowers only the
  // async forms of these ops to runtime calls, so the launch joins the chain.
  bool cluster = s.mergesInCluster();
  SmallVector<Value> split;
  Type tokenType;
  Value token;
  if (s.splits > 1 && !cluster) {
    tokenType = gpu::AsyncTokenType::get(rewriter.getContext());
    token = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{})
                .getAsyncToken();
    int64_t rounds = req.algorithm == Algorithm::ThreePass ? 2 : 1;
    Value slots =
        arith::MulIOp::create(rewriter, loc, rows, ix.idx(s.splits * rounds));
    auto states = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic, 2}, rewriter.getF32Type()),
        tokenType, ValueRange{token}, ValueRange{slots}, ValueRange{});
    Value counterCount = arith::AddIOp::create(rewriter, loc, rows, ix.idx(1));
    auto counters = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI32Type()),
        tokenType, ValueRange{states.getAsyncToken()}, ValueRange{counterCount},
        ValueRange{});
    Value zero =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 0);
    token = gpu::MemsetOp::create(rewriter, loc, tokenType,
                                  ValueRange{counters.getAsyncToken()},
                                  counters.getMemref(), zero)
                .getAsyncToken();
    split = {states.getMemref(), counters.getMemref()};
  }

  Value grid;
  if (s.splits > 1)
    grid = arith::MulIOp::create(rewriter, loc, rows, ix.idx(s.splits));
  else
    grid =
        arith::CeilDivUIOp::create(rewriter, loc, rows, ix.idx(s.rowsPerBlock));
  Value one = ix.idx(1);
  int64_t warps = std::max<int64_t>(1, s.threadsPerRow / target.warpSize);
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  auto smemType = MemRefType::get({warps}, rewriter.getF32Type(),
                                  MemRefLayoutAttrInterface(), workgroup);
  SmallVector<Type> attributions = {smemType, smemType};
  // The third buffer: the ticket of a global merge, or the states (m, l)
  // per round that the other blocks of a cluster read.
  if (cluster)
    attributions.push_back(MemRefType::get(
        {4}, rewriter.getF32Type(), MemRefLayoutAttrInterface(), workgroup));
  else if (s.splits > 1)
    attributions.push_back(MemRefType::get(
        {1}, rewriter.getI32Type(), MemRefLayoutAttrInterface(), workgroup));
  Value clusterBlocks = cluster ? ix.idx(s.splits) : Value();
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, grid, one, one, ix.idx(s.threadsPerRow * s.rowsPerBlock),
      one, one, /*dynamicSharedMemorySize=*/nullptr, tokenType,
      token ? ValueRange{token} : ValueRange{}, attributions,
      /*privateAttributions=*/TypeRange{}, clusterBlocks,
      cluster ? one : Value(), cluster ? one : Value());
  if (cluster) {
    // Upstream's builder adds the 12 id and size arguments of a launch
    // without clusters only; the parser, the verifier and the accessors
    // expect the cluster's ids and sizes (6 more) after them.
    Block &body = launch.getBody().front();
    for (unsigned i = 0; i < 6; ++i)
      body.insertArgument(12 + i, rewriter.getIndexType(), loc);
  }
  // The choice, visible in the IR.
  launch->setAttr(SoftmaxDialect::getStrategyAttrName(),
                  getGPUStrategyAttr(rewriter.getContext(), s));
  {
    OpBuilder::InsertionGuard bodyGuard(rewriter);
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    KernelBuilder kernel(rewriter, loc, req, s, target, hooks, x, y, rows, n);
    kernel.build(launch, split);
    gpu::TerminatorOp::create(rewriter, loc);
  }
  if (token) {
    token = launch.getAsyncToken();
    for (Value buffer : split)
      token = gpu::DeallocOp::create(rewriter, loc, tokenType,
                                     ValueRange{token}, buffer)
                  .getAsyncToken();
    gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{token});
  }
  rewriter.eraseOp(op);
  return success();
}
