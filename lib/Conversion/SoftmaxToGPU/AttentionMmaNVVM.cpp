//===- AttentionMmaNVVM.cpp - attention tiles on mma.sync tensor cores ----===//
//
// NVIDIA sm_80+: a warp's 16 query rows are m16n8k16 A fragments held in
// registers (lane: rows group and group + 8, group = lane / 4); K and V
// tiles are copied by cp.async into one or two buffers each (with two, the
// next tile lands while the current one is used), padded to a row stride
// of D + 8 elements, so that ldmatrix reads them without bank conflicts; K
// fragments come from ldmatrix.x4, V fragments from ldmatrix.x4.trans; P is
// reused from S's accumulator registers as A fragments.
//
//===----------------------------------------------------------------------===//

#include "AttentionMma.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

constexpr int64_t kPad = 8;

class NVVMAttentionMma : public AttentionMma {
public:
  NVVMAttentionMma(OpBuilder &b, Location loc, AttentionOp op, int64_t warps,
                   int64_t buffers, int64_t mTiles, bool queriesInSmem)
      : AttentionMma(b, loc, op, warps, buffers), mTiles(mTiles),
        queriesInSmem(queriesInSmem) {}

  int64_t lanes() const override { return 32; }
  int64_t rowsPerWarp() const override { return 16 * mTiles; }
  int64_t slots() const override { return 2 * mTiles; }
  SmallVector<MemRefType> tileBuffers(Attribute workgroup) const override {
    auto tile = [&](ArrayRef<int64_t> shape) {
      return MemRefType::get(shape, elt, MemRefLayoutAttrInterface(),
                             workgroup);
    };
    SmallVector<MemRefType> t = {
        tile({stages(), kKeysPerTile, d + kPad}),
        tile({stages(), kKeysPerTile, dv + kPad})};
    if (queriesInSmem)
      t.push_back(tile({warps * rowsPerWarp(), d + kPad}));
    return t;
  }

  void beginLanes() override {
    lane = rem(tid, 32);
    group = div(lane, 4);
    quad = rem(lane, 4);
    matrix = div(lane, 8);
    matrixRow = rem(lane, 8);
    warpInBlock = div(tid, 32);
  }
  Value slotRow(int64_t slot) override { return add(group, idx(8 * slot)); }
  void loadQuery(Value bIdx, Value hIdx, Value warpRow) override;
  Value stage(bool value, Value bIdx, Value kvHead, Value kv0,
              Value buf) override;
  void wait(Value token) override {
    nvgpu::DeviceAsyncWaitOp::create(b, loc, token, b.getI32IntegerAttr(0));
  }

  SmallVector<Value> scores(Value buf) override;
  // Scores are [16-row tile m][8-key tile n][row half r][column e]:
  // element i is slot 2 (i / 32) + (i / 2) % 2 (row group + 8 slot), key
  // 8 ((i / 4) % 8) + 2 quad + i % 2.
  int64_t slotOf(int64_t i) const override {
    return 2 * (i / 32) + (i / 2) % 2;
  }
  Value keyOf(int64_t i) override {
    return add(idx(((i / 4) % 8) * 8 + i % 2), mul(quad, idx(2)));
  }
  ArrayRef<int32_t> rowLaneXors() const override {
    // The quad: 4 lanes share a row.
    static constexpr int32_t xors[] = {1, 2};
    return xors;
  }
  // ex2.approx.ftz: without ftz (what math.exp2 becomes) ptxas adds a
  // denormal range fix-up around each MUFU.EX2; measured 4-7% of the
  // kernel's time on the H200 (history run 6). Flushed results are below
  // 2^-126 of the row's largest term, which contributes 1 to the sum.
  Value exp2(Value x) override {
    return LLVM::CallIntrinsicOp::create(
               b, loc, b.getF32Type(),
               b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"), ValueRange{x})
        .getResult(0);
  }
  Value isRowLeader() override {
    return cmp(arith::CmpIPredicate::eq, quad, idx(0));
  }

  // O accumulators are [16-row tile m][8 value columns n].
  SmallVector<Value> zeroAccumulators() override {
    return SmallVector<Value>(mTiles * dv / 8, accZero());
  }
  SmallVector<Value> scale(ArrayRef<Value> acc,
                           ArrayRef<Value> perSlot) override {
    SmallVector<Value> out;
    for (int64_t m = 0; m < mTiles; ++m) {
      Value lo = perSlot[2 * m], hi = perSlot[2 * m + 1];
      Value rows = vector::FromElementsOp::create(b, loc, accType(),
                                                  ValueRange{lo, lo, hi, hi});
      for (int64_t n = 0; n < dv / 8; ++n)
        out.push_back(
            arith::MulFOp::create(b, loc, acc[m * (dv / 8) + n], rows));
    }
    return out;
  }
  SmallVector<Value> accumulate(ArrayRef<Value> p, ArrayRef<Value> acc,
                                Value buf) override;
  void storeRow(int64_t slot, ArrayRef<Value> acc, Value bIdx, Value hIdx,
                Value row, function_ref<Value(Value)> finish) override;

private:
  VectorType vec(ArrayRef<int64_t> shape, Type t) {
    return VectorType::get(shape, t);
  }
  VectorType accType() { return vec({2, 2}, b.getF32Type()); }
  Value accZero() {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(accType(), b.getF32FloatAttr(0)));
  }
  /// c + a b (m16n8k16): a vector<4x2xT> and c vector<2x2xf32> in
  /// mma.sync's fragment layouts, b rows `first` and `first + 1` of an
  /// ldmatrix.x4 result (two B fragments side by side). nvvm.mma.sync
  /// directly: upstream's nvgpu.mma.sync lowering deduces no PTX type for
  /// bf16 operands.
  Value mma(Value a, Value bRows, int64_t first, Value c);
  /// ldmatrix.x4 of `tile`'s buffer `buf`: this lane addresses (row, col).
  Value loadMatrices(Value tile, Value buf, Value row, Value col,
                     bool transpose) {
    return nvgpu::LdMatrixOp::create(b, loc, vec({4, 2}, elt), tile,
                                     ValueRange{buf, row, col}, transpose,
                                     /*numTiles=*/4);
  }
  /// acc[m][n + h] += a[m] times B fragment h of `frags` (h = 0, 1) for
  /// every row tile m: one ldmatrix.x4 feeds 2 mTiles mma. `acc` is
  /// [m][nTiles].
  void mmaTwoColumnTiles(ArrayRef<Value> a, Value frags,
                         MutableArrayRef<Value> acc, int64_t nTiles,
                         int64_t n) {
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t m = 0; m < mTiles; ++m)
        acc[m * nTiles + n + h] =
            mma(a[m], frags, 2 * h, acc[m * nTiles + n + h]);
  }
  /// The A fragment of queries [16m, 16m + 16) x [16k, 16k + 16) of the
  /// warp, from registers or by ldmatrix.x4 from shared memory.
  Value queryFragment(int64_t m, int64_t k);

  /// 16-row tiles per warp (1 or 2: with 2, each K or V fragment read from
  /// shared memory feeds two mma).
  int64_t mTiles;
  /// The warp's queries are read from shared memory per tile instead of
  /// being held in registers (where registers would not hold them).
  bool queriesInSmem;

  Value lane, group, quad, matrix, matrixRow, warpInBlock;
  /// [m][k] A fragments, when held in registers.
  SmallVector<SmallVector<Value>> qFrags;
};

} // namespace

void NVVMAttentionMma::loadQuery(Value bIdx, Value hIdx, Value warpRow) {
  Value last = sub(nq, idx(1));
  if (queriesInSmem) {
    // The warp copies its own rows (clamped to Nq - 1), 16 bytes a copy;
    // the loop's first wait and barrier make them visible.
    Value smemQ = smem[2];
    int64_t perRow = d / 8, rows = rowsPerWarp();
    Value base = mul(warpInBlock, idx(rows));
    SmallVector<Value> tokens;
    for (int64_t s = 0; s < rows * perRow / 32; ++s) {
      Value linear = add(lane, idx(s * 32));
      Value row = div(linear, perRow);
      Value col = mul(rem(linear, perRow), idx(8));
      Value srcRow = minI(add(warpRow, row), last);
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
          b, loc, smemQ, ValueRange{add(base, row), col}, op.getQuery(),
          ValueRange{bIdx, hIdx, srcRow, col}, b.getIndexAttr(8),
          /*srcElements=*/Value(), b.getUnitAttr()));
    }
    nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
    return;
  }
  // A fragment of 8 elements: rows (r, r + 8), columns (c, c + 8).
  for (int64_t m = 0; m < mTiles; ++m) {
    Value r = add(add(warpRow, idx(16 * m)), group);
    Value r0 = minI(r, last), r1 = minI(add(r, idx(8)), last);
    qFrags.emplace_back();
    for (int64_t k = 0; k < d / 16; ++k) {
      Value c = add(idx(k * 16), mul(quad, idx(2)));
      Value c1 = add(c, idx(8));
      Value frag = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(vec({4, 2}, elt), b.getZeroAttr(elt)));
      Value rows[4] = {r0, r1, r0, r1};
      Value cols[4] = {c, c, c1, c1};
      for (int64_t i = 0; i < 4; ++i) {
        Value pair = vector::LoadOp::create(
            b, loc, vec({2}, elt), op.getQuery(),
            ValueRange{bIdx, hIdx, rows[i], cols[i]}, /*nontemporal=*/false,
            llvm::Align(2 * elt.getIntOrFloatBitWidth() / 8));
        frag = vector::InsertOp::create(b, loc, pair, frag, i);
      }
      qFrags.back().push_back(frag);
    }
  }
}

Value NVVMAttentionMma::queryFragment(int64_t m, int64_t k) {
  if (!queriesInSmem)
    return qFrags[m][k];
  // Lanes 8i..8i+7 address matrix i: rows 16m + (i%2)*8 + r, columns
  // 16k + (i/2)*8, the A fragment's register order.
  Value row = add(add(mul(warpInBlock, idx(rowsPerWarp())), idx(16 * m)),
                  add(mul(rem(matrix, 2), idx(8)), matrixRow));
  Value col = add(idx(16 * k), mul(div(matrix, 2), idx(8)));
  return nvgpu::LdMatrixOp::create(b, loc, vec({4, 2}, elt), smem[2],
                                   ValueRange{row, col},
                                   /*transpose=*/false, /*numTiles=*/4);
}

Value NVVMAttentionMma::stage(bool value, Value bIdx, Value kvHead,
                              Value kv0, Value buf) {
  Value src = value ? op.getValue() : op.getKey();
  Value smem = value ? smemV : smemK;
  int64_t perRow = (value ? dv : d) / 8;
  int64_t steps = kKeysPerTile * perRow / (warps * 32);
  Value last = sub(nk, idx(1));
  // With no key at all (Nk = 0) nothing is read: a source size of 0
  // zero-fills the destination without touching the source address.
  Value srcElements = arith::SelectOp::create(
      b, loc, cmp(arith::CmpIPredicate::sgt, nk, idx(0)), idx(8), idx(0));
  SmallVector<Value> tokens;
  for (int64_t s = 0; s < steps; ++s) {
    Value linear = add(tid, idx(s * warps * 32));
    Value row = div(linear, perRow);
    Value col = mul(rem(linear, perRow), idx(8));
    Value srcRow = maxI(minI(add(kv0, row), last), idx(0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, smem, ValueRange{buf, row, col}, src,
        ValueRange{bIdx, kvHead, srcRow, col}, b.getIndexAttr(8), srcElements,
        b.getUnitAttr()));
  }
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

Value NVVMAttentionMma::mma(Value a, Value bRows, int64_t first, Value c) {
  bool isBf16 = elt.isBF16();
  auto operand = [&](Value frag, int64_t i) -> Value {
    Value pair = vector::ExtractOp::create(b, loc, frag, i);
    if (!isBf16)
      return pair;
    // bf16 pairs travel as 32-bit registers.
    Value word = vector::BitCastOp::create(b, loc, vec({1}, b.getI32Type()),
                                           pair);
    return vector::ExtractOp::create(b, loc, word, int64_t(0));
  };
  SmallVector<Value> opsA, opsB, opsC;
  for (int64_t i = 0; i < 4; ++i)
    opsA.push_back(operand(a, i));
  for (int64_t i = 0; i < 2; ++i)
    opsB.push_back(operand(bRows, first + i));
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      opsC.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{r, e}));
  Type f32T = b.getF32Type();
  auto resType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  {f32T, f32T, f32T, f32T});
  NVVM::MMATypes t = isBf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value res = NVVM::MmaOp::create(
      b, loc, resType, opsA, opsB, opsC, ArrayRef<int64_t>{16, 8, 16},
      std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{t, t},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
  return vector::FromElementsOp::create(b, loc, accType(), out);
}

SmallVector<Value> NVVMAttentionMma::scores(Value buf) {
  // [m][n] accumulators of 16 x 8; each ldmatrix.x4 of K gives two B
  // fragments, each used by every m tile.
  int64_t nTiles = kKeysPerTile / 8;
  SmallVector<Value> s(mTiles * nTiles, accZero());
  for (int64_t k = 0; k < d / 16; ++k) {
    SmallVector<Value> a;
    for (int64_t m = 0; m < mTiles; ++m)
      a.push_back(queryFragment(m, k));
    for (int64_t n = 0; n < nTiles; n += 2) {
      // Lanes 8i..8i+7 address matrix i: keys n*8 + (i/2)*8 + r, columns
      // k*16 + (i%2)*8.
      Value row = add(add(idx(n * 8), mul(div(matrix, 2), idx(8))), matrixRow);
      Value col = add(idx(k * 16), mul(rem(matrix, 2), idx(8)));
      mmaTwoColumnTiles(a, loadMatrices(smemK, buf, row, col, false), s,
                        nTiles, n);
    }
  }
  SmallVector<Value> out;
  for (Value acc : s)
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t e = 0; e < 2; ++e)
        out.push_back(
            vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e}));
  return out;
}

SmallVector<Value> NVVMAttentionMma::accumulate(ArrayRef<Value> p,
                                                ArrayRef<Value> acc,
                                                Value buf) {
  SmallVector<Value> o(acc);
  int64_t nTiles = dv / 8;
  // 4 steps of 16 keys; P's A fragment of row tile m is the two score
  // accumulators of keys [16k, 16k + 16) in bf16/f16.
  for (int64_t k = 0; k < kKeysPerTile / 16; ++k) {
    SmallVector<Value> a;
    for (int64_t m = 0; m < mTiles; ++m) {
      SmallVector<Value> elems;
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t e = 0; e < 2; ++e)
            elems.push_back(arith::TruncFOp::create(
                b, loc, elt,
                p[((m * (kKeysPerTile / 8) + 2 * k + half) * 2 + r) * 2 + e]));
      // Order: (row g, keys lo), (row g+8, keys lo), (row g, keys hi),
      // (row g+8, keys hi).
      a.push_back(vector::FromElementsOp::create(b, loc, vec({4, 2}, elt),
                                                 elems));
    }
    for (int64_t n = 0; n < nTiles; n += 2) {
      // Lanes 8i..8i+7 address matrix i: keys 16k + (i%2)*8 + r, value
      // columns n*8 + (i/2)*8; transposed on load.
      Value row = add(add(idx(k * 16), mul(rem(matrix, 2), idx(8))),
                      matrixRow);
      Value col = add(idx(n * 8), mul(div(matrix, 2), idx(8)));
      mmaTwoColumnTiles(a, loadMatrices(smemV, buf, row, col, true), o,
                        nTiles, n);
    }
  }
  return o;
}

void NVVMAttentionMma::storeRow(int64_t slot, ArrayRef<Value> acc, Value bIdx,
                                Value hIdx, Value row,
                                function_ref<Value(Value)> finish) {
  Value out = op.getOutput();
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  int64_t m = slot / 2, r = slot % 2;
  for (int64_t n = 0; n < dv / 8; ++n) {
    SmallVector<Value> pair;
    for (int64_t e = 0; e < 2; ++e)
      pair.push_back(finish(vector::ExtractOp::create(
          b, loc, acc[m * (dv / 8) + n], ArrayRef<int64_t>{r, e})));
    Value pv = vector::FromElementsOp::create(b, loc, vec({2}, outElt), pair);
    // Pairs start at even columns of rows of dv (a multiple of 16)
    // elements, in buffers the cp.async copies already need 16-byte
    // aligned: saying so lets the pair go out as one store, not two.
    vector::StoreOp::create(
        b, loc, pv, out,
        ValueRange{bIdx, hIdx, row, add(idx(n * 8), mul(quad, idx(2)))},
        /*nontemporal=*/false,
        llvm::Align(2 * outElt.getIntOrFloatBitWidth() / 8));
  }
}

std::unique_ptr<AttentionMma>
mlir::softmax::detail::makeNVVMAttentionMma(OpBuilder &b, Location loc,
                                            AttentionOp op, int64_t warps,
                                            int64_t buffers, int64_t rows,
                                            bool queriesInSmem) {
  return std::make_unique<NVVMAttentionMma>(b, loc, op, warps, buffers,
                                            rows / 16, queriesInSmem);
}
