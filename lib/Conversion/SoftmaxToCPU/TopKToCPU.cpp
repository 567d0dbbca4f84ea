//===- TopKToCPU.cpp - softmax.topk in one read of each row ---------------===//
//
// The CPU kernel of the fused softmax + top-k (docs/TopK.md, "The CPU
// kernel"): an scf.parallel over rows; each row is read once by the vector
// loops of RowKernel, which fold the online (m, l) and hand every vector to
// the filter here. The filter keeps the best k elements seen so far in the
// op's order (value descending, index ascending) and lets a vector through
// only when one of its lanes beats the k-th (or, while fewer than k are
// kept, is not NaN); each such lane enters a heap whose root is the worst
// kept, in log k steps, and the heap is sorted once at the end of the row.
// The steps walk the row in index order, so an element equal to the k-th
// comes after it in the order and may be dropped: the filter is strict.
// Upstream has no selection (linalg has reductions), so the heap is
// written here.
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"
#include "softmax-mlir/Conversion/SoftmaxToCPU/VectorMath.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {
using FP = arith::CmpFPredicate;
using IP = arith::CmpIPredicate;

/// The buffers of the rows, allocated once for all (on the heap: an alloca in
/// the parallel body would keep the memref.alloca_scope that
/// convert-scf-to-openmp wraps it in, which convert-scf-to-cf then cannot
/// take): per row the k best values and their indices (a heap with the
/// worst at its root, sorted in the op's order after the row: once k are
/// held, the root is the k-th value) and how many are held, the word a
/// row updates on each insertion, in a 64-byte line of its own so that
/// threads on neighbouring rows do not share it.
struct TopKScratch {
  Value values, indices, held;
  static constexpr int64_t kLineWords = 16;

  TopKScratch(OpBuilder &b, Location loc, Value rows, int64_t k) {
    Type f32 = b.getF32Type(), i64 = b.getI64Type();
    auto alloc = [&](int64_t cols, Type elt) -> Value {
      return memref::AllocOp::create(
          b, loc, MemRefType::get({ShapedType::kDynamic, cols}, elt),
          ValueRange{rows});
    };
    values = alloc(k, f32);
    indices = alloc(k, i64);
    held = alloc(kLineWords, i64);
  }
  void free(OpBuilder &b, Location loc) {
    for (Value v : {values, indices, held})
      memref::DeallocOp::create(b, loc, v);
  }
};

/// One row's view of the scratch buffers.
class TopKBuffer : IndexArith {
public:
  TopKBuffer(OpBuilder &b, Location loc, const TopKScratch &scratch, Value row,
             int64_t k)
      : IndexArith(b, loc), k(k), values(scratch.values),
        indices(scratch.indices), heldRef(scratch.held), row(row) {
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 0, 64),
                            heldRef, ValueRange{row, idx(0)});
    // The root is read before k are held, but not used (admits selects on
    // `full`); the first insertion overwrites it.
    memref::StoreOp::create(
        b, loc,
        arith::ConstantOp::create(
            b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity())),
        values, ValueRange{row, idx(0)});
  }

  Value held() {
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        memref::LoadOp::create(b, loc, heldRef, ValueRange{row, idx(0)}));
  }

  /// Whether `x` enters the buffer now: above the k-th value once k are
  /// held (the heap's root), not NaN before (ordered compares). Scalars or
  /// vectors alike: `kth` is splat to `x`'s shape.
  Value admits(Value x) {
    Value full = cmp(IP::eq, held(), idx(k));
    Value kth = valueAt(idx(0));
    if (auto vt = dyn_cast<VectorType>(x.getType())) {
      kth = vector::BroadcastOp::create(b, loc, vt, kth);
      full = vector::BroadcastOp::create(
          b, loc, VectorType::get(vt.getShape(), b.getI1Type()), full);
    }
    Value above = arith::CmpFOp::create(b, loc, FP::OGT, x, kth);
    Value number = arith::CmpFOp::create(b, loc, FP::OEQ, x, x);
    return arith::SelectOp::create(b, loc, full, above, number);
  }

  /// Inserts (x, i) (admitted): pushed while fewer than k are held, else
  /// in place of the root, the worst kept, which drops out.
  void insert(Value x, Value i) {
    Value h = held();
    Value at = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
    scf::IfOp::create(
        b, loc, cmp(IP::eq, h, idx(k)),
        [&](OpBuilder &, Location) {
          siftDown(idx(0), idx(k), x, at);
          scf::YieldOp::create(b, loc);
        },
        [&](OpBuilder &, Location) {
          siftUp(h, x, at);
          scf::YieldOp::create(b, loc);
        });
    Value now = minI(add(h, idx(1)), idx(k));
    memref::StoreOp::create(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), now),
        heldRef, ValueRange{row, idx(0)});
  }

  /// After the row: the heap sorted in the op's order, best first (each
  /// step moves the root, the worst left, to the end of the shrinking
  /// heap).
  void finish() {
    Value h = held();
    scf::ForOp::create(
        b, loc, idx(1), h, idx(1), ValueRange{},
        [&](OpBuilder &, Location, Value t, ValueRange) {
          Value end = sub(h, t);
          Value x = valueAt(end), at = indexAt(end);
          put(end, valueAt(idx(0)), indexAt(idx(0)));
          siftDown(idx(0), end, x, at);
          scf::YieldOp::create(b, loc);
        });
  }

  /// The filter of one vector `v` whose first element is `i` (lanes off
  /// `mask`, when set, are past the row). Most vectors of a long row admit
  /// nothing (a new element beats the k-th of n seen with chance k / n):
  /// one vector compare and an or-reduction. Otherwise each admitted lane
  /// is judged again against the buffer as the lanes before it left it.
  void filter(Value v, Value i, Value mask, int64_t width) {
    Value admitted = admits(v);
    if (mask)
      admitted = arith::AndIOp::create(b, loc, admitted, mask);
    Value any = vector::ReductionOp::create(b, loc, vector::CombiningKind::OR,
                                            admitted);
    auto ifAny = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifAny.getThenRegion().front());
    scf::ForOp::create(
        b, loc, idx(0), idx(width), idx(1), ValueRange{},
        [&](OpBuilder &, Location, Value lane, ValueRange) {
          Value was = vector::ExtractOp::create(b, loc, admitted,
                                                ArrayRef<OpFoldResult>{lane});
          Value x = vector::ExtractOp::create(b, loc, v,
                                              ArrayRef<OpFoldResult>{lane});
          Value now = arith::AndIOp::create(b, loc, was, admits(x));
          auto ifNow = scf::IfOp::create(b, loc, now, /*withElseRegion=*/false);
          {
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPointToStart(&ifNow.getThenRegion().front());
            insert(x, add(i, lane));
          }
          scf::YieldOp::create(b, loc);
        });
  }

  /// Writes position j of row `row`: the j-th kept element's probability
  /// exp(x - lse), log-probability x - lse and index; past what is held,
  /// and on a row whose lse is -inf (all -inf), index -1 (kept where the
  /// row has one), probability 0 and log-probability -inf.
  void write(Value j, Value lse, Value probs, Value idxOut, Value logProbs) {
    auto f32c = [&](double c) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(c));
    };
    double inf = std::numeric_limits<double>::infinity();
    Value kept = cmp(IP::ult, j, held());
    Value x = arith::SelectOp::create(b, loc, kept, valueAt(j), f32c(0));
    Value id = arith::SelectOp::create(
        b, loc, kept, indexAt(j), arith::ConstantIntOp::create(b, loc, -1, 64));
    Value gone = arith::OrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, kept,
                                      arith::ConstantIntOp::create(b, loc, 1, 1)),
        arith::CmpFOp::create(b, loc, FP::OEQ, lse, f32c(-inf)));
    Value lp = arith::SubFOp::create(b, loc, x, lse);
    Value p = math::ExpOp::create(b, loc, lp);
    memref::StoreOp::create(b, loc,
                            arith::SelectOp::create(b, loc, gone, f32c(0), p),
                            probs, ValueRange{row, j});
    Type idxElt = cast<MemRefType>(idxOut.getType()).getElementType();
    if (idxElt != id.getType())
      id = arith::TruncIOp::create(b, loc, idxElt, id);
    memref::StoreOp::create(b, loc, id, idxOut, ValueRange{row, j});
    if (logProbs)
      memref::StoreOp::create(
          b, loc, arith::SelectOp::create(b, loc, gone, f32c(-inf), lp),
          logProbs, ValueRange{row, j});
  }

private:
  Value valueAt(Value p) {
    return memref::LoadOp::create(b, loc, values, ValueRange{row, p});
  }
  Value indexAt(Value p) {
    return memref::LoadOp::create(b, loc, indices, ValueRange{row, p});
  }
  void put(Value p, Value x, Value at) {
    memref::StoreOp::create(b, loc, x, values, ValueRange{row, p});
    memref::StoreOp::create(b, loc, at, indices, ValueRange{row, p});
  }
  /// Whether (x, at) ranks after (y, bt) in the op's order: a smaller
  /// value, or the same at a larger index. The heap keeps the worst kept
  /// element at its root, so that a new one replaces it in log k steps.
  Value worse(Value x, Value at, Value y, Value bt) {
    Value less = arith::CmpFOp::create(b, loc, FP::OLT, x, y);
    Value tie = arith::AndIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, x, y),
        arith::CmpIOp::create(b, loc, IP::sgt, at, bt));
    return arith::OrIOp::create(b, loc, less, tie);
  }
  Value no() { return arith::ConstantIntOp::create(b, loc, 0, 1); }

  /// Places (x, at) at slot `from` of the heap or above it, moving the
  /// better parents down.
  void siftUp(Value from, Value x, Value at) {
    Type index = b.getIndexType();
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange{index}, ValueRange{from},
        [&](OpBuilder &, Location, ValueRange args) {
          Value p = args[0];
          auto up = scf::IfOp::create(
              b, loc, cmp(IP::ugt, p, idx(0)),
              [&](OpBuilder &, Location) {
                Value parent = div(sub(p, idx(1)), 2);
                scf::YieldOp::create(
                    b, loc,
                    ValueRange{worse(x, at, valueAt(parent), indexAt(parent))});
              },
              [&](OpBuilder &, Location) {
                scf::YieldOp::create(b, loc, ValueRange{no()});
              });
          scf::ConditionOp::create(b, loc, up.getResult(0), ValueRange{p});
        },
        [&](OpBuilder &, Location, ValueRange args) {
          Value p = args[0], parent = div(sub(p, idx(1)), 2);
          put(p, valueAt(parent), indexAt(parent));
          scf::YieldOp::create(b, loc, ValueRange{parent});
        });
    put(loop.getResult(0), x, at);
  }

  /// Places (x, at) at slot `from` of a heap of `n` slots or below it,
  /// moving the worse child up while it ranks after (x, at).
  void siftDown(Value from, Value n, Value x, Value at) {
    Type index = b.getIndexType();
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange{index, index}, ValueRange{from},
        [&](OpBuilder &, Location, ValueRange args) {
          Value p = args[0];
          Value c = add(mul(p, idx(2)), idx(1));
          auto down = scf::IfOp::create(
              b, loc, cmp(IP::ult, c, n),
              [&](OpBuilder &, Location) {
                // The second child, where there is one, if it is worse.
                Value c2 = add(c, idx(1));
                Value c2In = cmp(IP::ult, c2, n);
                Value c2Safe = minI(c2, sub(n, idx(1)));
                Value pick = arith::SelectOp::create(
                    b, loc,
                    arith::AndIOp::create(
                        b, loc, c2In,
                        worse(valueAt(c2Safe), indexAt(c2Safe), valueAt(c),
                              indexAt(c))),
                    c2, c);
                scf::YieldOp::create(
                    b, loc,
                    ValueRange{worse(valueAt(pick), indexAt(pick), x, at),
                               pick});
              },
              [&](OpBuilder &, Location) {
                scf::YieldOp::create(b, loc, ValueRange{no(), c});
              });
          scf::ConditionOp::create(b, loc, down.getResult(0),
                                   ValueRange{p, down.getResult(1)});
        },
        [&](OpBuilder &, Location, ValueRange args) {
          Value p = args[0], child = args[1];
          put(p, valueAt(child), indexAt(child));
          scf::YieldOp::create(b, loc, ValueRange{child});
        });
    put(loop.getResult(0), x, at);
  }

  int64_t k;
  Value values, indices, heldRef, row;
};
} // namespace

LogicalResult mlir::softmax::mapTopKOpToCPU(RewriterBase &rewriter, TopKOp op,
                                            const CPUTarget &target,
                                            const CPUStrategy &overrides) {
  if (std::optional<std::string> why = whyNotMappableToCPU(op))
    return op->emitOpError(*why);
  if (Attribute request = op->getAttr(SoftmaxDialect::getStrategyAttrName()))
    return op->emitOpError() << "asks for " << request
                             << "; the CPU top-k kernel takes no strategy";
  auto inType = cast<MemRefType>(op.getInput().getType());
  std::optional<int64_t> rowBytes;
  if (!inType.isDynamicDim(1))
    rowBytes = inType.getDimSize(1) * inType.getElementTypeBitWidth() / 8;
  CPUStrategy s =
      applyCPUOverrides(chooseCPUStrategy(target, rowBytes), overrides);
  if (failed(checkCPUStrategy(op, s)))
    return failure();
  s.threePass = ThreePassVariant::Auto;

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  IndexArith ix(rewriter, loc);
  Value x = op.getInput();
  Value n = memref::DimOp::create(rewriter, loc, x, 1);
  Value group = ix.idx(s.unroll * s.vectorWidth);
  Value nMain = arith::SubIOp::create(
      rewriter, loc, n, arith::RemUIOp::create(rewriter, loc, n, group));
  // RowKernel's request: only its output pass reads it, which this kernel
  // does not build.
  Request req{x, x, std::nullopt, Algorithm::Online, MaskedRows::Zero};
  int64_t k = op.getK();
  Value rows = memref::DimOp::create(rewriter, loc, x, 0);
  TopKScratch scratch(rewriter, loc, rows, k);
  auto par = scf::ParallelOp::create(
      rewriter, loc, ValueRange{ix.idx(0)}, ValueRange{rows},
      ValueRange{ix.idx(1)}, [&](OpBuilder &, Location, ValueRange ivs) {
        Value row = ivs[0];
        TopKBuffer buffer(rewriter, loc, scratch, row, k);
        Lanes lanes;
        lanes.row = row;
        RowKernel kernel(rewriter, loc, req, Algorithm::Online, s, x, x, lanes,
                         n, nMain);
        auto [m, l] =
            kernel.rowRunningVisiting([&](Value v, Value i, Value mask) {
              buffer.filter(v, i, mask, s.vectorWidth);
            });
        buffer.finish();
        StateMath sm(rewriter, loc, rewriter.getF32Type());
        Value lse = sm.lseOf(StateKind::Max, m, l);
        scf::ForOp::create(
            rewriter, loc, ix.idx(0), ix.idx(k), ix.idx(1), ValueRange{},
            [&](OpBuilder &, Location, Value j, ValueRange) {
              buffer.write(j, lse, op.getProbsInit(), op.getIndicesInit(),
                           op.getLogProbsInit());
              scf::YieldOp::create(rewriter, loc);
            });
      });
  par->setAttr(SoftmaxDialect::getStrategyAttrName(),
               getCPUStrategyAttr(rewriter.getContext(), Algorithm::Online, s));
  expandVectorExp(par, s.exp == VectorExp::Polynomial);
  rewriter.setInsertionPointAfter(par);
  scratch.free(rewriter, loc);
  rewriter.eraseOp(op);
  return success();
}
