//===- KernelBuilder.h - the body of one softmax GPU kernel -----*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU: the kernel plan of
// SoftmaxToGPU.cpp, built inside a gpu.launch.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_KERNELBUILDER_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_KERNELBUILDER_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

namespace mlir::softmax::detail {

/// Builds the body of one kernel inside a gpu.launch.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const Request &req,
                const GPUStrategy &s, const GPUTarget &target, Value x,
                Value y, Value rows, Value n)
      : b(b), loc(loc), req(req), s(s), target(target), x(x), y(y),
        rows(rows), n(n), acc(b.getF32Type()), sm(b, loc, acc),
        stateKind(req.algorithm == Algorithm::ExpPair ? StateKind::Exponent
                                                      : StateKind::Max) {
    inElt = cast<MemRefType>(x.getType()).getElementType();
    outElt = cast<MemRefType>(y.getType()).getElementType();
  }

  /// The whole kernel body; `launch` gives thread and block ids and the
  /// workgroup buffers, `split` the buffers of split rows.
  void build(gpu::LaunchOp launch, ValueRange split);

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value addi(Value l, Value r) { return arith::AddIOp::create(b, loc, l, r); }
  Value muli(Value l, Value r) { return arith::MulIOp::create(b, loc, l, r); }
  Value divui(Value l, Value r) { return arith::DivUIOp::create(b, loc, l, r); }
  Value remui(Value l, Value r) { return arith::RemUIOp::create(b, loc, l, r); }
  Value minui(Value l, Value r) { return arith::MinUIOp::create(b, loc, l, r); }
  Value ult(Value l, Value r) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, l, r);
  }
  Value andi(Value l, Value r) { return arith::AndIOp::create(b, loc, l, r); }

  VectorType inVector() { return VectorType::get({s.vectorWidth}, inElt); }
  VectorType outVector() { return VectorType::get({s.vectorWidth}, outElt); }
  llvm::MaybeAlign alignment(Type elt) {
    return llvm::MaybeAlign(s.vectorWidth * elt.getIntOrFloatBitWidth() / 8);
  }

  /// Loads the vector at column `col` of `row` when `valid`, else -inf.
  SmallVector<Value> loadVector(Value row, Value col, Value valid);
  /// Stores `values` (accumulator type) at column `col` when `valid`.
  void storeVector(Value row, Value col, Value valid, ArrayRef<Value> values);

  /// Folds a group of elements into (m, l) with the op's algorithm.
  std::pair<Value, Value> fold(Value m, Value l, ArrayRef<Value> xs);
  /// The parts of a fold: the new offset, the scale of the old sum, and the
  /// group's sum at the new offset.
  std::tuple<Value, Value, Value> foldGroup(Value m, ArrayRef<Value> xs);
  /// exp(x - m) for every element of `xs`, through exp2.
  SmallVector<Value> expsAgainst(ArrayRef<Value> xs, Value m);
  /// Max and sum over a group, as trees.
  Value groupMax(ArrayRef<Value> xs);
  Value groupSum(ArrayRef<Value> xs);
  /// Merges the states of `width` consecutive lanes (a power of two no
  /// larger than the warp).
  std::pair<Value, Value> warpMerge(Value m, Value l, int64_t width);
  /// Merges the states of the threads of a row: every thread gets the
  /// result.
  std::pair<Value, Value> rowMerge(Value m, Value l);

  /// For every vector of this thread: calls `body(valid, col)`.
  void forEachVector(llvm::function_ref<void(int64_t, Value, Value)> body);
  /// Streams the thread's vectors of the row from memory in an scf.for that
  /// carries `inits`: `body(col, elements, iterArgs)` returns the next
  /// iter_args. Threads of rows past the end run no iterations.
  SmallVector<Value> streamRow(
      ValueRange inits,
      llvm::function_ref<SmallVector<Value>(Value, ArrayRef<Value>, ValueRange)>
          body);

  /// Thread state of the thread's part of the row.
  std::pair<Value, Value> threadState();
  void writeOutputs(Value m, Value l);
  /// Split rows: publish this block's state and merge the row's states.
  /// Round 1 is three_pass's second reduction.
  std::pair<Value, Value> mergeSplitRow(Value m, Value l, ValueRange split,
                                        int64_t round, bool waitForAll);

  OpBuilder &b;
  Location loc;
  const Request &req;
  const GPUStrategy &s;
  const GPUTarget &target;
  Value x, y, rows, n;
  FloatType acc;
  StateMath sm;
  StateKind stateKind;
  Type inElt, outElt;

  // Set by build().
  Value lane, row, rowValid, chunk, chunkBegin, chunkEnd;
  Value smemM, smemL, smemTicket;
  /// Split rows that do not wait (logsumexp): whether this block published
  /// the row's last state and so writes the row's result.
  Value splitWriter;
  SmallVector<SmallVector<Value>> cached;
  /// exp(x - threadMax) of every cached element, when computed.
  SmallVector<Value> cachedExps;
  Value threadMax;
};

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_KERNELBUILDER_H
