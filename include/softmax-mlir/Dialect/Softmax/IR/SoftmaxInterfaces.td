//===- SoftmaxInterfaces.td - softmax op interfaces ----------*- tablegen -*-===//
//
// What the passes ask of a semantic op (softmax, log_softmax, logsumexp,
// attention), whatever its class.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXINTERFACES_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXINTERFACES_TD

include "mlir/IR/Interfaces.td"

def Softmax_SemanticOpInterface : OpInterface<"SemanticOpInterface"> {
  let cppNamespace = "::mlir::softmax";
  let description = [{
    A semantic op of the softmax dialect: one that states *what* is
    normalized (`softmax.softmax`, `softmax.log_softmax`,
    `softmax.logsumexp`, `softmax.attention`), as opposed to the state ops
    that spell out *how*. The algorithm selection, the decomposition and
    the CPU and GPU mappings read the reduction through this interface,
    never through attribute names or a list of op classes.

    The softmax's *row* is the set of values one normalizing reduction runs
    over: dimension `getReductionDimension()` of `getReducedInput()`. For
    `softmax.attention` that operand is `key`: the row of query `i` is its
    scores against every key `j` of dimension 2 (`Nk`).

    Example: for

    ```mlir
    %y = softmax.log_softmax ins(%x : tensor<8x1000xf32>)
                             outs(%init : tensor<8x1000xf32>)
                             dimension(1) masked(zero) algorithm(exp_pair)
    ```

    the interface answers `getReducedInput() = %x`,
    `getReductionDimension() = 1`, `getStaticRowLength() = 1000`,
    `getAlgorithm() = exp_pair`, `getStateKind() = exponent`,
    `getNormalizeKind() = log_softmax`, `getMasked() = zero`,
    `getInputs() = (%x)`, `getDestinations() = (%init)`.
  }];

  let methods = [
    InterfaceMethod<[{
        The operands the op reads, in operand order: `input` for softmax,
        log_softmax and logsumexp; `query`, `key`, `value` and, when
        given, `mask` for attention.
      }],
      "::mlir::OperandRange", "getInputs", (ins), [{
        return $_op->getOperands().take_front(
            $_op.getDpsInits().getBeginOperandIndex());
      }]>,
    InterfaceMethod<[{
        The destinations the op writes (its DPS inits): `init` for
        softmax, log_softmax and logsumexp; `output` and, when given,
        `lse` for attention. On tensors the results are their new values;
        on memrefs the op writes them.
      }],
      "::mlir::OperandRange", "getDestinations", (ins), [{
        return $_op.getDpsInits();
      }]>,
    InterfaceMethod<[{
        The operand whose dimension `getReductionDimension()` is the
        softmax's row: `input`, or `key` for attention.
      }],
      "::mlir::Value", "getReducedInput", (ins), [{}], [{
        return $_op.getInput();
      }]>,
    InterfaceMethod<[{
        The dimension of `getReducedInput()` that the normalizing reduction
        runs over: the `dimension` attribute, or 2 (the keys) for
        attention.
      }],
      "int64_t", "getReductionDimension", (ins), [{}], [{
        return static_cast<int64_t>($_op.getDimension());
      }]>,
    InterfaceMethod<[{
        How the reduction is computed: the `algorithm` attribute (`auto`
        until `softmax-select-algorithm` resolves it). Attention has no
        such attribute and is always `online`: both of its mappings carry
        the online state over tiles of keys, and nothing else is
        implemented.
      }],
      "::mlir::softmax::Algorithm", "getAlgorithm", (ins), [{}], [{
        return $_op.getAlgorithm();
      }]>,
    InterfaceMethod<[{
        Whether `setAlgorithm` may choose the algorithm: true for softmax,
        log_softmax and logsumexp, false for attention (see
        `getAlgorithm`). Algorithm selection skips ops without a choice.
      }],
      "bool", "hasSelectableAlgorithm", (ins), [{}], [{
        return true;
      }]>,
    InterfaceMethod<[{
        Sets the algorithm. Only for ops with `hasSelectableAlgorithm()`;
        on attention only `online` (what it already is) may be set.
      }],
      "void", "setAlgorithm", (ins "::mlir::softmax::Algorithm":$algorithm),
      [{}], [{
        $_op.setAlgorithm(algorithm);
      }]>,
    InterfaceMethod<[{
        What the state's offset `m` means for `getAlgorithm()`: `exponent`
        for `exp_pair`, `max` for `three_pass` and `online` (and
        attention), nullopt while the algorithm is `auto`.
      }],
      "std::optional<::mlir::softmax::StateKind>", "getStateKind", (ins),
      [{}], [{
        switch ($_op.getAlgorithm()) {
        case ::mlir::softmax::Algorithm::Auto:
          return std::nullopt;
        case ::mlir::softmax::Algorithm::ExpPair:
          return ::mlir::softmax::StateKind::Exponent;
        case ::mlir::softmax::Algorithm::ThreePass:
        case ::mlir::softmax::Algorithm::Online:
          break;
        }
        return ::mlir::softmax::StateKind::Max;
      }]>,
    InterfaceMethod<[{
        What the op writes from the final state: `softmax` (probabilities;
        softmax, and attention before its product with `value`),
        `log_softmax`, or nullopt for logsumexp, which writes the
        log-sum-exp itself (what `softmax.lse` computes).
      }],
      "std::optional<::mlir::softmax::NormalizeKind>", "getNormalizeKind",
      (ins)>,
    InterfaceMethod<[{
        What a row whose every value is `-inf` yields (the `masked`
        attribute; see the dialect description).
      }],
      "::mlir::softmax::MaskedRows", "getMasked", (ins), [{}], [{
        return $_op.getMasked();
      }]>,
    InterfaceMethod<[{
        The element type of the running state: `acc_type`, or f32 (f64 for
        f64 inputs) when it is absent; always f32 for attention.
      }],
      "::mlir::FloatType", "getAccumulatorType", (ins), [{}], [{
        return $_op.getAccumulatorType();
      }]>,
  ];

  let extraClassDeclaration = [{
    /// The static length of the row (dimension getReductionDimension() of
    /// getReducedInput()), or nullopt when it is dynamic.
    std::optional<int64_t> getStaticRowLength() {
      auto type = ::llvm::cast<::mlir::ShapedType>(getReducedInput().getType());
      int64_t size = type.getDimSize(getReductionDimension());
      if (::mlir::ShapedType::isDynamic(size))
        return std::nullopt;
      return size;
    }
  }];
}

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXINTERFACES_TD
