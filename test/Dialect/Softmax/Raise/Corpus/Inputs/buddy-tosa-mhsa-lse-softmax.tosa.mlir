// Input to buddy-tosa-mhsa-lse-softmax.mlir: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-mhsa-core.mlir (kernel), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @buddy_mhsa_lse_softmax(%arg0: tensor<1x1x13x13xf32>, %arg1: tensor<1x1x13x13xf32>, %arg2: tensor<1x1x13x13xf32>, %arg3: tensor<1x3x13x16xf32>, %arg4: tensor<1x3x13x16xf32>) -> tensor<1x13x48xf32> {

  %a_zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b_zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %extracted_slice_43 = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 1, 13, 13] [1, 1, 1, 1] : tensor<1x1x13x13xf32> to tensor<1x1x13x13xf32>
  %extracted_slice_44 = tensor.extract_slice %arg1[0, 0, 0, 0] [1, 1, 13, 13] [1, 1, 1, 1] : tensor<1x1x13x13xf32> to tensor<1x1x13x13xf32>
  %extracted_slice_45 = tensor.extract_slice %arg2[0, 0, 0, 0] [1, 1, 13, 13] [1, 1, 1, 1] : tensor<1x1x13x13xf32> to tensor<1x1x13x13xf32>
  %cst_46 = arith.constant 0.000000e+00 : f32
  %splat_47 = tensor.splat %cst_46 : tensor<13x13xf32>
  %s0 = tosa.const_shape {values = dense<[13, 13]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %130 = tosa.reshape %extracted_slice_45, %s0 : (tensor<1x1x13x13xf32>, !tosa.shape<2>) -> tensor<13x13xf32>
  %131 = tosa.add %splat_47, %130 : (tensor<13x13xf32>, tensor<13x13xf32>) -> tensor<13x13xf32>
  %133 = tosa.transpose %arg3 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x3x13x16xf32>) -> tensor<1x3x16x13xf32>
  %s1 = tosa.const_shape {values = dense<[3, 13, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %134 = tosa.reshape %arg3, %s1 : (tensor<1x3x13x16xf32>, !tosa.shape<3>) -> tensor<3x13x16xf32>
  %s2 = tosa.const_shape {values = dense<[3, 16, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %135 = tosa.reshape %133, %s2 : (tensor<1x3x16x13xf32>, !tosa.shape<3>) -> tensor<3x16x13xf32>
  %136 = tosa.matmul %134, %135, %a_zp, %b_zp : (tensor<3x13x16xf32>, tensor<3x16x13xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x13x13xf32>
  %cst_48 = arith.constant 0.0883883461 : f32
  %splat_49 = tensor.splat %cst_48 : tensor<3x13x13xf32>
  %137 = tosa.mul %136, %splat_49, %shift : (tensor<3x13x13xf32>, tensor<3x13x13xf32>, tensor<1xi8>) -> tensor<3x13x13xf32>
  %s3 = tosa.const_shape {values = dense<[1, 13, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %138 = tosa.reshape %131, %s3 : (tensor<13x13xf32>, !tosa.shape<3>) -> tensor<1x13x13xf32>
  %139 = tosa.add %137, %138 : (tensor<3x13x13xf32>, tensor<1x13x13xf32>) -> tensor<3x13x13xf32>
  %140 = tosa.reduce_max %139 {axis = 2 : i32} : (tensor<3x13x13xf32>) -> tensor<3x13x1xf32>
  %141 = tosa.sub %139, %140 : (tensor<3x13x13xf32>, tensor<3x13x1xf32>) -> tensor<3x13x13xf32>
  %142 = math.exp %141 : tensor<3x13x13xf32>
  %143 = tosa.reduce_sum %142 {axis = 2 : i32} : (tensor<3x13x13xf32>) -> tensor<3x13x1xf32>
  %144 = tosa.log %143 : (tensor<3x13x1xf32>) -> tensor<3x13x1xf32>
  %145 = tosa.add %140, %144 : (tensor<3x13x1xf32>, tensor<3x13x1xf32>) -> tensor<3x13x1xf32>
  %146 = tosa.sub %139, %145 : (tensor<3x13x13xf32>, tensor<3x13x1xf32>) -> tensor<3x13x13xf32>
  %147 = math.exp %146 : tensor<3x13x13xf32>
  %s4 = tosa.const_shape {values = dense<[1, 3, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %148 = tosa.reshape %145, %s4 : (tensor<3x13x1xf32>, !tosa.shape<3>) -> tensor<1x3x13xf32>
  %149 = tosa.reshape %arg3, %s1 : (tensor<1x3x13x16xf32>, !tosa.shape<3>) -> tensor<3x13x16xf32>
  %150 = tosa.matmul %147, %149, %a_zp, %b_zp : (tensor<3x13x13xf32>, tensor<3x13x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x13x16xf32>
  %s5 = tosa.const_shape {values = dense<[1, 3, 13, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %151 = tosa.reshape %150, %s5 : (tensor<3x13x16xf32>, !tosa.shape<4>) -> tensor<1x3x13x16xf32>
  %153 = tosa.transpose %151 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x3x13x16xf32>) -> tensor<1x13x3x16xf32>
  %s6 = tosa.const_shape {values = dense<[1, 13, 48]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %154 = tosa.reshape %153, %s6 : (tensor<1x13x3x16xf32>, !tosa.shape<3>) -> tensor<1x13x48xf32>



  return %154 : tensor<1x13x48xf32>
}
