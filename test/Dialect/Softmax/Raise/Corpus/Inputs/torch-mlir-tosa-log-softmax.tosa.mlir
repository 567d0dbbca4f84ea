// Input to torch-mlir-tosa-log-softmax.mlir: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-script/mlir/linear.mlir (forward (tosa section): the log_softmax of the logits), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @torch_mlir_tosa_log_softmax(%18: tensor<3x37xf32>) -> tensor<3x37xf32> {
    %19 = tosa.reduce_max %18 {axis = 1 : i32} : (tensor<3x37xf32>) -> tensor<3x1xf32>
    %20 = tosa.sub %18, %19 : (tensor<3x37xf32>, tensor<3x1xf32>) -> tensor<3x37xf32>
    %21 = tosa.exp %20 : (tensor<3x37xf32>) -> tensor<3x37xf32>
    %22 = tosa.reduce_sum %21 {axis = 1 : i32} : (tensor<3x37xf32>) -> tensor<3x1xf32>
    %23 = tosa.log %22 : (tensor<3x1xf32>) -> tensor<3x1xf32>
    %24 = tosa.sub %20, %23 : (tensor<3x37xf32>, tensor<3x1xf32>) -> tensor<3x37xf32>
    return %24 : tensor<3x37xf32>
}
