// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/DLModel/Bert.mlir (forward, lines 245-359: the first layer's self-attention)
// Form: torch-mlir: head split by expand_shape + transpose generics, K^T by a transpose generic,
//  batch_matmul on collapse_shape'd [B*H] operands, divf by truncf of a 0-d f64 constant read
//  through a () map, [1,1,1,S] mask, max as a two-result generic with an unused i64 argmax
//  (linalg.index/cmpf/select) into [..,S,1] keepdim tensors with (d0,d1,d2,0) maps, divf by the
//  sum, identity copy generics
// Edits: the first self-attention of @forward cut out: query/key/value projections %35/%39/%45
//  ([1, S, H*D]) and the additive mask %6 become arguments, %collapsed_60 the result; the four
//  constants it uses kept; the value projection's lines 251-264 (weight transpose, matmul, bias)
//  dropped; module-level #map aliases kept; arith.maxf -> arith.maximumf and output_shape added to
//  tensor.expand_shape (the 2023 dump predates both MLIR syntax changes); sequence 12 -> 13, head
//  dim 64 -> 24 (hidden 128 -> 48), 2 heads kept.
// Semantics: softmax(Q K^T / 8 + mask) V per head; Q, K, V are [B, S, H*D] projections split into
//  2 heads by expand_shape+transpose generics, mask [1,1,1,S] additive, result merged back to [B,
//  S, H*D].

// CHECK-LABEL: func.func @torch_mlir_bert_attention(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}}{{.*}} scale(1.250000e-01)
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
func.func @torch_mlir_bert_attention(%35: tensor<1x13x48xf32>, %39: tensor<1x13x48xf32>, %45: tensor<1x13x48xf32>, %6: tensor<1x1x1x13xf32>) -> tensor<1x13x48xf32> {
    %cst_29 = arith.constant dense<8.000000e+00> : tensor<f64>
    %cst_45 = arith.constant 0.000000e+00 : f32
    %cst_46 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %expanded_52 = tensor.expand_shape %39 [[0], [1], [2, 3]] output_shape [1, 13, 2, 24] : tensor<1x13x48xf32> into tensor<1x13x2x24xf32>
    %40 = tensor.empty() : tensor<1x2x13x24xf32>
    %41 = linalg.generic {indexing_maps = [#map3, #map13], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_52 : tensor<1x13x2x24xf32>) outs(%40 : tensor<1x2x13x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x13x24xf32>
    %expanded_53 = tensor.expand_shape %45 [[0], [1], [2, 3]] output_shape [1, 13, 2, 24] : tensor<1x13x48xf32> into tensor<1x13x2x24xf32>
    %46 = linalg.generic {indexing_maps = [#map3, #map13], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_53 : tensor<1x13x2x24xf32>) outs(%40 : tensor<1x2x13x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x13x24xf32>
    %expanded_54 = tensor.expand_shape %35 [[0], [1], [2, 3]] output_shape [1, 13, 2, 24] : tensor<1x13x48xf32> into tensor<1x13x2x24xf32>
    %47 = linalg.generic {indexing_maps = [#map3, #map13], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_54 : tensor<1x13x2x24xf32>) outs(%40 : tensor<1x2x13x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x13x24xf32>
    %48 = tensor.empty() : tensor<1x2x24x13xf32>
    %49 = linalg.generic {indexing_maps = [#map3, #map14], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41 : tensor<1x2x13x24xf32>) outs(%48 : tensor<1x2x24x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x24x13xf32>
    %50 = linalg.generic {indexing_maps = [#map15, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%47 : tensor<1x2x13x24xf32>) outs(%40 : tensor<1x2x13x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x13x24xf32>
    %51 = linalg.generic {indexing_maps = [#map15, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%49 : tensor<1x2x24x13xf32>) outs(%48 : tensor<1x2x24x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x24x13xf32>
    %collapsed = tensor.collapse_shape %50 [[0, 1], [2], [3]] : tensor<1x2x13x24xf32> into tensor<2x13x24xf32>
    %collapsed_55 = tensor.collapse_shape %51 [[0, 1], [2], [3]] : tensor<1x2x24x13xf32> into tensor<2x24x13xf32>
    %52 = tensor.empty() : tensor<2x13x13xf32>
    %53 = linalg.fill ins(%cst_45 : f32) outs(%52 : tensor<2x13x13xf32>) -> tensor<2x13x13xf32>
    %54 = linalg.batch_matmul ins(%collapsed, %collapsed_55 : tensor<2x13x24xf32>, tensor<2x24x13xf32>) outs(%53 : tensor<2x13x13xf32>) -> tensor<2x13x13xf32>
    %expanded_56 = tensor.expand_shape %54 [[0, 1], [2], [3]] output_shape [1, 2, 13, 13] : tensor<2x13x13xf32> into tensor<1x2x13x13xf32>
    %55 = tensor.empty() : tensor<1x2x13x13xf32>
    %56 = linalg.generic {indexing_maps = [#map15, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_56, %cst_29 : tensor<1x2x13x13xf32>, tensor<f64>) outs(%55 : tensor<1x2x13x13xf32>) {
    ^bb0(%in: f32, %in_73: f64, %out: f32):
      %212 = arith.truncf %in_73 : f64 to f32
      %213 = arith.divf %in, %212 : f32
      linalg.yield %213 : f32
    } -> tensor<1x2x13x13xf32>
    %57 = linalg.generic {indexing_maps = [#map15, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%56, %6 : tensor<1x2x13x13xf32>, tensor<1x1x1x13xf32>) outs(%55 : tensor<1x2x13x13xf32>) {
    ^bb0(%in: f32, %in_73: f32, %out: f32):
      %212 = arith.addf %in, %in_73 : f32
      linalg.yield %212 : f32
    } -> tensor<1x2x13x13xf32>
    %58 = tensor.empty() : tensor<1x2x13x1xi64>
    %59 = linalg.fill ins(%c0_i64 : i64) outs(%58 : tensor<1x2x13x1xi64>) -> tensor<1x2x13x1xi64>
    %60 = tensor.empty() : tensor<1x2x13x1xf32>
    %61 = linalg.fill ins(%cst_46 : f32) outs(%60 : tensor<1x2x13x1xf32>) -> tensor<1x2x13x1xf32>
    %62:2 = linalg.generic {indexing_maps = [#map3, #map16, #map16], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%57 : tensor<1x2x13x13xf32>) outs(%61, %59 : tensor<1x2x13x1xf32>, tensor<1x2x13x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_73: i64):
      %212 = linalg.index 3 : index
      %213 = arith.index_cast %212 : index to i64
      %214 = arith.maximumf %in, %out : f32
      %215 = arith.cmpf ogt, %in, %out : f32
      %216 = arith.select %215, %213, %out_73 : i64
      linalg.yield %214, %216 : f32, i64
    } -> (tensor<1x2x13x1xf32>, tensor<1x2x13x1xi64>)
    %63 = linalg.generic {indexing_maps = [#map15, #map17, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%57, %62#0 : tensor<1x2x13x13xf32>, tensor<1x2x13x1xf32>) outs(%55 : tensor<1x2x13x13xf32>) {
    ^bb0(%in: f32, %in_73: f32, %out: f32):
      %212 = arith.subf %in, %in_73 : f32
      linalg.yield %212 : f32
    } -> tensor<1x2x13x13xf32>
    %64 = linalg.generic {indexing_maps = [#map15, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%63 : tensor<1x2x13x13xf32>) outs(%55 : tensor<1x2x13x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      %212 = math.exp %in : f32
      linalg.yield %212 : f32
    } -> tensor<1x2x13x13xf32>
    %65 = linalg.fill ins(%cst_45 : f32) outs(%60 : tensor<1x2x13x1xf32>) -> tensor<1x2x13x1xf32>
    %66 = linalg.generic {indexing_maps = [#map3, #map16], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%64 : tensor<1x2x13x13xf32>) outs(%65 : tensor<1x2x13x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %212 = arith.addf %in, %out : f32
      linalg.yield %212 : f32
    } -> tensor<1x2x13x1xf32>
    %67 = linalg.generic {indexing_maps = [#map15, #map17, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%64, %66 : tensor<1x2x13x13xf32>, tensor<1x2x13x1xf32>) outs(%55 : tensor<1x2x13x13xf32>) {
    ^bb0(%in: f32, %in_73: f32, %out: f32):
      %212 = arith.divf %in, %in_73 : f32
      linalg.yield %212 : f32
    } -> tensor<1x2x13x13xf32>
    %68 = linalg.generic {indexing_maps = [#map15, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%67 : tensor<1x2x13x13xf32>) outs(%55 : tensor<1x2x13x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x13x13xf32>
    %69 = linalg.generic {indexing_maps = [#map15, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%46 : tensor<1x2x13x24xf32>) outs(%40 : tensor<1x2x13x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x13x24xf32>
    %collapsed_57 = tensor.collapse_shape %68 [[0, 1], [2], [3]] : tensor<1x2x13x13xf32> into tensor<2x13x13xf32>
    %collapsed_58 = tensor.collapse_shape %69 [[0, 1], [2], [3]] : tensor<1x2x13x24xf32> into tensor<2x13x24xf32>
    %70 = tensor.empty() : tensor<2x13x24xf32>
    %71 = linalg.fill ins(%cst_45 : f32) outs(%70 : tensor<2x13x24xf32>) -> tensor<2x13x24xf32>
    %72 = linalg.batch_matmul ins(%collapsed_57, %collapsed_58 : tensor<2x13x13xf32>, tensor<2x13x24xf32>) outs(%71 : tensor<2x13x24xf32>) -> tensor<2x13x24xf32>
    %expanded_59 = tensor.expand_shape %72 [[0, 1], [2], [3]] output_shape [1, 2, 13, 24] : tensor<2x13x24xf32> into tensor<1x2x13x24xf32>
    %73 = tensor.empty() : tensor<1x13x2x24xf32>
    %74 = linalg.generic {indexing_maps = [#map3, #map13], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_59 : tensor<1x2x13x24xf32>) outs(%73 : tensor<1x13x2x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x13x2x24xf32>
    %collapsed_60 = tensor.collapse_shape %74 [[0], [1], [2, 3]] : tensor<1x13x2x24xf32> into tensor<1x13x48xf32>
    return %collapsed_60 : tensor<1x13x48xf32>
}
