// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: copparihollmann/merlin@a18da2a5ef65852d6c46e9fbae57b08c56681d2d:samples/test_ukernel_qs8_qc8w_gemm_rvv/compilation_phases_transformer/model_quantized_ort.1.input.mlir (main_graph$async, %107 .. %117: the softmax of the first attention's scores)
// Producer: ONNX through torch-mlir: a PyTorch TransformerEncoderLayer (d_model 64, 8 heads,
//  export_models_onnx.py of the same commit) exported to ONNX and statically quantized by
//  onnxruntime (QDQ), imported by iree-compile (torch-mlir's onnx.Softmax -> torch -> linalg
//  conversion) and dumped after IREE's input phase; the ONNX graph of the same commit
//  (model_quantized_ort.mlir) has onnx.Softmax {axis = -1} on [1,8,16,16].
// Form: torch-mlir softmax over the last of four dimensions: two-result max (unused i64 argmax)
//  into [1,H,S] and tensor.expand_shape to [1,H,S,1], (d0,d1,d2,0) broadcast maps, sum into
//  [1,H,S,1], divf; input and output sit between QuantizeLinear/DequantizeLinear generics.
// Edits: the softmax of @main_graph$async cut out: the dequantized scores %106 are the argument,
//  %117 the result (the QDQ generics around it dropped); the constants it uses (%c0_i64, %cst_15,
//  %cst_16), the tensor.empty %102 and the module's #map5/#map10/#map11 kept; util.func ->
//  func.func; tensor<1x8x16x16xf32> -> tensor<1x3x5x37xf32> (8 heads -> 3, 16 queries -> 5, 16 keys
//  -> 37), tensor<1x8x16x..> -> tensor<1x3x5x..>.
// Semantics: softmax over dimension 3 of tensor<1x3x5x37xf32>.

// CHECK-LABEL: func.func @onnx_quantized_transformer_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<1x3x5x37xf32>) outs(%{{.*}}) dimension(3)
// CHECK-NOT: math.exp
// CHECK: return

#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map11 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
func.func @onnx_quantized_transformer_softmax(%106: tensor<1x3x5x37xf32>) -> tensor<1x3x5x37xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_15 = arith.constant 0xFF800000 : f32
    %cst_16 = arith.constant 0.000000e+00 : f32
    %102 = tensor.empty() : tensor<1x3x5x37xf32>
    %107 = tensor.empty() : tensor<1x3x5xi64>
    %108 = linalg.fill ins(%c0_i64 : i64) outs(%107 : tensor<1x3x5xi64>) -> tensor<1x3x5xi64>
    %109 = tensor.empty() : tensor<1x3x5xf32>
    %110 = linalg.fill ins(%cst_15 : f32) outs(%109 : tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
    %111:2 = linalg.generic {indexing_maps = [#map5, #map10, #map10], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%106 : tensor<1x3x5x37xf32>) outs(%110, %108 : tensor<1x3x5xf32>, tensor<1x3x5xi64>) {
    ^bb0(%in: f32, %out: f32, %out_103: i64):
      %211 = linalg.index 3 : index
      %212 = arith.index_cast %211 : index to i64
      %213 = arith.maximumf %in, %out : f32
      %214 = arith.cmpf ogt, %in, %out : f32
      %215 = arith.select %214, %212, %out_103 : i64
      linalg.yield %213, %215 : f32, i64
    } -> (tensor<1x3x5xf32>, tensor<1x3x5xi64>)
    %expanded_86 = tensor.expand_shape %111#0 [[0], [1], [2, 3]] output_shape [1, 3, 5, 1] : tensor<1x3x5xf32> into tensor<1x3x5x1xf32>
    %112 = linalg.generic {indexing_maps = [#map5, #map11, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%106, %expanded_86 : tensor<1x3x5x37xf32>, tensor<1x3x5x1xf32>) outs(%102 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %in_103: f32, %out: f32):
      %211 = arith.subf %in, %in_103 : f32
      linalg.yield %211 : f32
    } -> tensor<1x3x5x37xf32>
    %113 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%112 : tensor<1x3x5x37xf32>) outs(%102 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %211 = math.exp %in : f32
      linalg.yield %211 : f32
    } -> tensor<1x3x5x37xf32>
    %114 = tensor.empty() : tensor<1x3x5x1xf32>
    %115 = linalg.fill ins(%cst_16 : f32) outs(%114 : tensor<1x3x5x1xf32>) -> tensor<1x3x5x1xf32>
    %116 = linalg.generic {indexing_maps = [#map5, #map11], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%113 : tensor<1x3x5x37xf32>) outs(%115 : tensor<1x3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %211 = arith.addf %in, %out : f32
      linalg.yield %211 : f32
    } -> tensor<1x3x5x1xf32>
    %117 = linalg.generic {indexing_maps = [#map5, #map11, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%113, %116 : tensor<1x3x5x37xf32>, tensor<1x3x5x1xf32>) outs(%102 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %in_103: f32, %out: f32):
      %211 = arith.divf %in, %in_103 : f32
      linalg.yield %211 : f32
    } -> tensor<1x3x5x37xf32>
    return %117 : tensor<1x3x5x37xf32>
}
