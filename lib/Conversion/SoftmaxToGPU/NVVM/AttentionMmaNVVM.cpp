//===- AttentionMmaNVVM.cpp - attention tiles on mma.sync tensor cores ----===//
//
// NVIDIA sm_80+, f16/bf16: a warp's 16 query rows are m16n8k16 A fragments
// held in registers (lane: rows group and group + 8, group = lane / 4); K
// and V tiles are copied by cp.async into one or two buffers each (with
// two, the next tile lands while the current one is used), padded to a row
// stride of D + 8 elements, so that ldmatrix reads them without bank
// conflicts; K fragments come from ldmatrix.x4, V fragments from
// ldmatrix.x4.trans; P is reused from S's accumulator registers as A
// fragments. f32 (NVVMF32AttentionMma, below): the same staging, products
// on m16n8k8 tf32 (three per tile for exact results, one for tf32).
//
//===----------------------------------------------------------------------===//

#include "NVVMAttentionMma.h"
#include "WarpgroupMma.h"
#include "TensorMapTiles.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

SmallVector<Value> softmax::detail::flattenAccumulators(OpBuilder &b,
                                                        Location loc,
                                                        ArrayRef<Value> accs) {
  SmallVector<Value> out;
  for (Value acc : accs)
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t e = 0; e < 2; ++e)
        out.push_back(
            vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e}));
  return out;
}

Value softmax::detail::mmaSync(OpBuilder &b, Location loc, ArrayRef<Value> a,
                               ArrayRef<Value> bv, Value c, int64_t k,
                               NVVM::MMATypes type, Type accType) {
  SmallVector<Value> opsC;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      opsC.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{r, e}));
  Type f32T = b.getF32Type();
  auto resType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  {f32T, f32T, f32T, f32T});
  Value res = NVVM::MmaOp::create(
      b, loc, resType, a, bv, opsC, ArrayRef<int64_t>{16, 8, k}, std::nullopt,
      std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
  return vector::FromElementsOp::create(b, loc, accType, out);
}

Value softmax::detail::NVVMRowMath::fastExp2(Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, loc, b.getF32Type(),
             b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"), ValueRange{x})
      .getResult(0);
}

namespace {

class NVVMAttentionMma : public AttentionMma {
public:
  NVVMAttentionMma(OpBuilder &b, Location loc, AttentionOp op, int64_t warps,
                   int64_t buffers, int64_t mTiles, bool queriesInSmem,
                   bool tilesThroughL1 = false, bool tensorMapTiles = false,
                   bool warpgroupScores = false)
      : AttentionMma(b, loc, op, warps, buffers), mTiles(mTiles),
        queriesInSmem(queriesInSmem), tilesThroughL1(tilesThroughL1),
        tensorMapTiles(tensorMapTiles), warpgroupScores(warpgroupScores),
        vecElts(128 / elt.getIntOrFloatBitWidth()) {}

  int64_t lanes() const override { return 32; }
  int64_t rowsPerWarp() const override { return 16 * mTiles; }
  int64_t slots() const override { return 2 * mTiles; }
  SmallVector<MemRefType> tileBuffers(Attribute workgroup) const override {
    auto tile = [&](ArrayRef<int64_t> shape) {
      return MemRefType::get(shape, elt, MemRefLayoutAttrInterface(),
                             workgroup);
    };
    // Rows padded by 16 bytes, so that the 8 rows an ldmatrix reads start
    // in different 16-byte bank groups; or, by bulk tensor copies, boxes of
    // 64 x 64 that the 128-byte swizzle spreads over the banks, and an
    // mbarrier per buffer for K and for V after the queries.
    SmallVector<MemRefType> t;
    if (tensorMapTiles)
      t = {tile({stages(), d / kBoxCols, kKeysPerTile, kBoxCols}),
           tile({stages(), dv / kBoxCols, kKeysPerTile, kBoxCols})};
    else
      t = {tile({stages(), kKeysPerTile, d + vecElts}),
           tile({stages(), kKeysPerTile, dv + vecElts})};
    // Warpgroup products read the queries as K tiles are read: 64-column
    // boxes of each warpgroup's 64 rows, 128-byte swizzled.
    if (warpgroupScores)
      t.push_back(tile({warps / 4, d / kBoxCols, 64, kBoxCols}));
    else if (queriesInSmem)
      t.push_back(tile({warps * rowsPerWarp(), d + vecElts}));
    if (tensorMapTiles)
      t.push_back(MemRefType::get({2 * stages()}, b.getI64Type(),
                                  MemRefLayoutAttrInterface(), workgroup));
    return t;
  }

  bool tracksTilesOnBarriers() const override { return tensorMapTiles; }
  int64_t tileAlignment() const override {
    return tensorMapTiles ? kSwizzleAlign : 16;
  }
  void prepareHost() override {
    if (!tensorMapTiles)
      return;
    keyMap = createBoxTensorMap(b, loc, key);
    valueMap = createBoxTensorMap(b, loc, value);
  }
  void waitTileHalf(Value tile, Value buf, bool value) override {
    // Buffer buf's barriers complete one phase per tile it holds.
    Value parity = arith::IndexCastOp::create(
        b, loc, b.getI32Type(), rem(div(tile, stages()), 2));
    waitBarrierParity(b, loc, tileBarrier(buf, value), parity);
  }
  void skipCopy(bool value, Value buf) override {
    auto first = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, tid, idx(0)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    expectTileBytes(b, loc, tileBarrier(buf, value), 0);
  }

  void beginLanes() override {
    if (tensorMapTiles)
      initTileBarriers(b, loc, smem[barriers()], tid);
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
  void wait(Value token, int64_t pending) override {
    nvgpu::DeviceAsyncWaitOp::create(b, loc, token,
                                     b.getI32IntegerAttr(pending));
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
  std::unique_ptr<StateMath> rowMath() override {
    return std::make_unique<NVVMRowMath>(b, loc);
  }
  Value isRowLeader() override {
    return cmp(arith::CmpIPredicate::eq, quad, idx(0));
  }
  // vote.sync.any and bar.red.or: one instruction each where the shuffle
  // reduction takes ten and the shared-memory flag a store, a barrier and
  // a load. The vote sets a predicate; redux.sync.or, which this used
  // before, writes a register the branch then compares (the causal d 128
  // warp tile with nothing skipped: not measured yet, bench/blasst/overhead_ab.py).
  SmallVector<Value> warpAny(ArrayRef<Value> preds) override {
    Value all = arith::ConstantIntOp::create(b, loc, -1, 32);
    SmallVector<Value> any;
    for (Value p : preds)
      any.push_back(NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), all, p,
                                             NVVM::VoteSyncKind::any));
    return any;
  }
  bool reducesAtBarrier() const override { return true; }
  Value barrierAny(Value pred) override {
    Value p32 = arith::ExtUIOp::create(b, loc, b.getI32Type(), pred);
    Value any =
        NVVM::BarrierOp::create(b, loc, b.getI32Type(), Value(), Value(),
                                NVVM::BarrierReductionAttr::get(
                                    b.getContext(), NVVM::BarrierReduction::OR),
                                p32)
            .getRes();
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, any,
                                 arith::ConstantIntOp::create(b, loc, 0, 32));
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

protected:
  VectorType vec(ArrayRef<int64_t> shape, Type t) {
    return VectorType::get(shape, t);
  }
  VectorType accType() { return vec({2, 2}, b.getF32Type()); }
  Value accZero() {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType(), b.getF32FloatAttr(0)));
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
    SmallVector<Value> at =
        tensorMapTiles ? swizzledTileIndices(b, loc, buf, row, col)
                       : SmallVector<Value>{buf, row, col};
    return nvgpu::LdMatrixOp::create(b, loc, vec({4, 2}, elt), tile, at,
                                     transpose, /*numTiles=*/4);
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
  /// K/V tiles copied through L1 (cp.async.ca), else around it (.cg).
  bool tilesThroughL1;
  /// K/V tiles by bulk tensor copies (TensorMapTiles.h), else cp.async.
  bool tensorMapTiles;
  /// S = Q K^T by wgmma m64n64k16 (WarpgroupMma.h), a warpgroup's 64 rows
  /// at once.
  bool warpgroupScores;
  /// Elements per 16-byte copy (8 of f16/bf16, 4 of f32).
  int64_t vecElts;
  /// With tensorMapTiles: the tensor maps of K and V (host values).
  Value keyMap, valueMap;
  /// The index of the mbarriers among the buffers of `tileBuffers`.
  int64_t barriers() const { return queriesInSmem ? 3 : 2; }
  /// The mbarrier of buffer `buf`'s K (value = 0) or V tile.
  Value tileBarrier(Value buf, int64_t value) {
    return sharedAddress(b, loc, smem[barriers()],
                         mul(add(mul(buf, idx(2)), idx(value)), idx(8)));
  }

  Value lane, group, quad, matrix, matrixRow, warpInBlock;
  /// [m][k] A fragments, when held in registers.
  SmallVector<SmallVector<Value>> qFrags;
};

} // namespace

void NVVMAttentionMma::loadQuery(Value bIdx, Value hIdx, Value warpRow) {
  Value last = sub(nq, idx(1));
  if (queriesInSmem) {
    // The warp copies its own rows (clamped to Nq - 1), 16 bytes a copy:
    // into padded rows, or, for warpgroup products, into its warpgroup's
    // swizzled boxes (rows 16 (warp % 4) on of warpgroup warp / 4). The
    // loop's first wait and barrier make them visible.
    Value smemQ = smem[2];
    int64_t perRow = d / vecElts, rows = rowsPerWarp();
    Value base = mul(warpgroupScores ? rem(warpInBlock, 4) : warpInBlock,
                     idx(rows));
    SmallVector<Value> tokens;
    for (int64_t s = 0; s < rows * perRow / 32; ++s) {
      Value linear = add(lane, idx(s * 32));
      Value row = div(linear, perRow);
      Value col = mul(rem(linear, perRow), idx(vecElts));
      Value srcRow = minI(add(warpRow, row), last);
      SmallVector<Value> at =
          warpgroupScores ? swizzledTileIndices(b, loc, div(warpInBlock, 4),
                                                add(base, row), col)
                          : SmallVector<Value>{add(base, row), col};
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
          b, loc, smemQ, at, query, ValueRange{bIdx, hIdx, srcRow, col},
          b.getIndexAttr(vecElts), /*srcElements=*/Value(), b.getUnitAttr()));
    }
    Value group = nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
    // The tiles' waits are on their barriers, not on copy groups.
    if (tensorMapTiles)
      wait(group, 0);
    // Warpgroup products read the queries through the async proxy.
    if (warpgroupScores)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
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
          b, loc, DenseElementsAttr::get(vec({4, 2}, elt), b.getZeroAttr(elt)));
      Value rows[4] = {r0, r1, r0, r1};
      Value cols[4] = {c, c, c1, c1};
      for (int64_t i = 0; i < 4; ++i) {
        Value pair = vector::LoadOp::create(
            b, loc, vec({2}, elt), query,
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

Value NVVMAttentionMma::stage(bool value, Value bIdx, Value kvHead, Value kv0,
                              Value buf) {
  Value src = value ? this->value : key;
  Value smem = value ? smemV : smemK;
  if (tensorMapTiles) {
    // One thread: the barrier expects the tile's bytes, then a copy per
    // 64-column box (rows past the keys arrive as zeros).
    int64_t cols = value ? dv : d, boxes = cols / kBoxCols;
    int64_t boxBytes = kKeysPerTile * kBoxCols * elt.getIntOrFloatBitWidth() / 8;
    auto first = scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::eq, tid,
                                               idx(0)),
                                   /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    Value bar = tileBarrier(buf, value);
    expectTileBytes(b, loc, bar, boxes * boxBytes);
    auto i32 = [&](Value x) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), x);
    };
    for (int64_t h = 0; h < boxes; ++h) {
      Value dst = sharedAddress(
          b, loc, smem, mul(add(mul(buf, idx(boxes)), idx(h)), idx(boxBytes)));
      copyBox(b, loc, dst, value ? valueMap : keyMap,
              ValueRange{i32(idx(h * kBoxCols)), i32(keyRow(kv0)), i32(kvHead),
                         i32(bIdx)},
              bar);
    }
    return Value();
  }
  int64_t perRow = (value ? dv : d) / vecElts;
  int64_t steps = kKeysPerTile * perRow / (warps * 32);
  Value last = sub(nk, idx(1));
  // With no key at all (Nk = 0) nothing is read: a source size of 0
  // zero-fills the destination without touching the source address.
  Value srcElements = arith::SelectOp::create(
      b, loc, cmp(arith::CmpIPredicate::sgt, nk, idx(0)), idx(vecElts), idx(0));
  SmallVector<Value> tokens;
  for (int64_t s = 0; s < steps; ++s) {
    Value linear = add(tid, idx(s * warps * 32));
    Value row = div(linear, perRow);
    Value col = mul(rem(linear, perRow), idx(vecElts));
    Value srcRow = keyRow(maxI(minI(add(kv0, row), last), idx(0)));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, smem, ValueRange{buf, row, col}, src,
        kvIndices(src, bIdx, kvHead, srcRow, col), b.getIndexAttr(vecElts),
        srcElements, tilesThroughL1 ? UnitAttr() : b.getUnitAttr()));
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
    Value word =
        vector::BitCastOp::create(b, loc, vec({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, loc, word, int64_t(0));
  };
  SmallVector<Value> opsA, opsB;
  for (int64_t i = 0; i < 4; ++i)
    opsA.push_back(operand(a, i));
  for (int64_t i = 0; i < 2; ++i)
    opsB.push_back(operand(bRows, first + i));
  return mmaSync(b, loc, opsA, opsB, c, /*k=*/16,
                 isBf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16,
                 accType());
}

SmallVector<Value> NVVMAttentionMma::scores(Value buf) {
  if (warpgroupScores) {
    // The warpgroup's 64 rows by the tile's 64 keys: per 16 columns of the
    // head dimension one m64n64k16, both operands from their swizzled
    // boxes (box k / 4, 32 (k % 4) bytes in). The accumulators lie as
    // mma.sync's m16n8 ones with one row tile: the same element order.
    int64_t boxBytes = 64 * kBoxCols * elt.getIntOrFloatBitWidth() / 8;
    int64_t tileBytes = d / kBoxCols * boxBytes;
    Value qAt = sharedAddressI64(b, loc, smem[2],
                                 mul(div(warpInBlock, 4), idx(tileBytes)));
    Value kAt = sharedAddressI64(b, loc, smemK, mul(buf, idx(tileBytes)));
    Value acc = LLVM::ZeroOp::create(
        b, loc, warpgroupAccumulatorType(b, kKeysPerTile));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    acc = warpgroupMmaColumns(b, loc, acc, qAt, boxBytes, kAt, boxBytes, d,
                              kKeysPerTile, elt);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    return warpgroupAccumulatorElements(
        b, loc, settleWarpgroupAccumulators(b, loc, acc));
  }
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
      mmaTwoColumnTiles(a, loadMatrices(smemK, buf, row, col, false), s, nTiles,
                        n);
    }
  }
  return flattenAccumulators(b, loc, s);
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
      a.push_back(
          vector::FromElementsOp::create(b, loc, vec({4, 2}, elt), elems));
    }
    for (int64_t n = 0; n < nTiles; n += 2) {
      // Lanes 8i..8i+7 address matrix i: keys 16k + (i%2)*8 + r, value
      // columns n*8 + (i/2)*8; transposed on load.
      Value row = add(add(idx(k * 16), mul(rem(matrix, 2), idx(8))), matrixRow);
      Value col = add(idx(n * 8), mul(div(matrix, 2), idx(8)));
      mmaTwoColumnTiles(a, loadMatrices(smemV, buf, row, col, true), o, nTiles,
                        n);
    }
  }
  return o;
}

void NVVMAttentionMma::storeRow(int64_t slot, ArrayRef<Value> acc, Value bIdx,
                                Value hIdx, Value row,
                                function_ref<Value(Value)> finish) {
  Value out = output;
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

namespace {

/// Exact P V: value-column tiles accumulated together, their mma issued
/// product by product across the tiles. Measured on the H200
/// (bench/results/gpu_attention_f32.md, against one tile at a time): 4
/// tiles 57.1 against 52.5 TFLOP/s at B1 H32 N4096 d128, 51.0 against 47.4 at N
/// 1000, 46.5 against 43.8 causal at d 64, the same elsewhere; 2 tiles no gain.
constexpr int64_t kGroup = 4;

/// f32 inputs on the tf32 tensor cores, mma.sync m16n8k8 (A 16x8, B 8x8,
/// both as 32-bit registers holding tf32 bit patterns; C as for m16n8k16).
/// Staging, the online softmax and the stores are the f16/bf16 kernel's
/// (16-byte cp.async of 4 floats, rows padded by 4 floats); the queries
/// are always read from shared memory.
///
/// Operands: an ldmatrix of an 8x8 b16 matrix read as 8 rows of 4 floats
/// gives lane l the float at (l / 4, l % 4), which is the tf32 A and B
/// fragment layout: Q's A fragment is 4 such matrices (rows 0-7 / 8-15,
/// columns 0-3 / 4-7), K's B fragment 2 (keys 0-7, dims 0-3 / 4-7). P is
/// S's accumulator (row g, keys 2q and 2q + 1), which is not the A layout
/// (row g, k-columns q and q + 4); the keys of each 8-key step are
/// therefore taken in the order 0 2 4 6 1 3 5 7: k-column q is key 2q,
/// k-column q + 4 is key 2q + 1, so P's registers are A's unchanged and V's
/// B fragment is V[2q][g], V[2q + 1][g] (two 4-byte loads, bank-conflict
/// free with the row stride dv + 4).
///
/// Exact (3xTF32): x = hi + lo with hi = x truncated to tf32 and lo = x - hi
/// (exact in f32); a b is hi_a hi_b + hi_a lo_b + lo_a hi_b, the small
/// products first, dropping lo_a lo_b (2^-20 relative) and the bits of lo
/// below tf32 (2^-20). Why this and not another exact path: measured on the
/// H200 (bench/results/gpu_attention_f32.md) it is 2.5e-6 of
/// float64 at worst and runs 35-70 TFLOP/s, above what fp32 FMA (SIMT) can
/// reach in attention (datasheet fp32 peak 67 TFLOP/s before any exp,
/// max or load; SDPA's math path, cuBLAS in fp32, measured 7-27); bf16
/// parts keep 8 bits each, so three products leave 2^-16 (1.5e-5, over the
/// 1e-5 asked) and an exact split needs six, as much tensor-core time as
/// three tf32 products with twice the operand registers.
/// mma.sync truncates its f32 sums, so one chain of products into O over
/// the whole key range drifts towards zero by up to an ulp per 8-key step:
/// measured (with hi rounded), 3.0e-5 of float64 at N 4096 d 128
/// (1.5e-5 at N 2048 d 64). P V of each 64-key tile therefore starts from
/// zero (8 steps) and is added to O in round-to-nearest f32: 1.6e-6 at N
/// 4096, for 9% of speed (64.0 against 69.9 TFLOP/s at B2 H16 N2048 d64). S = Q
/// K^T starts from zero on every tile anyway (at most 32 steps). The softmax
/// statistics are the f16/bf16 kernel's f32 ones; ex2.approx.ftz (2 ulp) is
/// part of the error measured. Splitting each landed K and V tile once per
/// block into hi and lo tiles in shared memory, instead of in every warp that
/// reads it, measured slower (d 128 46.4 against 49.6 TFLOP/s,
/// causal d 128 44.6 against 51.1, tf32 d 64 143 against 154): the extra
/// pass and the larger tiles (fewer blocks per SM) cost more than the
/// integer ops saved.
class NVVMF32AttentionMma : public NVVMAttentionMma {
public:
  NVVMF32AttentionMma(OpBuilder &b, Location loc, AttentionOp op, int64_t warps,
                      int64_t buffers, int64_t mTiles,
                      AttentionF32Precision precision)
      : NVVMAttentionMma(b, loc, op, warps, buffers, mTiles,
                         /*queriesInSmem=*/true),
        exact(precision == AttentionF32Precision::Exact) {}

  SmallVector<Value> scores(Value buf) override;
  SmallVector<Value> accumulate(ArrayRef<Value> p, ArrayRef<Value> acc,
                                Value buf) override;

private:
  /// A fragment (4 registers) or B fragment (2) as tf32 parts: `hi` always,
  /// `lo` when exact.
  struct Parts {
    SmallVector<Value> hi, lo;
  };
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  /// As i32 bit patterns. tf32: hi = x rounded to the nearest tf32 (ties
  /// away from zero: add half of the 13 dropped bits, clear them). Exact:
  /// hi = x truncated to tf32 (clear the 13 bits), lo = x - hi, exact in
  /// f32 and below 2^-10 |x|; the tensor core reads lo's leading 11 bits,
  /// so each operand keeps x to 2^-20. Measured on the H200:
  /// truncating hi is 5-16% faster than rounding it (one integer op less
  /// per element; d 64: 69.8 against 63.8 TFLOP/s, causal d 128: 59.4
  /// against 51.1) at 2.5e-6 of float64 instead of 1.7e-6 (3.6e-6 against
  /// 3.2e-6 with 30x larger logits). tf32 keeps the rounding: without it
  /// (the tensor core truncating x) it measured 11-23% faster but 1.6e-3
  /// instead of 4.2e-4, which is what PyTorch's TF32 matmuls give.
  Parts split(ArrayRef<Value> xs) {
    Parts out;
    Value mask = i32(static_cast<int32_t>(0xffffe000u));
    for (Value x : xs) {
      Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
      Value hi =
          exact ? arith::AndIOp::create(b, loc, bits, mask)
                : arith::AndIOp::create(
                      b, loc, arith::AddIOp::create(b, loc, bits, i32(0x1000)),
                      mask);
      out.hi.push_back(hi);
      if (!exact)
        continue;
      Value hiF = arith::BitcastOp::create(b, loc, b.getF32Type(), hi);
      Value lo = arith::SubFOp::create(b, loc, x, hiF);
      out.lo.push_back(arith::BitcastOp::create(b, loc, b.getI32Type(), lo));
    }
    return out;
  }
  /// The 4 floats of an ldmatrix.x4 of 8x4-float matrices at (row, col).
  SmallVector<Value> loadFloats(Value tile, ValueRange indices) {
    Value m = nvgpu::LdMatrixOp::create(b, loc, vec({4, 1}, b.getF32Type()),
                                        tile, indices, /*transpose=*/false,
                                        /*numTiles=*/4);
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(
          vector::ExtractOp::create(b, loc, m, ArrayRef<int64_t>{i, 0}));
    return out;
  }
  /// c + a b on one m16n8k8 tf32 mma.
  Value mmaTF32(ArrayRef<Value> a, ArrayRef<Value> bv, Value c);
  /// c += a b for several independent accumulators, issued product by
  /// product across them (lo hi of all, then hi lo, then hi hi), so that
  /// consecutive mma do not wait on each other's accumulator.
  struct Product {
    const Parts *a;
    Parts b;
    Value *c;
  };
  void products(MutableArrayRef<Product> jobs) {
    if (exact) {
      for (Product &j : jobs)
        *j.c = mmaTF32(j.a->lo, j.b.hi, *j.c);
      for (Product &j : jobs)
        *j.c = mmaTF32(j.a->hi, j.b.lo, *j.c);
    }
    for (Product &j : jobs)
      *j.c = mmaTF32(j.a->hi, j.b.hi, *j.c);
  }
  Parts slice(const Parts &p, int64_t first, int64_t n) {
    Parts out;
    out.hi.assign(p.hi.begin() + first, p.hi.begin() + first + n);
    if (exact)
      out.lo.assign(p.lo.begin() + first, p.lo.begin() + first + n);
    return out;
  }

  bool exact;
};

} // namespace

Value NVVMF32AttentionMma::mmaTF32(ArrayRef<Value> a, ArrayRef<Value> bv,
                                   Value c) {
  return mmaSync(b, loc, a, bv, c, /*k=*/8, NVVM::MMATypes::tf32, accType());
}

SmallVector<Value> NVVMF32AttentionMma::scores(Value buf) {
  // [m][n] accumulators of 16 x 8, 8 dims per step; each ldmatrix.x4 of K
  // gives the B fragments of two 8-key tiles, each used by every m tile.
  int64_t nTiles = kKeysPerTile / 8;
  SmallVector<Value> s(mTiles * nTiles, accZero());
  for (int64_t k = 0; k < d / 8; ++k) {
    SmallVector<Parts> a;
    for (int64_t m = 0; m < mTiles; ++m) {
      // Lanes 8i..8i+7 address matrix i: rows 16m + (i%2)*8 + r, columns
      // 8k + (i/2)*4 (registers a0..a3 of the A fragment).
      Value row = add(add(mul(warpInBlock, idx(rowsPerWarp())), idx(16 * m)),
                      add(mul(rem(matrix, 2), idx(8)), matrixRow));
      Value col = add(idx(8 * k), mul(div(matrix, 2), idx(4)));
      a.push_back(split(loadFloats(smem[2], ValueRange{row, col})));
    }
    for (int64_t n = 0; n < nTiles; n += 2) {
      // Lanes 8i..8i+7 address matrix i: keys 8n + (i/2)*8 + r, dims
      // 8k + (i%2)*4: registers 0, 1 are tile n's b0, b1; 2, 3 tile n+1's.
      Value row = add(add(idx(n * 8), mul(div(matrix, 2), idx(8))), matrixRow);
      Value col = add(idx(8 * k), mul(rem(matrix, 2), idx(4)));
      Parts frags = split(loadFloats(smemK, ValueRange{buf, row, col}));
      SmallVector<Product> jobs;
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t m = 0; m < mTiles; ++m)
          jobs.push_back(
              {&a[m], slice(frags, 2 * h, 2), &s[m * nTiles + n + h]});
      products(jobs);
    }
  }
  return flattenAccumulators(b, loc, s);
}

SmallVector<Value> NVVMF32AttentionMma::accumulate(ArrayRef<Value> p,
                                                   ArrayRef<Value> acc,
                                                   Value buf) {
  SmallVector<Value> o(acc);
  int64_t nTiles = dv / 8, steps = kKeysPerTile / 8;
  // P's A fragment of row tile m and 8-key step j: S's accumulator of keys
  // [8j, 8j + 8) as (row g, key 2q), (row g+8, key 2q), (row g, key 2q+1),
  // (row g+8, key 2q+1).
  SmallVector<SmallVector<Parts>> pa(mTiles);
  for (int64_t m = 0; m < mTiles; ++m)
    for (int64_t j = 0; j < steps; ++j) {
      int64_t base = (m * steps + j) * 4;
      pa[m].push_back(split({p[base], p[base + 2], p[base + 1], p[base + 3]}));
    }
  // V's B fragment of step j and 8 value columns n: V[8j + 2q][8n + g],
  // V[8j + 2q + 1][8n + g].
  auto vFrag = [&](int64_t j, int64_t n) {
    Value row = add(idx(8 * j), mul(quad, idx(2)));
    Value col = add(idx(8 * n), group);
    SmallVector<Value> vals;
    for (int64_t e = 0; e < 2; ++e)
      vals.push_back(memref::LoadOp::create(
          b, loc, smemV, ValueRange{buf, add(row, idx(e)), col}));
    return split(vals);
  };
  if (!exact) {
    // tf32: one chain per accumulator, as on f16/bf16 (its truncation
    // drift stays far under tf32's own 1e-3).
    for (int64_t j = 0; j < steps; ++j)
      for (int64_t n = 0; n < nTiles; ++n) {
        Parts v = vFrag(j, n);
        for (int64_t m = 0; m < mTiles; ++m)
          o[m * nTiles + n] = mmaTF32(pa[m][j].hi, v.hi, o[m * nTiles + n]);
      }
    return o;
  }
  // Exact: the tile's P V from zero, then O + it rounded to nearest; kGroup
  // value-column tiles at a time (independent accumulators, interleaved).
  int64_t width = std::min<int64_t>(kGroup, nTiles);
  for (int64_t n0 = 0; n0 < nTiles; n0 += width) {
    SmallVector<Value> t(width * mTiles, accZero());
    for (int64_t j = 0; j < steps; ++j) {
      SmallVector<Product> jobs;
      for (int64_t g = 0; g < width; ++g) {
        Parts v = vFrag(j, n0 + g);
        for (int64_t m = 0; m < mTiles; ++m)
          jobs.push_back({&pa[m][j], v, &t[g * mTiles + m]});
      }
      products(jobs);
    }
    for (int64_t g = 0; g < width; ++g)
      for (int64_t m = 0; m < mTiles; ++m) {
        Value &acc = o[m * nTiles + n0 + g];
        acc = arith::AddFOp::create(b, loc, acc, t[g * mTiles + m]);
      }
  }
  return o;
}

std::unique_ptr<AttentionMma> mlir::softmax::detail::makeNVVMAttentionMma(
    OpBuilder &b, Location loc, AttentionOp op, int64_t warps, int64_t buffers,
    int64_t rows, bool queriesInSmem, bool tilesThroughL1,
    bool tensorMapTiles, bool warpgroupScores) {
  return std::make_unique<NVVMAttentionMma>(
      b, loc, op, warps, buffers, rows / 16, queriesInSmem, tilesThroughL1,
      tensorMapTiles, warpgroupScores);
}

std::unique_ptr<AttentionMma> mlir::softmax::detail::makeNVVMF32AttentionMma(
    OpBuilder &b, Location loc, AttentionOp op, int64_t warps, int64_t buffers,
    int64_t rows, AttentionF32Precision precision) {
  return std::make_unique<NVVMF32AttentionMma>(b, loc, op, warps, buffers,
                                               rows / 16, precision);
}
