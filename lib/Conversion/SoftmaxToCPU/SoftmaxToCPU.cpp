//===- SoftmaxToCPU.cpp - softmax ops on buffers -> vector loops ----------===//
//
// Each op becomes one scf.parallel over its rows; the body (RowKernel) folds
// the row with per-lane states and writes it (docs/Passes/
// softmax-map-to-cpu.md). Upstream's vectorizer has no fold whose combiner
// rescales its accumulators (online, exp_pair), so the loops are built here
// directly at the target's vector width.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"

#include "RowKernel.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Host.h"
#include <unistd.h>

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

CPUTarget mlir::softmax::hostCPUTarget() {
  CPUTarget t;
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    t.vectorBits = 512;
  else if (features.lookup("avx2") || features.lookup("avx"))
    t.vectorBits = 256;
  else
    t.vectorBits = 128;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  if (long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE); l1 > 0)
    t.l1Bytes = l1;
  if (long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0)
    t.l2Bytes = l2;
#endif
  return t;
}

CPUStrategy mlir::softmax::chooseCPUStrategy(const CPUTarget &target,
                                             std::optional<int64_t> rowBytes) {
  CPUStrategy s;
  s.vectorWidth = target.vectorBits / 32;
  // Four independent accumulators cover the 4-cycle latency of a vector
  // add or fma at two issues per cycle without running out of registers
  // (each exp needs about six live vectors).
  s.unroll = 4;
  s.block = 16;
  // three_pass's sweeps (bench/results/cpu_softmax.md, one thread): a row
  // that fits L1 is cheapest tiled (its second read hits L1 either way, and
  // tiled stores once where reload stores twice); one that fits half of L2
  // is cheapest with reload (it saves an exp per element and y stays in
  // L2); beyond that tiled reads the row from memory twice, not three
  // times. Dynamic rows get tiled, which is never the worst.
  if (rowBytes && *rowBytes > target.l1Bytes &&
      *rowBytes <= target.l2Bytes / 2)
    s.threePass = ThreePassVariant::Reload;
  else
    s.threePass = ThreePassVariant::Tiled;
  return s;
}

CPUStrategy mlir::softmax::applyCPUOverrides(CPUStrategy s,
                                             const CPUStrategy &overrides) {
  if (overrides.vectorWidth)
    s.vectorWidth = overrides.vectorWidth;
  if (overrides.unroll)
    s.unroll = overrides.unroll;
  if (overrides.block)
    s.block = overrides.block;
  if (overrides.threePass != ThreePassVariant::Auto)
    s.threePass = overrides.threePass;
  s.exp = overrides.exp;
  return s;
}

LogicalResult mlir::softmax::checkCPUStrategy(Operation *op,
                                              const CPUStrategy &s) {
  if (s.vectorWidth < 1 || s.vectorWidth > 64 ||
      !llvm::isPowerOf2_64(s.vectorWidth))
    return op->emitOpError() << "vector width " << s.vectorWidth
                             << " is not a power of two in [1, 64]";
  if (s.unroll < 1 || s.unroll > 16)
    return op->emitOpError() << "unroll " << s.unroll
                             << " is not in [1, 16]";
  if (s.block < 1 || s.block > kCPUBlockRange.max)
    return op->emitOpError() << "block " << s.block << " is not in [1, "
                             << kCPUBlockRange.max << "]";
  return success();
}

std::optional<std::string>
mlir::softmax::whyNotMappableToCPU(Operation *op, bool requireBuffers) {
  if (auto topk = dyn_cast<TopKOp>(op)) {
    SmallVector<Value> buffers = {topk.getInput(), topk.getProbsInit(),
                                  topk.getIndicesInit()};
    if (Value lp = topk.getLogProbsInit())
      buffers.push_back(lp);
    // The kernel indexes [row, column] and loads vectors along a row: rows
    // of a larger buffer (a slice) are read in place.
    return whyNotContiguousBuffers(buffers, "CPU mapping", requireBuffers,
                                   StridedBuffers::UnitStrideRows);
  }
  auto semantic = dyn_cast<SemanticOpInterface>(op);
  if (!semantic || isa<AttentionOp>(op))
    return std::string("is not a softmax, log_softmax or logsumexp op");
  // A logsumexp's outputs are stored one element per row (`stored`); the
  // other outputs are written in vectors along the rows, as the input is
  // read.
  SmallVector<Value> buffers(semantic.getInputs()), stored;
  if (semantic.getNormalizeKind())
    llvm::append_range(buffers, semantic.getDestinations());
  else
    llvm::append_range(stored, semantic.getDestinations());
  // An input reduced along its last dimension is read in vectors along each
  // row, as are its outputs: rows of a larger buffer (a slice with outer
  // strides, such as logits[:, -1:, :] or a range of heads) are read and
  // written in place (a logsumexp's outputs with any strides). A reduction
  // along another dimension collapses the buffers into [outer, n, inner],
  // which needs them contiguous.
  auto in = cast<ShapedType>(semantic.getInputs().front().getType());
  bool rowsInPlace = semantic.getReductionDimension() == in.getRank() - 1;
  if (auto why = whyNotContiguousBuffers(
          buffers, "CPU mapping", requireBuffers,
          rowsInPlace ? StridedBuffers::UnitStrideRows
                      : StridedBuffers::Refused))
    return why;
  if (auto why = whyNotContiguousBuffers(stored, "CPU mapping",
                                         requireBuffers,
                                         rowsInPlace ? StridedBuffers::AnyStrides
                                                     : StridedBuffers::Refused))
    return why;
  return whyNotF32Accumulated(semantic, "CPU mapping");
}

/// `memref` (identity layout) viewed as [outer, n, inner] around dimension
/// `dim`: the dimensions before it collapsed into one (a unit one if there
/// are none), the dimensions after it into another. With `reduced`, the
/// memref lacks `dim` (a logsumexp output) and becomes [outer, inner].
static Value collapseAround(OpBuilder &b, Location loc, Value memref,
                            int64_t dim, bool reduced = false) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  int64_t innerStart = reduced ? dim : dim + 1;
  SmallVector<ReassociationIndices> groups;
  if (dim > 0)
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, dim)));
  if (!reduced)
    groups.push_back({dim});
  groups.push_back(llvm::to_vector(llvm::seq<int64_t>(innerStart, rank)));
  Value collapsed = collapseGroups(b, loc, memref, groups);
  if (dim > 0)
    return collapsed;
  // No dimension before `dim`: add the unit outer dimension.
  auto cType = cast<MemRefType>(collapsed.getType());
  SmallVector<int64_t> shape = {1};
  llvm::append_range(shape, cType.getShape());
  SmallVector<ReassociationIndices> expand = {{0, 1}};
  for (int64_t i = 1; i < cType.getRank(); ++i)
    expand.push_back({i + 1});
  SmallVector<OpFoldResult> outShape = {b.getIndexAttr(1)};
  for (int64_t i = 0; i < cType.getRank(); ++i)
    outShape.push_back(
        cType.isDynamicDim(i)
            ? OpFoldResult(memref::DimOp::create(b, loc, collapsed, i).getResult())
            : OpFoldResult(b.getIndexAttr(cType.getDimSize(i))));
  return memref::ExpandShapeOp::create(
      b, loc, MemRefType::get(shape, cType.getElementType()), collapsed,
      expand, outShape);
}

/// Row `outer` (its indices before the last dimension) of `memref` as a
/// [1, n] view, or as [1] when `reduced` (a logsumexp output, which lacks
/// the rows' dimension): a subview of the row with its unit outer
/// dimensions collapsed (not a rank-reducing subview, which may drop n
/// itself when n is 1), or a unit dimension added when there are none.
static Value rowView(OpBuilder &b, Location loc, Value memref,
                     ValueRange outer, bool reduced) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank(), viewRank = reduced ? 1 : 2;
  Value view = memref;
  if (!outer.empty()) {
    SmallVector<OpFoldResult> offsets = getAsOpFoldResult(outer);
    SmallVector<OpFoldResult> sizes(outer.size(), b.getIndexAttr(1));
    if (!reduced) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(memref::getMixedSize(b, loc, memref, rank - 1));
    }
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    view = memref::SubViewOp::create(b, loc, memref, offsets, sizes, strides);
  }
  if (rank > viewRank) {
    SmallVector<ReassociationIndices> groups(1);
    for (int64_t d = 0; d <= rank - viewRank; ++d)
      groups[0].push_back(d);
    if (!reduced)
      groups.push_back({rank - 1});
    return memref::CollapseShapeOp::create(b, loc, view, groups);
  }
  if (rank == viewRank)
    return view;
  SmallVector<int64_t> shape = {1};
  SmallVector<OpFoldResult> outShape = {b.getIndexAttr(1)};
  SmallVector<ReassociationIndices> groups;
  if (!reduced) {
    shape.push_back(type.getDimSize(0));
    outShape.push_back(memref::getMixedSize(b, loc, memref, 0));
    groups.push_back({0, 1});
  }
  return memref::ExpandShapeOp::create(b, loc, shape, view, groups, outShape);
}

LogicalResult mlir::softmax::mapSoftmaxOpToCPU(RewriterBase &rewriter,
                                               Operation *op,
                                               const CPUTarget &target,
                                               const CPUStrategy &overrides) {
  if (std::optional<std::string> why = whyNotMappableToCPU(op))
    return op->emitOpError(*why);
  auto semantic = cast<SemanticOpInterface>(op);
  // An op softmax-select-algorithm has not resolved gets its CPU choice
  // (the pass's default l2-bytes), the same function with the same target.
  Algorithm alg = semantic.getAlgorithm();
  if (alg == Algorithm::Auto)
    alg = selectAlgorithm(semantic, CostModelTarget::CPU);
  Request req = rowKernelRequest(semantic, alg);

  auto inType = cast<MemRefType>(req.input.getType());
  auto outType = cast<MemRefType>(req.output.getType());
  // The bytes one iteration of the parallel loop touches: a row, or across
  // rows a reduction's worth of vectors.
  int64_t dim = semantic.getReductionDimension();
  bool across = dim != inType.getRank() - 1;
  std::optional<int64_t> rowBytes;
  if (!inType.isDynamicDim(dim))
    rowBytes = inType.getDimSize(dim) *
               (inType.getElementTypeBitWidth() +
                (req.normalize ? outType.getElementTypeBitWidth() : 0)) /
               8 * (across ? target.vectorBits / 32 : 1);
  CPUStrategy s =
      applyCPUOverrides(chooseCPUStrategy(target, rowBytes), overrides);
  // A request on the op wins over the pass options.
  if (Attribute request = op->getAttr(SoftmaxDialect::getStrategyAttrName())) {
    auto cpu = dyn_cast<CPUStrategyAttr>(request);
    if (!cpu)
      return op->emitOpError() << "asks for " << request
                               << "; the CPU mapping takes a "
                                  "#softmax.cpu_strategy";
    if (std::optional<Algorithm> asked = cpu.getAlgorithm();
        asked && *asked != alg)
      return op->emitOpError()
             << "strategy asks for algorithm " << stringifyAlgorithm(*asked)
             << ", but the op's algorithm is " << stringifyAlgorithm(alg);
    if (cpu.getThreePass() && alg != Algorithm::ThreePass)
      return op->emitOpError()
             << "strategy asks for three_pass = "
             << stringifyThreePassVariant(*cpu.getThreePass())
             << ", but the op's algorithm is " << stringifyAlgorithm(alg);
    s = applyCPUStrategyAttr(s, cpu);
  }
  if (failed(checkCPUStrategy(op, s)))
    return failure();
  if (alg != Algorithm::ThreePass)
    s.threePass = ThreePassVariant::Auto;
  // reload only changes softmax: the other outputs need no exp to reload.
  if (s.threePass == ThreePassVariant::Reload &&
      req.normalize != NormalizeKind::Softmax)
    s.threePass = ThreePassVariant::Recompute;

  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  IndexArith ix(rewriter, loc);
  // Rows with outer strides at a rank other than 2 cannot be collapsed into
  // [rows, n] in general (a range of heads: [B, h, S, n] with B's stride
  // above h * S * n): the loop runs over the outer dimensions and views
  // each row in place.
  bool rowViews = !across && inType.getRank() != 2 &&
                  !(inType.getLayout().isIdentity() &&
                    outType.getLayout().isIdentity());
  Value x, y;
  if (rowViews) {
    x = req.input;
    y = req.output;
  } else if (across) {
    x = collapseAround(rewriter, loc, req.input, dim);
    y = req.normalize ? collapseAround(rewriter, loc, req.output, dim)
                      : collapseAround(rewriter, loc, req.output, dim,
                                       /*reduced=*/true);
  } else {
    x = collapseToRank(rewriter, loc, req.input, 2);
    y = collapseToRank(rewriter, loc, req.output, req.normalize ? 2 : 1);
  }
  Value n = memref::DimOp::create(rewriter, loc, x,
                                  rowViews ? inType.getRank() - 1 : 1);
  // The full groups of `unroll` vectors end at nMain; the rest is the tail.
  Value group = ix.idx(s.unroll * (across ? 1 : s.vectorWidth));
  Value nMain = arith::SubIOp::create(
      rewriter, loc, n, arith::RemUIOp::create(rewriter, loc, n, group));

  scf::ParallelOp par;
  if (rowViews) {
    // One iteration per row: over the outer dimensions (a single row when
    // there are none).
    int64_t outerRank = inType.getRank() - 1;
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d = 0; d < std::max<int64_t>(outerRank, 1); ++d) {
      lbs.push_back(ix.idx(0));
      ubs.push_back(outerRank ? memref::DimOp::create(rewriter, loc, x, d)
                                    .getResult()
                              : ix.idx(1));
      steps.push_back(ix.idx(1));
    }
    par = scf::ParallelOp::create(
        rewriter, loc, lbs, ubs, steps,
        [&](OpBuilder &, Location, ValueRange ivs) {
          ValueRange outer = outerRank ? ivs : ValueRange{};
          Value xRow = rowView(rewriter, loc, x, outer, /*reduced=*/false);
          Value yRow = rowView(rewriter, loc, y, outer,
                               /*reduced=*/!req.normalize);
          Lanes lanes;
          lanes.row = ix.idx(0);
          RowKernel(rewriter, loc, req, alg, s, xRow, yRow, lanes, n, nMain)
              .build();
        });
  } else if (!across) {
    par = scf::ParallelOp::create(
        rewriter, loc, ValueRange{ix.idx(0)},
        ValueRange{memref::DimOp::create(rewriter, loc, x, 0)},
        ValueRange{ix.idx(1)}, [&](OpBuilder &, Location, ValueRange ivs) {
          Lanes lanes;
          lanes.row = ivs[0];
          RowKernel(rewriter, loc, req, alg, s, x, y, lanes, n, nMain).build();
        });
  } else {
    // One iteration per (outer index, chunk of vectorWidth columns); no
    // outer dimension when it is 1.
    Value inner = memref::DimOp::create(rewriter, loc, x, 2);
    Value width = ix.idx(s.vectorWidth);
    Value chunks = arith::CeilDivUIOp::create(rewriter, loc, inner, width);
    bool unitOuter = cast<MemRefType>(x.getType()).getDimSize(0) == 1;
    SmallVector<Value> lbs = {ix.idx(0)}, ubs = {chunks}, steps = {ix.idx(1)};
    if (!unitOuter) {
      lbs.push_back(ix.idx(0));
      ubs.insert(ubs.begin(), memref::DimOp::create(rewriter, loc, x, 0));
      steps.push_back(ix.idx(1));
    }
    par = scf::ParallelOp::create(
        rewriter, loc, lbs, ubs, steps,
        [&](OpBuilder &, Location, ValueRange ivs) {
          Lanes lanes;
          lanes.across = true;
          lanes.outer = unitOuter ? ix.idx(0) : ivs[0];
          lanes.col = arith::MulIOp::create(rewriter, loc, ivs.back(), width);
          lanes.colMask = vector::CreateMaskOp::create(
              rewriter, loc,
              VectorType::get({s.vectorWidth}, rewriter.getI1Type()),
              ValueRange{
                  arith::SubIOp::create(rewriter, loc, inner, lanes.col)});
          RowKernel(rewriter, loc, req, alg, s, x, y, lanes, n, nMain).build();
        });
  }
  par->setAttr(SoftmaxDialect::getStrategyAttrName(),
               getCPUStrategyAttr(rewriter.getContext(), alg, s));
  expandVectorExp(par, s.exp == VectorExp::Polynomial);
  rewriter.eraseOp(op);
  return success();
}
