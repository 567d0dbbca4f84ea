// Input to buddy-tosa-logsumexp-keepdim.mlir: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-gqa-attention.mlir (kernel, %167 .. %172: the logsumexp of the masked scores), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @buddy_logsumexp_keepdim(%166: tensor<6x1x37xf32>) -> tensor<6x1x1xf32> {
  %167 = tosa.reduce_max %166 {axis = 2 : i32} : (tensor<6x1x37xf32>) -> tensor<6x1x1xf32>
  %168 = tosa.sub %166, %167 : (tensor<6x1x37xf32>, tensor<6x1x1xf32>) -> tensor<6x1x37xf32>
  %169 = math.exp %168 : tensor<6x1x37xf32>
  %170 = tosa.reduce_sum %169 {axis = 2 : i32} : (tensor<6x1x37xf32>) -> tensor<6x1x1xf32>
  %171 = tosa.log %170 : (tensor<6x1x1xf32>) -> tensor<6x1x1xf32>
  %172 = tosa.add %167, %171 : (tensor<6x1x1xf32>, tensor<6x1x1xf32>) -> tensor<6x1x1xf32>
  return %172 : tensor<6x1x1xf32>
}
