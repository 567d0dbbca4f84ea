//===- TileWgmmaNVVM.cpp - C = A B^T tiles on sm_90 warpgroup MMA ---------===//
//
// NVIDIA sm_90, f16/bf16. Both operands reach shared memory by bulk tensor
// copies (TensorMapTiles.h): per slice of 64 inner columns, one 64-row box
// after another, 128-byte swizzled, all completing on the slice buffer's
// mbarrier. Each warpgroup multiplies its 64 rows of A by every column of
// B with wgmma.mma_async m64nNk16 (N = warpCols), both operands read from
// shared memory through matrix descriptors; its accumulators lie as
// mma.sync's m16n8 accumulators do, one m16 tile a warp, so the fold reads
// them the same way (slot 0 is row lane / 4, slot 1 eight rows below).
//
// Why: the same products on mma.sync m16n8k16 ran at 305-327 TFLOP/s on
// the H200 (bench/results/cross_entropy/README.md), where cuBLAS's wgmma
// kernels reach 614-774: mma.sync issues from every warp for every 16x8
// tile and reads its operands into registers first.
//
// Upstream's nvgpu.warpgroup.mma keeps its accumulators in a type the fold
// cannot read element by element (only nvgpu.warpgroup.mma.store to
// memory): the product is built on the NVVM ops directly (WarpgroupMma.h).
//
//===----------------------------------------------------------------------===//

#include "NVVMAttentionMma.h"
#include "TensorMapTiles.h"
#include "WarpgroupMma.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

class NVVMWarpgroupTileMma : public TileMma {
public:
  NVVMWarpgroupTileMma(OpBuilder &b, Location loc, const TileMmaConfig &config)
      : TileMma(b, loc, config),
        eltBytes(config.elt.getIntOrFloatBitWidth() / 8) {}

  int64_t lanes() const override { return 32; }
  /// A [stages, blockRows, kTile], B [stages, blockCols, kTile] (each
  /// buffer a whole number of 1024-byte swizzle atoms), then one mbarrier
  /// per buffer.
  SmallVector<MemRefType> tileBuffers(Attribute workgroup) const override {
    auto tile = [&](int64_t rows) {
      return MemRefType::get({config.stages, rows, config.kTile}, config.elt,
                             MemRefLayoutAttrInterface(), workgroup);
    };
    return {tile(config.blockRows()), tile(config.blockCols()),
            MemRefType::get({config.stages}, b.getI64Type(),
                            MemRefLayoutAttrInterface(), workgroup)};
  }
  void prepareHost(Value a, Value bSrc) override {
    srcA = a;
    srcB = bSrc;
    mapA = createBoxTensorMap(b, loc, a);
    mapB = createBoxTensorMap(b, loc, bSrc);
  }
  void begin(Value tid, ArrayRef<Value> smem) override {
    this->tid = tid;
    smemA = smem[0];
    smemB = smem[1];
    bars = smem[2];
    initTileBarriers(b, loc, bars, tid);
    Value lane = rem(tid, 32);
    group = div(lane, 4);
    quad = rem(lane, 4);
  }
  Value stage(Value a, Value aRow0, Value aRows, Value bSrc, Value bRow0,
              Value bRows, Value k0, Value cols, Value buf, Value bK0) override;
  void wait(Value, int64_t) override {
    llvm_unreachable("the warpgroup end waits by slice (waitSlice)");
  }
  void waitSlice(Value t, Value, int64_t) override {
    // Buffer t % stages completes one phase per slice it holds.
    Value parity = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                              rem(div(t, config.stages), 2));
    waitBarrierParity(b, loc, barrier(rem(t, config.stages)), parity);
  }
  void drain(Value token, Value waited, int64_t pending) override {
    for (int64_t i = 0; i < pending; ++i)
      waitSlice(add(waited, idx(i)), token, 0);
  }

  SmallVector<Value> zero() override {
    return {LLVM::ZeroOp::create(b, loc, accType())};
  }
  SmallVector<Value> multiply(ArrayRef<Value> acc, Value aBuf, Value bBuf,
                              Value warpRow, Value warpCol) override;
  // One slice's products stay in flight while the next slice's wait for
  // their operands.
  int64_t productsInFlight() const override { return 1; }
  SmallVector<Value> settle(ArrayRef<Value> acc) override;
  SmallVector<Value> elements(ArrayRef<Value> acc) override {
    return warpgroupAccumulatorElements(b, loc, acc[0]);
  }
  // Element i of m64nNk16's accumulators: n8 tile i / 4, row half (i / 2)
  // % 2, column 8 (i / 4) + 2 quad + i % 2 of the warp's 16 rows.
  int64_t slots() const override { return 2; }
  int64_t slotOf(int64_t i) const override { return (i / 2) % 2; }
  Value slotRow(int64_t slot) override { return add(group, idx(8 * slot)); }
  Value laneCol() override { return mul(quad, idx(2)); }
  int64_t colOffset(int64_t i) const override { return (i / 4) * 8 + i % 2; }
  ArrayRef<int32_t> rowLaneXors() const override { return m16n8RowLaneXors(); }
  ArrayRef<int32_t> colLaneXors() const override { return m16n8ColLaneXors(); }
  std::unique_ptr<StateMath> rowMath() override {
    return std::make_unique<NVVMRowMath>(b, loc);
  }

private:
  int64_t accCount() const { return config.warpCols / 2; }
  Type accType() { return warpgroupAccumulatorType(b, config.warpCols); }
  int64_t stageBytes(int64_t rows) const {
    return rows * config.kTile * eltBytes;
  }
  Value barrier(Value buf) {
    return sharedAddress(b, loc, bars, mul(buf, idx(8)));
  }
  /// The i32 of an index.
  Value i32(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  }
  /// Boxes of `rows` rows from row `row0` of `map`, inner columns from
  /// `k0`, into buffer `buf` of `dst`; `byInner`: boxes of the source's
  /// rows [k0, k0 + kTile), each the next 64 of its columns from `row0`.
  void copyRows(Value dst, Value map, int64_t rows, Value row0, Value k0,
                Value buf, Value bar, bool byInner) {
    for (int64_t r = 0; r < rows; r += kBoxRows) {
      Value at = add(mul(buf, idx(stageBytes(rows))),
                     idx(r * config.kTile * eltBytes));
      Value row = add(row0, idx(r));
      copyBox(b, loc, sharedAddress(b, loc, dst, at), map,
              byInner ? ValueRange{i32(row), i32(k0)}
                      : ValueRange{i32(k0), i32(row)},
              bar);
    }
  }

  int64_t eltBytes;
  Value tid, smemA, smemB, bars, group, quad;
  Value srcA, srcB, mapA, mapB;
};

} // namespace

Value NVVMWarpgroupTileMma::stage(Value a, Value aRow0, Value, Value bSrc,
                                  Value bRow0, Value, Value k0, Value,
                                  Value buf, Value bK0) {
  // Rows and columns past the operands' edges land as zeros (the maps'
  // out-of-bounds fill), which no caller reads into a result.
  assert(a == srcA && bSrc == srcB && "stage the operands of prepareHost");
  (void)a;
  (void)bSrc;
  auto first = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, tid, idx(0)), false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&first.getThenRegion().front());
  Value bar = barrier(buf);
  expectTileBytes(b, loc, bar,
                  stageBytes(config.blockRows()) +
                      stageBytes(config.blockCols()));
  copyRows(smemA, mapA, config.blockRows(), aRow0, k0, buf, bar,
           config.aByInner);
  copyRows(smemB, mapB, config.blockCols(), bRow0, bK0 ? bK0 : k0, buf, bar,
           config.bByInner);
  return buf;
}

SmallVector<Value> NVVMWarpgroupTileMma::multiply(ArrayRef<Value> acc,
                                                  Value aBuf, Value bBuf,
                                                  Value warpRow, Value) {
  // The warpgroup's first row: warp w's 16 rows lie within its group's 64.
  Value groupRow = sub(warpRow, rem(warpRow, 64));
  int64_t aStage = stageBytes(config.blockRows());
  int64_t bStage = stageBytes(config.blockCols());
  Value aAt = sharedAddressI64(
      b, loc, smemA,
      add(mul(aBuf, idx(aStage)), mul(groupRow, idx(config.kTile * eltBytes))));
  Value bAt = sharedAddressI64(b, loc, smemB, mul(bBuf, idx(bStage)));
  // A slice is one box column (kTile = 64) of each operand.
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  // By inner rows, the boxes lie 64 rows (or columns) apart as K-major
  // boxes do: a warpgroup's A box starts at the same place either way.
  int64_t boxBytes = kBoxRows * config.kTile * eltBytes;
  Value d = warpgroupMmaColumns(
      b, loc, acc[0], aAt, config.aByInner ? boxBytes : aStage, bAt,
      config.bByInner ? boxBytes : bStage, config.kTile, config.warpCols,
      config.elt, config.aByInner, config.bByInner);
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // The previous slice's products are complete: its buffers may be
  // refilled once every warpgroup is past this (the caller's barrier).
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, productsInFlight());
  return {d};
}

SmallVector<Value> NVVMWarpgroupTileMma::settle(ArrayRef<Value> acc) {
  return {settleWarpgroupAccumulators(b, loc, acc[0])};
}

std::unique_ptr<TileMma>
mlir::softmax::detail::makeNVVMWarpgroupTileMma(OpBuilder &b, Location loc,
                                                const TileMmaConfig &config) {
  return std::make_unique<NVVMWarpgroupTileMma>(b, loc, config);
}
