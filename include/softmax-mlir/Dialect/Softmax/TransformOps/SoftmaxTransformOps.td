//===- SoftmaxTransformOps.td - softmax transform ops --------*- tablegen -*-===//
//
// The transform-dialect extension of softmax-mlir: the steps of the
// pipelines (algorithm choice, CPU and GPU mapping, raising and
// decomposition patterns) as transform ops, so that a transform script can
// apply them to the ops it selects.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMOPS_SOFTMAXTRANSFORMOPS_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMOPS_SOFTMAXTRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/IR/TransformTypes.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

// A string attribute restricted to `values`. Upstream's ODS has enum
// attributes but no constraint for a plain string out of a list, which is
// what the pass options these attributes mirror are.
class Softmax_StrOneOf<list<string> values> : AttrConstraint<
    Or<!foreach(v, values,
           CPred<"::llvm::cast<::mlir::StringAttr>($_self).getValue() == \""
                 # v # "\"">)>,
    "whose value is one of " # !interleave(values, ", ")>;

class Softmax_OptionalStr<list<string> values>
    : OptionalAttr<ConfinedAttr<StrAttr, [Softmax_StrOneOf<values>]>>;

// A size or count that, when given, fixes a strategy field; absent, the
// mapping's heuristic chooses it.
def Softmax_OptionalSize : OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>;

//===----------------------------------------------------------------------===//
// select_algorithm
//===----------------------------------------------------------------------===//

def SoftmaxSelectAlgorithmOp : TransformDialectOp<"softmax.select_algorithm",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformOpInterface, TransformEachOpTrait]> {
  let summary = "Choose the reduction algorithm of softmax ops";
  let description = [{
    Runs the algorithm cost model of `softmax-select-algorithm` on every op
    `ops` points to: a `softmax.softmax`, `softmax.log_softmax` or
    `softmax.logsumexp` still marked `algorithm(auto)` gets the model's
    choice for `target` (`cpu`, the default, or `gpu`); with `force`, every
    op gets that algorithm (`three_pass`, `online` or `exp_pair`). `l2_bytes`
    is the L2 size of the CPU model (default 1 MiB); it is an error with the
    GPU model or with `force`, which do not read it.

    The ops are changed in place: the handle stays valid and nothing is
    returned. A payload op of another kind is a silenceable error.

    Example:

    ```mlir
    %ops = transform.structured.match ops{["softmax.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %ops {target = "cpu", l2_bytes = 65536}
        : !transform.any_op
    ```

    turns `softmax.softmax ins(%x : tensor<64x32768xf32>) ...
    masked(zero)` into `... masked(zero) algorithm(exp_pair)`: a row of
    128 KiB is longer than half of the assumed 64 KiB L2.
  }];

  let arguments = (ins TransformHandleTypeInterface:$ops,
                       DefaultValuedAttr<ConfinedAttr<StrAttr,
                           [Softmax_StrOneOf<["cpu", "gpu"]>]>,
                           "\"cpu\"">:$target,
                       Softmax_OptionalStr<["three_pass", "online",
                                            "exp_pair"]>:$force,
                       Softmax_OptionalSize:$l2_bytes);
  let assemblyFormat = "$ops attr-dict `:` type($ops)";
  let hasVerifier = 1;

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

//===----------------------------------------------------------------------===//
// set_unified_max
//===----------------------------------------------------------------------===//

def SoftmaxSetUnifiedMaxOp : TransformDialectOp<"softmax.set_unified_max",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     TransformOpInterface, TransformEachOpTrait]> {
  let summary = "Give attention ops a unified max";
  let description = [{
    Sets `algorithm(unified_max, phi = p)` on every `softmax.attention`
    `ops` points to (replacing a phi one had), as
    `softmax-select-algorithm="attention-unified-max=p"` does for a whole
    module: the terms are taken at the fixed offset `phi`, and rows whose
    sum leaves the safe range are recomputed online (docs/Attention.md,
    "Unified max"). `phi` must be finite. An op of another kind, or one
    with a skip threshold (whose rule needs the running max), is a
    silenceable error and is left as it is.

    The ops are changed in place: the handle stays valid and nothing is
    returned.

    Example:

    ```mlir
    %ops = transform.structured.match ops{["softmax.attention"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.softmax.set_unified_max %ops {phi = 5.0 : f32} : !transform.any_op
    ```
  }];

  let arguments = (ins TransformHandleTypeInterface:$ops, F32Attr:$phi);
  let assemblyFormat = "$ops attr-dict `:` type($ops)";

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

//===----------------------------------------------------------------------===//
// split_attention_keys
//===----------------------------------------------------------------------===//

def SoftmaxSplitAttentionKeysOp : TransformDialectOp<
    "softmax.split_attention_keys",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     DeclareOpInterfaceMethods<TransformOpInterface>,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Split softmax.attention ops along their keys (split-KV)";
  let description = [{
    Splits every `softmax.attention` (on tensors) that `target` points to
    into partial attentions over consecutive key ranges whose outputs and
    lse are merged by `softmax.merge`, exactly as
    `softmax-split-attention-keys` does (docs/Attention.md, "Split-KV"),
    and returns a handle to the partial attentions, in payload order and
    key order within each op: these are what a later
    `transform.softmax.map_to_cpu` or `map_to_gpu` maps.

    `splits` forces the count; without it the cost model chooses, with
    `parallel_units`, `rows_per_block` and `min_keys_per_split` as the
    pass's options (defaults 132, 64, 256). An op it leaves whole (a count
    of 1) is returned itself.

    `target` is consumed. A payload op that is not a `softmax.attention` is
    a silenceable error; an attention the split refuses (a window, memrefs) a
    definite one, with the reason on the op.

    Example:

    ```mlir
    %att = transform.structured.match ops{["softmax.attention"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %parts = transform.softmax.split_attention_keys %att {splits = 4}
        : (!transform.any_op) -> !transform.any_op
    ```
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       Softmax_OptionalSize:$splits,
                       Softmax_OptionalSize:$parallel_units,
                       Softmax_OptionalSize:$rows_per_block,
                       Softmax_OptionalSize:$min_keys_per_split);
  let results = (outs TransformHandleTypeInterface:$parts);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// map_to_cpu
//===----------------------------------------------------------------------===//

def SoftmaxMapToCPUOp : TransformDialectOp<"softmax.map_to_cpu",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     TransformOpInterface, TransformEachOpTrait,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Map softmax ops on buffers onto CPU vector loops";
  let description = [{
    Maps every op `target` points to, a `softmax.softmax`,
    `softmax.log_softmax`, `softmax.logsumexp`, `softmax.attention` or
    `softmax.topk` on memrefs (after bufferization), onto the `scf.parallel`
    of vector loops
    that `softmax-map-to-cpu` builds, and returns a handle to those loops
    (one per op, in order). The strategy is recorded on each loop as
    `softmax.strategy = #softmax.cpu_strategy<...>`.

    The attributes are the options of `softmax-map-to-cpu`, and build the
    same target and strategy: `vector_width` (f32 lanes), `unroll`,
    `block`, `three_pass` (`auto`, `recompute`, `reload` or `tiled`),
    `l1_bytes` and `l2_bytes` (the cache sizes the heuristic assumes), `exp`
    (`fast` or `polynomial`). An absent attribute leaves the choice to the
    heuristic or the host, like the option's 0; a given size must be
    positive.

    `target` is consumed. What the mapping cannot honour for a payload op
    (a layout, an element type, a vector width that is not a power of two)
    is a silenceable error that names the op, and the op is left as it was.

    Example:

    ```mlir
    %ops = transform.structured.match ops{["softmax.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %loops = transform.softmax.map_to_cpu %ops {vector_width = 8, unroll = 2}
        : (!transform.any_op) -> !transform.any_op
    ```

    turns `softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : ...)
    dimension(1) masked(zero) algorithm(three_pass)` into an `scf.parallel`
    over the 4 rows with `softmax.strategy = #softmax.cpu_strategy<algorithm =
    three_pass, vector_width = 8, unroll = 2, block = 16, ...>`.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       Softmax_OptionalSize:$vector_width,
                       Softmax_OptionalSize:$unroll,
                       Softmax_OptionalSize:$block,
                       Softmax_OptionalStr<["auto", "recompute", "reload",
                                            "tiled"]>:$three_pass,
                       Softmax_OptionalSize:$l1_bytes,
                       Softmax_OptionalSize:$l2_bytes,
                       Softmax_OptionalStr<["fast", "polynomial"]>:$exp);
  let results = (outs TransformHandleTypeInterface:$loops);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

//===----------------------------------------------------------------------===//
// map_to_gpu
//===----------------------------------------------------------------------===//

def SoftmaxMapToGPUOp : TransformDialectOp<"softmax.map_to_gpu",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     TransformOpInterface, TransformEachOpTrait,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Map softmax ops on buffers onto GPU kernels (gpu.launch)";
  let description = [{
    Maps every op `target` points to, a `softmax.softmax`,
    `softmax.log_softmax`, `softmax.logsumexp`, `softmax.attention`,
    `softmax.topk` or `softmax.linear_cross_entropy` on memrefs (after
    bufferization), onto the `gpu.launch` that
    `softmax-map-to-gpu` builds, and returns a handle to the launches (one
    per op, in order: the one that records the op's strategy, where an
    attention also gets a launch that zeroes its skip counts or one that
    merges its split-KV partials). The strategy is recorded on each launch as
    `softmax.strategy`.

    The attributes are the options of `softmax-map-to-gpu`, and build the
    same target and strategy: `chip` (`sm_80`, `sm_90`, the default,
    `gfx90a` or `gfx942`), `threads_per_row`, `rows_per_block`,
    `vector_width`, `cached_vectors`, `unroll`, `splits`, and for attention
    `attention_rows_per_warp`, `attention_buffers`,
    `attention_key_splits`, `attention_packed_heads`, `attention_stream_k` and
    `attention_f32_precision` (`exact` or `tf32`, NVIDIA only), and for
    `softmax.linear_cross_entropy` `cross_entropy_vocab_splits`. An absent
    attribute leaves the choice to the heuristic, like the option's 0; a
    given size must be positive.

    `strategy`, when given, is set on each payload op as its per-op request
    (`softmax.strategy`): a `#softmax.gpu_strategy<...>` such as
    `#softmax.gpu_strategy<threads_per_row = 512, cached_vectors = 2>` for a
    softmax, log_softmax or logsumexp, a `#softmax.attention_gpu_strategy<...>`
    for an attention; it wins over the other attributes as it does over the
    pass options. A strategy of the other kind for a payload op is a
    silenceable error.

    `target` is consumed. What the mapping cannot honour for a payload op
    (a reduction that is not innermost, a vector width that does not divide
    the row) is a silenceable error that names the op, and the op is left
    as it was.

    Example:

    ```mlir
    %ops = transform.structured.match ops{["softmax.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %ops {chip = "sm_90",
        strategy = #softmax.gpu_strategy<threads_per_row = 256,
                                         cached_vectors = 2>}
        : (!transform.any_op) -> !transform.any_op
    ```

    turns `softmax.softmax ins(%x : memref<64x2048xf32>) ... dimension(1)
    masked(zero) algorithm(online)` into a `gpu.launch` of 64 blocks of 256
    threads, each thread keeping two vectors of 4 floats of its row.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       OptionalAttr<StrAttr>:$chip,
                       Softmax_OptionalSize:$threads_per_row,
                       Softmax_OptionalSize:$rows_per_block,
                       Softmax_OptionalSize:$vector_width,
                       Softmax_OptionalSize:$cached_vectors,
                       Softmax_OptionalSize:$unroll,
                       Softmax_OptionalSize:$splits,
                       Softmax_OptionalSize:$attention_rows_per_warp,
                       Softmax_OptionalSize:$attention_buffers,
                       Softmax_OptionalSize:$attention_key_splits,
                       Softmax_OptionalSize:$attention_packed_heads,
                       Softmax_OptionalSize:$attention_stream_k,
                       Softmax_OptionalSize:$cross_entropy_vocab_splits,
                       Softmax_OptionalStr<["exact", "tf32"]>:
                           $attention_f32_precision,
                       OptionalAttr<AnyAttr>:$strategy);
  let results = (outs TransformHandleTypeInterface:$launches);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

//===----------------------------------------------------------------------===//
// Pattern descriptors
//===----------------------------------------------------------------------===//

def ApplySoftmaxRaisePatternsOp : TransformDialectOp<
    "apply_patterns.softmax.raise",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "The patterns of softmax-raise";
  let description = [{
    Inside `transform.apply_patterns`: the patterns of `softmax-raise`
    (populateSoftmaxRaisePatterns), which turn `linalg.softmax`, the
    decomposed linalg forms of softmax, log_softmax and logsumexp, linalg
    attention chains (Q K^T, scale, mask, softmax, P V) and the
    cross-entropy of a linear classifier (h W^T + b, log_softmax, the NLL
    of the targets) on tensors into the semantic ops of the softmax
    dialect. The pass's remarks on
    what was not raised are the pass's only.

    Example:

    ```mlir
    %f = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.raise
    } : !transform.any_op
    ```

    turns `linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) ...` into
    `softmax.softmax ins(%x : tensor<4x8xf32>) ... dimension(1)
    masked(nan)` (linalg.softmax's value for fully masked rows).
  }];
  let assemblyFormat = "attr-dict";
}

def ApplySoftmaxDecomposePatternsOp : TransformDialectOp<
    "apply_patterns.softmax.decompose",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Semantic softmax ops to state ops (softmax-decompose, step 1)";
  let description = [{
    Inside `transform.apply_patterns`: the first step of `softmax-decompose`
    (populateSoftmaxExpandPatterns). Every `softmax.softmax`,
    `softmax.log_softmax` and `softmax.logsumexp` on tensors becomes a
    `softmax.partial` followed by `softmax.normalize` or `softmax.lse`; an
    op still marked `auto` first gets the CPU cost model's algorithm. A
    `softmax.linear_cross_entropy` becomes its loop over vocabulary tiles
    around `softmax.partial` (populateSoftmaxCrossEntropyDecomposePatterns).
    Ops on memrefs are not matched (decompose before bufferization).
    `transform.apply_patterns.softmax.state_to_linalg` takes the state ops
    on to linalg.

    Example:

    ```mlir
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.decompose
    } : !transform.any_op
    ```

    turns `%y = softmax.softmax ins(%x : tensor<4x128xf32>) ...
    dimension(1) masked(zero) algorithm(online)` into
    `%m, %l, %c = softmax.partial ins(%x ...) ... algorithm(online)` and
    `%y = softmax.normalize ins(%x, %m, %l ...) ... kind(softmax)`.
  }];
  let assemblyFormat = "attr-dict";
}

def ApplySoftmaxStateToLinalgPatternsOp : TransformDialectOp<
    "apply_patterns.softmax.state_to_linalg",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "State ops to linalg (softmax-decompose, last step)";
  let description = [{
    Inside `transform.apply_patterns`: the last step of `softmax-decompose`
    (populateSoftmaxStateToLinalgPatterns). `softmax.partial`,
    `softmax.normalize`, `softmax.lse` and `softmax.merge` become
    `linalg.generic` ops over `arith` and `math`, one lowering per
    algorithm.

    Example:

    ```mlir
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.decompose
      transform.apply_patterns.softmax.state_to_linalg
    } : !transform.any_op
    ```

    leaves no softmax op in `%f`: a `softmax.softmax` on tensors becomes
    `linalg.fill` and `linalg.generic` ops.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMOPS_SOFTMAXTRANSFORMOPS_TD
