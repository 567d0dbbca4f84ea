// softmax-map-to-cpu and softmax-map-to-gpu apply populateSoftmaxTo{CPU,GPU}Patterns
// in one walk: every op the mapping refuses gets its own diagnostic (each
// once), and the pass fails.
// RUN: softmax-opt %s --softmax-map-to-cpu -verify-diagnostics
// RUN: softmax-opt %s --softmax-map-to-gpu -verify-diagnostics

func.func @two_refused(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>,
                       %a: memref<4x8xf32>, %b: memref<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{mapping expects memrefs; run one-shot-bufferize first}}
  %y = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
                       dimension(1) masked(zero) algorithm(online)
  softmax.softmax ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
                  dimension(1) masked(zero) algorithm(online)
  // expected-error @+1 {{mapping expects memrefs; run one-shot-bufferize first}}
  %z = softmax.log_softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
                           dimension(1) masked(zero) algorithm(online)
  return %y, %z : tensor<4x8xf32>, tensor<4x8xf32>
}
