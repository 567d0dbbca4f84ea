// Input to buddy-tosa-llama-attention.mlir: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-attention.mlir (kernel), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @buddy_llama_attention(%t0 : tensor<3x13x16xf32>, %t1 : tensor<3x16x13xf32>, %t2 : tensor<1x1x13x13xf32>, %t3 : tensor<1x3x13x16xf32>) -> tensor<3x13x16xf32> {
  %a_zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b_zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>

  %0 = tosa.matmul %t0, %t1, %a_zp, %b_zp : (tensor<3x13x16xf32>, tensor<3x16x13xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x13x13xf32>
  %s0 = tosa.const_shape {values = dense<[1, 3, 13, 13]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %1 = "tosa.reshape" (%0, %s0) : (tensor<3x13x13xf32>, !tosa.shape<4>) -> tensor<1x3x13x13xf32>
  %2 = "tosa.const"() <{values = dense<11.3137083> : tensor<1x3x13x13xf32>}> : () -> tensor<1x3x13x13xf32>
  %3 = tosa.reciprocal %2 : (tensor<1x3x13x13xf32>) -> tensor<1x3x13x13xf32>
  %4 = tosa.mul %1, %3, %shift : (tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>, tensor<1xi8>) -> tensor<1x3x13x13xf32>
  %5 = tosa.add %4, %t2 : (tensor<1x3x13x13xf32>, tensor<1x1x13x13xf32>) -> tensor<1x3x13x13xf32>
  %6 = tosa.reduce_max %5 {axis = 3 : i32} : (tensor<1x3x13x13xf32>) -> tensor<1x3x13x1xf32>
  %7 = tosa.sub %5, %6 : (tensor<1x3x13x13xf32>, tensor<1x3x13x1xf32>) -> tensor<1x3x13x13xf32>
  %8 = tosa.exp %7 : (tensor<1x3x13x13xf32>) -> tensor<1x3x13x13xf32>
  %9 = tosa.reduce_sum %8 {axis = 3 : i32} : (tensor<1x3x13x13xf32>) -> tensor<1x3x13x1xf32>
  %10 = tosa.reciprocal %9 : (tensor<1x3x13x1xf32>) -> tensor<1x3x13x1xf32>
  %11 = tosa.mul %8, %10, %shift : (tensor<1x3x13x13xf32>, tensor<1x3x13x1xf32>, tensor<1xi8>) -> tensor<1x3x13x13xf32>
  %12 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x3x13x13xf32>}> : () -> tensor<1x3x13x13xf32>
  %13 = tosa.add %11, %12 : (tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>) -> tensor<1x3x13x13xf32>
  %s1 = tosa.const_shape {values = dense<[3, 13, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %14 = "tosa.reshape" (%13, %s1): (tensor<1x3x13x13xf32>, !tosa.shape<3>) -> tensor<3x13x13xf32>
  %15 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x3x13x16xf32>}> : () -> tensor<1x3x13x16xf32>
  %16 = tosa.add %t3, %15 : (tensor<1x3x13x16xf32>, tensor<1x3x13x16xf32>) -> tensor<1x3x13x16xf32>
  %s2 = tosa.const_shape {values = dense<[3, 13, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %17 = "tosa.reshape" (%16, %s2) : (tensor<1x3x13x16xf32>, !tosa.shape<3>) -> tensor<3x13x16xf32>
  %18 = tosa.matmul %14, %17, %a_zp, %b_zp : (tensor<3x13x13xf32>, tensor<3x13x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x13x16xf32>





  return %18 : tensor<3x13x16xf32>
}
