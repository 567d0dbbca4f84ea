func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
                       dimension(1) masked(zero)
  return %y : tensor<4x8xf32>
}
