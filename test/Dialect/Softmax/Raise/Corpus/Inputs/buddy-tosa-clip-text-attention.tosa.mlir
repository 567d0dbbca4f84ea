// Input to buddy-tosa-clip-text-attention.mlir: buddy-compiler/buddy-mlir@335ac7ad4d3a3adc203e52fad5d8bca9aad46afd:examples/BuddyStableDiffusion/subgraph_text_encoder.mlir (subgraph0: the causal and padding masks %12 .. %34 and the first CLIP self-attention %64 .. %128), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
#map = affine_map<(d0, d1, d2) -> (d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @buddy_tosa_clip_text_attention(%arg4: tensor<1x13xi64>, %63: tensor<1x13x48xf32>, %75: tensor<1x13x48xf32>, %89: tensor<1x13x48xf32>) -> tensor<1x13x48xf32> {
    %12 = "arith.constant"() <{value = dense<-3.40282347E+38> : tensor<13x13xf32>}> : () -> tensor<13x13xf32>
    %13 = "tosa.const"() <{values = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]> : tensor<13xi64>}> : () -> tensor<13xi64>
    %14 = "tosa.const"() <{values = dense<1> : tensor<13xi64>}> : () -> tensor<13xi64>
    %15 = "tosa.add"(%13, %14) : (tensor<13xi64>, tensor<13xi64>) -> tensor<13xi64>
    %shape1 = tosa.const_shape {values = dense<[13, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %16 = tosa.reshape %15, %shape1 : (tensor<13xi64>, !tosa.shape<2>) -> tensor<13x1xi64>
    %17 = "tensor.empty"() : () -> tensor<13x13xi1>
    %18 = "linalg.generic"(%13, %16, %17) <{indexing_maps = [#map, #map1, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg375: i64, %arg376: i64, %arg377: i1):
      %3446 = "arith.cmpi"(%arg375, %arg376) <{predicate = 2 : i64}> : (i64, i64) -> i1
      "linalg.yield"(%3446) : (i1) -> ()
    }) : (tensor<13xi64>, tensor<13x1xi64>, tensor<13x13xi1>) -> tensor<13x13xi1>
    %19 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %20 = "tensor.empty"() : () -> tensor<13x13xf32>
    %21 = "linalg.generic"(%18, %12, %20) <{indexing_maps = [#map3, #map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg375: i1, %arg376: f32, %arg377: f32):
      %3446 = "arith.select"(%arg375, %19, %arg376) : (i1, f32, f32) -> f32
      "linalg.yield"(%3446) : (f32) -> ()
    }) : (tensor<13x13xi1>, tensor<13x13xf32>, tensor<13x13xf32>) -> tensor<13x13xf32>
    %22 = "tensor.extract_slice"(%arg4) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, 13>, static_strides = array<i64: 1, 1>}> : (tensor<1x13xi64>) -> tensor<1x13xi64>
    %shape2 = tosa.const_shape {values = dense<[1, 1, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %23 = tosa.reshape %22, %shape2 : (tensor<1x13xi64>, !tosa.shape<3>) -> tensor<1x1x13xi64>
    %shape3 = tosa.const_shape {values = dense<[1, 1, 1, 13]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %24 = tosa.reshape %23, %shape3 : (tensor<1x1x13xi64>, !tosa.shape<4>) -> tensor<1x1x1x13xi64>
    %25 = "tensor.extract_slice"(%24) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 1, 1, 13>, static_strides = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x1x13xi64>) -> tensor<1x1x1x13xi64>
    %26 = "tosa.const"() <{values = dense<0> : tensor<1x1x13x13xi64>}> : () -> tensor<1x1x13x13xi64>
    %27 = "tosa.add"(%25, %26) : (tensor<1x1x1x13xi64>, tensor<1x1x13x13xi64>) -> tensor<1x1x13x13xi64>
    %28 = "tosa.cast"(%27) : (tensor<1x1x13x13xi64>) -> tensor<1x1x13x13xf32>
    %29 = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x13x13xf32>}> : () -> tensor<1x1x13x13xf32>
    %30 = "tosa.sub"(%29, %28) : (tensor<1x1x13x13xf32>, tensor<1x1x13x13xf32>) -> tensor<1x1x13x13xf32>
    %31 = "tosa.cast"(%30) : (tensor<1x1x13x13xf32>) -> tensor<1x1x13x13xi1>
    %32 = "arith.constant"() <{value = -3.40282347E+38 : f32}> : () -> f32
    %33 = "tensor.empty"() : () -> tensor<1x1x13x13xf32>
    %34 = "linalg.generic"(%31, %30, %33) <{indexing_maps = [#map4, #map4, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg375: i1, %arg376: f32, %arg377: f32):
      %3446 = "arith.select"(%arg375, %32, %arg376) : (i1, f32, f32) -> f32
      "linalg.yield"(%3446) : (f32) -> ()
    }) : (tensor<1x1x13x13xi1>, tensor<1x1x13x13xf32>, tensor<1x1x13x13xf32>) -> tensor<1x1x13x13xf32>
    %64 = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x13x48xf32>}> : () -> tensor<1x13x48xf32>
    %shift4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %65 = tosa.mul %63, %64, %shift4 : (tensor<1x13x48xf32>, tensor<1x13x48xf32>, tensor<1xi8>) -> tensor<1x13x48xf32>
    %shape5 = tosa.const_shape {values = dense<[1, 13, 3, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %76 = tosa.reshape %75, %shape5 : (tensor<1x13x48xf32>, !tosa.shape<4>) -> tensor<1x13x3x16xf32>
    %78 = tosa.transpose %76 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x13x3x16xf32>) -> tensor<1x3x13x16xf32>
    %79 = "tosa.identity"(%78) : (tensor<1x3x13x16xf32>) -> tensor<1x3x13x16xf32>
    %shape6 = tosa.const_shape {values = dense<[1, 13, 3, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %90 = tosa.reshape %89, %shape6 : (tensor<1x13x48xf32>, !tosa.shape<4>) -> tensor<1x13x3x16xf32>
    %92 = tosa.transpose %90 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x13x3x16xf32>) -> tensor<1x3x13x16xf32>
    %93 = "tosa.identity"(%92) : (tensor<1x3x13x16xf32>) -> tensor<1x3x13x16xf32>
    %shape7 = tosa.const_shape {values = dense<[1, 13, 3, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %94 = tosa.reshape %65, %shape7 : (tensor<1x13x48xf32>, !tosa.shape<4>) -> tensor<1x13x3x16xf32>
    %96 = tosa.transpose %94 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x13x3x16xf32>) -> tensor<1x3x13x16xf32>
    %97 = "tosa.identity"(%96) : (tensor<1x3x13x16xf32>) -> tensor<1x3x13x16xf32>
    %shape8 = tosa.const_shape {values = dense<[3, 13, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %98 = tosa.reshape %97, %shape8 : (tensor<1x3x13x16xf32>, !tosa.shape<3>) -> tensor<3x13x16xf32>
    %shape9 = tosa.const_shape {values = dense<[3, 13, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %99 = tosa.reshape %79, %shape9 : (tensor<1x3x13x16xf32>, !tosa.shape<3>) -> tensor<3x13x16xf32>
    %shape10 = tosa.const_shape {values = dense<[3, 13, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %100 = tosa.reshape %93, %shape10 : (tensor<1x3x13x16xf32>, !tosa.shape<3>) -> tensor<3x13x16xf32>
    %102 = tosa.transpose %99 {perms = array<i32: 0, 2, 1>} : (tensor<3x13x16xf32>) -> tensor<3x16x13xf32>
    %azp11 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %bzp12 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %103 = tosa.matmul %98, %102, %azp11, %bzp12 : (tensor<3x13x16xf32>, tensor<3x16x13xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x13x13xf32>
    %shape13 = tosa.const_shape {values = dense<[1, 3, 13, 13]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %104 = tosa.reshape %103, %shape13 : (tensor<3x13x13xf32>, !tosa.shape<4>) -> tensor<1x3x13x13xf32>
    %shape14 = tosa.const_shape {values = dense<[1, 13, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %105 = tosa.reshape %21, %shape14 : (tensor<13x13xf32>, !tosa.shape<3>) -> tensor<1x13x13xf32>
    %shape15 = tosa.const_shape {values = dense<[1, 1, 13, 13]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %106 = tosa.reshape %105, %shape15 : (tensor<1x13x13xf32>, !tosa.shape<4>) -> tensor<1x1x13x13xf32>
    %107 = "tensor.extract_slice"(%106) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 1, 13, 13>, static_strides = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x13x13xf32>) -> tensor<1x1x13x13xf32>
    %108 = "tensor.extract_slice"(%107) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 1, 13, 13>, static_strides = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x13x13xf32>) -> tensor<1x1x13x13xf32>
    %109 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x13x13xf32>}> : () -> tensor<1x1x13x13xf32>
    %110 = "tosa.add"(%108, %109) : (tensor<1x1x13x13xf32>, tensor<1x1x13x13xf32>) -> tensor<1x1x13x13xf32>
    %111 = "tosa.add"(%104, %110) : (tensor<1x3x13x13xf32>, tensor<1x1x13x13xf32>) -> tensor<1x3x13x13xf32>
    %shape16 = tosa.const_shape {values = dense<[3, 13, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %112 = tosa.reshape %111, %shape16 : (tensor<1x3x13x13xf32>, !tosa.shape<3>) -> tensor<3x13x13xf32>
    %shape17 = tosa.const_shape {values = dense<[1, 3, 13, 13]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %113 = tosa.reshape %112, %shape17 : (tensor<3x13x13xf32>, !tosa.shape<4>) -> tensor<1x3x13x13xf32>
    %114 = "tosa.add"(%113, %34) : (tensor<1x3x13x13xf32>, tensor<1x1x13x13xf32>) -> tensor<1x3x13x13xf32>
    %shape18 = tosa.const_shape {values = dense<[3, 13, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %115 = tosa.reshape %114, %shape18 : (tensor<1x3x13x13xf32>, !tosa.shape<3>) -> tensor<3x13x13xf32>
    %116 = "tosa.reduce_max"(%115) <{axis = 2 : i32}> : (tensor<3x13x13xf32>) -> tensor<3x13x1xf32>
    %117 = "tosa.sub"(%115, %116) : (tensor<3x13x13xf32>, tensor<3x13x1xf32>) -> tensor<3x13x13xf32>
    %118 = "tosa.exp"(%117) : (tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
    %119 = "tosa.reduce_sum"(%118) <{axis = 2 : i32}> : (tensor<3x13x13xf32>) -> tensor<3x13x1xf32>
    %120 = "tosa.reciprocal"(%119) : (tensor<3x13x1xf32>) -> tensor<3x13x1xf32>
    %shift19 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %121 = tosa.mul %118, %120, %shift19 : (tensor<3x13x13xf32>, tensor<3x13x1xf32>, tensor<1xi8>) -> tensor<3x13x13xf32>
    %122 = "tosa.identity"(%121) : (tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
    %azp20 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %bzp21 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %123 = tosa.matmul %122, %100, %azp20, %bzp21 : (tensor<3x13x13xf32>, tensor<3x13x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x13x16xf32>
    %shape22 = tosa.const_shape {values = dense<[1, 3, 13, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %124 = tosa.reshape %123, %shape22 : (tensor<3x13x16xf32>, !tosa.shape<4>) -> tensor<1x3x13x16xf32>
    %126 = tosa.transpose %124 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x3x13x16xf32>) -> tensor<1x13x3x16xf32>
    %127 = "tosa.identity"(%126) : (tensor<1x13x3x16xf32>) -> tensor<1x13x3x16xf32>
    %shape23 = tosa.const_shape {values = dense<[1, 13, 48]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %128 = tosa.reshape %127, %shape23 : (tensor<1x13x3x16xf32>, !tosa.shape<3>) -> tensor<1x13x48xf32>
    return %128 : tensor<1x13x48xf32>
}
