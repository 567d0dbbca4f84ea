//===- TopKOps.td - fused softmax + top-k ---------------------*- tablegen -*-===//
//
// softmax.topk: the k most probable classes of each row with their
// softmax probabilities, from one read of the row (the online softmax
// paper's fused softmax + top-k, arXiv 1805.02867).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_TOPKOPS_TD
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_TOPKOPS_TD

def Softmax_TopKInput : AnyTypeOf<[RankedTensorOf<[F16, BF16, F32]>,
                                   MemRefOf<[F16, BF16, F32]>],
    "ranked tensor or memref of f16, bf16 or f32">;
def Softmax_TopKProbs : AnyTypeOf<[RankedTensorOf<[F32]>, MemRefOf<[F32]>],
    "ranked tensor or memref of f32">;
def Softmax_TopKIndices : AnyTypeOf<[RankedTensorOf<[I32, I64]>,
                                     MemRefOf<[I32, I64]>],
    "ranked tensor or memref of i32 or i64">;

def Softmax_TopKOp : Softmax_Op<"topk", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "the k largest softmax probabilities of each row, with indices";
  let description = [{
    For each row of `input` `[B, V]`, the `k` largest elements in
    descending order and their softmax probabilities over the whole row:
    `probs[b, j] = exp(x[b, i_j] - lse_b)` with `lse_b = log sum_v
    exp(x[b, v])`, `indices[b, j] = i_j`, and with `log_probs` also
    `x[b, i_j] - lse_b`. Ties are broken by the lower index, so the order
    is total and the result deterministic: `i_j` is the j-th element in
    the order (value descending, index ascending). NaN elements are never
    chosen (a row that holds one has NaN probabilities: its lse is NaN, as
    softmax gives). Where a row has fewer than `k` elements that can be chosen (V <
    k, or NaNs), the remaining positions get index -1 and probability 0
    (log-probability -inf). A row of all `-inf` has probability 0
    everywhere (its lse is `-inf`). Probabilities are f32 whatever the
    input type (f16, bf16, f32); indices are i32 or i64.

    On tensors the op returns its outputs; on memrefs (after
    bufferization) it writes its inits and has no results. That form is
    what the GPU mapping takes (softmax-map-to-gpu): one block per row
    reads the row once, keeping the online (m, l) and a buffer of
    candidates above a running threshold (docs/TopK.md). The CPU mapping
    (softmax-map-to-cpu, in softmax-to-cpu) reads each row once too: the
    online (m, l) in vector loops and a heap of k that a vector enters
    only when one of its lanes beats the k-th kept value.
    softmax-decompose gives the reference form on tensors: the rows' lse,
    then k selection passes (softmax-to-cpu with vector-width=0).

    Example:

    ```mlir
    %p, %i = softmax.topk ins(%x : tensor<256x128256xbf16>)
                          outs(%p0, %i0 : tensor<256x50xf32>, tensor<256x50xi32>)
                          k(50)

    // After bufferization (the GPU mapping's form):
    softmax.topk ins(%xb : memref<256x128256xbf16>)
                 outs(%pb, %ib : memref<256x50xf32>, memref<256x50xi32>) k(50)
    ```
  }];
  let arguments = (ins Softmax_TopKInput:$input,
                       Softmax_TopKProbs:$probs_init,
                       Softmax_TopKIndices:$indices_init,
                       Optional<Softmax_TopKProbs>:$log_probs_init,
                       I64Attr:$k);
  let results = (outs Variadic<RankedTensorOf<[F32, I32, I64]>>:$result_tensors);
  // Result types are those of the inits on tensors and absent on memrefs, so
  // they are never spelled.
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)`
    `outs` `(` $probs_init `,` $indices_init `:` type($probs_init) `,`
        type($indices_init) `)`
    (`log_probs` `(` $log_probs_init^ `:` type($log_probs_init) `)`)?
    `k` `(` $k `)`
    attr-dict `` custom<DpsResults>(type($result_tensors),
        ref(type($probs_init)), ref(type($indices_init)),
        ref(type($log_probs_init)))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), 1,
                                         getLogProbsInit() ? 3 : 2);
    }
    /// The results on tensors (null on memrefs, where the op writes its
    /// inits).
    ::mlir::Value getProbs() {
      return getResultTensors().empty() ? ::mlir::Value()
                                        : getResultTensors()[0];
    }
    ::mlir::Value getIndices() {
      return getResultTensors().empty() ? ::mlir::Value()
                                        : getResultTensors()[1];
    }
    ::mlir::Value getLogProbs() {
      return getResultTensors().size() < 3 ? ::mlir::Value()
                                           : getResultTensors()[2];
    }
  }];
}

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_TOPKOPS_TD
