//===- AttentionToCPU.cpp - softmax.attention on buffers -> vector loops --===//
//
// One iteration of an scf.parallel per query row (batch, head, query): the
// row's query stays in registers, keys are visited in blocks of
// `vectorWidth` (only the keys the causal and window limits let it see),
// and the online state (max, sum, output accumulator) is carried from block
// to block (docs/Attention.md, "CPU lowering"):
//
//   s_t = <scale q, k_t>  (one vector of scores per block, masked keys -inf)
//   m' = max(m, max s);  p = exp(s - m');  a = exp(m - m')
//   l = l a + sum p;  o = o a + sum_t p_t v_t
//
// and at the end o / l and m + log l. A ragged op (key_lengths) visits the
// keys below its entry's own count only; a paged one reads each key and
// value row from its page (page_table). With a skip threshold (tile [1,
// lanes]: one row, one block of keys), a block whose max score is below
// the running max by more than -ln(lambda) is not folded: no exp, no value
// loads (StateMath::rowAllowsSkip); the blocks are then aligned to key 0,
// as the op's key tiles are. With a unified max the terms are exp(s -
// phi) and nothing is rescaled; a row whose sum leaves the op's range runs
// the online loop again (StateMath::unifiedSumInRange).
// Upstream has no op for a contraction
// whose accumulator is rescaled between blocks, so the loops are built here
// from the same vector arithmetic as the softmax rows (VectorMath).
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/VectorMath.h"
#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {

/// The loops of one query row.
class AttentionRow : IndexArith {
public:
  AttentionRow(OpBuilder &b, Location loc, AttentionOp op, int64_t lanes,
               float scale, ValueRange dims)
      : IndexArith(b, loc), op(op), lanes(lanes), scale(scale),
        vm(b, loc, lanes), sm(b, loc, b.getF32Type()) {
    batch = dims[0];
    heads = dims[1];
    nq = dims[2];
    nk = dims[3];
    kvHeads = dims[4];
    headDim = cast<MemRefType>(op.getQuery().getType()).getDimSize(3);
    valueDim = cast<MemRefType>(op.getValue().getType()).getDimSize(3);
  }

  void build(Value bIdx, Value hIdx, Value qIdx);

private:
  Value clampIndex(Value v, Value lo, Value hi) {
    return maxI(minI(v, hi), lo);
  }
  /// The chunks of `lanes` elements that cover `size`, the last one masked
  /// when `size` is not a multiple.
  int64_t chunks(int64_t size) const { return (size + lanes - 1) / lanes; }
  Value chunkMask(int64_t size, int64_t chunk) {
    int64_t left = size - chunk * lanes;
    if (left >= lanes)
      return Value();
    return vector::CreateMaskOp::create(
        b, loc, VectorType::get({lanes}, b.getI1Type()), ValueRange{idx(left)});
  }
  /// Loads `lanes` elements of `memref` at `at` (last index = column),
  /// masked when `mask` is set (masked lanes read 0), as f32.
  Value load(Value memref, ArrayRef<Value> at, Value mask) {
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    auto type = VectorType::get({lanes}, elt);
    Value v;
    if (!mask) {
      v = vector::LoadOp::create(b, loc, type, memref, at);
    } else {
      Value zero = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type, b.getZeroAttr(elt)));
      v = vector::MaskedLoadOp::create(b, loc, type, memref, at, mask, zero);
    }
    return isa<IntegerType>(elt) ? v : vm.toAcc(v);
  }
  /// [lo, hi): the keys query `qIdx` may see.
  std::pair<Value, Value> keyRange(Value qIdx);
  /// The scores of keys [j0, j0 + lanes), -inf for those at or past `hi`
  /// and, when `lo` is given, for those before it.
  Value scores(ArrayRef<Value> q, Value bIdx, Value hIdx, Value kvHead,
               Value qIdx, Value j0, Value hi, Value lo = Value());
  /// ln(lambda) of the row's batch entry (StateMath::logSkipThreshold).
  Value logThreshold(Value bIdx);

  AttentionOp op;
  int64_t lanes;
  float scale;
  VectorMath vm;
  StateMath sm;
  Value batch, heads, nq, nk, kvHeads;
  int64_t headDim, valueDim;
};

std::pair<Value, Value> AttentionRow::keyRange(Value qIdx) {
  // Bottom-right alignment: query i sits on key diagonal i + Nk - Nq.
  Value diag = arith::AddIOp::create(
      b, loc, qIdx, arith::SubIOp::create(b, loc, nk, nq));
  Value zero = idx(0);
  Value lo = zero, hi = nk;
  Value one = idx(1);
  if (op.getCausal())
    hi = clampIndex(arith::AddIOp::create(b, loc, diag, one), zero, nk);
  if (std::optional<int64_t> w = getIndexableWindow(op)) {
    Value wv = idx(*w);
    lo = clampIndex(arith::AddIOp::create(
                        b, loc, arith::SubIOp::create(b, loc, diag, wv), one),
                    zero, nk);
    if (!op.getCausal())
      hi = clampIndex(arith::AddIOp::create(b, loc, diag, wv), zero, nk);
  }
  // An empty range (lo >= hi) visits no key: the row is fully masked.
  return {lo, hi};
}

Value AttentionRow::logThreshold(Value bIdx) {
  auto [t, keys] = loadSkipThreshold(b, loc, op, bIdx, nk);
  return sm.logSkipThreshold(t, keys);
}

Value AttentionRow::scores(ArrayRef<Value> q, Value bIdx, Value hIdx,
                           Value kvHead, Value qIdx, Value j0, Value hi,
                           Value lo) {
  Value key = op.getKey();
  Value last = arith::SubIOp::create(b, loc, hi, idx(1));
  SmallVector<Value> s, keys;
  for (int64_t t = 0; t < lanes; ++t) {
    // Keys past the range read the last valid key (in bounds) and are
    // masked to -inf below.
    Value j = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, j0, idx(t)), last);
    keys.push_back(j);
    Value dot;
    SmallVector<Value> at = kvRowIndices(b, loc, op, key, bIdx, kvHead, j);
    at.push_back(Value());
    for (int64_t c = 0; c < chunks(headDim); ++c) {
      at.back() = idx(c * lanes);
      Value k = load(key, at, chunkMask(headDim, c));
      dot = dot ? vm.fma(q[c], k, dot) : vm.mul(q[c], k);
    }
    // The order of the lanes' sum does not matter for a dot product:
    // reassociation lets LLVM reduce by halves instead of lane by lane.
    s.push_back(vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                            dot, arith::FastMathFlags::reassoc));
  }
  Value sv = vector::FromElementsOp::create(
      b, loc, VectorType::get({lanes}, b.getF32Type()), s);

  auto maskType = VectorType::get({lanes}, b.getI1Type());
  Value valid = vector::CreateMaskOp::create(
      b, loc, maskType, ValueRange{arith::SubIOp::create(b, loc, hi, j0)});
  if (lo) {
    // A block aligned below the window's first key: lanes before it are
    // hidden too.
    Value before = vector::CreateMaskOp::create(
        b, loc, maskType, ValueRange{arith::SubIOp::create(b, loc, lo, j0)});
    Value all = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(maskType, true));
    valid = arith::AndIOp::create(b, loc, valid,
                                  arith::XOrIOp::create(b, loc, before, all));
  }
  if (Value mask = op.getMask()) {
    auto type = cast<MemRefType>(mask.getType());
    // Unit batch and head dimensions of the mask broadcast.
    Value mb = type.getDimSize(0) == 1 ? idx(0) : bIdx;
    Value mh = type.getDimSize(1) == 1 ? idx(0) : hIdx;
    Type elt = type.getElementType();
    auto vt = VectorType::get({lanes}, elt);
    if (elt.isInteger(1)) {
      // One scalar load per key: a vector<N x i1> load reads N packed bits,
      // but a memref of i1 holds one byte per element. A masked load over a
      // block of all-valid keys folded to such a load (Nk a multiple of the
      // lanes), and so did a gather whose keys were all valid (Nk equal to
      // the lanes: every output row came out the same). Scalar i1 loads
      // read one byte each and no canonicalization merges them.
      SmallVector<Value> bits;
      for (Value j : keys)
        bits.push_back(memref::LoadOp::create(
            b, loc, mask, ValueRange{mb, mh, qIdx, j}));
      Value m = vector::FromElementsOp::create(b, loc, vt, bits);
      sv = vm.select(m, sv, vm.negInf());
    } else {
      Value pass = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vt, b.getZeroAttr(elt)));
      Value m = vector::MaskedLoadOp::create(
          b, loc, vt, mask, ValueRange{mb, mh, qIdx, j0}, valid, pass);
      sv = vm.add(sv, vm.toAcc(m));
    }
  }
  return vm.select(valid, sv, vm.negInf());
}

void AttentionRow::build(Value bIdx, Value hIdx, Value qIdx) {
  // A ragged entry has its own key count, which every limit below reads.
  nk = loadKeyCount(b, loc, op, bIdx, nk);
  Value kvHead = arith::DivUIOp::create(
      b, loc, hIdx, arith::DivUIOp::create(b, loc, heads, kvHeads));
  // The query row, scaled once.
  SmallVector<Value> q;
  for (int64_t c = 0; c < chunks(headDim); ++c)
    q.push_back(vm.mul(load(op.getQuery(), {bIdx, hIdx, qIdx, idx(c * lanes)},
                            chunkMask(headDim, c)),
                       vm.cst(scale)));
  // Plain names, not structured bindings: the loop body's lambda captures
  // `hi` (capturing bindings is C++20).
  std::pair<Value, Value> range = keyRange(qIdx);
  Value lo = range.first, hi = range.second;

  // Loop state: m, l (scalars), the output accumulator chunks, then with
  // skip counts the live and skipped blocks (i64).
  bool skips = op.hasSkipThreshold();
  Value counts = op.getSkipCounts();
  Value logLambda = skips ? logThreshold(bIdx) : Value();
  // A unified max carries phi as the row's offset, unchanged.
  bool unified = op.hasUnifiedMax();
  Value phi = unified ? sm.cst(op.getUnifiedMaxPhi()) : Value();
  SmallVector<Value> init = {sm.identityOffset(), sm.identitySum()};
  for (int64_t c = 0; c < chunks(valueDim); ++c)
    init.push_back(vm.identitySum());
  if (counts)
    init.append(2, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)));
  int64_t stateSize = 2 + chunks(valueDim);
  // The op's key tiles start at key 0: a window's first block starts at the
  // tile that holds its first key.
  Value start = skips ? mul(div(lo, lanes), idx(lanes)) : lo;
  // One vector of scores folds into the row's scalar state; its exps are
  // taken on the vector, where the fast exp is.
  FoldRule rule(StateKind::Max);
  rule.group = FoldRule::Group::Lanes;
  rule.lanes = &vm;
  // The keys' loop, online or (atPhi) at the unified max: terms exp(s -
  // phi), sums and accumulators added without a rescale.
  auto foldKeys = [&](bool atPhi) {
    SmallVector<Value> first = init;
    if (atPhi)
      first[0] = phi;
    return scf::ForOp::create(
        b, loc, start, hi, idx(lanes), first,
        [&](OpBuilder &, Location, Value j0, ValueRange st) {
          Value s =
              scores(q, bIdx, hIdx, kvHead, qIdx, j0, hi, skips ? lo : Value());
          auto fold = [&]() {
            StateFold fold =
                atPhi ? StateFold::atOffset(sm, rule, Value(), phi, {s})
                      : StateFold(sm, rule, {st[0]}, {s});
            Value mNew = fold.offset();
            Value p = fold.term(0);
            SmallVector<Value> next = {mNew, fold.newSum(st[1])};
            SmallVector<Value> o;
            for (int64_t c = 0; c < chunks(valueDim); ++c)
              o.push_back(fold.rescaled(st[2 + c]));
            Value last = arith::SubIOp::create(b, loc, hi, idx(1));
            for (int64_t t = 0; t < lanes; ++t) {
              // p_t is 0 for keys past the range, which read the last key.
              Value j = arith::MinSIOp::create(
                  b, loc, arith::AddIOp::create(b, loc, j0, idx(t)), last);
              Value pt = vm.splat(vector::ExtractOp::create(b, loc, p, t));
              SmallVector<Value> at =
                  kvRowIndices(b, loc, op, op.getValue(), bIdx, kvHead, j);
              at.push_back(Value());
              for (int64_t c = 0; c < chunks(valueDim); ++c) {
                at.back() = idx(c * lanes);
                o[c] = vm.fma(
                    pt, load(op.getValue(), at, chunkMask(valueDim, c)), o[c]);
              }
            }
            next.append(o);
            return next;
          };
          if (!skips) {
            scf::YieldOp::create(b, loc, fold());
            return;
          }
          Value tileMax = vm.reduceOffsetMax(s);
          Value skip = sm.rowAllowsSkip(tileMax, st[0], logLambda);
          ValueRange state = st.take_front(stateSize);
          auto branch = scf::IfOp::create(
              b, loc, skip,
              [&](OpBuilder &, Location) {
                scf::YieldOp::create(b, loc, state);
              },
              [&](OpBuilder &, Location) {
                scf::YieldOp::create(b, loc, fold());
              });
          SmallVector<Value> next(branch.getResults());
          if (counts) {
            Type i64 = b.getI64Type();
            Value sees = sm.rowSeesTile(tileMax);
            next.push_back(arith::AddIOp::create(
                b, loc, st[stateSize],
                arith::ExtUIOp::create(b, loc, i64, sees)));
            next.push_back(arith::AddIOp::create(
                b, loc, st[stateSize + 1],
                arith::ExtUIOp::create(
                    b, loc, i64, arith::AndIOp::create(b, loc, skip, sees))));
          }
          scf::YieldOp::create(b, loc, next);
        });
  };
  scf::ForOp loop = foldKeys(unified);
  ValueRange rowState = loop.getResults();
  if (unified) {
    // A row whose sum at phi is out of range (docs: the op's unified max)
    // is folded again, online.
    auto keep = scf::IfOp::create(
        b, loc, sm.unifiedSumInRange(loop.getResult(1)),
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, loop.getResults());
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, foldKeys(false).getResults());
        });
    rowState = keep.getResults();
  }
  if (counts)
    for (int i = 0; i < 2; ++i)
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                  loop.getResult(stateSize + i), counts,
                                  ValueRange{idx(i)});
  Value m = rowState[0], l = rowState[1];

  // A row that saw no key, or only masked ones, has l = 0.
  Value masked = sm.emptyRow(l);
  Value out = op.getOutput();
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  Value fill = vm.maskedValue(op.getMasked(), /*probability=*/true);
  Value inv = vm.splat(sm.reciprocal(l));
  Value maskedLanes = vector::BroadcastOp::create(
      b, loc, VectorType::get({lanes}, b.getI1Type()), masked);
  for (int64_t c = 0; c < chunks(valueDim); ++c) {
    Value v = vm.select(maskedLanes, fill, vm.mul(rowState[2 + c], inv));
    Value cv = vm.fromAcc(v, outElt);
    SmallVector<Value> at = {bIdx, hIdx, qIdx, idx(c * lanes)};
    if (Value mask = chunkMask(valueDim, c))
      vector::MaskedStoreOp::create(b, loc, out, at, mask, cv);
    else
      vector::StoreOp::create(b, loc, cv, out, at);
  }
  if (Value lse = op.getLse())
    memref::StoreOp::create(b, loc, sm.lse(StateKind::Max, op.getMasked(), m, l),
                            lse, ValueRange{bIdx, hIdx, qIdx});
}

} // namespace

std::optional<std::string> mlir::softmax::whyNotMappableToCPU(AttentionOp op) {
  // One query row at a time: a query tile of one row (see
  // mapAttentionOpToCPU for the keys).
  if (op.hasSkipThreshold() && op.getSkipQueryRows() != 1)
    return "CPU attention mapping skips key tiles of one query row (skip "
           "tile [1, vector width]), not " +
           std::to_string(op.getSkipQueryRows()) +
           " rows; the decomposition (softmax-to-cpu vector-width=0) "
           "honours any tile";
  // Every operand but a scalar threshold is a buffer: query, key, value,
  // mask, threshold, output, lse, counts.
  SmallVector<Value> buffers;
  for (Value v : op->getOperands())
    if (isa<ShapedType>(v.getType()))
      buffers.push_back(v);
  if (auto why = whyNotContiguousBuffers(buffers, "CPU mapping",
                                         /*requireBuffers=*/true,
                                         StridedBuffers::UnitStrideRows))
    return why;
  auto q = cast<MemRefType>(op.getQuery().getType());
  auto v = cast<MemRefType>(op.getValue().getType());
  if (q.isDynamicDim(3) || v.isDynamicDim(3))
    return std::string("CPU attention mapping keeps a query row and its "
                       "output in registers: the head dimensions (query "
                       "and value dimension 3) must be static");
  // D = 0 leaves no element for the score's vector reduction (Dv = 0 is
  // fine: the lse is still written).
  if (q.getDimSize(3) == 0)
    return std::string("CPU attention mapping needs a query head dimension "
                       "(query dimension 3) of at least 1");
  if (q.getDimSize(3) > 512 || v.getDimSize(3) > 512)
    return std::string("CPU attention mapping keeps a query row and its "
                       "output in registers: head dimensions above 512 are "
                       "not supported");
  return std::nullopt;
}

LogicalResult mlir::softmax::mapAttentionOpToCPU(
    RewriterBase &rewriter, AttentionOp op, const CPUTarget &target,
    const CPUStrategy &passOverrides) {
  if (std::optional<std::string> why = whyNotMappableToCPU(op))
    return op->emitOpError(*why);
  FailureOr<CPUStrategy> requested =
      applyAttentionCPURequest(op, target, passOverrides);
  if (failed(requested))
    return failure();
  const CPUStrategy &overrides = *requested;
  int64_t lanes =
      overrides.vectorWidth ? overrides.vectorWidth : target.vectorBits / 32;
  std::optional<float> scale = op.getScaleOrDefault();
  if (!scale)
    return op->emitOpError("has no scale and no static head dimension");
  if (op.hasSkipThreshold() && op.getSkipKeys() != lanes)
    return op->emitOpError()
           << "CPU attention mapping folds one block of " << lanes
           << " keys (its vector width) at a time: it honours skip tiles of "
              "[1, "
           << lanes << "], not [1, " << op.getSkipKeys()
           << "] (ask for vector_width " << op.getSkipKeys()
           << ", or decompose: softmax-to-cpu vector-width=0)";

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto dim = [&](Value v, int64_t d) -> Value {
    return memref::DimOp::create(rewriter, loc, v, d);
  };
  // Nk and Hkv through AttentionShape: paged keys hold them elsewhere.
  auto size = [&](AttentionDim d) {
    return getValueOrCreateConstantIndexOp(rewriter, loc,
                                           getAttentionSize(rewriter, op, d));
  };
  SmallVector<Value> dims = {dim(op.getQuery(), 0), dim(op.getQuery(), 1),
                             dim(op.getQuery(), 2), size(AttentionDim::Nk),
                             size(AttentionDim::Hkv)};
  IndexArith ix(rewriter, loc);
  Value zero = ix.idx(0), one = ix.idx(1);
  // The rows add their counts atomically (they may run on threads).
  if (Value counts = op.getSkipCounts()) {
    Value c0 =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    memref::StoreOp::create(rewriter, loc, c0, counts, ValueRange{zero});
    memref::StoreOp::create(rewriter, loc, c0, counts, ValueRange{one});
  }
  auto par = scf::ParallelOp::create(
      rewriter, loc, ValueRange{zero, zero, zero},
      ValueRange{dims[0], dims[1], dims[2]}, ValueRange{one, one, one},
      [&](OpBuilder &, Location, ValueRange ivs) {
        AttentionRow(rewriter, loc, op, lanes, *scale, dims)
            .build(ivs[0], ivs[1], ivs[2]);
      });
  par->setAttr(SoftmaxDialect::getStrategyAttrName(),
               AttentionCPUStrategyAttr::get(rewriter.getContext(), lanes,
                                             /*keys_per_block=*/lanes));
  expandVectorExp(par, overrides.exp == VectorExp::Polynomial);
  rewriter.eraseOp(op);
  return success();
}
