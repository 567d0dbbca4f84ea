// What a front end emits: softmax-to-nvvm raises it and maps it to a kernel.
func.func @linalg_softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x1000xf32>)
                                   outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}
