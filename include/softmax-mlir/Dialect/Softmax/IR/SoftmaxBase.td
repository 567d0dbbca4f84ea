//===- SoftmaxBase.td - softmax dialect, enums and attributes -*- tablegen -*-===//
//
// The dialect definition and the enum attributes shared by its ops.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXBASE_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Softmax_Dialect : Dialect {
  let name = "softmax";
  let cppNamespace = "::mlir::softmax";
  let summary = "Softmax-shaped reductions as first-class operations";
  let description = [{
    The `softmax` dialect states *what* is normalized (a softmax, a
    log-softmax, a log-sum-exp) and, through the `algorithm` attribute, *how*
    the normalizing reduction is computed.

    It has two layers:

    * **Semantic ops** (`softmax.softmax`, `softmax.log_softmax`,
      `softmax.logsumexp`) are destination-style ops over one dimension of a
      ranked tensor. They are what `softmax-raise` produces from plain
      `linalg` IR. `softmax.attention` is the semantic op of scaled
      dot-product attention, whose softmax runs over the scores of one query
      against all keys; `softmax-raise` produces it from linalg attention
      graphs too, and it lowers to vector loops on the CPU
      (`softmax-map-to-cpu`) and to a FlashAttention-2-style kernel on
      matrix units on the GPU (`softmax-map-to-gpu`), both with the online
      algorithm, and decomposes into linalg contractions around the state
      ops for any other target (`softmax-decompose`, optionally tiled along
      the keys with `softmax.merge`; docs/Attention.md).
    * **State ops** (`softmax.partial`, `softmax.merge`,
      `softmax.normalize`, `softmax.lse`) expose the running state of the
      reduction, a pair `(m, l)` of ordinary tensors: `m` is an offset (a
      running maximum, or a base-2 exponent for `exp_pair`) and `l` the sum of
      `exp(x - m)`. Because the state is an SSA value with an associative
      merge, tiling the reduction dimension carries it in loop iter_args and
      stays exact.

    A row whose every element is `-inf` has no softmax. What it yields is
    always explicit in the IR through the `masked` attribute.

    **`algorithm`**:

    * `auto`: `softmax-select-algorithm` picks one of the others with its
      cost model (a pass that meets an unresolved op calls the same model
      with the target its description names).
    * `three_pass`: `m = max x`, then `l = sum exp(x - m)`, then the output.
    * `online`: one read computes `(m, l)` with `m' = max(m, x)`,
      `l' = l * exp(m - m') + exp(x - m')`.
    * `exp_pair`: the Two-Pass algorithm; `exp(x) = a * 2^k` with
      `k = round(x * log2(e))`, and the state is the largest exponent `K`
      with the sum of mantissas scaled to it. No max pass and no
      per-element `exp` rescale. Its domain is `|x| <= 3e8` (in f32): past
      that the reduction `x - k ln 2` loses accuracy, and past 1.49e9 it
      overflows (docs/Numerics.md).

    **`masked`**: `zero` gives a fully masked row probability zero:
    `softmax` writes `0.0`, `log_softmax` writes `-inf`, `logsumexp` and
    `lse` write `-inf`. `nan` writes NaN in every case (what upstream
    `linalg.softmax` computes for such a row).

    **`state`**: `max` means `m` is a running maximum in natural-log units
    and `l = sum exp(x - m)`. `exponent` means `m` is an integer-valued
    base-2 exponent `K` and `l = sum exp(x) * 2^-K` (the state of
    `exp_pair`); merging two `exponent` states rescales by exact powers of
    two.

    **`softmax.strategy`**: the one discardable attribute of the dialect,
    holding a typed strategy (`#softmax.cpu_strategy`,
    `#softmax.gpu_strategy`, `#softmax.attention_cpu_strategy`,
    `#softmax.attention_gpu_strategy`). On a semantic op it is a per-op
    request that `softmax-map-to-cpu` or `softmax-map-to-gpu` honours (or
    refuses with a diagnostic); on the loop or launch a mapping produces,
    it records the strategy the mapping used. The verifier checks that a
    softmax, log_softmax or logsumexp carries a CPU or GPU strategy and an
    attention an attention one; any other `softmax.*` discardable
    attribute is an error.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that holds a typed strategy: a per-op
    /// request on a semantic op, the record on what a mapping produces.
    static constexpr ::llvm::StringLiteral getStrategyAttrName() {
      return ::llvm::StringLiteral("softmax.strategy");
    }

    /// Registers the strategy attributes (SoftmaxAttrs.cpp).
    void registerAttributes();
  }];
  // What the decompositions (AggregatedOpInterface) and the attention's
  // TilingInterface create, so that a transform script or a pass that loads
  // only this dialect can run them.
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def Softmax_AlgorithmAttr : I32EnumAttr<"Algorithm",
    "how the normalizing reduction is computed", [
      I32EnumAttrCase<"Auto", 0, "auto">,
      I32EnumAttrCase<"ThreePass", 1, "three_pass">,
      I32EnumAttrCase<"Online", 2, "online">,
      I32EnumAttrCase<"ExpPair", 3, "exp_pair">
    ]> {
  let cppNamespace = "::mlir::softmax";
}

def Softmax_LossReductionAttr : I32EnumAttr<"LossReduction",
    "how softmax.linear_cross_entropy reduces the per-token losses", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Sum", 1, "sum">,
      I32EnumAttrCase<"Mean", 2, "mean">
    ]> {
  let cppNamespace = "::mlir::softmax";
}

def Softmax_MaskedRowsAttr : I32EnumAttr<"MaskedRows",
    "what a fully masked (all -inf) row yields", [
      I32EnumAttrCase<"Zero", 0, "zero">,
      I32EnumAttrCase<"NaN", 1, "nan">
    ]> {
  let cppNamespace = "::mlir::softmax";
}

def Softmax_SkipThresholdKindAttr : I32EnumAttr<"SkipThresholdKind",
    "how softmax.attention's skip threshold operand gives lambda", [
      // The operand is lambda itself.
      I32EnumAttrCase<"Lambda", 0, "lambda">,
      // The operand is a, and lambda = a / Nk.
      I32EnumAttrCase<"ScaleFactor", 1, "scale_factor">
    ]> {
  let cppNamespace = "::mlir::softmax";
}

def Softmax_StateKindAttr : I32EnumAttr<"StateKind",
    "the meaning of the offset m in a state (m, l)", [
      I32EnumAttrCase<"Max", 0, "max">,
      I32EnumAttrCase<"Exponent", 1, "exponent">
    ]> {
  let cppNamespace = "::mlir::softmax";
}

def Softmax_NormalizeKindAttr : I32EnumAttr<"NormalizeKind",
    "what softmax.normalize writes", [
      I32EnumAttrCase<"Softmax", 0, "softmax">,
      I32EnumAttrCase<"LogSoftmax", 1, "log_softmax">
    ]> {
  let cppNamespace = "::mlir::softmax";
}

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXBASE_TD
