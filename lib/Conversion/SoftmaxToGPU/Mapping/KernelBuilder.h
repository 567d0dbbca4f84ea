//===- KernelBuilder.h - the body of one softmax GPU kernel -----*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU: the kernel plan of
// SoftmaxToGPU.cpp, built inside a gpu.launch.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_KERNELBUILDER_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_KERNELBUILDER_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

namespace mlir::softmax::detail {

/// Builds the body of one kernel inside a gpu.launch.
class KernelBuilder : IndexArith {
public:
  KernelBuilder(OpBuilder &b, Location loc, const Request &req,
                const GPUStrategy &s, const GPUTarget &target,
                const GPUTargetHooks &hooks, Value x, Value y, Value rows,
                Value n)
      : IndexArith(b, loc), req(req), s(s), target(target), hooks(hooks), x(x),
        y(y), rows(rows), n(n), acc(b.getF32Type()), sm(b, loc, acc),
        stateKind(req.algorithm == Algorithm::ExpPair ? StateKind::Exponent
                                                      : StateKind::Max) {
    auto xType = cast<MemRefType>(x.getType());
    inElt = xType.getElementType();
    outElt = cast<MemRefType>(y.getType()).getElementType();
    int64_t length = xType.getDimSize(1);
    peeled = s.vectorWidth > 1 && (ShapedType::isDynamic(length) ||
                                   isPeeledRow(s.vectorWidth, length));
  }

  /// The whole kernel body; `launch` gives thread and block ids and the
  /// workgroup buffers, `split` the buffers of split rows.
  void build(gpu::LaunchOp launch, ValueRange split);

private:
  VectorType inVector() { return VectorType::get({s.vectorWidth}, inElt); }
  VectorType outVector() { return VectorType::get({s.vectorWidth}, outElt); }
  llvm::MaybeAlign alignment(Type elt) {
    return llvm::MaybeAlign(s.vectorWidth * elt.getIntOrFloatBitWidth() / 8);
  }

  /// Whether the whole-vector accesses of `elt` being built are marked
  /// nontemporal: those of a streamed row's last pass (`lastPass`), where
  /// the end streams them (GPUTargetHooks::streamsLastPass) and a vector
  /// is 4, 8 or 16 bytes.
  bool nontemporal(Type elt) {
    int64_t bits = s.vectorWidth * elt.getIntOrFloatBitWidth();
    return lastPass && hooks.streamsLastPass() &&
           (bits == 32 || bits == 64 || bits == 128);
  }

  /// Loads the vector at column `col` of `row` when `valid`, else -inf.
  /// Peeled rows: `col` counts from the aligned address before the row's
  /// start, and lanes outside the row are -inf.
  SmallVector<Value> loadVector(Value row, Value col, Value valid);
  /// Stores `values` (accumulator type) at column `col` when `valid` (peeled
  /// rows: only the lanes inside the row).
  void storeVector(Value row, Value col, Value valid, ArrayRef<Value> values);
  /// Peeled rows: whether the whole vector at `col` lies in the row, and the
  /// lanes of it that do (built where `at` builds).
  Value vectorInRow(Value col, Value valid);
  Value lanesInRow(OpBuilder &at, Value col, Value valid);
  /// Whether lanesInRow compares the lanes with two bounds a vector (i32)
  /// rather than each lane's 64-bit column with the row's start and end.
  bool masksByBounds() const;

  /// The fold of the op's algorithm: online folds a group's max as a
  /// tree, exp_pair the exponents of its pairs in a chain (-inf elements
  /// get the identity's pair).
  FoldRule foldRule() const;
  /// The fold of a group into the state at offset `m`, its pieces emitted
  /// in this kernel's order: offset, terms, rescale, the terms' sum.
  StateFold foldGroup(Value m, ArrayRef<Value> xs);
  /// (m', l r + the terms' sum).
  std::pair<Value, Value> fold(Value m, Value l, ArrayRef<Value> xs);
  /// Merges the states of `width` consecutive lanes (a power of two no
  /// larger than the warp).
  std::pair<Value, Value> warpMerge(Value m, Value l, int64_t width);
  /// Merges the states of the threads of a row: every thread gets the
  /// result.
  std::pair<Value, Value> rowMerge(Value m, Value l);

  /// For every vector of this thread: calls `body(valid, col)`.
  void forEachVector(llvm::function_ref<void(int64_t, Value, Value)> body);
  /// One vector of a streamed row: its column, whether it lies in the
  /// thread's part of the row, and its elements (accumulator type; -inf
  /// where it does not).
  struct StreamedVector {
    Value col, valid;
    SmallVector<Value> elements;
  };
  /// The elements of `vectors`, in order.
  static SmallVector<Value> elementsOf(ArrayRef<StreamedVector> vectors);
  /// Streams the thread's vectors of the row from memory in an scf.for that
  /// carries `inits`, s.unroll vectors an iteration, all loaded before
  /// `body(vectors, iterArgs)` uses any; it returns the next iter_args.
  /// Threads of rows past the end run no iterations. With reread = reverse
  /// every second call (the row's second pass) runs backwards.
  SmallVector<Value>
  streamRow(ValueRange inits,
            llvm::function_ref<SmallVector<Value>(ArrayRef<StreamedVector>,
                                                  ValueRange)>
                body);

  /// Thread state of the thread's part of the row.
  std::pair<Value, Value> threadState();
  void writeOutputs(Value m, Value l);
  /// Split rows: publish this block's state and merge the row's states.
  /// Round 1 is three_pass's second reduction.
  std::pair<Value, Value> mergeSplitRow(Value m, Value l, ValueRange split,
                                        int64_t round, bool waitForAll);
  /// The same within a thread-block cluster: the states pass through the
  /// blocks' shared memory (`smemStates`, two f32 per round).
  std::pair<Value, Value> mergeClusterRow(Value m, Value l, int64_t round);
  /// The last step of both merges: every warp merges the row's chunk
  /// states, `load(i)` giving chunk i's (m, l).
  std::pair<Value, Value>
  mergeChunkStates(function_ref<std::pair<Value, Value>(Value)> load);

  const Request &req;
  const GPUStrategy &s;
  const GPUTarget &target;
  const GPUTargetHooks &hooks;
  Value x, y, rows, n;
  FloatType acc;
  StateMath sm;
  StateKind stateKind;
  Type inElt, outElt;

  /// The row length is not a multiple of the vector width (or not static):
  /// every row is read in aligned vectors from the aligned address at or
  /// before its start, its first and last vectors masked (a peeled head and
  /// tail), so that odd rows keep 16-byte accesses.
  bool peeled;
  /// Peeled rows, set by build(): the flat views of x and y, the row's
  /// elements before its start in its first vector (`shift`), the flat index
  /// of that vector (`rowBase`) and the row's end counted from it.
  Value xFlat, yFlat, shift, rowBase, rowEnd;

  // Set by build().
  Value lane, row, rowValid, chunk, chunkBegin, chunkEnd;
  Value smemM, smemL, smemTicket, smemStates;
  /// Split rows merged within a thread-block cluster (SplitMerge::Cluster).
  bool clusterMerge = false;
  /// The row's passes streamed so far (streamRow).
  int64_t streamedPasses = 0;
  /// Set while writeOutputs streams the row's last pass.
  bool lastPass = false;
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
