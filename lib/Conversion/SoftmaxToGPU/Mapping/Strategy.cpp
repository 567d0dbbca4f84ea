//===- Strategy.cpp - how a row reduction is spread over a GPU -----------===//
//
// A small documented heuristic (docs/Passes/softmax-map-to-gpu.md). Its aim
// is that every element is read from memory once and written once: rows are
// kept in registers between the reduction and the normalization whenever
// one block (or, for very long rows, a few blocks) can hold them.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/SoftmaxToGPU/SoftmaxToGPU.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::softmax;

std::optional<GPUTarget> mlir::softmax::lookupGPUTarget(StringRef chip) {
  // Multiprocessor counts and shared memory per block (opt-in, CUDA
  // programming guide; LDS per workgroup, CDNA ISA guides) of the common
  // parts: A100 (sm_80), H100/H200 (sm_90, SXM), MI250X (gfx90a, per GCD),
  // MI300X (gfx942).
  return llvm::StringSwitch<std::optional<GPUTarget>>(chip)
      .Case("sm_80",
            GPUTarget{"sm_80", GPUVendor::NVIDIA, 32, 108, 1024, 163 * 1024})
      .Case("sm_90", GPUTarget{"sm_90", GPUVendor::NVIDIA, 32, 132, 1024,
                               227 * 1024, /*tensorMapCopies=*/true,
                               /*warpgroupMma=*/false,
                               /*maxClusterBlocks=*/16})
      .Case("sm_90a", GPUTarget{"sm_90a", GPUVendor::NVIDIA, 32, 132, 1024,
                                227 * 1024, /*tensorMapCopies=*/true,
                                /*warpgroupMma=*/true,
                                /*maxClusterBlocks=*/16})
      .Case("gfx90a",
            GPUTarget{"gfx90a", GPUVendor::AMD, 64, 110, 1024, 64 * 1024})
      .Case("gfx942",
            GPUTarget{"gfx942", GPUVendor::AMD, 64, 304, 1024, 64 * 1024})
      .Default(std::nullopt);
}

/// Vectors of registers a thread may hold for its part of the row: 16 x 16
/// bytes is 64 registers of f32, which still leaves room for two blocks of
/// 1024 threads per multiprocessor.
static constexpr int64_t kMaxCachedVectors = 16;

/// The vectors a thread of a block of `threads` may cache: the row is held
/// as f32, so at most 64 values (32 in a block of 1024 threads, whose
/// threads get 64 registers). Measured on the H200: bf16 256x128256 in one
/// block of 1024 threads caching 16 vectors of 8 (128 values) spilled 820
/// bytes and read 891 GB/s; 16 split blocks of 128 threads caching 8
/// vectors (95 registers, no spill) read 2346, 1.14x Triton's online
/// kernel (bench/results/gpu_softmax_vocab.md).
static int64_t maxCachedVectors(int64_t threads, int64_t vectorWidth) {
  int64_t values = threads >= 1024 ? 32 : 64;
  return std::clamp<int64_t>(values / vectorWidth, 1, kMaxCachedVectors);
}

int64_t mlir::softmax::splitChunkElements(const GPUStrategy &s,
                                          int64_t rowLength) {
  if (s.cachedVectors > 0)
    return s.cachedVectors * s.threadsPerRow * s.vectorWidth;
  int64_t vectors =
      llvm::divideCeil(rowSpan(s.vectorWidth, rowLength), s.vectorWidth);
  return llvm::divideCeil(vectors, std::max<int64_t>(s.splits, 1)) *
         s.vectorWidth;
}

/// Rows too few to fill half the multiprocessors, one block each.
static bool hasFewRows(const GPUTarget &target, std::optional<int64_t> rows) {
  return rows && *rows > 0 && *rows <= target.multiprocessors / 2;
}

/// chooseGPUStrategy's blocks, threads and registers; how split rows merge
/// is chosen after.
static GPUStrategy chooseRowPlan(const GPUTarget &target,
                                 std::optional<int64_t> rowLength,
                                 std::optional<int64_t> rows,
                                 unsigned elementBytes, bool readsOnce,
                                 bool pairStates) {
  GPUStrategy s;
  // 16-byte accesses always: a row whose start is not aligned (its length
  // is not a multiple of the width) is peeled, its first and last vectors
  // masked. Measured on the H200 (bench/results/gpu_softmax_vocab.md),
  // GB/s at the width the length allows (1) against peeled: softmax bf16
  // 1024x50257 1321 / 1988, f32 2524 / 3173, bf16 4096x1001 912 / 1537;
  // the one loss, f32 16384x127, 1754 / 1544.
  s.vectorWidth = 16 / elementBytes;
  // A dynamic row length: a block per row, the row streamed twice.
  if (!rowLength) {
    s.threadsPerRow = 256;
    return s;
  }
  int64_t n = std::max<int64_t>(*rowLength, 1);
  int64_t vectors = llvm::divideCeil(rowSpan(s.vectorWidth, n), s.vectorWidth);
  int64_t maxThreads = target.maxThreadsPerBlock;
  int64_t maxSplits = std::min(target.multiprocessors, target.warpSize);
  // Rows too few to fill half the multiprocessors, one block each: both
  // the streamed and the cached plans split them over blocks.
  bool fewRows = hasFewRows(target, rows);
  // Rows enough for a block each on every multiprocessor, and whether
  // a row is peeled (plans measured on even rows only exclude those).
  bool manyRows = rows && *rows >= target.multiprocessors;
  bool peeled = isPeeledRow(s.vectorWidth, n);
  // Streamed chunks per row: enough blocks to fill the multiprocessors
  // twice, at most a warp's worth (one warp merges them), none empty.
  auto streamedSplits = [&]() {
    return std::clamp<int64_t>(
        llvm::divideCeil(2 * target.multiprocessors, *rows), 1,
        std::min(maxSplits, vectors));
  };

  // A row read once (logsumexp) gains nothing from registers: rows of 4096
  // vectors or more stream with 512 threads (1024 past 16384 vectors),
  // split over blocks only when the rows are too few to fill half the
  // multiprocessors. Measured on the H200, logsumexp GB/s, cached plan
  // against streamed (bench/results/gpu_softmax_vocab.md): f32 512x262144
  // 3778 / 4169, bf16 2165 / 2994; bf16 256x128256 1671 / 2356; bf16
  // 1024x50304 1533 / 2475; bf16 4096x32768 2272 / 2623, f32 4084 / 3957
  // (the one loss, 3%); at 2048 vectors (8192x8192 f32) the cached plan
  // reads 4127 against 2956.
  //
  // Blocks of 1024 also when 512-thread blocks, one a row, would leave
  // half a multiprocessor's thread slots (two blocks of the largest size)
  // empty: a streamed thread keeps one 16-byte load in flight, so the
  // bytes in flight are the resident threads'. Measured on the H200
  // (gpu_softmax_vocab_block_sweep.json), bf16 256x128256: 2402 GB/s at
  // 512 threads, 2783 at 1024 (Triton online 2332); 1024x50257, where 512
  // fill the slots: 2747 at 512, 2423 at 1024.
  if (readsOnce && vectors >= 4096) {
    s.cachedVectors = 0;
    bool slotsEmpty = !fewRows && rows &&
                      *rows * 512 < 2 * maxThreads * target.multiprocessors;
    s.threadsPerRow = std::min<int64_t>(
        vectors >= 16384 || slotsEmpty ? 1024 : 512, maxThreads);
    if (fewRows)
      s.splits = streamedSplits();
    // The shortest rows this branch takes (4096 vectors: 32768 bf16), as
    // many as the multiprocessors or more, stream with blocks of 256 and 4
    // vectors in flight a thread. bf16 4096x32768 in one process: 3555
    // GB/s against 3224 on the H200 (gpu_softmax_vocab.md, the sweep),
    // 2930 against 2809 on an H100 (bench/results/sweep_leads/). Longer
    // rows were not measured so (1024x50257 at 512 threads: U = 2 lost).
    else if (vectors == 4096 && elementBytes == 2 && manyRows && !peeled) {
      s.threadsPerRow = std::min<int64_t>(256, maxThreads);
      s.unroll = 4;
    }
    return s;
  }

  // Short rows: a warp (or part of one) per row, several rows per block.
  if (vectors <= target.warpSize * 4) {
    s.threadsPerRow = std::min<int64_t>(
        target.warpSize, llvm::PowerOf2Ceil(llvm::divideCeil(vectors, 4)));
    s.threadsPerRow = std::max<int64_t>(s.threadsPerRow, 4);
    s.rowsPerBlock = std::max<int64_t>(1, 256 / s.threadsPerRow);
    s.cachedVectors = llvm::divideCeil(vectors, s.threadsPerRow);
    return s;
  }
  // Split rows: small blocks folding chunks of 8192 elements (32 KiB of
  // f32), the best of the 128/256/512/1024-thread and 8K/16K-element
  // variants measured on an H200: small blocks share a multiprocessor, so
  // one loads while another waits. 128 threads with 16-byte vectors (bf16
  // 4% faster, f32 even), 256 with narrower ones (so that 16 vectors per
  // thread still make a long chunk). At most a warp's worth of chunks (one
  // warp merges their states), each at most 16 vectors per thread.
  int64_t splitThreads = std::min<int64_t>(
      s.vectorWidth * elementBytes == 16 ? 128 : 256, maxThreads);
  int64_t splitCached = maxCachedVectors(splitThreads, s.vectorWidth);
  int64_t chunkVectors =
      std::min<int64_t>(8192 / s.vectorWidth, splitCached * splitThreads);
  auto trySplit = [&](int64_t splits) {
    s.threadsPerRow = splitThreads;
    s.cachedVectors =
        llvm::divideCeil(llvm::divideCeil(vectors, splits), splitThreads);
    // As many chunks as the chunk size needs, so that none is empty.
    s.splits = llvm::divideCeil(vectors, s.cachedVectors * splitThreads);
    return s.cachedVectors <= splitCached;
  };
  // Few rows of medium length would leave most multiprocessors idle: split
  // them over blocks too.
  if (fewRows && vectors >= 2 * chunkVectors &&
      trySplit(std::min<int64_t>(
          {target.multiprocessors / *rows,
           (int64_t)llvm::divideCeil(vectors, chunkVectors), maxSplits})))
    return s;
  s.splits = 1;
  // Rows of a few hundred vectors: a small block per row, 4 vectors per
  // thread (on an H200, 64 threads beat a warp per row at 256 vectors).
  if (vectors < 1024) {
    s.threadsPerRow =
        std::max<int64_t>(64, llvm::PowerOf2Ceil(llvm::divideCeil(vectors, 4)));
    s.cachedVectors = llvm::divideCeil(vectors, s.threadsPerRow);
    return s;
  }
  // Medium rows: a block per row, 8 vectors per thread (up to 16 with the
  // largest block). Measured on an H200 (bench/results): 8 vectors beat 4
  // for bf16 and match 4 or 16 for f32.
  int64_t mediumThreads = std::clamp<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(vectors, 8)), 128, maxThreads);
  if (static_cast<int64_t>(llvm::divideCeil(vectors, mediumThreads)) <=
      maxCachedVectors(mediumThreads, s.vectorWidth)) {
    s.threadsPerRow = mediumThreads;
    s.cachedVectors = llvm::divideCeil(vectors, s.threadsPerRow);
    // Except 2-byte rows that fill a block of 512 caching 8 vectors a
    // thread (about 87 registers: one such block a multiprocessor), as many
    // as the multiprocessors or more: they stream twice, 512 threads with
    // 4 vectors in flight (64 registers, two blocks). softmax bf16
    // 4096x32768 in one process: 3294 GB/s against 2964 cached on the
    // H200 (gpu_softmax_vocab.md, the sweep), 2906 against 2697 on an H100
    // (bench/results/sweep_leads/). Peeled rows and exp_pair keep the
    // cached plan (not measured streamed at this length).
    if (elementBytes == 2 && mediumThreads == 512 && s.cachedVectors == 8 &&
        manyRows && !peeled && !pairStates) {
      s.cachedVectors = 0;
      s.unroll = 4;
    }
    return s;
  }
  // Long rows of 2-byte elements, as many as the multiprocessors or more:
  // a block of 1024 threads per row, streamed twice, 4 vectors in flight
  // a thread. Its 64 registers leave one such block a multiprocessor, so
  // the rows in flight (132 of 256 KiB at V 128256) stay within the L2
  // the second pass re-reads. Measured on the H200 against the split
  // cached plan below (gpu_softmax_vocab_block_sweep.json), GB/s: softmax
  // 256x128256 2617 / 2276, log_softmax 2669 / 2228, softmax 4096x128256
  // 2906 / 2710, 256x262144 2477 / 2493; 1024x50257 streamed at one
  // vector in flight already 2643 / 1723. f32 rows keep the cached plan
  // (1024x50257: 3010 cached, 2498 streamed). Fewer vectors in flight
  // where 4 would pass the 64-register cap (ptxas): exp_pair's fold holds
  // a mantissa and an exponent an element (bf16 256x128256 softmax: 116
  // bytes spilled at 4, 60 registers at 2); a peeled (odd) row's masked
  // head and tail spill 64-68 bytes at 4 on sm_80, so it keeps the one
  // vector it was timed with.
  //
  // Splitting these rows into chunks of 128 KiB, a block each (fewer bytes
  // in flight for the second pass to find in L2), is not done: it won on
  // an H100 (50 MiB of L2; softmax 4096x128256 2404 GB/s against 2252,
  // 512x262144 2277 against 2015) and lost on the H200 (60 MiB: 2648
  // against 3096, 2456 against 2712), which the same sm_90 target cannot
  // tell apart (bench/results/vocab_defaults/README.md, "Rows split to
  // fit L2"). `splits` asks for it.
  if (elementBytes == 2 && manyRows && maxThreads >= 1024) {
    s.cachedVectors = 0;
    s.splits = 1;
    s.threadsPerRow = 1024;
    s.unroll = peeled ? 1 : pairStates ? 2 : 4;
    return s;
  }
  // Long rows: split each row over blocks, each caching a chunk, when the
  // blocks of a row can all be resident at once (they wait for each other).
  if (trySplit(std::min<int64_t>(llvm::divideCeil(vectors, chunkVectors),
                                 maxSplits)))
    return s;
  // Rows longer still: stream them twice, a block per row, or, when the
  // rows are too few to fill the multiprocessors twice, a block of 1024
  // threads per chunk of each row (each chunk streamed twice; the states
  // merged as above). Measured on the H200
  // (bench/results/gpu_softmax_vocab.md): bf16 8x1000003 read 24 GB/s in
  // 8 blocks of 256 threads, 337 in 16 chunks, 591 in 32, 992 in 32
  // chunks of 1024 threads (Triton online 94, torch 130); f32 64x2097152
  // 276 in 64 blocks of 128 threads, 1641 with 1024 threads, 2295 in 5
  // chunks of 512 (Triton online 1687).
  s.cachedVectors = 0;
  s.splits = 1;
  if (rows && *rows > 0 && *rows < 2 * target.multiprocessors) {
    s.threadsPerRow = maxThreads;
    s.splits = streamedSplits();
  }
  return s;
}

GPUStrategy mlir::softmax::chooseGPUStrategy(const GPUTarget &target,
                                             std::optional<int64_t> rowLength,
                                             std::optional<int64_t> rows,
                                             unsigned elementBytes,
                                             bool readsOnce, bool pairStates) {
  GPUStrategy s = chooseRowPlan(target, rowLength, rows, elementBytes,
                                readsOnce, pairStates);
  // Few rows split over at most a cluster's blocks merge through the
  // cluster's shared memory, not through global memory and a counter:
  // with few blocks in flight the merge's round trips are what a row
  // waits for. Measured on an H100 (bench/results/gpu_softmax_vocab.md,
  // "Few rows merged in a cluster"), time against the global merge: bf16
  // softmax 1 / 8 / 32 / 64 x 128256 -14 / -12 / -11 / -9%, log_softmax 8
  // and 32 rows -13 / -11%, logsumexp 32 rows -7%, f32 softmax 32 rows
  // -9%, 8x32000 -24%; on the H200 (session 26) 32x128256 -11%, logsumexp
  // -9%. Peeled rows (a length that is not a multiple of the vector width)
  // only up to 8 chunks, the portable cluster size: their masked head and
  // tail take 119-128 registers a thread against 96 for an even row (4
  // blocks of 128 threads a multiprocessor, not 5). In 7 chunks the
  // cluster still wins, in 16 it loses (H100, bench/results/peeled_mask/:
  // bf16 64x50257 -10%, 8x50257 -16%; log_softmax 32x128257 +17%). Nor for
  // many rows: bf16 256x128256 and 4096x128256 +2-4% (H200).
  bool fewRows = hasFewRows(target, rows);
  bool peeled = rowLength && isPeeledRow(s.vectorWidth, *rowLength);
  constexpr int64_t kPortableClusterBlocks = 8;
  int64_t clusterBlocks =
      peeled ? std::min(target.maxClusterBlocks, kPortableClusterBlocks)
             : target.maxClusterBlocks;
  if (s.splits > 1 && fewRows && s.splits <= clusterBlocks)
    s.splitMerge = SplitMerge::Cluster;
  return s;
}
