// Input to buddy-tosa-gqa-decode-lse-softmax.mlir: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-gqa-attention.mlir (kernel), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @buddy_gqa_decode_lse_softmax(%q : tensor<1x6x1x16xf32>, %k_cache : tensor<1x2x37x16xf32>, %v_cache : tensor<1x2x37x16xf32>, %mask : tensor<1x1x1x37xf32>) -> tensor<1x6x1x16xf32> {

  // ===========GQA cache reshape =====
  %136 = tosa.const_shape  {values = dense<[1, 2, 1, 37, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %137 = tosa.reshape %k_cache, %136 : (tensor<1x2x37x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x37x16xf32>
  %138 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x2x3x37x16xf32>}> : () -> tensor<1x2x3x37x16xf32>
  %139 = tosa.add %137, %138 : (tensor<1x2x1x37x16xf32>, tensor<1x2x3x37x16xf32>) -> tensor<1x2x3x37x16xf32>
  %140 = tosa.const_shape  {values = dense<[1, 6, 37, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %141 = tosa.reshape %139, %140 : (tensor<1x2x3x37x16xf32>, !tosa.shape<4>) -> tensor<1x6x37x16xf32>

  %142 = tosa.const_shape  {values = dense<[1, 2, 1, 37, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %143 = tosa.reshape %v_cache, %142 : (tensor<1x2x37x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x37x16xf32>
  %144 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x2x3x37x16xf32>}> : () -> tensor<1x2x3x37x16xf32>
  %145 = tosa.add %143, %144 : (tensor<1x2x1x37x16xf32>, tensor<1x2x3x37x16xf32>) -> tensor<1x2x3x37x16xf32>
  %146 = tosa.const_shape  {values = dense<[1, 6, 37, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %147 = tosa.reshape %145, %146 : (tensor<1x2x3x37x16xf32>, !tosa.shape<4>) -> tensor<1x6x37x16xf32>

  // ==============mask======
  %cst_21 = arith.constant 0.000000e+00 : f32
  %splat_22 = tensor.splat %cst_21 : tensor<1x37xf32>
  %152 = tosa.const_shape  {values = dense<[1, 37]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %153 = tosa.reshape %mask, %152 : (tensor<1x1x1x37xf32>, !tosa.shape<2>) -> tensor<1x37xf32>
  %154 = tosa.add %splat_22, %153 : (tensor<1x37xf32>, tensor<1x37xf32>) -> tensor<1x37xf32>
  %155 = tosa.transpose %141 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x6x37x16xf32>) -> tensor<1x6x16x37xf32>
  %156 = tosa.const_shape  {values = dense<[6, 1, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>

  // =============q reshape============
  %157 = tosa.reshape %q, %156 : (tensor<1x6x1x16xf32>, !tosa.shape<3>) -> tensor<6x1x16xf32>
  %158 = tosa.transpose %155 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x6x16x37xf32>) -> tensor<1x6x37x16xf32>
  %159 = tosa.const_shape  {values = dense<[6, 37, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %160 = tosa.reshape %158, %159 : (tensor<1x6x37x16xf32>, !tosa.shape<3>) -> tensor<6x37x16xf32>

    // ===== Attention QK^T =====

  %cst_23 = arith.constant dense<0.000000e+00> : tensor<6x1x37xf32>
  %161 = linalg.batch_matmul indexing_maps = [affine_map<(batch, m, n, k) -> (batch, m, k)>, affine_map<(batch, m, n, k) -> (batch, n, k)>, affine_map<(batch, m, n, k) -> (batch, m, n)>] ins(%157, %160 : tensor<6x1x16xf32>, tensor<6x37x16xf32>) outs(%cst_23 : tensor<6x1x37xf32>) -> tensor<6x1x37xf32>
  %cst_24 = arith.constant 0.0883883461 : f32
  %splat_25 = tensor.splat %cst_24 : tensor<6x1x37xf32>
  %162 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %163 = tosa.mul %161, %splat_25, %162 : (tensor<6x1x37xf32>, tensor<6x1x37xf32>, tensor<1xi8>) -> tensor<6x1x37xf32>
  %164 = tosa.const_shape  {values = dense<[1, 1, 37]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %165 = tosa.reshape %154, %164 : (tensor<1x37xf32>, !tosa.shape<3>) -> tensor<1x1x37xf32>
  %166 = tosa.add %163, %165 : (tensor<6x1x37xf32>, tensor<1x1x37xf32>) -> tensor<6x1x37xf32>

  // ===== Attention Softmax =====

  %167 = tosa.reduce_max %166 {axis = 2 : i32} : (tensor<6x1x37xf32>) -> tensor<6x1x1xf32>
  %168 = tosa.sub %166, %167 : (tensor<6x1x37xf32>, tensor<6x1x1xf32>) -> tensor<6x1x37xf32>
  %169 = math.exp %168 : tensor<6x1x37xf32>
  %170 = tosa.reduce_sum %169 {axis = 2 : i32} : (tensor<6x1x37xf32>) -> tensor<6x1x1xf32>
  %171 = tosa.log %170 : (tensor<6x1x1xf32>) -> tensor<6x1x1xf32>
  %172 = tosa.add %167, %171 : (tensor<6x1x1xf32>, tensor<6x1x1xf32>) -> tensor<6x1x1xf32>
  %173 = tosa.sub %166, %172 : (tensor<6x1x37xf32>, tensor<6x1x1xf32>) -> tensor<6x1x37xf32>
  %174 = math.exp %173 : tensor<6x1x37xf32>

  // ===== Attention * V =====

  %175 = tosa.const_shape  {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %176 = tosa.reshape %172, %175 : (tensor<6x1x1xf32>, !tosa.shape<3>) -> tensor<1x6x1xf32>
  %177 = tosa.const_shape  {values = dense<[6, 37, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %178 = tosa.reshape %147, %177 : (tensor<1x6x37x16xf32>, !tosa.shape<3>) -> tensor<6x37x16xf32>
  %179 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %180 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %181 = tosa.matmul %174, %178, %179, %180 : (tensor<6x1x37xf32>, tensor<6x37x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<6x1x16xf32>
  %182 = tosa.const_shape  {values = dense<[1, 6, 1, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %183 = tosa.reshape %181, %182 : (tensor<6x1x16xf32>, !tosa.shape<4>) -> tensor<1x6x1x16xf32>

  return %183 : tensor<1x6x1x16xf32>
}
