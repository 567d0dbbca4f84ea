//===- AttentionToGPU.cpp - softmax.attention -> tensor-core gpu.launch ---===//
//
// FlashAttention-2's structure on mma.sync tensor cores (nvgpu, sm_80+):
// a block of 4 warps owns 64 query rows of one (batch, head), 16 per warp;
// the queries stay in registers as mma A fragments; K and V tiles of 64 keys
// are staged in padded shared memory (row stride D + 8 elements, so that
// ldmatrix and the fragment loads are free of bank conflicts); per tile
//
//   S = Q K^T            mma.sync m16n8k16, K fragments by ldmatrix
//   s2 = S scale log2(e) (exp2 below; masking only on tiles that need it)
//   m' = max(m, rowmax s2)   (quad shuffles)
//   P = sm.exp2(s2 - m'), a = sm.exp2(m - m'), l = l a + rowsum P, O = O a
//   O += P V             P reused from S's accumulator registers as A
//                        fragments, V fragments by ldmatrix.trans
//
// and O / l, (m + log2 l) ln 2 at the end. Causal and window limits bound
// the tile loop, so tiles no query of the block may see are never loaded.
// Upstream has the pieces (nvgpu.ldmatrix, nvvm.mma.sync, gpu.shuffle) but
// no op for a contraction whose accumulator is rescaled between tiles, so
// the kernel is built here. docs/Attention.md, "GPU lowering".
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/StateMath.h"
#include <cmath>

using namespace mlir;
using namespace mlir::softmax;

namespace {

constexpr int64_t kRowsPerWarp = 16, kKeysPerTile = 64;

/// Warps per block (16 query rows each). Measured on the H200
/// (bench/results/gpu_attention.md): causal d >= 128 runs 1.3x faster with
/// 8 warps (128 rows: each staged tile serves twice the queries, and the
/// diagonal tiles are fewer), everything else 1.1-1.3x slower (one block of
/// 8 warps per SM waits longer at each barrier than two blocks of 4). The
/// 8-warp staging needs d % 32 == 0.
int64_t warpsFor(AttentionOp op, int64_t d) {
  return op.getCausal() && d >= 128 && d % 32 == 0 ? 8 : 4;
}
constexpr int64_t kPad = 8;

class AttentionKernel {
public:
  AttentionKernel(OpBuilder &b, Location loc, AttentionOp op, float scale,
                  int64_t warps, Value nq, Value nk, Value heads,
                  Value kvHeads)
      : b(b), loc(loc), sm(b, loc, b.getF32Type()), op(op), scale(scale),
        warps(warps),
        rowsPerBlock(kRowsPerWarp * warps), nq(nq), nk(nk), heads(heads),
        kvHeads(kvHeads) {
    auto q = cast<MemRefType>(op.getQuery().getType());
    elt = q.getElementType();
    d = q.getDimSize(3);
    dv = cast<MemRefType>(op.getValue().getType()).getDimSize(3);
  }

  void build(gpu::LaunchOp launch);

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value minI(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxI(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value xorShuffle(Value v, int32_t offset) {
    return gpu::ShuffleOp::create(b, loc, v, offset, 32,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// The quad's (4 lanes sharing a row) max or sum of `v`.
  Value quadReduce(Value v, bool isMax) {
    for (int32_t o : {1, 2}) {
      Value w = xorShuffle(v, o);
      v = isMax ? sm.max(v, w) : sm.add(v, w);
    }
    return v;
  }
  VectorType vec(ArrayRef<int64_t> shape, Type t) {
    return VectorType::get(shape, t);
  }
  /// Starts copying rows [kv0, kv0 + 64) of `src` (one kv head) into
  /// `smem`, 16 bytes per thread and step, asynchronously (cp.async); rows
  /// past Nk repeat the last one (their scores are masked, their
  /// probabilities 0). Returns the copies' group.
  Value stage(Value src, Value smem, int64_t cols, Value bIdx, Value kvHead,
              Value kv0);
  /// Waits for every copy this thread started.
  void waitAll(Value group);
  /// A fragment of 8 elements: rows (r, r + 8), columns (c, c + 8).
  Value loadA(Value memref, Value bIdx, Value hIdx, Value r, Value c);
  /// c + a b on tensor cores (m16n8k16): a vector<4x2xT> and c
  /// vector<2x2xf32> in mma.sync's fragment layouts, b rows `first` and
  /// `first + 1` of an ldmatrix.x4 result (two B fragments side by side).
  /// nvvm.mma.sync directly: upstream's nvgpu.mma.sync lowering deduces no
  /// PTX type for bf16 operands.
  Value mma(Value a, Value bRows, int64_t first, Value c);

  OpBuilder &b;
  Location loc;
  /// Scalar f32 arithmetic of the row statistics.
  StateMath sm;
  AttentionOp op;
  float scale;
  int64_t warps, rowsPerBlock;
  Value nq, nk, heads, kvHeads;
  Type elt;
  int64_t d, dv;
  Value tid, lane, warp, group, quad;
};

Value AttentionKernel::stage(Value src, Value smem, int64_t cols, Value bIdx,
                             Value kvHead, Value kv0) {
  int64_t perRow = cols / 8;
  int64_t steps = kKeysPerTile * perRow / (warps * 32);
  Value last = sub(nk, idx(1));
  SmallVector<Value> tokens;
  for (int64_t s = 0; s < steps; ++s) {
    Value linear = add(tid, idx(s * warps * 32));
    Value row = arith::DivUIOp::create(b, loc, linear, idx(perRow));
    Value col = mul(arith::RemUIOp::create(b, loc, linear, idx(perRow)),
                    idx(8));
    Value srcRow = maxI(minI(add(kv0, row), last), idx(0));
    // With no key at all (Nk = 0) nothing is read: a source size of 0
    // zero-fills the destination without touching the source address.
    Value srcElements = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, nk, idx(0)),
        idx(8), idx(0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, smem, ValueRange{row, col}, src,
        ValueRange{bIdx, kvHead, srcRow, col}, b.getIndexAttr(8), srcElements,
        b.getUnitAttr()));
  }
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void AttentionKernel::waitAll(Value group) {
  nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
}

Value AttentionKernel::loadA(Value memref, Value bIdx, Value hIdx, Value r,
                             Value c) {
  Value frag = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vec({4, 2}, elt), b.getZeroAttr(elt)));
  Value last = sub(nq, idx(1));
  Value r0 = minI(r, last), r1 = minI(add(r, idx(8)), last);
  Value c1 = add(c, idx(8));
  Value rows[4] = {r0, r1, r0, r1};
  Value colsv[4] = {c, c, c1, c1};
  for (int64_t i = 0; i < 4; ++i) {
    Value pair = vector::LoadOp::create(b, loc, vec({2}, elt), memref,
                                        ValueRange{bIdx, hIdx, rows[i],
                                                   colsv[i]});
    frag = vector::InsertOp::create(b, loc, pair, frag, i);
  }
  return frag;
}

Value AttentionKernel::mma(Value a, Value bRows, int64_t first, Value c) {
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
  SmallVector<Value> ops, opsB, opsC;
  for (int64_t i = 0; i < 4; ++i)
    ops.push_back(operand(a, i));
  for (int64_t i = 0; i < 2; ++i)
    opsB.push_back(operand(bRows, first + i));
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      opsC.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{r, e}));
  Type f32T = b.getF32Type();
  auto resType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32T, f32T, f32T, f32T});
  NVVM::MMATypes t = isBf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value res = NVVM::MmaOp::create(
      b, loc, resType, ops, opsB, opsC, ArrayRef<int64_t>{16, 8, 16},
      std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{t, t},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
  return vector::FromElementsOp::create(b, loc, vec({2, 2}, f32T), out);
}

void AttentionKernel::build(gpu::LaunchOp launch) {
  // Blocks start in index order: with causal or window limits the last
  // query tiles have the most keys, so they take the first block indices
  // and the short ones fill in at the end.
  Value qTile = sub(sub(launch.getGridSize().x, idx(1)), launch.getBlockIds().x);
  Value hIdx = launch.getBlockIds().y, bIdx = launch.getBlockIds().z;
  tid = launch.getThreadIds().x;
  lane = arith::RemUIOp::create(b, loc, tid, idx(32));
  warp = arith::DivUIOp::create(b, loc, tid, idx(32));
  group = arith::DivUIOp::create(b, loc, lane, idx(4));
  quad = arith::RemUIOp::create(b, loc, lane, idx(4));
  Value smemK = launch.getWorkgroupAttributions()[0];
  Value smemV = launch.getWorkgroupAttributions()[1];
  Value kvHead = arith::DivUIOp::create(
      b, loc, hIdx, arith::DivUIOp::create(b, loc, heads, kvHeads));

  // Rows of this thread: r0 = block row + warp * 16 + group, and r0 + 8.
  Value blockRow = mul(qTile, idx(rowsPerBlock));
  Value r0 = add(add(blockRow, mul(warp, idx(kRowsPerWarp))), group);
  SmallVector<Value> qFrags;
  for (int64_t k = 0; k < d / 16; ++k)
    qFrags.push_back(loadA(op.getQuery(), bIdx, hIdx, r0,
                           add(idx(k * 16), mul(quad, idx(2)))));

  // The keys the block may see: bottom-right diagonal of query i is
  // i + Nk - Nq.
  Value offset = sub(nk, nq);
  Value zero = idx(0);
  Value kvLo = zero, kvHi = nk;
  Value blockLast = add(add(blockRow, idx(rowsPerBlock - 1)), offset);
  Value blockFirst = add(blockRow, offset);
  std::optional<int64_t> window = op.getWindow();
  if (op.getCausal())
    kvHi = maxI(minI(add(blockLast, idx(1)), nk), zero);
  if (window) {
    kvLo = maxI(minI(add(sub(blockFirst, idx(*window)), idx(1)), nk), zero);
    if (!op.getCausal())
      kvHi = maxI(minI(add(blockLast, idx(*window)), nk), zero);
  }
  // Tiles start at multiples of 64 below kvLo.
  kvLo = mul(arith::DivUIOp::create(b, loc, kvLo, idx(kKeysPerTile)),
             idx(kKeysPerTile));

  Type f32T = b.getF32Type();
  Value lowest = sm.lowest();
  Value accZero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vec({2, 2}, f32T), b.getF32FloatAttr(0)));
  SmallVector<Value> init = {lowest, lowest, sm.cst(0), sm.cst(0)};
  for (int64_t n = 0; n < dv / 8; ++n)
    init.push_back(accZero);
  float scaleLog2 = scale * static_cast<float>(M_LOG2E);
  Value negInf = sm.negInf();

  // The loads overlap the math: K of the first tile is requested here;
  // in each iteration V is requested before S and its softmax, and the
  // next K before P V (cp.async into the one buffer each, FA2's order).
  Value kGroup = stage(op.getKey(), smemK, d, bIdx, kvHead, kvLo);
  auto loop = scf::ForOp::create(
      b, loc, kvLo, kvHi, idx(kKeysPerTile), init,
      [&](OpBuilder &, Location, Value kv0, ValueRange st) {
        // K of this tile has landed for every thread, and every warp is
        // done with the previous tile's V.
        waitAll(kGroup);
        gpu::BarrierOp::create(b, loc);
        Value vGroup = stage(op.getValue(), smemV, dv, bIdx, kvHead, kv0);

        // S = Q K^T: 8 accumulators of 16 x 8, two per ldmatrix.x4.
        SmallVector<Value> s(kKeysPerTile / 8, accZero);
        Value mi = arith::DivUIOp::create(b, loc, lane, idx(8));
        Value mr = arith::RemUIOp::create(b, loc, lane, idx(8));
        for (int64_t k = 0; k < d / 16; ++k)
          for (int64_t n = 0; n < kKeysPerTile / 8; n += 2) {
            // Lanes 8i..8i+7 address matrix i: keys n*8 + (i/2)*8 + r,
            // columns k*16 + (i%2)*8.
            Value row = add(add(idx(n * 8), mul(arith::DivUIOp::create(
                                                    b, loc, mi, idx(2)),
                                                idx(8))),
                            mr);
            Value col = add(idx(k * 16),
                            mul(arith::RemUIOp::create(b, loc, mi, idx(2)),
                                idx(8)));
            Value frags = nvgpu::LdMatrixOp::create(
                b, loc, vec({4, 2}, elt), smemK, ValueRange{row, col},
                /*transpose=*/false, /*numTiles=*/4);
            for (int64_t h = 0; h < 2; ++h)
              s[n + h] = mma(qFrags[k], frags, 2 * h, s[n + h]);
          }

        // Scores in log2 units, as scalars [tile][row half][column].
        SmallVector<Value> sc;
        for (Value acc : s)
          for (int64_t r = 0; r < 2; ++r)
            for (int64_t e = 0; e < 2; ++e)
              sc.push_back(sm.mul(
                  vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e}),
                  sm.cst(scaleLog2)));

        // The mask operand, on every tile: additive (in log2 units like the
        // scores) or boolean (false gives -inf). Keys past Nk read the last
        // column, rows past Nq the last row; both are discarded.
        if (Value mask = op.getMask()) {
          auto mType = cast<MemRefType>(mask.getType());
          Value mb = mType.getDimSize(0) == 1 ? idx(0) : bIdx;
          Value mh = mType.getDimSize(1) == 1 ? idx(0) : hIdx;
          Value lastRow = sub(nq, idx(1)), lastKey = sub(nk, idx(1));
          for (int64_t n = 0; n < kKeysPerTile / 8; ++n)
            for (int64_t r = 0; r < 2; ++r) {
              Value row = minI(add(r0, idx(r * 8)), lastRow);
              for (int64_t e = 0; e < 2; ++e) {
                Value j = minI(add(add(kv0, idx(n * 8 + e)), mul(quad, idx(2))),
                               lastKey);
                Value m = memref::LoadOp::create(b, loc, mask,
                                                 ValueRange{mb, mh, row, j});
                Value &x = sc[(n * 2 + r) * 2 + e];
                if (m.getType().isInteger(1)) {
                  x = arith::SelectOp::create(b, loc, m, x, negInf);
                } else {
                  if (!m.getType().isF32())
                    m = arith::ExtFOp::create(b, loc, f32T, m);
                  x = sm.add(x, sm.mul(m, sm.cst(M_LOG2E)));
                }
              }
            }
        }

        // Masking, only on tiles that reach past Nk or cross a limit.
        Value tileEnd = add(kv0, idx(kKeysPerTile));
        Value needs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                            tileEnd, nk);
        auto orI = [&](Value x, Value y) {
          return arith::OrIOp::create(b, loc, x, y);
        };
        if (op.getCausal())
          needs = orI(needs, arith::CmpIOp::create(
                                 b, loc, arith::CmpIPredicate::sgt,
                                 sub(tileEnd, idx(1)), blockFirst));
        if (window) {
          needs = orI(needs, arith::CmpIOp::create(
                                 b, loc, arith::CmpIPredicate::sle, kv0,
                                 sub(blockLast, idx(*window))));
          if (!op.getCausal())
            needs = orI(needs, arith::CmpIOp::create(
                                   b, loc, arith::CmpIPredicate::sge,
                                   sub(tileEnd, idx(1)),
                                   add(blockFirst, idx(*window))));
        }
        SmallVector<Type> scTypes(sc.size(), f32T);
        auto masked = scf::IfOp::create(
            b, loc, scTypes, needs, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(&masked.getThenRegion().front());
          SmallVector<Value> out;
          for (int64_t n = 0; n < kKeysPerTile / 8; ++n)
            for (int64_t r = 0; r < 2; ++r) {
              Value diag = add(add(r0, idx(r * 8)), offset);
              for (int64_t e = 0; e < 2; ++e) {
                Value j = add(add(kv0, idx(n * 8 + e)), mul(quad, idx(2)));
                Value ok = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, j, nk);
                auto andI = [&](Value x, Value y) {
                  return arith::AndIOp::create(b, loc, x, y);
                };
                if (op.getCausal())
                  ok = andI(ok, arith::CmpIOp::create(
                                    b, loc, arith::CmpIPredicate::sle, j, diag));
                if (window) {
                  ok = andI(ok, arith::CmpIOp::create(
                                    b, loc, arith::CmpIPredicate::sgt, j,
                                    sub(diag, idx(*window))));
                  if (!op.getCausal())
                    ok = andI(ok, arith::CmpIOp::create(
                                      b, loc, arith::CmpIPredicate::slt, j,
                                      add(diag, idx(*window))));
                }
                out.push_back(arith::SelectOp::create(
                    b, loc, ok, sc[(n * 2 + r) * 2 + e], negInf));
              }
            }
          scf::YieldOp::create(b, loc, out);
          b.setInsertionPointToStart(&masked.getElseRegion().front());
          scf::YieldOp::create(b, loc, sc);
        }
        for (size_t i = 0; i < sc.size(); ++i)
          sc[i] = masked.getResult(i);

        // Online update per row half.
        SmallVector<Value> mNew(2), alpha(2), next(4);
        for (int64_t r = 0; r < 2; ++r) {
          Value mx = st[r];
          for (int64_t n = 0; n < kKeysPerTile / 8; ++n)
            for (int64_t e = 0; e < 2; ++e)
              mx = sm.max(mx, sc[(n * 2 + r) * 2 + e]);
          mNew[r] = quadReduce(mx, /*isMax=*/true);
          alpha[r] = sm.exp2(sm.sub(st[r], mNew[r]));
        }
        SmallVector<Value> p(sc.size());
        SmallVector<Value> rowSum = {sm.mul(st[2], alpha[0]),
                                     sm.mul(st[3], alpha[1])};
        for (int64_t n = 0; n < kKeysPerTile / 8; ++n)
          for (int64_t r = 0; r < 2; ++r)
            for (int64_t e = 0; e < 2; ++e) {
              int64_t i = (n * 2 + r) * 2 + e;
              p[i] = sm.exp2(sm.sub(sc[i], mNew[r]));
              rowSum[r] = sm.add(rowSum[r], p[i]);
            }
        next = {mNew[0], mNew[1], rowSum[0], rowSum[1]};

        Value scaleRows = vector::FromElementsOp::create(
            b, loc, vec({2, 2}, f32T),
            ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
        SmallVector<Value> o;
        for (int64_t n = 0; n < dv / 8; ++n)
          o.push_back(sm.mul(st[4 + n], scaleRows));

        // V has landed, and every warp is done with this tile's K: request
        // the next one (past the end it reloads the last rows; unused).
        waitAll(vGroup);
        gpu::BarrierOp::create(b, loc);
        stage(op.getKey(), smemK, d, bIdx, kvHead,
              add(kv0, idx(kKeysPerTile)));

        // O += P V over 4 steps of 16 keys; P's A fragment is the two
        // accumulators of keys [16k, 16k + 16) in bf16/f16.
        for (int64_t k = 0; k < kKeysPerTile / 16; ++k) {
          SmallVector<Value> aElems;
          for (int64_t half = 0; half < 2; ++half)
            for (int64_t r = 0; r < 2; ++r)
              for (int64_t e = 0; e < 2; ++e)
                aElems.push_back(arith::TruncFOp::create(
                    b, loc, elt, p[((2 * k + half) * 2 + r) * 2 + e]));
          // Order: (row g, keys lo), (row g+8, keys lo), (row g, keys hi),
          // (row g+8, keys hi).
          Value a = vector::FromElementsOp::create(
              b, loc, vec({4, 2}, elt),
              ValueRange{aElems[0], aElems[1], aElems[2], aElems[3],
                         aElems[4], aElems[5], aElems[6], aElems[7]});
          for (int64_t n = 0; n < dv / 8; n += 2) {
            // Lanes 8i..8i+7 address matrix i: keys 16k + (i%2)*8 + r,
            // value columns n*8 + (i/2)*8; transposed on load.
            Value row = add(add(idx(k * 16),
                                mul(arith::RemUIOp::create(b, loc, mi, idx(2)),
                                    idx(8))),
                            mr);
            Value col = add(idx(n * 8),
                            mul(arith::DivUIOp::create(b, loc, mi, idx(2)),
                                idx(8)));
            Value frags = nvgpu::LdMatrixOp::create(
                b, loc, vec({4, 2}, elt), smemV, ValueRange{row, col},
                /*transpose=*/true, /*numTiles=*/4);
            for (int64_t h = 0; h < 2; ++h)
              o[n + h] = mma(a, frags, 2 * h, o[n + h]);
          }
        }
        next.append(o);
        scf::YieldOp::create(b, loc, next);
      });

  // No copy may still be in flight when the block ends.
  waitAll(kGroup);

  // Final: the quad's sums, O / l, the masked value for rows with l = 0.
  Value out = op.getOutput();
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  Value fillO = sm.maskedValue(op.getMasked(), /*probability=*/true);
  Value fillL = sm.maskedValue(op.getMasked(), /*probability=*/false);
  for (int64_t r = 0; r < 2; ++r) {
    Value row = add(r0, idx(r * 8));
    Value l = quadReduce(loop.getResult(2 + r), /*isMax=*/false);
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l,
                                        sm.cst(0));
    Value inv = arith::DivFOp::create(b, loc, sm.cst(1), l);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         row, nq);
    auto ifRow = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifRow.getThenRegion().front());
    for (int64_t n = 0; n < dv / 8; ++n) {
      SmallVector<Value> pair;
      for (int64_t e = 0; e < 2; ++e) {
        Value v = sm.mul(vector::ExtractOp::create(b, loc, loop.getResult(4 + n),
                                                 ArrayRef<int64_t>{r, e}),
                       inv);
        v = arith::SelectOp::create(b, loc, empty, fillO, v);
        if (outElt != f32T)
          v = arith::TruncFOp::create(b, loc, outElt, v);
        pair.push_back(v);
      }
      Value pv = vector::FromElementsOp::create(b, loc, vec({2}, outElt), pair);
      vector::StoreOp::create(
          b, loc, pv, out,
          ValueRange{bIdx, hIdx, row, add(idx(n * 8), mul(quad, idx(2)))});
    }
    if (Value lse = op.getLse()) {
      // (m + log2 l) ln 2, written by the quad's first lane.
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          quad, idx(0));
      auto ifFirst = scf::IfOp::create(b, loc, first, false);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      Value v = sm.mul(sm.add(loop.getResult(r), math::Log2Op::create(b, loc, l)),
                     sm.cst(M_LN2));
      v = arith::SelectOp::create(b, loc, empty, fillL, v);
      memref::StoreOp::create(b, loc, v, lse, ValueRange{bIdx, hIdx, row});
    }
  }
}

} // namespace

LogicalResult mlir::softmax::mapAttentionOpToGPU(RewriterBase &rewriter,
                                                 AttentionOp op,
                                                 const GPUTarget &target) {
  // lookupGPUTarget knows sm_80 and sm_90 among NVIDIA chips.
  if (target.chip.rfind("sm_", 0) != 0)
    return op->emitOpError() << "GPU attention mapping needs mma.sync tensor "
                                "cores (NVIDIA sm_80 or later); no mapping "
                                "for "
                             << target.chip << " yet";
  // Every operand is a buffer: query, key, value, mask, output, lse.
  if (auto why = whyNotContiguousBuffers(op->getOperands(), "GPU mapping"))
    return op->emitOpError(*why);
  auto q = cast<MemRefType>(op.getQuery().getType());
  auto v = cast<MemRefType>(op.getValue().getType());
  if (!isa<Float16Type, BFloat16Type>(q.getElementType()))
    return op->emitOpError() << "GPU attention mapping runs on f16 or bf16 "
                                "tensor cores, not "
                             << q.getElementType() << " inputs";
  for (int64_t dim : {q.getDimSize(3), v.getDimSize(3)})
    if (ShapedType::isDynamic(dim) || dim % 16 || dim > 256)
      return op->emitOpError("GPU attention mapping needs static head "
                             "dimensions that are multiples of 16, at most "
                             "256");
  std::optional<float> scale = op.getScaleOrDefault();
  if (!scale)
    return op->emitOpError("has no scale and no static head dimension");

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto dim = [&](Value val, int64_t i) -> Value {
    return memref::DimOp::create(rewriter, loc, val, i);
  };
  auto cIdx = [&](int64_t val) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, val);
  };
  int64_t warps = warpsFor(op, q.getDimSize(3));
  Value nq = dim(op.getQuery(), 2), nk = dim(op.getKey(), 2);
  Value heads = dim(op.getQuery(), 1), kvHeads = dim(op.getKey(), 1);
  Value tiles = arith::CeilDivUIOp::create(rewriter, loc, nq,
                                           cIdx(kRowsPerWarp * warps));
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  auto smem = [&](int64_t cols) {
    return MemRefType::get({kKeysPerTile, cols + kPad}, q.getElementType(),
                           MemRefLayoutAttrInterface(), workgroup);
  };
  Value one = cIdx(1);
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, tiles, heads, dim(op.getQuery(), 0),
      cIdx(warps * 32), one, one, /*dynamicSharedMemorySize=*/nullptr,
      Type(), ValueRange{},
      TypeRange{smem(q.getDimSize(3)), smem(v.getDimSize(3))});
  launch->setAttr(
      "softmax.strategy",
      rewriter.getDictionaryAttr(
          {rewriter.getNamedAttr("op", rewriter.getStringAttr("attention")),
           rewriter.getNamedAttr("rows_per_block",
                                 rewriter.getI64IntegerAttr(kRowsPerWarp *
                                                            warps)),
           rewriter.getNamedAttr("keys_per_tile",
                                 rewriter.getI64IntegerAttr(kKeysPerTile)),
           rewriter.getNamedAttr("mma", rewriter.getStringAttr("m16n8k16"))}));
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    AttentionKernel(rewriter, loc, op, *scale, warps, nq, nk, heads, kvHeads)
        .build(launch);
    gpu::TerminatorOp::create(rewriter, loc);
  }
  rewriter.eraseOp(op);
  return success();
}
