// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/DLModel/Bert.mlir (forward, lines 306-339: softmax of the first layer's attention scores)
// Form: torch-mlir keepdim softmax: two-result max generic with an unused i64 argmax, [..,1]
//  keepdim results, (d0,d1,d2,0) and (0,d1,d2,0) maps, batch dim read through constant 0
//  (0,d1,d2,d3) maps
// Edits: the softmax of the first self-attention cut out: the masked scores %57 are the argument,
//  %67 the result; the constants it uses and the tensor.empty %55 kept; arith.maxf ->
//  arith.maximumf; tensor<1x2x12x12xf32> -> tensor<1x3x5x37xf32>, tensor<1x2x12x1xf32> ->
//  tensor<1x3x5x1xf32> (the batch stays 1: the maps read batch 0 through a constant 0).
// Semantics: softmax over dimension 3 of tensor<1x3x5x37xf32>.

// CHECK-LABEL: func.func @torch_mlir_bert_softmax_keepdim(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<1x3x5x37xf32>) outs(%{{.*}}) dimension(3)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> ()>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map7 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map8 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map9 = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#map10 = affine_map<(d0, d1, d2) -> (d2)>
#map11 = affine_map<(d0, d1) -> (d1, d0)>
#map12 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#map14 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
#map15 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map16 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map17 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>
#map18 = affine_map<(d0, d1) -> (d1)>
func.func @torch_mlir_bert_softmax_keepdim(%57: tensor<1x3x5x37xf32>) -> tensor<1x3x5x37xf32> {
    %cst_29 = arith.constant dense<8.000000e+00> : tensor<f64>
    %cst_45 = arith.constant 0.000000e+00 : f32
    %cst_46 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %55 = tensor.empty() : tensor<1x3x5x37xf32>
    %58 = tensor.empty() : tensor<1x3x5x1xi64>
    %59 = linalg.fill ins(%c0_i64 : i64) outs(%58 : tensor<1x3x5x1xi64>) -> tensor<1x3x5x1xi64>
    %60 = tensor.empty() : tensor<1x3x5x1xf32>
    %61 = linalg.fill ins(%cst_46 : f32) outs(%60 : tensor<1x3x5x1xf32>) -> tensor<1x3x5x1xf32>
    %62:2 = linalg.generic {indexing_maps = [#map3, #map16, #map16], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%57 : tensor<1x3x5x37xf32>) outs(%61, %59 : tensor<1x3x5x1xf32>, tensor<1x3x5x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_73: i64):
      %212 = linalg.index 3 : index
      %213 = arith.index_cast %212 : index to i64
      %214 = arith.maximumf %in, %out : f32
      %215 = arith.cmpf ogt, %in, %out : f32
      %216 = arith.select %215, %213, %out_73 : i64
      linalg.yield %214, %216 : f32, i64
    } -> (tensor<1x3x5x1xf32>, tensor<1x3x5x1xi64>)
    %63 = linalg.generic {indexing_maps = [#map15, #map17, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%57, %62#0 : tensor<1x3x5x37xf32>, tensor<1x3x5x1xf32>) outs(%55 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %in_73: f32, %out: f32):
      %212 = arith.subf %in, %in_73 : f32
      linalg.yield %212 : f32
    } -> tensor<1x3x5x37xf32>
    %64 = linalg.generic {indexing_maps = [#map15, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%63 : tensor<1x3x5x37xf32>) outs(%55 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %212 = math.exp %in : f32
      linalg.yield %212 : f32
    } -> tensor<1x3x5x37xf32>
    %65 = linalg.fill ins(%cst_45 : f32) outs(%60 : tensor<1x3x5x1xf32>) -> tensor<1x3x5x1xf32>
    %66 = linalg.generic {indexing_maps = [#map3, #map16], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%64 : tensor<1x3x5x37xf32>) outs(%65 : tensor<1x3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %212 = arith.addf %in, %out : f32
      linalg.yield %212 : f32
    } -> tensor<1x3x5x1xf32>
    %67 = linalg.generic {indexing_maps = [#map15, #map17, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%64, %66 : tensor<1x3x5x37xf32>, tensor<1x3x5x1xf32>) outs(%55 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %in_73: f32, %out: f32):
      %212 = arith.divf %in, %in_73 : f32
      linalg.yield %212 : f32
    } -> tensor<1x3x5x37xf32>
    return %67 : tensor<1x3x5x37xf32>
}
