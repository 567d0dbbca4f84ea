// A mapping strategy on an op that is decomposed to linalg is refused, not
// dropped: on softmax-to-cpu's f64 and vector-width=0 paths the request
// vanished without a word.
// RUN: softmax-opt %s -split-input-file -verify-diagnostics --softmax-decompose
// RUN: softmax-opt %s -split-input-file -verify-diagnostics --softmax-to-cpu="vector-width=0"

func.func @cpu_request(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{'softmax.softmax' op asks for #softmax.cpu_strategy<algorithm = exp_pair>, but it is decomposed to linalg, which takes no strategy (the vector and GPU mappings do: drop the request, or give the op a form they take)}}
  %y = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.cpu_strategy<algorithm = exp_pair>}
  return %y : tensor<4x8xf32>
}

// -----

func.func @f64_request(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %e = tensor.empty() : tensor<4x8xf64>
  // expected-error @+1 {{'softmax.log_softmax' op asks for #softmax.cpu_strategy<vector_width = 4>, but it is decomposed to linalg}}
  %y = softmax.log_softmax ins(%x : tensor<4x8xf64>) outs(%e : tensor<4x8xf64>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.cpu_strategy<vector_width = 4>}
  return %y : tensor<4x8xf64>
}
