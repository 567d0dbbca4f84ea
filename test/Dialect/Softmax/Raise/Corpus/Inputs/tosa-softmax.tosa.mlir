// Input to tosa-softmax.mlir: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:tests/e2e/regression/softmax.mlir (softmax (the TOSA input quoted in the file's header comment)), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @tosa_softmax(%0: tensor<3x5x37xf32>) -> tensor<3x5x37xf32> {
  %red = tosa.reduce_max %0 {axis = 2 : i32} : (tensor<3x5x37xf32>) -> tensor<3x5x1xf32>
  %sub = tosa.sub %0, %red : (tensor<3x5x37xf32>, tensor<3x5x1xf32>) -> tensor<3x5x37xf32>
  %exp = tosa.exp %sub : (tensor<3x5x37xf32>) -> tensor<3x5x37xf32>
  %sum = tosa.reduce_sum %exp {axis = 2 : i32} : (tensor<3x5x37xf32>) -> tensor<3x5x1xf32>
  %rec = tosa.reciprocal %sum : (tensor<3x5x1xf32>) -> tensor<3x5x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mul = tosa.mul %exp, %rec, %shift : (tensor<3x5x37xf32>, tensor<3x5x1xf32>, tensor<1xi8>) -> tensor<3x5x37xf32>
  return %mul : tensor<3x5x37xf32>
}
