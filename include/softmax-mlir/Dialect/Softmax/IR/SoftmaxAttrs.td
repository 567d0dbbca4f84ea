//===- SoftmaxAttrs.td - softmax dialect strategy attributes -*- tablegen -*-===//
//
// The typed strategies of the CPU and GPU mappings: what a user or a host
// compiler asks for one op, and what the mapping records on the loop or
// launch it produces, both as the discardable attribute `softmax.strategy`.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXATTRS_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXATTRS_TD

include "softmax-mlir/Dialect/Softmax/IR/SoftmaxBase.td"

//===----------------------------------------------------------------------===//
// Enums of the strategies
//===----------------------------------------------------------------------===//

// `auto` stays a case because the C++ strategy (SoftmaxToCPU.h) uses it for
// "not overridden"; the attribute refuses it (absence says that).
def Softmax_ThreePassVariant : I32EnumAttr<"ThreePassVariant",
    "how three_pass sweeps a row on the CPU", [
      I32EnumAttrCase<"Auto", 0, "auto">,
      I32EnumAttrCase<"Recompute", 1, "recompute">,
      I32EnumAttrCase<"Reload", 2, "reload">,
      I32EnumAttrCase<"Tiled", 3, "tiled">
    ]> {
  let cppNamespace = "::mlir::softmax";
  let genSpecializedAttr = 0;
}

def Softmax_VectorExp : I32EnumAttr<"VectorExp",
    "the expansion of the CPU kernels' vector exp", [
      I32EnumAttrCase<"Fast", 0, "fast">,
      I32EnumAttrCase<"Polynomial", 1, "polynomial">
    ]> {
  let cppNamespace = "::mlir::softmax";
  let genSpecializedAttr = 0;
}

def Softmax_MatrixInstruction : I32EnumAttr<"MatrixInstruction",
    "the matrix instruction of the GPU attention kernel", [
      I32EnumAttrCase<"M16n8k16", 0, "m16n8k16">,
      I32EnumAttrCase<"M16n8k8Tf32x3", 1, "m16n8k8.tf32x3">,
      I32EnumAttrCase<"M16n8k8Tf32", 2, "m16n8k8.tf32">,
      I32EnumAttrCase<"Mfma16x16x16", 3, "mfma16x16x16">,
      I32EnumAttrCase<"WgmmaM64nNk16", 4, "wgmma.m64nNk16">
    ]> {
  let cppNamespace = "::mlir::softmax";
  let genSpecializedAttr = 0;
}

def Softmax_TileCopy : I32EnumAttr<"TileCopy",
    "how the GPU attention kernel copies its K/V tiles to shared memory", [
      I32EnumAttrCase<"CpAsync", 0, "cp_async">,
      I32EnumAttrCase<"Tma", 1, "tma">
    ]> {
  let cppNamespace = "::mlir::softmax";
  let genSpecializedAttr = 0;
}

def Softmax_SkipValues : I32EnumAttr<"SkipValues",
    "when a thresholded GPU attention kernel requests V of a key tile", [
      I32EnumAttrCase<"AfterVote", 0, "after_vote">,
      I32EnumAttrCase<"WithKeys", 1, "with_keys">
    ]> {
  let cppNamespace = "::mlir::softmax";
  let genSpecializedAttr = 0;
}

def Softmax_SplitMerge : I32EnumAttr<"SplitMerge",
    "how the blocks of a split row merge their states on the GPU", [
      I32EnumAttrCase<"Global", 0, "global">,
      I32EnumAttrCase<"Cluster", 1, "cluster">
    ]> {
  let cppNamespace = "::mlir::softmax";
  let genSpecializedAttr = 0;
}

def Softmax_RereadOrder : I32EnumAttr<"RereadOrder",
    "the order a streamed row is read again in on the GPU", [
      I32EnumAttrCase<"Forward", 0, "forward">,
      I32EnumAttrCase<"Reverse", 1, "reverse">
    ]> {
  let cppNamespace = "::mlir::softmax";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

// Every parameter of a strategy is optional: absent in a per-op request, it
// is left to the pass options and the heuristic; a recorded strategy names
// every one that applies. Upstream's struct() format prints and parses them
// by name, in any order, omitting absent ones.
class Softmax_OptionalIntParameter<string desc>
    : OptionalParameter<"std::optional<int64_t>", desc> {
  let printer = "$_printer << *$_self";
}

class Softmax_OptionalEnumParameter<EnumAttrInfo info, string desc>
    : OptionalParameter<"std::optional<" # info.cppNamespace # "::" #
                        info.className # ">", desc> {
  let parser = "::mlir::FailureOr<std::optional<" # info.cppNamespace #
               "::" # info.className # ">>(" # info.parameterParser # ")";
  let printer = "$_printer << " # info.cppNamespace # "::" #
                info.symbolToStringFnName # "(*$_self)";
}

class Softmax_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Softmax_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

def Softmax_CPUStrategyAttr : Softmax_Attr<"CPUStrategy", "cpu_strategy"> {
  let summary = "how softmax-map-to-cpu spreads a row reduction over lanes";
  let description = [{
    The strategy of a `softmax.softmax`, `softmax.log_softmax` or
    `softmax.logsumexp` on the CPU (docs/Passes/softmax-map-to-cpu.md).
    As `softmax.strategy` on such an op it is a per-op request: every
    parameter given replaces the pass options and the heuristic for that
    op, and a request the mapping cannot honour is an error. The mapping
    records the strategy it used, with every parameter that applies, as
    `softmax.strategy` on the `scf.parallel` it produces.

    * `algorithm`: `three_pass`, `online` or `exp_pair`. The op's own
      `algorithm` decides; in a request it must agree with it.
    * `vector_width`: f32 lanes per vector, a power of two in [1, 64].
    * `unroll`: vectors folded per iteration, each into its own
      accumulator, in [1, 16].
    * `block`: iterations summed from zero before a compensated add to the
      row's sum, at least 1.
    * `three_pass`: `recompute`, `reload` or `tiled`; for
      `algorithm = three_pass` only (reload changes softmax only: the other
      ops get `recompute`).
    * `exp`: the vector exp, `fast` or `polynomial`.

    Example (a request, then what the mapping records for it on a
    1000-element f32 row with AVX-512):

    ```mlir
    softmax.softmax ins(%x : memref<64x1000xf32>) outs(%y : memref<64x1000xf32>)
        dimension(1) masked(zero) algorithm(three_pass)
        {softmax.strategy = #softmax.cpu_strategy<unroll = 2, three_pass = reload>}

    scf.parallel ... {softmax.strategy = #softmax.cpu_strategy<
        algorithm = three_pass, vector_width = 16, unroll = 2, block = 16,
        three_pass = reload, exp = fast>}
    ```
  }];
  let parameters = (ins
    Softmax_OptionalEnumParameter<Softmax_AlgorithmAttr,
        "three_pass, online or exp_pair">:$algorithm,
    Softmax_OptionalIntParameter<"f32 lanes per vector">:$vector_width,
    Softmax_OptionalIntParameter<"vectors folded per iteration">:$unroll,
    Softmax_OptionalIntParameter<"iterations per compensated block">:$block,
    Softmax_OptionalEnumParameter<Softmax_ThreePassVariant,
        "recompute, reload or tiled">:$three_pass,
    Softmax_OptionalEnumParameter<Softmax_VectorExp, "fast or polynomial">:$exp
  );
}

def Softmax_GPUStrategyAttr : Softmax_Attr<"GPUStrategy", "gpu_strategy"> {
  let summary = "how softmax-map-to-gpu spreads a row reduction over a GPU";
  let description = [{
    The strategy of a `softmax.softmax`, `softmax.log_softmax` or
    `softmax.logsumexp` on the GPU (docs/Passes/softmax-map-to-gpu.md). As
    `softmax.strategy` on such an op it is a per-op request: every
    parameter given replaces the pass options and the heuristic for that op,
    and a request the shape or the chip cannot honour is an error (the
    mapping checks what depends on them: the row length, the warp size,
    the threads per block). The mapping records the strategy it used, every
    parameter, as `softmax.strategy` on the `gpu.launch`.

    * `threads_per_row`: threads that cooperate on one row, a power of two.
    * `rows_per_block`: rows per block, at least 1 (more than 1 only when a
      row fits in a warp).
    * `vector_width`: elements per load and store, at least 1 (it must
      divide the row length; the heuristic picks the widest of at most 16
      bytes that does).
    * `cached_vectors`: vectors each thread keeps in registers between
      reading and writing the row; 0 streams the row from memory twice.
    * `unroll`: streamed rows (`cached_vectors = 0`): vectors each thread
      loads per iteration, all issued before any is used, so that a thread
      has `unroll` loads in flight; recorded only where the row streams.
    * `splits`: blocks that share one row, at least 1.
    * `split_merge`: how the blocks of a split row merge their states;
      recorded only where `splits` > 1. `global`: each block takes a ticket
      (so that the blocks of a row run together), publishes its state in
      global memory and spins until the row's other blocks have published
      theirs. `cluster` (sm_90 and later): the blocks of a row are one
      thread-block cluster, and each reads the others' states from their
      shared memory after a cluster barrier; no ticket, no workspace, no
      fence, at most 16 blocks (more than 8 is a non-portable cluster size,
      which the runtime allows at launch).
    * `reread`: streamed rows read again (`cached_vectors = 0` with
      `softmax` or `log_softmax`, or `three_pass`): the direction of each
      pass after the first. `forward` starts every pass at the row's
      start; `reverse` runs the second pass from the row's end (a third
      forward again), so that it first reads the bytes the pass before
      read last, which a row longer than its share of L2 still finds
      there. The mapping's default: reverse on NVIDIA, forward on CDNA.
      Recorded only where the row is read again.

    Example (a request, then the record):

    ```mlir
    softmax.softmax ins(%x : memref<64x8192xbf16>) outs(%y : memref<64x8192xbf16>)
        dimension(1) masked(zero) algorithm(online)
        {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, cached_vectors = 2>}

    gpu.launch ... {softmax.strategy = #softmax.gpu_strategy<
        threads_per_row = 512, rows_per_block = 1, vector_width = 8,
        cached_vectors = 2, splits = 1>}
    ```
  }];
  let parameters = (ins
    Softmax_OptionalIntParameter<"threads per row">:$threads_per_row,
    Softmax_OptionalIntParameter<"rows per block">:$rows_per_block,
    Softmax_OptionalIntParameter<"elements per access">:$vector_width,
    Softmax_OptionalIntParameter<"vectors kept per thread">:$cached_vectors,
    Softmax_OptionalIntParameter<"vectors loaded together">:$unroll,
    Softmax_OptionalIntParameter<"blocks per row">:$splits,
    Softmax_OptionalEnumParameter<Softmax_SplitMerge,
        "global or cluster">:$split_merge,
    Softmax_OptionalEnumParameter<Softmax_RereadOrder,
        "forward or reverse">:$reread
  );
}

def Softmax_AttentionCPUStrategyAttr
    : Softmax_Attr<"AttentionCPUStrategy", "attention_cpu_strategy"> {
  let summary = "how softmax-map-to-cpu maps softmax.attention";
  let description = [{
    The strategy of `softmax.attention` on the CPU (docs/Attention.md): an
    `scf.parallel` over query rows, each visiting its keys in blocks of
    `keys_per_block`, which is the vector width. As `softmax.strategy` on
    the op it is a per-op request; the mapping records it on its loop.

    * `vector_width`: f32 lanes per vector, a power of two in [1, 64].
    * `keys_per_block`: keys scored per step; always the vector width (a
      request may repeat it, not change it).

    Example:

    ```mlir
    softmax.attention ins(%q, %k, %v : ...) outs(%o : ...) masked(zero)
        {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 8>}

    scf.parallel ... {softmax.strategy = #softmax.attention_cpu_strategy<
        vector_width = 8, keys_per_block = 8>}
    ```
  }];
  let parameters = (ins
    Softmax_OptionalIntParameter<"f32 lanes per vector">:$vector_width,
    Softmax_OptionalIntParameter<"keys per block">:$keys_per_block
  );
}

def Softmax_AttentionGPUStrategyAttr
    : Softmax_Attr<"AttentionGPUStrategy", "attention_gpu_strategy"> {
  let summary = "how softmax-map-to-gpu maps softmax.attention";
  let description = [{
    The strategy of `softmax.attention` on the GPU's matrix units
    (docs/Attention.md, "GPU lowering"). As `softmax.strategy` on the op it
    is a per-op request for `mma`, `rows_per_warp`, `buffers`, `key_splits`,
    `packed_heads` and `stream_k`, which replace the pass options
    (`attention-f32-precision`, `attention-rows-per-warp`,
    `attention-buffers`, `attention-key-splits`, `attention-packed-heads`,
    `attention-stream-k`) for that op; the mapping records the first seven
    parameters, and `stream_k` where it runs stream-K, on its
    `gpu.launch`. `rows_per_block` and
    `keys_per_tile` follow from the others (warps per block are measured
    choices, tiles are 64 keys): a request may not give them.

    * `mma`: the matrix instruction: `m16n8k16` (f16, bf16 on NVIDIA),
      `m16n8k8.tf32x3` or `m16n8k8.tf32` (f32 on NVIDIA: 3xTF32, or one tf32
      product), `mfma16x16x16` (CDNA). A request may choose between the two
      f32 ones; any other must be what the chip and the element type run.
    * `rows_per_warp`: query rows per warp, 16 or 32 (32 NVIDIA only).
    * `rows_per_block`: query rows per block (rows per warp times warps).
    * `keys_per_tile`: keys per shared-memory tile.
    * `buffers`: shared-memory buffers per K/V tile, 1, 2 or 3 (2 and 3
      NVIDIA only; 3, two tiles in flight ahead of the one folded, not with
      a skip threshold).
    * `key_splits`: blocks that share one query tile's keys (split-KV,
      FlashDecoding): each folds a range of the keys into an f32 partial
      (O_s, lse_s), and a second kernel merges the partials through the
      state merge. 1 is no split; by default the cost model of
      `softmax-split-attention-keys` chooses, over the multiprocessors.
    * `packed_heads`: query heads that share a KV head and run in one
      query tile (GQA packing: the tile's rows are heads times query rows,
      so each K/V tile a block stages serves all of them). 1 is no packing;
      it must divide heads / kv_heads.
    * `stream_k`: stream-K blocks per query-head group (LeanAttention): the
      key tiles of the whole batch, laid end to end, are cut into this many
      equal chunks; a block folds the piece of each entry its chunk crosses
      into an f32 partial, and the merge kernel adds each entry's pieces.
      Ragged batches (`key_lengths`) get it by default; a request for
      `key_splits` asks for plain split-KV instead.
    * `tile_copy`: how K/V tiles reach shared memory on NVIDIA: `cp_async`
      (16-byte copies by every lane into padded rows) or `tma` (sm_90+: one
      bulk tensor copy per 64 x 64 box by one thread, 128-byte swizzle,
      completing on an mbarrier; the host encodes a tensor map of K and of
      V before the launch). On sm_90 the mapping takes `tma` for decode
      steps and for thresholded kernels, with two buffers (not with a page
      table, key lengths or stream-K), and records it only then; a request
      for `tma` that the op or chip cannot honour is an error.
    * `skip_values`: when a thresholded kernel on TMA tiles requests V of a
      key tile (recorded on thresholded TMA launches). `after_vote`: once
      the tile's vote says some warp folds it, so a skipped tile loads no
      V (what decode, bound by its reads, needs). `with_keys`: with the
      tile's K, as the dense kernel does; a skipped tile then saves its
      exponentials and P V but not its V bytes, and a warp-wide skip tile
      needs no block vote (one barrier per tile, the dense kernel's count,
      instead of two). Needs a skip threshold and TMA tiles (two buffers).
      The mapping's default: `with_keys` for warp tiles in blocks of 8
      warps on warpgroup scores (causal d 128 on sm_90a), `after_vote`
      elsewhere.

    Example:

    ```mlir
    softmax.attention ins(%q, %k, %v : ...) outs(%o : ...) masked(zero)
        {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16>}

    gpu.launch ... {softmax.strategy = #softmax.attention_gpu_strategy<
        mma = m16n8k16, rows_per_warp = 16, rows_per_block = 64,
        keys_per_tile = 64, buffers = 1, key_splits = 8, packed_heads = 4>}
    ```
  }];
  let parameters = (ins
    Softmax_OptionalEnumParameter<Softmax_MatrixInstruction,
        "the matrix instruction">:$mma,
    Softmax_OptionalIntParameter<"query rows per warp">:$rows_per_warp,
    Softmax_OptionalIntParameter<"query rows per block">:$rows_per_block,
    Softmax_OptionalIntParameter<"keys per tile">:$keys_per_tile,
    Softmax_OptionalIntParameter<"buffers per K/V tile">:$buffers,
    Softmax_OptionalIntParameter<"blocks per query tile's keys">:$key_splits,
    Softmax_OptionalIntParameter<"query heads per query tile">:$packed_heads,
    Softmax_OptionalIntParameter<"stream-K blocks per query-head group">:
        $stream_k,
    Softmax_OptionalEnumParameter<Softmax_TileCopy,
        "cp_async or tma">:$tile_copy,
    Softmax_OptionalEnumParameter<Softmax_SkipValues,
        "after_vote or with_keys">:$skip_values
  );
}

def Softmax_CrossEntropyGPUStrategyAttr
    : Softmax_Attr<"CrossEntropyGPUStrategy", "cross_entropy_gpu_strategy"> {
  let summary = "how softmax-map-to-gpu mapped softmax.linear_cross_entropy";
  let description = [{
    The plan of the fused linear cross-entropy's logit kernel
    (docs/CrossEntropy.md, "GPU kernel"), recorded as `softmax.strategy` on
    its `gpu.launch`. Only `vocab_splits` can be chosen, by the
    `cross-entropy-vocab-splits` option (the pass, the pipelines and
    `transform.softmax.map_to_gpu`'s `cross_entropy_vocab_splits`); the
    tiles are fixed.

    * `mma`: the matrix instruction (`m16n8k16` on NVIDIA, `wgmma.m64nNk16`
      on sm_90a with `classes_per_tile` as N, `mfma16x16x16` on CDNA; f16
      and bf16).
    * `rows_per_block`: tokens per block.
    * `classes_per_tile`: classes per tile of logits folded at once.
    * `k_tile`: hidden features per shared-memory slice.
    * `stages`: shared-memory buffers per operand (slices in flight).
    * `vocab_splits`: contiguous ranges of class tiles, one per block of a
      token tile, merged per token by a second kernel. Absent when the
      token count is known only at run time: the host code then takes
      enough ranges for one wave of blocks.

    Example:

    ```mlir
    gpu.launch ... {softmax.strategy = #softmax.cross_entropy_gpu_strategy<
        mma = m16n8k16, rows_per_block = 128, classes_per_tile = 128,
        k_tile = 32, stages = 2, vocab_splits = 4>}
    ```
  }];
  let parameters = (ins
    Softmax_OptionalEnumParameter<Softmax_MatrixInstruction,
        "the matrix instruction">:$mma,
    Softmax_OptionalIntParameter<"tokens per block">:$rows_per_block,
    Softmax_OptionalIntParameter<"classes per logit tile">:$classes_per_tile,
    Softmax_OptionalIntParameter<"hidden features per slice">:$k_tile,
    Softmax_OptionalIntParameter<"buffers per operand">:$stages,
    Softmax_OptionalIntParameter<"class ranges">:$vocab_splits
  );
}

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXATTRS_TD
