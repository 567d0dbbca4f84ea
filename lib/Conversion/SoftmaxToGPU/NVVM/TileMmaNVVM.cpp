//===- TileMmaNVVM.cpp - C = A B^T tiles on mma.sync tensor cores ---------===//
//
// NVIDIA sm_80+, f16/bf16. A block's two operands are staged by cp.async
// (16 bytes a copy, around L1) into [stages, rows, kTile + 8] buffers: the
// 16-byte padding puts the 8 rows an ldmatrix reads in different bank
// groups. A warp's part is (16 mTiles) x (8 nTiles) accumulators of
// m16n8k16; per 16 columns of the inner dimension it reads one ldmatrix.x4
// per 16 rows of A (an A fragment) and one per 16 columns of C (two B
// fragments), each B fragment feeding every row tile.
//
//===----------------------------------------------------------------------===//

#include "NVVMAttentionMma.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

namespace {

class NVVMTileMma : public TileMma {
public:
  NVVMTileMma(OpBuilder &b, Location loc, const TileMmaConfig &config)
      : TileMma(b, loc, config), mTiles(config.warpRows / 16),
        nTiles(config.warpCols / 8),
        vecElts(128 / config.elt.getIntOrFloatBitWidth()) {}

  int64_t lanes() const override { return 32; }
  SmallVector<MemRefType> tileBuffers(Attribute workgroup) const override {
    auto tile = [&](int64_t rows, bool byInner) {
      SmallVector<int64_t> shape =
          byInner ? SmallVector<int64_t>{config.stages, config.kTile,
                                         rows + vecElts}
                  : SmallVector<int64_t>{config.stages, rows,
                                         config.kTile + vecElts};
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
    Value lane = rem(tid, 32);
    group = div(lane, 4);
    quad = rem(lane, 4);
    matrix = div(lane, 8);
    matrixRow = rem(lane, 8);
  }
  Value stage(Value a, Value aRow0, Value aRows, Value bSrc, Value bRow0,
              Value bRows, Value k0, Value cols, Value buf,
              Value bK0) override {
    assert(!bK0 && "one inner start for both operands");
    SmallVector<Value> tokens;
    copyRows(tokens, smemA, a, aRow0, aRows, config.blockRows(), k0, cols, buf);
    copyRows(tokens, smemB, bSrc, bRow0, bRows, config.blockCols(), k0, cols,
             buf);
    return nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
  }
  void wait(Value token, int64_t pending) override {
    nvgpu::DeviceAsyncWaitOp::create(b, loc, token,
                                     b.getI32IntegerAttr(pending));
  }

  SmallVector<Value> zero() override {
    Value z = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType(), b.getF32FloatAttr(0)));
    return SmallVector<Value>(mTiles * nTiles, z);
  }
  SmallVector<Value> multiply(ArrayRef<Value> acc, Value aBuf, Value bBuf,
                              Value warpRow, Value warpCol) override;
  SmallVector<Value> elements(ArrayRef<Value> acc) override {
    return flattenAccumulators(b, loc, acc);
  }
  // Elements are [m][n][row half r][column e]: slot 2m + r, column 8n +
  // 2 quad + e.
  int64_t slots() const override { return 2 * mTiles; }
  int64_t slotOf(int64_t i) const override {
    return 2 * (i / (4 * nTiles)) + (i / 2) % 2;
  }
  Value slotRow(int64_t slot) override {
    return add(group, idx((slot / 2) * 16 + (slot % 2) * 8));
  }
  Value laneCol() override { return mul(quad, idx(2)); }
  int64_t colOffset(int64_t i) const override {
    return ((i / 4) % nTiles) * 8 + i % 2;
  }
  ArrayRef<int32_t> rowLaneXors() const override { return m16n8RowLaneXors(); }
  ArrayRef<int32_t> colLaneXors() const override { return m16n8ColLaneXors(); }
  bool atomicAddPair(Value dst, ValueRange indices, Value x0,
                     Value x1) override;
  std::unique_ptr<StateMath> rowMath() override {
    return std::make_unique<NVVMRowMath>(b, loc);
  }

private:
  VectorType vec(ArrayRef<int64_t> shape, Type t) {
    return VectorType::get(shape, t);
  }
  VectorType accType() { return vec({2, 2}, b.getF32Type()); }
  /// Copies `rows` rows of columns [k0, k0 + kTile) of `src` into buffer
  /// `buf` of `dst`, 16 bytes a copy, the block's threads taking turns.
  void copyRows(SmallVectorImpl<Value> &tokens, Value dst, Value src,
                Value row0, Value srcRows, int64_t rows, Value k0, Value cols,
                Value buf);
  /// The 16-bit pair `i` of an ldmatrix result as mma.sync takes it (bf16
  /// pairs travel as 32-bit registers).
  Value operand(Value frag, int64_t i);

  int64_t mTiles, nTiles, vecElts;
  Value tid, smemA, smemB, group, quad, matrix, matrixRow;
};

} // namespace

void NVVMTileMma::copyRows(SmallVectorImpl<Value> &tokens, Value dst, Value src,
                           Value row0, Value srcRows, int64_t rows, Value k0,
                           Value cols, Value buf) {
  int64_t perRow = config.kTile / vecElts;
  int64_t threads = config.warps() * 32, chunks = rows * perRow;
  Value last = sub(srcRows, idx(1));
  for (int64_t s = 0; s * threads < chunks; ++s) {
    Value linear = add(tid, idx(s * threads));
    // Fewer chunks than threads in the last round: the extra threads copy
    // the last chunk again (the same bytes to the same place).
    if ((s + 1) * threads > chunks)
      linear = minU(linear, idx(chunks - 1));
    Value row = div(linear, perRow);
    Value col = mul(rem(linear, perRow), idx(vecElts));
    Value srcRow = minI(add(row0, row), last);
    Value srcCol = add(k0, col);
    Value srcElements;
    if (cols) {
      // A copy past the inner dimension reads nothing and fills zeros; its
      // address stays inside the row.
      Value inside = cmp(arith::CmpIPredicate::slt, srcCol, cols);
      srcElements =
          arith::SelectOp::create(b, loc, inside, idx(vecElts), idx(0));
      srcCol = arith::SelectOp::create(b, loc, inside, srcCol, idx(0));
    }
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, dst, ValueRange{buf, row, col}, src, ValueRange{srcRow, srcCol},
        b.getIndexAttr(vecElts), srcElements, b.getUnitAttr()));
  }
}

Value NVVMTileMma::operand(Value frag, int64_t i) {
  Value pair = vector::ExtractOp::create(b, loc, frag, i);
  if (!config.elt.isBF16())
    return pair;
  Value word =
      vector::BitCastOp::create(b, loc, vec({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, word, int64_t(0));
}

SmallVector<Value> NVVMTileMma::multiply(ArrayRef<Value> accIn, Value aBuf,
                                         Value bBuf, Value warpRow,
                                         Value warpCol) {
  SmallVector<Value> acc(accIn);
  NVVM::MMATypes type =
      config.elt.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value lo = matrixRow, half = mul(rem(matrix, 2), idx(8)),
        pair = mul(div(matrix, 2), idx(8));
  // One ldmatrix.x4 whose matrix i covers the operand's rows `outer +
  // outerOff(i)` and inner columns `inner + innerOff(i)`, the 8 lanes of a
  // matrix addressing its 8 rows. An operand by inner rows is addressed
  // along the inner dimension and transposed on load.
  auto fragments = [&](Value tile, Value buf, bool byInner, Value outer,
                       Value outerOff, Value inner, Value innerOff) {
    Value o = add(outer, outerOff), in = add(inner, innerOff);
    Value row = add(byInner ? in : o, lo), col = byInner ? o : in;
    return nvgpu::LdMatrixOp::create(b, loc, vec({4, 2}, config.elt), tile,
                                     ValueRange{buf, row, col}, byInner,
                                     /*numTiles=*/4);
  };
  for (int64_t k = 0; k < config.kTile / 16; ++k) {
    Value inner = idx(16 * k);
    // A fragments: matrix i is rows 16m + (i%2)*8, inner columns 16k +
    // (i/2)*8 (the fragment's register order).
    SmallVector<SmallVector<Value>> a;
    for (int64_t m = 0; m < mTiles; ++m) {
      Value frag = fragments(smemA, aBuf, config.aByInner,
                             add(warpRow, idx(16 * m)), half, inner, pair);
      a.emplace_back();
      for (int64_t i = 0; i < 4; ++i)
        a.back().push_back(operand(frag, i));
    }
    for (int64_t n = 0; n < nTiles; n += 2) {
      // Two B fragments: matrix i is columns 8n + (i/2)*8 of C, inner
      // columns 16k + (i%2)*8.
      Value frags = fragments(smemB, bBuf, config.bByInner,
                              add(warpCol, idx(n * 8)), pair, inner, half);
      for (int64_t h = 0; h < 2; ++h) {
        SmallVector<Value> bv = {operand(frags, 2 * h),
                                 operand(frags, 2 * h + 1)};
        for (int64_t m = 0; m < mTiles; ++m) {
          Value &c = acc[m * nTiles + n + h];
          c = mmaSync(b, loc, a[m], bv, c, /*k=*/16, type, accType());
        }
      }
    }
  }
  return acc;
}

// One red.global.add.v2.f32 (sm_90) instead of two scalar reductions: the
// gradient's accumulators take N D + V D of them per kept tile row, and
// the L2's atomic units count requests. Neither memref.atomic_rmw nor the
// NVVM dialect has a vector reduction, so the request is inline PTX.
bool NVVMTileMma::atomicAddPair(Value dst, ValueRange indices, Value x0,
                                Value x1) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dst);
  Value width = memref::DimOp::create(b, loc, dst, 1);
  Value element = add(mul(indices[0], width), indices[1]);
  Value address = add(base, mul(element, idx(4)));
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  Value ptr = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), i64);
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{ptr, x0, x1},
                            "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f",
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                            ArrayAttr());
  return true;
}

std::unique_ptr<TileMma>
mlir::softmax::detail::makeNVVMTileMma(OpBuilder &b, Location loc,
                                       const TileMmaConfig &config) {
  return std::make_unique<NVVMTileMma>(b, loc, config);
}
