//===- Passes.td - softmax conversion passes -----------------*- tablegen -*-===//

#ifndef SOFTMAX_MLIR_CONVERSION_PASSES_TD
#define SOFTMAX_MLIR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SoftmaxMapToCPU : Pass<"softmax-map-to-cpu"> {
  let summary = "Map softmax ops on buffers onto vector loops over rows";
  let description = [{
    Rewrites every `softmax.softmax`, `softmax.log_softmax` and
    `softmax.logsumexp` on memrefs (after `one-shot-bufferize`) into an
    `scf.parallel` over its rows whose body folds each row with `vector`
    loads at the target's native width, an exp built from fma and integer
    ops, and per-lane states: a max for `three_pass`, a running
    (max, sum) for `online`, a (largest exponent, mantissa sum) pair for
    `exp_pair`, merged across lanes at the end. Sums are blocked and
    compensated, so the f32 error stays at a few ulps on any row length.
    Full vectors are folded `unroll` at a time into as many accumulators;
    the tail uses masked loads and stores. Fully masked rows get the
    `masked` value.

    The rows of the `scf.parallel` are independent: the `softmax-to-cpu`
    pipeline runs them on threads through `convert-scf-to-openmp` (its
    `threads` option), or one after the other.

    The strategy (vector width, unroll, block, three-pass variant) comes
    from the host (LLVM's CPU feature detection: 16 lanes with AVX-512, 8
    with AVX2; cache sizes from the C library, or `l1-bytes`/`l2-bytes`)
    and the row size (docs/Passes/softmax-map-to-cpu.md) and is recorded on
    the loop as `softmax.strategy = #softmax.cpu_strategy<...>`. Options
    that are not 0 (or `auto`) override it, and the same attribute on an op
    (a per-op request, e.g. `#softmax.cpu_strategy<vector_width = 4>`)
    overrides both for that op; a choice the mapping cannot honour, or a
    request of another kind, is an error.

    A reduction along a dimension that is not the innermost puts the lanes
    across neighbouring reductions instead (each lane's state is final).

    The algorithm is the op's. An op still marked `algorithm(auto)` gets
    the choice of `softmax-select-algorithm`'s cost model for `target=cpu`
    (with its default `l2-bytes`), through the same exported
    `selectAlgorithm`; `softmax-to-cpu` runs `softmax-select-algorithm`
    before this pass, so none reaches it there.

    `softmax.attention` becomes an `scf.parallel` over query rows, each
    visiting its keys (within the causal and window limits) in blocks of
    the vector width with the online state carried (docs/Attention.md).

    `softmax.topk` becomes an `scf.parallel` over rows that reads each row
    once: the online (m, l) in the same vector loops, and per vector one
    compare against the k-th value kept so far; only a vector with a lane
    above it goes lane by lane into the row's heap of k (the worst kept
    at its root), sorted after the row (docs/TopK.md, "The CPU kernel"). It takes no strategy request.

    Requirements, each with its own diagnostic: memrefs with identity
    layout (a buffer reduced along its last dimension, and `softmax.topk`,
    may also be rows of a larger buffer, read in place: unit stride along
    the row, any outer strides; a logsumexp's output any strides),
    f16/bf16/f32 data, f32 accumulation. `softmax-to-cpu` sends
    every other op through `softmax-decompose` instead.

    Example:

    ```mlir
    softmax.softmax ins(%x : memref<64x1000xf32>) outs(%y : memref<64x1000xf32>)
                    dimension(1) masked(zero) algorithm(exp_pair)
    ```

    becomes an `scf.parallel` over 64 rows with
    `softmax.strategy = #softmax.cpu_strategy<algorithm = exp_pair,
    vector_width = 16, unroll = 4, block = 16, exp = fast>`: 15 groups of
    four `vector<16xf32>` loads, then a tail of three masked vectors.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "f32 lanes per vector: a power of two from 1 to 64 (0: the "
           "host's native width)">,
    Option<"unroll", "unroll", "int64_t", "0",
           "Vectors folded per iteration, each into its own accumulator: 1 "
           "to 16 (0: the heuristic's)">,
    Option<"block", "block", "int64_t", "0",
           "Iterations summed from zero before a compensated add to the "
           "row's sum: 1 to 65536 (0: the heuristic's)">,
    Option<"threePass", "three-pass", "std::string", "\"auto\"",
           "three_pass: recompute exp in the output sweep, reload it from "
           "the output (stored by the sum sweep), tiled (max and sum per "
           "L1 block), or auto">,
    Option<"l1Bytes", "l1-bytes", "int64_t", "0",
           "L1 data cache size the heuristic assumes: 1 to 2^40 bytes (0: "
           "the host's)">,
    Option<"l2Bytes", "l2-bytes", "int64_t", "0",
           "L2 cache size the heuristic assumes: 1 to 2^40 bytes (0: the "
           "host's)">,
    Option<"exp", "exp", "std::string", "\"fast\"",
           "The vector exp: fast (VectorMath::fastExp, range-reduced, for "
           "the arguments softmax has) or polynomial (upstream's "
           "math-polynomial-approximation, which also handles overflow)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def SoftmaxMapToGPU : Pass<"softmax-map-to-gpu"> {
  let summary = "Map softmax ops on buffers onto GPU kernels (gpu.launch)";
  let description = [{
    Rewrites every `softmax.softmax`, `softmax.log_softmax` and
    `softmax.logsumexp` on memrefs (after `one-shot-bufferize`) into a
    `gpu.launch` whose body uses only target-neutral dialects: `gpu`
    (thread ids, xor shuffles, barriers, workgroup memory), `vector`
    (16-byte loads and stores), `memref`, `scf`, `arith` and `math`. The
    NVVM and ROCDL pipelines lower the same kernels.

    `softmax.attention` becomes one FlashAttention-2-style launch on the
    chip's matrix units, the same algorithm over two ends: `nvgpu`
    (cp.async, ldmatrix) and `nvvm.mma.sync` on sm_80/sm_90,
    `amdgpu.mfma` 16x16x16 on gfx90a/gfx942 (docs/Attention.md). f32
    attention runs on NVIDIA's tf32 tensor cores (mma.sync m16n8k8):
    exactly by default (3xTF32, within 1e-5 of float64), or with one tf32
    product per tile when `attention-f32-precision=tf32` asks for it
    (about 1e-3); CDNA refuses f32 attention with a diagnostic.

    `softmax.topk` becomes one launch of a block of 256 threads per row
    that reads the row once: the online (m, l) and a candidate buffer in
    workgroup memory above a running threshold, sorted by a bitonic
    network when it could overflow (docs/TopK.md). A k whose buffer does
    not fit in 48 KiB of workgroup memory is refused.

    The strategy (threads per row, rows per block, vector width, vectors
    kept in registers, blocks per row) comes from a heuristic over the
    target and the shape (docs/Passes/softmax-map-to-gpu.md) and is
    recorded on the launch as `softmax.strategy = #softmax.gpu_strategy<...>`
    (`#softmax.attention_gpu_strategy<...>` for attention). Every option
    that is not 0 overrides the heuristic, and the same attribute on an op
    (a per-op request) overrides both for that op; a choice the shape
    cannot honour, or a request of another kind, is an error, never
    silently replaced.

    Requirements, each with its own diagnostic: memrefs with identity
    layout, reduction along the innermost dimension, f16/bf16/f32 data,
    f32 accumulation. Buffers are taken to start 16-byte aligned: rows of
    any length are read in 16-byte vectors, a row that does not start on
    that alignment peeled (its first and last vectors masked).

    All three algorithms are honoured. An op still marked `algorithm(auto)`
    gets the choice of `softmax-select-algorithm`'s cost model for
    `target=gpu` (`online`, what the heuristic was tuned on), through the
    same exported `selectAlgorithm`; `softmax-to-nvvm` and
    `softmax-to-rocdl` run `softmax-select-algorithm{target=gpu}` before
    this pass, so none reaches it there.

    Example:

    ```mlir
    softmax.softmax ins(%x : memref<16384x1024xf32>) outs(%y : memref<16384x1024xf32>)
                    dimension(1) masked(zero) algorithm(online)
    ```

    becomes a `gpu.launch` of 16384 blocks of 64 threads, a block per row,
    each thread holding 4 vectors of 4 floats, with
    `softmax.strategy = #softmax.gpu_strategy<threads_per_row = 64,
    rows_per_block = 1, vector_width = 4, cached_vectors = 4, splits = 1>`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target chip: sm_80, sm_90, sm_90a, gfx90a or gfx942">,
    Option<"threadsPerRow", "threads-per-row", "int64_t", "0",
           "Threads that cooperate on a row: a power of two from 1 to 1024 "
           "(0: the heuristic's)">,
    Option<"rowsPerBlock", "rows-per-block", "int64_t", "0",
           "Rows per block: a power of two from 1 to 1024, more than 1 only "
           "when threads-per-row is at most the warp size (0: the "
           "heuristic's)">,
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "Elements per load and store: a power of two from 1 to 16 (0: "
           "the heuristic's)">,
    Option<"cachedVectors", "cached-vectors", "int64_t", "0",
           "Vectors per thread kept in registers: 1 to 64 (0: the "
           "heuristic's)">,
    Option<"unroll", "unroll", "int64_t", "0",
           "Vectors each thread loads per iteration of a row that streams "
           "(cached vectors 0), all in flight together: 1 to 16 (0: the "
           "heuristic's); rows kept in registers have none to unroll">,
    Option<"splits", "splits", "int64_t", "0",
           "Blocks per row: 1 to 64, at most the warp size (0: the "
           "heuristic's)">,
    Option<"splitMerge", "split-merge", "std::string", /*default=*/"\"\"",
           "How the blocks of a split row merge their states: global (in "
           "global memory, behind a ticket) or cluster (one thread-block "
           "cluster per row, through distributed shared memory; sm_90 and "
           "later, at most 16 splits); empty: the heuristic's">,
    Option<"reread", "reread", "std::string", /*default=*/"\"\"",
           "The direction of each pass after the first over a streamed row "
           "read again (softmax, log_softmax, three_pass; cached vectors "
           "0): forward, or reverse (the second pass from the row's end, "
           "whose bytes the first pass left in L2); empty: the "
           "heuristic's (reverse on NVIDIA, forward on CDNA)">,
    Option<"attentionRowsPerWarp", "attention-rows-per-warp", "int64_t", "0",
           "softmax.attention: query rows per warp, 16 or 32 (32 on NVIDIA "
           "only; 0: the measured default)">,
    Option<"attentionBuffers", "attention-buffers", "int64_t", "0",
           "softmax.attention: shared-memory buffers per K/V tile, 1, 2 or "
           "3 (2 and 3 on NVIDIA only, 3 not with a skip threshold; 0: the "
           "measured default)">,
    Option<"attentionKeySplits", "attention-key-splits", "int64_t", "0",
           "softmax.attention: blocks that share a query tile's keys "
           "(split-KV, merged by a second kernel), 1 to 1024 (0: the cost "
           "model's; 1: no split)">,
    Option<"attentionStreamK", "attention-stream-k", "int64_t", "0",
           "softmax.attention: stream-K blocks per query-head group, which "
           "cut the batch's key tiles into equal chunks (LeanAttention), 1 "
           "to 4096 (0: the mapping's choice, stream-K for ragged decode; "
           "attention-key-splits asks for plain split-KV)">,
    Option<"attentionPackedHeads", "attention-packed-heads", "int64_t", "0",
           "softmax.attention: query heads of one KV head run as one query "
           "tile (GQA packing), 1 to 1024, dividing heads / kv heads (0: "
           "packed when the query rows fill less than a block; 1: not)">,
    Option<"crossEntropyVocabSplits", "cross-entropy-vocab-splits",
           "int64_t", "0",
           "softmax.linear_cross_entropy: ranges of classes per token tile, "
           "each a block, merged per token by a second kernel, 1 to 4096 (0: "
           "the balance model's)">,
    Option<"attentionF32Precision", "attention-f32-precision", "std::string",
           /*default=*/"\"exact\"",
           "softmax.attention on f32 inputs (NVIDIA): exact (3xTF32, within "
           "1e-5 of float64) or tf32 (one tf32 product, about 1e-3, faster)">
  ];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def SoftmaxStageGPUBuffers : Pass<"softmax-stage-gpu-buffers", "::mlir::ModuleOp"> {
  let summary = "Make the buffers a module allocates itself reachable from kernels";
  let description = [{
    After `softmax-map-to-gpu`, host code still allocates its buffers with
    `memref.alloc` and reads constants through `memref.get_global`: host
    memory that a kernel cannot touch. This pass turns every `memref.alloc`
    outside kernels into `gpu.alloc host_shared` (memory both the host and
    the device reach, such as CUDA managed memory), frees it with
    `gpu.dealloc` in stream order, and gives every `gpu.launch` that reads a
    global a `host_shared` copy of it. Function arguments are left as they
    are: a caller passes device-accessible buffers.

    Example:

    ```mlir
    %g = memref.get_global @input : memref<4x8xf32>
    %y = memref.alloc() : memref<4x8xf32>
    gpu.launch ... { ... %g ... %y ... }
    ```

    becomes

    ```mlir
    %g = memref.get_global @input : memref<4x8xf32>
    %y = gpu.alloc host_shared () : memref<4x8xf32>
    %c = gpu.alloc host_shared () : memref<4x8xf32>
    memref.copy %g, %c : memref<4x8xf32> to memref<4x8xf32>
    gpu.launch ... { ... %c ... %y ... }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect"];
}

def SoftmaxCPULegalizeLLVM : Pass<"softmax-cpu-legalize-llvm"> {
  let summary = "Rewrite LLVM dialect ops the x86 backend of LLVM 22 cannot select";
  let description = [{
    The last step of `softmax-to-cpu`, after the conversion to the LLVM
    dialect. It rewrites what LLVM 22's code generator fails on for some
    hosts, into ops with the same effect that it handles:

    - `llvm.intr.masked.store` of a bf16 vector stores the value's bits as
      an i16 vector. On hosts with AVX512-BF16 (Cooper Lake, Sapphire
      Rapids and later) a bf16 masked store whose mask LLVM splits into a
      full part and a remainder dies in instruction selection ("Cannot
      select: store (s16) ... ConstantFP:bf16"): a row of 33 bf16 values
      at 64 lanes is one. The bits are the same, so the memory is too.

    Example:

    ```mlir
    llvm.intr.masked.store %v, %p, %m {alignment = 2 : i32}
      : vector<64xbf16>, vector<64xi1> into !llvm.ptr
    ```

    becomes

    ```mlir
    %b = llvm.bitcast %v : vector<64xbf16> to vector<64xi16>
    llvm.intr.masked.store %b, %p, %m {alignment = 2 : i32}
      : vector<64xi16>, vector<64xi1> into !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SoftmaxNVVMNontemporal : Pass<"softmax-nvvm-nontemporal"> {
  let summary = "Give nontemporal loads and stores of NVVM kernels PTX's streaming cache operator";
  let description = [{
    Upstream marks an access that will not be reused soon with the
    `nontemporal` attribute (`vector.load`, `vector.store`, `llvm.load`,
    `llvm.store`), and AMDGPU's backend honours it. LLVM 22's NVPTX backend
    drops the `!nontemporal` metadata and emits a plain `ld.global`. This
    pass runs in the NVVM kernels after their conversion to the LLVM
    dialect. It rewrites each nontemporal `llvm.load` and `llvm.store` of
    32, 64 or 128 bits, in the global or the generic address space, into
    the same access with the `.cs` operator ("cache streaming": evict first
    from L1 and L2) as inline PTX, on 32-bit lanes.

    `softmax-map-to-gpu` marks the last pass of a streamed row, which
    reads the row again and writes it. Its rereads then stop displacing
    the rows still to be reread. On an H100 the hint took the streamed
    bf16 softmax from 0.73-0.78 to 0.82-0.96 of a copy kernel's rate at
    256 and 4096 rows of 128256 (bench/gpu/probe/l2_hint_softmax.cu).

    A nontemporal access that the pass cannot give `.cs` to keeps LLVM's
    default caching, with a warning that says why: an access of another
    size, a volatile or atomic one, or one in another address space.

    Example:

    ```mlir
    %v = llvm.load %p {alignment = 16 : i64, nontemporal} : !llvm.ptr<1> -> vector<8xbf16>
    ```

    becomes

    ```mlir
    %a = llvm.inline_asm has_side_effects "ld.global.cs.v4.u32 {$0, $1, $2, $3}, [$4];",
           "=r,=r,=r,=r,l" %p : (!llvm.ptr<1>) -> !llvm.struct<(i32, i32, i32, i32)>
    // the four lanes into a vector<4xi32>, then
    %v = llvm.bitcast %w : vector<4xi32> to vector<8xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // SOFTMAX_MLIR_CONVERSION_PASSES_TD
