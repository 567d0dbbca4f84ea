//===- Passes.td - softmax dialect passes --------------------*- tablegen -*-===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_PASSES_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SoftmaxRaise : Pass<"softmax-raise"> {
  let summary = "Raise linalg softmax, log-softmax, log-sum-exp, attention and linear cross-entropy to the softmax dialect";
  let description = [{
    Rewrites `linalg.softmax` and every linalg spelling of
    `exp(x - max x) / sum exp(x - max x)` (also as a product with the
    reciprocal), `(x - max x) - log sum exp(x - max x)` (also `x - lse`) and
    `max x + log sum exp(x - max x)` into `softmax.softmax`,
    `softmax.log_softmax` and `softmax.logsumexp`. Matching is by what an
    element computes, not by op shapes: it looks through fused or split
    elementwise ops (generic, named or `linalg.map`), broadcasts (dropped or
    keepdim constant-0 map results), transposes, unit-dimension and static
    `tensor.expand_shape` / `collapse_shape`, extra results of a reduction
    that are never read (torch-mlir's argmax next to its max, also written
    as `select(x > acc, x, acc)`), casts of constants, and a final rounding
    to the result type; every part (max, exp, sum) is checked against the
    others by value, so a max computed twice still matches. The reduction
    may be over any dimension.

    Semantics are kept exactly: every form it matches computes NaN for a row
    of all `-inf` (`-inf - -inf`, or `0 / 0`), so the raised softmax and
    log-softmax say `masked(nan)`; a log-sum-exp seeded with the lowest
    finite value says `masked(zero)` (`-inf`). Forms that compute something
    else (no max subtraction, a max over another dimension, an intermediate
    used elsewhere) are left alone.

    Attention graphs become `softmax.attention`: `S = Q K^T` (a batched
    matmul of rank 2 to 4 into zeros, K transposed by its indexing maps or
    by a transpose), `c * S` or `S / c` with a constant `c` (or Q scaled
    before the matmul), an optional additive mask broadcast over batch and
    heads, a softmax over the last dimension (`linalg.softmax`, or a
    decomposed form, raised first), and `P V`. 3-D `[B*H, N, D]` forms are
    rewritten on `[1, B*H, N, D]` views; K and V repeated over heads as
    PyTorch's `repeat_kv` does become grouped-query operands.

    The cross-entropy of a linear classifier becomes
    `softmax.linear_cross_entropy` (torch-mlir's
    `F.cross_entropy(h @ W.T + b, t)` after PyTorch's decomposition of
    `nll_loss_forward`): logits `h W^T` (a matmul into zeros of `h` and a
    transposed `W`, or through transposing maps) plus an optional bias over
    the classes, a log-softmax over the classes (raised first), and the
    NLL of the targets: `select(t != ignore, -logp[n, t'], 0)` with `t'`
    the target or the target made safe by the same select, then nothing
    (`reduction(none)`), a sum (`sum`), or the sum over the count of kept
    tokens (`mean`). The gather and its bounds asserts go with it: a target
    out of range gives NaN (the op's rule) instead of the front end's
    assert.

    Every softmax-shaped computation (one that reaches a sum of `exp`),
    every attention-shaped one (a softmax times a matrix) and every
    cross-entropy-shaped one (a gather of log-probabilities) that is not
    raised
    is counted in the pass statistics (`-mlir-pass-statistics`, where LLVM
    is built to print them; `remark-counts=true` reports the counts as a
    remark) and, with `remarks=true`, reported as a remark at its location
    with the reason,
    e.g. `softmax-raise: softmax-shaped computation not raised: the max is
    taken over other values than the ones it is subtracted from`
    (docs/Passes/softmax-raise.md).

    Example: with `%x : tensor<2x16xf32>`,

    ```mlir
    %y = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>)
                                     outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
    ```

    becomes

    ```mlir
    %y = softmax.softmax ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>)
                         dimension(1) masked(nan)
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark with the reason for every softmax-, attention- "
           "or cross-entropy-shaped computation that is not raised">,
    Option<"remarkCounts", "remark-counts", "bool", /*default=*/"false",
           "Emit one remark with the number of candidates and of raised "
           "computations (the statistics, which Debian's LLVM does not "
           "print)">,
  ];
  let statistics = [
    Statistic<"numCandidates", "candidates",
              "Softmax-, log-softmax-, log-sum-exp- and attention-shaped "
              "computations seen">,
    Statistic<"numRaised", "raised", "Computations raised to softmax ops">,
    Statistic<"numAttentionNotRaised", "attention-not-raised",
              "Attention-shaped computations left unraised">,
  ];
  let dependentDialects = ["::mlir::softmax::SoftmaxDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def SoftmaxSelectAlgorithm : Pass<"softmax-select-algorithm"> {
  let summary = "Choose the reduction algorithm of every softmax op";
  let description = [{
    The one resolver of `algorithm(auto)`: replaces it on
    `softmax.softmax`, `softmax.log_softmax` and `softmax.logsumexp` with a
    concrete algorithm, from a cost model
    (`docs/Passes/softmax-select-algorithm.md`, exported as
    `selectAlgorithm`) over the target and the row length in bytes:

    * `cpu`: rows that fit in the L2 cache (`row-bytes <= l2-bytes / 2`) use
      `three_pass`, whose max pass leaves the row in cache for the next two
      reads; longer rows use `exp_pair`, which reads the row twice instead
      of three times and needs no max pass. A dynamic row length counts as
      long.
    * `gpu`: `online` (one read for the state; the write pass re-reads).

    `force` overrides the model for every op, including ops that already
    name an algorithm. `softmax.attention` has no algorithm to choose and
    is left as it is, unless `attention-unified-max=p` asks for
    `algorithm(unified_max, phi = p)` on every attention op (phi from a
    model's calibration; docs/Attention.md, "Unified max"): an op with a
    skip threshold cannot take it and keeps the online max, with a warning.
    Example: `--softmax-select-algorithm="attention-unified-max=5.0"`.

    The pipelines run this pass before their mapping (`target=cpu` in
    `softmax-to-cpu`, `target=gpu` in `softmax-to-nvvm` and
    `softmax-to-rocdl`). A pass that meets an op still marked `auto`
    resolves it through the same `selectAlgorithm` with the target its
    description names: `softmax-decompose` its `algorithm-target` (`cpu`
    by default), `softmax-map-to-cpu` `cpu`, `softmax-map-to-gpu` `gpu`.

    Example: `--softmax-select-algorithm="target=cpu"` turns
    `softmax.softmax ... dimension(1) masked(zero)` on `tensor<64x1048576xf32>`
    into `... masked(zero) algorithm(exp_pair)`.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Target of the cost model: cpu or gpu">,
    Option<"force", "force", "std::string", /*default=*/"\"\"",
           "Use this algorithm everywhere: three_pass, online or exp_pair">,
    Option<"l2Bytes", "l2-bytes", "int64_t",
           /*default=*/"::mlir::softmax::kDefaultL2Bytes",
           "Size of the L2 cache of the CPU target in bytes (1 or more)">,
    Option<"attentionUnifiedMax", "attention-unified-max", "std::string",
           /*default=*/"\"\"",
           "Give every softmax.attention algorithm(unified_max, phi = this "
           "finite number); empty (the default) leaves attention as it is">
  ];
  let dependentDialects = ["::mlir::softmax::SoftmaxDialect"];
}

def SoftmaxDecompose : Pass<"softmax-decompose"> {
  let summary = "Lower softmax ops to state ops, then to linalg, arith and math";
  let description = [{
    Two steps, each an exported pattern set:

    1. Semantic ops become state ops: `softmax.partial` from the identity
       state, then `softmax.normalize` (softmax, log_softmax) or
       `softmax.lse` (logsumexp). An op still marked `algorithm(auto)`
       first gets the choice of `softmax-select-algorithm`'s cost model
       (the same exported `selectAlgorithm`) for the target
       `algorithm-target` names, `cpu` unless told otherwise: what this
       pass produces (linalg on arith and math) is the CPU pipeline's
       scalar path. The pipelines run `softmax-select-algorithm` first, so
       no `auto` reaches this pass from them.
       `softmax.attention`
       becomes its reference decomposition: the masked scores
       `S = scale * Q K^T` by a `linalg.generic` contraction, their state
       by `softmax.partial` (online), `exp(S - m) V` by a second
       contraction, then `O / l` and `softmax.lse`, all in f32. With
       `attention-key-tile-size=T`, the keys are split into tiles of T
       inside an `scf.for` that carries `(m, l, O)` and merges every
       tile's state and weighted values with `softmax.merge ... acc(...)`
       (the last tile may be shorter). An attention the decomposition
       cannot take (on memrefs, or with a dynamic `H / Hkv`) fails the
       pass with the reason.
       `softmax.linear_cross_entropy` becomes an `scf.for` over tiles of
       `vocab_tile` classes whose `[N, Vt]` f32 logits (a contraction with
       a slice of the classifier) fold into each token's
       `softmax.partial` state, then `softmax.lse`, the target logits and
       the reduction (docs/CrossEntropy.md); no `N x V` tensor is built.
    2. With `reduction-tile-size=N`, every `softmax.partial` is tiled along
       its reduction dimension by N through its TilingInterface: an `scf.for`
       carries the state as its destination, so the tiled reduction equals
       the untiled one. `softmax.normalize` is tiled the same way. The last
       tile may be partial; no multiple of N is required.
    3. State ops become `linalg.generic` ops over `arith` and `math`, one
       lowering per algorithm.

    `to-state=true` stops after steps 1 and 2.

    Example:

    ```mlir
    %y = softmax.softmax ins(%x : tensor<4x128xf32>) outs(%e : tensor<4x128xf32>)
                         dimension(1) masked(zero) algorithm(online)
    ```

    becomes (step 1)

    ```mlir
    %m, %l = softmax.partial ins(%x : tensor<4x128xf32>)
                             outs(%m0, %l0 : tensor<4xf32>)
                             dimension(1) algorithm(online)
    %y = softmax.normalize ins(%x, %m, %l : tensor<4x128xf32>, tensor<4xf32>)
                           outs(%e : tensor<4x128xf32>)
                           dimension(1) kind(softmax) state(max) masked(zero)
    ```
  }];
  let options = [
    Option<"reductionTileSize", "reduction-tile-size", "int64_t",
           /*default=*/"0",
           "Tile the reduction dimension by this size (0: do not tile)">,
    Option<"toState", "to-state", "bool", /*default=*/"false",
           "Stop after producing (and tiling) state ops">,
    Option<"attentionKeyTileSize", "attention-key-tile-size", "int64_t",
           /*default=*/"0",
           "Tile softmax.attention along its keys by this size, merging the "
           "tiles' states (0: decompose over all keys at once)">,
    Option<"algorithmTarget", "algorithm-target", "std::string",
           /*default=*/"\"cpu\"",
           "Cost model target (cpu or gpu) for ops still marked "
           "algorithm(auto), as softmax-select-algorithm's target">
  ];
  let dependentDialects = [
    "::mlir::softmax::SoftmaxDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::affine::AffineDialect"
  ];
}

def SoftmaxSplitAttentionKeys : Pass<"softmax-split-attention-keys"> {
  let summary = "Split softmax.attention along its keys into partial attentions merged by softmax.merge";
  let description = [{
    Split-KV (FlashDecoding) as IR. Every `softmax.attention` on tensors is
    replaced by partial attentions over consecutive ranges of its keys,
    each yielding its f32 output `O_s` and log-sum-exp `L_s`
    (`masked(zero)`: a row that sees none of a split's keys gets `O_s = 0`,
    `L_s = -inf`). `(L_s, 1)` is the split's state (the identity for such
    a row), `O_s` its accumulator; `softmax.merge ... acc(...)` folds the
    splits, and the decomposition's normalization writes the op's output
    (and lse) from the merged state, with the op's `masked` value for a
    row that saw no key at all.

    Splits hold `ceil(Nk / S)` keys counted back from the last key (the
    first split takes what is left, possibly nothing). With `causal`, a
    split holds at least `Nq - 1` keys, so every split but the last lies
    left of every row's diagonal and the last keeps the op's bottom-right
    alignment. A paged op's splits take whole pages (the size rounded up
    to a multiple of the page size): each partial reads the whole caches
    through its own columns of the page table, and the count is capped at
    the page count.

    `splits=S` forces the count; `splits=0` takes it from the cost model
    (`chooseAttentionKeySplits`, docs/Attention.md): with `B H
    ceil(Nq / rows-per-block)` blocks on `parallel-units` units, no split
    once they fill 4/5 of the units, otherwise the fewest splits whose last
    wave is within 85% of the best efficiency, keeping
    `min-keys-per-split` keys per split. Dynamic shapes are not split by
    the model. An attention with a window, on memrefs, with a dynamic
    `H / Hkv` or a dynamic page size fails the pass with the reason; with a count of 1 it is left
    as it is.

    A skip threshold (BLASST) goes to every partial, with its tile, as
    `lambda` (the `scale_factor` form's `a / Nk` taken over all the op's
    keys): each split folds its key tiles from its own first key, so the
    first tile of every split is never skipped, as the deployed split
    kernels do. `skip_counts` is the sum of the partials' counts.

    Example (`splits=2`):

    ```mlir
    %o = softmax.attention ins(%q, %k, %v : tensor<1x8x1x64xf32>,
             tensor<1x8x4096x64xf32>, tensor<1x8x4096x64xf32>)
           outs(%init : tensor<1x8x1x64xf32>) masked(zero)
    ```

    becomes

    ```mlir
    %k0 = tensor.extract_slice %k[0, 0, 0, 0] [1, 8, 2048, 64] [1, 1, 1, 1] ...
    %o0, %l0 = softmax.attention ins(%q, %k0, %v0 : ...)
                   outs(%e0, %f0 : tensor<1x8x1x64xf32>, tensor<1x8x1xf32>)
                   masked(zero) scale(1.250000e-01)
    %o1, %l1 = softmax.attention ins(%q, %k1, %v1 : ...) ...
    // (m_s, l_s) = (L_s, 1), or (-FLT_MAX, 0) where L_s = -inf (linalg.generic)
    %m, %l, %acc = softmax.merge (%m0, %s0), (%m1, %s1)
        acc(%o0, %o1 : tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>
            -> tensor<1x8x1x64xf32>) state(max) : tensor<1x8x1xf32>
    // %o = %acc / %l (linalg.generic; the masked value where %l = 0)
    ```
  }];
  let options = [
    Option<"splits", "splits", "int64_t", /*default=*/"0",
           "Key splits per attention: 1 to 1024 (0: the cost model's)">,
    Option<"parallelUnits", "parallel-units", "int64_t", /*default=*/"132",
           "The cost model's parallel units (SMs or threads): 1 to 65536">,
    Option<"rowsPerBlock", "rows-per-block", "int64_t", /*default=*/"64",
           "The cost model's query rows per kernel block: 1 to 1024">,
    Option<"minKeysPerSplit", "min-keys-per-split", "int64_t",
           /*default=*/"256",
           "The cost model's fewest keys per split: 1 to 2^30">
  ];
  let dependentDialects = [
    "::mlir::softmax::SoftmaxDialect", "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_PASSES_TD
