//===- CrossEntropyOps.td - fused linear cross-entropy -------*- tablegen -*-===//
//
// softmax.linear_cross_entropy: the loss of a classifier over a vocabulary,
// without the N x V logits (Cut Cross-Entropy, arXiv 2411.09009).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_CROSSENTROPYOPS_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_CROSSENTROPYOPS_TD

def Softmax_CEInput : AnyTypeOf<[RankedTensorOf<[F16, BF16, F32]>,
                                 MemRefOf<[F16, BF16, F32]>],
    "ranked tensor or memref of f16, bf16 or f32">;
def Softmax_CETargets : AnyTypeOf<[RankedTensorOf<[I32, I64]>,
                                   MemRefOf<[I32, I64]>],
    "ranked tensor or memref of i32 or i64">;
def Softmax_CECounts : AnyTypeOf<[RankedTensorOf<[I64]>, MemRefOf<[I64]>],
    "ranked tensor or memref of i64">;
def Softmax_CEF32 : AnyTypeOf<[RankedTensorOf<[F32]>, MemRefOf<[F32]>],
    "ranked tensor or memref of f32">;

def Softmax_LinearCrossEntropyOp : Softmax_Op<"linear_cross_entropy", [
    AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    // hidden, classifier, targets, loss_init.
    Softmax_RequiredOperandSegments<"0, 1, 2, 4">]> {
  let summary = "cross-entropy of a linear classifier, logits never stored";
  let description = [{
    The loss of classifying each of `N` tokens among `V` classes, with the
    logits `z = h W^T (+ bias)` of `hidden` `[N, D]` and `classifier`
    `[V, D]` (PyTorch's `F.cross_entropy(h @ W.T + b, t)`), computed without
    an `N x V` buffer: the vocabulary is folded tile by tile (`vocab_tile`
    classes at a time) into each token's online state `(m, l)`
    (`softmax.partial`), and the target's logit is a dot of `h_n` with row
    `t_n` of `classifier`. For token `n` with target `t_n`:

    ```
    z_nv  = s tanh((h_n . W_v + b_v) / s)   with softcap(s), else h_n . W_v + b_v
    lse_n = log sum_v exp(z_nv)
    loss_n = lse_n - z_n,t_n + c lse_n^2    (z_loss(c); c = 0 without it)
    ```

    A token whose target is `ignore_index` has loss 0 and is left out of
    the mean; a target outside `[0, V)` that is not `ignore_index` gives a
    NaN loss (PyTorch raises; an op cannot, and NaN cannot go unnoticed).
    `reduction(none)` writes the `[N]` losses, `sum` their sum and `mean`
    their sum over the count of tokens not ignored (0 / 0 = NaN when every
    token is ignored, as PyTorch gives). The optional `lse` init receives
    `lse_n` for every token (what a backward pass recomputes the
    probabilities from). The optional `class_max` init `[N, ceil(V / 256)]`
    receives each token's largest logit in each group of 256 classes
    (classes `256 g` to `256 g + 255`, rounded to f32 as the logits are):
    what lets `softmax.linear_cross_entropy_grad` skip recomputing the
    tiles its filter would drop. Logits, states and losses are f32 whatever
    the input type; `hidden`, `classifier` and `bias` share one element type
    (f16, bf16 or f32), the targets are i32 or i64.

    Example:

    ```mlir
    %loss, %lse = softmax.linear_cross_entropy
        ins(%h, %w, %t : tensor<8192x2048xbf16>, tensor<128256x2048xbf16>,
                         tensor<8192xi64>)
        outs(%l0 : tensor<f32>) lse(%s0 : tensor<8192xf32>)
        reduction(mean) ignore_index(-100) softcap(30.0) z_loss(1.0e-4)
    ```

    On memrefs (after bufferization, the GPU mapping's form) the op has no
    results and writes its inits; operands are all tensors or all memrefs:

    ```mlir
    softmax.linear_cross_entropy
        ins(%h, %w, %t : memref<8192x2048xbf16>, memref<128256x2048xbf16>,
                         memref<8192xi64>)
        outs(%l : memref<f32>) lse(%s : memref<8192xf32>)
        class_max(%cm : memref<8192x501xf32>) reduction(mean)
    ```
  }];
  let arguments = (ins Softmax_CEInput:$hidden,
                       Softmax_CEInput:$classifier,
                       Softmax_CETargets:$targets,
                       Optional<Softmax_CEInput>:$bias,
                       Softmax_CEF32:$loss_init,
                       Optional<Softmax_CEF32>:$lse_init,
                       Optional<Softmax_CEF32>:$class_max_init,
                       Softmax_LossReductionAttr:$reduction,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       OptionalAttr<F32Attr>:$softcap,
                       OptionalAttr<F32Attr>:$z_loss,
                       DefaultValuedAttr<I64Attr, "1024">:$vocab_tile);
  let results = (outs Variadic<RankedTensorOf<[F32]>>:$result_tensors);
  let assemblyFormat = [{
    `ins` `(` $hidden `,` $classifier `,` $targets `:` type($hidden) `,`
        type($classifier) `,` type($targets) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $loss_init `:` type($loss_init) `)`
    (`lse` `(` $lse_init^ `:` type($lse_init) `)`)?
    (`class_max` `(` $class_max_init^ `:` type($class_max_init) `)`)?
    `reduction` `(` $reduction `)`
    (`ignore_index` `(` $ignore_index^ `)`)?
    (`softcap` `(` $softcap^ `)`)?
    (`z_loss` `(` $z_loss^ `)`)?
    (`vocab_tile` `(` $vocab_tile^ `)`)?
    attr-dict `` custom<CrossEntropyResults>(type($result_tensors),
        ref(type($loss_init)), ref(type($lse_init)),
        ref(type($class_max_init)))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable();
    /// The results on tensors (null on memrefs, where the op writes its
    /// inits).
    ::mlir::Value getLoss() {
      return getResultTensors().empty() ? ::mlir::Value()
                                        : getResultTensors()[0];
    }
    ::mlir::Value getLse() {
      return getLseInit() ? resultOf(1) : ::mlir::Value();
    }
    ::mlir::Value getClassMax() {
      return getClassMaxInit() ? resultOf(getLseInit() ? 2 : 1)
                               : ::mlir::Value();
    }
    /// The classes of one group of `class_max` (a column of it).
    static constexpr int64_t getClassMaxWidth() { return 256; }
  private:
    ::mlir::Value resultOf(unsigned i) {
      return i < getResultTensors().size() ? getResultTensors()[i]
                                           : ::mlir::Value();
    }
  public:
  }];
}

def Softmax_LinearCrossEntropyGradOp
    : Softmax_Op<"linear_cross_entropy_grad", [
        AttrSizedOperandSegments, DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
        // hidden, classifier, targets, lse, grad_loss, grad_hidden_init,
        // grad_classifier_init.
        Softmax_RequiredOperandSegments<"0, 1, 2, 3, 4, 7, 8">]> {
  let summary = "gradients of softmax.linear_cross_entropy, logits recomputed";
  let description = [{
    The backward pass of `softmax.linear_cross_entropy` with the same
    `reduction`, `ignore_index`, `softcap`, `z_loss` and `vocab_tile`: given
    the forward's `lse` `[N]` and the gradient of the loss `grad_loss`
    (rank 0 for `mean` and `sum`, `[N]` for `none`), writes the gradients
    of `hidden` (`[N, D]`), `classifier` (`[V, D]`) and, with `bias`, of
    `bias` (`[V]`). The logits are recomputed tile by tile, never stored
    whole:

    ```
    p_nv  = exp(z_nv - lse_n)
    dz_nv = w_n (p_nv (1 + 2 c lse_n) - [v = t_n])     (c: z_loss)
    du_nv = dz_nv (1 - (z_nv / s)^2)                  (softcap(s))
    grad_hidden     = du W,  grad_classifier = du^T h,  grad_bias = sum_n du
    ```

    with `w_n` the token's weight: `grad_loss_n` (`none`), `grad_loss`
    (`sum`) or `grad_loss / kept tokens` (`mean`), 0 for an ignored token
    and NaN for a target out of range. Every sum is accumulated in f32 and
    rounded once to the init's element type (f16, bf16 or f32).

    Gradient filtering (Cut Cross-Entropy): a tile in which every entry
    has `|du_nv| <= filter |w_n|` (the token's softmax gradient, before its
    weight, at most `filter`) skips its two contractions. A filter on `du`
    itself would scale with the reduction: a mean over 8192 tokens puts
    every `|du|` under 2^-12. Each skipped entry is at most `filter |w_n|`,
    so a gradient element is off by at most `filter` times the sum of the
    `|w_n h|` (or `|w_n W|`) products it would have met in skipped tiles.
    Without the attribute the filter defaults by the inputs' type: 2^-12
    for bf16, 2^-15 for f16, 0 (exact) for f32; `filter(0.0)` is the exact
    mode (no tile skipped). The optional `filter_counts` init
    (`tensor<2xi64>`, or `tensor<3xi64>`) receives the number of tiles, how
    many were filtered and (third) how many of those were filtered without
    recomputing their logits.

    With `class_max`, the forward's largest logit of each token in each
    group of 256 classes, a tile is filtered before its logits are
    recomputed when every token's entries in it are bounded below the
    filter: for a token of weight `w_n` whose target is not in the tile
    (or is ignored), every `|du_nv| <= |w_n| exp(M - lse_n) |1 + 2 c lse_n|`,
    `M` the largest `class_max` of the groups the tile meets (the softcap's
    derivative is at most 1). The bound must hold with 1/1024 to spare, more
    than the forward's and the recomputed logits differ by rounding, so a
    tile filtered this way is one the filter drops after recomputing too:
    the gradients are the same with and without `class_max`, only faster
    where tiles are filtered (a filtered tile then costs none of its three
    contractions instead of one). Exact mode filters nothing, with or
    without it.

    The tile the filter judges is `token_tile` tokens by `vocab_tile`
    classes. Named, it is a contract: a target whose kernel tiles
    otherwise refuses the op when the tile matters (a nonzero filter, or
    `filter_counts`). Left out, each target filters its own tile: 64 x 1024
    in the decomposition, 128 x 128 in the GPU kernel (recorded in the
    `#softmax.cross_entropy_gpu_strategy` of its tile launch).

    Example:

    ```mlir
    %gh, %gw, %n = softmax.linear_cross_entropy_grad
        ins(%h, %w, %t, %lse, %dl : tensor<8192x2048xbf16>,
            tensor<128256x2048xbf16>, tensor<8192xi64>, tensor<8192xf32>,
            tensor<f32>)
        class_max(%cm : tensor<8192x501xf32>)
        outs(%gh0, %gw0 : tensor<8192x2048xbf16>, tensor<128256x2048xbf16>)
        filter_counts(%n0 : tensor<3xi64>)
        reduction(mean) filter(2.44140625e-04)
    ```

    On memrefs (the GPU mapping's form) the op has no results and writes
    its inits; operands are all tensors or all memrefs:

    ```mlir
    softmax.linear_cross_entropy_grad
        ins(%h, %w, %t, %lse, %dl : memref<8192x2048xbf16>,
            memref<128256x2048xbf16>, memref<8192xi64>, memref<8192xf32>,
            memref<f32>)
        outs(%gh, %gw : memref<8192x2048xbf16>, memref<128256x2048xbf16>)
        reduction(mean)
    ```
  }];
  let arguments = (ins Softmax_CEInput:$hidden,
                       Softmax_CEInput:$classifier,
                       Softmax_CETargets:$targets,
                       Softmax_CEF32:$lse,
                       Softmax_CEF32:$grad_loss,
                       Optional<Softmax_CEInput>:$bias,
                       Optional<Softmax_CEF32>:$class_max,
                       Softmax_CEInput:$grad_hidden_init,
                       Softmax_CEInput:$grad_classifier_init,
                       Optional<Softmax_CEInput>:$grad_bias_init,
                       Optional<Softmax_CECounts>:$filter_counts_init,
                       Softmax_LossReductionAttr:$reduction,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       OptionalAttr<F32Attr>:$softcap,
                       OptionalAttr<F32Attr>:$z_loss,
                       OptionalAttr<F32Attr>:$filter,
                       OptionalAttr<I64Attr>:$vocab_tile,
                       OptionalAttr<I64Attr>:$token_tile);
  let results = (outs Variadic<RankedTensorOf<[F16, BF16, F32, I64]>>:
                     $result_tensors);
  let assemblyFormat = [{
    `ins` `(` $hidden `,` $classifier `,` $targets `,` $lse `,` $grad_loss
        `:` type($hidden) `,` type($classifier) `,` type($targets) `,`
        type($lse) `,` type($grad_loss) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`class_max` `(` $class_max^ `:` type($class_max) `)`)?
    `outs` `(` $grad_hidden_init `,` $grad_classifier_init `:`
        type($grad_hidden_init) `,` type($grad_classifier_init) `)`
    (`grad_bias` `(` $grad_bias_init^ `:` type($grad_bias_init) `)`)?
    (`filter_counts` `(` $filter_counts_init^ `:` type($filter_counts_init)
        `)`)?
    `reduction` `(` $reduction `)`
    (`ignore_index` `(` $ignore_index^ `)`)?
    (`softcap` `(` $softcap^ `)`)?
    (`z_loss` `(` $z_loss^ `)`)?
    (`filter` `(` $filter^ `)`)?
    (`vocab_tile` `(` $vocab_tile^ `)`)?
    (`token_tile` `(` $token_tile^ `)`)?
    attr-dict `` custom<CrossEntropyGradResults>(type($result_tensors),
        ref(type($grad_hidden_init)), ref(type($grad_classifier_init)),
        ref(type($grad_bias_init)), ref(type($filter_counts_init)))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable();
    /// `filter`, or the default of the inputs' element type.
    double getFilterOrDefault();
    /// The filter's tile when the op names it, else `tokens x classes`
    /// (the decomposition's 64 x 1024, or a target's own).
    int64_t getTokenTileOr(int64_t tokens) {
      return getTokenTile() ? *getTokenTile() : tokens;
    }
    int64_t getVocabTileOr(int64_t classes) {
      return getVocabTile() ? *getVocabTile() : classes;
    }
    /// The results on tensors, in the order of the inits (null on memrefs,
    /// where the op writes its inits, and for an absent optional init).
    ::mlir::Value getGradHidden() { return resultOf(0); }
    ::mlir::Value getGradClassifier() { return resultOf(1); }
    ::mlir::Value getGradBias() {
      return getGradBiasInit() ? resultOf(2) : ::mlir::Value();
    }
    ::mlir::Value getFilterCounts() {
      return getFilterCountsInit() ? resultOf(getGradBiasInit() ? 3 : 2)
                                   : ::mlir::Value();
    }
  private:
    ::mlir::Value resultOf(unsigned i) {
      return i < getResultTensors().size() ? getResultTensors()[i]
                                           : ::mlir::Value();
    }
  public:
  }];
}

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_CROSSENTROPYOPS_TD
