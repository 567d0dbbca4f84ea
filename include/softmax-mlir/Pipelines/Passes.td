//===- Passes.td - passes of the named pipelines -------------*- tablegen -*-===//

#ifndef SOFTMAX_MLIR_PIPELINES_PASSES_TD
#define SOFTMAX_MLIR_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def SoftmaxCheckNoHostFallback
    : Pass<"softmax-check-no-host-fallback", "::mlir::ModuleOp"> {
  let summary = "Reject softmax- and attention-shaped host code in a GPU "
                "pipeline";
  let description = [{
    `softmax-to-nvvm` and `softmax-to-rocdl` turn the softmax ops they can
    map into kernels (`softmax-map-to-gpu`); everything else in the module
    is compiled for the host. When `softmax-raise` did not recognize a
    softmax (an unusual front-end form, say), the pipeline would silently
    produce a CPU program. This pass, run in both GPU pipelines after the
    mapping and before kernel outlining, fails with an error at every
    computation outside a `gpu.launch` (and outside `gpu.module`s) that
    looks like a softmax or an attention:

    - a `softmax.*` op that was not mapped to a kernel;
    - a `linalg.softmax`;
    - a linalg op whose body computes `math.exp` (or `exp2`, `expm1`) and
      that reduces itself, or that reads or writes a tensor or buffer
      another linalg op reduces (exp feeding a sum, a max feeding exp): a
      softmax-shaped computation;
    - the same, where one of those neighbours is a contraction (a matmul
      feeding or fed by the exp): an attention-shaped computation.

    Buffers are followed through view-like ops (`memref.subview`,
    `memref.cast`, ...) to their allocation. Every other host op (an
    elementwise add, a matmul alone, the program's own loops) is left
    alone. The pipelines' `allow-host-code=true` leaves this pass out.

    Example: on

    ```mlir
    %e = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<4x8xf32>) outs(%t : memref<4x8xf32>) {
      ^bb0(%a: f32, %b: f32):
        %0 = math.exp %a : f32
        linalg.yield %0 : f32
      }
    linalg.generic {indexing_maps = [#id, #row],
                    iterator_types = ["parallel", "reduction"]}
        ins(%t : memref<4x8xf32>) outs(%s : memref<4xf32>) { ... arith.addf ... }
    ```

    the pass reports

    ```
    error: softmax-to-nvvm would compile this softmax-shaped computation
    (math.exp whose result is reduced) for the host, not into a GPU kernel:
    softmax-raise did not raise it to the softmax dialect; pass
    allow-host-code=true to the pipeline to allow host code
    note: the reduction
    ```
  }];
  let options = [
    Option<"pipeline", "pipeline", "std::string",
           /*default=*/"\"the GPU pipeline\"",
           "Name of the pipeline in the messages">
  ];
  let statistics = [
    Statistic<"numHostFallbacks", "host-fallbacks",
              "Softmax- or attention-shaped computations found outside "
              "kernels">
  ];
}

#endif // SOFTMAX_MLIR_PIPELINES_PASSES_TD
