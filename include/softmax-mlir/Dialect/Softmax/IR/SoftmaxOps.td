//===- SoftmaxOps.td - softmax dialect operations ------------*- tablegen -*-===//
//
// Semantic ops (softmax, log_softmax, logsumexp) and state ops (partial,
// merge, normalize, lse).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXOPS_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXOPS_TD

include "softmax-mlir/Dialect/Softmax/IR/SoftmaxBase.td"
include "softmax-mlir/Dialect/Softmax/IR/SoftmaxAttrs.td"
include "softmax-mlir/Dialect/Softmax/IR/SoftmaxInterfaces.td"
include "mlir/Dialect/Linalg/IR/LinalgInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/TilingInterface.td"

/// Operand groups at the given indices hold exactly one value, the others at
/// most one (SoftmaxTraits.h); verified before the generated verifier.
class Softmax_RequiredOperandSegments<string indices>
    : ParamNativeOpTrait<"RequiredOperandSegments", indices>, StructuralOpTrait {
  let cppNamespace = "::mlir::softmax::OpTrait";
}

class Softmax_Op<string mnemonic, list<Trait> traits = []>
    : Op<Softmax_Dialect, mnemonic, traits>;

def Softmax_InputTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Softmax_InputMemRef : MemRefOf<[F16, BF16, F32, F64]>;
// Semantic ops take tensors (and return one) or, after bufferization,
// memrefs (and return nothing), like linalg ops.
def Softmax_InputShaped : AnyTypeOf<[Softmax_InputTensor, Softmax_InputMemRef],
    "ranked tensor or memref of 16-bit float or bfloat16 type or 32-bit float "
    "or 64-bit float values">;
def Softmax_StateTensor : RankedTensorOf<[F32, F64]>;

//===----------------------------------------------------------------------===//
// Semantic ops
//===----------------------------------------------------------------------===//

class Softmax_SemanticOp<string mnemonic, list<Trait> traits = []>
    : Softmax_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
        DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<Softmax_SemanticOpInterface>,
        DeclareOpInterfaceMethods<AggregatedOpInterface,
                                  ["decomposeOperation"]>])> {
  let arguments = (ins Softmax_InputShaped:$input,
                       Softmax_InputShaped:$init,
                       I64Attr:$dimension,
                       Softmax_MaskedRowsAttr:$masked,
                       DefaultValuedAttr<Softmax_AlgorithmAttr,
                           "::mlir::softmax::Algorithm::Auto">:$algorithm,
                       OptionalAttr<TypeAttr>:$acc_type);
  let results = (outs Optional<Softmax_InputTensor>:$result);
  // The result type is the init type on tensors and absent on memrefs, so
  // it is never spelled.
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)`
    `outs` `(` $init `:` type($init) `)`
    `dimension` `(` $dimension `)`
    `masked` `(` $masked `)`
    (`algorithm` `(` $algorithm^ `)`)?
    attr-dict `` custom<DpsResult>(type($result), ref(type($init)))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
    /// The element type of the running state: `acc_type`, or f32 (f64 for
    /// f64 inputs) when absent.
    ::mlir::FloatType getAccumulatorType();
  }];
}

def Softmax_SoftmaxOp : Softmax_SemanticOp<"softmax"> {
  let summary = "softmax over one dimension of a tensor";
  let description = [{
    Computes `y = exp(x - max x) / sum exp(x - max x)` along `dimension`,
    writing into `init` (same shape as `input`). The running state is kept in
    `acc_type` (f32 by default, for f16/bf16/f32 inputs); the result is
    rounded to the element type of `init`. `masked` says what a row of all
    `-inf` yields; `algorithm` says how the reduction is computed (`auto`
    leaves the choice to `softmax-select-algorithm`).

    Example:

    ```mlir
    %y = softmax.softmax ins(%x : tensor<4x1000xbf16>)
                         outs(%init : tensor<4x1000xbf16>)
                         dimension(1) masked(zero) algorithm(online)
    ```
  }];
}

def Softmax_LogSoftmaxOp : Softmax_SemanticOp<"log_softmax"> {
  let summary = "log-softmax over one dimension of a tensor";
  let description = [{
    Computes `y = x - max x - log(sum exp(x - max x))` along `dimension`.
    Same operands and attributes as `softmax.softmax`; with `masked(zero)` a
    row of all `-inf` yields `-inf` (the log of probability zero).

    Example:

    ```mlir
    %y = softmax.log_softmax ins(%x : tensor<8x?xf32>)
                             outs(%init : tensor<8x?xf32>)
                             dimension(1) masked(nan)
    ```
  }];
}

def Softmax_LogSumExpOp : Softmax_SemanticOp<"logsumexp"> {
  let summary = "log-sum-exp reduction of one dimension of a tensor";
  let description = [{
    Computes `max x + log(sum exp(x - max x))` along `dimension`. `init` has
    the shape of `input` with `dimension` removed. With `masked(zero)` a row
    of all `-inf` yields `-inf`.

    Example:

    ```mlir
    %lse = softmax.logsumexp ins(%x : tensor<4x128xf32>)
                             outs(%init : tensor<4xf32>)
                             dimension(1) masked(zero) algorithm(exp_pair)
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// Attention takes no f64: its state is f32 and so are the GPU matrix units it
// is meant for.
def Softmax_AttentionShaped : AnyTypeOf<[
    RankedTensorOf<[F16, BF16, F32]>, MemRefOf<[F16, BF16, F32]>],
    "ranked tensor or memref of 16-bit float or bfloat16 type or 32-bit float "
    "values">;
def Softmax_AttentionMask : AnyTypeOf<[
    RankedTensorOf<[I1, F16, BF16, F32]>, MemRefOf<[I1, F16, BF16, F32]>],
    "ranked tensor or memref of 1-bit signless integer or 16-bit float or "
    "bfloat16 type or 32-bit float values">;
def Softmax_AttentionLse : AnyTypeOf<[RankedTensorOf<[F32]>, MemRefOf<[F32]>],
    "ranked tensor or memref of 32-bit float values">;
def Softmax_SkipThreshold : AnyTypeOf<[F32, RankedTensorOf<[F32]>, MemRefOf<[F32]>],
    "32-bit float, or ranked tensor or memref of 32-bit float values">;
def Softmax_KeyLengths : AnyTypeOf<[RankedTensorOf<[I32]>, MemRefOf<[I32]>],
    "key count per batch entry (i32 [B])">;
def Softmax_PageTable : AnyTypeOf<[RankedTensorOf<[I32]>, MemRefOf<[I32]>],
    "page table (i32 [B, pages per sequence])">;
def Softmax_SkipCounts : AnyTypeOf<[RankedTensorOf<[I64]>, MemRefOf<[I64]>],
    "ranked tensor or memref of 64-bit signless integer values">;

def Softmax_AttentionOp : Softmax_Op<"attention", [
    AttrSizedOperandSegments,
    // query, key, value, output.
    Softmax_RequiredOperandSegments<"0, 1, 2, 7">,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<TilingInterface,
        ["getLoopIteratorTypes", "getIterationDomain",
         "getTiledImplementation", "getResultTilePosition"]>,
    DeclareOpInterfaceMethods<Softmax_SemanticOpInterface, [
        "getReducedInput", "getReductionDimension", "getAlgorithm",
        "hasSelectableAlgorithm", "setAlgorithm"]>]> {
  let summary = "scaled dot-product attention (MHA, GQA, MQA)";
  let description = [{
    For every batch `b`, query head `h` and query row `i`, with
    `g = h / (H / Hkv)` the key/value head that `h` reads:

    ```
    s_j = scale * <query[b, h, i, :], key[b, g, j, :]>  (+ mask[b, h, i, j])
          or -inf where key j is hidden (mask, causal, window)
    p_j = exp(s_j) / sum_j' exp(s_j')  (evaluated with the row max subtracted)
    output[b, h, i, :] = sum_j p_j * value[b, g, j, :]
    lse[b, h, i]       = log(sum_j exp(s_j))
    ```

    Shapes: `query` is `[B, H, Nq, D]`, `key` `[B, Hkv, Nk, D]`, `value`
    `[B, Hkv, Nk, Dv]`, `output` `[B, H, Nq, Dv]`, the optional `lse`
    `[B, H, Nq]`. `H` must be a multiple of `Hkv`: `H == Hkv` is multi-head
    attention, `Hkv == 1` multi-query, anything between grouped-query
    attention, where consecutive query heads share a key/value head (as
    PyTorch's `enable_gqa`). Dimensions may be dynamic; every static one must
    agree.

    `query`, `key` and `value` have one element type (f16, bf16 or f32).
    `output` has that type or f32, `lse` is f32 (natural-log units, of the
    scaled and masked scores). Scores, the running (max, sum) state and the
    accumulated output rows are f32; the output is rounded once at the end.

    Attributes:

    * `scale`: multiplies the scores; defaults to `1/sqrt(D)` (rounded to
      f32), so it must be given when `D` is dynamic (or 0).
    * `causal`: key `j` is visible to query `i` only if
      `j <= i + (Nk - Nq)`. This is *bottom-right* alignment, as in
      FlashAttention 2.1 and later: the last query row sees every key, which
      is what decoding with a KV cache needs. PyTorch's
      `scaled_dot_product_attention(is_causal=True)` aligns top-left
      (`j <= i`); the two agree only when `Nq == Nk`.
    * `window(w)`, `w >= 1`: with `d = (i + Nk - Nq) - j` the distance of key
      `j` from the query's bottom-right-aligned diagonal, key `j` is visible
      only if `|d| < w`; with `causal` as well, only if `0 <= d < w` (a
      sliding window of `w` keys ending at the diagonal). In
      FlashAttention's terms, `window_size = (w - 1, w - 1)`, or
      `(w - 1, 0)` with `causal`.
    * `masked`: what a query row that sees no key at all yields (every score
      `-inf`, e.g. causal rows above the diagonal when `Nq > Nk`, or an
      all-false mask): `zero` writes `0` to its output row and `-inf` to its
      `lse`, `nan` writes NaN to both.

    Ragged batches (a KV cache whose sequences have different lengths):
    `key_lengths(%len : tensor<Bxi32>)` gives each batch entry its own key
    count `L_b`, clamped to `[0, Nk]` (so no key past `Nk` is ever read).
    Keys `j >= L_b` are hidden, and `L_b` takes the place of `Nk` in every
    rule above and below: `causal` keeps key `j` only if `j <= i + (L_b -
    Nq)` (the last query row of each sequence sees its last key), `window`
    measures from that diagonal, and a skip `scale_factor` gives `lambda =
    a / L_b`. Rows of an entry with `L_b = 0` see no key and get the
    `masked` value. The key and value rows past `L_b` are never read by the
    fused kernels, so they may hold anything (padding, another sequence).

    ```mlir
    %o = softmax.attention
        ins(%q, %k, %v : tensor<8x32x1x128xbf16>, tensor<8x8x16384x128xbf16>,
                         tensor<8x8x16384x128xbf16>)
        outs(%init : tensor<8x32x1x128xbf16>) masked(zero) causal
        key_lengths(%len : tensor<8xi32>)
    ```

    Paged KV caches (vLLM's and FlashInfer's layout):
    `page_table(%pt : tensor<BxPxi32>)` reads `key` as `[num_pages,
    page_size, Hkv, D]` and `value` as `[num_pages, page_size, Hkv, Dv]`,
    shared by the whole batch; sequence `b` is the `P` pages `pt[b, 0..P)`,
    so `Nk = P * page_size` and its key `j` is row `j mod page_size` of page
    `pt[b, j / page_size]`, clamped to `[0, num_pages)` (a table padded with
    -1 or garbage past a sequence's pages reads in bounds). Everything else
    sees that `[B, Hkv, Nk, D]` view; with `key_lengths` the pages past
    `L_b` are never read by the fused kernels.

    ```mlir
    %o = softmax.attention
        ins(%q, %k, %v : tensor<64x32x1x128xbf16>, tensor<4096x64x8x128xbf16>,
                         tensor<4096x64x8x128xbf16>)
        outs(%init : tensor<64x32x1x128xbf16>) masked(zero) causal
        key_lengths(%len : tensor<64xi32>)
        page_table(%pt : tensor<64x256xi32>)
    ```

    The optional `mask` is `[B or 1, H or 1, Nq, Nk]`; a static 1 in either
    of its leading dimensions broadcasts. An `i1` mask hides key `j` where it
    is false; a float mask (the query element type or f32) is added to the
    scaled scores, so `-inf` hides a key. `causal`, `window` and the mask
    combine: a key is visible only if all of them let it through.

    Thresholded-sparse attention (BLASST, arXiv 2512.12087): with
    `skip(lambda %t : T, tile [Qt, Kt])` the online softmax skips key tiles
    whose scores are negligible against the running max. The queries of
    each `(b, h)` fall into query tiles of `Qt` rows (rows `[q Qt, (q + 1)
    Qt)`, the last one cut at `Nq`), the keys into key tiles of `Kt` keys
    (`[k Kt, (k + 1) Kt)`, the last one cut at `Nk`). Key tiles are folded
    in order; for query tile `q` and key tile `k`, with `m_i` the running
    max of row `i` over the earlier key tiles only (the identity state
    before the first) and `t_i` the max of its scores `s_j` in tile `k`:

    ```
    skip(q, k) = 0 < lambda < 1  and  for every row i of tile q:
                 t_i = -inf  or  t_i - m_i < ln(lambda)
    ```

    A skipped tile leaves the rows' `(m, l, O)` unchanged: no exp, no read
    of its values. `t_i - m_i` is `+inf` while `m_i` is the identity, so the
    first tile in which a row sees a key is never skipped (nor, later, the
    first tile of a split). A row that sees no key of the tile (`t_i =
    -inf`, by causal, window or mask) does not hold the tile back. `s_j`
    is the scaled and masked score, so `scale` is inside `t_i - m_i`.

    `lambda` comes from the operand `%t`: `lambda` takes it as is, a
    scalar `f32` or one per batch entry (`[B]`, as FlashInfer's per-request
    threshold); `scale_factor` takes it as `a` with `lambda = a / Nk`
    (TensorRT-LLM's `a / L`; `Nk = 0` gives `lambda = 0`, and there is no
    key to skip). `lambda >= 1`, `lambda <= 0` and NaN disable skipping
    (`lambda = 0` is the dense op), as TensorRT-LLM does for `>= 1`.

    Error bound: every score of a skipped tile is below `m_i + ln(lambda)`,
    so the tile would add at most `Kt * lambda` (in units of `exp(m_i)`, and
    so of the final max) to a row sum that is at least 1. With `n_i` tiles
    skipped for row `i`, the skipped share of its probability mass is `e_i
    <= n_i Kt lambda`, its output is off by at most `e_i (max_j v_j - min_j
    v_j)` per column and its `lse` by at most `-ln(1 - e_i)`, on top of the
    f32 rounding.

    `skip_counts(%c : tensor<2xi64>)` (an init like `output`) receives the
    number of live (query tile, key tile) pairs, those where some row sees
    some key of the tile, and how many of them were skipped, summed over
    every `(b, h)`: the tile sparsity at the geometry `[Qt, Kt]` the op
    records. A target folds exactly these tiles or refuses the op with a
    diagnostic; none drops the threshold. The key-tiled decomposition
    honours any tile, the CPU vector mapping `tile [1, W]` at vector width
    `W`, the GPU mappings `tile [16, 64]` and (NVIDIA) `[32, 64]` (one
    warp's query rows by one staged tile of 64 keys), `[64, 64]` and
    `[128, 64]` (a block's rows, 2 to 8 warps voting once per tile) and
    `[1, 64]` (each row on its own, so any rows share a warp: packed query
    heads of a decode step); with one query row, any `Qt` is a tile of one
    row.

    ```mlir
    %o, %n = softmax.attention
        ins(%q, %k, %v : tensor<1x32x4096x128xbf16>,
                         tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16>)
        outs(%init : tensor<1x32x4096x128xbf16>) masked(zero) causal
        skip(lambda %t : f32, tile [1, 16])
        skip_counts(%n0 : tensor<2xi64>)
    ```

    Unified max (FlashDecoding++, arXiv 2311.01282):
    `algorithm(unified_max, phi = p)` takes every term at the fixed offset
    `p` instead of the running max, `l = sum_j exp(s_j - p)` and `O =
    sum_j exp(s_j - p) v_j`, so key tiles (and the splits of a split-KV
    op) add without rescaling and no row max is taken. `p` is in the units
    of the scaled, masked scores `s_j`, e.g. a value a model's scores
    rarely pass by much (its calibrated typical max). The results are the
    online op's: a row whose sum at `p` leaves `[2^-64, 2^64]` (its scores
    sit too far above `p`, so the f32 sum could overflow, or too far
    below, so its terms underflow; a row that sees no key, whose sum is
    0, too) is recomputed on the online path. Inside that range no term
    of the row's largest scores is subnormal and no sum or output
    accumulator can overflow (`2^64` times the largest f16 value is far
    below the f32 limit), so the result is as accurate as the online
    one's. Where the recomputation happens is the target's choice: the
    decomposition recomputes the whole op, the CPU kernel the row, the
    GPU kernel the block of query rows that holds it, a split-KV op the
    split. A unified max does not combine with a skip threshold, whose
    rule is stated against the running max.
    ```mlir
    %o, %lse = softmax.attention
        ins(%q, %k, %v : tensor<8x32x1x128xbf16>, tensor<8x8x32768x128xbf16>,
                         tensor<8x8x32768x128xbf16>)
        outs(%init, %lse0 : tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>)
        masked(zero) algorithm(unified_max, phi = 6.0)
    ```
    Like the other semantic ops, the op is destination-style: on tensors it
    returns `output` (and `lse` and `skip_counts`, when given) as results,
    on memrefs it writes them and returns nothing.

    Decomposition and tiling (on tensors): `AggregatedOpInterface` (an
    external model that `registerAllDialects` attaches)
    (`softmax-decompose`, `transform.structured.decompose_interface`)
    rewrites the op into its reference lowering for any target: the scaled,
    masked scores `S` as f32 `[B, H, Nq, Nk]` by a `linalg.generic`
    contraction (key/value head `h floordiv (H / Hkv)` in its indexing map,
    so `H / Hkv` must be static unless `Hkv` is 1) and an elementwise
    `linalg.generic` that tests `causal`, `window` and the mask through
    `linalg.index`; `(m, l)` by `softmax.partial` over the keys from the
    identity state; `exp(S - m) V` by a second contraction; then
    `O / l` (the masked value where `l = 0`) rounded to the output type,
    and `softmax.lse`. `tileAttentionAlongKeys`
    (`softmax-decompose="attention-key-tile-size=T"`) computes the same
    per tile of T keys inside an `scf.for` that carries `(m, l, O)`, with
    the tile's global key offset in the causal and window tests, and merges
    every tile into the running state with `softmax.merge`. Its
    `TilingInterface` has the loops `(B, H, Nq, Nk)`: B, H and Nq tile into
    smaller attention ops (a tile of query heads must hold a multiple or a
    divisor of `H / Hkv` heads; Nq only without `causal` and `window`,
    whose diagonal depends on Nq, and with a threshold only by whole query
    tiles and without `skip_counts`); the key loop is a reduction that it
    refuses to tile.

    Example (key tiling by 64, in state ops):

    ```mlir
    %o = softmax.attention ins(%q, %k, %v : tensor<1x8x128x64xf32>,
                               tensor<1x8x200x64xf32>, tensor<1x8x200x64xf32>)
                           outs(%init : tensor<1x8x128x64xf32>) masked(zero)
    ```

    becomes

    ```mlir
    %r:3 = scf.for %k0 = %c0 to %c200 step %c64
        iter_args(%m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<1x8x128xf32>, tensor<1x8x128xf32>, tensor<1x8x128x64xf32>) {
      %n = affine.min affine_map<(d0) -> (64, -d0 + 200)>(%k0)
      %kt = tensor.extract_slice %k[0, 0, %k0, 0] [1, 8, %n, 64] [1, 1, 1, 1]
          : tensor<1x8x200x64xf32> to tensor<1x8x?x64xf32>
      // %s = scale * %q . %kt (linalg.generic contraction, then scaling)
      %mt, %lt, %ct = softmax.partial ins(%s : tensor<1x8x128x?xf32>)
          outs(%mi, %li, %ci : tensor<1x8x128xf32>) dimension(3) algorithm(online)
      // %ot = exp(%s - %mt) . %vt (two linalg.generic)
      %m2, %l2, %acc2 = softmax.merge (%m, %l), (%mt, %lt)
          acc(%acc, %ot : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>
              -> tensor<1x8x128x64xf32>) state(max) : tensor<1x8x128xf32>
      scf.yield %m2, %l2, %acc2
          : tensor<1x8x128xf32>, tensor<1x8x128xf32>, tensor<1x8x128x64xf32>
    }
    // %o = %r#2 / %r#1 (linalg.generic; 0 where the sum is 0)
    ```

    Example (multi-head, causal, on tensors):

    ```mlir
    %o = softmax.attention
        ins(%q, %k, %v : tensor<2x16x512x64xbf16>, tensor<2x16x512x64xbf16>,
                         tensor<2x16x512x64xbf16>)
        outs(%init : tensor<2x16x512x64xbf16>)
        masked(zero) causal
    ```

    Example (grouped-query decoding, 32 query heads over 8 key/value heads,
    an additive mask shared by all heads, a scale other than the default,
    the log-sum-exp returned for a later split-K merge):

    ```mlir
    %o, %lse = softmax.attention
        ins(%q, %k, %v, %mask : tensor<4x32x1x128xf16>, tensor<4x8x?x128xf16>,
                                tensor<4x8x?x128xf16>, tensor<4x1x1x?xf32>)
        outs(%o_init, %lse_init : tensor<4x32x1x128xf32>, tensor<4x32x1xf32>)
        masked(nan) scale(0.125)
    ```
  }];
  let arguments = (ins Softmax_AttentionShaped:$query,
                       Softmax_AttentionShaped:$key,
                       Softmax_AttentionShaped:$value,
                       Optional<Softmax_AttentionMask>:$mask,
                       Optional<Softmax_SkipThreshold>:$threshold,
                       Optional<Softmax_KeyLengths>:$key_lengths,
                       Optional<Softmax_PageTable>:$page_table,
                       Softmax_AttentionShaped:$output,
                       Optional<Softmax_AttentionLse>:$lse,
                       Optional<Softmax_SkipCounts>:$skip_counts,
                       Softmax_MaskedRowsAttr:$masked,
                       OptionalAttr<F32Attr>:$scale,
                       UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window,
                       OptionalAttr<Softmax_SkipThresholdKindAttr>:$threshold_kind,
                       OptionalAttr<DenseI64ArrayAttr>:$skip_tile,
                       OptionalAttr<F32Attr>:$unified_max);
  let results = (outs Variadic<RankedTensorOf<[F16, BF16, F32, I64]>>:$result_tensors);
  // Result types are those of the inits on tensors and absent on memrefs, so
  // they are never spelled.
  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value (`,` $mask^)? `:`
        type($query) `,` type($key) `,` type($value) (`,` type($mask)^)? `)`
    `outs` `(` $output (`,` $lse^)? `:` type($output) (`,` type($lse)^)? `)`
    `masked` `(` $masked `)`
    (`scale` `(` $scale^ `)`)?
    (`causal` $causal^)?
    (`window` `(` $window^ `)`)?
    (`key_lengths` `(` $key_lengths^ `:` type($key_lengths) `)`)?
    (`page_table` `(` $page_table^ `:` type($page_table) `)`)?
    (`skip` `(` $threshold_kind^ $threshold `:` type($threshold) `,` `tile`
        $skip_tile `)`)?
    (`skip_counts` `(` $skip_counts^ `:` type($skip_counts) `)`)?
    (`algorithm` `(` `unified_max` `,` `phi` `=` $unified_max^ `)`)?
    attr-dict
    `` custom<DpsResults>(type($result_tensors), ref(type($output)),
                          ref(type($lse)), ref(type($skip_counts)))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      unsigned first = getOutputMutable().getOperandNumber();
      return ::mlir::MutableOperandRange(getOperation(), first,
                                         getNumOperands() - first);
    }
    /// The `output` result on tensors; null on memrefs.
    ::mlir::Value getOutputResult() {
      return getResultTensors().empty() ? ::mlir::Value()
                                        : getResultTensors().front();
    }
    /// The `lse` result on tensors when `lse` is given; null otherwise.
    ::mlir::Value getLseResult() {
      return getLse() && !getResultTensors().empty() ? getResultTensors()[1]
                                                     : ::mlir::Value();
    }
    /// The `skip_counts` result on tensors when it is given; null otherwise.
    ::mlir::Value getSkipCountsResult() {
      return getSkipCounts() && !getResultTensors().empty()
                 ? getResultTensors().back()
                 : ::mlir::Value();
    }
    /// Whether key and value are pages ([num_pages, page_size, Hkv, D])
    /// read through `page_table`.
    bool isPaged() { return static_cast<bool>(getPageTable()); }
    /// Whether each batch entry has its own key count (`key_lengths`).
    bool hasKeyLengths() { return static_cast<bool>(getKeyLengths()); }
    /// The skip threshold's part of the verifier (`batch`: B, or dynamic).
    ::llvm::LogicalResult verifySkip(int64_t batch);
    /// Whether the op skips KV tiles (a threshold is given).
    bool hasSkipThreshold() { return static_cast<bool>(getThreshold()); }
    /// Whether the terms are taken at the fixed offset phi
    /// (`algorithm(unified_max, phi = ...)`) instead of the running max.
    bool hasUnifiedMax() { return getUnifiedMax().has_value(); }
    /// phi of a unified max (the op must have one).
    float getUnifiedMaxPhi() { return getUnifiedMax()->convertToFloat(); }
    /// The skip tile: query rows, then keys (the op must have a threshold).
    int64_t getSkipQueryRows() { return getSkipTile()->front(); }
    int64_t getSkipKeys() { return getSkipTile()->back(); }
    /// The element type of the scores, the running state and the
    /// accumulated output: always f32.
    ::mlir::FloatType getAccumulatorType() {
      return ::mlir::Float32Type::get(getContext());
    }
    /// `scale`, or `1/sqrt(D)` rounded to f32 when it is absent and `D` is
    /// static and nonzero; std::nullopt otherwise (only for an invalid op).
    std::optional<float> getScaleOrDefault();
  }];
}

//===----------------------------------------------------------------------===//
// State ops
//===----------------------------------------------------------------------===//

def Softmax_PartialOp : Softmax_Op<"partial", [
    Pure, DestinationStyleOpInterface,
    AllTypesMatch<["max_init", "sum_init", "comp_init", "max", "sum", "comp"]>,
    DeclareOpInterfaceMethods<TilingInterface,
        ["getLoopIteratorTypes", "getIterationDomain",
         "getTiledImplementation", "getResultTilePosition"]>]> {
  let summary = "fold a slice of rows into a running (max, sum) state";
  let description = [{
    Reduces `input` along `dimension` into the state `(max_init, sum_init)`
    and returns the merged state. `comp_init` is the running Kahan
    compensation of the sum (start it at zero): the sum is accumulated
    compensated, and the compensation left at the end comes back as `comp`,
    so that a loop over tiles that carries it sums as accurately as one pass
    over the row (without it, every tile boundary would round the running
    sum once more). Starting from the identity state
    (`max = -FLT_MAX`, `sum = 0`) it computes the state of the slice; starting
    from a running state it computes the merge of both, which is what makes
    tiling the reduction dimension exact: the state is the loop-carried
    destination.

    `algorithm` picks the computation and the state encoding: `three_pass`
    (a max pass, then a sum pass) and `online` (one read) produce a `max`
    state; `exp_pair` produces an `exponent` state.

    Example:

    ```mlir
    %m, %l, %c = softmax.partial ins(%x : tensor<4x128xbf16>)
                                 outs(%m0, %l0, %c0 : tensor<4xf32>)
                                 dimension(1) algorithm(online)
    ```
  }];
  let arguments = (ins Softmax_InputTensor:$input,
                       Softmax_StateTensor:$max_init,
                       Softmax_StateTensor:$sum_init,
                       Softmax_StateTensor:$comp_init,
                       I64Attr:$dimension,
                       Softmax_AlgorithmAttr:$algorithm);
  let results = (outs Softmax_StateTensor:$max, Softmax_StateTensor:$sum,
                      Softmax_StateTensor:$comp);
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)`
    `outs` `(` $max_init `,` $sum_init `,` $comp_init `:` type($max_init) `)`
    `dimension` `(` $dimension `)`
    `algorithm` `(` $algorithm `)`
    attr-dict
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), 1, 3);
    }
    ::mlir::softmax::StateKind getStateKind() {
      return getAlgorithm() == ::mlir::softmax::Algorithm::ExpPair
                 ? ::mlir::softmax::StateKind::Exponent
                 : ::mlir::softmax::StateKind::Max;
    }
  }];
}

def Softmax_MergeOp : Softmax_Op<"merge", [
    Pure, AttrSizedOperandSegments,
    // lhs_max, lhs_sum, rhs_max, rhs_sum.
    Softmax_RequiredOperandSegments<"0, 1, 2, 3">,
    AllTypesMatch<["lhs_max", "lhs_sum", "rhs_max", "rhs_sum", "max", "sum"]>]> {
  let summary = "merge two (max, sum) states, optionally rescaling accumulators";
  let description = [{
    The associative merge of two states, elementwise over the state shape:
    `M = max(m1, m2)`, `l = l1 * s1 + l2 * s2` with `s_i = exp(m_i - M)`
    (`2^(m_i - M)` for `exponent` states). With accumulators (attention's
    output rows, whose shape starts with the state shape), also
    `O = O1 * s1 + O2 * s2`, broadcasting `s_i` over the trailing dimensions.

    The identity state (`m = -FLT_MAX` or `-inf`, `l = 0`, accumulator `0`)
    folds away.

    Example:

    ```mlir
    %m, %l = softmax.merge (%m1, %l1), (%m2, %l2) state(max) : tensor<4xf32>
    %m, %l, %o = softmax.merge (%m1, %l1), (%m2, %l2)
        acc(%o1, %o2 : tensor<4x64xf32>) state(max) : tensor<4xf32>
    ```
  }];
  let arguments = (ins Softmax_StateTensor:$lhs_max,
                       Softmax_StateTensor:$lhs_sum,
                       Softmax_StateTensor:$rhs_max,
                       Softmax_StateTensor:$rhs_sum,
                       Optional<Softmax_StateTensor>:$lhs_acc,
                       Optional<Softmax_StateTensor>:$rhs_acc,
                       Softmax_StateKindAttr:$state);
  let results = (outs Softmax_StateTensor:$max, Softmax_StateTensor:$sum,
                      Optional<Softmax_StateTensor>:$acc);
  let assemblyFormat = [{
    `(` $lhs_max `,` $lhs_sum `)` `,` `(` $rhs_max `,` $rhs_sum `)`
    (`acc` `(` $lhs_acc^ `,` $rhs_acc `:` type($lhs_acc) `,` type($rhs_acc)
        `->` type($acc) `)`)?
    `state` `(` $state `)` attr-dict `:` type($lhs_max)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Softmax_NormalizeOp : Softmax_Op<"normalize", [
    Pure, DestinationStyleOpInterface,
    AllTypesMatch<["init", "result"]>, AllTypesMatch<["max", "sum"]>,
    DeclareOpInterfaceMethods<TilingInterface,
        ["getLoopIteratorTypes", "getIterationDomain",
         "getTiledImplementation", "getResultTilePosition"]>]> {
  let summary = "write softmax or log-softmax of rows given their final state";
  let description = [{
    Given the final state `(max, sum)` of every row, writes
    `exp(x - m) / l` (`kind(softmax)`) or `x - m - log l`
    (`kind(log_softmax)`) for every element of `input` into `init`. For an
    `exponent` state the offset is `m * ln 2`, applied with exact powers of
    two. A row whose sum is zero (all `-inf`) gets the value `masked` asks
    for. Every element is independent, so the op tiles along any dimension.

    Example:

    ```mlir
    %y = softmax.normalize ins(%x, %m, %l : tensor<4x128xf32>, tensor<4xf32>)
                           outs(%init : tensor<4x128xf32>)
                           dimension(1) kind(softmax) state(max) masked(zero)
    ```
  }];
  let arguments = (ins Softmax_InputTensor:$input,
                       Softmax_StateTensor:$max,
                       Softmax_StateTensor:$sum,
                       Softmax_InputTensor:$init,
                       I64Attr:$dimension,
                       Softmax_NormalizeKindAttr:$kind,
                       Softmax_StateKindAttr:$state,
                       Softmax_MaskedRowsAttr:$masked);
  let results = (outs Softmax_InputTensor:$result);
  let assemblyFormat = [{
    `ins` `(` $input `,` $max `,` $sum `:` type($input) `,` type($max) `)`
    `outs` `(` $init `:` type($init) `)`
    `dimension` `(` $dimension `)`
    `kind` `(` $kind `)`
    `state` `(` $state `)`
    `masked` `(` $masked `)`
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];
}

def Softmax_LseOp : Softmax_Op<"lse", [
    Pure, DestinationStyleOpInterface,
    AllTypesMatch<["init", "result"]>, AllTypesMatch<["max", "sum"]>]> {
  let summary = "log-sum-exp of a final (max, sum) state";
  let description = [{
    Writes `m + log l` (`m * ln 2 + log l` for an `exponent` state) into
    `init`, rounded to its element type. A zero sum (all `-inf` row) gives
    `-inf` with `masked(zero)` and NaN with `masked(nan)`.

    Example:

    ```mlir
    %lse = softmax.lse ins(%m, %l : tensor<4xf32>) outs(%init : tensor<4xbf16>)
                       state(exponent) masked(zero)
    ```
  }];
  let arguments = (ins Softmax_StateTensor:$max,
                       Softmax_StateTensor:$sum,
                       Softmax_InputTensor:$init,
                       Softmax_StateKindAttr:$state,
                       Softmax_MaskedRowsAttr:$masked);
  let results = (outs Softmax_InputTensor:$result);
  let assemblyFormat = [{
    `ins` `(` $max `,` $sum `:` type($max) `)`
    `outs` `(` $init `:` type($init) `)`
    `state` `(` $state `)`
    `masked` `(` $masked `)`
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];
}

include "softmax-mlir/Dialect/Softmax/IR/CrossEntropyOps.td"
include "softmax-mlir/Dialect/Softmax/IR/TopKOps.td"

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXOPS_TD
