//===- RowKernel.h - the vector loops over one softmax row ------*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToCPU: the body of the scf.parallel that
// SoftmaxToCPU.cpp builds, one row at a time.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOCPU_ROWKERNEL_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOCPU_ROWKERNEL_H

#include "softmax-mlir/Conversion/SoftmaxToCPU/SoftmaxToCPU.h"

#include "softmax-mlir/Conversion/SoftmaxToCPU/VectorMath.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"

namespace mlir::softmax::detail {

/// Where a kernel's vectors lie. Along a row: x is [rows, n], a vector is
/// `vectorWidth` consecutive elements of row `row`, and the lanes' states
/// are merged into the row's at the end. Across rows (the reduced dimension
/// is not innermost): x is [outer, n, inner], a vector is the elements at
/// one reduction position of `vectorWidth` neighbouring reductions
/// (columns `col`..., `colMask` for a partial last chunk), and every lane's
/// state is final.
struct Lanes {
  bool across = false;
  Value row;
  Value outer, col, colMask;
};

/// Builds the loops over one row (or one chunk of columns) of x and y
/// inside the parallel loop.
class RowKernel : IndexArith {
public:
  RowKernel(OpBuilder &b, Location loc, const Request &req, Algorithm alg,
            const CPUStrategy &s, Value x, Value y, const Lanes &lanes,
            Value n, Value nMain);

  /// The whole row: reduction passes, then the output.
  void build();
  /// The row's online (m, l), merged over the lanes, from one read that
  /// also hands each vector it loads to `visit`, in index order: the
  /// vector (f32), the index of its first element and the tail mask (null
  /// when the vector is full; masked-off lanes hold -inf). softmax.topk's
  /// kernel filters its candidates there (TopKToCPU.cpp).
  std::pair<Value, Value>
  rowRunningVisiting(function_ref<void(Value v, Value i, Value mask)> visit);

private:
  /// One vector at reduction position `i` (masked past the end when `mask`
  /// is set, masked-off lanes read `pad`), converted to f32.
  Value load(Value memref, Value i, Value mask, double pad);
  void store(Value i, Value v, Value mask);
  /// The mask of the tail vector at `i` (null across rows: the tail is
  /// along the reduction, and the column mask applies everywhere).
  Value maskAt(Value i);
  /// Reduction positions one vector covers: vectorWidth or 1.
  int64_t posStep() const { return lanes.across ? 1 : s.vectorWidth; }
  SmallVector<Value> indices(Value i);
  /// A lane state made final: merged over lanes along a row (a scalar),
  /// unchanged across rows.
  Value finishMax(Value v);
  Value finishAdd(Value v);
  /// A final state as a vector of lanes.
  Value lanesOf(Value state);

  /// The fold of one reduction pass over the row. `fold` folds up to
  /// `unroll` vectors (their offset `i` and the tail mask, null when full)
  /// into the accumulators; `close` combines a block's accumulators into a
  /// block state; `merge` adds a block state to the row state.
  struct Fold {
    std::function<SmallVector<Value>()> blockInit;
    std::function<SmallVector<Value>(ValueRange acc, ArrayRef<Value> vs,
                                     Value i, Value mask)>
        fold;
    std::function<SmallVector<Value>(ValueRange acc)> close;
    std::function<SmallVector<Value>(ValueRange row, ValueRange block)> merge;
    /// When set, the full blocks [lo, hi) start from `prologue(lo, hi)`
    /// (a pass over the block while it is in L1) and fold with `mainFold`;
    /// the tail keeps `blockInit` and `fold`.
    std::function<SmallVector<Value>(Value lo, Value hi)> prologue;
    std::function<SmallVector<Value>(ValueRange acc, ArrayRef<Value> vs,
                                     Value i, Value mask)>
        mainFold;
    double pad;
    /// Blocks of strategy.block iterations (sums) or one block (max).
    bool blocked;
  };
  SmallVector<Value> foldRow(ValueRange rowInit, const Fold &f);

  /// Vector loop over the row writing the output: `body` maps the input
  /// vector at `i` (and the output's old value there, for reload) to the
  /// output vector.
  void writeRow(function_ref<Value(Value x, Value old)> body, bool readsOutput);

  /// The passes: each returns the row's scalar state.
  Value rowMax();
  Value rowSumExp(Value m, bool storeExps);
  std::pair<Value, Value> rowTiledThreePass();
  /// The lane-wise max of the full groups in [lo, hi).
  Value maxOfGroups(Value lo, Value hi);
  /// online (max states) or exp_pair (exponent states): the fold (also the
  /// tail of the tiled three_pass), the lane states made the row's (offset,
  /// sum), and the two together.
  Fold runningFold(StateKind kind);
  std::pair<Value, Value> finishRunning(StateKind kind,
                                        ArrayRef<Value> laneState);
  std::pair<Value, Value> rowRunning(StateKind kind);

  const Request &req;
  Algorithm alg;
  const CPUStrategy &s;
  Value x, y;
  Lanes lanes;
  Value n, nMain;
  VectorMath vm;
  StateMath sm;
  Type inElt, outElt;
};

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOCPU_ROWKERNEL_H
