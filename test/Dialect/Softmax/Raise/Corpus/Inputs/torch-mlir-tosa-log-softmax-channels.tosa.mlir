// Input to torch-mlir-tosa-log-softmax-channels.mlir: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-script/mlir/conv.mlir (forward (tosa section): log_softmax(dim=1)), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @torch_mlir_tosa_log_softmax_channels(%15: tensor<1x37x5x3xf32>) -> tensor<1x37x5x3xf32> {
    %16 = tosa.reduce_max %15 {axis = 1 : i32} : (tensor<1x37x5x3xf32>) -> tensor<1x1x5x3xf32>
    %17 = tosa.sub %15, %16 : (tensor<1x37x5x3xf32>, tensor<1x1x5x3xf32>) -> tensor<1x37x5x3xf32>
    %18 = tosa.exp %17 : (tensor<1x37x5x3xf32>) -> tensor<1x37x5x3xf32>
    %19 = tosa.reduce_sum %18 {axis = 1 : i32} : (tensor<1x37x5x3xf32>) -> tensor<1x1x5x3xf32>
    %20 = tosa.log %19 : (tensor<1x1x5x3xf32>) -> tensor<1x1x5x3xf32>
    %21 = tosa.sub %17, %20 : (tensor<1x37x5x3xf32>, tensor<1x1x5x3xf32>) -> tensor<1x37x5x3xf32>
    return %21 : tensor<1x37x5x3xf32>
}
