//===- TileMmaROCDL.cpp - C = A B^T tiles on CDNA MFMA
//---------------------===//
//
// CDNA (gfx90a, gfx942), 64-lane wavefronts, amdgpu.mfma 16x16x16 with f32
// accumulators (f16, bf16). In its layouts lane l holds row l % 16 and
// k = 4 (l / 16) + i of A, column l % 16 and k = 4 (l / 16) + i of B, and
// rows 4 (l / 16) + i of column l % 16 of C (i = 0..3). With A the block's
// rows of hidden and B^T its rows of the classifier, both staged row-major
// in LDS, each fragment is 4 contiguous elements of one staged row: no
// transpose anywhere. A row of C is spread over the 16 lanes with the same
// l / 16 (xor 1, 2, 4, 8). Staging is synchronous (CDNA before gfx950 has
// no asynchronous global-to-LDS copy of 16 bytes a lane): 16-byte global
// loads into registers, stores into LDS, so `wait` has nothing to wait for
// and the kernel's second buffer only lets the next slice be stored while
// no warp reads it. Slices are 32 features: two buffers of 64 would pass
// the 64 KiB of LDS.
//
// An operand by inner rows (the gradient's du W and du^T h, whose buffers
// the kernel fills: [stages, inner, rows]) has its fragment's 4 elements
// in 4 inner rows of one column: 4 two-byte LDS reads a lane where the
// row-major operand takes one 8-byte read. CDNA has no transposing LDS
// read before gfx950, which is why.
//
//===----------------------------------------------------------------------===//

#include "ROCDLAttentionMma.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

/// Row padding: 4 elements (8 bytes), so that the 16 rows a fragment load
/// touches do not all start in the same LDS bank.
constexpr int64_t kPad = 4;

class ROCDLTileMma : public TileMma {
public:
  ROCDLTileMma(OpBuilder &b, Location loc, const TileMmaConfig &config)
      : TileMma(b, loc, config), mTiles(config.warpRows / 16),
        nTiles(config.warpCols / 16) {}

  int64_t lanes() const override { return 64; }
  SmallVector<MemRefType> tileBuffers(Attribute workgroup) const override {
    auto tile = [&](int64_t rows, bool byInner) {
      SmallVector<int64_t> shape =
          byInner
              ? SmallVector<int64_t>{config.stages, config.kTile, rows + kPad}
              : SmallVector<int64_t>{config.stages, rows, config.kTile + kPad};
      return MemRefType::get(shape, config.elt, MemRefLayoutAttrInterface(),
                             workgroup);
    };
    return {tile(config.blockRows(), config.aByInner),
            tile(config.blockCols(), config.bByInner)};
  }
  void begin(Value tid, ArrayRef<Value> smem) override {
    this->tid = tid;
    smemA = smem[0];
    smemB = smem[1];
    Value lane = rem(tid, 64);
    column = rem(lane, 16);
    kGroup = mul(div(lane, 16), idx(4));
  }
  Value stage(Value a, Value aRow0, Value aRows, Value bSrc, Value bRow0,
              Value bRows, Value k0, Value cols, Value buf,
              Value bK0) override {
    assert(!bK0 && "one inner start for both operands");
    assert(!config.aByInner && !config.bByInner &&
           "operands by inner rows are filled by the kernel");
    copyRows(smemA, a, aRow0, aRows, config.blockRows(), k0, cols, buf);
    copyRows(smemB, bSrc, bRow0, bRows, config.blockCols(), k0, cols, buf);
    return Value();
  }
  void wait(Value, int64_t) override {}

  SmallVector<Value> zero() override {
    Value z = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType(), b.getF32FloatAttr(0)));
    return SmallVector<Value>(mTiles * nTiles, z);
  }
  SmallVector<Value> multiply(ArrayRef<Value> accIn, Value aBuf, Value bBuf,
                              Value warpRow, Value warpCol) override {
    SmallVector<Value> acc(accIn);
    for (int64_t k = 0; k < config.kTile / 16; ++k) {
      Value col = add(idx(16 * k), kGroup);
      SmallVector<Value> bFrags;
      for (int64_t n = 0; n < nTiles; ++n)
        bFrags.push_back(fragment(smemB, bBuf, config.bByInner,
                                  add(add(warpCol, idx(16 * n)), column), col));
      for (int64_t m = 0; m < mTiles; ++m) {
        Value aFrag = fragment(smemA, aBuf, config.aByInner,
                               add(add(warpRow, idx(16 * m)), column), col);
        for (int64_t n = 0; n < nTiles; ++n) {
          Value &c = acc[m * nTiles + n];
          c = amdgpu::MFMAOp::create(b, loc, accType(), 16, 16, 16, 1, aFrag,
                                     bFrags[n], c);
        }
      }
    }
    return acc;
  }
  SmallVector<Value> elements(ArrayRef<Value> acc) override {
    SmallVector<Value> out;
    for (Value a : acc)
      for (int64_t i = 0; i < 4; ++i)
        out.push_back(vector::ExtractOp::create(b, loc, a, i));
    return out;
  }
  // Elements are [m][n][i]: slot 4m + i (row 16m + 4 (l / 16) + i), column
  // 16n + l % 16.
  int64_t slots() const override { return 4 * mTiles; }
  int64_t slotOf(int64_t i) const override {
    return 4 * (i / (4 * nTiles)) + i % 4;
  }
  Value slotRow(int64_t slot) override {
    return add(kGroup, idx((slot / 4) * 16 + slot % 4));
  }
  Value laneCol() override { return column; }
  int64_t colOffset(int64_t i) const override {
    return ((i / 4) % nTiles) * 16;
  }
  ArrayRef<int32_t> rowLaneXors() const override {
    static constexpr int32_t xors[] = {1, 2, 4, 8};
    return xors;
  }
  ArrayRef<int32_t> colLaneXors() const override {
    static constexpr int32_t xors[] = {16, 32};
    return xors;
  }
  std::unique_ptr<StateMath> rowMath() override {
    return std::make_unique<StateMath>(b, loc, b.getF32Type());
  }

private:
  VectorType vec(int64_t n, Type t = Type()) {
    return VectorType::get({n}, t ? t : config.elt);
  }
  VectorType accType() { return vec(4, b.getF32Type()); }
  /// The 4 elements at inner columns [inner, inner + 4) of operand row
  /// `row`: one vector read of a row-major buffer, or 4 reads down a
  /// column of a buffer by inner rows.
  Value fragment(Value tile, Value buf, bool byInner, Value row, Value inner) {
    if (!byInner)
      return vector::LoadOp::create(b, loc, vec(4), tile,
                                    ValueRange{buf, row, inner});
    SmallVector<Value> elts;
    for (int64_t i = 0; i < 4; ++i)
      elts.push_back(memref::LoadOp::create(
          b, loc, tile, ValueRange{buf, add(inner, idx(i)), row}));
    return vector::FromElementsOp::create(b, loc, vec(4), elts);
  }
  /// Rows [row0, row0 + rows) (clamped to the source's last), columns
  /// [k0, k0 + kTile) of `src` into buffer `buf` of `dst`, 8 elements a
  /// load; a piece past `cols` stores zeros.
  void copyRows(Value dst, Value src, Value row0, Value srcRows, int64_t rows,
                Value k0, Value cols, Value buf) {
    int64_t perRow = config.kTile / 8;
    int64_t threads = config.warps() * 64, chunks = rows * perRow;
    Value last = sub(srcRows, idx(1));
    for (int64_t s = 0; s * threads < chunks; ++s) {
      Value linear = add(tid, idx(s * threads));
      // Fewer chunks than threads in the last round: the extra threads copy
      // the last chunk again (the same bytes to the same place).
      if ((s + 1) * threads > chunks)
        linear = minU(linear, idx(chunks - 1));
      Value row = div(linear, perRow);
      Value col = mul(rem(linear, perRow), idx(8));
      Value srcCol = add(k0, col);
      Value inside;
      if (cols) {
        inside = cmp(arith::CmpIPredicate::slt, srcCol, cols);
        srcCol = arith::SelectOp::create(b, loc, inside, srcCol, idx(0));
      }
      Value piece = vector::LoadOp::create(
          b, loc, vec(8), src, ValueRange{minI(add(row0, row), last), srcCol});
      if (inside)
        piece = arith::SelectOp::create(
            b, loc, inside, piece,
            arith::ConstantOp::create(
                b, loc,
                DenseElementsAttr::get(vec(8), b.getZeroAttr(config.elt))));
      vector::StoreOp::create(b, loc, piece, dst, ValueRange{buf, row, col});
    }
  }

  int64_t mTiles, nTiles;
  Value tid, smemA, smemB, column, kGroup;
};

} // namespace

std::unique_ptr<TileMma>
mlir::softmax::detail::makeROCDLTileMma(OpBuilder &b, Location loc,
                                        TileMmaConfig config) {
  // The staged slices: 32 features (above). A product by inner rows keeps
  // its inner extent, which is the logits tile's rows or columns.
  if (!config.aByInner && !config.bByInner)
    config.kTile = std::min<int64_t>(config.kTile, 32);
  return std::make_unique<ROCDLTileMma>(b, loc, config);
}
