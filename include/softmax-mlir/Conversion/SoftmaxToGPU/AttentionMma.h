//===- AttentionMma.h - what the attention kernel asks of tensor cores ----===//
//
// The attention kernel (AttentionKernel.cpp) is one algorithm: bound the key
// tiles a block may see, stage each tile, S = Q K^T, mask, online softmax,
// O = O a + P V, normalize. Only the matrix units differ between vendors:
// how many lanes a warp has, which query rows and keys a lane's accumulator
// elements hold, how a tile reaches shared memory and how it is multiplied.
// AttentionMma is that difference; NVIDIA mma.sync
// (lib/Conversion/SoftmaxToGPU/NVVM) and CDNA MFMA (.../ROCDL) implement it,
// and GPUTargetHooks::makeAttentionMma hands one to the mapping.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_ATTENTIONMMA_H
#define SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_ATTENTIONMMA_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include <memory>

namespace mlir::softmax::detail {

/// Keys per staged K/V tile on every target.
constexpr int64_t kKeysPerTile = 64;

/// One warp's share of the attention kernel on a family of matrix units.
/// A lane holds accumulator elements of `slots()` query rows; a tile's
/// scores come back as scalars, element i of row slot `slotOf(i)` and key
/// `keyOf(i)` of the tile. Set up with `begin` inside the launch.
class AttentionMma : protected IndexArith {
public:
  AttentionMma(OpBuilder &b, Location loc, AttentionOp op, int64_t warps,
               int64_t buffers)
      : IndexArith(b, loc), op(op), warps(warps), buffers(buffers) {
    auto q = cast<MemRefType>(op.getQuery().getType());
    elt = q.getElementType();
    d = q.getDimSize(3);
    dv = cast<MemRefType>(op.getValue().getType()).getDimSize(3);
    query = op.getQuery();
    key = op.getKey();
    value = op.getValue();
    output = op.getOutput();
  }
  virtual ~AttentionMma() = default;

  /// Lanes per warp (wavefront).
  virtual int64_t lanes() const = 0;
  /// Query rows per warp (a multiple of 16).
  virtual int64_t rowsPerWarp() const = 0;
  /// Query rows whose accumulator elements a lane holds.
  virtual int64_t slots() const = 0;
  /// Shared-memory buffers per tile: 2 (the next tile is copied while the
  /// current one is used; needs asynchronous copies) or 1.
  int64_t stages() const { return buffers; }
  /// The shared-memory tiles of K and of V, in this order, each with a
  /// leading dimension of `stages()` buffers, then any the end needs for
  /// itself (such as the block's queries).
  virtual SmallVector<MemRefType> tileBuffers(Attribute workgroup) const = 0;

  /// Lane bookkeeping for thread `tid`; `smem` holds the buffers of
  /// `tileBuffers`; rows [0, nq) and keys [0, nk) exist.
  void begin(Value tid, ArrayRef<Value> smem, Value nq, Value nk) {
    this->tid = tid;
    this->smem.assign(smem.begin(), smem.end());
    smemK = smem[0];
    smemV = smem[1];
    this->nq = nq;
    this->nk = nk;
    beginLanes();
  }
  /// The buffers the end reads queries from and writes O to, when they are
  /// not the op's own: views of them with the query heads of a KV head
  /// packed into the rows ([B, Hkv, g Nq, D]), or a split's f32 partials.
  void setQueryAndOutput(Value q, Value o) {
    query = q;
    output = o;
  }
  /// The key of row 0 of the range the kernel folds (a split's first key):
  /// `stage` reads rows [kv0, kv0 + 64) of [0, nk) from there on.
  void setKeyOffset(Value offset) { keyOffset = offset; }
  /// The query row of `slot`, relative to the warp's first row.
  virtual Value slotRow(int64_t slot) = 0;
  /// Loads rows [warpRow, warpRow + rowsPerWarp()) of the queries into
  /// registers, or starts copying them into shared memory (complete by the
  /// first `wait` and barrier).
  virtual void loadQuery(Value bIdx, Value hIdx, Value warpRow) = 0;
  /// Starts copying rows [kv0, kv0 + 64) of K (`value` false) or V of one
  /// kv head into buffer `buf` of their tile. Rows past Nk repeat the last
  /// one (their scores are masked, their probabilities 0). Returns what
  /// `wait` waits for, or null where the copy is complete when this
  /// returns.
  virtual Value stage(bool value, Value bIdx, Value kvHead, Value kv0,
                      Value buf) = 0;
  /// Waits for the copies of `token`'s request and every earlier one,
  /// leaving the last `pending` requests (made after it) in flight.
  virtual void wait(Value token, int64_t pending = 0) = 0;

  /// Whether K/V tiles complete on per-buffer barriers instead of copy
  /// groups: `stage` returns null, and the kernel waits for tile t (counted
  /// from the loop's first, in buffer `buf`) with `waitTile`. Such an end
  /// also makes host values before the launch (`prepareHost`), and its
  /// copies past the last key fill zeros rather than repeating the last
  /// row.
  virtual bool tracksTilesOnBarriers() const { return false; }
  /// Host code at the builder's insertion point, before the launch; the
  /// kernel body may use what it creates.
  virtual void prepareHost() {}
  /// Waits until K and V of tile `tile` have landed in buffer `buf`.
  void waitTile(Value tile, Value buf) {
    waitTileHalf(tile, buf, /*value=*/false);
    waitTileHalf(tile, buf, /*value=*/true);
  }
  /// Waits until K (`value` false) or V of tile `tile` has landed in
  /// buffer `buf`: the barrier's phase of the tile's use of the buffer.
  /// Every tile completes one phase of each: by its copy, or by
  /// `skipCopy` where a thresholded tile needs no V.
  virtual void waitTileHalf(Value tile, Value buf, bool value) {}
  /// Completes buffer `buf`'s phase for K or V of a tile without copying
  /// anything (one thread arrives).
  virtual void skipCopy(bool value, Value buf) {}
  /// The byte alignment the tile buffers need in shared memory.
  virtual int64_t tileAlignment() const { return 16; }

  /// S = Q K^T of the K tile in buffer `buf`, unscaled.
  virtual SmallVector<Value> scores(Value buf) = 0;
  virtual int64_t slotOf(int64_t i) const = 0;
  /// Key of element i, relative to the tile's first key.
  virtual Value keyOf(int64_t i) = 0;
  /// `v` combined over the lanes that hold the same query row.
  Value rowReduce(Value v, function_ref<Value(Value, Value)> combine);
  /// The f32 arithmetic of the row statistics: StateMath, its fastExp2
  /// (the exps of the log2-unit statistics and probabilities) the end's
  /// instruction where it has a faster one exact enough.
  virtual std::unique_ptr<StateMath> rowMath();
  /// The lane that writes per-row results (lse).
  virtual Value isRowLeader() = 0;
  /// Whether each i1 of `preds` held in some lane of the warp. The default
  /// packs them into the bits of one i32 and ors it over xor shuffles; an
  /// end with a warp vote instruction votes on each.
  virtual SmallVector<Value> warpAny(ArrayRef<Value> preds);
  /// Whether the end has one instruction for a barrier that also tells
  /// whether a predicate held in some thread of the block (`barrierAny`);
  /// where it has not, the kernel combines the predicates through a flag in
  /// shared memory around a plain barrier.
  virtual bool reducesAtBarrier() const { return false; }
  /// That barrier, where `reducesAtBarrier`: whether the i1 `pred` held in
  /// some thread.
  virtual Value barrierAny(Value pred) { return Value(); }

  /// O accumulators: zero, scaled by a factor per slot, O + P V with P in
  /// the order of `scores` and V in buffer `buf`, and the store of one
  /// slot's row of O with `finish` applied to each element (f32 in, output
  /// element type out).
  virtual SmallVector<Value> zeroAccumulators() = 0;
  virtual SmallVector<Value> scale(ArrayRef<Value> acc,
                                   ArrayRef<Value> perSlot) = 0;
  virtual SmallVector<Value> accumulate(ArrayRef<Value> p, ArrayRef<Value> acc,
                                        Value buf) = 0;
  virtual void storeRow(int64_t slot, ArrayRef<Value> acc, Value bIdx,
                        Value hIdx, Value row,
                        function_ref<Value(Value)> finish) = 0;

protected:
  /// Derives the lane's coordinates from `tid`.
  virtual void beginLanes() = 0;
  /// The xor distances between the lanes of one query row.
  virtual ArrayRef<int32_t> rowLaneXors() const = 0;

  AttentionOp op;
  int64_t warps, buffers;
  Type elt;
  int64_t d, dv;
  Value tid, smemK, smemV, nq, nk;
  SmallVector<Value> smem;
  Value query, key, value, output;
  /// Null: keys from 0.
  Value keyOffset;
  /// Row `r` of the kernel's key range in K and V.
  Value keyRow(Value r) { return keyOffset ? add(r, keyOffset) : r; }
  /// The indices of column `col` of key (or value) row `row` (a keyRow) of
  /// kv head `kvHead` of batch entry `bIdx` in `src`: (b, kv head, row,
  /// col), or for paged keys (page, row in the page, kv head, col) through
  /// the page table (pageOfKey).
  SmallVector<Value> kvIndices(Value src, Value bIdx, Value kvHead, Value row,
                               Value col);
};

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_CONVERSION_SOFTMAXTOGPU_ATTENTIONMMA_H
