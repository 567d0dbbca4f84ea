//===- AttentionMmaROCDL.cpp - attention tiles on CDNA MFMA ---------------===//
//
// CDNA (gfx90a, gfx942), 64-lane wavefronts, amdgpu.mfma 16x16x16 with f32
// accumulators. The kernel computes the transposes S^T = K Q^T and
// O^T = V^T P^T, because then no operand needs a transpose in registers:
// in the 16x16x16 layouts lane l holds row l % 16 and k = 4 (l / 16) + i of
// A, column l % 16 and k = 4 (l / 16) + i of B, and rows 4 (l / 16) + i of
// column l % 16 of the accumulator (i = 0..3). So
//  - Q^T as B: lane l loads 4 contiguous elements of query row l % 16,
//  - K as A: 4 contiguous elements of key row l % 16 from the K tile,
//  - S^T's accumulator holds keys 4 (l / 16) + i of query l % 16, exactly
//    the B fragment of P^T for the next product,
//  - V^T as A: 4 contiguous keys of value column l % 16, read from a V tile
//    stored transposed (value columns as rows) when it is staged,
//  - O^T's accumulator holds value columns 4 (l / 16) + i of query l % 16:
//    one row per lane, stored 4 elements at a time.
// A query row is spread over lanes l, l + 16, l + 32, l + 48 (xor 16, 32).
// Staging is synchronous, into one buffer per tile: global loads of 16
// bytes into registers, stores into LDS (CDNA before gfx950 has no
// asynchronous global-to-LDS copy of 16 bytes per lane, nor a transposing
// LDS read; and two buffers of d = 128 would pass the 64 KiB of LDS).
//
//===----------------------------------------------------------------------===//

#include "ROCDLAttentionMma.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

/// Row padding of both tiles: 4 elements (8 bytes), so that the 16 rows a
/// fragment load touches do not all start in the same LDS bank.
constexpr int64_t kPad = 4;

class ROCDLAttentionMma : public AttentionMma {
public:
  using AttentionMma::AttentionMma;

  int64_t lanes() const override { return 64; }
  int64_t rowsPerWarp() const override { return 16; }
  int64_t slots() const override { return 1; }
  SmallVector<MemRefType> tileBuffers(Attribute workgroup) const override {
    auto tile = [&](int64_t rows, int64_t cols) {
      return MemRefType::get({stages(), rows, cols + kPad}, elt,
                             MemRefLayoutAttrInterface(), workgroup);
    };
    // K as keys x d; V transposed, value columns x keys.
    return {tile(kKeysPerTile, d), tile(dv, kKeysPerTile)};
  }

  void beginLanes() override {
    Value lane = rem(tid, 64);
    column = rem(lane, 16);
    kGroup = mul(div(lane, 16), idx(4));
  }
  Value slotRow(int64_t) override { return column; }
  void loadQuery(Value bIdx, Value hIdx, Value warpRow) override;
  Value stage(bool value, Value bIdx, Value kvHead, Value kv0,
              Value buf) override;
  void wait(Value, int64_t) override {}

  SmallVector<Value> scores(Value buf) override;
  int64_t slotOf(int64_t) const override { return 0; }
  // Element i is key 16 (i / 4) + 4 (lane / 16) + i % 4.
  Value keyOf(int64_t i) override {
    return add(kGroup, idx((i / 4) * 16 + i % 4));
  }
  ArrayRef<int32_t> rowLaneXors() const override {
    static constexpr int32_t xors[] = {16, 32};
    return xors;
  }
  Value isRowLeader() override {
    return cmp(arith::CmpIPredicate::eq, kGroup, idx(0));
  }

  SmallVector<Value> zeroAccumulators() override {
    return SmallVector<Value>(dv / 16, accZero());
  }
  SmallVector<Value> scale(ArrayRef<Value> acc,
                           ArrayRef<Value> perSlot) override {
    Value s = vector::BroadcastOp::create(b, loc, accType(), perSlot[0]);
    SmallVector<Value> out;
    for (Value a : acc)
      out.push_back(arith::MulFOp::create(b, loc, a, s));
    return out;
  }
  SmallVector<Value> accumulate(ArrayRef<Value> p, ArrayRef<Value> acc,
                                Value buf) override;
  void storeRow(int64_t slot, ArrayRef<Value> acc, Value bIdx, Value hIdx,
                Value row, function_ref<Value(Value)> finish) override;

private:
  VectorType vec(int64_t n, Type t) { return VectorType::get({n}, t); }
  VectorType accType() { return vec(4, b.getF32Type()); }
  Value accZero() {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType(), b.getF32FloatAttr(0)));
  }
  Value mfma(Value a, Value bFrag, Value c) {
    return amdgpu::MFMAOp::create(b, loc, accType(), 16, 16, 16, 1, a, bFrag,
                                  c);
  }

  /// Lane l: l % 16 and 4 (l / 16).
  Value column, kGroup;
  SmallVector<Value> qFrags;
};

} // namespace

void ROCDLAttentionMma::loadQuery(Value bIdx, Value hIdx, Value warpRow) {
  Value row = minI(add(warpRow, column), sub(nq, idx(1)));
  for (int64_t k = 0; k < d / 16; ++k)
    qFrags.push_back(vector::LoadOp::create(
        b, loc, vec(4, elt), query,
        ValueRange{bIdx, hIdx, row, add(idx(k * 16), kGroup)}));
}

Value ROCDLAttentionMma::stage(bool value, Value bIdx, Value kvHead,
                               Value kv0, Value buf) {
  Value src = value ? this->value : key;
  Value smem = value ? smemV : smemK;
  int64_t perRow = (value ? dv : d) / 8;
  int64_t chunks = kKeysPerTile * perRow, threads = warps * 64;
  // With no key at all (Nk = 0) there is no row to repeat: nothing is read.
  auto any = scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::sgt, nk, idx(0)),
                               /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&any.getThenRegion().front());
  Value last = sub(nk, idx(1));
  for (int64_t s = 0; s * threads < chunks; ++s) {
    Value linear = add(tid, idx(s * threads));
    // Small head dimensions leave threads without a chunk.
    std::optional<OpBuilder::InsertionGuard> inner;
    if ((s + 1) * threads > chunks) {
      auto has = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::ult, linear, idx(chunks)),
          /*withElseRegion=*/false);
      inner.emplace(b);
      b.setInsertionPointToStart(&has.getThenRegion().front());
    }
    Value row = div(linear, perRow);
    Value col = mul(rem(linear, perRow), idx(8));
    Value srcRow = keyRow(minI(add(kv0, row), last));
    Value chunk = vector::LoadOp::create(
        b, loc, vec(8, elt), src, kvIndices(src, bIdx, kvHead, srcRow, col));
    if (!value) {
      vector::StoreOp::create(b, loc, chunk, smem, ValueRange{buf, row, col});
      continue;
    }
    for (int64_t e = 0; e < 8; ++e)
      memref::StoreOp::create(b, loc,
                              vector::ExtractOp::create(b, loc, chunk, e),
                              smem, ValueRange{buf, add(col, idx(e)), row});
  }
  return Value();
}

SmallVector<Value> ROCDLAttentionMma::scores(Value buf) {
  // S^T in 4 accumulators of 16 keys x 16 queries.
  SmallVector<Value> s(kKeysPerTile / 16, accZero());
  for (int64_t m = 0; m < kKeysPerTile / 16; ++m)
    for (int64_t k = 0; k < d / 16; ++k) {
      Value a = vector::LoadOp::create(
          b, loc, vec(4, elt), smemK,
          ValueRange{buf, add(idx(m * 16), column), add(idx(k * 16), kGroup)});
      s[m] = mfma(a, qFrags[k], s[m]);
    }
  SmallVector<Value> out;
  for (Value acc : s)
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(vector::ExtractOp::create(b, loc, acc, i));
  return out;
}

SmallVector<Value> ROCDLAttentionMma::accumulate(ArrayRef<Value> p,
                                                 ArrayRef<Value> acc,
                                                 Value buf) {
  SmallVector<Value> o(acc);
  for (int64_t k = 0; k < kKeysPerTile / 16; ++k) {
    // P^T's B fragment: keys 16k + 4 (l / 16) + i of query l % 16, which
    // is S^T's accumulator k as this lane holds it.
    SmallVector<Value> elems;
    for (int64_t i = 0; i < 4; ++i)
      elems.push_back(arith::TruncFOp::create(b, loc, elt, p[k * 4 + i]));
    Value pFrag = vector::FromElementsOp::create(b, loc, vec(4, elt), elems);
    for (int64_t m = 0; m < dv / 16; ++m) {
      Value a = vector::LoadOp::create(
          b, loc, vec(4, elt), smemV,
          ValueRange{buf, add(idx(m * 16), column), add(idx(k * 16), kGroup)});
      o[m] = mfma(a, pFrag, o[m]);
    }
  }
  return o;
}

void ROCDLAttentionMma::storeRow(int64_t, ArrayRef<Value> acc, Value bIdx,
                                 Value hIdx, Value row,
                                 function_ref<Value(Value)> finish) {
  Value out = output;
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  for (int64_t m = 0; m < dv / 16; ++m) {
    SmallVector<Value> elems;
    for (int64_t i = 0; i < 4; ++i)
      elems.push_back(
          finish(vector::ExtractOp::create(b, loc, acc[m], i)));
    Value v = vector::FromElementsOp::create(b, loc, vec(4, outElt), elems);
    vector::StoreOp::create(b, loc, v, out,
                            ValueRange{bIdx, hIdx, row,
                                       add(idx(m * 16), kGroup)});
  }
}

std::unique_ptr<AttentionMma>
mlir::softmax::detail::makeROCDLAttentionMma(OpBuilder &b, Location loc,
                                             AttentionOp op, int64_t warps) {
  return std::make_unique<ROCDLAttentionMma>(b, loc, op, warps,
                                             /*buffers=*/1);
}
