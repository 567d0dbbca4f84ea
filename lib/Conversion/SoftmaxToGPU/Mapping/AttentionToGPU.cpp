//===- AttentionToGPU.cpp - softmax.attention -> tensor-core gpu.launch ---===//
//
// The plan (rows per warp, warps, buffers, copies, splits, packing) and the
// launches; the kernel body is AttentionKernel (AttentionKernel.h).
// FlashAttention-2's structure, on any matrix unit AttentionMma describes
// (mma.sync on NVIDIA, MFMA on CDNA): a block of warps owns 16 query rows
// per warp of one (batch, head); the queries stay in registers as operand
// fragments; K and V tiles of 64 keys are staged in shared memory; per tile
//
//   S = Q K^T            on the matrix unit
//   s2 = S scale log2(e) (exp2 below; masking only on tiles that need it)
//   m' = max(m, rowmax s2)   (shuffles among the lanes of a row)
//   P = exp2(s2 - m'), a = exp2(m - m'), l = l a + rowsum P, O = O a
//   O += P V             P reused from S's accumulator registers
//
// and O / l, (m + log2 l) ln 2 at the end. With a unified max a first
// kernel takes m' = phi (no row max, no rescale) and flags the blocks with
// a row out of range, which a second, online kernel redoes. Causal and
// window limits bound the tile loop, so tiles no query of the block may
// see are never loaded.
// Upstream has the pieces (nvgpu.ldmatrix, nvvm.mma.sync, amdgpu.mfma,
// gpu.shuffle) but no op for a contraction whose accumulator is rescaled
// between tiles, so the kernel is built here. docs/Attention.md, "GPU
// lowering".
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"

#include "AttentionDecode.h"
#include "AttentionKernel.h"
#include "SharedTiles.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/Transforms/RowView.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"
#include <numeric>

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

std::unique_ptr<StateMath> AttentionMma::rowMath() {
  return std::make_unique<StateMath>(b, loc, b.getF32Type());
}

Value AttentionMma::rowReduce(Value v,
                              function_ref<Value(Value, Value)> combine) {
  for (int32_t offset : rowLaneXors()) {
    Value w = gpu::ShuffleOp::create(b, loc, v, offset, lanes(),
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    v = combine(v, w);
  }
  return v;
}

SmallVector<Value> AttentionMma::warpAny(ArrayRef<Value> preds) {
  Type i32 = b.getI32Type();
  Value bits = arith::ConstantIntOp::create(b, loc, 0, 32);
  for (auto [i, p] : llvm::enumerate(preds))
    bits = arith::OrIOp::create(
        b, loc, bits,
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i32, p),
                              arith::ConstantIntOp::create(b, loc, i, 32)));
  for (int32_t offset = lanes() / 2; offset >= 1; offset /= 2) {
    Value w = gpu::ShuffleOp::create(b, loc, bits, offset, lanes(),
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    bits = arith::OrIOp::create(b, loc, bits, w);
  }
  SmallVector<Value> any;
  for (int64_t i = 0, e = preds.size(); i < e; ++i) {
    Value set = arith::AndIOp::create(
        b, loc, bits, arith::ConstantIntOp::create(b, loc, 1 << i, 32));
    any.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, set,
        arith::ConstantIntOp::create(b, loc, 0, 32)));
  }
  return any;
}

SmallVector<Value> AttentionMma::kvIndices(Value src, Value bIdx, Value kvHead,
                                           Value row, Value col) {
  // One page table load per copy. Looking up a tile's pages once and
  // picking each copy's by a select was measured slower on the H200 (B 64,
  // pages of 64, 4 splits: 3130 GB/s against 3366 with a load per copy;
  // bench/results/decode/history-run2-tile-pages-gpu_ragged.md).
  SmallVector<Value> at = kvRowIndices(b, loc, op, src, bIdx, kvHead, row);
  at.push_back(col);
  return at;
}

namespace {

/// Warps per block. With 32 query rows per warp (the NVIDIA default), 4:
/// 128 rows per block, FA2's shape. With 16 (CDNA, or asked for): measured
/// on the H200, causal d >= 128 runs 1.3x faster with 8
/// warps (each staged tile serves twice the queries, and the diagonal tiles
/// are fewer), everything else 1.1-1.3x slower (one block of 8 warps per
/// SM waits longer at each barrier than two blocks of 4); the 8-warp
/// staging needs d % 32 == 0. f32 past d 128 keeps 4 warps: 128 rows of
/// f32 queries and the K and V tiles would not fit in shared memory.
int64_t warpsFor(AttentionOp op, int64_t d, bool nvidia, int64_t rows,
                 bool isF32) {
  if (rows == 32 || (isF32 && d > 128))
    return 4;
  return nvidia && op.getCausal() && d >= 128 && d % 32 == 0 ? 8 : 4;
}

/// The default query rows per warp. f32 (NVIDIA) measured on the H200
/// (bench/results/gpu_attention_f32.md): exact and causal, 16 rows
/// (against 32): at d 128 with 8 warps 59.6 TFLOP/s against 49.8 (B1 H32
/// N4096), 34.9 against 29.3 at N 1000, where 32 rows spill (ptxas: 1128
/// bytes); at d 64 (4 warps) 48.7 against 46.5 (B2 H16 N2048), 43.7
/// against 40.6 at N 1000. Non-causal, 32 rows are as fast or faster
/// (exact d 64: 69.8 against 63.6), and tf32 everywhere (100-152 against
/// 65-121). Past d 128 only 16 rows fit f32 tiles in shared
/// memory.
int64_t defaultRowsPerWarp(AttentionOp op, bool nvidia, bool isF32,
                           const AttentionGPUStrategy &overrides) {
  if (!nvidia)
    return 16;
  if (!isF32)
    return 32;
  int64_t d = cast<MemRefType>(op.getQuery().getType()).getDimSize(3);
  bool exact = overrides.f32Precision == AttentionF32Precision::Exact;
  return d > 128 || (exact && op.getCausal()) ? 16 : 32;
}

/// Fills in the fields `overrides` leaves at 0, or explains why a given one
/// cannot be honoured. Defaults, measured on the H200: 32 rows per warp on
/// NVIDIA (0.93-0.97x FA2 against 0.72-0.92x with 16: each ldmatrix fragment
/// feeds two mma, so the kernel reads about a third less shared memory per
/// mma), the queries then read from shared memory per tile (registers hold the
/// O and S accumulators of 32 rows, not also the queries); one buffer per tile
/// (two measured 0-2% slower with 32 rows per warp, and 5-14% slower on causal
/// with 16).
FailureOr<AttentionGPUStrategy>
chooseAttentionStrategy(AttentionOp op, const GPUTargetHooks &hooks, bool isF32,
                        const AttentionGPUStrategy &overrides) {
  bool nvidia = hooks.vendor() == GPUVendor::NVIDIA;
  AttentionGPUStrategy s;
  s.rowsPerWarp = overrides.rowsPerWarp
                      ? overrides.rowsPerWarp
                      : defaultRowsPerWarp(op, nvidia, isF32, overrides);
  s.buffers = overrides.buffers ? overrides.buffers : 1;
  s.f32Precision = overrides.f32Precision;
  bool wide = hooks.maxRowsPerWarp() >= 32;
  if (s.rowsPerWarp != 16 && (s.rowsPerWarp != 32 || !wide))
    return op->emitOpError()
           << "attention-rows-per-warp must be 16"
           << (wide ? " or 32" : " on CDNA (32 is NVIDIA only)") << ", not "
           << s.rowsPerWarp;
  bool async = hooks.supportsAsyncCopy();
  if (s.buffers != 1 && (s.buffers > 3 || !async))
    return op->emitOpError()
           << "attention-buffers must be 1"
           << (async ? ", 2 or 3"
                     : " on CDNA (2 and 3 need asynchronous copies)")
           << ", not " << s.buffers;
  // A thresholded tile's V waits for its vote, one tile ahead at most.
  if (s.buffers == 3 && op.hasSkipThreshold())
    return op->emitOpError("attention-buffers 3 does not combine with a skip "
                           "threshold (1 or 2 do)");
  return s;
}

} // namespace

std::optional<AttentionF32Precision>
mlir::softmax::parseAttentionF32Precision(StringRef s) {
  if (s == "exact")
    return AttentionF32Precision::Exact;
  if (s == "tf32")
    return AttentionF32Precision::TF32;
  return std::nullopt;
}

/// Why the K/V tiles of `op` cannot come by bulk tensor copies, or
/// std::nullopt: the end reads them as [B, Hkv, Nk, D] boxes of 64 keys by
/// 64 elements through a tensor map, with zeros past the last key, two
/// buffers, and one phase per tile loop.
static std::optional<std::string>
whyNotTensorMapTiles(AttentionOp op, const GPUTarget &target, bool isF32,
                     int64_t buffers, const AttentionGPUStrategy &overrides) {
  if (!target.tensorMapCopies)
    return "on sm_90 (" + target.chip + " has no tensor-memory accelerator)";
  if (isF32)
    return std::string("for f16 and bf16 (its boxes are 128-byte rows of 64 "
                       "elements)");
  for (Value kv : {op.getKey(), op.getValue()}) {
    auto t = cast<MemRefType>(kv.getType());
    if (t.getDimSize(3) % 64 || !t.getLayout().isIdentity())
      return std::string("for K and V with the identity layout and head "
                         "dimensions that are multiples of 64");
  }
  if (op.isPaged())
    return std::string("without a page table");
  if (op.hasKeyLengths())
    return std::string("without key_lengths (rows past an entry's length are "
                       "masked only after they are read)");
  if (overrides.streamK > 0)
    return std::string("without stream-K");
  if (buffers != 2)
    return std::string("with two buffers per tile");
  return std::nullopt;
}

LogicalResult mlir::softmax::mapAttentionOpToGPU(
    RewriterBase &rewriter, AttentionOp op, const GPUTarget &target,
    const GPUTargetHooks &hooks, const AttentionGPUStrategy &passOverrides) {
  if (hooks.vendor() != target.vendor)
    return op->emitOpError() << "GPU attention mapping for " << target.chip
                             << " was given another vendor's target hooks";
  FailureOr<AttentionGPUStrategy> requested =
      applyAttentionGPURequest(op, target, passOverrides);
  if (failed(requested))
    return failure();
  AttentionGPUStrategy overrides = *requested;
  // The measured defaults (warpsFor, defaultRowsPerWarp) are per vendor.
  bool nvidia = target.vendor == GPUVendor::NVIDIA;
  // The threshold must be honoured or refused, never dropped. The kernel
  // decides per staged key tile for one warp's rows, for the block's
  // (blockSkipWarps, the warps that make the query tile: a block goes
  // through the key tiles in step, one barrier per tile, so a tile costs
  // the block less only when all its warps skip it), or for each row
  // (skipsRowWise: the warp holds any rows). So those are the tiles it
  // can skip.
  bool skips = op.hasSkipThreshold();
  bool rowWise = skipsRowWise(op);
  int64_t blockSkipWarps = 0;
  if (skips) {
    int64_t qt = op.getSkipQueryRows(), kt = op.getSkipKeys();
    bool wide = hooks.maxRowsPerWarp() >= 32;
    // 32 rows a warp (the dense kernel's, where the chip has them) for
    // tiles of 32 and 128 rows; 64 rows make one warpgroup of 16-row warps.
    int64_t perWarp = overrides.rowsPerWarp ? overrides.rowsPerWarp
                      : wide && (qt == 32 || qt == 128) ? 32
                                                        : 16;
    int64_t tileWarps = qt % perWarp ? 0 : qt / perWarp;
    bool warpRows = llvm::is_contained({16, 32, 64, 128}, qt) &&
                    llvm::is_contained({1, 2, 4, 8}, tileWarps);
    if (kt != kKeysPerTile || (!rowWise && !warpRows))
      return op->emitOpError()
             << "GPU attention mapping skips key tiles of " << kKeysPerTile
             << " keys for the query rows of one to eight warps, or for "
                "each row: it honours skip tiles of [1, 64], [16, 64], [32, "
                "64], [64, 64] and [128, 64]"
             << (overrides.rowsPerWarp
                     ? " whose rows are 1 to 8 times attention-rows-per-warp"
                     : "")
             << ", not [" << qt << ", " << kt << "]";
    if (!rowWise) {
      // Eight warps stage each K/V row in 16-byte pieces, a warp's 32 at a
      // time (NVVMAttentionMma::stage).
      if (tileWarps == 8)
        for (MemRefType t : {cast<MemRefType>(op.getQuery().getType()),
                             cast<MemRefType>(op.getValue().getType())})
          if (t.getDimSize(3) % 32)
            return op->emitOpError()
                   << "GPU attention mapping skips a tile [" << qt
                   << ", 64] with 8 warps of " << perWarp
                   << " rows, which needs head dimensions that are multiples "
                      "of 32";
      overrides.rowsPerWarp = perWarp;
      if (tileWarps > 1)
        blockSkipWarps = tileWarps;
    }
  }
  // Every shaped operand is a buffer: query, key, value, mask, threshold,
  // output, lse, counts.
  SmallVector<Value> shaped;
  for (Value operand : op->getOperands())
    if (isa<ShapedType>(operand.getType()))
      shaped.push_back(operand);
  if (auto why = whyNotContiguousBuffers(shaped, "GPU mapping"))
    return op->emitOpError(*why);
  auto q = cast<MemRefType>(op.getQuery().getType());
  auto v = cast<MemRefType>(op.getValue().getType());
  Type elt = q.getElementType();
  bool isF32 = elt.isF32();
  bool f32 = hooks.hasF32Attention();
  if (!isa<Float16Type, BFloat16Type>(elt) && !(isF32 && f32))
    return op->emitOpError()
           << "GPU attention mapping runs on f16 or bf16 tensor cores"
           << (f32 ? " or f32 on tf32 tensor cores"
                   : " (f32 attention is NVIDIA only: CDNA's MFMA end has "
                     "no f32 path)")
           << ", not " << elt << " inputs";
  for (int64_t dim : {q.getDimSize(3), v.getDimSize(3)})
    if (ShapedType::isDynamic(dim) || dim % 16 || dim == 0 || dim > 256)
      return op->emitOpError("GPU attention mapping needs static head "
                             "dimensions that are multiples of 16, from 16 "
                             "to 256");
  std::optional<float> scale = op.getScaleOrDefault();
  if (!scale)
    return op->emitOpError("has no scale and no static head dimension");

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto dim = [&](Value val, int64_t i) -> Value {
    return memref::DimOp::create(rewriter, loc, val, i);
  };
  IndexArith ix(rewriter, loc);
  FailureOr<AttentionGPUStrategy> strategy =
      chooseAttentionStrategy(op, hooks, isF32, overrides);
  if (failed(strategy))
    return failure();
  int64_t rowsPerWarp = strategy->rowsPerWarp, buffers = strategy->buffers;
  int64_t warps = blockSkipWarps ? blockSkipWarps
                                 : warpsFor(op, q.getDimSize(3), nvidia,
                                            rowsPerWarp, isF32);
  // Decode shapes: the query heads of a KV head packed into one tile's
  // rows, and only as many warps as those rows need.
  FailureOr<int64_t> packedOr =
      planPackedHeads(op, overrides, rowsPerWarp * warps);
  if (failed(packedOr))
    return failure();
  int64_t packed = *packedOr;
  int64_t kernelRows =
      q.isDynamicDim(2) ? ShapedType::kDynamic : q.getDimSize(2) * packed;
  bool decodeShaped =
      !ShapedType::isDynamic(kernelRows) && kernelRows < rowsPerWarp * warps;
  if (decodeShaped) {
    // Fewer rows than the prefill block: a memory-bound decode step. 16
    // rows per warp and two buffers, measured on the H200 (B8 H32 Hkv8
    // d128, one row against 32768 keys): 3810 GB/s of KV read against 3509
    // with 32 rows and one buffer (cuDNN 4179); at 131072 keys (B1) 3242
    // against 2793. Two buffers need asynchronous copies; a threshold's
    // query tile sets the rows unless each row is a tile of its own.
    if (!overrides.rowsPerWarp && (!skips || rowWise))
      rowsPerWarp = 16;
    // Three buffers (two tiles in flight) measured 0.96-0.98x of two at
    // every split count (B8 L32768: 3847 GB/s against 3910; B1 L131072:
    // 3445 against 3587).
    if (!overrides.buffers && hooks.supportsAsyncCopy())
      buffers = 2;
    warps = blockSkipWarps ? blockSkipWarps
                           : warpsFor(op, q.getDimSize(3), nvidia, rowsPerWarp,
                                      isF32);
  }
  // A thresholded prefill kernel takes two buffers with TMA tiles where the
  // chip has them (its V still waits for the vote). Measured on the H200
  // in one process (bench/results/blasst/README.md, "Prefill on TMA
  // tiles"; B1 H32 d128, structured keys, against our dense kernel):
  // nothing skipped 0.91-1.01x against 0.88-0.97x with one cp.async
  // buffer, lambda 1e-3 1.22-1.62x against 1.22-1.54x. The dense kernel
  // keeps one buffer: two with TMA measured 0.95-0.99x of it.
  bool skipPrefillTma = skips && !decodeShaped && !overrides.buffers &&
                        overrides.tileCopy != TileCopy::CpAsync &&
                        !whyNotTensorMapTiles(op, target, isF32, /*buffers=*/2,
                                              overrides);
  if (skipPrefillTma)
    buffers = 2;
  // Dense prefill on sm_90a: the scores on warpgroup products, which take
  // 16 rows a warp and two TMA buffers. Measured on the H200 in one run
  // (bench/results/attention_wgmma/README.md; TFLOP/s against the mma.sync
  // kernel of 32 rows a warp and one cp.async buffer): causal 1.16-1.23x
  // at d 128 and 1.17x at d 64, non-causal d 64 1.14x, but non-causal d
  // 128 0.96-0.98x, which keeps mma.sync.
  int64_t headDim = q.getDimSize(3);
  bool warpgroupPrefill =
      target.warpgroupMma && !decodeShaped && !skips && !isF32 &&
      !overrides.rowsPerWarp && !overrides.buffers && !overrides.tileCopy &&
      overrides.warpgroupScores.value_or(true) &&
      (op.getCausal() || headDim <= 64) &&
      !whyNotTensorMapTiles(op, target, isF32, /*buffers=*/2, overrides);
  if (warpgroupPrefill) {
    rowsPerWarp = 16;
    buffers = 2;
    warps = warpsFor(op, headDim, nvidia, rowsPerWarp, isF32);
  }
  warps = decodeWarps(kernelRows, rowsPerWarp, warps);
  AttentionMmaConfig config;
  config.warps = warps;
  config.buffers = buffers;
  config.rowsPerWarp = rowsPerWarp;
  config.f32Precision = strategy->f32Precision;
  // A decode block of several warps copies its tiles through L1: measured
  // on the H200 (B1 H32 Hkv8, 16 rows against 65536 keys, 4 warps) 2835
  // GB/s against 2607 around it, where one-warp blocks lose 6-15% (B8
  // L32768 3717 against 3957) and prefill kernels do not care (0.99-1.01x;
  // bench/results/decode/README.md, "Tiles through L1 in decode blocks of
  // several warps" and "Hardware counters").
  //
  // Where the chip has a tensor-memory accelerator, dense decode takes
  // bulk tensor copies instead (NVVM/TensorMapTiles.h), measured on the
  // H200 in one process (bench/results/decode/gpu_decode_tma.md): B8 H32
  // Hkv8 L32768 4196 GB/s against 3918 by cp.async (cuDNN 4181); B1
  // L131072 3825 against 3594 (cuDNN 3856); 4 causal rows 4160 against
  // 3904; 16 rows in 4-warp blocks 3048 against 2849 through L1. A
  // request for them must be honoured or refused.
  std::optional<std::string> noTensorMap =
      whyNotTensorMapTiles(op, target, isF32, buffers, overrides);
  if (overrides.tileCopy == TileCopy::Tma && noTensorMap)
    return op->emitOpError()
           << "GPU attention mapping copies K/V tiles by TMA only "
           << *noTensorMap;
  config.tensorMapTiles =
      !noTensorMap &&
      (overrides.tileCopy == TileCopy::Tma ||
       (!overrides.tileCopy &&
        (decodeShaped || skipPrefillTma || warpgroupPrefill)));
  config.tilesThroughL1 =
      decodeShaped && warps > 1 && !isF32 && !config.tensorMapTiles;
  // V with K keeps the dense kernel's two-buffer TMA schedule
  // (AttentionKernel::setValuesWithKeys).
  bool valuesWithKeys = overrides.skipValues == SkipValues::WithKeys;
  if (valuesWithKeys && !skips)
    return op->emitOpError()
           << "asks for skip_values = with_keys, which orders the V copies of "
              "a kernel with a skip threshold; this attention has none";
  if (valuesWithKeys && !config.tensorMapTiles)
    return op->emitOpError()
           << "asks for skip_values = with_keys, which the GPU attention "
              "mapping runs on TMA tiles only "
           << noTensorMap.value_or("(tile_copy = tma)");
  // The scores on warpgroup products (sm_90a), where the tiles come by TMA
  // in swizzled boxes, each warp owns 16 rows and the warps make whole
  // warpgroups; decode-shaped blocks keep mma.sync.
  std::optional<std::string> noWarpgroups;
  if (!target.warpgroupMma || isF32)
    noWarpgroups = "on sm_90a with f16 or bf16 inputs";
  else if (!config.tensorMapTiles)
    noWarpgroups = "with K/V tiles by TMA (tile_copy = tma)";
  else if (rowsPerWarp != 16 || warps % 4 != 0)
    noWarpgroups = "with 16 rows per warp in whole warpgroups of 4 warps";
  else if (decodeShaped)
    noWarpgroups = "in prefill-shaped kernels";
  if (overrides.warpgroupScores == true && noWarpgroups)
    return op->emitOpError()
           << "asks for mma wgmma.m64nNk16, which the GPU attention mapping "
              "runs only "
           << *noWarpgroups;
  config.warpgroupScores =
      !noWarpgroups && overrides.warpgroupScores.value_or(true);
  // V with K by default for warp tiles in blocks of 8 warps on warpgroup
  // scores (causal d 128): there the block vote that orders V makes 8 warps
  // wait at a second barrier per tile, and one V tile serves 128 rows.
  // Measured on the H200 in one process (B1 H32 d128 causal, structured
  // peak 12, 16k-64k, against the dense wgmma kernel; bench/results/
  // blasst/block_tiles.md, "The H200 run (session 30)"): lambda 1e-3
  // 1.40-1.49x at 80-83% against 1.23-1.33x after the vote, lambda 1e-2
  // 1.58-1.67x against 1.41-1.50x, nothing skipped 0.90-0.95x against
  // 0.90x. Block tiles and 4-warp blocks keep after_vote: with V loaded
  // for skipped tiles non-causal [64, 64] went from 1.61-1.69x to
  // 1.42-1.44x our dense kernel (lambda 1e-3), [16, 64] from 1.77-1.87x
  // to 1.67-1.70x (lambda 1e-2).
  if (!overrides.skipValues && skips && config.tensorMapTiles &&
      config.warpgroupScores && !decodeShaped && !blockSkipWarps && !rowWise &&
      warps == 8)
    valuesWithKeys = true;
  std::unique_ptr<AttentionMma> mma =
      hooks.makeAttentionMma(rewriter, loc, op, config);
  // Nk and Hkv through AttentionShape: paged keys hold them elsewhere.
  auto size = [&](AttentionDim d) {
    return getValueOrCreateConstantIndexOp(rewriter, loc,
                                           getAttentionSize(rewriter, op, d));
  };
  Value nq = dim(op.getQuery(), 2), nk = size(AttentionDim::Nk);
  Value heads = dim(op.getQuery(), 1), kvHeads = size(AttentionDim::Hkv);
  Attribute workgroup = gpu::AddressSpaceAttr::get(
      rewriter.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<MemRefType> tileTypes = mma->tileBuffers(workgroup);
  bool flagWords = (skips || op.hasUnifiedMax()) && !mma->reducesAtBarrier();
  // A block-wide tile's counts take a second vote (whether some row sees
  // the tile), with its own two words.
  if (flagWords)
    tileTypes.push_back(MemRefType::get(
        {blockSkipWarps && op.getSkipCounts() ? 4 : 2}, rewriter.getI32Type(),
        MemRefLayoutAttrInterface(), workgroup));
  SmallVector<int64_t> tileBytes;
  for (MemRefType t : tileTypes)
    tileBytes.push_back(t.getNumElements() * t.getElementTypeBitWidth() / 8);
  int64_t bytes =
      std::accumulate(tileBytes.begin(), tileBytes.end(), int64_t(0));
  // Swizzled boxes land at 1024-byte boundaries of the pool, whose start
  // only the kernel knows.
  if (mma->tileAlignment() > 16)
    bytes += mma->tileAlignment();
  if (bytes > target.maxSharedMemoryPerBlock)
    return op->emitOpError()
           << "GPU attention mapping needs " << bytes
           << " bytes of shared memory per block for these head dimensions; "
           << target.chip << " has " << target.maxSharedMemoryPerBlock
           << (skips && rowsPerWarp == 32
                   ? " (the skip tile [32, 64] sets 32 rows per warp; "
                     "[16, 64] halves the queries' share)"
                   : "");
  // Above 48 KiB a kernel's shared memory must be dynamic (the launch opts
  // in); below, static buffers keep the kernel self-contained.
  bool dynamic = bytes > 48 * 1024 || config.tensorMapTiles;

  // Packed heads read through views of the query, output and lse; split
  // keys of each tile go to blocks that write f32 partials for a second
  // kernel to merge.
  int64_t blockRows = mma->rowsPerWarp() * warps;
  FailureOr<int64_t> splitsOr = planKeySplits(
      op, target, overrides, packed, blockRows, warps * mma->lanes(), bytes);
  if (failed(splitsOr))
    return failure();
  int64_t splits = *splitsOr;
  // Stream-K replaces the split: chunks of the batch's key tiles.
  FailureOr<int64_t> streamOr = planStreamK(
      op, target, overrides, packed, blockRows, warps * mma->lanes(), bytes);
  if (failed(streamOr))
    return failure();
  StreamKSchedule schedule;
  schedule.chunks = *streamOr;
  bool streamK = schedule.chunks > 0;
  if (streamK)
    splits = 1;
  bool partials = splits > 1 || streamK;
  Value query = op.getQuery(), output = op.getOutput(), lse = op.getLse();
  Value queryRows = nq;
  if (packed > 1) {
    query = packQueryHeads(rewriter, loc, query, packed);
    output = packQueryHeads(rewriter, loc, output, packed);
    if (lse)
      lse = packQueryHeads(rewriter, loc, lse, packed);
    heads = dim(query, 1);
    nq = dim(query, 2);
  }
  Value tiles =
      arith::CeilDivUIOp::create(rewriter, loc, nq, ix.idx(blockRows));
  Type tokenType;
  Value token, partO, partLse;
  if (partials) {
    // The partials [B splits, H, Nq(, Dv)] (stream-K: [B + chunks, ...]),
    // f32, allocated in stream order before the two kernels and freed
    // after them.
    tokenType = gpu::AsyncTokenType::get(rewriter.getContext());
    token = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{})
                .getAsyncToken();
    Value parts = streamK ? ix.add(dim(query, 0), ix.idx(schedule.chunks))
                          : ix.mul(dim(query, 0), ix.idx(splits));
    int64_t dvStatic = v.getDimSize(3);
    int64_t dyn = ShapedType::kDynamic;
    auto allocO = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({dyn, dyn, dyn, dvStatic}, rewriter.getF32Type()),
        tokenType, ValueRange{token}, ValueRange{parts, heads, nq},
        ValueRange{});
    auto allocLse = gpu::AllocOp::create(
        rewriter, loc, MemRefType::get({dyn, dyn, dyn}, rewriter.getF32Type()),
        tokenType, ValueRange{allocO.getAsyncToken()},
        ValueRange{parts, heads, nq}, ValueRange{});
    token = allocLse.getAsyncToken();
    partO = allocO.getMemref();
    partLse = allocLse.getMemref();
  }
  if (streamK) {
    // The schedule: a small kernel writes each entry's first key tile.
    auto alloc = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI32Type()),
        tokenType, ValueRange{token},
        ValueRange{ix.add(dim(query, 0), ix.idx(1))}, ValueRange{});
    schedule.tileStarts = alloc.getMemref();
    token = buildTileStarts(rewriter, loc, op, nk, dim(query, 0), schedule,
                            alloc.getAsyncToken());
  }
  mma->setQueryAndOutput(query, partials ? partO : output);
  mma->prepareHost();

  // The kernel copies Q, K and V 16 bytes at a time and stores O in
  // aligned runs.
  assertAligned16(rewriter, loc,
                  {op.getQuery(), op.getKey(), op.getValue(), op.getOutput()},
                  "softmax.attention on the GPU needs query, key, value "
                  "and output buffers aligned to 16 bytes");
  Value one = ix.idx(1);
  SmallVector<Type> attributions;
  if (!dynamic)
    attributions.assign(tileTypes.begin(), tileTypes.end());
  Value dynamicBytes;
  if (dynamic)
    dynamicBytes = arith::ConstantIntOp::create(rewriter, loc, bytes, 32);
  if (Value counts = op.getSkipCounts()) {
    // The blocks add their pairs to the counts: a one-thread kernel on the
    // same stream zeroes them first.
    auto zeroing =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&zeroing.getBody().front());
    Value c0 = arith::ConstantIntOp::create(rewriter, loc, 0, 64);
    for (int64_t i = 0; i < 2; ++i)
      memref::StoreOp::create(rewriter, loc, c0, counts, ValueRange{ix.idx(i)});
    gpu::TerminatorOp::create(rewriter, loc);
  }
  Value gridX = streamK      ? ix.idx(schedule.chunks)
                : splits > 1 ? ix.mul(tiles, ix.idx(splits))
                             : tiles;
  // A unified max runs two kernels (AttentionKernel::build says why) with
  // a flag per block between them, allocated in stream order.
  bool unified = op.hasUnifiedMax();
  Value redoFlags;
  if (unified) {
    tokenType = gpu::AsyncTokenType::get(rewriter.getContext());
    if (!token)
      token = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{})
                  .getAsyncToken();
    Value blocks = ix.mul(gridX, ix.mul(heads, dim(op.getQuery(), 0)));
    auto alloc = gpu::AllocOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI32Type()),
        tokenType, ValueRange{token}, ValueRange{blocks}, ValueRange{});
    token = alloc.getAsyncToken();
    redoFlags = alloc.getMemref();
  }
  auto buildLaunch = [&](AttentionMma &unit,
                         std::optional<AttentionKernel::UnifiedPass> pass) {
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, gridX, heads, streamK ? one : dim(op.getQuery(), 0),
        ix.idx(warps * unit.lanes()), one, one, dynamicBytes, tokenType,
        token ? ValueRange{token} : ValueRange{}, attributions);
    launch->setAttr(
        SoftmaxDialect::getStrategyAttrName(),
        AttentionGPUStrategyAttr::get(
            rewriter.getContext(),
            config.warpgroupScores
                ? MatrixInstruction::WgmmaM64nNk16
                : getAttentionMatrixInstruction(target, elt,
                                                strategy->f32Precision),
            unit.rowsPerWarp(), blockRows, kKeysPerTile, unit.stages(), splits,
            packed,
            streamK ? std::optional<int64_t>(schedule.chunks) : std::nullopt,
            config.tensorMapTiles ? std::optional(TileCopy::Tma)
                                  : std::nullopt,
            skips && config.tensorMapTiles
                ? std::optional(valuesWithKeys ? SkipValues::WithKeys
                                               : SkipValues::AfterVote)
                : std::nullopt));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    SmallVector<Value> smem(launch.getWorkgroupAttributions());
    if (dynamic) {
      // Both tiles as views of the dynamic pool, V after K.
      SmallVector<Value> views = viewDynamicSharedMemory(
          rewriter, loc, tileTypes,
          mma->tileAlignment());
      smem.append(views.begin(), views.end());
    }
    AttentionKernel kernel(rewriter, loc, op, *scale, unit, warps, nq, nk,
                           heads, kvHeads);
    if (flagWords)
      kernel.setFlags(smem.back());
    kernel.setRowWiseSkip(rowWise);
    kernel.setBlockWideSkip(blockSkipWarps != 0);
    kernel.setValuesWithKeys(valuesWithKeys);
    // Measured on the H200 (B8 H32 Hkv8 L32768 one row, peak-16
    // structured keys): the thresholded kernel 0.81x of dense with nothing
    // skipped when it waited for V with K, 0.86x with the waits apart
    // (B1 L131072: 0.86x, 0.97x); the dense kernel 0.99x with them apart
    // (the extra barrier), so it keeps one wait.
    kernel.setOverlapValues(decodeShaped && skips);
    if (packed > 1)
      kernel.setPackedRows(queryRows, lse);
    if (splits > 1)
      kernel.setKeySplits(splits, partLse);
    if (streamK)
      kernel.setStreamK(schedule, dim(op.getQuery(), 0), partLse);
    if (pass)
      kernel.setUnifiedPass(*pass, redoFlags);
    kernel.build(launch, smem);
    gpu::TerminatorOp::create(rewriter, loc);
    return launch;
  };
  using Pass = AttentionKernel::UnifiedPass;
  gpu::LaunchOp launch =
      buildLaunch(*mma, unified ? std::optional(Pass::AtPhi) : std::nullopt);
  if (unified) {
    // The second kernel's own matrix unit: an AttentionMma keeps the state
    // of the kernel it builds.
    std::unique_ptr<AttentionMma> again =
        hooks.makeAttentionMma(rewriter, loc, op, config);
    again->setQueryAndOutput(query, partials ? partO : output);
    again->prepareHost();
    token = launch.getAsyncToken();
    launch = buildLaunch(*again, Pass::Fallback);
    token =
        gpu::DeallocOp::create(rewriter, loc, tokenType,
                               ValueRange{launch.getAsyncToken()}, redoFlags)
            .getAsyncToken();
    if (splits == 1)
      gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{token});
  }
  if (partials) {
    token = buildPartialMerge(rewriter, loc, op, partO, partLse, output, lse,
                              splits, unified ? token : launch.getAsyncToken(),
                              streamK ? &schedule : nullptr);
    SmallVector<Value> buffers = {partO, partLse};
    if (streamK)
      buffers.push_back(schedule.tileStarts);
    for (Value buffer : buffers)
      token = gpu::DeallocOp::create(rewriter, loc, tokenType,
                                     ValueRange{token}, buffer)
                  .getAsyncToken();
    gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{token});
  }
  rewriter.eraseOp(op);
  return success();
}
